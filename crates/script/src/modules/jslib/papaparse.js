// jslib's papaparse (https://jslib.k6.io/papaparse/5.1.1/index.js),
// written for loadlab from Papa Parse's documented behaviour: `parse` of
// CSV text (delimiter and line ending found when not given, quotes,
// comments, `header`, `dynamicTyping`, `skipEmptyLines`, `preview`,
// `transform`, `transformHeader`; the same `data`, `errors` and `meta`)
// and `unparse` back to CSV. Files, streams, workers and `step` chunks
// are the browser's and Node's; k6 scripts parse text they opened.

const RECORD_SEP = String.fromCharCode(30);
const UNIT_SEP = String.fromCharCode(31);
const BYTE_ORDER_MARK = '\ufeff';
const BAD_DELIMITERS = ['\r', '\n', '"', BYTE_ORDER_MARK];
const DEFAULT_DELIMITER = ',';
const FLOAT = /^\s*-?(\d*\.?\d+|\d+\.?\d*)(e[-+]?\d+)?\s*$/i;
const ISO_DATE = /(\d{4}-[01]\d-[0-3]\dT[0-2]\d:[0-5]\d:[0-5]\d\.\d+([+-][0-2]\d:[0-5]\d|Z))|(\d{4}-[01]\d-[0-3]\dT[0-2]\d:[0-5]\d:[0-5]\d([+-][0-2]\d:[0-5]\d|Z))|(\d{4}-[01]\d-[0-3]\dT[0-2]\d:[0-5]\d([+-][0-2]\d:[0-5]\d|Z))/;

const isFunction = (f) => typeof f === 'function';

// The line ending: `\n` unless `\r` comes first outside quotes; `\r\n`
// when most `\r`s are followed by `\n`.
function guessNewline(input, quote) {
  let text = input.substring(0, 1024 * 1024);
  if (quote) text = text.split(quote).filter((_, i) => i % 2 === 0).join('');
  const byR = text.split('\r');
  const byN = text.split('\n');
  if (byR.length === 1 || (byN.length > 1 && byN[0].length < byR[0].length)) return '\n';
  const withN = byR.filter((part) => part[0] === '\n').length;
  return withN >= byR.length / 2 ? '\r\n' : '\r';
}

const isEmptyRow = (row, mode) => (mode === 'greedy' ? row.join('').trim() === '' : row.length === 1 && row[0].length === 0);

// The delimiter whose first ten rows split most evenly into the most fields.
function guessDelimiter(input, cfg) {
  let best;
  let bestDelta;
  let bestAvg;
  for (const delim of cfg.delimitersToGuess || [',', '\t', '|', ';', RECORD_SEP, UNIT_SEP]) {
    const rows = split(input, { comments: cfg.comments, delimiter: delim, newline: cfg.newline, preview: 10 }).data;
    let delta = 0;
    let sum = 0;
    let empty = 0;
    let prev;
    for (const row of rows) {
      if (cfg.skipEmptyLines && isEmptyRow(row, cfg.skipEmptyLines)) {
        empty++;
        continue;
      }
      sum += row.length;
      if (prev === undefined) prev = row.length;
      else if (row.length > 0) {
        delta += Math.abs(row.length - prev);
        prev = row.length;
      }
    }
    const avg = rows.length > 0 ? sum / (rows.length - empty) : sum;
    if ((bestDelta === undefined || delta <= bestDelta) && (bestAvg === undefined || avg > bestAvg) && avg > 1.99) {
      [best, bestDelta, bestAvg] = [delim, delta, avg];
    }
  }
  return best;
}

