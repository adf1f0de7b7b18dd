// constant-arrival-rate with too few VUs for the rate: iterations are dropped.
import http from 'k6/http';

export const options = {
  scenarios: {
    open: { executor: 'constant-arrival-rate', rate: 20, timeUnit: '1s', duration: '2s', preAllocatedVUs: 1, maxVUs: 1 },
  },
};

export default function () {
  http.get(`${__ENV.BASE}/slow`);
}
