//! k6's redis module (`k6/experimental/redis`, k6 v1's deprecated name,
//! and `k6/x/redis`) against a real redis-server, side by side with k6
//! v1.8.1: every command's answer and every error as k6 gives them (the
//! lines below were recorded from k6), and k6's own example.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};

use loadlab_testkit::proc::text;
use loadlab_testkit::redis::Redis;

use crate::side_by_side::{loadlab, tools};

const SCRIPT: &str = r#"import redis from 'k6/experimental/redis';
import { check } from 'k6';

export const options = { iterations: 1 };
const client = new redis.Client(`redis://127.0.0.1:${__ENV.REDIS_PORT}`);
const tries = [
  () => new redis.Client(),
  () => new redis.Client({ socket: { host: '127.0.0.1', port: 1 }, foo: 1 }),
  () => new redis.Client('http://127.0.0.1:1'),
  () => new redis.Client({ username: 'x' }),
  () => new redis.Client(5),
  () => new redis.Client({ socket: { host: '127.0.0.1', port: 'x' } }),
];
const made = tries.map((f) => { try { f(); return 'ok'; } catch (e) { return `${e.name}: ${e.message}`; } });
const down = new redis.Client(`redis://127.0.0.1:${__ENV.DOWN_PORT}`);
const db2 = new redis.Client({ socket: { host: '127.0.0.1', port: Number(__ENV.REDIS_PORT) }, database: 2 });
const lines = [];
const show = (v) => (v === null ? 'null' : v === undefined ? 'undefined' : `${typeof v}:${JSON.stringify(v)}`);
async function step(name, f) {
  try {
    lines.push(`${name} -> ${show(await f())}`);
  } catch (e) {
    lines.push(`${name} !! ${typeof e} ${e && e.name} ${e && e.message} | ${String(e)}`);
  }
}
let initErr = '';
client.set('x', 1).catch((e) => { initErr = `${typeof e} ${e.name} ${e.message} | ${String(e)}`; });

