// options.summaryTrendStats chooses the columns of every trend.
import http from 'k6/http';
import { Trend } from 'k6/metrics';

const t = new Trend('my_trend');

export const options = {
  vus: 1,
  iterations: 5,
  summaryTrendStats: ['avg', 'min', 'med', 'max', 'p(90)', 'p(99)', 'p(99.9)', 'count'],
};

export default function () {
  http.get(`${__ENV.BASE}/fast`);
  t.add(__ITER + 1);
}
