// Counter, Gauge, Rate and Trend with tags; thresholds on them, with tag filters,
// all passing; options.tags and a CLI --tag are added to every sample.
import http from 'k6/http';
import { Counter, Gauge, Rate, Trend } from 'k6/metrics';

const items = new Counter('my_items');
const depth = new Gauge('my_depth');
const okRate = new Rate('my_ok_rate');
const lat = new Trend('my_latency');
const latTime = new Trend('my_latency_time', true);

export const options = {
  vus: 2,
  iterations: 10,
  tags: { suite: 'golden' },
  thresholds: {
    my_items: ['count>=10'],
    'my_items{kind:apple}': ['count>=5'],
    my_depth: ['value<100'],
    my_ok_rate: ['rate>0.5'],
    'my_latency{kind:pear}': ['p(95)<1000', 'avg<1000'],
    my_latency_time: ['max<60000'],
    'http_req_duration{endpoint:fast}': ['p(95)<2000'],
    http_reqs: ['count>=10'],
  },
};

export default function () {
  const kind = __ITER % 2 === 0 ? 'apple' : 'pear';
  const r = http.get(`${__ENV.BASE}/fast`, { tags: { endpoint: 'fast' } });
  items.add(1, { kind: kind });
  items.add(2);
  depth.add(__ITER * 10 + __VU);
  okRate.add(r.status === 200, { kind: kind });
  okRate.add(__ITER % 4 === 0);
  lat.add(r.timings.waiting, { kind: kind });
  latTime.add(r.timings.duration);
}
