//! The k6 API as the script sees it: the modules `k6`, `k6/http`,
//! `k6/metrics`, `k6/execution`, `k6/data`, `k6/encoding`, `k6/crypto`, `k6/html`, `k6/timers` (small
//! JavaScript over native functions on
//! a hidden `__k6` object), and the init context's globals (`__ENV`,
//! `__VU`, `__ITER`, `open()`, `console`).

use std::cell::Cell;
use std::rc::Rc;
use std::time::Duration;

use bytes::Bytes;
use http::Method;
use loadlab_engine::client::ClientRequest;
use loadlab_engine::header_list::HeaderList;
use rquickjs::function::{Opt, Rest, This};
use rquickjs::object::{Accessor, Property};
use rquickjs::{Ctx, Exception, Function, Object, Value, qjs};

use crate::log::Level;
use crate::metrics::Kind;
use crate::sched::Shared;
use crate::vu::{self, Op, Resume};

/// The modules a script may import; any other `k6/...` name is refused at
/// init, naming it.
pub const MODULES: &[(&str, &str)] = &[
    ("k6", K6_JS),
    ("k6/http", HTTP_JS),
    ("k6/metrics", METRICS_JS),
    ("k6/execution", EXECUTION_JS),
    ("k6/data", DATA_JS),
    ("k6/encoding", ENCODING_JS),
    ("k6/crypto", CRYPTO_JS),
    ("k6/html", HTML_JS),
    ("k6/timers", TIMERS_JS),
    ("k6/ws", crate::ws::WS_JS),
    ("k6/websockets", crate::websockets::WEBSOCKETS_JS),
    (K6_UTILS, K6_UTILS_JS),
];

/// The module that answers imports of k6's remote utility library
/// (`https://jslib.k6.io/k6-utils/<version>/index.js`, any version): the
/// functions scripts use most, written here, with no network.
pub const K6_UTILS: &str = "jslib.k6.io/k6-utils";

const K6_UTILS_JS: &str = r#"
const k = globalThis.__k6;
export function randomIntBetween(min, max) {
  return Math.floor(Math.random() * (max - min + 1) + min);
}
export function randomItem(items) {
  return items[Math.floor(Math.random() * items.length)];
}
export function randomString(length, charset = 'abcdefghijklmnopqrstuvwxyz') {
  const out = [];
  for (let i = 0; i < length; i++) out.push(charset[Math.floor(Math.random() * charset.length)]);
  return out.join('');
}
const HEX = '0123456789abcdef';
export function uuidv4(secure = false) {
  const b = secure ? new Uint8Array(k.randomBytes(16)) : Uint8Array.from({ length: 16 }, () => Math.floor(Math.random() * 256));
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  let s = '';
  for (let i = 0; i < 16; i++) {
    if (i === 4 || i === 6 || i === 8 || i === 10) s += '-';
    s += HEX[b[i] >> 4] + HEX[b[i] & 15];
  }
  return s;
}
// The text between `left` and `right` ('' when there is none), or with
// `repeat` every such text, in order.
export function findBetween(content, left, right, repeat = false) {
  const all = [];
  let from = 0;
  for (;;) {
    const a = content.indexOf(left, from);
    if (a < 0) break;
    const start = a + left.length;
    const end = content.indexOf(right, start);
    if (end < 0) break;
    if (!repeat) return content.substring(start, end);
    all.push(content.substring(start, end));
    from = end + right.length;
  }
  return repeat ? all : '';
}
"#;

const CRYPTO_JS: &str = r#"
const k = globalThis.__k6;
const bytes = k.toBytes;
function digest(alg, key, parts, enc) {
  const out = k.digest(String(alg), key, parts, String(enc));
  if (typeof out === 'number') {
    throw k.goError(out === 0 ? `invalid algorithm: ${alg}` : `invalid output encoding: ${enc}`);
  }
  return out;
}
// As k6's: digest() may be called again, and update() goes on after it.
class Hasher {
  constructor(alg, key) { this._alg = alg; this._key = key; this._parts = []; }
  update(input) { this._parts.push(bytes(input)); }
  digest(enc) { return digest(this._alg, this._key, this._parts, enc); }
}
// The algorithm is checked first (then an HMAC's key), as in k6.
function hasher(alg, keyed, key) {
  if (!k.hashKnown(String(alg))) throw k.goError(`invalid algorithm: ${alg}`);
  return new Hasher(alg, keyed ? bytes(key) : undefined);
}
export function createHash(alg) { return hasher(alg, false); }
export function createHMAC(alg, key) { return hasher(alg, true, key); }
export function hmac(alg, key, input, enc) {
  const h = createHMAC(alg, key);
  h.update(input);
  return h.digest(enc);
}
const one = (alg) => (input, enc) => {
  let b;
  try { b = bytes(input); } catch (e) { throw k.goError(`${alg} failed: ${e.message}`); }
  return digest(alg, undefined, [b], enc);
};
export const md4 = one('md4'), md5 = one('md5'), sha1 = one('sha1'), sha256 = one('sha256'),
  sha384 = one('sha384'), sha512 = one('sha512'), sha512_224 = one('sha512_224'),
  sha512_256 = one('sha512_256'), ripemd160 = one('ripemd160');
export function hexEncode(data) { return digest('identity', undefined, [bytes(data)], 'hex'); }
export function randomBytes(size) {
  const n = Number(size);
  if (!(n >= 1)) throw k.goError('invalid size');
  return k.randomBytes(Math.floor(n));
}
export default {
  createHash, createHMAC, hmac, md4, md5, sha1, sha256, sha384, sha512, sha512_224,
  sha512_256, ripemd160, hexEncode, randomBytes,
};
"#;

const DATA_JS: &str = r#"
const k = globalThis.__k6;
// One copy of each named array for every VU: they share one context, so
// the array is made once (by the first VU's init) and handed to the rest,
// which is what SharedArray is for. Elements go through JSON, as in k6,
// and are frozen all the way down.
const arrays = k.sharedArrays || (k.sharedArrays = new Map());
function deepFreeze(v) {
  if (v !== null && typeof v === 'object' && !Object.isFrozen(v)) {
    Object.freeze(v);
    for (const key of Object.keys(v)) deepFreeze(v[key]);
  }
  return v;
}
function immutable() { throw new TypeError('SharedArray is immutable'); }
export function SharedArray(name, fn) {
  if (!k.inInit()) throw k.goError('new SharedArray must be called in the init context');
  name = String(name);
  if (name === '') throw k.goError("empty name provided to SharedArray's constructor");
  if (typeof fn !== 'function') throw k.goError("a function is expected as the second argument of SharedArray's constructor");
  if (fn.constructor && fn.constructor.name === 'AsyncFunction') {
    throw k.goError('SharedArray constructor does not support async functions as second argument');
  }
  let a = arrays.get(name);
  if (a === undefined) {
    const v = fn();
    if (!Array.isArray(v)) throw k.goError('only arrays can be made into SharedArray');
    const items = Array.from(v, (e) => {
      const s = JSON.stringify(e);
      return s === undefined ? undefined : deepFreeze(JSON.parse(s));
    });
    a = new Proxy(Object.freeze(items), { set: immutable, defineProperty: immutable, deleteProperty: immutable });
    arrays.set(name, a);
  }
  return a;
}
export default { SharedArray };
"#;

const ENCODING_JS: &str = r#"
const k = globalThis.__k6;
const bytes = k.toBytes;
export function b64encode(input, encoding) { return k.b64encode(bytes(input), String(encoding ?? 'std')); }
export function b64decode(input, encoding, format) {
  const out = k.b64decode(String(input), String(encoding ?? 'std'), format === 's');
  if (typeof out === 'number') throw k.goError(`illegal base64 data at input byte ${out}`);
  return out;
}
export default { b64encode, b64decode };
"#;

const TIMERS_JS: &str = r#"
// The globals of the same names (see TIMERS_GLOBAL_JS).
export const setTimeout = globalThis.setTimeout, clearTimeout = globalThis.clearTimeout,
  setInterval = globalThis.setInterval, clearInterval = globalThis.clearInterval;
"#;

/// k6's timers (globals, and the `k6/timers` module): each VU's own, kept
/// here by VU; `call_exec` (sched.rs) runs a VU's due callbacks through
/// `__k6.timerStep` until the iteration's promise has settled and no timer
/// of the VU is left, as k6's event loop does.
const TIMERS_GLOBAL_JS: &str = r#"(k) => {
  // Each VU's timers by id (ids count from 1 in each VU, as k6's): a VU's
  // turn looks only at its own. By VU in arrays, not Maps: QuickJS's Map
  // finds a number key in a chain as long as the map (~2.4 µs at 1,000
  // keys), an array's index in ~0.1 µs.
  const byVu = [];
  const seqs = [];
  const mine = (vu) => byVu[vu] ?? (byVu[vu] = new Map());
  const add = (fn, ms, args, every) => {
    if (typeof fn !== 'function') {
      throw new TypeError(`could not convert function call parameter 0: could not convert ${String(fn)} to sobek.Callable`);
    }
    ms = Number(ms);
    if (!(ms > 0)) ms = 0;
    // An interval of 0 would fire without end: at least 1 ms, as in Node.
    if (every && ms < 1) ms = 1;
    const vu = k.vuIndex();
    const id = (seqs[vu] ?? 0) + 1;
    seqs[vu] = id;
    mine(vu).set(id, { id, at: k.clock() + ms, fn, args, every: every ? ms : -1 });
    k.timersLive(1);
    return id;
  };
  const clear = (id) => {
    const m = byVu[k.vuIndex()];
    if (m !== undefined && m.delete(Number(id))) k.timersLive(-1);
  };
  globalThis.setTimeout = (fn, ms, ...args) => add(fn, ms, args, false);
  globalThis.setInterval = (fn, ms, ...args) => add(fn, ms, args, true);
  globalThis.clearTimeout = clear;
  globalThis.clearInterval = clear;
  // http.asyncRequest: queued by VU, and sent together when the VU's
  // event loop next turns (after the code that made them has returned or
  // awaits); each promise settles with its response (or the request's
  // exception, with `throw`).
  const queued = [];
  k.asyncRequest = (method, url, body, params) => new Promise((resolve, reject) => {
    const vu = k.vuIndex();
    let q = queued[vu];
    if (q === undefined) queued[vu] = q = [];
    q.push([String(method).toUpperCase(), url, body === undefined ? null : body, params, resolve, reject]);
    k.timersLive(1);
  });
  const send = (q) => {
    if (q.length === 1) {
      const [m, u, b, p, resolve, reject] = q[0];
      let r;
      try { r = k.request(m, u, b, p); } catch (e) { reject(e); return; }
      resolve(r);
      return;
    }
    let rs;
    try { rs = k.batch(q.map((x) => x.slice(0, 4))); } catch (e) { for (const x of q) x[5](e); return; }
    rs.forEach((r, i) => q[i][4](r));
  };
  // Sends the VU's queued requests, or waits for its next timer and runs
  // its callback; false when the VU has neither.
  k.timerStep = () => {
    const vu = k.vuIndex();
    const q = queued[vu];
    if (q !== undefined) {
      queued[vu] = undefined;
      k.timersLive(-q.length);
      send(q);
      return true;
    }
    const all = byVu[vu];
    let id = 0, t;
    if (all !== undefined) for (const [i, x] of all) if (t === undefined || x.at < t.at) { id = i; t = x; }
    // k6/websockets: the VU's sockets are waited on with its next timer.
    const ws = k.wsVu;
    if (ws !== undefined && ws.live(vu)) {
      if (ws.step(vu, t === undefined ? -1 : Math.max(0, t.at - k.clock()))) return true;
      if (t === undefined) return true;
    } else {
      if (t === undefined) return false;
      const wait = t.at - k.clock();
      if (wait > 0) k.sleep(wait / 1000);
    }
    if (all.get(id) !== t) return true;
    if (t.every >= 0) t.at = Math.max(t.at + t.every, k.clock());
    else { all.delete(id); k.timersLive(-1); }
    t.fn(...t.args);
    return true;
  };
  // The VU's timers left when its iteration ends (an exception, a stop):
  // k6's warning for each, in the order they were due.
  k.timersDrop = () => {
    const vu = k.vuIndex();
    if (k.wsVu !== undefined) k.wsVu.drop(vu);
    const all = byVu[vu];
    const left = all === undefined ? [] : [...all.values()];
    if (all !== undefined) { all.clear(); k.timersLive(-left.length); }
    left.sort((a, b) => a.at - b.at || a.id - b.id);
    for (const x of left) k.warn(`${x.every >= 0 ? 'setInterval' : 'setTimeout'} ${x.id} was stopped because the VU iteration was interrupted`);
    const q = queued[vu];
    if (q !== undefined) { queued[vu] = undefined; k.timersLive(-q.length); }
  };
}"#;

/// `__ITER` is on the global object only while the scenarios run, so the
/// init code, `setup()` and `teardown()` see no such variable: reading it
/// is a ReferenceError and `typeof __ITER` is `"undefined"`, as in k6.
/// `iterGlobal(on)` puts it there (the scheduler, when the scenarios start)
/// and takes it off (when they are over).
const ITER_GLOBAL_JS: &str = r#"(k) => {
  const d = Object.getOwnPropertyDescriptor(globalThis, '__ITER');
  delete globalThis.__ITER;
  k.iterGlobal = (on) => {
    if (on) Object.defineProperty(globalThis, '__ITER', d);
    else delete globalThis.__ITER;
  };
}"#;

thread_local! {
    /// Timers set and not yet fired or cleared, and `http.asyncRequest`s
    /// not yet sent, of all VUs: while 0, an iteration that returns no
    /// promise ends at once (no event loop).
    pub static TIMERS_LIVE: Cell<i64> = const { Cell::new(0) };
}

const K6_JS: &str = r#"
const k = globalThis.__k6;
// Native, called directly by the script (`check` and `group` in api.rs).
export const check = k.check;
export const group = k.group;
export const sleep = k.sleep;
export function fail(msg) { throw k.goError(msg === undefined ? '' : String(msg)); }
export function randomSeed(n) {}
export default { check, group, sleep, fail, randomSeed };
"#;

const HTTP_JS: &str = r#"
const k = globalThis.__k6;
let gjson;
// Response objects are made natively and filled in when read (see
// `response_object` in api.rs); this is their prototype.
const P = k.ResponseProto;
export function Response() { throw new TypeError('Response objects are made by the http functions'); }
Response.prototype = P;
const hidden = (name, value) => Object.defineProperty(P, name, { value, writable: true, configurable: true });
hidden('constructor', Response);
hidden('json', function json(selector) {
  const v = k.respJson(this);
  if (selector === undefined || selector === null) return v;
  return (gjson || (gjson = k.gjson()))(v, selector);
});
// The body parsed as k6/html's parseHTML does (the Selection's `url` is
// the response's), then `find(selector)` when one is given.
hidden('html', function html(selector) {
  const body = this.body;
  if (body === null || body === undefined) {
    throw k.goError("the body is null so we can't transform it to HTML - this likely was because of a request error getting the response");
  }
  const lib = k.htmlLibCache || (k.htmlLibCache = k.htmlLib());
  const s = lib.parse(typeof body === 'string' || body instanceof ArrayBuffer ? body : String(body), this.url);
  return selector === undefined ? s : s.find(String(selector));
});
const FIELDS = ['remote_ip', 'remote_port', 'url', 'status', 'status_text', 'proto', 'headers', 'cookies', 'body',
  'timings', 'tls_version', 'tls_cipher_suite', 'ocsp', 'error', 'error_code', 'request'];
hidden('toJSON', function toJSON() {
  const o = {};
  for (const n of FIELDS) o[n] = this[n];
  return o;
});
export class CookieJar {
  constructor() { this._id = k.jarNew(); }
  cookiesForURL(url) { return k.jarCookies(this._id, String(url)); }
  set(url, name, value, opts) { k.jarSet(this._id, String(url), String(name), String(value), opts); }
  clear(url) { k.jarClear(this._id, String(url), null); }
  delete(url, name) { k.jarClear(this._id, String(url), String(name)); }
}
let vuJar;
export function cookieJar() {
  if (!vuJar) { vuJar = Object.create(CookieJar.prototype); vuJar._id = 0; }
  return vuJar;
}
export function expectedStatuses(...args) {
  if (args.length === 0) throw k.goError('no arguments');
  const list = [];
  args.forEach((a, i) => {
    if (Number.isInteger(a)) {
      list.push(a, a);
      return;
    }
    if (a === null || a === undefined || a.min === undefined || a.max === undefined) {
      throw k.goError(`argument number ${i + 1} to expectedStatuses was neither an integer nor an object like {min:100, max:329}`);
    }
    if (!Number.isInteger(a.min) || !Number.isInteger(a.max)) {
      throw k.goError(`both min and max need to be integers for argument number ${i + 1}`);
    }
    list.push(a.min, a.max);
  });
  return Object.freeze({ __k6statuses: Object.freeze(list) });
}
export function setResponseCallback(cb) { k.setResponseCallback(cb); }
// A file for a multipart body (an object body with one among its values).
export function file(data, filename, contentType) {
  if (typeof data !== 'string' && !(data instanceof ArrayBuffer)) {
    throw k.goError(`invalid type ${k.goType(data)}, expected string or ArrayBuffer`);
  }
  const f = {
    data,
    filename: filename === undefined ? String(Date.now() * 1000000) : String(filename),
    content_type: contentType === undefined ? 'application/octet-stream' : String(contentType),
  };
  Object.defineProperty(f, '__k6file', { value: true });
  return f;
}
export function request(method, url, body, params) { return k.request(String(method).toUpperCase(), url, body, params); }
// The methods are natives (api.rs), exported as they are.
export const get = k.get, head = k.head, post = k.post, put = k.put, patch = k.patch,
  del = k.del, options = k.options;
