// externally-controlled executor (run alone; k6 then listens on its REST API).
import http from 'k6/http';
import { sleep } from 'k6';

export const options = {
  scenarios: {
    ext: { executor: 'externally-controlled', vus: 1, maxVUs: 2, duration: '2s' },
  },
};

export default function () {
  http.get(`${__ENV.BASE}/fast`);
  sleep(0.2);
}
