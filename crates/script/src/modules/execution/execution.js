
const k = globalThis.__k6;
const exec = {
  get vu() {
    const v = k.execVu();
    // Writes tag the VU's later samples, as in k6.
    const tags = new Proxy(v.tags, {
      set(o, name, value) {
        if (value === null || value === undefined || typeof value === 'object' || typeof value === 'function') {
          throw new TypeError(`exec.vu.tags.${String(name)}: a tag's value must be a string, number or boolean`);
        }
        o[name] = String(value);
        k.vuTag(String(name), String(value));
        return true;
      },
      deleteProperty(o, name) {
        delete o[name];
        k.vuTag(String(name), null);
        return true;
      },
    });
    v.tags = tags;
    v.metrics.tags = tags;
    return v;
  },
  get scenario() { return k.execScenario(); },
  get instance() { return k.execInstance(); },
  get test() { return { abort: (m) => k.abort(m === undefined ? '' : String(m)), options: k.execOptions() }; },
};
export default exec;
export const vu = undefined;
