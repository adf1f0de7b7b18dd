// k6/experimental/streams: the Streams API's ReadableStream as k6 v1.8.1 has
// it, written for loadlab from the WHATWG Streams standard: a ReadableStream
// with a default controller (start/pull/cancel of the underlying source, with
// promises; enqueue/close/error/desiredSize; a queue with sizes, the
// highWaterMark and the size function of the queuing strategy), a default
// reader (read, releaseLock, cancel, the closed promise, also built with
// `new ReadableStreamDefaultReader(stream)`), stream.cancel/getReader/locked,
// and CountQueuingStrategy. It exports what k6 exports: ReadableStream,
// CountQueuingStrategy and ReadableStreamDefaultReader.
//
// It does what k6 does where the two can be told apart by a script: the
// objects are plain objects (a stream is not `instanceof ReadableStream`, a
// controller is made anew for each start/pull call), the errors carry k6's
// names and messages, cancel() without a reason hands the source null,
// errors stored as primitives come back wrapped in objects where k6 wraps
// them, and what k6 does not support throws k6's GoError: byte streams,
// BYOB readers and tee(). Left out, as k6 leaves them out: WritableStream,
// TransformStream, ByteLengthQueuingStrategy, pipeTo/pipeThrough, async
// iteration and ReadableStream.from.

const READABLE = 'readable';
const CLOSED = 'closed';
const ERRORED = 'errored';

// k6 reports what it does not support as a GoError whose message starts
// with the kind of error.
class GoError extends Error {}
Object.defineProperty(GoError.prototype, 'name', { value: 'GoError', writable: true, configurable: true });
const notSupported = (what) => new GoError(`NotSupportedError:${what}`);

const noop = () => {};
const markHandled = (p) => { p.then(noop, noop); };

// What a rejected or thrown value becomes when it is turned into an object:
// primitives get wrapped, undefined stays undefined, null cannot be.
function asObject(v) {
  if (v === undefined) return v;
  if (v === null) throw new TypeError('Cannot convert undefined or null to object');
  return Object(v);
}

// The streams known to this module, by the object a script holds.
const streamOf = new WeakMap();

// A stream object's prototype: neither Object.prototype nor
// ReadableStream.prototype, as in k6.
const streamProto = {};

// Whether a value counts as a dictionary: a plain object (not an array,
// function, stream or other exotic value).
function isDictionary(v) {
  if (v === null || typeof v !== 'object') return false;
  if (Array.isArray(v) || streamOf.has(v)) return false;
  return !(v instanceof Promise || v instanceof Date || v instanceof RegExp || v instanceof Map ||
    v instanceof Set || v instanceof ArrayBuffer || ArrayBuffer.isView(v) ||
    v instanceof Number || v instanceof String || v instanceof Boolean);
}

function readOnly(obj, name, value) {
  Object.defineProperty(obj, name, { value, writable: false, enumerable: true, configurable: false });
}

function getter(obj, name, get) {
  Object.defineProperty(obj, name, { get, enumerable: true, configurable: false });
}

function promiseFrom(v) {
  return v instanceof Promise ? v : Promise.resolve(v);
}

function defer() {
  let resolve;
  let reject;
  const promise = new Promise((res, rej) => { resolve = res; reject = rej; });
  return { promise, resolve, reject };
}

// ---------------------------------------------------------------------------
// Queuing strategies

function defaultSize(_chunk) { return 1; }

function makeCountStrategy(args, size) {
  const name = 'CountQueuingStrategy';
  if (args.length !== 1) throw new TypeError(`${name} takes a single argument`);
  const init = args[0];
  if (!isDictionary(init)) throw new TypeError(`${name} argument must be an object`);
  const hwm = init.highWaterMark;
  if (hwm === undefined || hwm === null) {
    throw new TypeError(`${name} argument must have 'highWaterMark' property`);
  }
  const strategy = {};
  readOnly(strategy, 'highWaterMark', hwm);
  if (size !== undefined && size !== null) readOnly(strategy, 'size', size);
  return strategy;
}

export function CountQueuingStrategy(...args) {
  return makeCountStrategy(args, defaultSize);
}

function extractSizeAlgorithm(strategy) {
  const size = strategy.size;
  if (size === undefined || size === null) return defaultSize;
  if (typeof size !== 'function') throw new TypeError('size must be a function');
  return size;
}

