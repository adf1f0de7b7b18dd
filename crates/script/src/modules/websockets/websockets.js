
const k = globalThis.__k6;
const CONNECTING = 0, OPEN = 1, CLOSING = 2, CLOSED = 3;
const TYPES = ['open', 'message', 'error', 'close', 'ping', 'pong'];

// UTF-8, for Blob's string parts and text().
const utf8 = (s) => {
  const out = [];
  for (const ch of s) {
    const c = ch.codePointAt(0);
    if (c < 0x80) out.push(c);
    else if (c < 0x800) out.push(0xc0 | c >> 6, 0x80 | c & 63);
    else if (c >= 0xd800 && c < 0xe000) out.push(0xef, 0xbf, 0xbd);
    else if (c < 0x10000) out.push(0xe0 | c >> 12, 0x80 | c >> 6 & 63, 0x80 | c & 63);
    else out.push(0xf0 | c >> 18, 0x80 | c >> 12 & 63, 0x80 | c >> 6 & 63, 0x80 | c & 63);
  }
  return new Uint8Array(out);
};
const fromUtf8 = (u) => {
  let s = '';
  for (let i = 0; i < u.length;) {
    const b = u[i];
    const cont = (n) => { for (let j = 1; j <= n; j++) if (i + j >= u.length || (u[i + j] & 0xc0) !== 0x80) return false; return true; };
    let c = 0xfffd, n = 1;
    if (b < 0x80) c = b;
    else if (b >= 0xc2 && b < 0xe0 && cont(1)) { c = (b & 31) << 6 | u[i + 1] & 63; n = 2; }
    else if (b >= 0xe0 && b < 0xf0 && cont(2)) { c = (b & 15) << 12 | (u[i + 1] & 63) << 6 | u[i + 2] & 63; n = 3; }
    else if (b >= 0xf0 && b < 0xf5 && cont(3)) { c = (b & 7) << 18 | (u[i + 1] & 63) << 12 | (u[i + 2] & 63) << 6 | u[i + 3] & 63; n = 4; }
    s += String.fromCodePoint(c);
    i += n;
  }
  return s;
};

const BYTES = Symbol('bytes');
export class Blob {
  constructor(parts, options) {
    const chunks = [];
    if (parts !== undefined) {
      if (parts === null || typeof parts[Symbol.iterator] !== 'function' || typeof parts === 'string') {
        throw k.goError(`failed to process [blobParts]: expected an array, got ${k.goType(parts)}`);
      }
      for (const p of parts) {
        if (typeof p === 'string') chunks.push(utf8(p));
        else if (p instanceof ArrayBuffer) chunks.push(new Uint8Array(p.slice(0)));
        else if (ArrayBuffer.isView(p)) chunks.push(new Uint8Array(p.buffer.slice(p.byteOffset, p.byteOffset + p.byteLength)));
        else if (p instanceof Blob) chunks.push(p[BYTES]);
        else throw k.goError(`failed to process [blobParts]: unsupported type: ${k.goType(p)}`);
      }
    }
    let type = '';
    if (options !== undefined) {
      if (options === null || typeof options !== 'object') throw k.goError('[options] must be an object');
      if (options.type !== undefined) type = String(options.type);
    }
    const n = chunks.reduce((a, c) => a + c.length, 0);
    const all = new Uint8Array(n);
    let at = 0;
    for (const c of chunks) { all.set(c, at); at += c.length; }
    Object.defineProperty(this, BYTES, { value: all });
    Object.defineProperty(this, 'size', { get: () => all.length, enumerable: true });
    Object.defineProperty(this, 'type', { get: () => type, enumerable: true });
  }
  arrayBuffer() { return Promise.resolve(this[BYTES].slice().buffer); }
  bytes() { return Promise.resolve(this[BYTES].slice()); }
  text() { return Promise.resolve(fromUtf8(this[BYTES])); }
  slice(start, end, contentType) {
    return new Blob([this[BYTES].slice(start, end)], { type: contentType === undefined ? '' : String(contentType) });
  }
  stream() { throw k.goError('Blob.stream() is not supported by loadlab k6'); }
}

