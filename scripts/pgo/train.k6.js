// The k6 half of loadlab's profile-guided build (scripts/pgo-build.sh):
// what k6 scripts do per request, against `loadlab origin` serving
// scripts/pgo/recipe.json at BASE_URL. Writers PUT and sleep; readers
// poll, parse the JSON, ack and sleep; a constant-arrival-rate scenario
// beside them. It is training input, not a benchmark: bench/k6.py measures
// on the DSPS pub/sub script and server, which this script is not.
import http from 'k6/http';
import { check, group, sleep } from 'k6';
import { Counter, Rate, Trend } from 'k6/metrics';

const BASE = __ENV.BASE_URL;
const items = new Counter('train_items');
const waiting = new Trend('train_waiting_ms');
const good = new Rate('train_good');

export const options = {
  scenarios: {
    users: {
      executor: 'ramping-vus',
      exec: 'users',
      stages: [
        { duration: '2s', target: 300 },
        { duration: '6s', target: 300 },
        { duration: '1s', target: 0 },
      ],
    },
    arrivals: {
      executor: 'constant-arrival-rate',
      exec: 'arrivals',
      rate: 200,
      timeUnit: '1s',
      duration: '8s',
      preAllocatedVUs: 20,
      maxVUs: 60,
    },
  },
  thresholds: {
    checks: ['rate > 0.9'],
    'http_req_duration{endpoint:poll}': ['p(95) < 5000'],
  },
};

export function setup() {
  return { run: `r${Math.floor(Math.random() * 1e6)}` };
}

export function users(data) {
  const id = `${data.run}-${__VU}-${__ITER}`;
  if (__VU % 4 === 1) {
    group('writer', () => {
      for (let i = 0; i < 3; i++) {
        const res = http.put(`${BASE}/items/${id}-${i}`, JSON.stringify({ at: Date.now() }), {
          tags: { endpoint: 'put' },
        });
        check(res, { 'is status 200': (r) => r.status === 200 });
        waiting.add(res.timings.waiting);
      }
    });
    sleep(1);
    return;
  }
  let handle = null;
  group('reader', () => {
    const res = http.get(`${BASE}/poll/${__VU}?timeout=3s`, { tags: { endpoint: 'poll' } });
    const at = new Date();
    let body = null;
    try {
      body = res.json();
    } catch (e) {
      body = null;
    }
    const ok = check(res, {
      'is status 200': (r) => r.status === 200,
      'has items': () => body !== null && Array.isArray(body.items),
    });
    good.add(ok);
    if (!ok) return;
    items.add(body.items.length);
    for (let i = 0; i < body.items.length; i++) waiting.add(at.getTime() - body.items[i].at);
    handle = body.handle;
  });
  group('ack', () => {
    if (handle) {
      sleep(0.01);
      const res = http.del(`${BASE}/items/ack?handle=${handle}`, null, { tags: { endpoint: 'ack' } });
      check(res, { 'is status 200': (r) => r.status === 200 });
      waiting.add(res.timings.waiting);
    }
  });
  sleep(0.01);
}

export function arrivals() {
  const res = http.get(`${BASE}/items/${__VU}`, { tags: { endpoint: 'arrival' } });
  check(res, { 'is status 200': (r) => r.status === 200 });
}
