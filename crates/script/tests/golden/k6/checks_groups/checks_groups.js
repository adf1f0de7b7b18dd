// checks (passing and failing), groups and nested groups; check() returns a bool.
import http from 'k6/http';
import { check, group } from 'k6';

export const options = { vus: 2, iterations: 6 };

export default function () {
  group('api', function () {
    const r = http.get(`${__ENV.BASE}/fast`);
    const ok = check(r, {
      'status is 200': (r) => r.status === 200,
      'body says ok': (r) => r.json().ok === true,
    });
    if (!ok) console.log('fast check failed');
    group('nested', function () {
      const r2 = http.get(`${__ENV.BASE}/err`);
      const ok2 = check(r2, { 'status is 200': (r) => r.status === 200 });
      if (__VU === 1 && __ITER === 0) console.log(`nested check returned ${ok2}`);
    });
  });
  check(null, { 'top-level check': () => true });
}
