
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
