// Small samples: k6 interpolates percentiles (and med) linearly between the
// sorted values (rank p·(n−1)); a plain Trend and a time Trend, fixed values.
import { Trend } from 'k6/metrics';

const values = new Trend('my_values');
const times = new Trend('my_times', true);

export const options = {
  iterations: 1,
  summaryTrendStats: ['avg', 'min', 'med', 'max', 'p(90)', 'p(95)', 'p(99.9)', 'count'],
};

export default function () {
  for (const v of [7, 1, 10, 3, 2, 9, 4, 8, 6, 5]) {
    values.add(v);
    times.add(v * 1.5);
  }
  values.add(100, { kind: 'odd' });
  values.add(40, { kind: 'odd' });
}
