// jslib's k6chaijs (https://jslib.k6.io/k6chaijs/<version>/index.js), written
// for loadlab from the module's documented behaviour: Chai's BDD `expect`
// (language chains, the not/deep/nested/own/ordered/any/all/itself flags and
// the assertions of Chai 4: a/an, include, ok, true, false, null, undefined,
// NaN, exist, empty, arguments, equal, eql, above/least/below/most and their
// aliases, within, instanceof, property, ownProperty, ownPropertyDescriptor,
// length/lengthOf with their comparison chains, match, string, keys, throw,
// respondTo, satisfy, closeTo, members, oneOf, change/increase/decrease/by,
// extensible, sealed, frozen, finite, expect.fail), Chai's value inspection
// and truncation in its messages, `chai.use`/`addMethod`/`addProperty`/
// `addChainableMethod`/`overwrite…` for plugins, `chai.should()`, a plain
// `chai.assert(expression, message)`, the "Invalid Chai property" guard; and
// k6chaijs's part: every assertion is a k6 check (named by its message with
// `${this}`/`${actual}` left in while `chai.config.aggregateChecks` is on, the
// default), `describe(name, fn)` as a group that catches assertion errors and
// returns whether the body passed, `validJsonBody()`, `anonymize()`, and the
// `chai.config` options truncateVariableThreshold, aggregateChecks,
// logFailures (console.warn) and exitOnError (aborts the test).
// Left out: Chai's `assert` interface beyond the bare `chai.assert(…)`,
// `should`'s own helpers other than fail/equal/exist/Throw, and the
// `length` guard on methods. Besides `describe`, `expect` and the default
// export (chai), `chai` is exported by name as 4.3.4.0/4.3.4.1 did, and
// `createChai` makes a separate Chai (loadlab's expect jslib uses it).
import { check, group } from 'k6';
import exec from 'k6/execution';

// ---------------------------------------------------------------------------
// Types, as Chai's type detection names them.

const ITER_PROTOS = (() => {
  const p = (it) => Object.getPrototypeOf(it);
  return {
    map: p(new Map().entries()),
    set: p(new Set().entries()),
    array: p([][Symbol.iterator]()),
    string: p(''[Symbol.iterator]()),
  };
})();

function typeName(v) {
  const t = typeof v;
  if (t !== 'object') return t;
  if (v === null) return 'null';
  if (v === globalThis) return 'global';
  if (Array.isArray(v) && !(Symbol.toStringTag in v)) return 'Array';
  const tag = v[Symbol.toStringTag];
  if (typeof tag === 'string') return tag;
  const proto = Object.getPrototypeOf(v);
  switch (proto) {
    case RegExp.prototype: return 'RegExp';
    case Date.prototype: return 'Date';
    case Promise.prototype: return 'Promise';
    case Set.prototype: return 'Set';
    case Map.prototype: return 'Map';
    case WeakSet.prototype: return 'WeakSet';
    case WeakMap.prototype: return 'WeakMap';
    case DataView.prototype: return 'DataView';
    case ITER_PROTOS.map: return 'Map Iterator';
    case ITER_PROTOS.set: return 'Set Iterator';
    case ITER_PROTOS.array: return 'Array Iterator';
    case ITER_PROTOS.string: return 'String Iterator';
    case null: return 'Object';
    default: return Object.prototype.toString.call(v).slice(8, -1);
  }
}

const isPrimitive = (v) => v === null || typeof v !== 'object';
const fnName = (f) => (typeof f === 'function' ? f.name : null);

// ---------------------------------------------------------------------------
// Deep equality, as Chai's `eql` decides it.

function sameValue(a, b) {
  if (a === b) return a !== 0 || 1 / a === 1 / b;
  if (a !== a && b !== b) return true; // both NaN
  if (isPrimitive(a) || isPrimitive(b)) return false;
  return null;
}

function deepEqual(a, b, seen) {
  const simple = sameValue(a, b);
  if (simple !== null) return simple;
  seen = seen || new Map();
  const known = (x, y) => seen.has(x) && seen.get(x).has(y) ? seen.get(x).get(y) : null;
  let memo = known(a, b);
  if (memo === null) memo = known(b, a);
  if (memo !== null) return memo;
  const remember = (r) => {
    if (!seen.has(a)) seen.set(a, new Map());
    seen.get(a).set(b, r);
    return r;
  };
  const type = typeName(a);
  if (type !== typeName(b)) return remember(false);
  remember(true);
  return remember(equalByType(a, b, type, seen));
}

function listsEqual(a, b, seen) {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (deepEqual(a[i], b[i], seen) === false) return false;
  return true;
}

function drain(it) {
  const out = [];
  let step;
  do { step = it.next(); out.push(step.value); } while (step.done === false);
  return out;
}

function equalByType(a, b, type, seen) {
  switch (type) {
    case 'String': case 'Number': case 'Boolean': case 'Date':
      return deepEqual(a.valueOf(), b.valueOf());
    case 'Promise': case 'Symbol': case 'function': case 'WeakMap': case 'WeakSet':
      return a === b;
    case 'Error':
      return ['name', 'message', 'code'].every((k) => deepEqual(a[k], b[k], seen) !== false);
    case 'Arguments': case 'Array': case 'Int8Array': case 'Uint8Array': case 'Uint8ClampedArray':
    case 'Int16Array': case 'Uint16Array': case 'Int32Array': case 'Uint32Array':
    case 'Float32Array': case 'Float64Array':
      return listsEqual(a, b, seen);
    case 'RegExp':
      return String(a) === String(b);
    case 'Generator':
      return listsEqual(drain(a), drain(b), seen);
    case 'DataView':
      return listsEqual(new Uint8Array(a.buffer), new Uint8Array(b.buffer), seen);
    case 'ArrayBuffer':
      return listsEqual(new Uint8Array(a), new Uint8Array(b), seen);
    case 'Set': case 'Map': {
      try {
        if (a.size !== b.size) return false;
        if (a.size === 0) return true;
      } catch (e) {
        return false;
      }
      const pairs = (c) => { const out = []; c.forEach((x, y) => out.push([x, y])); return out.sort(); };
      return listsEqual(pairs(a), pairs(b), seen);
    }
    default:
      return objectsEqual(a, b, seen);
  }
}

function enumerableKeys(o) {
  const keys = [];
  for (const k in o) keys.push(k);
  for (const s of Object.getOwnPropertySymbols(o)) {
    if (Object.getOwnPropertyDescriptor(o, s).enumerable) keys.push(s);
  }
  return keys;
}

function iterated(o) {
  if (typeof o === 'object' && typeof o[Symbol.iterator] === 'function') {
    try { return drain(o[Symbol.iterator]()); } catch (e) { return []; }
  }
  return [];
}

function objectsEqual(a, b, seen) {
  const ka = enumerableKeys(a);
  const kb = enumerableKeys(b);
  if (ka.length && ka.length === kb.length) {
    const names = (ks) => ks.map((k) => (typeof k === 'symbol' ? k.toString() : k)).sort();
    if (listsEqual(names(ka), names(kb)) === false) return false;
    return ka.every((k) => deepEqual(a[k], b[k], seen) !== false);
  }
  const ea = iterated(a);
  const eb = iterated(b);
  if (ea.length && ea.length === eb.length) return listsEqual(ea.sort(), eb.sort(), seen);
  return ka.length === 0 && ea.length === 0 && kb.length === 0 && eb.length === 0;
}

const eql = (a, b) => deepEqual(a, b);

// ---------------------------------------------------------------------------
// Inspection: how Chai 4 (loupe) prints a value in its messages.

const ELLIPSIS = '\u2026';
const CHAI_INSPECT = Symbol.for('chai/inspect');

function cut(value, room, tail = ELLIPSIS) {
  const s = String(value);
  if (tail.length > room && s.length > tail.length) return tail;
  if (s.length > room && s.length > tail.length) return s.slice(0, room - tail.length) + tail;
  return s;
}