// The rows of `input` as arrays of strings, with the parser's errors.
function split(input, cfg) {
  let delim = cfg.delimiter;
  if (typeof delim !== 'string' || BAD_DELIMITERS.includes(delim)) delim = ',';
  const quote = cfg.quoteChar === undefined ? '"' : cfg.quoteChar;
  const escape = cfg.escapeChar === undefined ? quote : cfg.escapeChar;
  let comments = cfg.comments;
  if (comments === delim) throw new Error('Comment character same as delimiter');
  if (comments === true) comments = '#';
  else if (typeof comments !== 'string' || BAD_DELIMITERS.includes(comments)) comments = false;
  let nl = cfg.newline;
  if (nl !== '\n' && nl !== '\r' && nl !== '\r\n') nl = '\n';
  const data = [];
  const errors = [];
  let cursor = 0;
  let last = 0;
  const done = (truncated) => ({ data, errors, meta: { delimiter: delim, linebreak: nl, aborted: false, truncated: !!truncated, cursor: last } });
  if (!input) return done();
  const full = (n) => cfg.preview && n >= cfg.preview;
  if (cfg.fastMode || (cfg.fastMode !== false && input.indexOf(quote) === -1)) {
    const lines = input.split(nl);
    for (let i = 0; i < lines.length; i++) {
      cursor += lines[i].length + (i < lines.length - 1 ? nl.length : 0);
      if (comments && lines[i].startsWith(comments)) continue;
      data.push(lines[i].split(delim));
      last = cursor;
      if (cfg.preview && i >= cfg.preview) {
        data.length = cfg.preview;
        return done(true);
      }
    }
    return done();
  }
  let row = [];
  const endRow = (at) => {
    data.push(row);
    row = [];
    cursor = at;
    last = at;
  };
  const unescape = (s) => s.split(escape + quote).join(quote);
  while (cursor <= input.length) {
    if (row.length === 0 && comments && input.startsWith(comments, cursor)) {
      const end = input.indexOf(nl, cursor);
      if (end === -1) return done();
      cursor = end + nl.length;
      continue;
    }
    if (input[cursor] === quote) {
      // A quoted field: up to a quote that is not escaped and is followed
      // (after spaces) by the delimiter, the line ending or the end.
      const start = cursor + 1;
      let q = start - 1;
      let ended = false;
      for (;;) {
        q = input.indexOf(quote, q + 1);
        if (q === -1) {
          errors.push({ type: 'Quotes', code: 'MissingQuotes', message: 'Quoted field unterminated', row: data.length, index: start });
          row.push(input.substring(start));
          cursor = input.length;
          data.push(row);
          last = cursor;
          return done();
        }
        if (q === input.length - 1) {
          row.push(unescape(input.substring(start, q)));
          cursor = input.length;
          data.push(row);
          last = cursor;
          return done();
        }
        if (quote === escape && input[q + 1] === escape) {
          q++;
          continue;
        }
        if (quote !== escape && q !== 0 && input[q - 1] === escape) continue;
        let after = q + 1;
        while (input[after] === ' ' || input[after] === '\t') after++;
        const spaces = input.substring(q + 1, after).trim() === '' ? after : q + 1;
        if (input.startsWith(delim, spaces)) {
          row.push(unescape(input.substring(start, q)));
          cursor = spaces + delim.length;
          ended = true;
          break;
        }
        if (input.startsWith(nl, spaces)) {
          row.push(unescape(input.substring(start, q)));
          endRow(spaces + nl.length);
          if (full(data.length)) return done(true);
          ended = true;
          break;
        }
        errors.push({ type: 'Quotes', code: 'InvalidQuotes', message: 'Trailing quote on quoted field is malformed', row: data.length, index: start });
        q++;
      }
      if (ended) continue;
    }
    // An unquoted field: up to the delimiter or the line ending.
    const d = input.indexOf(delim, cursor);
    const n = input.indexOf(nl, cursor);
    if (d !== -1 && (n === -1 || d < n)) {
      row.push(input.substring(cursor, d));
      cursor = d + delim.length;
      continue;
    }
    if (n !== -1) {
      row.push(input.substring(cursor, n));
      endRow(n + nl.length);
      if (full(data.length)) return done(true);
      continue;
    }
    row.push(input.substring(cursor));
    cursor = input.length;
    data.push(row);
    last = cursor;
    return done();
  }
  return done();
}

function typed(value, field, cfg) {
  let on = cfg.dynamicTyping;
  if (isFunction(on)) on = on(field);
  else if (on && typeof on === 'object') on = on[field];
  if (on !== true) return value;
  if (value === 'true' || value === 'TRUE') return true;
  if (value === 'false' || value === 'FALSE') return false;
  if (FLOAT.test(value)) {
    const f = parseFloat(value);
    if (f > -(2 ** 53) && f < 2 ** 53) return f;
  }
  if (ISO_DATE.test(value)) return new Date(value);
  return value === '' ? null : value;
}

export function parse(input, config) {
  const cfg = Object.assign({}, config || {});
  if (typeof input !== 'string') throw new Error('Input must be a string');
  const quote = cfg.quoteChar === undefined ? '"' : cfg.quoteChar;
  if (!cfg.newline) cfg.newline = guessNewline(input, quote);
  let undetected = false;
  if (isFunction(cfg.delimiter)) cfg.delimiter = cfg.delimiter(input);
  else if (!cfg.delimiter) {
    cfg.delimiter = guessDelimiter(input, cfg);
    if (!cfg.delimiter) {
      undetected = true;
      cfg.delimiter = DEFAULT_DELIMITER;
    }
  }
  const result = split(input, cfg.preview && cfg.header ? { ...cfg, preview: cfg.preview + 1 } : cfg);
  if (undetected) {
    result.errors.push({ type: 'Delimiter', code: 'UndetectableDelimiter', message: `Unable to auto-detect delimiting character; defaulted to '${DEFAULT_DELIMITER}'` });
  }
  if (cfg.skipEmptyLines) result.data = result.data.filter((row) => !isEmptyRow(row, cfg.skipEmptyLines));
  let fields = [];
  if (cfg.header && result.data.length > 0) {
    fields = result.data.shift().map((h) => (isFunction(cfg.transformHeader) ? cfg.transformHeader(h) : h));
  }
  if (cfg.header || cfg.dynamicTyping || cfg.transform) {
    result.data = result.data.map((source, i) => {
      const row = cfg.header ? {} : [];
      for (let j = 0; j < source.length; j++) {
        const field = cfg.header ? (j >= fields.length ? '__parsed_extra' : fields[j]) : j;
        let value = source[j];
        if (cfg.transform) value = cfg.transform(value, field);
        value = typed(value, field, cfg);
        if (field === '__parsed_extra') (row[field] = row[field] || []).push(value);
        else row[field] = value;
      }
      if (cfg.header) {
        const n = source.length;
        if (n > fields.length) {
          result.errors.push({ type: 'FieldMismatch', code: 'TooManyFields', message: `Too many fields: expected ${fields.length} fields but parsed ${n}`, row: i });
        } else if (n < fields.length) {
          result.errors.push({ type: 'FieldMismatch', code: 'TooFewFields', message: `Too few fields: expected ${fields.length} fields but parsed ${n}`, row: i });
        }
      }
      return row;
    });
    if (cfg.header) result.meta.fields = fields;
  }
  if (isFunction(cfg.complete)) {
    cfg.complete(result);
    return undefined;
  }
  return result;
}

