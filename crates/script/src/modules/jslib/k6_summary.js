// jslib's k6-summary (https://jslib.k6.io/k6-summary/<version>/index.js),
// answered by loadlab (the functions are in summary.fn.js). The same for
// every published version.
const s = globalThis.__k6.jslibSummary;

// The summary's text: the checks by group, then a row per metric.
// Options (over `data.options`): `indent` (' '), `enableColors` (true),
// `summaryTimeUnit`, `summaryTrendStats`.
export function textSummary(data, options) {
  return s.textSummary(data, options);
}

// A JUnit report with a test case per threshold. Options: `name`,
// `classname`.
export function jUnit(data, options) {
  return s.jUnit(data, options);
}

// A metric's value as the summary shows it.
export function humanizeValue(value, metric, timeUnit) {
  return s.humanizeValue(value, metric, timeUnit);
}