export function batch(reqs) {
  const list = Array.isArray(reqs) ? reqs.map((r, i) => [i, r]) : Object.keys(reqs).map((key) => [key, reqs[key]]);
  const norm = list.map(([key, r]) => {
    if (typeof r === 'string') return ['GET', r, null, undefined];
    if (Array.isArray(r)) return [String(r[0]).toUpperCase(), r[1], r[2] === undefined ? null : r[2], r[3]];
    return [String(r.method || 'GET').toUpperCase(), r.url, r.body === undefined ? null : r.body, r.params];
  });
  const res = k.batch(norm);
  if (Array.isArray(reqs)) return res;
  const out = {};
  list.forEach(([key], i) => { out[key] = res[i]; });
  return out;
}
// http.url`…${id}…`: the URL, named by its template (`…${}…`) so that
// requests to URLs with ids in them share their series, as in k6.
class URLTemplate {
  constructor(url, name) {
    Object.defineProperty(this, '__k6url', { value: url });
    Object.defineProperty(this, '__k6name', { value: name });
  }
}
export function url(strings, ...values) {
  let s = strings[0];
  let n = strings[0];
  for (let i = 0; i < values.length; i++) {
    s += String(values[i]) + strings[i + 1];
    n += '${}' + strings[i + 1];
  }
  return new URLTemplate(s, n);
}
// Sent when the VU's event loop next turns (see TIMERS_GLOBAL_JS).
export function asyncRequest(method, url, body, params) { return k.asyncRequest(method, url, body, params); }
export const TLS_1_0 = 'tls1.0', TLS_1_1 = 'tls1.1', TLS_1_2 = 'tls1.2', TLS_1_3 = 'tls1.3';
export const OCSP_STATUS_GOOD = 'good', OCSP_STATUS_REVOKED = 'revoked',
  OCSP_STATUS_SERVER_FAILED = 'server_failed', OCSP_STATUS_UNKNOWN = 'unknown';
export const OCSP_REASON_UNSPECIFIED = 'unspecified', OCSP_REASON_KEY_COMPROMISE = 'key_compromise',
  OCSP_REASON_CA_COMPROMISE = 'ca_compromise', OCSP_REASON_AFFILIATION_CHANGED = 'affiliation_changed',
  OCSP_REASON_SUPERSEDED = 'superseded', OCSP_REASON_CESSATION_OF_OPERATION = 'cessation_of_operation',
  OCSP_REASON_CERTIFICATE_HOLD = 'certificate_hold', OCSP_REASON_REMOVE_FROM_CRL = 'remove_from_crl',
  OCSP_REASON_PRIVILEGE_WITHDRAWN = 'privilege_withdrawn', OCSP_REASON_AA_COMPROMISE = 'aa_compromise';
export default {
  request, get, head, post, put, patch, del, options, batch, url, Response, CookieJar, cookieJar,
  expectedStatuses, setResponseCallback, file, asyncRequest,
  TLS_1_0, TLS_1_1, TLS_1_2, TLS_1_3,
  OCSP_STATUS_GOOD, OCSP_STATUS_REVOKED, OCSP_STATUS_SERVER_FAILED, OCSP_STATUS_UNKNOWN,
  OCSP_REASON_UNSPECIFIED, OCSP_REASON_KEY_COMPROMISE, OCSP_REASON_CA_COMPROMISE,
  OCSP_REASON_AFFILIATION_CHANGED, OCSP_REASON_SUPERSEDED, OCSP_REASON_CESSATION_OF_OPERATION,
  OCSP_REASON_CERTIFICATE_HOLD, OCSP_REASON_REMOVE_FROM_CRL, OCSP_REASON_PRIVILEGE_WITHDRAWN,
  OCSP_REASON_AA_COMPROMISE,
};
"#;

/// `k6/html`'s Selection and Element, over the native `HtmlDoc` (html.rs):
/// compiled once, the first time a VU parses (`__k6.htmlLib()`, kept on
/// `__k6`), for the module and for `res.html()`.
const HTML_LIB_JS: &str = r#"
(() => {
const k = globalThis.__k6;
const D = Symbol('doc'), N = Symbol('nodes'), I = Symbol('node'), U = Symbol('url'), P = Symbol('prev');
const wrap = (d, n, url) => { const s = Object.create(Selection.prototype); s[D] = d; s[N] = n; s.url = url; return s; };
// A Selection made from another keeps it, for end() (goquery's stack).
const same = (s, n) => { const o = wrap(s[D], n, s.url); o[P] = s; return o; };
const element = (d, i, url) => {
  if (i === undefined) return undefined;
  const e = Object.create(TAG_PROTOS[d.name(i)] || Element.prototype);
  e[D] = d; e[I] = i; e[U] = url;
  return e;
};
const nodesOf = (s, v) => {
  if (v instanceof Selection) return v[D] === s[D] ? v[N] : [];
  if (v instanceof Element) return v[D] === s[D] ? [v[I]] : [];
  throw k.goError(`invalid argument, cannot use a '${k.goType(v)}' as a selector`);
};
const opt = (v) => (v === undefined ? undefined : String(v));
// nextUntil and the like: each node's siblings (or ancestors) up to, not
// including, one that matches `args[0]` (a selector or a Selection; none:
// all of them), then kept when they match `args[1]` if given.
function until(s, how, args) {
  const d = s[D], v = args[0];
  let stop;
  if (v === undefined || v === null) stop = () => false;
  else if (typeof v === 'string') stop = (n) => d.filter([n], v, false).length > 0;
  else if (v instanceof Selection) { const set = new Set(nodesOf(s, v)); stop = (n) => set.has(n); }
  else throw k.goError(`invalid argument, cannot use a '${k.goType(v)}' as a selector`);
  const out = [], seen = new Set();
  for (const n of s[N]) {
    for (const x of d.walk([n], how, undefined)) {
      if (stop(x)) break;
      if (!seen.has(x)) { seen.add(x); out.push(x); }
    }
  }
  return same(s, args.length > 1 ? d.filter(out, String(args[1]), false) : out);
}
const INITIALISMS = new Set(['ACL', 'API', 'ASCII', 'CPU', 'CSS', 'DNS', 'EOF', 'ETA', 'GPU', 'GUID', 'HTML', 'HTTP',
  'HTTPS', 'ID', 'IP', 'JSON', 'LHS', 'OS', 'QPS', 'RAM', 'RHS', 'RPC', 'SLA', 'SMTP', 'SQL', 'SSH', 'TCP', 'TLS', 'TTL',
  'UDP', 'UI', 'UID', 'UUID', 'URI', 'URL', 'UTF8', 'VM', 'XML', 'XMPP', 'XSRF', 'XSS', 'OAuth']);
// k6's data-* names to properties and back (its snaker rules).
function toProperty(s) {
  const at = s.indexOf('-');
  if (at < 0) return s;
  return s.slice(0, at) + s.slice(at + 1).replace(/-/g, '_').split('_').map((w) => {
    if (w === 'oauth') return 'OAuth';
    if (INITIALISMS.has(w.toUpperCase())) return w.toUpperCase();
    return w ? w[0].toUpperCase() + w.slice(1) : w;
  }).join('');
}
function initialismAt(s) {
  let found = '';
  for (let i = 1; i <= 5 && i <= s.length; i++) if (INITIALISMS.has(s.slice(0, i))) found = s.slice(0, i);
  return found;
}
function toAttr(s) {
  const words = [];
  let last = 0;
  for (let i = 1; i < s.length; i++) {
    if (s[i] >= 'A' && s[i] <= 'Z') {
      const ini = initialismAt(s.slice(last));
      if (ini) { words.push(ini); i += ini.length - 1; last = i; continue; }
      words.push(s.slice(last, i));
      last = i;
    }
  }
  if (s.slice(last)) words.push(s.slice(last));
  return words.map((w) => w.toLowerCase()).join('-');
}
function dataValue(v) {
  if (v === '' || v === 'null' || v === 'undefined') return undefined;
  if (v[0] === '{' || v[0] === '[') { try { return JSON.parse(v); } catch (e) { return v; } }
  if (v === 'true') return true;
  if (v === 'false') return false;
  if (/^-?(0|[1-9]\d*)(\.\d*[1-9])?$/.test(v) && v.replace(/[-.]/g, '').length <= 15) return Number(v);
  return v;
}
const qesc = (s) => encodeURIComponent(s).replace(/[!'()*]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase()).replace(/%20/g, '+');
const SUBMITTABLE = 'input,select,textarea,keygen';
const SKIPPED = ['submit', 'button', 'reset', 'image', 'file'];
class Selection {
  find(v) { const d = this[D]; return same(this, typeof v === 'string' ? d.find(this[N], v) : d.within(this[N], nodesOf(this, v))); }
  closest(v) { const d = this[D]; return same(this, typeof v === 'string' ? d.closest(this[N], v, []) : d.closest(this[N], undefined, nodesOf(this, v))); }
  has(v) { const d = this[D]; return same(this, typeof v === 'string' ? d.has(this[N], v, []) : d.has(this[N], undefined, nodesOf(this, v))); }
  add(v) {
    const more = typeof v === 'string' ? this[D].find([this[D].root()], v) : nodesOf(this, v);
    return same(this, [...new Set([...this[N], ...more])]);
  }
  not(v) {
    if (typeof v === 'function') return same(this, this[N].filter((n, i) => !v(i, same(this, [n]))));
    if (typeof v === 'string') return same(this, this[D].filter(this[N], v, true));
    const out = new Set(nodesOf(this, v));
    return same(this, this[N].filter((n) => !out.has(n)));
  }
  filter(v) {
    if (typeof v === 'string') return same(this, this[D].filter(this[N], v, false));
    if (v instanceof Selection) { const in_ = new Set(nodesOf(this, v)); return same(this, this[N].filter((n) => in_.has(n))); }
    if (typeof v !== 'function') throw k.goError('the argument to filter() must be a function, a selector or a selection');
    return same(this, this[N].filter((n, i) => v(i, same(this, [n]))));
  }
  is(v) {
    if (typeof v === 'string') return this[D].filter(this[N], v, false).length > 0;
    if (v instanceof Selection) { const in_ = new Set(nodesOf(this, v)); return this[N].some((n) => in_.has(n)); }
    if (typeof v !== 'function') throw k.goError('the argument to is() must be a function, a selector or a selection');
    return this[N].some((n, i) => v(i, same(this, [n])));
  }
  children(f) { return same(this, this[D].walk(this[N], 'children', opt(f))); }
  contents() { return same(this, this[D].walk(this[N], 'contents', undefined)); }
  parent(f) { return same(this, this[D].walk(this[N], 'parent', opt(f))); }
  parents(f) { return same(this, this[D].walk(this[N], 'parents', opt(f))); }
  next(f) { return same(this, this[D].walk(this[N], 'next', opt(f))); }
  nextAll(f) { return same(this, this[D].walk(this[N], 'nextAll', opt(f))); }
  prev(f) { return same(this, this[D].walk(this[N], 'prev', opt(f))); }
  prevAll(f) { return same(this, this[D].walk(this[N], 'prevAll', opt(f))); }
  siblings(f) { return same(this, this[D].walk(this[N], 'siblings', opt(f))); }
  nextUntil(...a) { return until(this, 'nextAll', a); }
  prevUntil(...a) { return until(this, 'prevAll', a); }
  parentsUntil(...a) { return until(this, 'parents', a); }
  size() { return this[N].length; }
  end() { return this[P] || same(this, []); }
  index(v) {
    const n = this[N];
    if (v === undefined) return n.length ? this[D].walk([n[0]], 'prevAll', undefined).length : -1;
    if (typeof v === 'string') return n.length ? this[D].find([this[D].root()], v).indexOf(n[0]) : -1;
    if (v instanceof Selection) return v[N].length ? n.indexOf(v[N][0]) : -1;
    if (v instanceof Element) return n.indexOf(v[I]);
    return -1;
  }
  eq(i) {
    const n = this[N];
    i = Math.trunc(Number(i)) || 0;
    if (i < 0) i += n.length;
    return same(this, i >= 0 && i < n.length ? [n[i]] : []);
  }
  first() { return this.eq(0); }
  last() { return this.eq(-1); }
  slice(a, b) {
    const n = this[N];
    return same(this, n.slice(Math.trunc(Number(a)) || 0, b !== undefined && b < n.length ? Math.trunc(Number(b)) : n.length));
  }
  get(i) {
    const n = this[N];
    if (i === undefined) return n.map((x) => element(this[D], x, this.url));
    i = Math.trunc(Number(i)) || 0;
    if (i < n.length && i > -n.length) return element(this[D], n[i < 0 ? i + n.length : i], this.url);
    return undefined;
  }
  toArray() { return this[N].map((x) => same(this, [x])); }
  each(fn) {
    if (typeof fn !== 'function') throw k.goError('the argument to each() must be a function');
    this[N].forEach((x, i) => {
      try { fn(i, element(this[D], x, this.url)); } catch (e) { throw k.goError(`the function passed to each() failed: ${e}`); }
    });
    return this;
  }
  map(fn) {
    if (typeof fn !== 'function') throw k.goError('the argument to map() must be a function');
    const out = [];
    // As k6: a call that throws gives no value, and no error.
    this[N].forEach((x, i) => { try { out.push(fn(i, same(this, [x]))); } catch (e) { /* as k6 */ } });
    return out;
  }
  text() { return this[D].text(this[N]); }
  html() { return this[N].length ? this[D].html(this[N][0]) : ''; }
  attr(name, ...def) {
    const v = this[N].length ? this[D].attr(this[N][0], String(name)) : undefined;
    if (v !== undefined) return v;
    return def.length ? def[0] : undefined;
  }
  val() {
    if (!this[N].length) return undefined;
    const d = this[D], n = this[N][0];
    const attr = (name) => d.attr(n, name);
    const valueOrHTML = (s) => { const v = s.attr('value'); return v !== undefined ? v : s.html(); };
    switch (d.name(n)) {
      case 'input': {
        const v = attr('value');
        if (v !== undefined) return v;
        const t = attr('type');
        return t === 'radio' || t === 'checkbox' ? 'on' : '';
      }
      case 'button': { const v = attr('value'); return v === undefined ? '' : v; }
      case 'textarea': return this.html();
      case 'option': return valueOrHTML(this);
      case 'select': {
        const selected = this.first().find('option[selected]');
        if (attr('multiple') !== undefined) return selected.map((i, o) => valueOrHTML(o));
        return valueOrHTML(selected);
      }
      default: return undefined;
    }
  }
  data(key) {
    if (!this[N].length) return undefined;
    const pairs = this[D].attrs(this[N][0]);
    if (!pairs.length) return undefined;
    if (key !== undefined) {
      const v = this.attr('data-' + toAttr(String(key)));
      return v === undefined ? undefined : dataValue(v);
    }
    const out = {};
    for (let i = 0; i < pairs.length; i += 2) {
      if (pairs[i].startsWith('data-') && pairs[i].length > 5) {
        const v = dataValue(pairs[i + 1]);
        if (v !== undefined) out[toProperty(pairs[i].slice(5))] = v;
      }
    }
    return out;
  }
  serializeArray() {
    const els = this.is('form') ? this.find(SUBMITTABLE) : this.filter(SUBMITTABLE);
    const out = [];
    els.toArray().forEach((s) => {
      const name = s.attr('name', ''), type = s.attr('type', '');
      if (name === '' || s.attr('disabled', '') === 'disabled' || SKIPPED.includes(type)) return;
      if ((type === 'checkbox' || type === 'radio') && s.attr('checked', '') !== 'checked') return;
      out.push({ name, value: s.val() });
    });
    return out;
  }
  serializeObject() {
    const out = {};
    for (const { name, value } of this.serializeArray()) {
      Object.defineProperty(out, name, { value, writable: true, enumerable: true, configurable: true });
    }
    return out;
  }
  serialize() {
    const values = new Map();
    for (const { name, value } of this.serializeArray()) {
      if (typeof value === 'string') values.set(name, [value]);
      else if (Array.isArray(value)) values.set(name, value);
    }
    const parts = [];
    for (const name of [...values.keys()].sort()) {
      for (const v of values.get(name)) parts.push(qesc(name) + '=' + qesc(v));
    }
    return parts.join('&');
  }
}
const sel = (e) => wrap(e[D], [e[I]], e[U]);
const NAMESPACES = { svg: 'http://www.w3.org/2000/svg', math: 'http://www.w3.org/1998/Math/MathML', '': 'http://www.w3.org/1999/xhtml' };
// k6's Attribute: `owner_element`, `name`, `value`, and methods.
class Attribute {
  prefix() { return ''; }
  namespaceURI() { return NAMESPACES['']; }
  localName() { return this.name; }
}
const attribute = (owner, name, value) => {
  const a = Object.create(Attribute.prototype);
  a.owner_element = owner; a.name = name; a.value = value;
  return a;
};
const elements = (e, n) => n.map((x) => element(e[D], x, e[U]));
class Element {
  selection() { return sel(this); }
  nodeName() { return this[D].name(this[I]); }
  nodeType() { const t = this[D].nodeType(this[I]); return t === 0 ? undefined : t; }
  // As k6: a text node's text, and "" for a comment (goquery's text of it).
  nodeValue() {
    const t = this[D].nodeType(this[I]);
    return t === 3 ? this[D].data(this[I]) : t === 8 ? '' : undefined;
  }
  textContent() { return this[D].text([this[I]]); }
  innerHTML() { return this[D].html(this[I]); }
  getAttribute(name) { return this[D].attr(this[I], String(name)); }
  hasAttribute(name) { return this[D].attr(this[I], String(name)) !== undefined; }
  hasAttributes() { return this[D].attrs(this[I]).length > 0; }
  attributes() {
    const pairs = this[D].attrs(this[I]);
    const out = {};
    for (let i = 0; i < pairs.length; i += 2) out[pairs[i]] = attribute(this, pairs[i], pairs[i + 1]);
    return out;
  }
  getAttributeNode(name) {
    const v = this[D].attr(this[I], String(name));
    return v === undefined ? undefined : attribute(this, String(name), v);
  }
  isEqualNode(o) { return o instanceof Element && o.innerHTML() === this.innerHTML(); }
  lang() { return this[D].attr(this[I], 'lang'); }
  namespaceURI() { return NAMESPACES[this[D].ns(this[I])] || NAMESPACES['']; }
  isDefaultNamespace() { return this[D].ns(this[I]) === ''; }
  id() { const v = this.getAttribute('id'); return v === undefined ? '' : v; }
  className() { return this.getAttribute('class'); }
  classList() { const v = this.getAttribute('class'); return v === undefined ? [] : v.split(/\s+/).filter((x) => x); }
  toString() { return this[D].nodeType(this[I]) === 1 ? '[object html.Node]' : `[object ${this.nodeName()}]`; }
  hasChildNodes() { return this[D].walk([this[I]], 'contents', undefined).length > 0; }
  childNodes() { return elements(this, this[D].walk([this[I]], 'contents', undefined)); }
  children() { return elements(this, this[D].walk([this[I]], 'children', undefined)); }
  childElementCount() { return this[D].walk([this[I]], 'children', undefined).length; }
  firstChild() { return element(this[D], this[D].walk([this[I]], 'contents', undefined)[0], this[U]); }
  lastChild() { const c = this[D].walk([this[I]], 'contents', undefined); return element(this[D], c[c.length - 1], this[U]); }
  firstElementChild() { return element(this[D], this[D].walk([this[I]], 'children', undefined)[0], this[U]); }
  lastElementChild() { const c = this[D].walk([this[I]], 'children', undefined); return element(this[D], c[c.length - 1], this[U]); }
  nextElementSibling() { return element(this[D], this[D].walk([this[I]], 'next', undefined)[0], this[U]); }
  previousElementSibling() { return element(this[D], this[D].walk([this[I]], 'prev', undefined)[0], this[U]); }
  parentNode() { return element(this[D], this[D].walk([this[I]], 'parentNode', undefined)[0], this[U]); }
  nextSibling() { return element(this[D], this[D].walk([this[I]], 'nextSibling', undefined)[0], this[U]); }
  previousSibling() { return element(this[D], this[D].walk([this[I]], 'prevSibling', undefined)[0], this[U]); }
  ownerDocument() { return element(this[D], this[D].root(), this[U]); }
  parentElement() { return element(this[D], this[D].walk([this[I]], 'parent', undefined)[0], this[U]); }
  querySelector(s) { return element(this[D], this[D].find([this[I]], String(s))[0], this[U]); }
  querySelectorAll(s) { return elements(this, this[D].find([this[I]], String(s))); }
  getElementsByClassName(name) { return this.querySelectorAll('.' + name); }
  getElementsByTagName(name) { return this.querySelectorAll(String(name)); }
  matches(s) { return this[D].filter([this[I]], String(s), false).length > 0; }
  isSameNode(o) { return o instanceof Element && o[D] === this[D] && o[I] === this[I]; }
  contains(o) { return o instanceof Element && o[D] === this[D] && o[I] !== this[I] && this[D].within([this[I]], [o[I]]).length > 0; }
}
// k6's per-tag Element methods (the common tags): [kind, attribute,
// default or options]. Kinds: s a string ("" when absent), b present or
// not, i an integer (the default when absent or not one), u a URL (made
// absolute by the response's URL, if any), e one of the options (else
// the first), c a constant.
const REFERRER = ['', 'no-referrer', 'no-referrer-when-downgrade', 'origin', 'origin-when-cross-origin', 'unsafe-url'];
const AUTOCOMPLETE = ['on', 'off'];
const ENCTYPE = ['application/x-www-form-urlencoded', 'multipart/form-data', 'text/plain'];
const INPUT_TYPES = ['text', 'button', 'checkbox', 'color', 'date', 'datetime-local', 'email', 'file', 'hidden', 'image',
  'month', 'number', 'password', 'radio', 'range', 'reset', 'search', 'submit', 'tel', 'time', 'url', 'week'];
const HREF = {
  download: ['s', 'download'], referrerPolicy: ['e', 'referrerpolicy', REFERRER], rel: ['s', 'rel'], href: ['u', 'href'],
  target: ['s', 'target'], type: ['s', 'type'], accessKey: ['s', 'accesskey'], hrefLang: ['s', 'hreflang'],
  toString: ['u', 'href'], text: ['t'],
};
const TAGS = {
  a: HREF,
  area: HREF,
  button: {
    accessKey: ['s', 'accesskey'], autofocus: ['b', 'autofocus'], disabled: ['b', 'disabled'], tabIndex: ['i', 'tabindex', 0],
    type: ['e', 'type', ['submit', 'button', 'menu', 'reset']], name: ['s', 'name'], value: ['v'],
  },
  form: {
    action: ['u', 'action'], name: ['s', 'name'], target: ['s', 'target'], enctype: ['e', 'enctype', ENCTYPE],
    encoding: ['e', 'enctype', ENCTYPE], acceptCharset: ['s', 'accept-charset'], autocomplete: ['e', 'autocomplete', AUTOCOMPLETE],
    noValidate: ['b', 'novalidate'], method: ['e', 'method', ['get', 'post']],
  },
  img: {
    currentSrc: ['u', 'src'], sizes: ['s', 'sizes'], srcset: ['s', 'srcset'], alt: ['s', 'alt'], height: ['i', 'height', 0],
    width: ['i', 'width', 0], isMap: ['b', 'ismap'], name: ['s', 'name'], src: ['u', 'src'], useMap: ['s', 'usemap'],
    referrerPolicy: ['e', 'referrerpolicy', REFERRER],
  },
  input: {
    name: ['s', 'name'], tabIndex: ['i', 'tabindex', 0], type: ['e', 'type', INPUT_TYPES], disabled: ['b', 'disabled'],
    autofocus: ['b', 'autofocus'], required: ['b', 'required'], value: ['s', 'value'], checked: ['b', 'checked'],
    defaultChecked: ['b', 'checked'], alt: ['s', 'alt'], src: ['u', 'src'], height: ['s', 'height'], width: ['s', 'width'],
    accept: ['s', 'accept'], autocomplete: ['e', 'autocomplete', AUTOCOMPLETE], maxLength: ['i', 'maxlength', -1],
    size: ['i', 'size', 0], pattern: ['s', 'pattern'], placeholder: ['s', 'placeholder'], readonly: ['b', 'readonly'],
    min: ['s', 'min'], max: ['s', 'max'], defaultValue: ['s', 'value'], dirName: ['s', 'dirname'],
    accessKey: ['s', 'accesskey'], multiple: ['b', 'multiple'],
  },
  link: {
    referrerPolicy: ['e', 'referrerpolicy', REFERRER], href: ['u', 'href'], hreflang: ['s', 'hreflang'], media: ['s', 'media'],
    rel: ['s', 'rel'], target: ['s', 'target'], type: ['s', 'type'],
  },
  meta: { content: ['s', 'content'], name: ['s', 'name'], httpEquiv: ['e', 'http-equiv', ['content-type', 'default-style', 'refresh']] },
  option: { defaultSelected: ['b', 'selected'], selected: ['b', 'selected'], text: ['t'], value: ['v'], label: ['l'] },
  script: {
    crossOrigin: ['s', 'crossorigin'], type: ['s', 'type'], src: ['u', 'src'], charset: ['s', 'charset'], async: ['b', 'async'],
    defer: ['b', 'defer'], noModule: ['b', 'nomodule'], text: ['t'],
  },
  select: {
    autofocus: ['b', 'autofocus'], disabled: ['b', 'disabled'], multiple: ['b', 'multiple'], name: ['s', 'name'],
    required: ['b', 'required'], tabIndex: ['i', 'tabindex', 0], type: ['m'], value: ['o'],
  },
  textarea: {
    type: ['c', '', 'textarea'], value: ['s', 'value'], defaultValue: ['s', 'value'], placeholder: ['s', 'placeholder'],
    rows: ['i', 'rows', 0], cols: ['i', 'cols', 0], maxLength: ['i', 'maxlength', 0], tabIndex: ['i', 'tabindex', 0],
    accessKey: ['s', 'accesskey'], readOnly: ['b', 'readonly'], required: ['b', 'required'],
    autocomplete: ['e', 'autocomplete', AUTOCOMPLETE], autocapitalize: ['e', 'autocapitalize', ['sentences', 'none', 'off', 'characters', 'words']],
    wrap: ['e', 'wrap', ['soft', 'hard', 'off']],
  },
};
function tagMethod([kind, attr, arg]) {
  return function () {
    const v = this[D].attr(this[I], attr || '');
    switch (kind) {
      case 's': return v === undefined ? '' : v;
      case 'b': return v !== undefined;
      case 'i': return v !== undefined && /^[+-]?\d+$/.test(v) ? parseInt(v, 10) : arg;
      case 'e': return v !== undefined && arg.includes(v) ? v : arg[0];
      case 'c': return arg;
      case 'u': {
        if (!this[U]) return v === undefined ? '' : v;
        if (v === undefined) return '';
        const r = k.urlResolve(this[U], v);
        return r === undefined ? '' : r;
      }
      case 't': return this.textContent();
      case 'v': { const x = this[D].attr(this[I], 'value'); return x !== undefined ? x : this.innerHTML(); }
      case 'l': { const x = this[D].attr(this[I], 'label'); return x !== undefined ? x : this.textContent(); }
      case 'm': return this[D].attr(this[I], 'multiple') !== undefined ? 'select-multiple' : 'select';
      default: { const o = this.selection().find('option[selected]'); return o.size() ? o.first().val() : ''; }
    }
  };
}
const TAG_PROTOS = Object.create(null);
for (const tag of Object.keys(TAGS)) {
  const proto = Object.create(Element.prototype);
  for (const name of Object.keys(TAGS[tag])) {
    Object.defineProperty(proto, name, { value: tagMethod(TAGS[tag][name]), writable: true, configurable: true });
  }
  TAG_PROTOS[tag] = proto;
}
const parse = (src, url) => { const d = k.htmlParse(src); return wrap(d, [d.root()], url); };
return {
  parseHTML(src) { return parse(src === undefined || src === null ? '' : String(src), ''); },
  parse,
  Selection,
  Element,
};
})()
"#;

const HTML_JS: &str = r#"
const k = globalThis.__k6;
const lib = k.htmlLibCache || (k.htmlLibCache = k.htmlLib());
export const parseHTML = lib.parseHTML;
export default { parseHTML };
"#;

/// `res.json(selector)`: the common subset of gjson's paths, compiled the
/// first time a script selects (`__k6.gjson()`, kept by the http module):
/// most scripts never do.
const GJSON_JS: &str = r#"
(() => {
// res.json(selector): the common subset of gjson's paths, as k6 answers
// them (docs/k6.md): `a.b`, `a.0.c`, `a.#`, `a.#.b`, `a.#(b=="x").c`,
// `a.#(b>1)#`, `*`/`?` in keys, `\.` for a dot in a key.
function gjsonParts(path) {
  const parts = [];
  let cur = '';
  let depth = 0;
  for (let i = 0; i < path.length; i++) {
    const c = path[i];
    if (c === '\\' && i + 1 < path.length) { cur += path[++i]; continue; }
    if (c === '(') depth++;
    if (c === ')') depth--;
    if (c === '.' && depth === 0) { parts.push(cur); cur = ''; continue; }
    cur += c;
  }
  parts.push(cur);
  return parts;
}
function gjsonWild(pat, s) {
  const re = pat.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
  return new RegExp('^' + re + '$').test(s);
}
function gjsonQuery(el, q) {
  const m = /^(.*?)(==|!=|<=|>=|!%|<|>|%)(.*)$/.exec(q);
  if (!m) return gjsonGet(el, gjsonParts(q.trim())) !== undefined;
  const left = gjsonGet(el, gjsonParts(m[1].trim()));
  let right = m[3].trim();
  try { right = JSON.parse(right); } catch (e) { /* a bare word */ }
  switch (m[2]) {
    case '==': return left === right;
    case '!=': return left !== right;
    case '<': return left < right;
    case '<=': return left <= right;
    case '>': return left > right;
    case '>=': return left >= right;
    case '%': return typeof left === 'string' && gjsonWild(String(right), left);
    default: return typeof left === 'string' && !gjsonWild(String(right), left);
  }
}
function gjsonGet(v, parts) {
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i];
    if (v === null || typeof v !== 'object') return undefined;
    const rest = parts.slice(i + 1);
    if (p === '#') {
      if (!Array.isArray(v)) return undefined;
      if (rest.length === 0) return v.length;
      return v.map((e) => gjsonGet(e, rest)).filter((x) => x !== undefined);
    }
    const q = /^#\((.*)\)(#?)$/.exec(p);
    if (q) {
      if (!Array.isArray(v)) return undefined;
      if (q[2]) {
        const all = v.filter((e) => gjsonQuery(e, q[1]));
        return rest.length ? all.map((e) => gjsonGet(e, rest)).filter((x) => x !== undefined) : all;
      }
      v = v.find((e) => gjsonQuery(e, q[1]));
      if (v === undefined) return undefined;
      continue;
    }
    if (Array.isArray(v)) {
      if (!/^\d+$/.test(p) || +p >= v.length) return undefined;
      v = v[+p];
      continue;
    }
    if (/[*?]/.test(p)) {
      const k = Object.keys(v).find((key) => gjsonWild(p, key));
      if (k === undefined) return undefined;
      v = v[k];
      continue;
    }
    if (p === '' || !Object.prototype.hasOwnProperty.call(v, p)) return undefined;
    v = v[p];
  }
  return v;
}
return (v, selector) => gjsonGet(v, gjsonParts(String(selector)));
})()
"#;

