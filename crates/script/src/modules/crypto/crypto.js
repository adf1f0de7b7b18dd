
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