// CSV of arrays, of objects (their keys the header), or of `{fields, data}`.
export function unparse(input, config) {
  const cfg = config && typeof config === 'object' ? config : {};
  const delim = typeof cfg.delimiter === 'string' && !BAD_DELIMITERS.some((b) => cfg.delimiter.includes(b)) ? cfg.delimiter : ',';
  const quotes = typeof cfg.quotes === 'boolean' || isFunction(cfg.quotes) || Array.isArray(cfg.quotes) ? cfg.quotes : false;
  const skip = typeof cfg.skipEmptyLines === 'boolean' || typeof cfg.skipEmptyLines === 'string' ? cfg.skipEmptyLines : false;
  const nl = typeof cfg.newline === 'string' ? cfg.newline : '\r\n';
  const quote = typeof cfg.quoteChar === 'string' ? cfg.quoteChar : '"';
  const writeHeader = typeof cfg.header === 'boolean' ? cfg.header : true;
  let columns = null;
  if (Array.isArray(cfg.columns)) {
    if (cfg.columns.length === 0) throw new Error('Option columns is empty');
    columns = cfg.columns;
  }
  const escaped = cfg.escapeChar !== undefined ? cfg.escapeChar + quote : quote + quote;
  const keys = (o) => (typeof o === 'object' && o !== null ? Object.keys(o).filter(() => true) : []);
  const safe = (v, col) => {
    if (v === undefined || v === null) return '';
    if (v.constructor === Date) return JSON.stringify(v).slice(1, 25);
    const s = v.toString().split(quote).join(escaped);
    const need = quotes === true || (isFunction(quotes) && quotes(v, col)) || (Array.isArray(quotes) && quotes[col])
      || BAD_DELIMITERS.some((b) => s.includes(b)) || s.includes(delim) || s.charAt(0) === ' ' || s.charAt(s.length - 1) === ' ';
    return need ? quote + s + quote : s;
  };
  const serialize = (fields, data) => {
    let csv = '';
    const header = Array.isArray(fields) && fields.length > 0;
    const keyed = !Array.isArray(data[0]);
    if (header && writeHeader) {
      csv += fields.map(safe).join(delim);
      if (data.length > 0) csv += nl;
    }
    for (let r = 0; r < data.length; r++) {
      const max = header ? fields.length : data[r].length;
      const nullLine = header ? Object.keys(data[r]).length === 0 : data[r].length === 0;
      let empty = false;
      if (skip && !header) empty = isEmptyRow(data[r], skip);
      if (skip === 'greedy' && header) {
        const line = [];
        for (let c = 0; c < max; c++) line.push(data[r][keyed ? fields[c] : c]);
        empty = line.join('').trim() === '';
      }
      if (empty) continue;
      for (let c = 0; c < max; c++) {
        if (c > 0 && !nullLine) csv += delim;
        csv += safe(data[r][header && keyed ? fields[c] : c], c);
      }
      if (r < data.length - 1 && (!skip || (max > 0 && !nullLine))) csv += nl;
    }
    return csv;
  };
  let data = typeof input === 'string' ? JSON.parse(input) : input;
  if (Array.isArray(data)) {
    if (!data.length || Array.isArray(data[0])) return serialize(null, data);
    if (typeof data[0] === 'object') return serialize(columns || keys(data[0]), data);
  } else if (typeof data === 'object' && data !== null) {
    let rows = typeof data.data === 'string' ? JSON.parse(data.data) : data.data;
    let fields = data.fields || (data.meta && data.meta.fields);
    if (Array.isArray(rows)) {
      if (!fields) fields = Array.isArray(rows[0]) ? fields : keys(rows[0]);
      if (!Array.isArray(rows[0]) && typeof rows[0] !== 'object') rows = [rows];
    }
    return serialize(fields || [], rows || []);
  }
  throw new Error('Unable to serialize unrecognized input');
}

const Papa = { parse, unparse, RECORD_SEP, UNIT_SEP, BYTE_ORDER_MARK, BAD_DELIMITERS, DefaultDelimiter: DEFAULT_DELIMITER };
export default Papa;
