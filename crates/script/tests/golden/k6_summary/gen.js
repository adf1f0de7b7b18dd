import http from 'k6/http';
import { check, group } from 'k6';
import { Trend, Counter, Gauge, Rate } from 'k6/metrics';
const t = new Trend('my_trend', true);
const n = new Trend('plain_trend');
const c = new Counter('my_counter');
const g = new Gauge('my_gauge');
const r = new Rate('my_rate');
const bytes = new Counter('my_bytes', false);
export const options = { vus: 2, iterations: 6, thresholds: { 'http_req_duration': ['p(95)<500', 'avg<0.0001'], 'http_req_duration{name:home}': ['max<1000'], my_counter: ['count>1'], 'checks{kind:strict}': ['rate>0.99'] } };
export default function () {
  group('outer', () => {
    const res = http.get('http://127.0.0.1:18777/', { tags: { name: 'home' } });
    check(res, { 'is 200': (x) => x.status === 200, 'is 404': (x) => x.status === 404 }, { kind: 'strict' });
    group('inner', () => { check(1, { 'always': () => true }); });
  });
  t.add(12.5); n.add(3.14159); c.add(1); g.add(__VU * 7); r.add(__ITER % 2 === 0);
}
export function handleSummary(data) { return { 'data.json': JSON.stringify(data, null, 1) }; }
