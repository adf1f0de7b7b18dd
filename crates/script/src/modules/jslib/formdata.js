// jslib's formdata module (https://jslib.k6.io/formdata/0.0.2/index.js),
// written for loadlab from its documented behaviour: a `FormData` whose
// `body()` is a multipart/form-data body (an ArrayBuffer) with the
// random `boundary` the Content-Type must name.

// A part's bytes: a string's characters cut to one byte each (as the
// module does: encode UTF-8 text first), or a buffer's or an array's bytes.
function bytesOf(data) {
  if (Array.isArray(data)) return data;
  if (typeof data === 'string') return Array.from(data, (c) => c.charCodeAt(0) & 0xff);
  if (data instanceof ArrayBuffer) return Array.from(new Uint8Array(data));
  if (ArrayBuffer.isView(data)) return Array.from(new Uint8Array(data.buffer, data.byteOffset, data.byteLength), (b) => b & 0xff);
  return [];
}

// A string field is a text/plain part; an object is a file, as
// `http.file()` makes one: `{data, filename, content_type}`.
const asFile = (value) => (typeof value === 'string' ? { data: value, content_type: 'text/plain' } : value);

export function FormData() {
  if (!(this instanceof FormData)) return new FormData();
  this.boundary = '------RWWorkerFormDataBoundary' + Math.random().toString(36);
  this.parts = [];
}

FormData.prototype.append = function append(field, value) {
  if (arguments.length < 2) throw new SyntaxError('Not enough arguments');
  this.parts.push({ field, file: asFile(value) });
};

// Every part of that name gets the value; a new name is appended.
FormData.prototype.set = function set(field, value) {
  if (arguments.length < 2) throw new SyntaxError('Not enough arguments');
  const file = asFile(value);
  let found = false;
  for (const p of this.parts) {
    if (p.field == field) {
      p.file = file;
      found = true;
    }
  }
  if (!found) this.parts.push({ field, file });
};

FormData.prototype.body = function body() {
  const out = [];
  const put = (x) => { for (const b of bytesOf(x)) out.push(b); };
  for (const { field, file } of this.parts) {
    put(`--${this.boundary}\r\n`);
    let head = `Content-Disposition: form-data; name="${field}"`;
    if (file.filename) head += `; filename="${file.filename.replace(/"/g, '%22')}"`;
    put(`${head}\r\nContent-Type: ${file.content_type || 'application/octet-stream'}\r\n\r\n`);
    put(file.data);
    put('\r\n');
  }
  put(`--${this.boundary}--\r\n`);
  return new Uint8Array(out).buffer;
};