export default async function () {
  lines.push(`init: ${initErr}`);
  lines.push(...made);
  await step('down', () => down.get('x'));
  await step('db2 set', () => db2.set('in2', 'yes'));
  await step('db2 get', () => db2.get('in2'));
  await step('db0 get', () => client.get('in2'));
  await step('db2 flush', () => db2.sendCommand('FLUSHDB'));
  const k = `t${__VU}`;
  await step('set', () => client.set(k, 'v1', 0));
  await step('set num', () => client.set(k + 'n', 5, 0));
  await step('set bool', () => client.set(k + 'b', true, 0));
  await step('set obj', () => client.set(k + 'o', { a: 1 }, 0));
  await step('get', () => client.get(k));
  await step('get num', () => client.get(k + 'n'));
  await step('get bool', () => client.get(k + 'b'));
  await step('get missing', () => client.get('nope'));
  await step('getSet', () => client.getSet(k, 'v2'));
  await step('getSet missing', () => client.getSet('gs-missing', 'x'));
  await step('getDel', () => client.getDel('gs-missing'));
  await step('exists', () => client.exists(k, 'nope', k + 'n'));
  await step('incr', () => client.incr(k + 'n'));
  await step('incrBy', () => client.incrBy(k + 'n', 10));
  await step('decr', () => client.decr(k + 'n'));
  await step('decrBy', () => client.decrBy(k + 'n', 3));
  await step('incr wrong', () => client.incr(k));
  await step('mget', () => client.mget(k, 'nope', k + 'n'));
  await step('expire', () => client.expire(k, 100));
  await step('ttl', () => client.ttl(k));
  await step('ttl none', () => client.ttl(k + 'n'));
  await step('ttl missing', () => client.ttl('nope'));
  await step('persist', () => client.persist(k));
  await step('expire missing', () => client.expire('nope', 10));
  await step('del', () => client.del(k, k + 'b', 'nope'));
  await step('lpush', () => client.lpush('l', 'a', 2, true));
  await step('rpush', () => client.rpush('l', 'z'));
  await step('lrange', () => client.lrange('l', 0, -1));
  await step('lindex', () => client.lindex('l', 1));
  await step('lindex out', () => client.lindex('l', 99));
  await step('lset', () => client.lset('l', 0, 'first'));
  await step('lset out', () => client.lset('l', 99, 'x'));
  await step('lrem', () => client.lrem('l', 1, 'a'));
  await step('llen', () => client.llen('l'));
  await step('lpop', () => client.lpop('l'));
  await step('rpop', () => client.rpop('l'));
  await step('lpop missing', () => client.lpop('nolist'));
  await step('hset', () => client.hset('h', 'f1', 'v1'));
  await step('hset num', () => client.hset('h', 'f2', 2));
  await step('hsetnx', () => client.hsetnx('h', 'f1', 'x'));
  await step('hsetnx new', () => client.hsetnx('h', 'f3', 'x'));
  await step('hget', () => client.hget('h', 'f1'));
  await step('hget missing', () => client.hget('h', 'nope'));
  await step('hgetall', async () => Object.entries(await client.hgetall('h')).sort());
  await step('hgetall missing', () => client.hgetall('nohash'));
  await step('hkeys', () => client.hkeys('h'));
  await step('hvals', () => client.hvals('h'));
  await step('hlen', () => client.hlen('h'));
  await step('hincrby', () => client.hincrby('h', 'f2', 5));
  await step('hdel', () => client.hdel('h', 'f1', 'nope'));
  await step('sadd', () => client.sadd('s', 'a', 'b', 1));
  await step('sadd again', () => client.sadd('s', 'a'));
  await step('sismember', () => client.sismember('s', 'a'));
  await step('sismember no', () => client.sismember('s', 'zz'));
  await step('smembers n', async () => (await client.smembers('s')).sort());
  await step('srem', () => client.srem('s', 'a', 'nope'));
  await step('srandmember', async () => typeof (await client.srandmember('s')));
  await step('srandmember missing', () => client.srandmember('noset'));
  await step('spop', async () => typeof (await client.spop('s')));
  await step('spop missing', () => client.spop('noset'));
  await step('randomKey', async () => typeof (await client.randomKey()));
  await step('sendCommand ping', () => client.sendCommand('PING'));
  await step('sendCommand echo', () => client.sendCommand('ECHO', 'hi'));
  await step('sendCommand set', () => client.sendCommand('SET', 'sc', 1));
  await step('sendCommand get', () => client.sendCommand('GET', 'sc'));
  await step('sendCommand getmiss', () => client.sendCommand('GET', 'nope'));
  await step('sendCommand lrange', () => client.sendCommand('LRANGE', 'nolist', 0, -1));
  await step('sendCommand hgetall', () => client.sendCommand('HGETALL', 'h'));
  await step('sendCommand bad', () => client.sendCommand('NOSUCH', 'x'));
  await step('sendCommand incr float', () => client.sendCommand('INCRBYFLOAT', 'flt', 1.5));
  await step('sendCommand obj', () => client.sendCommand('SET', 'k', { a: 1 }));
  await step('flushdb', () => client.sendCommand('FLUSHDB'));
  check(true, { ok: (v) => v });
  for (const l of lines) console.log(l);
}

"#;

