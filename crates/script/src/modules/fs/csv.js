// k6/experimental/csv: RFC 4180 records of a file opened with
// k6/experimental/fs, all at once (parse) or one per next() (Parser).
const k = globalThis.__k6;
// A k6/experimental/fs File's state (see fs.js).
const STATE = Symbol.for('loadlab.k6.fs.file');

// The bytes from the file's offset to its end; `consume` moves the offset
// there.
function rest(file, consume) {
  const s = file && file[STATE];
  if (!s) throw new TypeError('not a file opened with k6/experimental/fs');
  const out = s.b.subarray(Math.min(s.off, s.b.length));
  if (consume) s.off = s.b.length;
  return out;
}

function records(bytes, delimiter) {
  const text = k.fsText(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length));
  const d = delimiter === undefined ? ',' : String(delimiter);
  const out = [];
  let row = [], field = '', i = 0, quoted = false, any = false;
  while (i < text.length) {
    const c = text[i];
    if (quoted) {
      if (c === '"') {
        if (text[i + 1] === '"') { field += '"'; i += 2; continue; }
        quoted = false; i++; continue;
      }
      field += c; i++; continue;
    }
    if (c === '"' && field === '') { quoted = true; any = true; i++; continue; }
    if (text.startsWith(d, i)) { row.push(field); field = ''; any = true; i += d.length; continue; }
    if (c === '\r' && text[i + 1] === '\n') { i++; continue; }
    if (c === '\n') { row.push(field); out.push(row); row = []; field = ''; any = false; i++; continue; }
    field += c; any = true; i++;
  }
  if (any || field !== '' || row.length) { row.push(field); out.push(row); }
  return out;
}

// The lines options keep: skipFirstLine, fromLine and toLine (0-based,
// inclusive), as k6 reads them.
function window(rows, o) {
  let from = o.fromLine === undefined ? 0 : Number(o.fromLine);
  if (o.skipFirstLine && from === 0) from = 1;
  const to = o.toLine === undefined ? rows.length - 1 : Number(o.toLine);
  return rows.slice(from, to + 1);
}

function initOnly(what) {
  if (k.inVu()) throw k.goError(`csv ${what} must be called in the init context`);
}

export function parse(file, options = {}) {
  initOnly('parse function');
  return Promise.resolve(window(records(rest(file, false), options.delimiter), options));
}

export class Parser {
  constructor(file, options = {}) {
    initOnly('Parser constructor');
    const all = records(rest(file, true), options.delimiter);
    const header = options.asObjects ? all[0] : null;
    let rows = window(all, options);
    if (header && rows[0] === all[0]) rows = rows.slice(1);
    let at = 0;
    this.next = () => {
      if (at >= rows.length) return Promise.resolve({ done: true, value: [] });
      const r = rows[at++];
      if (!header) return Promise.resolve({ done: false, value: r });
      const o = {};
      header.forEach((h, j) => { o[h] = r[j]; });
      return Promise.resolve({ done: false, value: o });
    };
  }
}

export default { parse, Parser };
