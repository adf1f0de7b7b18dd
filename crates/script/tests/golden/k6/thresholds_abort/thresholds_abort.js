// abortOnFail: the run stops early once the threshold fails (delayAbortEval 1s).
import http from 'k6/http';
import { sleep } from 'k6';

export const options = {
  vus: 2,
  duration: '20s',
  thresholds: {
    http_req_failed: [{ threshold: 'rate<0.01', abortOnFail: true, delayAbortEval: '1s' }],
    http_req_duration: ['p(95)<5000'],
  },
};

export default function () {
  http.get(`${__ENV.BASE}/err`);
  sleep(0.1);
}