// The sockets not yet closed, by VU (an array: QuickJS's Map is slow with
// many number keys), and by session id.
const byVu = [];
const bySid = Object.create(null);

const schemeOf = (u) => (u.match(/^([a-zA-Z][a-zA-Z0-9+.-]*):/)?.[1] ?? '').toLowerCase();

const event = (s, type, extra) => {
  const e = { type, target: s.obj, timestamp: Date.now() };
  if (extra) Object.assign(e, extra);
  return e;
};
const listeners = (s, type) => (s.on[type] ? [s.on[type], ...s.list[type]] : s.list[type]);
// Over: no more waits on it; the VU's event loop may end.
const over = (s) => {
  if (s.rs === CLOSED && s.done) return;
  s.rs = CLOSED;
  s.done = true;
  if (s.sid !== 0) { k.wsEnd(s.sid); delete bySid[s.sid]; }
  const set = byVu[s.vu];
  if (set) { set.delete(s); if (set.size === 0) byVu[s.vu] = undefined; }
  k.timersLive(-1);
};
const closeEvent = (s) => {
  const extra = { reason: s.reason };
  if (s.code !== 0) extra.code = s.code;
  for (const h of listeners(s, 'close')) h(event(s, 'close', extra));
};
const errorEvent = (s, text) => {
  for (const h of listeners(s, 'error')) h(event(s, 'error', { error: String(text) }));
};
// The connection ended with an error (Go's words): error, then close.
const failed = (s, text) => {
  over(s);
  errorEvent(s, text);
  closeEvent(s);
};
// A handler of `open` or `message` threw: the connection is dropped, the
// error and close handlers run, and the exception ends the iteration.
const emitGuarded = (s, type, e) => {
  for (const h of listeners(s, type)) {
    try { h(e); } catch (x) {
      if (!s.done) { try { failed(s, String(x)); } catch (_) {} }
      throw x;
    }
  }
};

const dial = (s) => {
  s.dialed = true;
  let r;
  try { r = k.wsOpen(s.url, s.params); } catch (x) { over(s); throw x; }
  if (r.sid === 0) {
    failed(s, r.error || r.res.error || 'websocket: bad handshake');
    return;
  }
  s.sid = r.sid;
  bySid[r.sid] = s;
  const h = r.res.headers;
  for (const name in h) if (name.toLowerCase() === 'sec-websocket-protocol') s.protocol = h[name];
  for (const name in h) if (name.toLowerCase() === 'sec-websocket-extensions') s.extensions = [h[name]];
  if (s.rs === CLOSING) {
    // Closed before it opened: no open event; the close goes out now.
    const e = k.wsClose(s.sid, s.code, s.closeReason, true);
    k.wsSent(s.sid);
    if (e) failed(s, e);
    return;
  }
  s.rs = OPEN;
  emitGuarded(s, 'open', event(s, 'open'));
};

const dispatch = (s, ev) => {
  switch (ev.t) {
    case 'message':
      if (s.rs === OPEN) emitGuarded(s, 'message', event(s, 'message', { data: ev.d, origin: s.url }));
      break;
    case 'binaryMessage':
      if (s.rs === OPEN) {
        const data = s.binaryType === 'arraybuffer' ? ev.d : new Blob([ev.d]);
        emitGuarded(s, 'message', event(s, 'message', { data, origin: s.url }));
      }
      break;
    case 'ping':
      for (const h of listeners(s, 'ping')) h(event(s, 'ping'));
      break;
    case 'pong':
      for (const h of listeners(s, 'pong')) h(event(s, 'pong'));
      break;
    case 'error':
      // A close other than normal or going away, or a broken connection.
      if (ev.ec !== undefined) { s.code = ev.ec; s.reason = ev.et ?? ''; }
      failed(s, ev.d);
      break;
    case 'close':
      s.code = ev.code;
      s.reason = ev.et ?? '';
      // The server's close, answered; or the answer to ours.
      if (s.rs === OPEN) k.wsClose(s.sid, ev.code);
      over(s);
      closeEvent(s);
      break;
  }
};

