// k6/net/grpc: a gRPC client for unary calls (natives in mod.rs).
const k = globalThis.__k6;
const ids = new WeakMap();

export class Client {
  constructor() {
    ids.set(this, k.grpcNew());
  }

  // The methods of the .proto files, found under importPaths (relative to
  // the script) then the script's folder; in the init context only.
  load(importPaths, ...files) {
    const paths = importPaths === null || importPaths === undefined ? [] : Array.from(importPaths, String);
    // k6's MethodInfo, its fields in k6's order.
    return k.grpcLoad(ids.get(this), paths, files.map(String)).map((m) => ({
      package: m.package,
      service: m.service,
      full_method: m.full_method,
      name: m.name,
      is_client_stream: m.is_client_stream,
      is_server_stream: m.is_server_stream,
    }));
  }

  // What loadlab does not have yet, named when called (loadProtoset in
  // the init context: before any load).
  // The methods of a protoset file (a FileDescriptorSet), relative to the
  // script; in the init context only.
  loadProtoset(protosetPath) {
    return k.grpcLoadProtoset(ids.get(this), String(protosetPath)).map((m) => ({
      package: m.package,
      service: m.service,
      full_method: m.full_method,
      name: m.name,
      is_client_stream: m.is_client_stream,
      is_server_stream: m.is_server_stream,
    }));
  }

  // grpc.health.v1.Health/Check of `service` (the server's without one):
  // { status }, a HealthCheck* constant.
  healthCheck(service) {
    return { status: k.grpcHealth(ids.get(this), service === undefined || service === null ? '' : String(service)) };
  }

  connect(address, params) {
    return k.grpcConnect(ids.get(this), String(address), params === undefined || params === null ? {} : params);
  }

  invoke(method, request, params) {
    if (request === undefined || request === null) throw k.goError('request message is required');
    const r = k.grpcInvoke(ids.get(this), String(method), JSON.stringify(request), params === undefined || params === null ? {} : params);
    // k6's response object, its fields in k6's order; `error` is null
    // for status OK.
    return { message: r.message, error: r.error === undefined ? null : r.error, headers: r.headers, trailers: r.trailers, status: r.status };
  }

  // The call is made as invoke makes it (the VU waits for it); its answer
  // is the promise's value.
  asyncInvoke(method, request, params) {
    return new Promise((resolve, reject) => {
      try {
        resolve(this.invoke(method, request, params));
      } catch (e) {
        reject(e);
      }
    });
  }

  close() {
    k.grpcClose(ids.get(this));
  }
}

// The streams not yet over: by VU (arrays, as timers/global.fn.js keeps
// its own) and by id.
const byVu = [];
const bySid = Object.create(null);
const EVENTS = ['data', 'error', 'end', 'status'];

const over = (st) => {
  delete bySid[st.sid];
  const set = byVu[st.vu];
  if (set !== undefined) {
    set.delete(st);
    if (set.size === 0) byVu[st.vu] = undefined;
  }
  k.timersLive(-1);
};

// A client, server or bidirectional stream, as k6's: its request goes out
// when it is made; `write` queues a message, `end` closes the sending side;
// the VU's event loop calls the listeners of `data` (each message), then
// `error` (a status other than OK: {code, details, message}) and `end`.
export class Stream {
  constructor(client, method, params) {
    if (!(client instanceof Client)) throw k.goError('the client is not a grpc.Client');
    const sid = k.grpcStreamOpen(ids.get(client), String(method), params === undefined || params === null ? {} : params);
    const st = { sid, vu: k.vuIndex(), listeners: { data: [], error: [], end: [], status: [] } };
    ids.set(this, st);
    bySid[sid] = st;
    (byVu[st.vu] ?? (byVu[st.vu] = new Set())).add(st);
    k.timersLive(1);
  }

  on(event, handler) {
    if (typeof handler !== 'function') throw k.goError(`handler for "${event}" event isn't a callable function`);
    if (!EVENTS.includes(event)) {
      k.warn(`can't register ${event} event handler: unknown GRPC stream's event type: ${event}`);
      return;
    }
    ids.get(this).listeners[event].push(handler);
  }

  write(message) {
    if (message === undefined || message === null) {
      k.warn("can't send empty message");
      return;
    }
    k.grpcStreamWrite(ids.get(this).sid, JSON.stringify(message));
  }

  end() {
    k.grpcStreamEnd(ids.get(this).sid);
  }
}

// A stream is over: its `error` listeners get `error` (unless null),
// then its `end` listeners run.
function finish(st, error, meta) {
  over(st);
  if (error !== null) for (const f of st.listeners.error) f(error, meta);
  for (const f of st.listeners.end) f({}, meta);
}

// The VU's event loop's part (timers/global.fn.js, timerStep): wait (at
// most `wait` ms; < 0: no limit) for its streams' next events and
// dispatch them; false when the wait ended with none.
k.grpcVu = {
  live: (vu) => byVu[vu] !== undefined,
  step(vu, wait) {
    const events = k.grpcStreamStep(vu, wait);
    if (events.length === 0) return false;
    for (const e of events) {
      const st = bySid[e.sid];
      if (st === undefined || e.type === 'none') continue;
      const meta = { ts: Math.floor(Date.now() / 1000) };
      if (e.type === 'data') {
        try {
          for (const f of st.listeners.data) f(e.message, meta);
        } catch (err) {
          // As k6: the stream's error listeners get the exception (code 2,
          // Unknown), then its end listeners; the iteration then ends
          // with the exception (its other streams are dropped with it).
          const at = /\(([^()]*:\d+:\d+)\)/.exec(String(err && err.stack));
          finish(st, { code: 2, details: [], message: `${err}${at ? ` at ${at[1]}` : ''}` }, meta);
          throw err;
        }
        continue;
      }
      finish(st, e.error, meta);
    }
    return true;
  },
  // The iteration ended with streams open (an exception, a stop).
  drop(vu) {
    k.grpcStreamDrop(vu);
    const set = byVu[vu];
    if (set === undefined) return;
    for (const st of [...set]) over(st);
  },
};

export const HealthCheckUnknown = 0;
export const HealthCheckServing = 1;
export const HealthCheckNotServing = 2;
export const HealthCheckServiceUnkown = 3;

export const StatusOK = 0;
export const StatusCanceled = 1;
export const StatusUnknown = 2;
export const StatusInvalidArgument = 3;
export const StatusDeadlineExceeded = 4;
export const StatusNotFound = 5;
export const StatusAlreadyExists = 6;
export const StatusPermissionDenied = 7;
export const StatusResourceExhausted = 8;
export const StatusFailedPrecondition = 9;
export const StatusAborted = 10;
export const StatusOutOfRange = 11;
export const StatusUnimplemented = 12;
export const StatusInternal = 13;
export const StatusUnavailable = 14;
export const StatusDataLoss = 15;
export const StatusUnauthenticated = 16;

export default {
  Client, Stream, HealthCheckUnknown, HealthCheckServing, HealthCheckNotServing, HealthCheckServiceUnkown, StatusOK, StatusCanceled, StatusUnknown, StatusInvalidArgument, StatusDeadlineExceeded,
  StatusNotFound, StatusAlreadyExists, StatusPermissionDenied, StatusResourceExhausted,
  StatusFailedPrecondition, StatusAborted, StatusOutOfRange, StatusUnimplemented, StatusInternal,
  StatusUnavailable, StatusDataLoss, StatusUnauthenticated,
};
