// jslib's url module (https://jslib.k6.io/url/1.0.0/index.js), written
// for loadlab: the URL Standard's `URL` and `URLSearchParams` (WHATWG URL
// parsing and setters done natively, jslib/url.rs).

const k = globalThis.__k6;
// Each object's state: a URL's `href` and its search params; a
// URLSearchParams's pairs and the URL it belongs to.
const state = new WeakMap();

function pairsOf(init) {
  if (init === undefined || init === null) return [];
  if (init instanceof URLSearchParams) return state.get(init).list.map(([a, b]) => [a, b]);
  if (typeof init === 'object') {
    if (typeof init[Symbol.iterator] === 'function') {
      return Array.from(init, (pair) => {
        const p = Array.from(pair);
        if (p.length !== 2) throw new TypeError('Each query pair must be an iterable [name, value] tuple');
        return [String(p[0]), String(p[1])];
      });
    }
    return Object.keys(init).map((key) => [key, String(init[key])]);
  }
  const s = String(init);
  return k.formParse(s.startsWith('?') ? s.slice(1) : s);
}

export class URLSearchParams {
  constructor(init) {
    state.set(this, { list: pairsOf(init), url: null });
  }

  get size() { return state.get(this).list.length; }

  append(name, value) {
    state.get(this).list.push([String(name), String(value)]);
    changed(this);
  }

  delete(name, value) {
    const st = state.get(this);
    name = String(name);
    st.list = st.list.filter(([n, v]) => n !== name || (value !== undefined && v !== String(value)));
    changed(this);
  }

  get(name) {
    const hit = state.get(this).list.find(([n]) => n === String(name));
    return hit === undefined ? null : hit[1];
  }

  getAll(name) {
    return state.get(this).list.filter(([n]) => n === String(name)).map(([, v]) => v);
  }

  has(name, value) {
    return state.get(this).list.some(([n, v]) => n === String(name) && (value === undefined || v === String(value)));
  }

  set(name, value) {
    const st = state.get(this);
    name = String(name);
    const i = st.list.findIndex(([n]) => n === name);
    if (i < 0) st.list.push([name, String(value)]);
    else st.list = st.list.filter(([n], j) => n !== name || j === i).map((p, j) => (j === i ? [name, String(value)] : p));
    changed(this);
  }

  sort() {
    // Stable, by the names' UTF-16 code units.
    state.get(this).list.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    changed(this);
  }

  forEach(callback, thisArg) {
    for (const [n, v] of state.get(this).list.slice()) callback.call(thisArg, v, n, this);
  }

  * entries() { for (const [n, v] of state.get(this).list.slice()) yield [n, v]; }

  * keys() { for (const [n] of state.get(this).list.slice()) yield n; }

  * values() { for (const [, v] of state.get(this).list.slice()) yield v; }

  [Symbol.iterator]() { return this.entries(); }

  toString() { return k.formSerialize(state.get(this).list); }
}

// A URL's search follows its params.
function changed(params) {
  const url = state.get(params).url;
  if (url === null) return;
  const query = params.toString();
  const st = state.get(url);
  st.href = k.urlSet(st.href, 'search', query);
  if (query === '') st.href = st.href.replace(/\?(?=#|$)/, '');
}

function reparse(url) {
  const st = state.get(url);
  state.get(st.params).list = k.formParse(k.urlGet(st.href, 'search').slice(1));
}

export class URL {
  constructor(url, base) {
    const href = k.urlParse(String(url), base === undefined ? undefined : String(base));
    if (href === undefined) throw new TypeError(`Invalid URL: ${url}`);
    const params = new URLSearchParams();
    state.set(this, { href, params });
    state.get(params).url = this;
    reparse(this);
  }

  static canParse(url, base) {
    return k.urlParse(String(url), base === undefined ? undefined : String(base)) !== undefined;
  }

  get href() { return state.get(this).href; }

  set href(value) {
    const href = k.urlParse(String(value));
    if (href === undefined) throw new TypeError(`Invalid URL: ${value}`);
    state.get(this).href = href;
    reparse(this);
  }

  get origin() { return k.urlGet(state.get(this).href, 'origin'); }

  get searchParams() { return state.get(this).params; }

  toString() { return state.get(this).href; }

  toJSON() { return state.get(this).href; }
}

for (const part of ['protocol', 'username', 'password', 'host', 'hostname', 'port', 'pathname', 'search', 'hash']) {
  Object.defineProperty(URL.prototype, part, {
    get() { return k.urlGet(state.get(this).href, part); },
    set(value) {
      const st = state.get(this);
      st.href = k.urlSet(st.href, part, String(value));
      if (part === 'search') reparse(this);
    },
    enumerable: true,
    configurable: true,
  });
}
