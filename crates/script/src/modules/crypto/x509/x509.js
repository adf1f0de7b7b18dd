// k6/crypto/x509: a PEM certificate's subject, issuer, validity, alt
// names, signature algorithm, SHA-1 fingerprint and public key, as k6's.
const k = globalThis.__k6;
function call(what, encoded) {
  const out = JSON.parse(k.x509(k.toBytes(encoded), what));
  if (out.error !== undefined) throw k.goError(out.error);
  return out.value;
}
const big = (hex) => BigInt('0x' + hex);
// The key's numbers as BigInts (k6 hands out Go's big integers so);
// an elliptic curve as an object whose params() names it.
function publicKey(pk) {
  const key = pk.key;
  if (pk.algorithm === 'RSA') return { algorithm: 'RSA', key: { n: big(key.n), e: key.e } };
  if (pk.algorithm === 'ECDSA') {
    const params = { name: key.curve, bit_size: key.bitSize };
    return { algorithm: 'ECDSA', key: { curve: { params: () => params }, x: big(key.x), y: big(key.y) } };
  }
  // Go's dsa.PublicKey embeds its parameters: k6 shows them twice.
  const d = key.parameters;
  const [dp, dq, dg] = [big(d.p), big(d.q), big(d.g)];
  return { algorithm: 'DSA', key: { parameters: { p: dp, q: dq, g: dg }, p: dp, q: dq, g: dg, y: big(key.y) } };
}
export function parse(encoded) {
  const c = call('parse', encoded);
  c.publicKey = publicKey(c.publicKey);
  return c;
}
export function getAltNames(encoded) { return call('altNames', encoded); }
export function getIssuer(encoded) { return call('issuer', encoded); }
export function getSubject(encoded) { return call('subject', encoded); }
export default { parse, getAltNames, getIssuer, getSubject };