function extractHighWaterMark(strategy, fallback) {
  const hwm = strategy.highWaterMark;
  if (hwm === undefined || hwm === null) return fallback;
  if (typeof hwm !== 'number' || Number.isNaN(hwm) || hwm < 0) {
    throw new RangeError('highWaterMark must be a non-negative number');
  }
  return hwm;
}

// ---------------------------------------------------------------------------
// The stream's internal state (the spec's internal slots) and its abstract
// operations.

class Stream {
  constructor() {
    this.state = READABLE;
    this.reader = undefined;
    this.storedError = undefined;
    this.disturbed = false;
    this.controller = undefined;
    this.object = undefined;
  }

  isLocked() { return this.reader !== undefined; }

  setLocked(locked) { this.object.locked = locked; }

  cancel(reason) {
    this.disturbed = true;
    if (this.state === CLOSED) return Promise.resolve(undefined);
    if (this.state === ERRORED) return Promise.reject(this.storedError);
    this.close();
    const sourceCancelPromise = this.controller.cancelSteps(reason);
    return sourceCancelPromise.then(() => undefined, (e) => { throw asObject(e); });
  }

  close() {
    this.state = CLOSED;
    const reader = this.reader;
    if (reader === undefined) return;
    reader.closedResolve(undefined);
    const requests = reader.readRequests;
    reader.readRequests = [];
    for (const request of requests) request.close();
  }

  error(e) {
    this.state = ERRORED;
    this.storedError = e;
    const reader = this.reader;
    if (reader === undefined) return;
    reader.closedReject(e);
    markHandled(reader.closedPromise);
    reader.errorReadRequests(e);
  }

  addReadRequest(request) {
    this.reader.readRequests.push(request);
  }

  fulfillReadRequest(chunk, done) {
    const request = this.reader.readRequests.shift();
    if (done) request.close();
    else request.chunk(chunk);
  }

  numReadRequests() {
    return this.reader.readRequests.length;
  }
}

class Controller {
  constructor(stream, source, hwm, size) {
    this.stream = stream;
    this.source = source;
    this.queue = [];
    this.queueTotalSize = 0;
    this.started = false;
    this.closeRequested = false;
    this.pullAgain = false;
    this.pulling = false;
    this.strategyHWM = hwm;
    this.sizeAlgorithm = size;
    this.pullAlgorithm = undefined;
    this.cancelAlgorithm = undefined;
  }

  // What the underlying source gets: a new object each time, whose prototype
  // holds desiredSize and the methods.
  toObject() {
    const proto = {};
    getter(proto, 'desiredSize', () => this.desiredSize());
    readOnly(proto, 'constructor', function () { return {}; });
    readOnly(proto, 'close', () => this.publicClose());
    readOnly(proto, 'enqueue', (chunk) => this.publicEnqueue(chunk));
    readOnly(proto, 'error', (e) => this.error(e));
    return Object.create(proto);
  }

  publicClose() {
    if (!this.canCloseOrEnqueue()) throw new TypeError('cannot close or enqueue');
    this.close();
  }

  publicEnqueue(chunk) {
    if (!this.canCloseOrEnqueue()) throw new TypeError('cannot close or enqueue');
    this.enqueue(chunk);
  }

  desiredSize() {
    const state = this.stream.state;
    if (state === ERRORED) return null;
    if (state === CLOSED) return 0;
    return this.strategyHWM - this.queueTotalSize;
  }

  canCloseOrEnqueue() {
    return !this.closeRequested && this.stream.state === READABLE;
  }

  resetQueue() {
    this.queue = [];
    this.queueTotalSize = 0;
  }

  clearAlgorithms() {
    this.pullAlgorithm = undefined;
    this.cancelAlgorithm = undefined;
    this.sizeAlgorithm = undefined;
  }

  close() {
    if (!this.canCloseOrEnqueue()) return;
    this.closeRequested = true;
    if (this.queue.length === 0) {
      this.clearAlgorithms();
      this.stream.close();
    }
  }

  enqueue(chunk) {
    if (!this.canCloseOrEnqueue()) return;
    const stream = this.stream;
    if (stream.isLocked() && stream.numReadRequests() > 0) {
      stream.fulfillReadRequest(chunk, false);
    } else {
      let size;
      try {
        size = Number(this.sizeAlgorithm.call(undefined, chunk));
      } catch (e) {
        this.error(e);
        throw asObject(e);
      }
      if (Number.isNaN(size) || size < 0 || size === Infinity) {
        const e = new RangeError('size must be a finite, non-NaN number');
        this.error(e);
        throw e;
      }
      this.queue.push({ value: chunk, size });
      this.queueTotalSize += size;
    }
    this.callPullIfNeeded();
  }