/// What k6 v1.8.1 printed for [`SCRIPT`] (its console lines).
const FROM_K6: &str = r#"init: object undefined undefined | connecting to a redis server in the init context is not supported
GoError: must specify one argument
GoError: invalid options; reason: json: unknown field "foo"
GoError: invalid options; reason: redis: invalid URL scheme: http
GoError: invalid options; reason: empty socket options
GoError: invalid options type: int64; expected string or object
GoError: invalid options; reason: json: cannot unmarshal string into Go struct field socketOptions.socket.port of type int
down !! object undefined undefined | dial tcp 127.0.0.1:1: connect: connection refused
db2 set -> string:"OK"
db2 get -> string:"yes"
db0 get !! object undefined undefined | redis: nil
db2 flush -> string:"OK"
set -> string:"OK"
set num -> string:"OK"
set bool -> string:"OK"
set obj !! object undefined undefined | unsupported type provided for argument at index 1, supported types are string, number, and boolean
get -> string:"v1"
get num -> string:"5"
get bool -> string:"1"
get missing !! object undefined undefined | redis: nil
getSet -> string:"v1"
getSet missing !! object undefined undefined | redis: nil
getDel -> string:"x"
exists -> number:2
incr -> number:6
incrBy -> number:16
decr -> number:15
decrBy -> number:12
incr wrong !! object undefined undefined | ERR value is not an integer or out of range
mget -> object:["v2",null,"12"]
expire -> boolean:true
ttl -> number:100
ttl none -> number:-1e-9
ttl missing -> number:-2e-9
persist -> boolean:true
expire missing -> boolean:false
del -> number:2
lpush -> number:3
rpush -> number:4
lrange -> object:["1","2","a","z"]
lindex -> string:"2"
lindex out !! object undefined undefined | redis: nil
lset -> string:"OK"
lset out !! object undefined undefined | ERR index out of range
lrem -> number:1
llen -> number:3
lpop -> string:"first"
rpop -> string:"z"
lpop missing !! object undefined undefined | redis: nil
hset -> number:1
hset num -> number:1
hsetnx -> boolean:false
hsetnx new -> boolean:true
hget -> string:"v1"
hget missing !! object undefined undefined | redis: nil
hgetall -> object:[["f1","v1"],["f2","2"],["f3","x"]]
hgetall missing -> object:{}
hkeys -> object:["f1","f2","f3"]
hvals -> object:["v1","2","x"]
hlen -> number:3
hincrby -> number:7
hdel -> number:1
sadd -> number:3
sadd again -> number:0
sismember -> boolean:true
sismember no -> boolean:false
smembers n -> object:["1","a","b"]
srem -> number:1
srandmember -> string:"string"
srandmember missing !! object undefined undefined | redis: nil
spop -> string:"string"
spop missing !! object undefined undefined | redis: nil
randomKey -> string:"string"
sendCommand ping -> string:"PONG"
sendCommand echo -> string:"hi"
sendCommand set -> string:"OK"
sendCommand get -> string:"1"
sendCommand getmiss !! object undefined undefined | redis: nil
sendCommand lrange -> object:[]
sendCommand hgetall -> object:["f2","7","f3","x"]
sendCommand bad !! object undefined undefined | ERR unknown command 'NOSUCH', with args beginning with: 'x' 
sendCommand incr float -> string:"1.5"
sendCommand obj !! object undefined undefined | unsupported type provided for argument at index 2, supported types are string, number, and boolean
flushdb -> string:"OK"
"#;

/// The console's lines of a run with `--log-format=raw`, without the
/// summary and the module's deprecation warning.
fn said(stderr: &str) -> String {
    stderr
        .lines()
        .filter(|l| {
            !l.is_empty()
                && !l.starts_with(' ')
                && !l.contains("deprecated")
                && !l.contains("pool.go")
        })
        .map(|l| format!("{l}\n"))
        .collect()
}

#[test]
fn every_command_answers_as_k6s_client() {
    let Some(redis) = Redis::start_or_skip("every_command_answers_as_k6s_client") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("r.js"), SCRIPT).unwrap();
    let refused = loadlab_testkit::refused::Refused::new();
    let down = refused.port();
    for tool in tools("every_command_answers_as_k6s_client") {
        let (port, down_env) = (
            format!("REDIS_PORT={}", redis.port),
            format!("DOWN_PORT={down}"),
        );
        let o = tool.run_in(
            dir.path(),
            &[
                "-q",
                "--log-format=raw",
                "-e",
                &port,
                "-e",
                &down_env,
                "r.js",
            ],
        );
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(0), "{}: {err}", tool.name);
        assert!(
            err.contains("k6/experimental/redis has been deprecated"),
            "{}: {err}",
            tool.name
        );
        let got = said(&err).replace(&format!("127.0.0.1:{down}"), "127.0.0.1:DOWN");
        let want = FROM_K6.replace("127.0.0.1:1:", "127.0.0.1:DOWN:");
        for (i, (g, w)) in got.lines().zip(want.lines()).enumerate() {
            assert_eq!(g, w, "{}: line {}", tool.name, i + 1);
        }
        assert_eq!(got, want, "{}", tool.name);
        let out = text(&o.stdout);
        assert!(out.contains("data_sent"), "{}: {out}", tool.name);
    }
}

/// A load test in the way of k6's example for the module: two scenarios
/// of 10 VUs sharing 200 iterations each, one counting in Redis, one
/// picking ids that `setup` stored and counting the requests it makes
/// with them; `teardown` removes the ids. (k6's example also prints
/// jslib's textSummary, which k6 cannot fetch here.)
const LOAD: &str = r#"
import { check } from 'k6';
import http from 'k6/http';
import exec from 'k6/execution';
import { Client } from 'k6/experimental/redis';

