// jslib's expect (https://jslib.k6.io/expect/<version>/index.js), written for
// loadlab from the module's documented behaviour: `describe(name, fn)` runs
// fn(t) in a group and returns whether it passed; `t.expect(value)` is the
// chained "Funk" API (`.as(name)`, `.toEqual`, `.toBeGreaterThan`,
// `.toBeGreaterThanOrEqual`, `.toBeLessThan`, `.toBeLessThanOrEqual`,
// `.toBeTruthy`, `.toBeBetween`, `.toHaveValidJson` for a response, `.and(v)`
// for the next value), each a k6 check named as the module names it; the
// first failure ends the describe. `expect` itself is Chai 4.3.4's BDD
// expect, every assertion a check named by Chai's plain message (the message
// prefix, Chai 4.3.4's older value printing); it comes from loadlab's
// k6chaijs module, with its own Chai instance and config.
// Left out: `toMatchAPISchema` (it needs the ajv jslib; calling it throws).
import { check, group } from 'k6';
import { createChai } from 'https://jslib.k6.io/k6chaijs/4.3.4.3/index.js';

// ---------------------------------------------------------------------------
// Chai 4.3.4's value printing (before it used loupe): node's util.inspect of
// old, two levels deep, long lists broken over lines.

const toStr = (o) => Object.prototype.toString.call(o);
const isArrayish = (v) => Array.isArray(v) || (typeof v === 'object' && toStr(v) === '[object Array]');
const isTyped = (v) => typeof v === 'object' && /\w+Array]$/.test(toStr(v));
const isKind = (v, kind) => typeof v === 'object' && toStr(v) === `[object ${kind}]`;

function forInKeys(o) {
  const keys = [];
  for (const k in o) keys.push(k);
  return keys;
}

function primitive(v) {
  switch (typeof v) {
    case 'undefined': return 'undefined';
    case 'string': return `'${JSON.stringify(v).replace(/^"|"$/g, '').replace(/'/g, "\\'").replace(/\\"/g, '"')}'`;
    case 'number': return v === 0 && 1 / v === -Infinity ? '-0' : `${v}`;
    case 'boolean': return `${v}`;
    case 'symbol': return v.toString();
    case 'bigint': return `${v.toString()}n`;
    default: return v === null ? 'null' : undefined;
  }
}

function makeLegacyInspect(config) {
  function value(seen, v, depth) {
    if (v && typeof v.inspect === 'function' && !(v.constructor && v.constructor.prototype === v)) {
      const r = v.inspect(depth, { seen });
      return typeof r === 'string' ? r : value(seen, r, depth);
    }
    const p = primitive(v);
    if (p) return p;
    const keys = forInKeys(v);
    const fname = typeof v === 'function' ? (v.name ? `: ${v.name}` : '') : '';
    if (keys.length === 0) {
      if (typeof v === 'function') return `[Function${fname}]`;
      if (isKind(v, 'RegExp')) return RegExp.prototype.toString.call(v);
      if (isKind(v, 'Date')) return Date.prototype.toUTCString.call(v);
    }
    if (isKind(v, 'Error')) return `[${Error.prototype.toString.call(v)}]`;
    let base = '';
    let braces = ['{', '}'];
    const typed = isTyped(v);
    const array = isArrayish(v);
    if (typed || array) braces = ['[', ']'];
    if (typeof v === 'function') base = ` [Function${fname}]`;
    if (isKind(v, 'RegExp')) base = ` ${RegExp.prototype.toString.call(v)}`;
    if (isKind(v, 'Date')) base = ` ${Date.prototype.toUTCString.call(v)}`;
    if (keys.length === 0 && (!array || v.length == 0)) return braces[0] + base + braces[1];
    if (depth < 0) return isKind(v, 'RegExp') ? RegExp.prototype.toString.call(v) : '[Object]';
    seen.push(v);
    let parts;
    if (array) {
      parts = [];
      for (let i = 0; i < v.length; i++) {
        parts.push(Object.prototype.hasOwnProperty.call(v, String(i)) ? property(seen, v, depth, String(i), true) : '');
      }
      for (const k of keys) if (!/^\d+$/.test(k)) parts.push(property(seen, v, depth, k, true));
    } else if (typed) {
      seen.pop();
      let s = '[ ';
      for (let i = 0; i < v.length; i++) {
        if (s.length >= config.truncateThreshold - 7) { s += '...'; break; }
        s += `${v[i]}, `;
      }
      s += ' ]';
      return s.indexOf(',  ]') !== -1 ? s.replace(',  ]', ' ]') : s;
    } else {
      parts = keys.map((k) => property(seen, v, depth, k, false));
    }
    seen.pop();
    const width = parts.reduce((n, s) => n + s.length + 1, 0);
    if (width > 60) return `${braces[0]}${base === '' ? '' : `${base}\n `} ${parts.join(',\n  ')} ${braces[1]}`;
    return `${braces[0]}${base} ${parts.join(', ')} ${braces[1]}`;
  }

  function property(seen, obj, depth, key, array) {
    const desc = Object.getOwnPropertyDescriptor(obj, key);
    let str;
    if (desc) {
      if (desc.get) str = desc.set ? '[Getter/Setter]' : '[Getter]';
      else if (desc.set) str = '[Setter]';
    }
    if (!str) {
      if (seen.indexOf(obj[key]) < 0) {
        str = value(seen, obj[key], depth === null ? null : depth - 1);
        if (str.indexOf('\n') > -1) {
          str = array
            ? str.split('\n').map((l) => `  ${l}`).join('\n').substr(2)
            : `\n${str.split('\n').map((l) => `   ${l}`).join('\n')}`;
        }
      } else {
        str = '[Circular]';
      }
    }
    if (array && /^\d+$/.test(key)) return str;
    let name = JSON.stringify(`${key}`);
    if (/^"([a-zA-Z_][a-zA-Z_0-9]*)"$/.test(name)) name = name.substr(1, name.length - 2);
    else name = name.replace(/'/g, "\\'").replace(/\\"/g, '"').replace(/(^"|"$)/g, "'");
    return `${name}: ${str}`;
  }

  return (v) => value([], v, 2);
}