  error(e) {
    if (this.stream.state !== READABLE) return;
    this.resetQueue();
    this.clearAlgorithms();
    this.stream.error(e);
  }

  shouldCallPull() {
    if (!this.canCloseOrEnqueue()) return false;
    if (!this.started) return false;
    const stream = this.stream;
    if (stream.isLocked() && stream.numReadRequests() > 0) return true;
    return this.desiredSize() > 0;
  }

  callPullIfNeeded() {
    if (!this.shouldCallPull()) return;
    if (this.pulling) {
      this.pullAgain = true;
      return;
    }
    this.pulling = true;
    const pullPromise = this.pullAlgorithm(this.toObject());
    pullPromise.then(() => {
      this.pulling = false;
      if (this.pullAgain) {
        this.pullAgain = false;
        this.callPullIfNeeded();
      }
    }, (e) => {
      this.error(e);
    });
  }

  cancelSteps(reason) {
    this.resetQueue();
    const result = this.cancelAlgorithm(reason);
    this.clearAlgorithms();
    return result;
  }

  pullSteps(request) {
    const stream = this.stream;
    if (this.queue.length > 0) {
      const { value, size } = this.queue.shift();
      this.queueTotalSize -= size;
      if (this.queueTotalSize < 0) this.queueTotalSize = 0;
      if (this.closeRequested && this.queue.length === 0) {
        this.clearAlgorithms();
        stream.close();
      } else {
        this.callPullIfNeeded();
      }
      request.chunk(value);
    } else {
      stream.addReadRequest(request);
      this.callPullIfNeeded();
    }
  }
}

function setUpController(stream, source, dict, hwm, size) {
  const controller = new Controller(stream, source, hwm, size);
  let start = () => undefined;
  controller.pullAlgorithm = () => Promise.resolve(undefined);
  controller.cancelAlgorithm = () => Promise.resolve(undefined);
  if (dict.hasStart) {
    if (typeof dict.start !== 'function') throw new TypeError('underlyingSource.[[start]] must be a function');
    const fn = dict.start;
    start = (c) => fn.call(source, c);
  }
  if (dict.hasPull) {
    if (typeof dict.pull !== 'function') throw new TypeError('underlyingSource.[[pull]] must be a function');
    const fn = dict.pull;
    controller.pullAlgorithm = (c) => {
      let v;
      try {
        v = fn.call(source, c);
      } catch (e) {
        return Promise.reject(e);
      }
      return promiseFrom(v);
    };
  }
  if (dict.hasCancel) {
    if (typeof dict.cancel !== 'function') throw new TypeError('underlyingSource.[[cancel]] must be a function');
    const fn = dict.cancel;
    controller.cancelAlgorithm = (reason) => {
      let p;
      try {
        const v = fn.call(source, reason);
        if (v instanceof Promise) p = v;
      } catch (e) {
        p = Promise.reject(e);
      }
      return p === undefined ? Promise.resolve(undefined) : p;
    };
  }
  stream.controller = controller;
  const startResult = start(controller.toObject());
  promiseFrom(startResult).then(() => {
    controller.started = true;
    controller.callPullIfNeeded();
  }, (e) => {
    controller.error(e);
  });
}

// ---------------------------------------------------------------------------
// Readers

class Reader {
  constructor(stream) {
    if (stream.isLocked()) throw new TypeError('stream is locked');
    this.stream = stream;
    this.readRequests = [];
    stream.reader = this;
    stream.setLocked(true);
    const d = defer();
    this.closedPromise = d.promise;
    this.closedResolve = d.resolve;
    this.closedReject = d.reject;
    if (stream.state === CLOSED) {
      d.resolve(undefined);
    } else if (stream.state === ERRORED) {
      d.reject(asObject(stream.storedError));
      markHandled(d.promise);
    }
  }

  read() {
    const stream = this.stream;
    if (stream === undefined) return Promise.reject(new TypeError('stream is undefined'));
    const d = defer();
    const request = {
      chunk: (value) => d.resolve({ value, done: false }),
      close: () => d.resolve({ value: undefined, done: true }),
      error: (e) => d.reject(e),
    };
    stream.disturbed = true;
    if (stream.state === CLOSED) request.close();
    else if (stream.state === ERRORED) request.error(stream.storedError);
    else stream.controller.pullSteps(request);
    return d.promise;
  }