const METRICS_JS: &str = r#"
const k = globalThis.__k6;
class Metric {
  constructor(name, kind, isTime) {
    this.name = name;
    this._id = k.metricNew(String(name), kind, !!isTime);
  }
}
// add(value, tags) is native (`metricAdd` in api.rs), a method like a class's own.
Object.defineProperty(Metric.prototype, 'add', { value: k.metricAdd, writable: true, configurable: true });
export class Counter extends Metric { constructor(name, isTime) { super(name, 'counter', isTime); } }
export class Gauge extends Metric { constructor(name, isTime) { super(name, 'gauge', isTime); } }
export class Rate extends Metric { constructor(name, isTime) { super(name, 'rate', isTime); } }
export class Trend extends Metric { constructor(name, isTime) { super(name, 'trend', isTime); } }
export default { Counter, Gauge, Rate, Trend };
"#;

const EXECUTION_JS: &str = r#"
const k = globalThis.__k6;
const exec = {
  get vu() {
    const v = k.execVu();
    // Writes tag the VU's later samples, as in k6.
    const tags = new Proxy(v.tags, {
      set(o, name, value) {
        if (value === null || value === undefined || typeof value === 'object' || typeof value === 'function') {
          throw new TypeError(`exec.vu.tags.${String(name)}: a tag's value must be a string, number or boolean`);
        }
        o[name] = String(value);
        k.vuTag(String(name), String(value));
        return true;
      },
      deleteProperty(o, name) {
        delete o[name];
        k.vuTag(String(name), null);
        return true;
      },
    });
    v.tags = tags;
    v.metrics.tags = tags;
    return v;
  },
  get scenario() { return k.execScenario(); },
  get instance() { return k.execInstance(); },
  get test() { return { abort: (m) => k.abort(m === undefined ? '' : String(m)), options: k.execOptions() }; },
};
export default exec;
export const vu = undefined;
"#;

/// k6/encoding's alphabets: `std` (the default, for any other name too, as
/// in k6), `rawstd`, `url`, `rawurl`; decoding accepts non-zero trailing
/// bits, as Go's decoder does.
fn b64_engine(encoding: &str) -> base64::engine::GeneralPurpose {
    use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
    let (alphabet, pad) = match encoding {
        "rawstd" => (&base64::alphabet::STANDARD, false),
        "url" => (&base64::alphabet::URL_SAFE, true),
        "rawurl" => (&base64::alphabet::URL_SAFE, false),
        _ => (&base64::alphabet::STANDARD, true),
    };
    let config = GeneralPurposeConfig::new()
        .with_encode_padding(pad)
        .with_decode_allow_trailing_bits(true)
        .with_decode_padding_mode(if pad {
            DecodePaddingMode::RequireCanonical
        } else {
            DecodePaddingMode::RequireNone
        });
    GeneralPurpose::new(alphabet, config)
}

/// Where Go's decoder stops on bad base64 (its error says `illegal base64
/// data at input byte N`): the bad byte; for padding where there should be
/// none, the first `=`; for a missing end, the start of the last quantum.
fn b64_error_at(e: &base64::DecodeError, input: &str) -> usize {
    use base64::DecodeError as E;
    match *e {
        E::InvalidByte(at, _) | E::InvalidLastSymbol(at, _) => at,
        E::InvalidLength(_) | E::InvalidPadding => {
            input.find('=').unwrap_or(input.len() - input.len() % 4)
        }
    }
}

/// A string's UTF-8 bytes or an `ArrayBuffer`'s (the modules turn typed
/// arrays into buffers first).
pub(crate) fn js_bytes(v: &Value<'_>) -> rquickjs::Result<Vec<u8>> {
    if let Some(s) = v.as_string() {
        return Ok(s.to_string()?.into_bytes());
    }
    let ab = rquickjs::ArrayBuffer::from_value(v.clone());
    // SAFETY: the buffer is not detached or resized while copied (no
    // JavaScript runs in between).
    Ok(ab
        .as_ref()
        .and_then(|a| unsafe { a.as_bytes() })
        .unwrap_or_default()
        .to_vec())
}

