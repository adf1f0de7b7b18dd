// Ctrl-C: make.py sends SIGINT 2 s into a 30 s run; k6 stops, prints the summary.
import http from 'k6/http';
import { sleep } from 'k6';

export const options = { vus: 2, duration: '30s', thresholds: { http_req_failed: ['rate<0.01'] } };

export default function () {
  http.get(`${__ENV.BASE}/fast`);
  sleep(0.1);
}

export function teardown() {
  console.log('teardown ran');
}
