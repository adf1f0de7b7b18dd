
const k = globalThis.__k6;
// Go's error values: `e.error()` is the text; a close error also has
// its `code` and `text`.
const werr = (m, code, text) => {
  const e = k.goError(m);
  e.error = () => m;
  if (code !== undefined) { e.code = code; e.text = text; }
  return e;
};
export function connect(url, ...args) {
  let params, fn;
  if (args.length === 2) { params = args[0]; fn = args[1]; }
  else if (args.length === 1) { fn = args[0]; }
  else throw k.goError('invalid number of arguments to ws.connect');
  if (typeof fn !== 'function') throw k.goError('last argument to ws.connect must be a function');
  const r = k.wsOpen(String(url), params);
  if (r.sid === 0) {
    if (r.throws) throw k.goError(r.error);
    return r.res;
  }
  const sid = r.sid;
  const handlers = new Map();
  const timers = [];
  let closed = false;
  const emit = (ev, ...a) => { for (const h of handlers.get(ev) ?? []) h(...a); };
  const closeWith = (code) => {
    if (closed) return;
    closed = true;
    const e = k.wsClose(sid, code);
    if (e) emit('error', werr(e));
    emit('close', code);
  };
  const timer = (fn, ms, every, what) => {
    ms = Number(ms);
    if (!(ms > 0)) throw k.goError(`${what} requires a >0 timeout parameter, received ${(isNaN(ms) ? 0 : ms).toFixed(2)}`);
    timers.push({ at: k.clock() + ms, every: every ? ms : 0, fn });
  };
  const socket = {
    on(ev, h) { if (typeof h === 'function') { const l = handlers.get(String(ev)); if (l) l.push(h); else handlers.set(String(ev), [h]); } },
    // (After the close, a send fails with Go's words and, as in k6, is
    // still counted in ws_msgs_sent.)
    send(m) { const e = k.wsSend(sid, String(m), false); if (e) emit('error', werr(e)); },
    sendBinary(m) {
      if (m === undefined || m === null) throw k.goError('missing argument, expected ArrayBuffer');
      if (!(m instanceof ArrayBuffer)) throw k.goError(`expected ArrayBuffer as argument, received: ${m.constructor?.name ?? typeof m}`);
      const e = k.wsSend(sid, m, true); if (e) emit('error', werr(e));
    },
    ping() { if (closed) return; const e = k.wsPing(sid); if (e) emit('error', werr(e)); },
    close(code) { closeWith(code === undefined ? 1001 : Math.trunc(Number(code))); },
    setTimeout(fn, ms) { timer(fn, ms, false, 'setTimeout'); },
    setInterval(fn, ms) { timer(fn, ms, true, 'setInterval'); },
  };
  try {
    try { fn(socket); } catch (e) { closeWith(1001); throw e; }
    r.res.url = String(url);
    emit('open');
    while (!closed) {
      let next = -1;
      for (const t of timers) if (next < 0 || t.at < next) next = t.at;
      const ev = k.wsNext(sid, next < 0 ? -1 : Math.max(0, next - k.clock()));
      switch (ev.t) {
        case 'message': emit('message', ev.d); break;
        case 'binaryMessage': emit('binaryMessage', ev.d); break;
        case 'ping': emit('ping'); break;
        case 'pong': emit('pong'); break;
        case 'error': emit('error', werr(ev.d, ev.ec, ev.et)); break;
        case 'close': closeWith(ev.code); break;
        case 'timer': {
          const now = k.clock();
          for (const t of timers.filter((t) => t.at <= now)) {
            if (closed) break;
            if (t.every > 0) t.at = Math.max(t.at + t.every, now);
            else timers.splice(timers.indexOf(t), 1);
            try { t.fn(); } catch (e) { closeWith(1001); throw e; }
          }
          break;
        }
      }
    }
  } finally {
    // An exception out of a handler: the socket still says goodbye, and
    // its close handlers run, as k6's deferred close does.
    if (!closed) { try { closeWith(1001); } catch (_) {} }
    k.wsEnd(sid);
  }
  return r.res;
}
export default { connect };
