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
  Client, StatusOK, StatusCanceled, StatusUnknown, StatusInvalidArgument, StatusDeadlineExceeded,
  StatusNotFound, StatusAlreadyExists, StatusPermissionDenied, StatusResourceExhausted,
  StatusFailedPrecondition, StatusAborted, StatusOutOfRange, StatusUnimplemented, StatusInternal,
  StatusUnavailable, StatusDataLoss, StatusUnauthenticated,
};
