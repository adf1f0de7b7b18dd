
const k = globalThis.__k6;
let gjson;
// Response objects are made natively and filled in when read (see
// `response_object` in response.rs); this is their prototype.
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
// The methods are natives (http/mod.rs), exported as they are.
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
// Sent when the VU's event loop next turns (see timers/global.fn.js).
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
