
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
