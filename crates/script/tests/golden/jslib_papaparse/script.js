import papaparse from 'https://jslib.k6.io/papaparse/5.1.1/index.js';
const users = open('./users.csv');

function show(r) {
  const data = JSON.stringify(r.data, (k, v) => (v instanceof Date ? `Date(${v.toISOString()})` : v));
  return `${data} | ${JSON.stringify(r.errors)} | ${JSON.stringify(r.meta)}`;
}

function lines() {
  const out = [];
  const p = (input, cfg) => {
    try { out.push(show(papaparse.parse(input, cfg))); } catch (e) { out.push(`threw ${e.name}: ${e.message}`); }
  };
  p(users, { header: true });
  p(users, { header: true, skipEmptyLines: true, dynamicTyping: true });
  p(users, { header: false, preview: 2 });
  p(users, { header: true, preview: 1, transformHeader: (h) => h.toUpperCase() });
  p('a,b\n1,2\n', {});
  p('a,b\r\n1,2\r\n3,4', { skipEmptyLines: true });
  p('a\tb\tc\n1\t2\t3\n4\t5\t6', {});
  p('a;b;c\n1;2;3', { header: true, dynamicTyping: { b: true } });
  p('a|b\n"x|y"|z', {});
  p('"quoted ""inner"" text",plain\n"multi\nline",2', {});
  p('"a" ,b\n"c"  \n"d"', {});
  p('"unterminated,1\n2,3', {});
  p('"bad"x,1\n2,3', {});
  p('# comment\na,b\n# another\n1,2', { comments: '#' });
  p('// c\na,b', { comments: '//', header: true });
  p('x,y\n1,2,3\n4', { header: true });
  p('single', {});
  p('', { header: true });
  p('true,FALSE,1e3,-0.5, 7 ,2020-01-02T03:04:05Z,9007199254740993,,abc', { dynamicTyping: true });
  p('a,b\n1,2', { transform: (v, f) => `${f}:${v}` });
  p('a,b\n\n \n1,2\n', { skipEmptyLines: 'greedy' });
  p("a,'b,c',d", { quoteChar: "'" });
  p('a,"b\\"c",d', { escapeChar: '\\' });
  p('a,b\r1,2\r3,4', {});
  p('a:b:c\n1:2:3', { delimiter: ':' });
  p('a,b', { delimiter: '\n' });
  p('1,2\n3,4', { dynamicTyping: (f) => f === 0 });
  p('a,b', { delimitersToGuess: [';', '|'] });
  out.push(papaparse.unparse([['a', 'b'], ['1', 'two, three'], [' x', 'q"q']]));
  out.push(papaparse.unparse([{ a: 1, b: null }, { a: 'x\ny', b: new Date(Date.UTC(2020, 0, 2)) }]));
  out.push(papaparse.unparse({ fields: ['c', 'd'], data: [[1, 2], [3, 4]] }, { delimiter: ';', newline: '\n', quotes: true }));
  out.push(papaparse.unparse([{ a: '', b: '' }, { a: 1, b: 2 }], { skipEmptyLines: 'greedy', header: false }));
  out.push(papaparse.unparse([[1, 2], [3, 4]], { quotes: [true, false], columns: ['x'] }));
  out.push(JSON.stringify([papaparse.RECORD_SEP, papaparse.UNIT_SEP, papaparse.BAD_DELIMITERS, papaparse.DefaultDelimiter]));
  return out;
}
export default function () {}
// Where the file goes: $OUT, else the working folder.
const at = (f) => (__ENV.OUT ? `${__ENV.OUT}/` : '') + f;
export function handleSummary() {
  return { [at('got.txt')]: lines().join('\n') + '\n' };
}