export const options = {
  scenarios: {
    counting: { executor: 'shared-iterations', vus: 10, iterations: 200, exec: 'counting' },
    reading: { executor: 'shared-iterations', vus: 10, iterations: 200, exec: 'reading' },
  },
  thresholds: { checks: ['rate==1'] },
};
const db = new Client(`redis://127.0.0.1:${__ENV.REDIS_PORT}`);

export async function setup() {
  await db.sadd('ids', 0, 1, 2, 3, 4, 5, 6, 7, 8, 9);
}

export async function counting() {
  const key = `count-${exec.vu.idInTest}`;
  await db.set(key, 1);
  await db.incrBy(key, 10);
  const v = await db.get(key);
  await db.del(key);
  const gone = (await db.exists(key)) === 0;
  check(v, { 'counted to 11': (x) => x === '11', 'deleted': () => gone });
}

export async function reading() {
  const id = await db.srandmember('ids');
  const url = `${__ENV.BASE}/items/${id}`;
  const res = await http.asyncRequest('GET', url);
  check(res, { 'status is 200': (r) => r.status === 200 });
  await db.hincrby('fetched', id, 1);
}

export async function teardown() {
  await db.del('ids');
  const counts = Object.values(await db.hgetall('fetched')).map(Number);
  console.log(`fetched ${counts.reduce((a, b) => a + b, 0)} times`);
  await db.del('fetched');
}
"#;

/// Answers every request 200 with a short body, keeping connections open.
fn ok_server() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        for s in listener.incoming().flatten() {
            std::thread::spawn(move || {
                let mut r = BufReader::new(s.try_clone().unwrap());
                let mut w = s;
                loop {
                    let mut line = String::new();
                    loop {
                        line.clear();
                        if r.read_line(&mut line).unwrap_or(0) == 0 {
                            return;
                        }
                        if line == "\r\n" {
                            break;
                        }
                    }
                    if w.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
                        .is_err()
                    {
                        return;
                    }
                }
            });
        }
    });
    format!("http://{addr}")
}

/// `EXISTS key` on the server, by hand.
fn exists(port: u16, key: &str) -> bool {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    let cmd = format!("*2\r\n$6\r\nEXISTS\r\n${}\r\n{key}\r\n", key.len());
    s.write_all(cmd.as_bytes()).unwrap();
    let mut b = [0u8; 4];
    s.read_exact(&mut b).unwrap();
    &b == b":1\r\n"
}

#[test]
fn a_load_test_shares_a_redis_between_vus_as_in_k6() {
    let Some(redis) = Redis::start_or_skip("a_load_test_shares_a_redis_between_vus_as_in_k6")
    else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("load.js"), LOAD).unwrap();
    let base = ok_server();
    // k6/x/redis too, which k6 v1.8.1 would fetch as an extension: the
    // same module in loadlab, without the warning.
    std::fs::write(
        dir.path().join("load_x.js"),
        LOAD.replace("k6/experimental/redis", "k6/x/redis"),
    )
    .unwrap();
    let mut runs: Vec<_> = tools("a_load_test_shares_a_redis_between_vus_as_in_k6")
        .into_iter()
        .map(|t| (t, "load.js"))
        .collect();
    runs.push((loadlab(), "load_x.js"));
    for (tool, script) in runs {
        let (port, at) = (format!("REDIS_PORT={}", redis.port), format!("BASE={base}"));
        let o = tool.run_in(
            dir.path(),
            &[
                "--log-format=raw",
                "--no-color",
                "-e",
                &port,
                "-e",
                &at,
                script,
            ],
        );
        let (out, err) = (text(&o.stdout), text(&o.stderr));
        assert_eq!(o.status.code(), Some(0), "{}: {out}\n{err}", tool.name);
        assert!(err.contains("fetched 200 times"), "{}: {err}", tool.name);
        assert_eq!(
            err.contains("deprecated"),
            script == "load.js",
            "{}: {err}",
            tool.name
        );
        for want in ["✓ counted to 11", "✓ deleted", "✓ status is 200"] {
            assert!(out.contains(want), "{}: {want:?} in\n{out}", tool.name);
        }
        // The summary's rows, whatever their dots' width.
        let row = |name: &str| {
            out.lines()
                .find(|l| l.trim_start().starts_with(&format!("{name}.")))
                .map(|l| l.split_once(": ").map_or("", |(_, v)| v).trim().to_string())
                .unwrap_or_default()
        };
        assert!(
            row("checks_succeeded").starts_with("100.00% 600 out of 600"),
            "{}: {out}",
            tool.name
        );
        assert!(
            row("iterations").starts_with("400 "),
            "{}: {out}",
            tool.name
        );
        assert!(!exists(redis.port, "ids"), "{}", tool.name);
        assert!(!exists(redis.port, "fetched"), "{}", tool.name);
    }
}

