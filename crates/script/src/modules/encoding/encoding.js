
const k = globalThis.__k6;
const bytes = k.toBytes;
export function b64encode(input, encoding) { return k.b64encode(bytes(input), String(encoding ?? 'std')); }
export function b64decode(input, encoding, format) {
  const out = k.b64decode(String(input), String(encoding ?? 'std'), format === 's');
  if (typeof out === 'number') throw k.goError(`illegal base64 data at input byte ${out}`);
  return out;
}
export default { b64encode, b64decode };