/// JavaScript's truth of a value (`!!v`).
fn truthy(v: &Value<'_>) -> bool {
    v.get::<rquickjs::convert::Coerced<bool>>()
        .is_ok_and(|b| b.0)
}

fn throw(ctx: &Ctx<'_>, msg: &str) -> rquickjs::Error {
    Exception::throw_message(ctx, msg)
}

/// One of the helpers [`install`] keeps on the hidden `__k6` object.
pub fn k6_helper<'js>(ctx: &Ctx<'js>, name: &str) -> rquickjs::Result<Function<'js>> {
    ctx.globals()
        .get::<_, Object>("__k6")
        .and_then(|k| k.get::<_, Function>(name))
}

/// Throws k6's `GoError` (see `goError` in [`install`]).
pub(crate) fn throw_go(ctx: &Ctx<'_>, msg: &str) -> rquickjs::Error {
    let made = k6_helper(ctx, "goError").and_then(|f| f.call::<_, Value>((msg,)));
    match made {
        Ok(e) => ctx.throw(e),
        Err(e) => e,
    }
}

/// `options.rps`: waits (the VU sleeps) until `n` more requests fit under
/// the limit, as k6's limiter (one request of burst) makes them wait.
fn rps_wait(ctx: &Ctx<'_>, sh: &Shared, n: usize) -> rquickjs::Result<()> {
    let Some(rps) = sh.http.request.rps else {
        return Ok(());
    };
    if n == 0 || !vu::in_vu() {
        return Ok(());
    }
    let every = Duration::from_secs_f64(1.0 / rps as f64);
    let now = tokio::time::Instant::now();
    let first = sh.rps_next.get().map_or(now, |t| t.max(now));
    let last = first + every * (n as u32 - 1);
    sh.rps_next.set(Some(last + every));
    if last > now {
        wait(ctx, Op::Sleep(last - now), "making HTTP requests")?;
    }
    Ok(())
}

/// Suspends the VU, or throws when the script is not in a VU (init code).
pub(crate) fn wait(ctx: &Ctx<'_>, op: Op, what: &str) -> rquickjs::Result<Resume> {
    if !vu::in_vu() {
        return Err(throw(
            ctx,
            &format!("{what} is not available in the init context (outside of functions)"),
        ));
    }
    match vu::suspend(op) {
        Resume::Abort | Resume::Quit => Err(throw(
            ctx,
            "the test is over: this VU's iteration was interrupted",
        )),
        r => Ok(r),
    }
}

/// k6 durations in params: a number of milliseconds or a duration string.
fn js_duration(v: &Value<'_>) -> Option<Duration> {
    if let Some(n) = v.as_number() {
        return (n >= 0.0).then(|| Duration::from_secs_f64(n / 1000.0));
    }
    v.as_string()
        .and_then(|s| s.to_string().ok())
        .and_then(|s| crate::options::parse_duration_str(&s))
}

fn js_string(v: &Value<'_>) -> Option<String> {
    if let Some(s) = v.as_string() {
        return s.to_string().ok();
    }
    if v.is_number() || v.is_bool() {
        let ctx = v.ctx();
        return ctx
            .json_stringify(v.clone())
            .ok()
            .flatten()
            .and_then(|s| s.to_string().ok());
    }
    None
}

/// `{a: "x", b: 1}` as string pairs.
pub fn js_pairs(v: Option<&Value<'_>>) -> Vec<(String, String)> {
    let mut out = Vec::new();
    if let Some(o) = v.and_then(|v| v.as_object()) {
        for (k, val) in o.props::<String, Value>().flatten() {
            if let Some(s) = js_string(&val) {
                out.push((k, s));
            }
        }
    }
    out
}

/// Which statuses are expected (k6's response callback): they decide the
/// `expected_response` tag and `http_req_failed`.
#[derive(Debug, Clone, Default)]
pub enum Expect {
    /// k6's default: 200 to 399.
    #[default]
    Default,
    /// `http.expectedStatuses(…)`: inclusive ranges (an exact status is a
    /// range of one).
    Statuses(Rc<[(u16, u16)]>),
    /// A `null` callback: no `expected_response` tag, no `http_req_failed`.
    Nothing,
}

impl Expect {
    /// Whether `status` (0: no response) is expected; `None` for no callback.
    pub fn of(&self, status: u16) -> Option<bool> {
        match self {
            Expect::Default => Some((200..400).contains(&status)),
            Expect::Statuses(r) => Some(r.iter().any(|&(lo, hi)| lo <= status && status <= hi)),
            Expect::Nothing => None,
        }
    }

    /// A callback value from a script: `null`, or what `expectedStatuses`
    /// made (`Err` for anything else).
    fn from_js(v: &Value<'_>) -> Result<Expect, ()> {
        if v.is_null() || v.is_undefined() {
            return Ok(Expect::Nothing);
        }
        let list = v
            .as_object()
            .and_then(|o| o.get::<_, Option<Vec<f64>>>("__k6statuses").ok().flatten())
            .ok_or(())?;
        let clamp = |x: f64| x.clamp(0.0, f64::from(u16::MAX)) as u16;
        let ranges: Vec<(u16, u16)> = list
            .chunks_exact(2)
            .filter(|p| p[0] <= p[1] && p[1] >= 0.0 && p[0] <= f64::from(u16::MAX))
            .map(|p| (clamp(p[0]), clamp(p[1])))
            .collect();
        Ok(Expect::Statuses(ranges.into()))
    }
}

/// The parts of a request the metrics need besides the response.
#[derive(Clone)]
pub struct ReqMeta {
    pub method: String,
    pub url: String,
    pub tags: Vec<(String, String)>,
    pub response_type: ResponseType,
    /// The cookie jar of the request (0: the VU's; `params.jar`: another).
    pub jar: usize,
    /// `params.cookies`: name, value, and whether it replaces the jar's
    /// cookie of that name.
    pub cookies: Vec<(String, String, bool)>,
    /// The redirect limit was chosen (`params.redirects` or
    /// `options.maxRedirects`): reaching it is not warned about.
    pub redirects_set: bool,
    /// `params.responseCallback`, else the VU's `http.setResponseCallback`.
    pub expect: Expect,
    /// A failure is the script's exception: `params.throw`, else
    /// `options.throw` (k6 takes both).
    pub throws: bool,
    /// A request that could not be made, its error and code as k6 tags
    /// them (see `BuildError::Request`'s `sampled`).
    pub unsent: Option<(String, u32)>,
}

/// `params.throw` when the params set it to a boolean.
fn params_throw(params: Option<&Value<'_>>) -> Option<bool> {
    // The params' own keys, as `build_request` reads them (and k6 does).
    params
        .and_then(|p| p.as_object())
        .and_then(|o| {
            o.props::<String, Value>()
                .flatten()
                .find(|(k, _)| k == "throw")
        })
        .and_then(|(_, v)| v.as_bool())
}

/// A VU's cookie jars: `list[0]` is the VU's own (k6 empties it at the
/// start of every iteration unless `options.noCookiesReset`), the others
/// were made by `new http.CookieJar()`.
pub struct Jars {
    list: Vec<cookie_store::CookieStore>,
    /// The iteration the VU's jar belongs to.
    iteration: u64,
    reset: bool,
}

/// Every VU's cookie jars, made when a VU first uses one.
pub struct AllJars {
    vus: Vec<Option<Jars>>,
    /// Not `options.noCookiesReset`.
    reset: bool,
}

impl AllJars {
    fn of(&mut self, vu: usize) -> &mut Jars {
        if self.vus.len() <= vu {
            self.vus.resize_with(vu + 1, || None);
        }
        let reset = self.reset;
        self.vus[vu].get_or_insert_with(|| Jars::new(reset))
    }
}

impl Jars {
    fn new(reset: bool) -> Jars {
        Jars {
            list: vec![cookie_store::CookieStore::default()],
            iteration: 0,
            reset,
        }
    }

    /// Jar `id`, the VU's own emptied first if an iteration began since.
    fn jar(&mut self, id: usize, iteration: u64) -> Option<&mut cookie_store::CookieStore> {
        if self.reset && iteration != self.iteration {
            self.list[0].clear();
        }
        self.iteration = iteration;
        self.list.get_mut(id)
    }
}

/// The `Cookie` field a WebSocket upgrade to `url` carries from VU
/// `vu`'s jar `jar` (0: its own), as k6 sends it: the jar's cookies for
/// the URL, `ws`/`wss` read as `http`/`https`.
pub(crate) fn ws_cookie(
    jars: &std::cell::RefCell<AllJars>,
    vu: usize,
    iteration: u64,
    jar: usize,
    url: &str,
) -> Option<String> {
    let http_url = if let Some(rest) = url.strip_prefix("wss://") {
        format!("https://{rest}")
    } else if let Some(rest) = url.strip_prefix("ws://") {
        format!("http://{rest}")
    } else {
        url.to_string()
    };
    cookie_field(jars.borrow_mut().of(vu), iteration, jar, &[], &http_url)
}

/// Sets the `Cookie` header as k6 does: a `Cookie` field the script set
/// itself, then `params.cookies`, then the jar's cookies for the URL.
fn add_cookies(jars: &mut Jars, iteration: u64, req: &mut ClientRequest, meta: &ReqMeta) {
    let own = req
        .headers
        .iter()
        .position(|(k, _)| k.eq_ignore_ascii_case("cookie"));
    let Some(c) = cookie_field(jars, iteration, meta.jar, &meta.cookies, &meta.url) else {
        return;
    };
    match own {
        Some(i) => {
            let v = &mut req.headers[i].1;
            v.push_str("; ");
            v.push_str(&c);
        }
        None => req.headers.push(("Cookie".into(), c)),
    }
}

/// The `Cookie` field for `url`, in k6's order: the request's
/// `params.cookies`, then jar `jar`'s cookies for it (those of longer paths
/// first, then the older first, as Go's jar sorts them) but the ones a
/// `replace` param cookie names; `None` when there are none.
fn cookie_field(
    jars: &mut Jars,
    iteration: u64,
    jar: usize,
    cookies: &[(String, String, bool)],
    url: &str,
) -> Option<String> {
    let mut pairs: Vec<String> = cookies
        .iter()
        .map(|(name, value, _)| format!("{name}={value}"))
        .collect();
    // An empty jar (most scripts never get a cookie) spares the URL parse.
    let jar = jars
        .jar(jar, iteration)
        .filter(|j| j.iter_any().next().is_some());
    if let Some(jar) = jar
        && let Ok(url) = url::Url::parse(url)
    {
        // The store keeps insertion order (its `preserve_order`): a
        // stable sort by path length leaves the older first.
        let mut found = jar.matches(&url);
        found.sort_by_key(|c| std::cmp::Reverse(c.path().map_or(0, str::len)));
        for c in found {
            let name = c.name();
            if !cookies.iter().any(|(n, _, replace)| *replace && n == name) {
                pairs.push(format!("{name}={}", c.value()));
            }
        }
    }
    (!pairs.is_empty()).then(|| pairs.join("; "))
}

/// The jar a request's redirect chain consults, as k6's client does: each
/// redirect response's cookies are kept, and the next hop gets
/// `params.cookies` and the jar's cookies for its URL (a `Cookie` field the
/// script set itself is not carried, as in k6).
fn redirect_jar(
    jars: &Rc<std::cell::RefCell<AllJars>>,
    vu: usize,
    iteration: u64,
    meta: &ReqMeta,
) -> Option<loadlab_engine::client::RedirectCookies> {
    let jars = jars.clone();
    let (jar, cookies) = (meta.jar, meta.cookies.clone());
    Some(loadlab_engine::client::RedirectCookies(Rc::new(
        move |here: &str, headers: &HeaderList, next: &str| {
            let mut all = jars.borrow_mut();
            let vu_jars = all.of(vu);
            store_set_cookies(vu_jars, iteration, jar, here, headers);
            cookie_field(vu_jars, iteration, jar, &cookies, next)
        },
    )))
}

/// Keeps the `Set-Cookie` fields of the response, and of the redirect
/// responses before it, in the request's jar.
fn store_cookies(
    jars: &mut Jars,
    iteration: u64,
    meta: &ReqMeta,
    resp: &loadlab_engine::client::ClientResponse,
) {
    for hop in resp.redirects.iter().chain([resp]) {
        store_cookies_of(jars, iteration, meta, hop);
    }
}

/// [`store_cookies`] for one response.
fn store_cookies_of(
    jars: &mut Jars,
    iteration: u64,
    meta: &ReqMeta,
    resp: &loadlab_engine::client::ClientResponse,
) {
    let url = resp.url.as_deref().unwrap_or(&meta.url);
    store_set_cookies(jars, iteration, meta.jar, url, &resp.headers);
}

/// Keeps the `Set-Cookie` fields of `headers`, a response from `url`, in
/// jar `jar`.
fn store_set_cookies(jars: &mut Jars, iteration: u64, jar: usize, url: &str, headers: &HeaderList) {
    let Some(jar) = jars.jar(jar, iteration) else {
        return;
    };
    // No `Set-Cookie`: nothing to parse the URL for.
    if headers.get("set-cookie").is_none() {
        return;
    }
    let Ok(url) = url::Url::parse(url) else {
        return;
    };
    let set = headers
        .iter()
        .filter(|(k, _)| k.eq_ignore_ascii_case("set-cookie"))
        .filter_map(|(_, v)| cookie_store::RawCookie::parse(v.to_string()).ok());
    jar.store_response_cookies(set, &url);
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum ResponseType {
    Text,
    Binary,
    None,
}

/// An object body as k6 (Go's `url.Values`) encodes it: keys sorted, an
/// array's elements as repeated keys.
fn form_encode(o: &Object<'_>) -> String {
    let mut pairs: Vec<(String, String)> = Vec::new();
    for (k, v) in o.props::<String, Value>().flatten() {
        match v.as_array() {
            Some(list) => {
                for e in list.iter::<Value>().flatten() {
                    pairs.push((k.clone(), js_string(&e).unwrap_or_default()));
                }
            }
            None => pairs.push((k, js_string(&v).unwrap_or_default())),
        }
    }
    // Stable: a key's repeated values keep their order.
    pairs.sort_by(|a, b| a.0.cmp(&b.0));
    let mut out = String::new();
    for (k, v) in pairs {
        if !out.is_empty() {
            out.push('&');
        }
        out.push_str(&pct(&k));
        out.push('=');
        out.push_str(&pct(&v));
    }
    out
}

/// A value made by `http.file()`.
fn is_file(v: &Value<'_>) -> bool {
    v.as_object()
        .is_some_and(|o| o.get::<_, bool>("__k6file").unwrap_or(false))
}

/// An object body with an `http.file()` among its values, as k6 writes it
/// (Go's `multipart.Writer`): a part per property, a file's with its name
/// and type; the `Content-Type` field's value besides.
fn multipart(o: &Object<'_>) -> rquickjs::Result<(Vec<u8>, String)> {
    use std::fmt::Write as _;
    let mut seed = [0u8; 30];
    rand::RngCore::fill_bytes(&mut rand::rng(), &mut seed);
    let boundary = crate::crypto::hex(&seed);
    let esc = |s: &str| s.replace('\\', "\\\\").replace('"', "\\\"");
    let mut out = Vec::new();
    for (k, v) in o.props::<String, Value>().flatten() {
        let mut head = String::new();
        let sep = if out.is_empty() { "" } else { "\r\n" };
        let _ = write!(head, "{sep}--{boundary}\r\n");
        let data = if is_file(&v) {
            let f = v.as_object().expect("a file is an object");
            let name: String = f.get("filename").unwrap_or_default();
            let ct: String = f.get("content_type").unwrap_or_default();
            let _ = write!(
                head,
                "Content-Disposition: form-data; name=\"{k}\"; filename=\"{}\"\r\nContent-Type: {ct}\r\n\r\n",
                esc(&name)
            );
            js_bytes(&f.get::<_, Value>("data")?)?
        } else {
            let _ = write!(
                head,
                "Content-Disposition: form-data; name=\"{}\"\r\n\r\n",
                esc(&k)
            );
            js_string(&v).unwrap_or_default().into_bytes()
        };
        out.extend_from_slice(head.as_bytes());
        out.extend_from_slice(&data);
    }
    out.extend_from_slice(format!("\r\n--{boundary}--\r\n").as_bytes());
    Ok((out, format!("multipart/form-data; boundary={boundary}")))
}

fn pct(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
            o.push(b as char);
        } else if b == b' ' {
            o.push('+');
        } else {
            o.push_str(&format!("%{b:02X}"));
        }
    }
    o
}

/// The options every request starts from.
#[derive(Debug, Clone, Default)]
pub struct HttpDefaults {
    /// `options.maxRedirects` or `--max-redirects` (`None`: 10, k6's default).
    pub max_redirects: Option<u32>,
    /// `discardResponseBodies` (`responseType` is `none` unless a request
    /// says otherwise), `userAgent` (`None`: `loadlab-k6`), `throw`.
    pub request: crate::options::RequestOptions,
    /// `systemTags` keeps `name`: an `http.url` template names its request.
    pub name_tag: bool,
    /// `blockHostnames` and `blacklistIPs` (for the failures' words).
    pub blocklist: std::sync::Arc<loadlab_engine::blocklist::Blocklist>,
}

/// Why a request could not be made from the script's arguments.
enum BuildError {
    /// An exception (a JavaScript one, or loadlab's own refusal).
    Js(rquickjs::Error),
    /// A request k6 reports as failed rather than throwing (unless
    /// `throw`): a bad URL, method or timeout, an unsupported callback.
    /// `text` is the response's `error`; `warning` the log's
    /// `Request Failed` text; `code` the `error_code`.
    Request {
        text: String,
        warning: String,
        code: u32,
        /// k6 still records the request's samples (it failed in Go's
        /// transport, not while being built): an unsupported scheme, an
        /// invalid method.
        sampled: bool,
    },
}

