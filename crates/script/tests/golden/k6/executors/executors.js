// Every executor but externally-controlled, one scenario each, run together.
import http from 'k6/http';
import { sleep } from 'k6';
import exec from 'k6/execution';

export const options = {
  scenarios: {
    shared: { executor: 'shared-iterations', vus: 2, iterations: 6, maxDuration: '10s', exec: 'hit', tags: { sc: 'shared' } },
    pervu: { executor: 'per-vu-iterations', vus: 2, iterations: 3, maxDuration: '10s', exec: 'hit' },
    constant: { executor: 'constant-vus', vus: 2, duration: '2s', exec: 'hit' },
    ramping: {
      executor: 'ramping-vus', startVUs: 0, exec: 'hit',
      stages: [{ duration: '1s', target: 3 }, { duration: '1s', target: 0 }],
      gracefulRampDown: '0s',
    },
    car: { executor: 'constant-arrival-rate', rate: 10, timeUnit: '1s', duration: '2s', preAllocatedVUs: 2, maxVUs: 4, exec: 'hit' },
    rar: {
      executor: 'ramping-arrival-rate', startRate: 2, timeUnit: '1s', preAllocatedVUs: 2, maxVUs: 4, exec: 'hit',
      stages: [{ target: 10, duration: '1s' }, { target: 2, duration: '1s' }],
    },
  },
};

export function hit() {
  http.get(`${__ENV.BASE}/fast?sc=${exec.scenario.name}`);
  if (exec.scenario.iterationInTest === 0) {
    console.log(`first iteration of ${exec.scenario.name} (${exec.scenario.executor}) on VU ${exec.vu.idInTest}`);
  }
  sleep(0.1);
}
