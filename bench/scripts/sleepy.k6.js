// A sleep-heavy k6 script for the memory check (issue 11: 10,000 VUs of a
// sleep-heavy script on one machine): each VU makes one GET, then sleeps, so
// memory per VU dominates and the request rate stays low (VUS / SLEEP_SEC).
//
//   BASE_URL=http://127.0.0.1:3000 VUS=10000 k6 run bench/scripts/sleepy.k6.js
//
// Env: BASE_URL (required), TARGET_PATH (default /), VUS (1000), RAMP_SEC (10),
// HOLD_SEC (20), SLEEP_SEC (10). Used by `python3 bench/k6.py --sleepy`.
import http from 'k6/http';
import { check, sleep } from 'k6';

const vus = +(__ENV.VUS) || 1000;
const ramp = +(__ENV.RAMP_SEC) || 10;
const hold = +(__ENV.HOLD_SEC) || 20;
const nap = +(__ENV.SLEEP_SEC) || 10;
const url = `${__ENV.BASE_URL}${__ENV.TARGET_PATH || '/'}`;

export const options = {
  stages: [
    { duration: `${ramp}s`, target: vus },
    { duration: `${hold}s`, target: vus },
  ],
};

export default function () {
  const res = http.get(url, { tags: { name: 'sleepy' } });
  check(res, { 'is status 200': (r) => r.status === 200 });
  sleep(nap + Math.random());
}