impl From<rquickjs::Error> for BuildError {
    fn from(e: rquickjs::Error) -> Self {
        BuildError::Js(e)
    }
}

/// A request error as k6 words it: the response's `error`, with the log
/// line's text the same unless `warning` says otherwise.
fn request_error(text: String, warning: Option<String>, code: u32) -> BuildError {
    BuildError::Request {
        warning: warning.unwrap_or_else(|| text.clone()),
        text,
        code,
        sampled: false,
    }
}

/// [`request_error`] for a request k6 records samples of.
fn sampled_error(text: String, warning: String) -> BuildError {
    BuildError::Request {
        warning,
        text,
        code: 1000,
        sampled: true,
    }
}

/// Records the samples of a request that could not be made but that k6
/// counts (a `sampled` [`BuildError::Request`]): its method, URL and tags
/// (`params.tags`), and the error as k6 tags it.
fn record_unsent(
    sh: &Shared,
    vu: usize,
    method: &str,
    url: &str,
    params: Option<&Value<'_>>,
    expect: Expect,
    error: (String, u32),
) {
    let tags = params
        .and_then(|p| p.as_object())
        .and_then(|o| o.get::<_, Value>("tags").ok())
        .map(|t| js_pairs(Some(&t)))
        .unwrap_or_default();
    let meta = ReqMeta {
        method: method.to_string(),
        url: url.to_string(),
        tags,
        response_type: ResponseType::Text,
        jar: 0,
        cookies: Vec::new(),
        redirects_set: true,
        expect,
        throws: false,
        unsent: Some(error),
    };
    sh.record_unsent(vu, &meta);
}

/// The first `%` escape of `url`'s path that is not `%` and two hex digits
/// (`%zz`), as Go's parser reports it.
fn bad_path_escape(url: &str) -> Option<&str> {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let path = &rest[rest.find('/')?..];
    let path = &path[..path.find(['?', '#']).unwrap_or(path.len())];
    let b = path.as_bytes();
    let at = (0..b.len()).find(|&i| {
        b[i] == b'%'
            && !(i + 2 < b.len() && b[i + 1].is_ascii_hexdigit() && b[i + 2].is_ascii_hexdigit())
    })?;
    Some(&path[at..(at + 3).min(path.len())])
}

/// Go's `Get "url": …` prefix of a request error.
fn go_op(method: &str, url: &str) -> String {
    let m = crate::sched::go_method(method);
    format!("{m} {:?}", url.replace(' ', "%20"))
}

fn build_request<'js>(
    ctx: &Ctx<'js>,
    method: &str,
    url: &Value<'js>,
    body: &Value<'js>,
    params: Option<&Value<'js>>,
    defaults: &HttpDefaults,
    mut expect: Expect,
) -> Result<(ClientRequest, ReqMeta), BuildError> {
    let max_redirects = defaults.max_redirects;
    // http.url`…`: the URL and its template, the request's `name`.
    let template = url.as_object().and_then(|o| {
        let u = o.get::<_, Option<String>>("__k6url").ok().flatten()?;
        let n = o.get::<_, Option<String>>("__k6name").ok().flatten()?;
        Some((u, n))
    });
    let (url_s, url_name) = match template {
        Some((u, n)) => (Some(u), Some(n)),
        None => (js_string(url), None),
    };
    let url = url_s
        .or_else(|| {
            url.as_object().and_then(|o| {
                o.get::<_, Function>("toString").ok().and_then(|f| {
                    f.call::<_, String>((rquickjs::function::This(o.clone()),))
                        .ok()
                })
            })
        })
        .ok_or_else(|| throw(ctx, "the request's URL must be a string"))?;
    if let Err(e) = loadlab_engine::client::Client::check_url(&url) {
        // Go's words where it has them: a URL without http(s).
        let scheme = url
            .split_once("://")
            .map_or("", |(s, _)| s)
            .to_ascii_lowercase();
        let text = if scheme == "http" || scheme == "https" {
            format!("invalid URL {url:?}: {e}")
        } else {
            format!("unsupported protocol scheme {scheme:?}")
        };
        let warning = format!("{}: {text}", go_op(method, &url));
        if scheme == "http" || scheme == "https" {
            return Err(request_error(text, Some(warning), 1000));
        }
        return Err(sampled_error(text, warning));
    }
    if let Some(bad) = bad_path_escape(&url) {
        // Go's url.Parse refuses a bad escape in the path (not the query).
        let text = format!("invalid URL: parse {url:?}: invalid URL escape {bad:?}");
        return Err(request_error(text, None, 1020));
    }
    let method_v = Method::from_bytes(method.as_bytes())
        .ok()
        .filter(|_| !method.is_empty() && method.bytes().all(|b| b.is_ascii_graphic()))
        .ok_or_else(|| {
            let text = format!("net/http: invalid method {method:?}");
            sampled_error(text.clone(), format!("Bad method {url:?}: {text}"))
        })?;
    let mut headers: Vec<(String, String)> = Vec::new();
    let mut tags = Vec::new();
    let mut timeout = Duration::from_secs(60);
    // k6's default limit is 10; `options.maxRedirects` chooses another.
    let mut redirects = max_redirects.map_or(10, |n| n.min(i32::MAX as u32) as i32);
    let mut redirects_set = max_redirects.is_some();
    let mut response_type = if defaults.request.discard_response_bodies {
        ResponseType::None
    } else {
        ResponseType::Text
    };
    let mut cookies = Vec::new();
    let mut jar = 0;
    let mut throws = defaults.request.throw;
    if let Some(p) = params.and_then(|p| p.as_object()) {
        for (k, v) in p.props::<String, Value>().flatten() {
            match k.as_str() {
                // (Read here, not by a look-up of its own: one per request.)
                "throw" => {
                    if let Some(b) = v.as_bool() {
                        throws = b;
                    }
                }
                "headers" => headers = js_pairs(Some(&v)),
                "tags" => tags = js_pairs(Some(&v)),
                "timeout" if !v.is_undefined() && !v.is_null() => {
                    timeout = js_duration(&v).ok_or_else(|| {
                        let shown = js_string(&v).unwrap_or_default();
                        request_error(
                            format!("invalid timeout value: time: invalid duration {shown:?}"),
                            None,
                            0,
                        )
                    })?;
                }
                "redirects" => {
                    if let Some(n) = v.as_int() {
                        redirects = n;
                        redirects_set = true;
                    } else if let Some(n) = v.as_number() {
                        redirects = n as i32;
                        redirects_set = true;
                    }
                }
                "responseType" => {
                    response_type = match js_string(&v).as_deref() {
                        Some("text") | None => ResponseType::Text,
                        Some("binary") => ResponseType::Binary,
                        Some("none") => ResponseType::None,
                        Some(other) => {
                            return Err(throw(
                                ctx,
                                &format!("params.responseType {other:?}: use text, binary or none"),
                            )
                            .into());
                        }
                    }
                }
                "cookies" => {
                    if let Some(o) = v.as_object() {
                        for (name, c) in o.props::<String, Value>().flatten() {
                            if let Some(co) = c.as_object() {
                                let value = co
                                    .get::<_, Value>("value")
                                    .ok()
                                    .and_then(|v| js_string(&v))
                                    .unwrap_or_default();
                                let replace = co.get::<_, bool>("replace").unwrap_or(false);
                                cookies.push((name, value, replace));
                            } else if let Some(value) = js_string(&c) {
                                cookies.push((name, value, false));
                            }
                        }
                    }
                }
                "jar" if !v.is_undefined() && !v.is_null() => {
                    jar = v
                        .as_object()
                        .and_then(|o| o.get::<_, f64>("_id").ok())
                        .ok_or_else(|| {
                            throw(
                                ctx,
                                "params.jar: not a cookie jar (use new http.CookieJar())",
                            )
                        })? as usize;
                }
                "responseCallback" => {
                    expect = Expect::from_js(&v).map_err(|()| {
                        request_error("unsupported responseCallback".into(), None, 0)
                    })?;
                }
                // Basic credentials come from the URL (`http://user:pass@…`),
                // with or without `auth: 'basic'`, as in k6.
                "auth" if js_string(&v).as_deref() == Some("basic") => {}
                "auth" | "compression" if !v.is_undefined() && !v.is_null() => {
                    let what = js_string(&v).map_or_else(String::new, |s| format!(" {s:?}"));
                    let only = if k == "auth" { "; only \"basic\"" } else { "" };
                    return Err(throw(
                        ctx,
                        &format!(
                            "params.{k}{what} is not supported by loadlab k6{only} (see docs/k6.md)"
                        ),
                    )
                    .into());
                }
                _ => {}
            }
        }
    }
    if let Some(n) = url_name
        && defaults.name_tag
        && !tags.iter().any(|(k, _)| k == "name")
    {
        tags.push(("name".to_string(), n));
    }
    let mut content_type: Option<std::borrow::Cow<'static, str>> = None;
    let body = if body.is_null() || body.is_undefined() {
        Bytes::new()
    } else if let Some(s) = body.as_string() {
        Bytes::from(s.to_string()?)
    } else if let Some(ab) = rquickjs::ArrayBuffer::from_value(body.clone()) {
        // SAFETY: the buffer is not detached or resized while copied (no
        // JavaScript runs in between).
        Bytes::copy_from_slice(unsafe { ab.as_bytes() }.unwrap_or_default())
    } else if let Some(o) = body.as_object()
        && o.props::<String, Value>()
            .flatten()
            .any(|(_, v)| is_file(&v))
    {
        let (bytes, ct) = multipart(o)?;
        content_type = Some(ct.into());
        Bytes::from(bytes)
    } else if let Some(o) = body.as_object() {
        content_type = Some("application/x-www-form-urlencoded".into());
        Bytes::from(form_encode(o))
    } else {
        Bytes::from(js_string(body).unwrap_or_default())
    };
    if let Some(ct) = content_type
        && !headers
            .iter()
            .any(|(k, _)| k.eq_ignore_ascii_case("content-type"))
    {
        headers.push(("Content-Type".into(), ct.into_owned()));
    }
    if !headers
        .iter()
        .any(|(k, _)| k.eq_ignore_ascii_case("user-agent"))
    {
        match defaults.request.user_agent.as_deref() {
            None => headers.push(("User-Agent".into(), "loadlab-k6".into())),
            Some("") => {}
            Some(ua) => headers.push(("User-Agent".into(), ua.into())),
        }
    }
    Ok((
        ClientRequest {
            method: method_v,
            url: url.clone(),
            headers,
            body,
            timeout,
            redirects,
            keep_body: response_type != ResponseType::None,
            redirect_cookies: None,
        },
        ReqMeta {
            method: method.to_string(),
            url,
            tags,
            response_type,
            jar,
            cookies,
            redirects_set,
            expect,
            throws,
            unsent: None,
        },
    ))
}