// ---------------------------------------------------------------------------
// Chai's expect: a check for each assertion, named by its message.

function report(chai, assertion, args) {
  const { util, config } = chai;
  const [, , , expected, _actual] = args;
  const ok = util.test(assertion, args);
  let showDiff = args[5];
  if (showDiff !== false) showDiff = true;
  if (expected === undefined && _actual === undefined) showDiff = false;
  if (config.showDiff !== true) showDiff = false;
  const msg = util.getMessage(assertion, args);
  const props = { actual: util.getActual(assertion, args), expected, showDiff };
  const operator = util.getOperator(assertion, args);
  if (operator) props.operator = operator;
  check(null, { [msg]: !!ok });
  if (!ok) throw new chai.AssertionError(msg, props);
}

const chai = createChai(report, makeLegacyInspect);
chai.version = '4.3.3';

export const expect = chai.expect;

// ---------------------------------------------------------------------------
// The chained checks of `t.expect(value)`.

export class FunkBrokenChainException extends Error {
  constructor(message) {
    super(message);
    this.brokenChain = true;
    this.name = 'FunkBrokenChainException';
  }
}

class Funk {
  constructor(value) {
    this.leftHandValue = value;
    this.leftHandValueName = null;
    this.rightHandValue = null;
    this.chainBroken = false;
    this.printedBrokenChainWarning = false;
  }

  as(name) {
    this.leftHandValueName = name;
    return this;
  }

  and(value) {
    if (this._skipped()) return this;
    this.leftHandValue = value;
    this.leftHandValueName = null;
    return this;
  }

  // After a failure (caught by the caller) the rest of the chain only warns,
  // once.
  _skipped() {
    if (!this.chainBroken) return false;
    if (!this.printedBrokenChainWarning) {
      console.warn('This check has been aborted because the previous check in the chain has failed');
      this.printedBrokenChainWarning = true;
    }
    return true;
  }

  _record(name, ok, value) {
    if (value !== undefined) check(null, { [name]: ok }, { value });
    else check(null, { [name]: ok });
    if (!ok) {
      this.chainBroken = true;
      throw new FunkBrokenChainException('Chain broke, skipping this check');
    }
    return this;
  }

  _label() {
    return this.leftHandValueName || this.leftHandValue;
  }

  toEqual(expected) {
    if (this._skipped()) return this;
    this.rightHandValue = expected;
    const ok = this.leftHandValue === expected;
    let name = `${this.leftHandValue} is ${expected}`;
    if (this.leftHandValueName) {
      name = `${this.leftHandValueName} is ${this.leftHandValue}.`;
      if (!ok) name += ` Expected '${expected}'`;
    }
    return this._record(name, ok, expected);
  }

  _compare(bound, words, ok) {
    if (this._skipped()) return this;
    this.rightHandValue = bound;
    return this._record(`${this._label()} ${words} ${bound}`, ok, this.leftHandValue);
  }

  toBeGreaterThan(n) { return this._compare(n, 'is greater than', this.leftHandValue > n); }

  toBeGreaterThanOrEqual(n) { return this._compare(n, 'is greater or equal to', this.leftHandValue >= n); }

  toBeLessThan(n) { return this._compare(n, 'is less than', this.leftHandValue < n); }

  toBeLessThanOrEqual(n) { return this._compare(n, 'is less or equal to', this.leftHandValue <= n); }

  toBeBetween(from, to) {
    if (this._skipped()) return this;
    return this._compare(`${from} - ${to}`, 'is between', this.leftHandValue >= from && this.leftHandValue <= to);
  }

  toBeTruthy() {
    if (this._skipped()) return this;
    return this._record(`${this._label()} is truthy.`, !!this.leftHandValue, this.leftHandValue);
  }

  toHaveValidJson() {
    if (this._skipped()) return this;
    const resp = this.leftHandValue;
    if (!(resp && Object.prototype.hasOwnProperty.call(resp, 'request'))) {
      console.error("The object passed to expect/and for toHaveValidJson isn't a k6 HttpResponse. Aborting the check.");
      this.chainBroken = true;
      throw new FunkBrokenChainException('Chain broke, skipping this check');
    }
    let ok = true;
    try {
      resp.json();
    } catch (e) {
      ok = false;
    }
    return this._record(`${resp.request.url} has valid json response`, ok);
  }

  toMatchAPISchema() {
    throw new Error('toMatchAPISchema needs the ajv jslib, which loadlab does not provide');
  }
}

export function describe(name, fn) {
  const t = { expect: (value) => new Funk(value) };
  let success = true;
  group(name, () => {
    try {
      fn(t);
      success = true;
    } catch (e) {
      if (!e.brokenChain && e.name !== 'AssertionError') {
        console.error(`Exception raised in test "${name}". Failing the test and continuing. \n${e}`);
        check(null, { [`Exception raised "${e}"`]: false });
      }
      success = false;
    }
  });
  return success;
}
