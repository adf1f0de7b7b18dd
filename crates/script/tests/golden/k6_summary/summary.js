import { textSummary, jUnit, humanizeValue } from 'https://jslib.k6.io/k6-summary/0.0.2/index.js';
const DATA = JSON.parse(open('./data.json'));
export const options = { iterations: 1 };
export default function () {}
// Where the files go: $OUT, else the working folder.
const at = (f) => (__ENV.OUT ? `${__ENV.OUT}/` : '') + f;
export function handleSummary() {
  const out = {};
  out[at('plain.txt')] = textSummary(DATA, { indent: ' ', enableColors: false });
  out[at('color.txt')] = textSummary(DATA, { indent: '→', enableColors: true, summaryTimeUnit: 'ms' });
  out[at('junit.xml')] = jUnit(DATA, { name: 'my <suite>', classname: 'c&d' });
  out[at('human.txt')] = [humanizeValue(0.123456789, { type: 'rate' }), humanizeValue(12345678, { contains: 'data' }),
    humanizeValue(7, { contains: 'data' }), humanizeValue(3723004.5, { contains: 'time' }), humanizeValue(0.0004, { contains: 'time' }),
    humanizeValue(0.5, { contains: 'time' }), humanizeValue(61234.5, { contains: 'time' }), humanizeValue(1.23456789, { contains: 'default' }),
    humanizeValue(1234.5, { contains: 'time' }, 's')].join('\n');
  return out;
}
