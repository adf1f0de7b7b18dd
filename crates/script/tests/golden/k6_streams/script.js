import * as streams from 'k6/experimental/streams';
import { ReadableStream, CountQueuingStrategy, ReadableStreamDefaultReader } from 'k6/experimental/streams';
import { setTimeout } from 'k6/timers';
import { check } from 'k6';

export const options = { iterations: 1 };

// The default function is async; its lines reach handleSummary as the names
// of checks, numbered so they keep their order.
let n = 0;
function out(...parts) {
  const line = parts.map(String).join(' ');
  n += 1;
  check(null, { [`${String(n).padStart(3, '0')} ${line}`]: () => true });
}
const show = (e) => (e === undefined ? 'undefined' : e === null ? 'null'
  : `${typeof e} ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}`);
const attempt = (f) => { try { const v = f(); return `ok ${typeof v}`; } catch (e) { return `throws ${show(e)}`; } };
const settle = (p) => p.then(
  (v) => (v !== null && typeof v === 'object' ? `value=${show(v.value)} done=${v.done}` : `fulfilled ${show(v)}`),
  (e) => `rejected ${show(e)}`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// k6's streams example, with short timers.
function numbersStream() {
  let currentNumber = 0;
  return new ReadableStream({
    start(controller) {
      const fn = () => {
        if (currentNumber < 5) {
          controller.enqueue(++currentNumber);
          setTimeout(fn, 5);
          return;
        }
        controller.close();
      };
      setTimeout(fn, 5);
    },
  });
}

async function example() {
  const stream = numbersStream();
  const reader = stream.getReader();
  while (true) {
    const { done, value } = await reader.read();
    if (done) break;
    out(`received number ${value} from stream`);
  }
  out('we are done');
}

async function shapes() {
  out('exports', Object.keys(streams).sort().join(','));
  out('types', typeof ReadableStream, typeof CountQueuingStrategy, typeof ReadableStreamDefaultReader);
  const s = new ReadableStream();
  out('stream keys', Object.keys(s).join(','), s.locked, s.source, s instanceof ReadableStream);
  out('stream has', typeof s.getReader, typeof s.cancel, typeof s.tee, typeof s.pipeTo, typeof s.values,
    typeof s[Symbol.asyncIterator]);
  const r = s.getReader();
  out('reader keys', Object.keys(r).join(','), s.locked, r instanceof ReadableStreamDefaultReader);
  r.releaseLock();
  out('released', s.locked);
  const q = new CountQueuingStrategy({ highWaterMark: 3 });
  out('count strategy', Object.keys(q).join(','), q.highWaterMark, typeof q.size, q.size('abc'), q.size());
  const d = Object.getOwnPropertyDescriptor(q, 'highWaterMark');
  out('count strategy hwm', d.writable, d.enumerable, d.configurable);
  out('count strategy errors', attempt(() => new CountQueuingStrategy()), attempt(() => new CountQueuingStrategy({})),
    attempt(() => new CountQueuingStrategy(4)), attempt(() => new CountQueuingStrategy({ highWaterMark: 1 }, 2)));
  const given = {};
  new ReadableStream({}, given);
  out('strategy given highWaterMark', JSON.stringify(given));
  const r2 = new ReadableStreamDefaultReader(new ReadableStream());
  out('reader constructor', Object.keys(r2).join(','));
  out('reader constructor errors', attempt(() => new ReadableStreamDefaultReader()),
    attempt(() => new ReadableStreamDefaultReader({})));
}

async function constructorErrors() {
  out('source null', attempt(() => new ReadableStream(null)));
  out('source number', attempt(() => new ReadableStream(1)));
  out('source array', attempt(() => new ReadableStream([])));
  out('type foo', attempt(() => new ReadableStream({ type: 'foo' })));
  out('type bytes', attempt(() => new ReadableStream({ type: 'bytes' })));
  out('start not a function', attempt(() => new ReadableStream({ start: 1 })));
  out('pull not a function', attempt(() => new ReadableStream({ pull: 'x' })));
  out('cancel not a function', attempt(() => new ReadableStream({ cancel: {} })));
  out('highWaterMark -1', attempt(() => new ReadableStream({}, { highWaterMark: -1 })));
  out('highWaterMark NaN', attempt(() => new ReadableStream({}, { highWaterMark: NaN })));
  out('highWaterMark string', attempt(() => new ReadableStream({}, { highWaterMark: '2' })));
  out('highWaterMark Infinity', attempt(() => new ReadableStream({}, { highWaterMark: Infinity })));
  out('size not a function', attempt(() => new ReadableStream({}, { size: 3 })));
  out('count strategy', attempt(() => new ReadableStream({}, new CountQueuingStrategy({ highWaterMark: 0 }))));
  out('start throws', attempt(() => new ReadableStream({ start() { throw new Error('no start'); } })));
  const s = new ReadableStream();
  out('tee', attempt(() => s.tee()));
  out('byob', attempt(() => s.getReader({ mode: 'byob' })));
  out('mode other', attempt(() => s.getReader({ mode: 'other' })));
  out('getReader options', attempt(() => s.getReader({}).releaseLock()), attempt(() => s.getReader(null).releaseLock()));
}

async function pullSource() {
  const log = [];
  let i = 0;
  let c;
  const stream = new ReadableStream({
    start(controller) {
      c = controller;
      log.push(`start desiredSize=${controller.desiredSize}`);
    },
    pull(controller) {
      i += 1;
      log.push(`pull ${i} desiredSize=${controller.desiredSize}`);
      if (i <= 5) controller.enqueue(`chunk${i}`);
      else controller.close();
      log.push(`after pull ${i} desiredSize=${controller.desiredSize}`);
    },
  }, { highWaterMark: 3 });
  log.push(`constructed desiredSize=${c.desiredSize}`);
  await sleep(5);
  log.push(`idle desiredSize=${c.desiredSize}`);
  out('pull source filled', log.join('; '));
  log.length = 0;
  const reader = stream.getReader();
  for (;;) {
    const r = await reader.read();
    log.push(`read ${show(r.value)} ${r.done} desiredSize=${c.desiredSize}`);
    if (r.done) break;
  }
  out('pull source read', log.join('; '));
  out('pull source closed', await settle(reader.closed), 'again', await settle(reader.read()));
  out('enqueue after close', attempt(() => c.enqueue('late')));
  out('close after close', attempt(() => c.close()));
  out('error after close', attempt(() => c.error(new Error('late'))), c.desiredSize);
}

async function asyncPull() {
  const log = [];
  let i = 0;
  const stream = new ReadableStream({
    start() {
      log.push('start');
      return sleep(5).then(() => log.push('start done'));
    },
    async pull(controller) {
      i += 1;
      log.push(`pull ${i}`);
      await sleep(2);
      if (i > 3) { controller.close(); log.push('closed'); return; }
      controller.enqueue(i * 10);
      log.push(`enqueued ${i * 10}`);
    },
  }, { highWaterMark: 0 });
  const reader = stream.getReader();
  log.push('reading');
  const reads = [reader.read(), reader.read(), reader.read(), reader.read(), reader.read()];
  reads.forEach((p, k) => p.then((r) => log.push(`read ${k} ${show(r.value)} ${r.done}`)));
  reader.closed.then(() => log.push('closed resolved'));
  await Promise.all(reads);
  await sleep(1);
  out('async pull order', log.join('; '));
}

async function microtaskOrder() {
  const log = [];
  let c;
  const stream = new ReadableStream({
    start(controller) { c = controller; log.push('start'); },
    pull() { log.push(`pull desiredSize=${c.desiredSize}`); },
  });
  log.push('constructed');
  const reader = stream.getReader();
  const p = reader.read();
  p.then((r) => log.push(`read ${show(r.value)}`));
  Promise.resolve().then(() => log.push('tick 1')).then(() => log.push('tick 2')).then(() => log.push('tick 3'));
  c.enqueue('a');
  log.push('enqueued a');
  c.enqueue('b');
  log.push(`enqueued b desiredSize=${c.desiredSize}`);
  await sleep(1);
  const q = reader.read();
  q.then((r) => log.push(`read ${show(r.value)}`));
  Promise.resolve().then(() => log.push('tick 4'));
  await sleep(1);
  out('microtask order', log.join('; '));
}

async function sizes() {
  let c;
  const bytes = new ReadableStream({ start(controller) { c = controller; } },
    { highWaterMark: 10, size(chunk) { return chunk.length; } });
  const d = [c.desiredSize];
  c.enqueue('abcd');
  d.push(c.desiredSize);
  c.enqueue('abcdefghij');
  d.push(c.desiredSize);
  const reader = bytes.getReader();
  const r = await reader.read();
  d.push(`${r.value} ${c.desiredSize}`);
  out('size by length', d.join(','));
  let c2;
  const s2 = new ReadableStream({ start(controller) { c2 = controller; } },
    new CountQueuingStrategy({ highWaterMark: 2 }));
  c2.enqueue({ a: 1 });
  c2.enqueue([1, 2, 3]);
  out('count strategy desiredSize', c2.desiredSize);
  c2.enqueue('x');
  out('count strategy over', c2.desiredSize, s2.locked);
  let c3;
  const s3 = new ReadableStream({ start(controller) { c3 = controller; } }, { size() { return -1; } });
  out('negative size', attempt(() => c3.enqueue('x')), c3.desiredSize);
  const r3 = s3.getReader();
  out('negative size read', await settle(r3.read()), await settle(r3.closed));
  let c4;
  new ReadableStream({ start(controller) { c4 = controller; } }, { size() { return Infinity; } });
  out('infinite size', attempt(() => c4.enqueue('x')));
  let c5;
  new ReadableStream({ start(controller) { c5 = controller; } }, { size() { throw new TypeError('bad size'); } });
  out('size throws', attempt(() => c5.enqueue('x')), c5.desiredSize);
}

async function cancels() {
  const log = [];
  const src = {
    start(c) { c.enqueue('queued'); },
    pull() { log.push('pull'); },
    cancel(reason) { log.push(`source cancel ${show(reason)} this=${this === src}`); return 'ignored'; },
  };
  const s = new ReadableStream(src);
  await sleep(1);
  out('cancel', await settle(s.cancel('no more')), log.join('; '));
  out('cancel again', await settle(s.cancel('twice')), log.length);
  const reader = s.getReader();
  out('after cancel', await settle(reader.read()), await settle(reader.closed));

  const src2 = {
    cancel(reason) { log.push(`async cancel ${show(reason)} ${this === src2}`); return sleep(2).then(() => log.push('async cancel done')); },
  };
  log.length = 0;
  const s2 = new ReadableStream(src2);
  const r2 = s2.getReader();
  const pending = settle(r2.read());
  const cp = r2.cancel('from reader').then((v) => { log.push(`cancel resolved ${show(v)}`); });
  log.push('cancel called');
  out('reader cancel', await pending, await settle(r2.closed));
  await cp;
  out('reader cancel log', log.join('; '));

  log.length = 0;
  const s3 = new ReadableStream({ cancel(reason) { log.push(`reason ${show(reason)}`); } });
  await s3.cancel();
  const s4 = new ReadableStream({ cancel(reason) { log.push(`reason ${show(reason)}`); } });
  await s4.cancel(undefined);
  const s5 = new ReadableStream({ cancel(reason) { log.push(`reason ${show(reason)}`); } });
  await s5.getReader().cancel();
  out('cancel without reason', log.join('; '));

  out('cancel throws', await settle(new ReadableStream({ cancel() { throw new RangeError('cannot'); } }).cancel('x')));
  out('cancel throws string', await settle(new ReadableStream({ cancel() { throw 'oops'; } }).cancel('x')));
  out('cancel rejects', await settle(new ReadableStream({ cancel() { return Promise.reject(new Error('later')); } }).cancel('x')));
  const locked = new ReadableStream();
  const lr = locked.getReader();
  out('cancel locked', await settle(locked.cancel('x')), locked.locked);
  lr.releaseLock();
  out('cancel released', await settle(lr.cancel('x')), await settle(locked.cancel('x')));
}

async function errors() {
  let c;
  const s = new ReadableStream({ start(controller) { c = controller; } });
  const reader = s.getReader();
  const p1 = settle(reader.read());
  const p2 = settle(reader.read());
  c.error(new TypeError('broken'));
  out('error pending reads', await p1, await p2);
  out('error closed', await settle(reader.closed), c.desiredSize);
  out('error read after', await settle(reader.read()));
  out('error enqueue', attempt(() => c.enqueue(1)), attempt(() => c.close()), attempt(() => c.error('again')));
  out('error cancel', await settle(reader.cancel('x')));
  reader.releaseLock();
  out('error released closed', await settle(reader.closed));
  const again = s.getReader();
  out('error new reader', await settle(again.closed), await settle(again.read()));

  let c2;
  const s2 = new ReadableStream({ start(controller) { c2 = controller; } });
  c2.error('plain');
  const r2 = s2.getReader();
  out('error string', await settle(r2.closed), await settle(r2.read()));
  let c3;
  const s3 = new ReadableStream({ start(controller) { c3 = controller; } });
  c3.error();
  const r3 = s3.getReader();
  out('error undefined', await settle(r3.closed), await settle(r3.read()));

  const s4 = new ReadableStream({ start() { return Promise.reject(new Error('start failed')); } });
  const r4 = s4.getReader();
  out('start rejects', await settle(r4.read()), await settle(r4.closed));
  const s5 = new ReadableStream({ pull() { throw new RangeError('pull failed'); } });
  const r5 = s5.getReader();
  out('pull throws', await settle(r5.read()), await settle(r5.closed));
  const s6 = new ReadableStream({ pull() { return Promise.reject(new Error('pull rejected')); } });
  await sleep(1);
  const r6 = s6.getReader();
  out('pull rejects', await settle(r6.read()), await settle(r6.closed));
}

async function locks() {
  const s = new ReadableStream();
  const reader = s.getReader();
  out('getReader twice', attempt(() => s.getReader()));
  out('reader constructor locked', attempt(() => new ReadableStreamDefaultReader(s)));
  const closed = settle(reader.closed);
  const p1 = settle(reader.read());
  const p2 = settle(reader.read());
  reader.releaseLock();
  out('releaseLock pending', await p1, await p2, await closed, s.locked);
  reader.releaseLock();
  out('released twice', s.locked, await settle(reader.read()));
  const second = s.getReader();
  out('second reader', s.locked, second.closed === second.closed);

  let c;
  const done = new ReadableStream({ start(controller) { c = controller; } });
  const dr = done.getReader();
  c.enqueue('last');
  c.close();
  out('close with queue', c.desiredSize, await settle(dr.read()), await settle(dr.read()), await settle(dr.closed));
  dr.releaseLock();
  out('released after close', await settle(dr.closed));
  const dr2 = done.getReader();
  out('new reader after close', await settle(dr2.closed), await settle(dr2.read()));
}

export default async function () {
  await example();
  await shapes();
  await constructorErrors();
  await pullSource();
  await asyncPull();
  await microtaskOrder();
  await sizes();
  await cancels();
  await errors();
  await locks();
}

// Where the file goes: $OUT, else the working folder.
const at = (f) => (__ENV.OUT ? `${__ENV.OUT}/` : '') + f;
export function handleSummary(data) {
  const names = data.root_group.checks.map((c) => c.name).sort();
  return { [at('got.txt')]: names.map((l) => l.slice(4)).join('\n') + '\n' };
}
