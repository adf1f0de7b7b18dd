// k6/experimental/redis (and k6/x/redis): a Redis client whose commands
// return promises, as k6's module has them (natives in mod.rs). Each
// command is sent when called and the VU waits for its answer; the
// promise is settled with it. Answers are converted as k6's client
// converts them; a failed command rejects with k6's Go error (an object
// whose String() is the error's text).
const k = globalThis.__k6;
const ids = new WeakMap();

// k6's rejection value: a Go error, without name or message.
function goError(text) {
  const e = {};
  Object.defineProperty(e, 'toString', { value: () => text });
  Object.defineProperty(e, 'error', { value: () => text });
  return e;
}

const NIL = 'redis: nil';

// The argument types k6's client writes; others are refused, naming
// the argument's place in the call.
function checkTypes(offset, values) {
  for (let i = 0; i < values.length; i++) {
    const t = typeof values[i];
    if (t !== 'string' && t !== 'number' && t !== 'boolean') {
      throw goError(`unsupported type provided for argument at index ${i + offset}, supported types are string, number, and boolean`);
    }
  }
}

// Go's int parameters: a number's integer part, 0 for anything else.
const int = (v) => Math.trunc(Number(v)) || 0;

// A command's answer, settled as a promise; `convert` shapes it, and a
// nil answer rejects unless `nilOk`.
function send(client, args, convert, nilOk) {
  return new Promise((resolve, reject) => {
    let v;
    try {
      v = k.redisDo(ids.get(client), args);
    } catch (e) {
      reject(typeof e === 'object' && e !== null && typeof e.error === 'function' ? e : goError(e && e.message !== undefined ? e.message : String(e)));
      return;
    }
    if (v === undefined && !nilOk) {
      reject(goError(NIL));
      return;
    }
    resolve(convert ? convert(v) : v);
  });
}

// A call whose arguments are refused rejects without a command sent.
function checked(offset, values, f) {
  try {
    checkTypes(offset, values);
  } catch (e) {
    return Promise.reject(e);
  }
  return f();
}

const bool = (v) => v === 1;
const pairs = (a) => {
  const out = {};
  for (let i = 0; i + 1 < a.length; i += 2) out[a[i]] = a[i + 1];
  return out;
};
// TTL as k6 gives it: seconds, and -1/-2 (no expiry, no key) as Go's
// durations of -1 and -2 nanoseconds in seconds.
const ttl = (v) => (v < 0 ? v * 1e-9 : v);

export class Client {
  constructor(...args) {
    if (args.length !== 1) throw k.goError('must specify one argument');
    const opts = args[0];
    ids.set(this, k.redisNew(typeof opts === 'string' ? opts : opts === null || typeof opts !== 'object' ? opts : JSON.stringify(opts), typeof opts === 'object' && opts !== null));
  }

  set(key, value, expiration) {
    return checked(1, [value], () => {
      const args = ['set', String(key), value];
      const ex = int(expiration);
      if (ex > 0) args.push('ex', ex);
      return send(this, args);
    });
  }
  get(key) { return send(this, ['get', String(key)]); }
  getSet(key, value) { return checked(1, [value], () => send(this, ['getset', String(key), value])); }
  del(...keys) { return send(this, ['del', ...keys.map(String)]); }
  getDel(key) { return send(this, ['getdel', String(key)]); }
  exists(...keys) { return send(this, ['exists', ...keys.map(String)]); }
  incr(key) { return send(this, ['incr', String(key)]); }
  incrBy(key, n) { return send(this, ['incrby', String(key), int(n)]); }
  decr(key) { return send(this, ['decr', String(key)]); }
  decrBy(key, n) { return send(this, ['decrby', String(key), int(n)]); }
  randomKey() { return send(this, ['randomkey']); }
  mget(...keys) { return send(this, ['mget', ...keys.map(String)]); }
  expire(key, seconds) { return send(this, ['expire', String(key), int(seconds)], bool); }
  ttl(key) { return send(this, ['ttl', String(key)], ttl); }
  persist(key) { return send(this, ['persist', String(key)], bool); }

  lpush(key, ...values) { return checked(1, values, () => send(this, ['lpush', String(key), ...values])); }
  rpush(key, ...values) { return checked(1, values, () => send(this, ['rpush', String(key), ...values])); }
  lpop(key) { return send(this, ['lpop', String(key)]); }
  rpop(key) { return send(this, ['rpop', String(key)]); }
  lrange(key, start, stop) { return send(this, ['lrange', String(key), int(start), int(stop)]); }
  lindex(key, index) { return send(this, ['lindex', String(key), int(index)]); }
  lset(key, index, element) { return send(this, ['lset', String(key), int(index), String(element)]); }
  lrem(key, count, value) { return send(this, ['lrem', String(key), int(count), String(value)]); }
  llen(key) { return send(this, ['llen', String(key)]); }

  hset(key, field, value) { return checked(2, [value], () => send(this, ['hset', String(key), String(field), value])); }
  hsetnx(key, field, value) { return send(this, ['hsetnx', String(key), String(field), String(value)], bool); }
  hget(key, field) { return send(this, ['hget', String(key), String(field)]); }
  hdel(key, ...fields) { return send(this, ['hdel', String(key), ...fields.map(String)]); }
  hgetall(key) { return send(this, ['hgetall', String(key)], pairs); }
  hkeys(key) { return send(this, ['hkeys', String(key)]); }
  hvals(key) { return send(this, ['hvals', String(key)]); }
  hlen(key) { return send(this, ['hlen', String(key)]); }
  hincrby(key, field, n) { return send(this, ['hincrby', String(key), String(field), int(n)]); }

  sadd(key, ...members) { return checked(1, members, () => send(this, ['sadd', String(key), ...members])); }
  srem(key, ...members) { return checked(1, members, () => send(this, ['srem', String(key), ...members])); }
  sismember(key, member) { return checked(1, [member], () => send(this, ['sismember', String(key), member], bool)); }
  smembers(key) { return send(this, ['smembers', String(key)]); }
  srandmember(key) { return send(this, ['srandmember', String(key)]); }
  spop(key) { return send(this, ['spop', String(key)]); }

  sendCommand(command, ...args) { return checked(1, args, () => send(this, [String(command), ...args])); }
}

export default { Client };
