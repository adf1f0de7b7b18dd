// k6/experimental/fs: files opened in the init context, read into memory
// once per VU; a File keeps its own offset.
const k = globalThis.__k6;
export const SeekMode = Object.freeze({ Start: 0, Current: 1, End: 2 });

// k6's errors: a name (NotFoundError, ForbiddenError, TypeError, …) and a
// message, shown as `Name: message`.
export class FsError {
  constructor(name, message) { this.name = name; this.message = message; }
  toString() { return `${this.name}: ${this.message}`; }
}

// A File's bytes, offset and name, under a registered symbol: the same
// in every VU's instance of this module and in k6/experimental/csv.
const STATE = Symbol.for('loadlab.k6.fs.file');

export class File {
  constructor(info) {
    this.path = info.path;
    Object.defineProperty(this, STATE, { value: { b: new Uint8Array(info.bytes), off: 0, name: info.name } });
  }
  stat() {
    const s = this[STATE];
    return Promise.resolve({ name: s.name, size: s.b.length });
  }
  read(buffer) {
    const s = this[STATE];
    if (!(buffer instanceof Uint8Array)) {
      return Promise.reject(new FsError('TypeError', 'read() failed; reason: buffer must be a Uint8Array'));
    }
    if (s.off >= s.b.length) return Promise.resolve(null);
    const n = Math.min(buffer.length, s.b.length - s.off);
    buffer.set(s.b.subarray(s.off, s.off + n));
    s.off += n;
    return Promise.resolve(n);
  }
  seek(offset, whence = SeekMode.Start) {
    const s = this[STATE];
    // From the end, k6 v1.8.1 counts from the last byte (size - 1), not
    // past it: seek(-2, SeekMode.End) on 11 bytes is 8. Kept, so that a
    // script reads the same bytes in both.
    const base = whence === SeekMode.Start ? 0 : whence === SeekMode.Current ? s.off : whence === SeekMode.End ? s.b.length - 1 : NaN;
    if (Number.isNaN(base)) {
      return Promise.reject(new FsError('TypeError', `seek() failed; reason: invalid whence ${whence}`));
    }
    const to = base + Number(offset);
    if (!Number.isInteger(to) || to < 0) {
      return Promise.reject(new FsError('TypeError', 'seek() failed; reason: the resulting offset cannot be negative'));
    }
    s.off = to;
    return Promise.resolve(to);
  }
}

export function open(path) {
  const r = k.fsOpen(String(path));
  if (r.error) return Promise.reject(new FsError(r.error, r.message));
  return Promise.resolve(new File(r));
}

export default { open, SeekMode };
