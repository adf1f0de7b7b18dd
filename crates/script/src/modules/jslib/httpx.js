// jslib's httpx (https://jslib.k6.io/httpx/<version>/index.js), written for
// loadlab from the module's documented behaviour: a session over k6/http
// with a base URL, headers, tags and other params every request shares,
// an optional error metric, and request objects for batches.
import http from 'k6/http';

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'CONNECT', 'OPTIONS', 'TRACE', 'PATCH'];

// http.url`…${id}…`: its URL and its name (k6's own object has them as
// `url` and `name`; loadlab's keeps them apart).
const templated = (u) => u !== null && typeof u === 'object' && ('__k6url' in u || ('name' in u && 'url' in u && 'clean_url' in u));
const urlOf = (u) => ('__k6url' in u ? u.__k6url : u.url);
const nameOf = (u) => ('__k6name' in u ? u.__k6name : u.name);

// Two sets of params, the second's over the first's, headers and tags
// merged key by key.
function merge(a, b) {
  a = a || {};
  b = b || {};
  const out = Object.assign({}, a, b);
  out.headers = Object.assign({}, a.headers || {}, b.headers || {});
  out.tags = Object.assign({}, a.tags || {}, b.tags || {});
  return out;
}

export class Request {
  constructor(method, url, params) {
    params = params || {};
    this.method = method;
    this.url = url;
    this.body = params.body || null;
    delete params.body;
    this.params = params;
    if (templated(url)) {
      this.url = urlOf(url);
      this.addTag('name', nameOf(url));
    }
  }

  addHeader(name, value) {
    this.params.headers = Object.assign({}, this.params.headers, { [name]: value });
    return this;
  }

  addTag(name, value) {
    this.params.tags = Object.assign({}, this.params.tags, { [name]: value });
    return this;
  }
}

export class Get extends Request { constructor(url, params) { super('GET', url, params); } }
export class Head extends Request { constructor(url, params) { super('HEAD', url, params); } }
export class Post extends Request { constructor(url, params) { super('POST', url, params); } }
export class Put extends Request { constructor(url, params) { super('PUT', url, params); } }
export class Delete extends Request { constructor(url, params) { super('DELETE', url, params); } }
export class Connect extends Request { constructor(url, params) { super('CONNECT', url, params); } }
export class Options extends Request { constructor(url, params) { super('OPTIONS', url, params); } }
export class Trace extends Request { constructor(url, params) { super('TRACE', url, params); } }
export class Patch extends Request { constructor(url, params) { super('PATCH', url, params); } }

export class Httpx {
  constructor(opts = {}) {
    const {
      baseURL = '',
      errorMetricCondition = (r) => r.status >= 200 && r.status <= 399,
      errorMetric = null,
      headers = {},
      tags = {},
    } = opts;
    // The other options are k6/http params every request gets.
    const rest = Object.assign({}, opts);
    for (const k of ['baseURL', 'errorMetricCondition', 'headers', 'tags', 'errorMetric']) delete rest[k];
    this.k6params = Object.assign({ headers, tags }, rest);
    this.baseURL = baseURL;
    this.lastRequest = { responseObject: null, responseChainDuration: null };
    this.errorMetric = errorMetric;
    this.errorMetricCondition = errorMetricCondition;
  }

  postRequestHook(response, params, start, end) {
    if (this.errorMetric) {
      const ok = (params.expect || this.errorMetricCondition)(response);
      this.errorMetric.add(!ok);
    }
    this.lastRequest.responseObject = response;
    this.lastRequest.responseChainDuration = end - start;
  }

  get lastRequestChainDuration() { return this.lastRequest.responseChainDuration; }

  setBaseUrl(baseURL) { this.baseURL = baseURL; }

  addHeaders(headers) { this.k6params.headers = Object.assign(this.k6params.headers, headers); }

  addHeader(name, value) { this.k6params.headers = Object.assign(this.k6params.headers, { [name]: value }); }

