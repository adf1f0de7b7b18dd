// A plain script for the CLI flags -u -i -d -s -e -q --tag (no options of its own).
import http from 'k6/http';
import { sleep } from 'k6';

export default function () {
  http.get(`${__ENV.BASE}/fast`);
  if (__ITER === 0 && __VU === 1) console.log(`EXTRA=${__ENV.EXTRA}`);
  sleep(0.1);
}