/// Installs `__k6`, `__ENV`, `__VU`, `__ITER`, `open` and `console` in
/// the run's context, once: every VU's code runs in it, and the native
/// functions act for the VU that calls them ([`vu::current`]).
///
/// `__VU` and `__ITER` are read from the calling VU's numbers, `__ENV` is
/// the calling VU's own object.
pub fn install<'js>(
    ctx: &Ctx<'js>,
    shared: &Rc<Shared>,
    scenario_env: &[Vec<(String, String)>],
) -> rquickjs::Result<()> {
    let g = ctx.globals();
    let k6 = Object::new(ctx.clone())?;
    let http = Object::new(ctx.clone())?;

    // `__ENV`: each VU's own object (a script may change it), made on the
    // VU's first read as a copy of the common one (the values are shared
    // strings, so a copy costs a property array); a scenario's own `env`
    // goes over it when the VU first reads it in that scenario (a VU's
    // init code sees the common variables, as in k6).
    let env = Object::new(ctx.clone())?;
    for (k, v) in &shared.env {
        env.set(k.as_str(), v.as_str())?;
    }
    // The objects live on `__k6` (`envBase`, `envOwn[vu]`), where the
    // garbage collector sees them (a native function's captures are
    // hidden from it).
    k6.set("envBase", env)?;
    k6.set("envOwn", rquickjs::Array::new(ctx.clone())?)?;
    {
        let sh = shared.clone();
        let scenario_env = scenario_env.to_vec();
        // Per VU: whether its scenario's `env` is on its object.
        let overlaid: std::cell::RefCell<Vec<bool>> = Default::default();
        g.prop(
            "__ENV",
            Accessor::new_get(move |ctx: Ctx<'js>| -> rquickjs::Result<Object<'js>> {
                let vu = vu::current();
                let k6: Object = ctx.globals().get("__k6")?;
                let own: rquickjs::Array = k6.get("envOwn")?;
                let o = match own.get::<Option<Object>>(vu)? {
                    Some(o) => o,
                    None => {
                        let base: Object = k6.get("envBase")?;
                        let o = Object::new(ctx.clone())?;
                        for k in base.keys::<rquickjs::Atom>() {
                            let k = k?;
                            o.set(k.clone(), base.get::<_, Value>(k)?)?;
                        }
                        own.set(vu, o.clone())?;
                        o
                    }
                };
                // Decided, and the borrow ended, before any property is
                // set (a setter a script put on Object.prototype could
                // read `__ENV` again).
                let overlay = {
                    let mut overlaid = overlaid.borrow_mut();
                    if overlaid.len() <= vu {
                        overlaid.resize(vu + 1, false);
                    }
                    let first = !overlaid[vu] && vu::in_vu();
                    overlaid[vu] |= first;
                    first
                };
                if overlay
                    && let Some(list) = sh.vu_scenario(vu).and_then(|si| scenario_env.get(si))
                {
                    for (k, v) in list {
                        o.set(k.as_str(), v.as_str())?;
                    }
                }
                Ok(o)
            })
            .configurable()
            .enumerable(),
        )?;
    }
    // `__VU` (the VU's id) and `__ITER` (its iteration in its scenario;
    // as in k6, not defined outside iterations: in the init context,
    // `setup()` and `teardown()`).
    {
        let sh = shared.clone();
        g.prop(
            "__VU",
            Accessor::new_get(move || sh.vu_numbers(vu::current()).0 as f64)
                .configurable()
                .enumerable(),
        )?;
        let sh = shared.clone();
        g.prop(
            "__ITER",
            Accessor::new_get(move |ctx: Ctx<'js>| -> rquickjs::Result<f64> {
                let vu = vu::current();
                if vu == 0 || !vu::in_vu() {
                    return Err(Exception::throw_reference(&ctx, "__ITER is not defined"));
                }
                Ok(sh.vu_numbers(vu).2 as f64)
            })
            .configurable()
            .enumerable(),
        )?;
    }

    // console.*
    let console = Object::new(ctx.clone())?;
    for level in ["log", "info", "warn", "error", "debug"] {
        let sh = shared.clone();
        console.set(
            level,
            Function::new(ctx.clone(), move |ctx: Ctx<'js>, args: Rest<Value<'js>>| {
                let mut line = String::new();
                for (i, a) in args.0.iter().enumerate() {
                    if i > 0 {
                        line.push(' ');
                    }
                    line.push_str(&display(&ctx, a));
                }
                sh.script_console(level, &line);
            })?,
        )?;
    }
    g.set("console", console)?;

    // Helpers written in JavaScript, compiled as the `k6` module's code so
    // that stack traces leave their frames out.
    let k6_code = |src: &str| -> rquickjs::Result<Function<'js>> {
        let mut opts = rquickjs::context::EvalOptions::default();
        opts.filename = Some("k6".into());
        ctx.eval_with_options(src, opts)
    };
    // k6's errors from Go code are `GoError`s (`GoError: boom`).
    k6.set(
        "goError",
        k6_code(
            "(m) => { const e = new Error(m); \
             Object.defineProperty(e, 'name', { value: 'GoError', writable: true, configurable: true }); \
             return e; }",
        )?,
    )?;
    // What k6 calls a value its Go code cannot take (Go's type names).
    k6.set(
        "goType",
        ctx.eval::<Function, _>(
            "(v) => v === null || v === undefined ? '<nil>' \
             : typeof v === 'number' ? (Number.isInteger(v) ? 'int64' : 'float64') \
             : typeof v === 'boolean' ? 'bool' \
             : typeof v === 'function' ? 'func(sobek.FunctionCall) sobek.Value' \
             : Array.isArray(v) ? '[]interface {}' : 'map[string]interface {}'",
        )?,
    )?;
    // Bytes as k6's Go code takes them: a string or an ArrayBuffer as it
    // is, a typed array's bytes as an ArrayBuffer; else k6's GoError.
    k6.set(
        "toBytes",
        k6_code(
            "(v) => { \
               if (typeof v === 'string' || v instanceof ArrayBuffer) return v; \
               if (ArrayBuffer.isView(v)) return v.buffer.slice(v.byteOffset, v.byteOffset + v.byteLength); \
               throw globalThis.__k6.goError(`invalid type ${globalThis.__k6.goType(v)}, expected string, []byte or ArrayBuffer`); }",
        )?,
    )?;
    // Timers: the natives their JavaScript needs, then the globals.
    k6.set(
        "vuIndex",
        // An integer: the VU's index into the per-VU arrays of the timers,
        // async requests and sockets (TIMERS_GLOBAL_JS, websockets.rs).
        Function::new(ctx.clone(), || {
            i32::try_from(vu::current()).unwrap_or(i32::MAX)
        })?,
    )?;
    {
        let origin = std::time::Instant::now();
        k6.set(
            "clock",
            Function::new(ctx.clone(), move || origin.elapsed().as_secs_f64() * 1000.0)?,
        )?;
    }
    k6.set(
        "timersLive",
        Function::new(ctx.clone(), |d: f64| {
            TIMERS_LIVE.with(|n| n.set(n.get() + d as i64));
        })?,
    )?;
    {
        // A warning in the run's log, as k6's own (no `source`).
        let sh = shared.clone();
        k6.set(
            "warn",
            Function::new(ctx.clone(), move |text: String| {
                sh.log(Level::Warning, &text, &[]);
            })?,
        )?;
    }
    k6_code(TIMERS_GLOBAL_JS)?.call::<_, ()>((k6.clone(),))?;
    k6_code(ITER_GLOBAL_JS)?.call::<_, ()>((k6.clone(),))?;
    // k6/html's natives: a page parsed (a string, or an ArrayBuffer's
    // bytes as UTF-8), and the Selection API, compiled on first use.
    k6.set(
        "htmlParse",
        Function::new(
            ctx.clone(),
            |ctx: Ctx<'js>, src: Value<'js>| -> rquickjs::Result<Value<'js>> {
                let doc = match src.as_string() {
                    Some(s) => crate::html::HtmlDoc::parse(&s.to_string()?),
                    None => crate::html::HtmlDoc::parse(&String::from_utf8_lossy(&js_bytes(&src)?)),
                };
                match doc {
                    Ok(doc) => Ok(rquickjs::Class::instance(ctx, doc)?.into_value()),
                    Err(msg) => Err(throw_go(&ctx, msg)),
                }
            },
        )?,
    )?;
    // A URL made absolute against a base (k6/html's URL attributes).
    k6.set(
        "urlResolve",
        Function::new(ctx.clone(), |base: String, href: String| {
            url::Url::parse(&base)
                .and_then(|b| b.join(&href))
                .ok()
                .map(String::from)
        })?,
    )?;
    k6.set(
        "htmlLib",
        Function::new(
            ctx.clone(),
            |ctx: Ctx<'js>| -> rquickjs::Result<Object<'js>> { ctx.eval(HTML_LIB_JS) },
        )?,
    )?;
    // k6/crypto's natives: whether an algorithm is known; a digest (or,
    // with a key, an HMAC) of the parts' bytes in an encoding, or a number
    // for bad input (0: the algorithm, 1: the encoding), which the module
    // turns into k6's GoError; `randomBytes(n)`.
    k6.set(
        "hashKnown",
        Function::new(ctx.clone(), |alg: String| crate::crypto::known(&alg))?,
    )?;
    k6.set(
        "digest",
        Function::new(
            ctx.clone(),
            |ctx: Ctx<'js>,
             alg: String,
             key: Value<'js>,
             parts: Vec<Value<'js>>,
             enc: String|
             -> rquickjs::Result<Value<'js>> {
                let key = (!key.is_undefined()).then(|| js_bytes(&key)).transpose()?;
                let mut data = Vec::new();
                for p in &parts {
                    data.extend_from_slice(&js_bytes(p)?);
                }
                let Some(sum) = crate::crypto::digest(&alg, key.as_deref(), &data) else {
                    return Ok(Value::new_number(ctx, 0.0));
                };
                use base64::Engine as _;
                let b64 = &base64::engine::general_purpose::STANDARD;
                let url = &base64::engine::general_purpose::URL_SAFE;
                let raw_url = &base64::engine::general_purpose::URL_SAFE_NO_PAD;
                let text = match enc.as_str() {
                    "hex" => crate::crypto::hex(&sum),
                    "base64" => b64.encode(&sum),
                    "base64url" => url.encode(&sum),
                    "base64rawurl" => raw_url.encode(&sum),
                    "binary" => return Ok(rquickjs::ArrayBuffer::new(ctx, sum)?.into_value()),
                    _ => return Ok(Value::new_number(ctx, 1.0)),
                };
                Ok(rquickjs::String::from_str(ctx, &text)?.into_value())
            },
        )?,
    )?;
    k6.set(
        "randomBytes",
        Function::new(
            ctx.clone(),
            |ctx: Ctx<'js>, n: usize| -> rquickjs::Result<Value<'js>> {
                let mut buf = vec![0u8; n];
                rand::RngCore::fill_bytes(&mut rand::rng(), &mut buf);
                Ok(rquickjs::ArrayBuffer::new(ctx, buf)?.into_value())
            },
        )?,
    )?;
    // http.setResponseCallback(cb): the calling VU's default.
    {
        let sh = shared.clone();
        k6.set(
            "setResponseCallback",
            Function::new(
                ctx.clone(),
                move |ctx: Ctx<'js>, cb: Opt<Value<'js>>| -> rquickjs::Result<()> {
                    let cb = cb.0.unwrap_or_else(|| Value::new_undefined(ctx.clone()));
                    let expect = Expect::from_js(&cb).map_err(|()| {
                        throw_go(&ctx, "unsupported argument, expected http.expectedStatuses")
                    })?;
                    sh.set_vu_expect(vu::current(), expect);
                    Ok(())
                },
            )?,
        )?;
    }
    // True outside any VU's iteration (k6's init context).
    k6.set("inInit", Function::new(ctx.clone(), || !vu::in_vu())?)?;
    // k6/encoding's natives: a string (its UTF-8 bytes) or an ArrayBuffer
    // in, base64 out; base64 in, an ArrayBuffer or (`as_string`) a string
    // out. Go's error text for bad input.
    k6.set(
        "b64encode",
        Function::new(
            ctx.clone(),
            |input: Value<'js>, encoding: String| -> rquickjs::Result<String> {
                let engine = b64_engine(&encoding);
                Ok(match input.as_string() {
                    Some(s) => base64::Engine::encode(&engine, s.to_string()?),
                    None => {
                        let ab = rquickjs::ArrayBuffer::from_value(input);
                        // SAFETY: the buffer is not detached or resized
                        // while read (no JavaScript runs in between).
                        let data = ab.as_ref().and_then(|a| unsafe { a.as_bytes() });
                        base64::Engine::encode(&engine, data.unwrap_or_default())
                    }
                })
            },
        )?,
    )?;
    k6.set(
        "b64decode",
        Function::new(
            ctx.clone(),
            |ctx: Ctx<'js>,
             input: String,
             encoding: String,
             as_string: bool|
             -> rquickjs::Result<Value<'js>> {
                let out = match base64::Engine::decode(&b64_engine(&encoding), input.as_bytes()) {
                    Ok(out) => out,
                    // The module throws k6's GoError with it.
                    Err(e) => return Ok(Value::new_number(ctx, b64_error_at(&e, &input) as f64)),
                };
                if as_string {
                    Ok(
                        rquickjs::String::from_str(ctx.clone(), &String::from_utf8_lossy(&out))?
                            .into_value(),
                    )
                } else {
                    Ok(rquickjs::ArrayBuffer::new(ctx.clone(), out)?.into_value())
                }
            },
        )?,
    )?;

    // open(path[, "b"]): init context only, relative to the script.
    {
        let sh = shared.clone();
        g.set(
            "open",
            Function::new(
                ctx.clone(),
                move |ctx: Ctx<'js>,
                      path: String,
                      mode: Opt<String>|
                      -> rquickjs::Result<Value<'js>> {
                    if vu::in_vu() {
                        return Err(throw(
                            &ctx,
                            "open() is only available in the init context (outside of functions)",
                        ));
                    }
                    let full = sh.script_dir.join(&path);
                    let data = std::fs::read(&full).map_err(|e| {
                        throw(
                            &ctx,
                            &format!("open({path:?}): cannot read {}: {e}", full.display()),
                        )
                    })?;
                    if mode.0.as_deref() == Some("b") {
                        Ok(rquickjs::ArrayBuffer::new(ctx.clone(), data)?.into_value())
                    } else {
                        Ok(rquickjs::String::from_str(
                            ctx.clone(),
                            &String::from_utf8_lossy(&data),
                        )?
                        .into_value())
                    }
                },
            )?,
        )?;
    }

    // check(name, pass, tags)
    // check(val, sets, tags): each of `sets`' own enumerable names in
    // order (as `Object.keys`), its function called with `val` (or its
    // value taken), the outcome's truth recorded; true when all passed.
    // An exception in a function ends the check there, as in k6.
    {
        let sh = shared.clone();
        k6.set(
            "check",
            Function::new(
                ctx.clone(),
                move |val: Value<'js>,
                      sets: Opt<Value<'js>>,
                      tags: Opt<Value<'js>>|
                      -> rquickjs::Result<bool> {
                    let Some(sets) = sets.0.as_ref().and_then(|v| v.as_object()) else {
                        return Ok(true);
                    };
                    let tags = js_pairs(tags.0.as_ref());
                    let mut all = true;
                    for entry in sets.props::<String, Value>() {
                        let (name, f) = entry?;
                        let outcome = match f.as_function() {
                            Some(f) => f.call::<_, Value>((val.clone(),))?,
                            None => f,
                        };
                        let pass = truthy(&outcome);
                        // The function may have waited: the VU is the
                        // caller still (restored on resume).
                        sh.check(vu::current(), &name, pass, tags.clone());
                        all &= pass;
                    }
                    Ok(all)
                },
            )?,
        )?;
    }
    // group(name, fn): the group around the call of `fn`.
    {
        let sh = shared.clone();
        k6.set(
            "group",
            Function::new(
                ctx.clone(),
                move |ctx: Ctx<'js>,
                      name: rquickjs::convert::Coerced<String>,
                      f: Value<'js>|
                      -> rquickjs::Result<Value<'js>> {
                    let name = name.0;
                    if name.contains("::") {
                        return Err(throw(&ctx, "group and check names may not contain '::'"));
                    }
                    let Some(f) = f.as_function() else {
                        return Err(Exception::throw_type(
                            &ctx,
                            "group(name, fn): fn is not a function",
                        ));
                    };
                    let token = sh.group_enter(vu::current(), &name);
                    let r = f.call::<_, Value>(());
                    // Whether `fn` returned or threw (or the VU was
                    // stopped while it waited): the group ends here.
                    sh.group_exit(vu::current(), token);
                    r
                },
            )?,
        )?;
    }
    // sleep(seconds)
    k6.set(
        "sleep",
        Function::new(
            ctx.clone(),
            move |ctx: Ctx<'js>, secs: rquickjs::convert::Coerced<f64>| -> rquickjs::Result<()> {
                let secs = secs.0;
                let d = if secs.is_finite() && secs > 0.0 {
                    Duration::from_secs_f64(secs)
                } else {
                    Duration::ZERO
                };
                wait(&ctx, Op::Sleep(d), "sleep()")?;
                Ok(())
            },
        )?,
    )?;
    // Cookie jars.
    let no_reset = serde_json::from_str::<serde_json::Value>(&shared.options_json)
        .ok()
        .and_then(|o| o.get("noCookiesReset").and_then(serde_json::Value::as_bool))
        .unwrap_or(false);
    let jars = Rc::new(std::cell::RefCell::new(AllJars {
        vus: Vec::new(),
        reset: !no_reset,
    }));
    install_jars(ctx, &k6, shared, &jars)?;
    // http.request(method, url, body, params), and the methods as natives
    // of their own, which the http module exports as they are.
    {
        let send = {
            let sh = shared.clone();
            let jr = jars.clone();
            Rc::new(
                move |ctx: &Ctx<'js>,
                      method: &str,
                      url: &Value<'js>,
                      body: Option<Value<'js>>,
                      params: Option<&Value<'js>>|
                      -> rquickjs::Result<Value<'js>> {
                    let vu = vu::current();
                    let body = body.unwrap_or_else(|| Value::new_null(ctx.clone()));
                    let expect = sh.vu_expect(vu);
                    let built =
                        build_request(ctx, method, url, &body, params, &sh.http, expect.clone());
                    let (mut req, meta) = match built {
                        Ok(b) => b,
                        Err(BuildError::Js(e)) => return Err(e),
                        // As k6: logged, and a failed response (thrown
                        // with `throw`); nothing sent, and samples only for
                        // what k6 counts (`sampled`).
                        Err(BuildError::Request {
                            text,
                            warning,
                            code,
                            sampled,
                        }) => {
                            let url = js_string(url).unwrap_or_default();
                            if sampled {
                                let error = (text.clone(), code);
                                record_unsent(&sh, vu, method, &url, params, expect, error);
                            }
                            // A request k6 could not even build throws by
                            // `options.throw` alone; one its transport
                            // refused, by `params.throw` first (k6 v1.8.1).
                            let throws = if sampled { params_throw(params) } else { None };
                            if throws.unwrap_or(sh.http.request.throw) {
                                return Err(throw_go(ctx, &warning));
                            }
                            sh.log(Level::Warning, "Request Failed", &[("error", &warning)]);
                            return unsent_response(ctx, method, url, text, code);
                        }
                    };
                    let iteration = sh.vu_numbers(vu).1;
                    req.redirect_cookies = redirect_jar(&jr, vu, iteration, &meta);
                    add_cookies(jr.borrow_mut().of(vu), iteration, &mut req, &meta);
                    rps_wait(ctx, &sh, 1)?;
                    let resp = match wait(ctx, Op::Http(vec![req]), "making HTTP requests")? {
                        Resume::Http(mut r) if r.len() == 1 => r.pop().expect("one response"),
                        _ => return Err(throw(ctx, "internal error: no response")),
                    };
                    store_cookies(jr.borrow_mut().of(vu), iteration, &meta, &resp);
                    sh.record_http(vu, &meta, &resp);
                    if meta.throws
                        && let Some(text) =
                            crate::sched::failure_text(&meta, &resp, &sh.http.blocklist)
                    {
                        // `options.throw`: the failure is the script's exception.
                        return Err(throw_go(ctx, &text));
                    }
                    response_object(ctx, &meta, resp)
                },
            )
        };
        let f = send.clone();
        k6.set(
            "request",
            Function::new(
                ctx.clone(),
                move |ctx: Ctx<'js>,
                      method: String,
                      url: Value<'js>,
                      body: Opt<Value<'js>>,
                      params: Opt<Value<'js>>|
                      -> rquickjs::Result<Value<'js>> {
                    f(&ctx, &method, &url, body.0, params.0.as_ref())
                },
            )?,
        )?;
        for (name, method) in [("get", "GET"), ("head", "HEAD")] {
            let (f, sh) = (send.clone(), shared.clone());
            // Whether this method has warned: a script passing params as a
            // third argument does so on every request (no message made
            // and looked up each time).
            let warned = Cell::new(false);
            k6.set(
                name,
                Function::new(
                    ctx.clone(),
                    move |ctx: Ctx<'js>,
                          url: Value<'js>,
                          params: Opt<Value<'js>>,
                          extra: Opt<Value<'js>>|
                          -> rquickjs::Result<Value<'js>> {
                        if extra.0.as_ref().is_some_and(|v| !v.is_undefined()) && !warned.get() {
                            warned.set(true);
                            sh.warn_once(&format!(
                                "http.{name}() takes (url, params): a third argument is ignored, as in k6 \
                                 (its params, tags included, are dropped)"
                            ));
                        }
                        f(&ctx, method, &url, None, params.0.as_ref())
                    },
                )?,
            )?;
        }
        for (name, method) in [
            ("post", "POST"),
            ("put", "PUT"),
            ("patch", "PATCH"),
            ("del", "DELETE"),
            ("options", "OPTIONS"),
        ] {
            let f = send.clone();
            k6.set(
                name,
                Function::new(
                    ctx.clone(),
                    move |ctx: Ctx<'js>,
                          url: Value<'js>,
                          body: Opt<Value<'js>>,
                          params: Opt<Value<'js>>|
                          -> rquickjs::Result<Value<'js>> {
                        f(&ctx, method, &url, body.0, params.0.as_ref())
                    },
                )?,
            )?;
        }
        let sh = shared.clone();
        let jr = jars.clone();
        k6.set(
            "batch",
            Function::new(
                ctx.clone(),
                move |ctx: Ctx<'js>,
                      list: Vec<Vec<Value<'js>>>|
                      -> rquickjs::Result<Vec<Value<'js>>> {
                    let vu = vu::current();
                    let mut reqs = Vec::new();
                    let mut metas = Vec::new();
                    // The requests that could not be made but count as
                    // failed ones (k6 goes on with the others): their
                    // place in the batch, and their response's fields.
                    let mut unsent = Vec::new();
                    for (at, r) in list.iter().enumerate() {
                        let null = Value::new_null(ctx.clone());
                        let method = r
                            .first()
                            .and_then(js_string)
                            .unwrap_or_else(|| "GET".into());
                        let url = r.get(1).cloned().unwrap_or_else(|| null.clone());
                        let body = r.get(2).cloned().unwrap_or_else(|| null.clone());
                        let expect = sh.vu_expect(vu);
                        let built = build_request(
                            &ctx,
                            &method,
                            &url,
                            &body,
                            r.get(3),
                            &sh.http,
                            expect.clone(),
                        );
                        let (mut req, meta) = match built {
                            Ok(b) => b,
                            Err(BuildError::Js(e)) => return Err(e),
                            Err(BuildError::Request {
                                text,
                                warning,
                                code,
                                sampled: true,
                            }) => {
                                let url = js_string(&url).unwrap_or_default();
                                let error = (text.clone(), code);
                                record_unsent(&sh, vu, &method, &url, r.get(3), expect, error);
                                // (`options.throw` only in a batch: k6
                                // leaves a request's `params.throw` out.)
                                if sh.http.request.throw {
                                    return Err(throw_go(&ctx, &warning));
                                }
                                sh.log(Level::Warning, "Request Failed", &[("error", &warning)]);
                                unsent.push((at, method, url, text, code));
                                continue;
                            }
                            // Else, as in k6, the whole batch fails: none
                            // of it is sent; this request's failed
                            // response, `null` for the others (a GoError
                            // with `throw`).
                            Err(BuildError::Request { text, code, .. }) => {
                                if sh.http.request.throw {
                                    return Err(throw_go(&ctx, &text));
                                }
                                sh.log(
                                    Level::Warning,
                                    "A batch request failed",
                                    &[("error", &text)],
                                );
                                let url = js_string(&url).unwrap_or_default();
                                let mut out = Vec::with_capacity(list.len());
                                for j in 0..list.len() {
                                    out.push(if j == at {
                                        unsent_response(
                                            &ctx,
                                            &method,
                                            url.clone(),
                                            text.clone(),
                                            code,
                                        )?
                                    } else {
                                        Value::new_null(ctx.clone())
                                    });
                                }
                                return Ok(out);
                            }
                        };
                        let iteration = sh.vu_numbers(vu).1;
                        req.redirect_cookies = redirect_jar(&jr, vu, iteration, &meta);
                        add_cookies(jr.borrow_mut().of(vu), iteration, &mut req, &meta);
                        reqs.push(req);
                        metas.push(meta);
                    }
                    let resps = if reqs.is_empty() {
                        Vec::new()
                    } else {
                        rps_wait(&ctx, &sh, reqs.len())?;
                        match wait(&ctx, Op::Http(reqs), "making HTTP requests")? {
                            Resume::Http(r) => r,
                            _ => return Err(throw(&ctx, "internal error: no response")),
                        }
                    };
                    let mut out = Vec::new();
                    let iteration = sh.vu_numbers(vu).1;
                    let mut failed = None;
                    let mut unsent = unsent.into_iter().peekable();
                    for (meta, resp) in metas.iter().zip(resps) {
                        while let Some((_, m, u, t, c)) = unsent.next_if(|x| x.0 == out.len()) {
                            out.push(unsent_response(&ctx, &m, u, t, c)?);
                        }
                        store_cookies(jr.borrow_mut().of(vu), iteration, meta, &resp);
                        sh.record_http(vu, meta, &resp);
                        if failed.is_none() && meta.throws {
                            failed = crate::sched::failure_text(meta, &resp, &sh.http.blocklist);
                        }
                        out.push(response_object(&ctx, meta, resp)?);
                    }
                    for (_, m, u, t, c) in unsent {
                        out.push(unsent_response(&ctx, &m, u, t, c)?);
                    }
                    if let Some(text) = failed {
                        return Err(throw_go(&ctx, &text));
                    }
                    Ok(out)
                },
            )?,
        )?;
        // The selector function, compiled in the calling context (the
        // http module keeps it: once per VU, on first use).
        k6.set(
            "gjson",
            Function::new(
                ctx.clone(),
                |ctx: Ctx<'js>| -> rquickjs::Result<Function<'js>> { ctx.eval(GJSON_JS) },
            )?,
        )?;
    }
    // Custom metrics.
    {
        let sh = shared.clone();
        k6.set(
            "metricNew",
            Function::new(
                ctx.clone(),
                move |ctx: Ctx<'js>,
                      name: String,
                      kind: String,
                      time: bool|
                      -> rquickjs::Result<f64> {
                    let kind = match kind.as_str() {
                        "counter" => Kind::Counter,
                        "gauge" => Kind::Gauge,
                        "rate" => Kind::Rate,
                        _ => Kind::Trend,
                    };
                    sh.define_metric(&name, kind, time)
                        .map(|i| i as f64)
                        .map_err(|e| throw(&ctx, &e))
                },
            )?,
        )?;
        let sh = shared.clone();
        k6.set(
            "metricAdd",
            Function::new(
                ctx.clone(),
                // `metric.add(value, tags)` itself (on the metrics'
                // prototype): `this` is the metric.
                move |ctx: Ctx<'js>,
                      this: This<Object<'js>>,
                      value: rquickjs::convert::Coerced<f64>,
                      tags: Opt<Value<'js>>|
                      -> rquickjs::Result<bool> {
                    let id: f64 = this.0.get("_id").map_err(|_| {
                        throw(
                            &ctx,
                            "add() must be called on a metric (new Trend(...).add(v))",
                        )
                    })?;
                    let value = value.0;
                    if !value.is_finite() {
                        return Err(throw(&ctx, "a metric value must be a finite number"));
                    }
                    sh.add_custom(vu::current(), id as usize, value, js_pairs(tags.0.as_ref()));
                    Ok(true)
                },
            )?,
        )?;
    }
    // k6/execution
    {
        let sh = shared.clone();
        k6.set(
            "vuTag",
            Function::new(ctx.clone(), move |name: String, value: Option<String>| {
                sh.set_vu_tag(vu::current(), &name, value);
            })?,
        )?;
    }
    {
        let sh = shared.clone();
        k6.set(
            "execVu",
            Function::new(
                ctx.clone(),
                move |ctx: Ctx<'js>| -> rquickjs::Result<Object<'js>> {
                    let vu = vu::current();
                    let (id, iter_inst, iter_scen) = sh.vu_numbers(vu);
                    let o = Object::new(ctx.clone())?;
                    o.set("idInInstance", id as f64)?;
                    o.set("idInTest", id as f64)?;
                    o.set("iterationInInstance", iter_inst as f64)?;
                    o.set("iterationInScenario", iter_scen as f64)?;
                    let tags = Object::new(ctx.clone())?;
                    for (k, v) in sh.vu_tags(vu) {
                        tags.set(k, v)?;
                    }
                    o.set("tags", tags.clone())?;
                    let m = Object::new(ctx.clone())?;
                    m.set("tags", tags)?;
                    // Metadata does not split series; kept for the script.
                    m.set("metadata", Object::new(ctx.clone())?)?;
                    o.set("metrics", m)?;
                    Ok(o)
                },
            )?,
        )?;
        let sh = shared.clone();
        k6.set(
            "execScenario",
            Function::new(
                ctx.clone(),
                move |ctx: Ctx<'js>| -> rquickjs::Result<Object<'js>> {
                    let info = sh.scenario_info(vu::current());
                    let o = Object::new(ctx.clone())?;
                    o.set("name", info.name)?;
                    o.set("executor", info.executor)?;
                    o.set("startTime", info.start_unix_ms)?;
                    o.set("progress", info.progress)?;
                    o.set("iterationInInstance", info.iteration as f64)?;
                    o.set("iterationInTest", info.in_test as f64)?;
                    Ok(o)
                },
            )?,
        )?;
        let sh = shared.clone();
        k6.set(
            "execInstance",
            Function::new(
                ctx.clone(),
                move |ctx: Ctx<'js>| -> rquickjs::Result<Object<'js>> {
                    let o = Object::new(ctx.clone())?;
                    let (done, interrupted, active, init, elapsed) = sh.instance_info();
                    o.set("iterationsCompleted", done as f64)?;
                    o.set("iterationsInterrupted", interrupted as f64)?;
                    o.set("vusActive", active as f64)?;
                    o.set("vusInitialized", init as f64)?;
                    o.set("currentTestRunDuration", elapsed)?;
                    Ok(o)
                },
            )?,
        )?;
        let sh = shared.clone();
        k6.set(
            "execOptions",
            Function::new(
                ctx.clone(),
                move |ctx: Ctx<'js>| -> rquickjs::Result<Value<'js>> {
                    let raw = serde_json::from_str(&sh.options_json).unwrap_or_default();
                    ctx.json_parse(crate::test_options::k6_test_options(&raw))
                },
            )?,
        )?;
        let sh = shared.clone();
        k6.set(
            "abort",
            Function::new(
                ctx.clone(),
                move |ctx: Ctx<'js>, msg: String| -> rquickjs::Result<()> {
                    sh.request_abort(&msg);
                    Err(throw(&ctx, &format!("test aborted: {msg}")))
                },
            )?,
        )?;
    }
    install_response(ctx, &k6)?;
    crate::ws::install(ctx, &k6, shared, &jars)?;
    k6.set("http", http)?;
    g.set("__k6", k6)?;
    Ok(())
}