  addTags(tags) { this.k6params.tags = Object.assign(this.k6params.tags, tags); }

  addTag(name, value) { this.k6params.tags = Object.assign(this.k6params.tags, { [name]: value }); }

  clearTag(name) { delete this.k6params.tags[name]; }

  clearHeader(name) { delete this.k6params.headers[name]; }

  _merge_params(a, b) { return merge(a, b); }

  _getMergedSessionParams(params) { return merge(this.k6params, params); }

  execute(r) { return this.request(r.method, r.url, r.body, r.params); }

  validateMethod(method) {
    if (!METHODS.includes(method)) throw new Error(`Invalid method: ${method}. Expected one of ${METHODS}`);
  }

  // The session's params under the request's, the URL after the base
  // unless it is absolute (starts with "http").
  _prepare(what, args) {
    if (args.length < 2) throw new Error(`Invalid number of arguments for ${what}(). Provide at least Method and URL.`);
    let [method, url, , params] = args;
    this.validateMethod(method);
    params = this._getMergedSessionParams(params);
    if (templated(url)) {
      params.tags.name = nameOf(url);
      url = urlOf(url);
    }
    if (!url.startsWith('http')) url = this.baseURL + url;
    return [url, params];
  }

  request(method, url, body, params) {
    const [u, p] = this._prepare('request', arguments);
    const start = new Date();
    const resp = http.request(method, u, body, p);
    const end = new Date();
    this.postRequestHook(resp, p, start, end);
    return resp;
  }

  asyncRequest(method, url, body, params) {
    const [u, p] = this._prepare('asyncRequest', arguments);
    return http.asyncRequest(method, u, body, p);
  }

  get(url, body, params) { return this.request('GET', url, body, params); }
  head(url, body, params) { return this.request('HEAD', url, body, params); }
  post(url, body, params) { return this.request('POST', url, body, params); }
  put(url, body, params) { return this.request('PUT', url, body, params); }
  delete(url, body, params) { return this.request('DELETE', url, body, params); }
  connect(url, body, params) { return this.request('CONNECT', url, body, params); }
  options(url, body, params) { return this.request('OPTIONS', url, body, params); }
  trace(url, body, params) { return this.request('TRACE', url, body, params); }
  patch(url, body, params) { return this.request('PATCH', url, body, params); }
  asyncGet(url, body, params) { return this.asyncRequest('GET', url, body, params); }
  asyncHead(url, body, params) { return this.asyncRequest('HEAD', url, body, params); }
  asyncPost(url, body, params) { return this.asyncRequest('POST', url, body, params); }
  asyncPut(url, body, params) { return this.asyncRequest('PUT', url, body, params); }
  asyncDelete(url, body, params) { return this.asyncRequest('DELETE', url, body, params); }
  asyncConnect(url, body, params) { return this.asyncRequest('CONNECT', url, body, params); }
  asyncOptions(url, body, params) { return this.asyncRequest('OPTIONS', url, body, params); }
  asyncTrace(url, body, params) { return this.asyncRequest('TRACE', url, body, params); }
  asyncPatch(url, body, params) { return this.asyncRequest('PATCH', url, body, params); }

  // Arrays `[method, url, body, params]` or Request objects, each URL
  // after the base, sent with http.batch.
  batch(requests, shared) {
    const all = [];
    for (const e of requests) {
      if (Array.isArray(e)) {
        all.push([e[0], this.baseURL + e[1], e[2] || null, this._getMergedSessionParams(merge(shared, e[3]))]);
      } else if (e instanceof Request) {
        all.push([e.method, this.baseURL + e.url, e.body, this._getMergedSessionParams(merge(shared, e.params))]);
      }
    }
    const start = new Date();
    const resp = http.batch(all);
    const end = new Date();
    this.lastRequest.responseObject = resp;
    this.lastRequest.responseChainDuration = end - start;
    return resp;
  }
}