const TLS: &str = r#"
import redis from 'k6/experimental/redis';
import { check } from 'k6';
const CA = open('ca.pem');
const insecure = __ENV.INSECURE === '1';
export const options = { iterations: 1, insecureSkipTLSVerify: insecure };
const port = Number(__ENV.PORT);
const byCa = new redis.Client({ socket: { host: 'localhost', port, tls: { ca: [CA] } } });
const byUrl = new redis.Client(`rediss://localhost:${port}`);
const plain = new redis.Client(`redis://localhost:${port}`);
const outcome = async (c) => {
  try {
    return `${await c.set('over', 'tls')} ${await c.get('over')}`;
  } catch (e) {
    return String(e);
  }
};
export default async function () {
  const [ca, url, bare] = [await outcome(byCa), await outcome(byUrl), await outcome(plain)];
  check(null, {
    'a client trusting the CA': () => ca === 'OK tls',
    // Without insecureSkipTLSVerify the server's certificate is not one
    // the built-in roots trust.
    'rediss://': () => (url === 'OK tls') === insecure,
    'a plain client gets no answer': () => bare !== 'OK tls',
  });
  console.log(`${ca} | ${url} | ${bare}`);
}
"#;

/// TLS by a URL and by options. k6 v1.8.1 fails `socket.tls` without
/// `insecureSkipTLSVerify` (`tls: either ServerName or InsecureSkipVerify
/// must be specified in the tls.Config`): k6 runs only with it.
#[test]
fn a_client_speaks_tls_as_k6s() {
    let Some(redis) = Redis::start_tls_or_skip("a_client_speaks_tls_as_k6s") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("t.js"), TLS).unwrap();
    std::fs::write(dir.path().join("ca.pem"), redis.cert_pem.as_ref().unwrap()).unwrap();
    let mut runs: Vec<_> = tools("a_client_speaks_tls_as_k6s")
        .into_iter()
        .map(|t| (t, "1"))
        .collect();
    runs.push((loadlab(), "0"));
    for (tool, insecure) in runs {
        let (port, insecure_env) = (
            format!("PORT={}", redis.port),
            format!("INSECURE={insecure}"),
        );
        let o = tool.run_in(
            dir.path(),
            &[
                "-q",
                "--log-format=raw",
                "-e",
                &port,
                "-e",
                &insecure_env,
                "t.js",
            ],
        );
        let (out, err) = (text(&o.stdout), text(&o.stderr));
        assert_eq!(
            o.status.code(),
            Some(0),
            "{} {insecure}: {out}\n{err}",
            tool.name
        );
        assert!(
            out.contains("3 out of 3"),
            "{} {insecure}: {out}\n{err}",
            tool.name
        );
    }
}

/// A connection the server closed (`QUIT`) is dialled again for the next
/// command, which gets its answer, as k6's client retries it.
#[test]
fn a_closed_connection_is_dialled_again() {
    let Some(redis) = Redis::start_or_skip("a_closed_connection_is_dialled_again") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("q.js"),
        r#"
import redis from 'k6/experimental/redis';
export const options = { iterations: 1 };
const c = new redis.Client(`redis://127.0.0.1:${__ENV.REDIS_PORT}`);
export default async function () {
  await c.set('q', 'kept');
  let quit = '';
  try { quit = await c.sendCommand('QUIT'); } catch (e) { quit = String(e); }
  let after = '';
  try { after = await c.get('q'); } catch (e) { after = String(e); }
  console.log(`${quit} | ${after}`);
  await c.del('q');
}
"#,
    )
    .unwrap();
    for tool in tools("a_closed_connection_is_dialled_again") {
        let port = format!("REDIS_PORT={}", redis.port);
        let o = tool.run_in(dir.path(), &["-q", "--log-format=raw", "-e", &port, "q.js"]);
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(0), "{}: {err}", tool.name);
        assert!(
            err.lines().any(|l| l == "OK | kept"),
            "{}: {err}",
            tool.name
        );
    }
}