/// The native side of `CookieJar`: `jarNew`, `jarCookies`, `jarSet`,
/// `jarClear` (all of a URL's cookies, or one name's).
fn install_jars<'js>(
    ctx: &Ctx<'js>,
    k6: &Object<'js>,
    shared: &Rc<Shared>,
    jars: &Rc<std::cell::RefCell<AllJars>>,
) -> rquickjs::Result<()> {
    let jr = jars.clone();
    k6.set(
        "jarNew",
        Function::new(ctx.clone(), move || -> f64 {
            let mut all = jr.borrow_mut();
            let j = all.of(vu::current());
            j.list.push(cookie_store::CookieStore::default());
            (j.list.len() - 1) as f64
        })?,
    )?;
    let parse = |ctx: &Ctx<'js>, u: &str| {
        url::Url::parse(u).map_err(|e| throw(ctx, &format!("invalid URL {u:?}: {e}")))
    };
    let (jr, sh) = (jars.clone(), shared.clone());
    k6.set(
        "jarCookies",
        Function::new(
            ctx.clone(),
            move |ctx: Ctx<'js>, id: f64, u: String| -> rquickjs::Result<Object<'js>> {
                let url = parse(&ctx, &u)?;
                let out = Object::new(ctx.clone())?;
                let vu = vu::current();
                let mut all = jr.borrow_mut();
                if let Some(jar) = all.of(vu).jar(id as usize, sh.vu_numbers(vu).1) {
                    for (name, value) in jar.get_request_values(&url) {
                        let list = match out.get::<_, Option<rquickjs::Array>>(name)? {
                            Some(l) => l,
                            None => {
                                let l = rquickjs::Array::new(ctx.clone())?;
                                out.set(name, l.clone())?;
                                l
                            }
                        };
                        list.set(list.len(), value)?;
                    }
                }
                Ok(out)
            },
        )?,
    )?;
    let (jr, sh) = (jars.clone(), shared.clone());
    k6.set(
        "jarSet",
        Function::new(
            ctx.clone(),
            move |ctx: Ctx<'js>,
                  id: f64,
                  u: String,
                  name: String,
                  value: String,
                  opts: Opt<Value<'js>>|
                  -> rquickjs::Result<()> {
                let url = parse(&ctx, &u)?;
                let mut c = cookie_store::RawCookie::new(name, value);
                if let Some(o) = opts.0.as_ref().and_then(|o| o.as_object()) {
                    let text = |k: &str| {
                        o.get::<_, Value>(k)
                            .ok()
                            .and_then(|v| js_string(&v))
                            .filter(|s| !s.is_empty())
                    };
                    if let Some(d) = text("domain") {
                        c.set_domain(d);
                    }
                    if let Some(p) = text("path") {
                        c.set_path(p);
                    }
                    if let Some(n) = o.get::<_, Option<f64>>("max_age").ok().flatten()
                        && let Ok(p) =
                            cookie_store::RawCookie::parse(format!("x=y; Max-Age={}", n as i64))
                    {
                        c.set_max_age(p.max_age());
                    }
                    if let Some(e) = text("expires")
                        && let Ok(p) = cookie_store::RawCookie::parse(format!("x=y; Expires={e}"))
                        && let Some(t) = p.expires_datetime()
                    {
                        c.set_expires(t);
                    }
                    if o.get::<_, bool>("secure").unwrap_or(false) {
                        c.set_secure(true);
                    }
                    if o.get::<_, bool>("http_only").unwrap_or(false) {
                        c.set_http_only(true);
                    }
                }
                let vu = vu::current();
                let mut all = jr.borrow_mut();
                if let Some(jar) = all.of(vu).jar(id as usize, sh.vu_numbers(vu).1)
                    && let Err(e) = jar.insert_raw(&c, &url)
                {
                    return Err(throw(&ctx, &format!("jar.set({u:?}): {e}")));
                }
                Ok(())
            },
        )?,
    )?;
    let (jr, sh) = (jars.clone(), shared.clone());
    k6.set(
        "jarClear",
        Function::new(
            ctx.clone(),
            move |ctx: Ctx<'js>,
                  id: f64,
                  u: String,
                  name: Opt<Value<'js>>|
                  -> rquickjs::Result<()> {
                let url = parse(&ctx, &u)?;
                let only = name.0.as_ref().and_then(js_string);
                // As k6 (Go's jar): the cookies of the URL's default path
                // (its directory) only, not every cookie sent to it.
                let dir = match url.path().rfind('/') {
                    Some(0) | None => "/",
                    Some(i) => &url.path()[..i],
                };
                let vu = vu::current();
                let mut all = jr.borrow_mut();
                if let Some(jar) = all.of(vu).jar(id as usize, sh.vu_numbers(vu).1) {
                    let gone: Vec<(String, String, String)> = jar
                        .matches(&url)
                        .into_iter()
                        .filter(|c| only.as_deref().is_none_or(|n| c.name() == n))
                        .filter(|c| String::from(&c.path) == dir)
                        .map(|c| {
                            (
                                String::from(&c.domain),
                                String::from(&c.path),
                                c.name().to_string(),
                            )
                        })
                        .collect();
                    for (d, p, n) in gone {
                        jar.remove(&d, &p, &n);
                    }
                }
                Ok(())
            },
        )?,
    )?;
    Ok(())
}

/// What a response object holds natively until the script reads it.
///
/// A response is an object of a class of its own whose prototype
/// (`http.Response.prototype`, one for the run) has an accessor per
/// field. The first read of `headers`, `body` or `timings` makes the value
/// and keeps it as an own data property of the response (so it is the same
/// object on every read, and the script may change it); the scalar fields
/// are read from here each time until assigned. Making the response thus
/// costs one object instead of three objects and ~24 properties, most of
/// which scripts never read (issue #11: CPU per request).
struct RespData {
    status: u16,
    url: String,
    error: String,
    error_code: u32,
    headers: HeaderList,
    body: Vec<u8>,
    response_type: ResponseType,
    /// blocked, connecting, tls_handshaking, sending, waiting, receiving,
    /// duration (ms).
    timings: [f64; 7],
    /// `HTTP/1.1`, `HTTP/2.0`, or empty when there was no response.
    proto: &'static str,
    /// The connection's peer and TLS parameters.
    conn: loadlab_engine::client::ConnInfo,
    /// The status line's reason phrase when not the usual one.
    reason: Option<String>,
    /// The script read or replaced `body`: `json()` parses that one.
    body_read: Cell<bool>,
    /// `res.request`: the request as sent (its first hop, as k6 shows it);
    /// its URL when a redirect made `url` another.
    req_method: Method,
    req_url: Option<String>,
    req_headers: Vec<(String, String)>,
    req_body: Bytes,
}

/// A response's fields (`toJSON` in HTTP_JS lists them in k6's order,
/// `cookies` after `headers`).
const RESP_FIELDS: [&str; 16] = [
    "status",
    "url",
    "proto",
    "headers",
    "body",
    "timings",
    "error",
    "error_code",
    "cookies",
    "request",
    "remote_ip",
    "remote_port",
    "status_text",
    "tls_version",
    "tls_cipher_suite",
    "ocsp",
];

thread_local! {
    /// The response class's id in this thread's runtime (0: none).
    static RESP_CLASS: Cell<qjs::JSClassID> = const { Cell::new(0) };
}

unsafe extern "C" fn resp_finalizer(_rt: *mut qjs::JSRuntime, val: qjs::JSValue) {
    let id = RESP_CLASS.with(Cell::get);
    // SAFETY: QuickJS calls this once, when a response object dies; its
    // opaque is the box `response_object` leaked (or null).
    unsafe {
        let p = qjs::JS_GetOpaque(val, id).cast::<RespData>();
        if !p.is_null() {
            drop(Box::from_raw(p));
        }
    }
}

/// Registers the response class in a new runtime (before `install` runs
/// in any of its contexts).
///
/// # Safety
/// `rt` is a live runtime used by this thread only.
pub unsafe fn register_response_class(rt: *mut qjs::JSRuntime) -> Result<(), String> {
    let mut id: qjs::JSClassID = 0;
    let def = qjs::JSClassDef {
        class_name: c"Response".as_ptr(),
        finalizer: Some(resp_finalizer),
        gc_mark: None,
        call: None,
        exotic: std::ptr::null_mut(),
    };
    // SAFETY: as documented; QuickJS copies what it keeps of `def`.
    let ok = unsafe {
        qjs::JS_NewClassID(rt, &mut id);
        qjs::JS_NewClass(rt, id, &def) == 0
    };
    if !ok {
        return Err("cannot register the Response class".into());
    }
    RESP_CLASS.with(|c| c.set(id));
    TIMING_ATOMS.with(|c| c.set([0; 8]));
    Ok(())
}

/// The native data of a response object (`None` for any other value).
fn resp_of<'a>(v: &'a Value<'_>) -> Option<&'a RespData> {
    let id = RESP_CLASS.with(Cell::get);
    if id == 0 || !v.is_object() {
        return None;
    }
    // SAFETY: `JS_GetOpaque` checks the value's class; the data lives as
    // long as the object, which `v` holds.
    unsafe {
        qjs::JS_GetOpaque(v.as_raw(), id)
            .cast::<RespData>()
            .as_ref()
    }
}

/// Makes `res.<field>` an own data property holding `v`.
fn keep<'js>(this: &Value<'js>, field: &str, v: Value<'js>) -> rquickjs::Result<()> {
    if let Some(o) = this.as_object() {
        o.prop(
            field,
            Property::from(v).writable().enumerable().configurable(),
        )?;
    }
    Ok(())
}

