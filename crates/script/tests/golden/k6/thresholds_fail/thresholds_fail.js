// Thresholds that fail (exit 99), incl. tag filters and a custom counter; some pass.
import http from 'k6/http';
import { check } from 'k6';
import { Counter } from 'k6/metrics';

const msgs = new Counter('my_messages');

export const options = {
  vus: 2,
  iterations: 8,
  thresholds: {
    checks: ['rate >= 0.9999'],
    my_messages: ['count >= 1000'],
    'http_req_duration{endpoint:slow}': ['p(95)<50', 'max<5000'],
    'http_req_duration{endpoint:fast}': ['p(95)<5000'],
    http_req_failed: ['rate<0.01'],
    'http_reqs{endpoint:err}': ['count<1'],
  },
};

export default function () {
  http.get(`${__ENV.BASE}/fast`, { tags: { endpoint: 'fast' } });
  http.get(`${__ENV.BASE}/slow`, { tags: { endpoint: 'slow' } });
  const r = http.get(`${__ENV.BASE}/err`, { tags: { endpoint: 'err' } });
  check(r, { 'is status 200': (r) => r.status === 200 });
  msgs.add(3);
}
