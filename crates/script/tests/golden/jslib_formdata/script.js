import http from 'k6/http';
import encoding from 'k6/encoding';
import { FormData } from 'https://jslib.k6.io/formdata/0.0.2/index.js';
const pic = open('./pic.bin', 'b');
function lines() {
  const out = [];
  const fd = new FormData();
  fd.append('name', 'Jöhn "J" Doe');
  fd.append('pic', http.file(pic, 'a "b".bin', 'image/png'));
  fd.append('raw', http.file('text data', 'r.txt'));
  fd.append('bytes', { data: new Uint8Array([1, 2, 3]).buffer, filename: 'x' });
  fd.append('arr', { data: [65, 66] });
  fd.set('name', 'Jane');
  fd.set('new', 'one');
  fd.append('uni', 'ü€');
  out.push(`${fd.boundary.startsWith('------RWWorkerFormDataBoundary0.')} ${fd.boundary.length > 32}`);
  fd.boundary = 'B';
  out.push(encoding.b64encode(fd.body()));
  let e = '';
  try { fd.append('x'); } catch (err) { e = `${err.name}: ${err.message}`; }
  out.push(e);
  return out;
}
export default function () {}
// Where the file goes: $OUT, else the working folder.
const at = (f) => (__ENV.OUT ? `${__ENV.OUT}/` : '') + f;
export function handleSummary() {
  return { [at('got.txt')]: lines().join('\n') + '\n' };
}