  cancel(reason) {
    if (this.stream === undefined) return Promise.reject(new TypeError('stream is undefined'));
    return this.stream.cancel(reason);
  }

  releaseLock() {
    const stream = this.stream;
    if (stream === undefined) return;
    if (stream.state === READABLE) {
      this.closedReject(new TypeError('stream is readable'));
    } else {
      this.closedPromise = Promise.reject(new TypeError('stream is not readable'));
    }
    markHandled(this.closedPromise);
    stream.reader = undefined;
    stream.setLocked(false);
    this.stream = undefined;
    this.errorReadRequests(new TypeError('reader released'));
  }

  errorReadRequests(e) {
    const requests = this.readRequests;
    this.readRequests = [];
    for (const request of requests) request.error(e);
  }
}

// What a script holds of a reader: a plain object. reader.cancel() (like
// stream.cancel()) without a reason gives the source null.
function readerObject(reader) {
  const obj = {};
  getter(obj, 'closed', () => reader.closedPromise);
  readOnly(obj, 'cancel', function (reason) { return reader.cancel(arguments.length ? reason : null); });
  readOnly(obj, 'read', function () { return reader.read(); });
  readOnly(obj, 'releaseLock', function () { reader.releaseLock(); });
  return obj;
}

export function ReadableStreamDefaultReader(...args) {
  if (args.length !== 1) throw new TypeError('ReadableStreamDefaultReader takes a single argument');
  const stream = streamOf.get(args[0]);
  if (stream === undefined) throw new TypeError('ReadableStreamDefaultReader argument must be a ReadableStream');
  return readerObject(new Reader(stream));
}

// ---------------------------------------------------------------------------
// ReadableStream

// The strategy as the stream reads it: the given one (highWaterMark 1 if it
// has none), checked as a CountQueuingStrategy argument is.
function initializeStrategy(args) {
  const given = args.length > 1 && args[1] !== undefined && args[1] !== null ? Object(args[1]) : {};
  if (given.highWaterMark === undefined || given.highWaterMark === null) given.highWaterMark = 1;
  let size = defaultSize;
  const source = args[0];
  if (source !== undefined && source !== null) {
    const type = Object(source).type;
    if (type !== undefined && type !== null && String(type) === 'bytes') size = undefined;
  }
  if ('size' in given) size = given.size;
  return makeCountStrategy([given], size);
}

export function ReadableStream(...args) {
  const strategy = initializeStrategy(args);
  let source = null;
  const dict = { type: undefined };
  if (args.length > 0 && args[0] !== undefined) {
    if (!isDictionary(args[0])) throw new TypeError('underlyingSource must be an object');
    source = args[0];
    const type = source.type;
    if (type !== undefined && String(type) !== 'bytes') throw new TypeError('invalid underlying source type');
    dict.type = type;
    dict.hasStart = 'start' in source;
    dict.hasPull = 'pull' in source;
    dict.hasCancel = 'cancel' in source;
    dict.start = source.start;
    dict.pull = source.pull;
    dict.cancel = source.cancel;
  }

  const stream = new Stream();
  const obj = Object.create(streamProto);
  Object.defineProperty(obj, 'locked', { value: false, writable: true, enumerable: true, configurable: false });
  Object.defineProperty(obj, 'source', { value: null, writable: true, enumerable: true, configurable: false });
  readOnly(obj, 'cancel', function cancel(reason) {
    if (stream.isLocked()) return Promise.reject(new TypeError('cannot cancel a locked stream'));
    return stream.cancel(arguments.length ? reason : null);
  });
  readOnly(obj, 'getReader', function getReader(options) {
    if (options === undefined || options === null || Object(options).mode === undefined) {
      return readerObject(new Reader(stream));
    }
    if (String(options.mode) !== 'byob') throw new TypeError("options.mode is not 'byob'");
    throw notSupported("'byob' mode is not supported yet");
  });
  readOnly(obj, 'tee', function tee() {
    throw notSupported("'tee()' is not supported yet");
  });
  stream.object = obj;
  streamOf.set(obj, stream);

  if (dict.type !== undefined) {
    throw notSupported("'bytes' stream is not supported yet");
  }
  const size = extractSizeAlgorithm(strategy);
  const hwm = extractHighWaterMark(strategy, 1);
  setUpController(stream, source, dict, hwm, size);
  return obj;
}
