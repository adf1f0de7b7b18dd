
const k = globalThis.__k6;
class Metric {
  constructor(name, kind, isTime) {
    this.name = name;
    this._id = k.metricNew(String(name), kind, !!isTime);
  }
}
// add(value, tags) is native (`metricAdd` in metrics/mod.rs), a method like a class's own.
Object.defineProperty(Metric.prototype, 'add', { value: k.metricAdd, writable: true, configurable: true });
export class Counter extends Metric { constructor(name, isTime) { super(name, 'counter', isTime); } }
export class Gauge extends Metric { constructor(name, isTime) { super(name, 'gauge', isTime); } }
export class Rate extends Metric { constructor(name, isTime) { super(name, 'rate', isTime); } }
export class Trend extends Metric { constructor(name, isTime) { super(name, 'trend', isTime); } }
export default { Counter, Gauge, Rate, Trend };