// Items joined by `sep` within opts.truncate characters; what does not fit
// becomes "…(n)", n the items left out.
function joinList(items, opts, show, sep = ', ') {
  show = show || inspectIn;
  const total = items.length;
  if (total === 0) return '';
  const room = opts.truncate;
  let out = '';
  let next = '';
  let rest = '';
  for (let i = 0; i < total; i++) {
    const last = i === total - 1;
    const beforeLast = i === total - 2;
    rest = `${ELLIPSIS}(${total - i})`;
    opts.truncate = room - out.length - (last ? 0 : sep.length);
    const piece = next || show(items[i], opts) + (last ? '' : sep);
    const upTo = out.length + piece.length;
    const withRest = upTo + rest.length;
    if (last && upTo > room && out.length + rest.length <= room) break;
    if (!last && !beforeLast && withRest > room) break;
    next = last ? '' : show(items[i + 1], opts) + (beforeLast ? '' : sep);
    if (!last && beforeLast && withRest > room && upTo + next.length > room) break;
    out += piece;
    if (!last && !beforeLast && upTo + next.length >= room) {
      rest = `${ELLIPSIS}(${total - i - 1})`;
      break;
    }
    rest = '';
  }
  return out + rest;
}

function keyText(key) {
  if (/^[a-zA-Z_][a-zA-Z_0-9]*$/.test(key)) return key;
  return JSON.stringify(key).replace(/'/g, "\\'").replace(/\\"/g, '"').replace(/(^"|"$)/g, "'");
}

function showProperty([key, value], opts) {
  opts.truncate -= 2;
  if (typeof key === 'string') key = keyText(key);
  else if (typeof key !== 'number') key = `[${inspectIn(key, opts)}]`;
  opts.truncate -= key.length;
  return `${key}: ${inspectIn(value, opts)}`;
}

const ESCAPED = /['\u0000-\u001f\u007f-\u009f\u00ad\u0600-\u0604\u070f\u17b4\u17b5\u200c-\u200f\u2028-\u202f\u2060-\u206f\ufeff\ufff0-\uffff]/g;
const ESCAPES = { '\b': '\\b', '\t': '\\t', '\n': '\\n', '\f': '\\f', '\r': '\\r', "'": "\\'", '\\': '\\\\' };

function showString(s, opts) {
  s = s.replace(ESCAPED, (c) => ESCAPES[c] || `\\u${`0000${c.charCodeAt(0).toString(16)}`.slice(-4)}`);
  return `'${cut(s, opts.truncate - 2)}'`;
}

function showNumber(n, opts) {
  if (n !== n) return 'NaN';
  if (n === Infinity) return 'Infinity';
  if (n === -Infinity) return '-Infinity';
  if (n === 0) return 1 / n === Infinity ? '+0' : '-0';
  return cut(n, opts.truncate);
}

function showBigInt(n, opts) {
  const s = cut(n.toString(), opts.truncate - 1);
  return s === ELLIPSIS ? s : `${s}n`;
}

function showFunction(f, opts) {
  const name = fnName(f);
  return name ? `[Function ${cut(name, opts.truncate - 11)}]` : '[Function]';
}

function showSymbol(s) {
  return s.description ? `Symbol(${s.description})` : 'Symbol()';
}

function showArray(a, opts) {
  const extra = Object.keys(a).slice(a.length);
  if (!a.length && !extra.length) return '[]';
  opts.truncate -= 4;
  const items = joinList(a, opts);
  opts.truncate -= items.length;
  const props = extra.length ? joinList(extra.map((k) => [k, a[k]]), opts, showProperty) : '';
  return `[ ${items}${props ? `, ${props}` : ''} ]`;
}

function showTypedArray(a, opts) {
  const name = a[Symbol.toStringTag] || fnName(a.constructor);
  opts.truncate -= name.length + 4;
  const extra = Object.keys(a).slice(a.length);
  if (!a.length && !extra.length) return `${name}[]`;
  let out = '';
  for (let i = 0; i < a.length; i++) {
    const piece = `${cut(a[i], opts.truncate)}${i === a.length - 1 ? '' : ', '}`;
    opts.truncate -= piece.length;
    if (a[i] !== a.length && opts.truncate <= 3) {
      out += `${ELLIPSIS}(${a.length - a[i] + 1})`;
      break;
    }
    out += piece;
  }
  const props = extra.length ? joinList(extra.map((k) => [k, a[k]]), opts, showProperty) : '';
  return `${name}[ ${out}${props ? `, ${props}` : ''} ]`;
}

function showDate(d, opts) {
  const iso = d.toJSON();
  if (iso === null) return 'Invalid Date';
  const [day, time] = iso.split('T');
  return `${day}T${cut(time, opts.truncate - day.length - 1)}`;
}

function showMap(m, opts) {
  // (Chai prints a Map of one entry as an empty one.)
  if (m.size - 1 <= 0) return 'Map{}';
  opts.truncate -= 7;
  const entries = [];
  m.forEach((v, k) => entries.push([k, v]));
  const entry = ([k, v], o) => {
    o.truncate -= 4;
    const ks = inspectIn(k, o);
    o.truncate -= ks.length;
    return `${ks} => ${inspectIn(v, o)}`;
  };
  return `Map{ ${joinList(entries, opts, entry)} }`;
}

function showSet(s, opts) {
  if (s.size === 0) return 'Set{}';
  opts.truncate -= 7;
  const values = [];
  s.forEach((v) => values.push(v));
  return `Set{ ${joinList(values, opts)} }`;
}

function showRegExp(r, opts) {
  const flags = String(r).split('/')[2];
  return `/${cut(r.source, opts.truncate - (2 + flags.length))}/${flags}`;
}

function showArguments(a, opts) {
  if (a.length === 0) return 'Arguments[]';
  opts.truncate -= 13;
  return `Arguments[ ${joinList(a, opts)} ]`;
}

const ERROR_KEYS = ['stack', 'line', 'column', 'name', 'message', 'fileName', 'lineNumber', 'columnNumber', 'number', 'description'];

function showError(e, opts) {
  const props = Object.getOwnPropertyNames(e).filter((k) => ERROR_KEYS.indexOf(k) === -1);
  const name = e.name;
  opts.truncate -= name.length;
  let message = '';
  if (typeof e.message === 'string') message = cut(e.message, opts.truncate);
  else props.unshift('message');
  message = message ? `: ${message}` : '';
  opts.truncate -= message.length + 5;
  const body = joinList(props.map((k) => [k, e[k]]), opts, showProperty);
  return `${name}${message}${body ? ` { ${body} }` : ''}`;
}

function showObject(o, opts) {
  const names = Object.getOwnPropertyNames(o);
  const symbols = Object.getOwnPropertySymbols(o);
  if (names.length === 0 && symbols.length === 0) return '{}';
  opts.truncate -= 4;
  opts.seen = opts.seen || [];
  if (opts.seen.indexOf(o) >= 0) return '[Circular]';
  opts.seen.push(o);
  const a = joinList(names.map((k) => [k, o[k]]), opts, showProperty);
  const b = joinList(symbols.map((k) => [k, o[k]]), opts, showProperty);
  opts.seen.pop();
  return `{ ${a}${a && b ? ', ' : ''}${b} }`;
}

function showInstance(o, opts) {
  let name = Symbol.toStringTag in o ? o[Symbol.toStringTag] : '';
  name = name || fnName(o.constructor);
  if (!name || name === '_class') name = '<Anonymous Class>';
  opts.truncate -= name.length;
  return `${name}${showObject(o, opts)}`;
}

const TYPED = ['Int8Array', 'Uint8Array', 'Uint8ClampedArray', 'Int16Array', 'Uint16Array', 'Int32Array', 'Uint32Array', 'Float32Array', 'Float64Array'];

const BY_TYPE = {
  undefined: () => 'undefined',
  null: () => 'null',
  boolean: (v) => String(v),
  Boolean: (v) => String(v),
  number: showNumber,
  Number: showNumber,
  bigint: showBigInt,
  BigInt: showBigInt,
  string: showString,
  String: showString,
  function: showFunction,
  Function: showFunction,
  symbol: showSymbol,
  Symbol: showSymbol,
  Array: showArray,
  Date: showDate,
  Map: showMap,
  Set: showSet,
  RegExp: showRegExp,
  Promise: () => 'Promise{\u2026}',
  WeakSet: () => 'WeakSet{\u2026}',
  WeakMap: () => 'WeakMap{\u2026}',
  Arguments: showArguments,
  Generator: () => '',
  DataView: () => '',
  ArrayBuffer: () => '',
  Error: showError,
};
for (const t of TYPED) BY_TYPE[t] = showTypedArray;

function inspectIn(value, opts) {
  let type = value === null ? 'null' : typeof value;
  if (type === 'object') type = Object.prototype.toString.call(value).slice(8, -1);
  if (Object.prototype.hasOwnProperty.call(BY_TYPE, type)) return BY_TYPE[type](value, opts);
  if (value) {
    let custom = '';
    if (CHAI_INSPECT in value && typeof value[CHAI_INSPECT] === 'function') custom = value[CHAI_INSPECT](opts);
    else if ('inspect' in value && typeof value.inspect === 'function') custom = value.inspect(opts.depth, opts);
    if (custom) return typeof custom === 'string' ? custom : inspectIn(custom, opts);
  }
  const proto = value ? Object.getPrototypeOf(value) : false;
  if (proto === Object.prototype || proto === null) return showObject(value, opts);
  if ('constructor' in value) {
    return value.constructor !== Object ? showInstance(value, opts) : showObject(value, opts);
  }
  if (value === Object(value)) return showObject(value, opts);
  return String(value);
}

// ---------------------------------------------------------------------------
// Error-matching helpers of `throw`.

const errors = {
  compatibleInstance: (thrown, like) => like instanceof Error && thrown === like,
  compatibleConstructor(thrown, like) {
    if (like instanceof Error) return thrown.constructor === like.constructor || thrown instanceof like.constructor;
    if (like.prototype instanceof Error || like === Error) return thrown.constructor === like || thrown instanceof like;
    return false;
  },
  compatibleMessage(thrown, matcher) {
    const text = typeof thrown === 'string' ? thrown : thrown.message;
    if (matcher instanceof RegExp) return matcher.test(text);
    if (typeof matcher === 'string') return text.indexOf(matcher) !== -1;
    return false;
  },
  getConstructorName(like) {
    if (like instanceof Error) return fnName(like.constructor);
    if (typeof like === 'function') {
      const name = fnName(like);
      if (name === '') return fnName(new like()) || name;
      return name;
    }
    return like;
  },
  getMessage(e) {
    if (e && e.message) return e.message;
    return typeof e === 'string' ? e : '';
  },
};

// ---------------------------------------------------------------------------
// Paths of `nested` properties: "a.b[1]", with "\." and "\[" escaped.

function parsePath(path) {
  const parts = path.replace(/([^\\])\[/g, '$1.[').match(/(\\\.|[^.]+?)+/g);
  return parts.map((part) => {
    if (part === 'constructor' || part === '__proto__' || part === 'prototype') return {};
    const index = /^\[(\d+)\]$/.exec(part);
    return index ? { i: parseFloat(index[1]) } : { p: part.replace(/\\([.[\]])/g, '$1') };
  });
}

function walkPath(obj, parts, upTo) {
  let cur = obj;
  let found = null;
  upTo = upTo === undefined ? parts.length : upTo;
  for (let n = 0; n < upTo; n++) {
    const part = parts[n];
    if (cur) {
      cur = part.p === undefined ? cur[part.i] : cur[part.p];
      if (n === upTo - 1) found = cur;
    }
  }
  return found;
}

const hasProperty = (obj, name) => obj !== undefined && obj !== null && name in Object(obj);

function getPathInfo(obj, path) {
  const parts = parsePath(path);
  const lastPart = parts[parts.length - 1];
  const info = {
    parent: parts.length > 1 ? walkPath(obj, parts, parts.length - 1) : obj,
    name: lastPart.p || lastPart.i,
    value: walkPath(obj, parts),
  };
  info.exists = hasProperty(info.parent, info.name);
  return info;
}

// ---------------------------------------------------------------------------
// One Chai: its Assertion, AssertionError, config, util and interfaces. The
// module's own instance reports each assertion as a k6 check (see `report`
// below); `createChai(report, makeInspect)` makes another with a different
// reporter and, given makeInspect(config), a different value printing (the
// expect jslib's Chai is made so).

const CHAINS = ['to', 'be', 'been', 'is', 'and', 'has', 'have', 'with', 'that', 'which', 'at', 'of', 'same', 'but', 'does', 'still', 'also'];
const BUILTINS = ['__flags', '__methods', '_obj', 'assert'];

function distance(a, b, cap) {
  if (Math.abs(a.length - b.length) >= cap) return cap;
  const d = [];
  for (let i = 0; i <= a.length; i++) { d[i] = Array(b.length + 1).fill(0); d[i][0] = i; }
  for (let j = 0; j < b.length; j++) d[0][j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      if (Math.abs(i - j) >= cap) { d[i][j] = cap; continue; }
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1));
    }
  }
  return d[a.length][b.length];
}