// The VU's event loop's part (timers/global.fn.js, timerStep): dial the sockets made
// since the last turn, else wait for the next event of any open socket
// (at most `wait` ms; < 0: no limit) and dispatch it. False when the wait
// ended with no event (a timer is due).
k.wsVu = {
  live: (vu) => byVu[vu] !== undefined,
  step(vu, wait) {
    const set = byVu[vu];
    if (set === undefined) return false;
    for (const s of set) {
      if (s.later.length > 0) { const f = s.later.shift(); f(); return true; }
    }
    for (const s of set) if (!s.dialed) { dial(s); return true; }
    const sids = [];
    for (const s of set) if (s.sid !== 0) sids.push(s.sid);
    if (sids.length === 0) return false;
    const ev = k.wsNextAny(sids, wait);
    if (ev.t === 'timer') return false;
    const s = bySid[ev.sid];
    if (s !== undefined) dispatch(s, ev);
    return true;
  },
  // The iteration ended with sockets open (an exception, a stop): they
  // go away.
  drop(vu) {
    const set = byVu[vu];
    if (set === undefined) return;
    for (const s of [...set]) {
      if (s.sid !== 0 && s.rs === OPEN) k.wsClose(s.sid, 1001);
      over(s);
    }
  },
};

export class WebSocket {
  constructor(url, protocols, params) {
    if (!k.wsInVu()) throw k.goError('using websockets in the init context is not supported');
    if (url === undefined || url === null) throw k.goError('WebSocket requires a url');
    url = String(url);
    const scheme = schemeOf(url);
    if (scheme !== 'ws' && scheme !== 'wss') throw k.goError(`WebSocket requires url with scheme ws or wss, but got "${scheme}"`);
    const hash = url.indexOf('#');
    if (hash >= 0 && hash < url.length - 1) throw k.goError(`WebSocket requires no url fragment, but got "${url.slice(hash + 1)}"`);
    const p = { headers: {}, __browserStyle: true };
    if (params !== undefined && params !== null) {
      for (const key of Object.keys(params)) {
        switch (key) {
          case 'headers':
            if (params.headers !== undefined && params.headers !== null) {
              for (const h of Object.keys(params.headers)) p.headers[h] = String(params.headers[h]);
            }
            break;
          case 'tags': p.tags = params.tags; break;
          case 'jar': p.jar = params.jar; break;
          case 'compression': {
            const c = String(params.compression).trim();
            if (c !== 'deflate') throw k.goError(`unsupported compression algorithm '${c}', supported algorithm is 'deflate'`);
            // (tungstenite has no permessage-deflate.)
            throw k.goError("new WebSocket(): compression 'deflate' is not supported by loadlab k6");
          }
          default: throw k.goError(`unknown WebSocket's option ${key}`);
        }
      }
    }
    if (protocols !== undefined && protocols !== null) {
      const list = typeof protocols === 'string' ? [protocols]
        : Array.isArray(protocols) ? protocols.map(String) : [];
      if (list.length > 0) {
        for (const h of Object.keys(p.headers)) if (h.toLowerCase() === 'sec-websocket-protocol') delete p.headers[h];
        p.headers['Sec-WebSocket-Protocol'] = list.join(', ');
      }
    }
    const vu = k.vuIndex();
    const s = {
      obj: this, vu, url, params: p, sid: 0, rs: CONNECTING, dialed: false, done: false,
      code: 0, reason: '', closeReason: '', protocol: '', extensions: [], binaryType: 'blob',
      on: {}, list: {}, later: [],
    };
    for (const t of TYPES) { s.on[t] = null; s.list[t] = []; }
    let set = byVu[vu];
    if (set === undefined) byVu[vu] = set = new Set();
    set.add(s);
    k.timersLive(1);

    const ro = (name, get) => Object.defineProperty(this, name, { get, enumerable: true });
    Object.defineProperty(this, 'url', { value: url, enumerable: true });
    ro('readyState', () => s.rs);
    ro('bufferedAmount', () => 0);
    ro('protocol', () => s.protocol);
    ro('extensions', () => s.extensions);
    Object.defineProperty(this, 'binaryType', {
      get: () => s.binaryType,
      set: (v) => {
        v = String(v);
        if (v !== 'blob' && v !== 'arraybuffer') throw k.goError(`unknown binaryType ${v}, the supported ones are "blob" and "arraybuffer"`);
        s.binaryType = v;
      },
      enumerable: true,
    });
    for (const t of TYPES) {
      Object.defineProperty(this, 'on' + t, {
        get: () => s.on[t],
        set: (f) => {
          if (f === undefined || f === null) { s.on[t] = null; return; }
          if (typeof f !== 'function') throw k.goError(`a value for 'on${t}' should be callable`);
          s.on[t] = f;
        },
        enumerable: true,
      });
    }
    Object.defineProperty(this, 'addEventListener', {
      value: (type, f) => {
        type = String(type);
        if (typeof f !== 'function') throw k.goError(`handler for event type "${type}" isn't a callable function`);
        if (!TYPES.includes(type)) { k.warn(`can't add event handler: unknown event type: ${type}`); return; }
        s.list[type].push(f);
      },
      enumerable: true,
    });
    // A failed write ends the connection; its events come on the next
    // turn of the loop, as k6 queues them.
    const wrote = (e) => { if (e) { s.rs = CLOSED; s.later.push(() => failed(s, e)); } };
    Object.defineProperty(this, 'send', {
      value: (data) => {
        if (s.rs !== OPEN) throw k.goError('InvalidStateError');
        if (typeof data === 'string') wrote(k.wsSend(s.sid, data, false));
        else if (data instanceof ArrayBuffer) wrote(k.wsSend(s.sid, data, true));
        else if (ArrayBuffer.isView(data)) wrote(k.wsSend(s.sid, data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength), true));
        else if (data instanceof Blob) wrote(k.wsSend(s.sid, data[BYTES].slice().buffer, true));
        else throw k.goError(`unsupported send type ${k.goType(data)}`);
      },
      enumerable: true,
    });
    Object.defineProperty(this, 'ping', {
      value: () => {
        if (s.rs !== OPEN) throw k.goError('InvalidStateError');
        const e = k.wsPing(s.sid);
        k.wsSent(s.sid);
        wrote(e);
      },
      enumerable: true,
    });
    Object.defineProperty(this, 'close', {
      value: (code, reason) => {
        if (s.rs === CLOSING || s.rs === CLOSED) return;
        code = code === undefined || code === null ? 0 : Math.trunc(Number(code)) || 0;
        if (code !== 0 && code !== 1000 && !(code >= 3000 && code <= 4999)) {
          throw k.goError(`InvalidAccessError: Failed to execute 'close' on 'WebSocket': The close code must be either 1000, or between 3000 and 4999. ${code} is neither`);
        }
        reason = reason === undefined || reason === null ? '' : String(reason);
        if (utf8(reason).length > 123) {
          throw k.goError("SyntaxError: Failed to execute 'close' on 'WebSocket': The message must not be greater than 123 bytes");
        }
        if (code === 0) code = 1000;
        s.rs = CLOSING;
        s.code = code;
        s.closeReason = reason;
        if (s.sid !== 0) { const e = k.wsClose(s.sid, code, reason, true); k.wsSent(s.sid); wrote(e); }
      },
      enumerable: true,
    });
  }
}
export default { WebSocket, Blob };