/// The value of field `i` (of `RESP_FIELDS`) of a response.
fn resp_field<'js>(ctx: &Ctx<'js>, this: &Value<'js>, i: usize) -> rquickjs::Result<Value<'js>> {
    let Some(d) = resp_of(this) else {
        return Ok(Value::new_undefined(ctx.clone()));
    };
    let v = match i {
        0 => Value::new_int(ctx.clone(), i32::from(d.status)),
        1 => rquickjs::String::from_str(ctx.clone(), &d.url)?.into_value(),
        2 => rquickjs::String::from_str(ctx.clone(), d.proto)?.into_value(),
        3 => {
            let headers = Object::new(ctx.clone())?;
            for (k, v) in d.headers.iter() {
                // k6 canonicalises names (Content-Type) and joins repeats with ", ".
                let name = canonical(k);
                let joined = match headers.get::<_, Option<String>>(name.as_str())? {
                    Some(prev) => format!("{prev}, {v}"),
                    None => v.to_string(),
                };
                headers.set(name, joined)?;
            }
            headers.into_value()
        }
        4 => {
            d.body_read.set(true);
            match d.response_type {
                // A request that failed has no body, as in k6.
                _ if d.status == 0 && !d.error.is_empty() => Value::new_null(ctx.clone()),
                ResponseType::None => Value::new_null(ctx.clone()),
                ResponseType::Binary => {
                    rquickjs::ArrayBuffer::new(ctx.clone(), d.body.clone())?.into_value()
                }
                ResponseType::Text => {
                    rquickjs::String::from_str(ctx.clone(), &String::from_utf8_lossy(&d.body))?
                        .into_value()
                }
            }
        }
        5 => timings_object(ctx, &d.timings)?,
        6 => rquickjs::String::from_str(ctx.clone(), &d.error)?.into_value(),
        8 => {
            // The Set-Cookie fields, by name (k6's shape).
            let cookies = Object::new(ctx.clone())?;
            for (k, v) in d.headers.iter() {
                if !k.eq_ignore_ascii_case("set-cookie") {
                    continue;
                }
                let Ok(c) = cookie_store::RawCookie::parse(v.to_string()) else {
                    continue;
                };
                let e = Object::new(ctx.clone())?;
                e.set("name", c.name())?;
                e.set("value", c.value())?;
                e.set("domain", c.domain().unwrap_or(""))?;
                e.set("path", c.path().unwrap_or(""))?;
                e.set("http_only", c.http_only().unwrap_or(false))?;
                e.set("secure", c.secure().unwrap_or(false))?;
                e.set(
                    "max_age",
                    c.max_age().map_or(0.0, |d| d.whole_seconds() as f64),
                )?;
                // Without `Expires`, k6 shows Go's zero time as it converts
                // it (its nanoseconds overflow): -6795364578871.
                e.set(
                    "expires",
                    c.expires_datetime().map_or(-6_795_364_578_871.0, |t| {
                        (t.unix_timestamp_nanos() / 1_000_000) as f64
                    }),
                )?;
                push_to_list(ctx, &cookies, c.name(), e)?;
            }
            cookies.into_value()
        }
        9 => {
            // k6's shape: header values as lists, the cookies sent by name.
            let r = Object::new(ctx.clone())?;
            r.set("method", d.req_method.as_str())?;
            r.set("url", d.req_url.as_deref().unwrap_or(&d.url))?;
            let headers = Object::new(ctx.clone())?;
            let cookies = Object::new(ctx.clone())?;
            for (k, v) in &d.req_headers {
                let name = canonical(k);
                push_to_list(ctx, &headers, &name, v.as_str())?;
                if name == "Cookie" {
                    for pair in v.split(';') {
                        let Some((n, val)) = pair.trim().split_once('=') else {
                            continue;
                        };
                        let c = Object::new(ctx.clone())?;
                        c.set("name", n)?;
                        c.set("value", val)?;
                        c.set("replace", false)?;
                        push_to_list(ctx, &cookies, n, c)?;
                    }
                }
            }
            r.set("headers", headers)?;
            r.set(
                "body",
                rquickjs::String::from_str(ctx.clone(), &String::from_utf8_lossy(&d.req_body))?,
            )?;
            r.set("cookies", cookies)?;
            r.into_value()
        }
        7 => Value::new_number(ctx.clone(), f64::from(d.error_code)),
        // The peer's address, and "" and 0 when there was no response (as k6).
        10 => {
            let ip = d.conn.peer.map(|p| p.ip().to_string()).unwrap_or_default();
            rquickjs::String::from_str(ctx.clone(), &ip)?.into_value()
        }
        11 => Value::new_int(ctx.clone(), d.conn.peer.map_or(0, |p| i32::from(p.port()))),
        // Go's `Status`: the code and the reason phrase as received.
        12 => {
            let text = match (d.status, &d.reason) {
                (0, _) => String::new(),
                (s, Some(r)) => format!("{s} {r}"),
                (s, None) => {
                    let usual = http::StatusCode::from_u16(s)
                        .ok()
                        .and_then(|c| c.canonical_reason())
                        .unwrap_or("");
                    format!("{s} {usual}")
                }
            };
            rquickjs::String::from_str(ctx.clone(), &text)?.into_value()
        }
        13 => {
            let v = d.conn.tls.map_or("", |t| t.version);
            rquickjs::String::from_str(ctx.clone(), v)?.into_value()
        }
        14 => {
            let v = d.conn.tls.map_or("", |t| t.cipher_suite);
            rquickjs::String::from_str(ctx.clone(), v)?.into_value()
        }
        15 => {
            // No OCSP staple is asked for: k6's shape, its status
            // "unknown" over TLS (k6's word when none came) and "" without.
            let o = Object::new(ctx.clone())?;
            for key in ["produced_at", "this_update", "next_update", "revoked_at"] {
                o.set(key, 0)?;
            }
            o.set("revocation_reason", "")?;
            let status = if d.conn.tls.is_some() && d.status > 0 {
                "unknown"
            } else {
                ""
            };
            o.set("status", status)?;
            o.into_value()
        }
        _ => Value::new_undefined(ctx.clone()),
    };
    // Kept, so that it is the same object next time (not possible on a
    // frozen response: then the value is made again on each read).
    if matches!(i, 3..=5 | 8 | 9 | 15) && keep(this, RESP_FIELDS[i], v.clone()).is_err() {
        let _ = ctx.catch();
    }
    Ok(v)
}

/// `res.timings`' keys, in k6's order.
const TIMING_KEYS: [&str; 8] = [
    "duration",
    "blocked",
    "looking_up",
    "connecting",
    "tls_handshaking",
    "sending",
    "waiting",
    "receiving",
];

thread_local! {
    /// [`TIMING_KEYS`] as atoms of this thread's runtime (0: not made yet;
    /// reset by [`register_response_class`]). Made once and never freed:
    /// naming each key by its text cost a look-up in the runtime's atom
    /// table per key and request (~1 % of the k6 face's CPU on seed 004's
    /// script, which reads `res.timings` after two requests in three).
    static TIMING_ATOMS: Cell<[qjs::JSAtom; 8]> = const { Cell::new([0; 8]) };
}

/// `res.timings`: `[blocked, connecting, tls_handshaking, sending,
/// waiting, receiving, duration]` in ms as k6's object. k6 never sets
/// `looking_up` (a look-up is part of `blocked`), so it is 0 here too.
fn timings_object<'js>(ctx: &Ctx<'js>, t: &[f64; 7]) -> rquickjs::Result<Value<'js>> {
    let raw_ctx = ctx.as_raw().as_ptr();
    let mut atoms = TIMING_ATOMS.with(Cell::get);
    if atoms[0] == 0 {
        for (a, k) in atoms.iter_mut().zip(TIMING_KEYS) {
            // SAFETY: a live context of this thread's runtime.
            *a = unsafe { qjs::JS_NewAtomLen(raw_ctx, k.as_ptr().cast(), k.len() as _) };
            if *a == 0 {
                return Err(rquickjs::Error::Exception);
            }
        }
        TIMING_ATOMS.with(|c| c.set(atoms));
    }
    let values = [t[6], t[0], 0.0, t[1], t[2], t[3], t[4], t[5]].map(qjs::JS_NewFloat64);
    // SAFETY: eight atoms of this runtime and eight numbers (no references
    // to hand over); the new object is owned by the returned value.
    unsafe {
        let raw = qjs::JS_NewObjectFrom(raw_ctx, 8, atoms.as_ptr(), values.as_ptr());
        if qjs::JS_IsException(raw) {
            return Err(rquickjs::Error::Exception);
        }
        Ok(Value::from_raw(ctx.clone(), raw))
    }
}

/// Appends `v` to the array `o[key]`, made on first use (k6's
/// `{name: [values]}` shapes).
fn push_to_list<'js>(
    ctx: &Ctx<'js>,
    o: &Object<'js>,
    key: &str,
    v: impl rquickjs::IntoJs<'js>,
) -> rquickjs::Result<()> {
    let list = match o.get::<_, Option<rquickjs::Array>>(key)? {
        Some(l) => l,
        None => {
            let l = rquickjs::Array::new(ctx.clone())?;
            o.set(key, l.clone())?;
            l
        }
    };
    list.set(list.len(), v)
}

/// `res.json()`: the body parsed (straight from the bytes while the script
/// has not read or replaced `res.body`).
fn resp_json<'js>(ctx: &Ctx<'js>, this: &Value<'js>) -> rquickjs::Result<Value<'js>> {
    let parse = |src: Vec<u8>| {
        ctx.json_parse(src).map_err(|e| match e {
            rquickjs::Error::Exception => e,
            other => throw(ctx, &format!("res.json(): {other}")),
        })
    };
    let direct = resp_of(this).filter(|d| !d.body_read.get());
    if let Some(d) = direct
        && d.response_type != ResponseType::None
    {
        return parse(d.body.clone());
    }
    let body: Value = match this.as_object() {
        Some(o) => o.get("body")?,
        None => Value::new_undefined(ctx.clone()),
    };
    if body.is_null() || body.is_undefined() {
        return Err(throw(ctx, "the response has no body"));
    }
    if let Some(d) = resp_of(this)
        && let Some(ab) = rquickjs::ArrayBuffer::from_value(body.clone())
    {
        let _ = d;
        // SAFETY: the buffer is not detached or resized while copied.
        return parse(unsafe { ab.as_bytes() }.unwrap_or_default().to_vec());
    }
    let text = js_string(&body).unwrap_or_default();
    parse(text.into_bytes())
}

/// The prototype of this context's response objects, with an accessor per
/// field; `k6.ResponseProto` and `k6.respJson` for HTTP_JS.
fn install_response<'js>(ctx: &Ctx<'js>, k6: &Object<'js>) -> rquickjs::Result<()> {
    let proto = Object::new(ctx.clone())?;
    for (i, name) in RESP_FIELDS.iter().enumerate() {
        let name: &'static str = name;
        proto.prop(
            name,
            Accessor::new(
                move |ctx: Ctx<'js>, this: This<Value<'js>>| resp_field(&ctx, &this.0, i),
                move |this: This<Value<'js>>, v: Value<'js>| keep(&this.0, name, v),
            )
            .configurable(),
        )?;
    }
    let id = RESP_CLASS.with(Cell::get);
    if id != 0 {
        // SAFETY: `id` is registered in this context's runtime;
        // `JS_SetClassProto` takes over the reference made here.
        unsafe {
            let p = ctx.as_raw().as_ptr();
            qjs::JS_SetClassProto(p, id, qjs::JS_DupValue(p, proto.as_raw()));
        }
    }
    k6.set("ResponseProto", proto)?;
    k6.set(
        "respJson",
        Function::new(ctx.clone(), |ctx: Ctx<'js>, this: Value<'js>| {
            resp_json(&ctx, &this)
        })?,
    )?;
    Ok(())
}

/// The response k6 gives for a request it could not make (a bad URL,
/// method or timeout): status 0, its `error` and `error_code`, no body.
fn unsent_response<'js>(
    ctx: &Ctx<'js>,
    method: &str,
    url: String,
    error: String,
    error_code: u32,
) -> rquickjs::Result<Value<'js>> {
    make_response(
        ctx,
        Box::new(RespData {
            proto: "",
            conn: Default::default(),
            reason: None,
            status: 0,
            url,
            req_method: Method::from_bytes(method.as_bytes()).unwrap_or(Method::GET),
            req_url: None,
            req_headers: Vec::new(),
            req_body: Bytes::new(),
            error,
            error_code,
            headers: HeaderList::default(),
            body: Vec::new(),
            response_type: ResponseType::Text,
            timings: [0.0; 7],
            body_read: Cell::new(false),
        }),
    )
}

fn response_object<'js>(
    ctx: &Ctx<'js>,
    meta: &ReqMeta,
    resp: loadlab_engine::client::ClientResponse,
) -> rquickjs::Result<Value<'js>> {
    let t = crate::sched::Timings::of(&resp);
    let (error, error_code) =
        crate::sched::error_of(&resp, resp.url.as_deref().unwrap_or(&meta.url));
    let req_url = resp.url.is_some().then(|| meta.url.clone());
    let data = Box::new(RespData {
        proto: crate::sched::proto_of(&resp),
        // A failed request has no peer (k6 shows "" and 0).
        conn: if resp.status > 0 {
            resp.conn
        } else {
            Default::default()
        },
        reason: resp.reason,
        status: resp.status,
        // The URL that answered: after redirects, the last one (k6's `url`).
        url: resp.url.unwrap_or_else(|| meta.url.clone()),
        req_method: Method::from_bytes(meta.method.as_bytes()).unwrap_or(Method::GET),
        req_url,
        req_headers: resp.request_headers,
        req_body: resp.request_body,
        error,
        error_code,
        headers: resp.headers,
        body: resp.body,
        response_type: meta.response_type,
        timings: [
            t.blocked,
            t.connecting,
            t.tls_handshaking,
            t.sending,
            t.waiting,
            t.receiving,
            t.duration,
        ],
        body_read: Cell::new(false),
    });
    make_response(ctx, data)
}

/// A native response object holding `data` (freed with the object).
fn make_response<'js>(ctx: &Ctx<'js>, data: Box<RespData>) -> rquickjs::Result<Value<'js>> {
    let id = RESP_CLASS.with(Cell::get);
    if id == 0 {
        return Err(throw(ctx, "internal error: no Response class"));
    }
    // SAFETY: `id` is registered in this runtime; the new object (owned by
    // `v` from here) takes the box, which its finalizer frees.
    unsafe {
        let raw = qjs::JS_NewObjectClass(ctx.as_raw().as_ptr(), id);
        if qjs::JS_IsException(raw) {
            return Err(rquickjs::Error::Exception);
        }
        let v = Value::from_raw(ctx.clone(), raw);
        qjs::JS_SetOpaque(raw, Box::into_raw(data).cast());
        Ok(v)
    }
}

pub(crate) fn canonical(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut up = true;
    for c in name.chars() {
        if up {
            out.extend(c.to_uppercase());
        } else {
            out.extend(c.to_lowercase());
        }
        up = c == '-';
    }
    out
}

/// How `console.log` shows a value: strings as they are, objects as JSON.
fn display<'js>(ctx: &Ctx<'js>, v: &Value<'js>) -> String {
    if let Some(s) = v.as_string() {
        return s.to_string().unwrap_or_default();
    }
    if v.is_undefined() {
        return "undefined".into();
    }
    if v.is_null() {
        return "null".into();
    }
    if v.is_function() {
        return "[object Function]".into();
    }
    let coerced = |v: &Value<'js>| {
        v.get::<rquickjs::convert::Coerced<String>>()
            .map(|c| c.0)
            .ok()
    };
    if v.as_exception().is_some() {
        // `Error: message`, as String(e).
        return coerced(v).unwrap_or_else(|| "Error".into());
    }
    if v.is_object() {
        // As k6 prints objects: `{ a: 1, b: [ 2 ] }`.
        let mut out = String::new();
        inspect(ctx, v, &mut out, 0);
        return out;
    }
    coerced(v).unwrap_or_else(|| format!("{v:?}"))
}

/// A value inside an object as k6's console shows it: `{ a: 1, b: "x" }`,
/// `[ 1, 2 ]`, keys bare, `undefined` as `null`;
/// an object with `toJSON` (a Date, a response) as its JSON.
fn inspect<'js>(ctx: &Ctx<'js>, v: &Value<'js>, out: &mut String, depth: usize) {
    let quote = |s: &str, out: &mut String| {
        out.push_str(&serde_json::to_string(s).unwrap_or_default());
    };
    if depth > 32 {
        out.push_str("null");
    } else if let Some(s) = v.as_string() {
        quote(&s.to_string().unwrap_or_default(), out);
    } else if v.is_undefined() || v.is_null() || v.is_function() {
        out.push_str("null");
    } else if let Some(a) = v.as_array() {
        if a.is_empty() {
            out.push_str("[]");
            return;
        }
        out.push_str("[ ");
        for (i, e) in a.iter::<Value>().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            match e {
                Ok(e) => inspect(ctx, &e, out, depth + 1),
                Err(_) => out.push_str("null"),
            }
        }
        out.push_str(" ]");
    } else if let Some(o) = v.as_object() {
        if o.get::<_, Value>("toJSON").is_ok_and(|f| f.is_function()) {
            let json = ctx
                .json_stringify(v.clone())
                .ok()
                .flatten()
                .and_then(|s| s.to_string().ok())
                .and_then(|s| ctx.json_parse(s).ok());
            // Parsed JSON holds no functions: no `toJSON` again below.
            match json {
                Some(j) => inspect(ctx, &j, out, depth + 1),
                None => out.push_str("null"),
            }
            return;
        }
        let props: Vec<(String, Value)> = o.props::<String, Value>().flatten().collect();
        if props.is_empty() {
            out.push_str("{}");
            return;
        }
        out.push_str("{ ");
        for (i, (k, e)) in props.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            // Keys bare, whatever they hold, as k6 prints them.
            out.push_str(k);
            out.push_str(": ");
            inspect(ctx, e, out, depth + 1);
        }
        out.push_str(" }");
    } else {
        out.push_str(
            &v.get::<rquickjs::convert::Coerced<String>>()
                .map(|c| c.0)
                .unwrap_or_default(),
        );
    }
}