function allProperties(o) {
  const names = [];
  for (let p = o; p !== null; p = Object.getPrototypeOf(p)) {
    for (const n of Object.getOwnPropertyNames(p)) if (names.indexOf(n) === -1) names.push(n);
  }
  return names;
}

export function createChai(report, makeInspect) {
  const config = {
    includeStack: false,
    showDiff: true,
    truncateThreshold: 40,
    useProxy: true,
    proxyExcludedKeys: ['then', 'catch', 'inspect', 'toJSON'],
  };

  class AssertionError extends Error {
    constructor(message, props) {
      super(message || 'Unspecified AssertionError');
      this.showDiff = false;
      const skip = ['name', 'message', 'stack', 'constructor', 'toJSON'];
      for (const k of Object.keys(props || {})) if (skip.indexOf(k) === -1) this[k] = props[k];
    }
    toJSON(stack) {
      const out = { name: this.name };
      for (const k of Object.keys(this)) if (['constructor', 'toJSON', 'stack'].indexOf(k) === -1) out[k] = this[k];
      if (stack !== false && this.stack) out.stack = this.stack;
      return out;
    }
  }
  Object.defineProperty(AssertionError.prototype, 'name', { value: 'AssertionError', writable: true, configurable: true });

  function flagOf(obj, key, value) {
    const flags = obj.__flags || (obj.__flags = Object.create(null));
    if (arguments.length === 3) flags[key] = value;
    else return flags[key];
  }

  function transferFlags(from, to, includeAll) {
    const flags = from.__flags || (from.__flags = Object.create(null));
    if (!to.__flags) to.__flags = Object.create(null);
    includeAll = arguments.length === 3 ? includeAll : true;
    for (const k in flags) {
      if (includeAll || (k !== 'object' && k !== 'ssfi' && k !== 'lockSsfi' && k !== 'message')) to.__flags[k] = flags[k];
    }
  }

  const inspect = makeInspect ? makeInspect(config) : (obj) => inspectIn(obj, {
    truncate: config.truncateThreshold ? config.truncateThreshold : Infinity,
    seen: [],
    depth: 2,
  });

  function objDisplay(obj) {
    const str = inspect(obj);
    const type = Object.prototype.toString.call(obj);
    if (!config.truncateThreshold || str.length < config.truncateThreshold) return str;
    if (type === '[object Function]') return !obj.name ? '[Function]' : `[Function: ${obj.name}]`;
    if (type === '[object Array]') return `[ Array(${obj.length}) ]`;
    if (type === '[object Object]') {
      const keys = Object.keys(obj);
      const shown = keys.length > 2 ? `${keys.splice(0, 2).join(', ')}, ...` : keys.join(', ');
      return `{ Object (${shown}) }`;
    }
    return str;
  }

  const test = (obj, args) => (flagOf(obj, 'negate') ? !args[0] : args[0]);
  const getActual = (obj, args) => (args.length > 4 ? args[4] : obj._obj);

  function getMessage(obj, args) {
    const val = flagOf(obj, 'object');
    const expected = args[3];
    const actual = getActual(obj, args);
    let msg = flagOf(obj, 'negate') ? args[2] : args[1];
    const flagMsg = flagOf(obj, 'message');
    if (typeof msg === 'function') msg = msg();
    msg = (msg || '')
      .replace(/#\{this\}/g, () => objDisplay(val))
      .replace(/#\{act\}/g, () => objDisplay(actual))
      .replace(/#\{exp\}/g, () => objDisplay(expected));
    return flagMsg ? `${flagMsg}: ${msg}` : msg;
  }

  function getOperator(obj, args) {
    const operator = flagOf(obj, 'operator');
    if (operator) return operator;
    let msg = flagOf(obj, 'negate') ? args[2] : args[1];
    if (typeof msg === 'function') msg = msg();
    msg = msg || '';
    if (!msg || /\shave\s/.test(msg)) return undefined;
    const objecty = ['Array', 'Object', 'function'].indexOf(typeName(args[3])) !== -1;
    if (/\snot\s/.test(msg)) return objecty ? 'notDeepStrictEqual' : 'notStrictEqual';
    return objecty ? 'deepStrictEqual' : 'strictEqual';
  }

  // A misspelt chain is an error naming the nearest known one.
  function proxify(target, methodName) {
    if (!config.useProxy || typeof Proxy === 'undefined') return target;
    return new Proxy(target, {
      get(t, prop) {
        if (typeof prop === 'string' && config.proxyExcludedKeys.indexOf(prop) === -1 && !Reflect.has(t, prop)) {
          if (methodName) {
            throw Error(`Invalid Chai property: ${methodName}.${prop}. See docs for proper usage of "${methodName}".`);
          }
          let best = null;
          let bestDistance = 4;
          for (const name of allProperties(t)) {
            if (Object.prototype.hasOwnProperty.call(Object.prototype, name) || BUILTINS.indexOf(name) !== -1) continue;
            const d = distance(prop, name, bestDistance);
            if (d < bestDistance) { best = name; bestDistance = d; }
          }
          throw Error(best !== null ? `Invalid Chai property: ${prop}. Did you mean "${best}"?` : `Invalid Chai property: ${prop}`);
        }
        return Reflect.get(t, prop);
      },
    });
  }

  function Assertion(obj, msg, ssfi, lockSsfi) {
    flagOf(this, 'ssfi', ssfi || Assertion);
    flagOf(this, 'lockSsfi', lockSsfi);
    flagOf(this, 'object', obj);
    flagOf(this, 'message', msg);
    return proxify(this);
  }

  // What a step of the chain gives when its function returned nothing: a
  // fresh assertion with the same flags.
  function next(from, result) {
    if (result !== undefined) return result;
    const a = new Assertion();
    transferFlags(from, a);
    return a;
  }

  function addProperty(ctx, name, getter) {
    getter = getter === undefined ? function () {} : getter;
    Object.defineProperty(ctx, name, {
      get() { return next(this, getter.call(this)); },
      configurable: true,
    });
  }

  function addMethod(ctx, name, method) {
    ctx[name] = proxify(function () { return next(this, method.apply(this, arguments)); }, name);
  }

  function addChainableMethod(ctx, name, method, chaining) {
    if (typeof chaining !== 'function') chaining = function () {};
    if (!ctx.__methods) ctx.__methods = {};
    const behaviour = { method, chainingBehavior: chaining };
    ctx.__methods[name] = behaviour;
    Object.defineProperty(ctx, name, {
      get() {
        behaviour.chainingBehavior.call(this);
        const call = function () { return next(this, behaviour.method.apply(this, arguments)); };
        const proto = Object.create(this);
        proto.call = Function.prototype.call;
        proto.apply = Function.prototype.apply;
        Object.setPrototypeOf(call, proto);
        transferFlags(this, call);
        return proxify(call);
      },
      configurable: true,
    });
  }

  function overwriteProperty(ctx, name, getter) {
    const desc = Object.getOwnPropertyDescriptor(ctx, name);
    let _super = function () {};
    if (desc && typeof desc.get === 'function') _super = desc.get;
    Object.defineProperty(ctx, name, {
      get() {
        const result = getter(_super).call(this);
        if (result !== undefined) return result;
        return next(this, undefined);
      },
      configurable: true,
    });
  }

  function overwriteMethod(ctx, name, method) {
    const old = ctx[name];
    let _super = function () { throw new Error(`${name} is not a function`); };
    if (old && typeof old === 'function') _super = old;
    ctx[name] = proxify(function () { return next(this, method(_super).apply(this, arguments)); }, name);
  }

  function overwriteChainableMethod(ctx, name, method, chaining) {
    const behaviour = ctx.__methods[name];
    const oldChaining = behaviour.chainingBehavior;
    behaviour.chainingBehavior = function () {
      const result = chaining(oldChaining).call(this);
      return result !== undefined ? result : next(this, undefined);
    };
    const oldMethod = behaviour.method;
    behaviour.method = function () {
      const result = method(oldMethod).apply(this, arguments);
      return result !== undefined ? result : next(this, undefined);
    };
  }

  function expectTypes(obj, types) {
    let flagMsg = flagOf(obj, 'message');
    flagMsg = flagMsg ? `${flagMsg}: ` : '';
    const target = flagOf(obj, 'object');
    types = types.map((t) => t.toLowerCase()).sort();
    const list = types.map((t, i) => {
      const art = 'aeiou'.indexOf(t.charAt(0)) !== -1 ? 'an' : 'a';
      return `${types.length > 1 && i === types.length - 1 ? 'or ' : ''}${art} ${t}`;
    }).join(', ');
    const actual = typeName(target).toLowerCase();
    if (!types.some((t) => t === actual)) throw new AssertionError(`${flagMsg}object tested must be ${list}, but ${actual} given`);
  }

  const util = {
    flag: flagOf,
    test,
    type: typeName,
    getMessage,
    getActual,
    getOperator,
    inspect,
    objDisplay,
    transferFlags,
    eql,
    getPathInfo,
    getPathValue: (obj, path) => getPathInfo(obj, path).value,
    hasProperty,
    getName: fnName,
    checkError: errors,
    compareByInspect: (a, b) => (inspect(a) < inspect(b) ? -1 : 1),
    getOwnEnumerablePropertySymbols: (o) => Object.getOwnPropertySymbols(o).filter((s) => Object.getOwnPropertyDescriptor(o, s).enumerable),
    getOwnEnumerableProperties: (o) => Object.keys(o).concat(util.getOwnEnumerablePropertySymbols(o)),
    getProperties: allProperties,
    isNaN: Number.isNaN,
    isProxyEnabled: () => config.useProxy && typeof Proxy !== 'undefined',
    expectTypes,
    proxify,
    addProperty,
    addMethod,
    addChainableMethod,
    overwriteProperty,
    overwriteMethod,
    overwriteChainableMethod,
  };

  Assertion.addProperty = function (name, fn) { addProperty(this.prototype, name, fn); };
  Assertion.addMethod = function (name, fn) { addMethod(this.prototype, name, fn); };
  Assertion.addChainableMethod = function (name, fn, chaining) { addChainableMethod(this.prototype, name, fn, chaining); };
  Assertion.overwriteProperty = function (name, fn) { overwriteProperty(this.prototype, name, fn); };
  Assertion.overwriteMethod = function (name, fn) { overwriteMethod(this.prototype, name, fn); };
  Assertion.overwriteChainableMethod = function (name, fn, chaining) { overwriteChainableMethod(this.prototype, name, fn, chaining); };

  const chai = { version: '4.3.8', AssertionError, Assertion, config, util };

  Assertion.prototype.assert = function (expr, msg, negateMsg, expected, _actual, showDiff) {
    return report(chai, this, arguments);
  };
  Object.defineProperty(Assertion.prototype, '_obj', {
    get() { return flagOf(this, 'object'); },
    set(v) { flagOf(this, 'object', v); },
  });

  defineAssertions(chai, util, Assertion, AssertionError, flagOf);

  chai.expect = function (val, message) { return new Assertion(val, message); };
  chai.expect.fail = function (actual, expected, message, operator) {
    if (arguments.length < 2) { message = actual; actual = undefined; }
    throw new AssertionError(message || 'expect.fail()', { actual, expected, operator });
  };

  chai.assert = function (express, errmsg) {
    const a = new Assertion(null, null, chai.assert, true);
    a.assert(express, errmsg, '[ negation message unavailable ]');
  };
  chai.assert.fail = function (actual, expected, message, operator) {
    if (arguments.length < 2) { message = actual; actual = undefined; }
    throw new AssertionError(message || 'assert.fail()', { actual, expected, operator });
  };

  chai.should = function () {
    function getter() {
      if (this instanceof String || this instanceof Number || this instanceof Boolean || this instanceof Symbol || this instanceof BigInt) {
        return new Assertion(this.valueOf(), null, getter);
      }
      return new Assertion(this, null, getter);
    }
    function setter(value) {
      Object.defineProperty(this, 'should', { value, enumerable: true, configurable: true, writable: true });
    }
    Object.defineProperty(Object.prototype, 'should', { set: setter, get: getter, configurable: true });
    const should = {
      fail(actual, expected, message, operator) {
        if (arguments.length < 2) { message = actual; actual = undefined; }
        throw new AssertionError(message || 'should.fail()', { actual, expected, operator });
      },
      equal(a, b, msg) { new Assertion(a, msg).to.equal(b); },
      Throw(fn, errt, errs, msg) { new Assertion(fn, msg).to.Throw(errt, errs); },
      exist(v, msg) { new Assertion(v, msg).to.exist; },
      not: {
        equal(a, b, msg) { new Assertion(a, msg).to.not.equal(b); },
        Throw(fn, errt, errs, msg) { new Assertion(fn, msg).to.not.Throw(errt, errs); },
        exist(v, msg) { new Assertion(v, msg).to.not.exist; },
      },
    };
    should['throw'] = should.Throw;
    should.not['throw'] = should.not.Throw;
    return should;
  };
  chai.Should = chai.should;

  const used = [];
  chai.use = function (fn) {
    if (used.indexOf(fn) === -1) { fn(chai, util); used.push(fn); }
    return chai;
  };
  return chai;
}

// ---------------------------------------------------------------------------
// The assertions.

function defineAssertions(chai, _, Assertion, AssertionError, flag) {
  const fail = (obj, text) => {
    let m = flag(obj, 'message');
    m = m ? `${m}: ` : '';
    throw new AssertionError(m + text);
  };
  const setMsg = (obj, msg) => { if (msg) flag(obj, 'message', msg); };
  const sub = (obj, value) => new Assertion(value, flag(obj, 'message'), flag(obj, 'ssfi'), true);

  Assertion.addProperty('to'); // (the chains, in Chai's order)
  for (const c of CHAINS.slice(1)) Assertion.addProperty(c);
  Assertion.addProperty('not', function () { flag(this, 'negate', true); });
  for (const f of ['deep', 'nested', 'own', 'ordered']) Assertion.addProperty(f, function () { flag(this, f, true); });
  Assertion.addProperty('any', function () { flag(this, 'any', true); flag(this, 'all', false); });
  Assertion.addProperty('all', function () { flag(this, 'all', true); flag(this, 'any', false); });

  function an(type, msg) {
    setMsg(this, msg);
    type = type.toLowerCase();
    const article = 'aeiou'.indexOf(type.charAt(0)) !== -1 ? 'an ' : 'a ';
    this.assert(type === _.type(flag(this, 'object')).toLowerCase(),
      `expected #{this} to be ${article}${type}`, `expected #{this} not to be ${article}${type}`);
  }
  Assertion.addChainableMethod('an', an);
  Assertion.addChainableMethod('a', an);

  const sameValueZero = (a, b) => (a !== a && b !== b) || a === b;
  function include(val, msg) {
    setMsg(this, msg);
    const obj = flag(this, 'object');
    const objType = _.type(obj).toLowerCase();
    const negate = flag(this, 'negate');
    const deep = flag(this, 'deep');
    const descriptor = deep ? 'deep ' : '';
    let included = false;
    switch (objType) {
      case 'string':
        included = obj.indexOf(val) !== -1;
        break;
      case 'weakset':
        if (deep) fail(this, 'unable to use .deep.include with WeakSet');
        included = obj.has(val);
        break;
      case 'map': {
        const same = deep ? _.eql : sameValueZero;
        obj.forEach((item) => { included = included || same(item, val); });
        break;
      }
      case 'set':
        if (deep) obj.forEach((item) => { included = included || _.eql(item, val); });
        else included = obj.has(val);
        break;
      case 'array':
        included = deep ? obj.some((item) => _.eql(item, val)) : obj.indexOf(val) !== -1;
        break;
      default: {
        if (val !== Object(val)) {
          const vt = _.type(val).toLowerCase();
          fail(this, `the given combination of arguments (${objType} and ${vt}) is invalid for this assertion. `
            + `You can use an array, a map, an object, a set, a string, or a weakset instead of a ${vt}`);
        }
        const props = Object.keys(val);
        let firstErr = null;
        let errs = 0;
        for (const prop of props) {
          const a = new Assertion(obj);
          _.transferFlags(this, a, true);
          flag(a, 'lockSsfi', true);
          if (!negate || props.length === 1) { a.property(prop, val[prop]); continue; }
          try {
            a.property(prop, val[prop]);
          } catch (err) {
            if (!_.checkError.compatibleConstructor(err, AssertionError)) throw err;
            if (firstErr === null) firstErr = err;
            errs++;
          }
        }
        if (negate && props.length > 1 && errs === props.length) throw firstErr;
        return;
      }
    }
    this.assert(included, `expected #{this} to ${descriptor}include ${_.inspect(val)}`,
      `expected #{this} to not ${descriptor}include ${_.inspect(val)}`);
  }
  const containing = function () { flag(this, 'contains', true); };
  for (const n of ['include', 'contain', 'contains', 'includes']) Assertion.addChainableMethod(n, include, containing);

  Assertion.addProperty('ok', function () {
    this.assert(flag(this, 'object'), 'expected #{this} to be truthy', 'expected #{this} to be falsy');
  });
  Assertion.addProperty('true', function () {
    this.assert(flag(this, 'object') === true, 'expected #{this} to be true', 'expected #{this} to be false', !flag(this, 'negate'));
  });
  Assertion.addProperty('false', function () {
    this.assert(flag(this, 'object') === false, 'expected #{this} to be false', 'expected #{this} to be true', !!flag(this, 'negate'));
  });
  Assertion.addProperty('null', function () {
    this.assert(flag(this, 'object') === null, 'expected #{this} to be null', 'expected #{this} not to be null');
  });
  Assertion.addProperty('undefined', function () {
    this.assert(flag(this, 'object') === undefined, 'expected #{this} to be undefined', 'expected #{this} not to be undefined');
  });
  Assertion.addProperty('NaN', function () {
    this.assert(Number.isNaN(flag(this, 'object')), 'expected #{this} to be NaN', 'expected #{this} not to be NaN');
  });
  function exist() {
    const v = flag(this, 'object');
    this.assert(v !== null && v !== undefined, 'expected #{this} to exist', 'expected #{this} to not exist');
  }
  Assertion.addProperty('exist', exist);
  Assertion.addProperty('exists', exist);

  Assertion.addProperty('empty', function () {
    const val = flag(this, 'object');
    let count;
    switch (_.type(val).toLowerCase()) {
      case 'array': case 'string': count = val.length; break;
      case 'map': case 'set': count = val.size; break;
      case 'weakmap': case 'weakset': fail(this, '.empty was passed a weak collection'); break;
      case 'function': {
        let m = flag(this, 'message');
        m = m ? `${m}: ` : '';
        throw new AssertionError(`${m}.empty was passed a function ${_.getName(val)}`.trim());
      }
      default:
        if (val !== Object(val)) fail(this, `.empty was passed non-string primitive ${_.inspect(val)}`);
        count = Object.keys(val).length;
    }
    this.assert(count === 0, 'expected #{this} to be empty', 'expected #{this} not to be empty');
  });

  function isArguments() {
    const type = _.type(flag(this, 'object'));
    this.assert(type === 'Arguments', `expected #{this} to be arguments but got ${type}`, 'expected #{this} to not be arguments');
  }
  Assertion.addProperty('arguments', isArguments);
  Assertion.addProperty('Arguments', isArguments);

  function equal(val, msg) {
    setMsg(this, msg);
    const obj = flag(this, 'object');
    if (flag(this, 'deep')) {
      const prev = flag(this, 'lockSsfi');
      flag(this, 'lockSsfi', true);
      this.eql(val);
      flag(this, 'lockSsfi', prev);
    } else {
      this.assert(val === obj, 'expected #{this} to equal #{exp}', 'expected #{this} to not equal #{exp}', val, this._obj, true);
    }
  }
  for (const n of ['equal', 'equals', 'eq']) Assertion.addMethod(n, equal);

  function deepEql(obj, msg) {
    setMsg(this, msg);
    this.assert(_.eql(obj, flag(this, 'object')), 'expected #{this} to deeply equal #{exp}',
      'expected #{this} to not deeply equal #{exp}', obj, this._obj, true);
  }
  Assertion.addMethod('eql', deepEql);
  Assertion.addMethod('eqls', deepEql);

  // above/least/below/most: a number or a date against another, or with
  // `length`/`lengthOf` before, a length (a size for maps and sets).
  const outOf = (obj) => {
    const t = _.type(obj).toLowerCase();
    return t === 'map' || t === 'set' ? ['size', obj.size] : ['length', obj.length];
  };
  function compare(word, holds, lenPass, lenNeg, pass, neg) {
    return function (n, msg) {
      setMsg(this, msg);
      const obj = flag(this, 'object');
      const doLength = flag(this, 'doLength');
      const objType = _.type(obj).toLowerCase();
      const nType = _.type(n).toLowerCase();
      if (doLength && objType !== 'map' && objType !== 'set') sub(this, obj).to.have.property('length');
      if (!doLength && objType === 'date' && nType !== 'date') fail(this, `the argument to ${word} must be a date`);
      else if (nType !== 'number' && (doLength || objType === 'number')) fail(this, `the argument to ${word} must be a number`);
      else if (!doLength && objType !== 'date' && objType !== 'number') {
        fail(this, `expected ${objType === 'string' ? `'${obj}'` : obj} to be a number or a date`);
      }
      if (doLength) {
        const [what, count] = outOf(obj);
        this.assert(holds(count, n), `expected #{this} to have a ${what} ${lenPass} #{exp} but got #{act}`,
          `expected #{this} ${lenNeg.replace('%', what)} #{exp}`, n, count);
      } else {
        this.assert(holds(obj, n), `expected #{this} to be ${pass} #{exp}`, `expected #{this} to be ${neg} #{exp}`, n);
      }
    };
  }
  const above = compare('above', (a, b) => a > b, 'above', 'to not have a % above', 'above', 'at most');
  const least = compare('least', (a, b) => a >= b, 'at least', 'to have a % below', 'at least', 'below');
  const below = compare('below', (a, b) => a < b, 'below', 'to not have a % below', 'below', 'at least');
  const most = compare('most', (a, b) => a <= b, 'at most', 'to have a % above', 'at most', 'above');
  for (const n of ['above', 'gt', 'greaterThan']) Assertion.addMethod(n, above);
  for (const n of ['least', 'gte', 'greaterThanOrEqual']) Assertion.addMethod(n, least);
  for (const n of ['below', 'lt', 'lessThan']) Assertion.addMethod(n, below);
  for (const n of ['most', 'lte', 'lessThanOrEqual']) Assertion.addMethod(n, most);

  Assertion.addMethod('within', function (start, finish, msg) {
    setMsg(this, msg);
    const obj = flag(this, 'object');
    const doLength = flag(this, 'doLength');
    const objType = _.type(obj).toLowerCase();
    const sType = _.type(start).toLowerCase();
    const fType = _.type(finish).toLowerCase();
    const range = sType === 'date' && fType === 'date' ? `${start.toISOString()}..${finish.toISOString()}` : `${start}..${finish}`;
    if (doLength && objType !== 'map' && objType !== 'set') sub(this, obj).to.have.property('length');
    if (!doLength && objType === 'date' && (sType !== 'date' || fType !== 'date')) fail(this, 'the arguments to within must be dates');
    else if ((sType !== 'number' || fType !== 'number') && (doLength || objType === 'number')) fail(this, 'the arguments to within must be numbers');
    else if (!doLength && objType !== 'date' && objType !== 'number') {
      fail(this, `expected ${objType === 'string' ? `'${obj}'` : obj} to be a number or a date`);
    }
    if (doLength) {
      const [what, count] = outOf(obj);
      this.assert(count >= start && count <= finish, `expected #{this} to have a ${what} within ${range}`,
        `expected #{this} to not have a ${what} within ${range}`);
    } else {
      this.assert(obj >= start && obj <= finish, `expected #{this} to be within ${range}`, `expected #{this} to not be within ${range}`);
    }
  });

  function instanceOf(constructor, msg) {
    setMsg(this, msg);
    const target = flag(this, 'object');
    let is;
    try {
      is = target instanceof constructor;
    } catch (err) {
      if (err instanceof TypeError) fail(this, `The instanceof assertion needs a constructor but ${_.type(constructor)} was given.`);
      throw err;
    }
    let name = _.getName(constructor);
    if (name === null) name = 'an unnamed constructor';
    this.assert(is, `expected #{this} to be an instance of ${name}`, `expected #{this} to not be an instance of ${name}`);
  }
  Assertion.addMethod('instanceof', instanceOf);
  Assertion.addMethod('instanceOf', instanceOf);

  function property(name, val, msg) {
    setMsg(this, msg);
    const nested = flag(this, 'nested');
    const own = flag(this, 'own');
    const obj = flag(this, 'object');
    const nameType = typeof name;
    if (nested) {
      if (nameType !== 'string') fail(this, 'the argument to property must be a string when using nested syntax');
    } else if (nameType !== 'string' && nameType !== 'number' && nameType !== 'symbol') {
      fail(this, 'the argument to property must be a string, number, or symbol');
    }
    if (nested && own) fail(this, 'The "nested" and "own" flags cannot be combined.');
    if (obj === null || obj === undefined) fail(this, 'Target cannot be null or undefined.');
    const deep = flag(this, 'deep');
    const negate = flag(this, 'negate');
    const info = nested ? _.getPathInfo(obj, name) : null;
    const value = nested ? info.value : obj[name];
    const descriptor = `${deep ? 'deep ' : ''}${own ? 'own ' : ''}${nested ? 'nested ' : ''}property `;
    let has;
    if (own) has = Object.prototype.hasOwnProperty.call(obj, name);
    else if (nested) has = info.exists;
    else has = _.hasProperty(obj, name);
    if (!negate || arguments.length === 1) {
      this.assert(has, `expected #{this} to have ${descriptor}${_.inspect(name)}`, `expected #{this} to not have ${descriptor}${_.inspect(name)}`);
    }
    if (arguments.length > 1) {
      this.assert(has && (deep ? _.eql(val, value) : val === value),
        `expected #{this} to have ${descriptor}${_.inspect(name)} of #{exp}, but got #{act}`,
        `expected #{this} to not have ${descriptor}${_.inspect(name)} of #{act}`, val, value);
    }
    flag(this, 'object', value);
  }
  Assertion.addMethod('property', property);
  function ownProperty() {
    flag(this, 'own', true);
    property.apply(this, arguments);
  }
  Assertion.addMethod('ownProperty', ownProperty);
  Assertion.addMethod('haveOwnProperty', ownProperty);

  function ownDescriptor(name, descriptor, msg) {
    if (typeof descriptor === 'string') { msg = descriptor; descriptor = null; }
    setMsg(this, msg);
    const actual = Object.getOwnPropertyDescriptor(Object(flag(this, 'object')), name);
    if (actual && descriptor) {
      this.assert(_.eql(descriptor, actual),
        `expected the own property descriptor for ${_.inspect(name)} on #{this} to match ${_.inspect(descriptor)}, got ${_.inspect(actual)}`,
        `expected the own property descriptor for ${_.inspect(name)} on #{this} to not match ${_.inspect(descriptor)}`,
        descriptor, actual, true);
    } else {
      this.assert(actual, `expected #{this} to have an own property descriptor for ${_.inspect(name)}`,
        `expected #{this} to not have an own property descriptor for ${_.inspect(name)}`);
    }
    flag(this, 'object', actual);
  }
  Assertion.addMethod('ownPropertyDescriptor', ownDescriptor);
  Assertion.addMethod('haveOwnPropertyDescriptor', ownDescriptor);

  function length(n, msg) {
    setMsg(this, msg);
    const obj = flag(this, 'object');
    const t = _.type(obj).toLowerCase();
    if (t !== 'map' && t !== 'set') sub(this, obj).to.have.property('length');
    const [what, count] = outOf(obj);
    this.assert(count == n, `expected #{this} to have a ${what} of #{exp} but got #{act}`,
      `expected #{this} to not have a ${what} of #{act}`, n, count);
  }
  const lengthChain = function () { flag(this, 'doLength', true); };
  Assertion.addChainableMethod('length', length, lengthChain);
  Assertion.addChainableMethod('lengthOf', length, lengthChain);

  function match(re, msg) {
    setMsg(this, msg);
    this.assert(re.exec(flag(this, 'object')), `expected #{this} to match ${re}`, `expected #{this} not to match ${re}`);
  }
  Assertion.addMethod('match', match);
  Assertion.addMethod('matches', match);

  Assertion.addMethod('string', function (str, msg) {
    setMsg(this, msg);
    const obj = flag(this, 'object');
    sub(this, obj).is.a('string');
    this.assert(~obj.indexOf(str), `expected #{this} to contain ${_.inspect(str)}`, `expected #{this} to not contain ${_.inspect(str)}`);
  });

  function keys(wanted) {
    const obj = flag(this, 'object');
    const objType = _.type(obj);
    const wantedType = _.type(wanted);
    const deep = flag(this, 'deep');
    let deepStr = '';
    let actual;
    let m = flag(this, 'message');
    m = m ? `${m}: ` : '';
    const mixed = `${m}when testing keys against an object or an array you must give a single Array|Object|String argument or multiple String arguments`;
    let list = wanted;
    if (objType === 'Map' || objType === 'Set') {
      deepStr = deep ? 'deeply ' : '';
      actual = [];
      obj.forEach((v, k) => actual.push(k));
      if (wantedType !== 'Array') list = Array.prototype.slice.call(arguments);
    } else {
      actual = _.getOwnEnumerableProperties(obj);
      if (wantedType === 'Array') {
        if (arguments.length > 1) throw new AssertionError(mixed);
      } else if (wantedType === 'Object') {
        if (arguments.length > 1) throw new AssertionError(mixed);
        list = Object.keys(wanted);
      } else {
        list = Array.prototype.slice.call(arguments);
      }
      list = list.map((k) => (typeof k === 'symbol' ? k : String(k)));
    }
    if (!list.length) throw new AssertionError(`${m}keys required`);
    const count = list.length;
    const any = flag(this, 'any');
    let all = flag(this, 'all');
    const expected = list;
    if (!any && !all) all = true;
    const found = (k) => actual.some((a) => (deep ? _.eql(k, a) : k === a));
    let ok = true;
    if (any) ok = expected.some(found);
    if (all) {
      ok = expected.every(found);
      if (!flag(this, 'contains')) ok = ok && list.length == actual.length;
    }
    let str;
    if (count > 1) {
      const shown = list.map((k) => _.inspect(k));
      const last = shown.pop();
      if (all) str = `${shown.join(', ')}, and ${last}`;
      if (any) str = `${shown.join(', ')}, or ${last}`;
    } else {
      str = _.inspect(list[0]);
    }
    str = `${flag(this, 'contains') ? 'contain ' : 'have '}${count > 1 ? 'keys ' : 'key '}${str}`;
    this.assert(ok, `expected #{this} to ${deepStr}${str}`, `expected #{this} to not ${deepStr}${str}`,
      expected.slice(0).sort(_.compareByInspect), actual.sort(_.compareByInspect), true);
  }
  Assertion.addMethod('keys', keys);
  Assertion.addMethod('key', keys);

  function throws(errorLike, errMsgMatcher, msg) {
    setMsg(this, msg);
    const obj = flag(this, 'object');
    const negate = flag(this, 'negate') || false;
    sub(this, obj).is.a('function');
    if (errorLike instanceof RegExp || typeof errorLike === 'string') { errMsgMatcher = errorLike; errorLike = null; }
    let caught;
    try { obj(); } catch (err) { caught = err; }
    const noArgs = errorLike === undefined && errMsgMatcher === undefined;
    const bothArgs = Boolean(errorLike && errMsgMatcher);
    const ce = _.checkError;
    const nameOf = (x) => (x instanceof Error ? x.toString() : x && ce.getConstructorName(x));
    let likeFailed = false;
    let msgFailed = false;
    if (noArgs || (!noArgs && !negate)) {
      let likeStr = 'an error';
      if (errorLike instanceof Error) likeStr = '#{exp}';
      else if (errorLike) likeStr = ce.getConstructorName(errorLike);
      this.assert(caught, `expected #{this} to throw ${likeStr}`, 'expected #{this} to not throw an error but #{act} was thrown',
        errorLike && errorLike.toString(),
        caught instanceof Error ? caught.toString() : typeof caught === 'string' ? caught : caught && ce.getConstructorName(caught));
    }
    if (errorLike && caught) {
      if (errorLike instanceof Error) {
        if (ce.compatibleInstance(caught, errorLike) === negate) {
          if (bothArgs && negate) likeFailed = true;
          else {
            this.assert(negate, 'expected #{this} to throw #{exp} but #{act} was thrown',
              `expected #{this} to not throw #{exp}${caught && !negate ? ' but #{act} was thrown' : ''}`,
              errorLike.toString(), caught.toString());
          }
        }
      }
      if (ce.compatibleConstructor(caught, errorLike) === negate) {
        if (bothArgs && negate) likeFailed = true;
        else {
          this.assert(negate, 'expected #{this} to throw #{exp} but #{act} was thrown',
            `expected #{this} to not throw #{exp}${caught ? ' but #{act} was thrown' : ''}`, nameOf(errorLike), nameOf(caught));
        }
      }
    }
    if (caught && errMsgMatcher !== undefined && errMsgMatcher !== null) {
      const how = errMsgMatcher instanceof RegExp ? 'matching' : 'including';
      if (ce.compatibleMessage(caught, errMsgMatcher) === negate) {
        if (bothArgs && negate) msgFailed = true;
        else {
          this.assert(negate, `expected #{this} to throw error ${how} #{exp} but got #{act}`,
            `expected #{this} to throw error not ${how} #{exp}`, errMsgMatcher, ce.getMessage(caught));
        }
      }
    }
    if (likeFailed && msgFailed) {
      this.assert(negate, 'expected #{this} to throw #{exp} but #{act} was thrown',
        `expected #{this} to not throw #{exp}${caught ? ' but #{act} was thrown' : ''}`, nameOf(errorLike), nameOf(caught));
    }
    flag(this, 'object', caught);
  }
  for (const n of ['throw', 'throws', 'Throw']) Assertion.addMethod(n, throws);

  function respondTo(method, msg) {
    setMsg(this, msg);
    const obj = flag(this, 'object');
    const target = typeof obj === 'function' && !flag(this, 'itself') ? obj.prototype[method] : obj[method];
    this.assert(typeof target === 'function', `expected #{this} to respond to ${_.inspect(method)}`,
      `expected #{this} to not respond to ${_.inspect(method)}`);
  }
  Assertion.addMethod('respondTo', respondTo);
  Assertion.addMethod('respondsTo', respondTo);
  Assertion.addProperty('itself', function () { flag(this, 'itself', true); });

  function satisfy(matcher, msg) {
    setMsg(this, msg);
    const result = matcher(flag(this, 'object'));
    this.assert(result, `expected #{this} to satisfy ${_.objDisplay(matcher)}`,
      `expected #{this} to not satisfy${_.objDisplay(matcher)}`, !flag(this, 'negate'), result);
  }
  Assertion.addMethod('satisfy', satisfy);
  Assertion.addMethod('satisfies', satisfy);

  function closeTo(expected, delta, msg) {
    setMsg(this, msg);
    const obj = flag(this, 'object');
    sub(this, obj).is.a('number');
    if (typeof expected !== 'number' || typeof delta !== 'number') {
      fail(this, `the arguments to closeTo or approximately must be numbers${delta === undefined ? ', and a delta is required' : ''}`);
    }
    this.assert(Math.abs(obj - expected) <= delta, `expected #{this} to be close to ${expected} +/- ${delta}`,
      `expected #{this} not to be close to ${expected} +/- ${delta}`);
  }
  Assertion.addMethod('closeTo', closeTo);
  Assertion.addMethod('approximately', closeTo);

  function subsetOf(subset, superset, cmp, contains, ordered) {
    if (!contains) {
      if (subset.length !== superset.length) return false;
      superset = superset.slice();
    }
    return subset.every((elem, idx) => {
      if (ordered) return cmp ? cmp(elem, superset[idx]) : elem === superset[idx];
      if (!cmp) {
        const at = superset.indexOf(elem);
        if (at === -1) return false;
        if (!contains) superset.splice(at, 1);
        return true;
      }
      return superset.some((other, at) => {
        if (!cmp(elem, other)) return false;
        if (!contains) superset.splice(at, 1);
        return true;
      });
    });
  }
  Assertion.addMethod('members', function (subset, msg) {
    setMsg(this, msg);
    const obj = flag(this, 'object');
    sub(this, obj).to.be.an('array');
    sub(this, subset).to.be.an('array');
    const contains = flag(this, 'contains');
    const ordered = flag(this, 'ordered');
    let pass;
    let negated;
    if (contains) {
      const what = ordered ? 'an ordered superset' : 'a superset';
      pass = `expected #{this} to be ${what} of #{exp}`;
      negated = `expected #{this} to not be ${what} of #{exp}`;
    } else {
      const what = ordered ? 'ordered members' : 'members';
      pass = `expected #{this} to have the same ${what} as #{exp}`;
      negated = `expected #{this} to not have the same ${what} as #{exp}`;
    }
    const cmp = flag(this, 'deep') ? _.eql : undefined;
    this.assert(subsetOf(subset, obj, cmp, contains, ordered), pass, negated, subset, obj, true);
  });

  function oneOf(list, msg) {
    setMsg(this, msg);
    const value = flag(this, 'object');
    sub(this, list).to.be.an('array');
    if (flag(this, 'contains')) {
      this.assert(list.some((p) => value.indexOf(p) > -1), 'expected #{this} to contain one of #{exp}',
        'expected #{this} to not contain one of #{exp}', list, value);
    } else if (flag(this, 'deep')) {
      this.assert(list.some((p) => _.eql(value, p)), 'expected #{this} to deeply equal one of #{exp}',
        'expected #{this} to deeply equal one of #{exp}', list, value);
    } else {
      this.assert(list.indexOf(value) > -1, 'expected #{this} to be one of #{exp}', 'expected #{this} to not be one of #{exp}', list, value);
    }
  }
  Assertion.addMethod('oneOf', oneOf);

  // change/increase/decrease of a getter's value, or of an object's
  // property, across the target function; `by` checks the amount.
  function delta(behaviour, numeric, holds, real) {
    return function (subject, prop, msg) {
      setMsg(this, msg);
      const fn = flag(this, 'object');
      sub(this, fn).is.a('function');
      let initial;
      if (!prop) {
        sub(this, subject).is.a('function');
        initial = subject();
      } else {
        sub(this, subject).to.have.property(prop);
        initial = subject[prop];
      }
      if (numeric) sub(this, initial).is.a('number');
      fn();
      const final = prop === undefined || prop === null ? subject() : subject[prop];
      const what = prop === undefined || prop === null ? initial : `.${prop}`;
      flag(this, 'deltaMsgObj', what);
      flag(this, 'initialDeltaValue', initial);
      flag(this, 'finalDeltaValue', final);
      flag(this, 'deltaBehavior', behaviour);
      flag(this, 'realDelta', real(initial, final));
      this.assert(holds(initial, final), `expected ${what} to ${behaviour}`, `expected ${what} to not ${behaviour}`);
    };
  }
  const changes = delta('change', false, (a, b) => a !== b, (a, b) => b !== a);
  const increases = delta('increase', true, (a, b) => b - a > 0, (a, b) => b - a);
  const decreases = delta('decrease', true, (a, b) => b - a < 0, (a, b) => a - b);
  Assertion.addMethod('change', changes);
  Assertion.addMethod('changes', changes);
  Assertion.addMethod('increase', increases);
  Assertion.addMethod('increases', increases);
  Assertion.addMethod('decrease', decreases);
  Assertion.addMethod('decreases', decreases);
  Assertion.addMethod('by', function (d, msg) {
    setMsg(this, msg);
    const what = flag(this, 'deltaMsgObj');
    const behaviour = flag(this, 'deltaBehavior');
    const ok = behaviour === 'change'
      ? Math.abs(flag(this, 'finalDeltaValue') - flag(this, 'initialDeltaValue')) === Math.abs(d)
      : flag(this, 'realDelta') === Math.abs(d);
    this.assert(ok, `expected ${what} to ${behaviour} by ${d}`, `expected ${what} to not ${behaviour} by ${d}`);
  });

  Assertion.addProperty('extensible', function () {
    const o = flag(this, 'object');
    this.assert(o === Object(o) && Object.isExtensible(o), 'expected #{this} to be extensible', 'expected #{this} to not be extensible');
  });
  Assertion.addProperty('sealed', function () {
    const o = flag(this, 'object');
    this.assert(o === Object(o) ? Object.isSealed(o) : true, 'expected #{this} to be sealed', 'expected #{this} to not be sealed');
  });
  Assertion.addProperty('frozen', function () {
    const o = flag(this, 'object');
    this.assert(o === Object(o) ? Object.isFrozen(o) : true, 'expected #{this} to be frozen', 'expected #{this} to not be frozen');
  });
  Assertion.addProperty('finite', function () {
    const o = flag(this, 'object');
    this.assert(typeof o === 'number' && isFinite(o), 'expected #{this} to be a finite number', 'expected #{this} to not be a finite number');
  });
}

// ---------------------------------------------------------------------------
// k6chaijs: each assertion a check, named from Chai's message.

const shorten = (s = '', len = 250) => (s.length > len ? `${s.substring(0, len)}...` : s);
const tag = (name) => new RegExp(`#{${name}}`, 'g');

function report(chai, assertion, args) {
  const { util, config } = chai;
  const [, passMsg, failMsg, expected, _actual] = args;
  const showDiff = !expected && !_actual;
  const params = [args[0], passMsg, failMsg, expected, _actual, showDiff];
  const ok = util.test(assertion, params);
  const actual = util.getActual(assertion, params);
  const flagMsg = util.flag(assertion, 'message');
  const cutVar = (s) => shorten(s, config.truncateVariableThreshold);
  const shown = (v) => cutVar(util.objDisplay(v));

  let template = util.flag(assertion, 'negate') ? failMsg : passMsg;
  template = template.replace('but ', '');
  const anonymize = util.flag(assertion, 'anonymizeMsgFunction');
  if (anonymize) template = anonymize(template);
  if (typeof template === 'function') template = template();
  template = (template || '').replace(tag('exp'), () => shown(expected));

  let text = template
    .replace(tag('this'), () => shown(util.flag(assertion, 'object')))
    .replace(tag('act'), () => shown(actual));
  if (flagMsg && !config.aggregateChecks) text = `${flagMsg}: ${text}`;
  const name = config.aggregateChecks
    ? cutVar(template.replace(tag('this'), () => flagMsg || '${this}').replace(tag('act'), () => '${actual}'))
    : text;

  check(null, { [name]: () => ok });
  if (!ok) {
    const message = cutVar(text);
    const operator = util.getOperator(assertion, params);
    if (config.logFailures) console.warn(message);
    if (config.exitOnError) exec.test.abort(message);
    throw new chai.AssertionError(message, { actual, expected, showDiff, operator });
  }
}

const chai = createChai(report);
chai.config.truncateVariableThreshold = 100;
chai.config.truncateMsgThreshold = 300;
chai.config.aggregateChecks = true;
chai.config.logFailures = false;
chai.config.exitOnError = false;

chai.Assertion.addMethod('anonymize', function (fn = (m = '') => m.replace(tag('this'), () => '<anonymized>')) {
  chai.util.flag(this, 'anonymizeMsgFunction', fn);
});
chai.Assertion.addMethod('validJsonBody', function () {
  const response = chai.util.flag(this, 'object');
  let ok = true;
  try {
    response.json('loadlab.no.such.key');
  } catch (e) {
    ok = false;
  }
  chai.assert(ok, 'has valid json body', 'does not have a valid json body', null, null);
});

export function describe(name, fn) {
  let success = true;
  group(name, () => {
    try {
      fn();
      success = true;
    } catch (error) {
      if (error.name !== 'AssertionError') {
        console.error(`Exception raised in test "${name}". Failing the test and continuing. \n${error}`);
        check(null, { [`Exception raised "${error}"`]: () => false });
      }
      success = false;
    }
  });
  return success;
}

export const expect = chai.expect;
export { chai };
export default chai;
