
const k = globalThis.__k6;
export function randomIntBetween(min, max) {
  return Math.floor(Math.random() * (max - min + 1) + min);
}
export function randomItem(items) {
  return items[Math.floor(Math.random() * items.length)];
}
export function randomString(length, charset = 'abcdefghijklmnopqrstuvwxyz') {
  const out = [];
  for (let i = 0; i < length; i++) out.push(charset[Math.floor(Math.random() * charset.length)]);
  return out.join('');
}
const HEX = '0123456789abcdef';
export function uuidv4(secure = false) {
  const b = secure ? new Uint8Array(k.randomBytes(16)) : Uint8Array.from({ length: 16 }, () => Math.floor(Math.random() * 256));
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  let s = '';
  for (let i = 0; i < 16; i++) {
    if (i === 4 || i === 6 || i === 8 || i === 10) s += '-';
    s += HEX[b[i] >> 4] + HEX[b[i] & 15];
  }
  return s;
}
// The text between `left` and `right` ('' when there is none), or with
// `repeat` every such text, in order.
export function findBetween(content, left, right, repeat = false) {
  const all = [];
  let from = 0;
  for (;;) {
    const a = content.indexOf(left, from);
    if (a < 0) break;
    const start = a + left.length;
    const end = content.indexOf(right, start);
    if (end < 0) break;
    if (!repeat) return content.substring(start, end);
    all.push(content.substring(start, end));
    from = end + right.length;
  }
  return repeat ? all : '';
}
