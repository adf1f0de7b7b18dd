(k) => {
  // Each VU's timers by id (ids count from 1 in each VU, as k6's): a VU's
  // turn looks only at its own. By VU in arrays, not Maps: QuickJS's Map
  // finds a number key in a chain as long as the map (~2.4 µs at 1,000
  // keys), an array's index in ~0.1 µs.
  const byVu = [];
  const seqs = [];
  const mine = (vu) => byVu[vu] ?? (byVu[vu] = new Map());
  const add = (fn, ms, args, every) => {
    if (typeof fn !== 'function') {
      throw new TypeError(`could not convert function call parameter 0: could not convert ${String(fn)} to sobek.Callable`);
    }
    ms = Number(ms);
    if (!(ms > 0)) ms = 0;
    // An interval of 0 would fire without end: at least 1 ms, as in Node.
    if (every && ms < 1) ms = 1;
    const vu = k.vuIndex();
    const id = (seqs[vu] ?? 0) + 1;
    seqs[vu] = id;
    mine(vu).set(id, { id, at: k.clock() + ms, fn, args, every: every ? ms : -1 });
    k.timersLive(1);
    return id;
  };
  const clear = (id) => {
    const m = byVu[k.vuIndex()];
    if (m !== undefined && m.delete(Number(id))) k.timersLive(-1);
  };
  globalThis.setTimeout = (fn, ms, ...args) => add(fn, ms, args, false);
  globalThis.setInterval = (fn, ms, ...args) => add(fn, ms, args, true);
  globalThis.clearTimeout = clear;
  globalThis.clearInterval = clear;
  // http.asyncRequest: queued by VU, and sent together when the VU's
  // event loop next turns (after the code that made them has returned or
  // awaits); each promise settles with its response (or the request's
  // exception, with `throw`).
  const queued = [];
  k.asyncRequest = (method, url, body, params) => new Promise((resolve, reject) => {
    const vu = k.vuIndex();
    let q = queued[vu];
    if (q === undefined) queued[vu] = q = [];
    q.push([String(method).toUpperCase(), url, body === undefined ? null : body, params, resolve, reject]);
    k.timersLive(1);
  });
  const send = (q) => {
    if (q.length === 1) {
      const [m, u, b, p, resolve, reject] = q[0];
      let r;
      try { r = k.request(m, u, b, p); } catch (e) { reject(e); return; }
      resolve(r);
      return;
    }
    let rs;
    try { rs = k.batch(q.map((x) => x.slice(0, 4))); } catch (e) { for (const x of q) x[5](e); return; }
    rs.forEach((r, i) => q[i][4](r));
  };
  // Sends the VU's queued requests, or waits for its next timer and runs
  // its callback; false when the VU has neither.
  k.timerStep = () => {
    const vu = k.vuIndex();
    const q = queued[vu];
    if (q !== undefined) {
      queued[vu] = undefined;
      k.timersLive(-q.length);
      send(q);
      return true;
    }
    const all = byVu[vu];
    let id = 0, t;
    if (all !== undefined) for (const [i, x] of all) if (t === undefined || x.at < t.at) { id = i; t = x; }
    // k6/websockets' sockets and k6/net/grpc's streams: waited on with
    // the VU's next timer (both kinds at once: each in turn, 10 ms at most).
    const live = [k.wsVu, k.grpcVu].filter((s) => s !== undefined && s.live(vu));
    if (live.length > 0) {
      const wait = t === undefined ? -1 : Math.max(0, t.at - k.clock());
      if (live.length === 1) {
        if (live[0].step(vu, wait)) return true;
        if (t === undefined) return true;
      } else {
        let any = false;
        for (const s of live) if (s.step(vu, any ? 0 : (wait < 0 ? 10 : Math.min(wait, 10)))) any = true;
        if (any || t === undefined || t.at > k.clock()) return true;
      }
    } else {
      if (t === undefined) return false;
      const wait = t.at - k.clock();
      if (wait > 0) k.sleep(wait / 1000);
    }
    if (all.get(id) !== t) return true;
    if (t.every >= 0) t.at = Math.max(t.at + t.every, k.clock());
    else { all.delete(id); k.timersLive(-1); }
    t.fn(...t.args);
    return true;
  };
  // The VU's timers left when its iteration ends (an exception, a stop):
  // k6's warning for each, in the order they were due.
  k.timersDrop = () => {
    const vu = k.vuIndex();
    if (k.wsVu !== undefined) k.wsVu.drop(vu);
    if (k.grpcVu !== undefined) k.grpcVu.drop(vu);
    const all = byVu[vu];
    const left = all === undefined ? [] : [...all.values()];
    if (all !== undefined) { all.clear(); k.timersLive(-left.length); }
    left.sort((a, b) => a.at - b.at || a.id - b.id);
    for (const x of left) k.warn(`${x.every >= 0 ? 'setInterval' : 'setTimeout'} ${x.id} was stopped because the VU iteration was interrupted`);
    const q = queued[vu];
    if (q !== undefined) { queued[vu] = undefined; k.timersLive(-q.length); }
  };
}
