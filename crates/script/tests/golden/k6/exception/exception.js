// An exception thrown inside an iteration: counted, logged, the run goes on.
import http from 'k6/http';

export const options = { vus: 1, iterations: 4 };

export default function () {
  http.get(`${__ENV.BASE}/fast`);
  if (__ITER % 2 === 1) {
    throw new Error(`boom in iteration ${__ITER}`);
  }
}
