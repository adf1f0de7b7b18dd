(k) => {
  // jslib's k6-summary (https://jslib.k6.io/k6-summary/<version>/index.js),
  // written for loadlab from the module's documented behaviour: the text
  // k6's handleSummary() data turns into (k6's summary layout before v1,
  // which the module keeps), a JUnit XML report of the thresholds, and the
  // value formatting both use. The module (k6_summary.js) exports them;
  // `--summary-mode=legacy` prints `legacy` (rates as `N out of M`, as
  // k6 v1 prints that mode).
  const GROUP = '█';
  const DETAIL = '↳';
  const PASS = '✓';
  const FAIL = '✗';
  const COLOR = { bold: 1, faint: 2, red: 31, green: 32, cyan: 36 };
  const DEFAULTS = { indent: ' ', enableColors: true, summaryTimeUnit: null, summaryTrendStats: null };

  // Columns a text takes on a terminal: its characters (NFKC), ANSI escapes
  // left out.
  function width(text) {
    let n = 0;
    let esc = 0; // 0: text, 1: after ESC, 2: in a CSI sequence
    for (const ch of String(text).normalize('NFKC')) {
      const c = ch.charCodeAt(0);
      if (ch === '\x1b') { esc = 1; continue; }
      if (esc === 1 && ch === '[') { esc = 2; continue; }
      if (esc === 2) { if (c >= 0x40 && c <= 0x7e) esc = 0; continue; }
      if (esc === 1) { if (c >= 0x40 && c <= 0x5f) esc = 0; continue; }
      n++;
    }
    return n;
  }

  const pad = (text, to) => ' '.repeat(Math.max(0, to - width(text)));

  // `x` to `digits` decimals, trailing zeros dropped.
  const decimals = (x, digits) => String(parseFloat(x.toFixed(digits)));
  // The same, cut (not rounded) to `digits`.
  const cut = (x, digits) => decimals(Math.trunc(x * 10 ** digits) / 10 ** digits, digits);

  function bytes(n) {
    if (n < 10) return `${n} B`;
    const units = ['B', 'kB', 'MB', 'GB', 'TB', 'PB', 'EB', 'ZB', 'YB'];
    const e = Math.floor(Math.log(n) / Math.log(1000));
    const v = Math.floor((n / 1000 ** e) * 10 + 0.5) / 10;
    return `${v.toFixed(v < 10 ? 1 : 0)} ${units[e | 0]}`;
  }

  const UNITS = { s: ['s', 0.001], ms: ['ms', 1], us: ['µs', 1000] };

  // A duration in milliseconds as Go prints one (1m2s, 1.5s, 320.5ms,
  // 14.25µs, 900ns), or in the summary's time unit with two decimals.
  function duration(ms, unit) {
    if (unit && Object.prototype.hasOwnProperty.call(UNITS, unit)) {
      const [name, k] = UNITS[unit];
      return (ms * k).toFixed(2) + name;
    }
    if (ms === 0) return '0s';
    if (ms < 0.001) return `${Math.trunc(ms * 1e6)}ns`;
    if (ms < 1) return `${cut(ms * 1000, 2)}µs`;
    if (ms < 1000) return `${cut(ms, 2)}ms`;
    let text = `${cut((ms % 60000) / 1000, ms > 60000 ? 0 : 2)}s`;
    const minutes = Math.trunc(ms / 60000);
    if (minutes < 1) return text;
    text = `${minutes % 60}m${text}`;
    const hours = Math.trunc(minutes / 60);
    return hours < 1 ? text : `${hours}h${text}`;
  }

  // A metric's value as the summary shows it: a rate as a percentage (cut
  // to two decimals), data as bytes, time as a duration, a number with up
  // to six decimals.
  function humanizeValue(value, metric, timeUnit) {
    if (metric.type === 'rate') return (Math.trunc(value * 10000) / 100).toFixed(2) + '%';
    if (metric.contains === 'data') return bytes(value);
    if (metric.contains === 'time') return duration(value, timeUnit);
    return decimals(value, 6);
  }

  function paint(on) {
    if (!on) return (text) => text;
    return (text, ...codes) => `\x1b[${codes.join(';')}m${text}\x1b[0m`;
  }

  function checkLines(indent, c, color) {
    if (Number(c.fails) === 0) return color(`${indent}${PASS} ${c.name}`, COLOR.green);
    const pct = Math.floor((100 * c.passes) / (c.passes + c.fails));
    return color(`${indent}${FAIL} ${c.name}\n${indent} ${DETAIL}  ${pct}% — ${PASS} ${c.passes} / ${FAIL} ${c.fails}`, COLOR.red);
  }

  function groupLines(indent, group, color) {
    const out = [];
    let inner = indent;
    if (group.name !== '') {
      out.push(`${indent}${GROUP} ${group.name}\n`);
      inner = indent + '  ';
    }
    for (const c of group.checks || []) out.push(checkLines(inner, c, color));
    if ((group.checks || []).length > 0) out.push('');
    for (const g of group.groups || []) out.push(...groupLines(inner, g, color));
    return out;
  }

  // A metric's name as listed: a submetric (`http_req_duration{s:1}`) as
  // `{ s:1 }`, indented under its parent.
  const isSub = (name) => name.includes('{');
  const shownName = (name) => (isSub(name) ? `{ ${name.slice(name.indexOf('{') + 1, -1)} }` : name);

  function values(metric, unit, outOf) {
    const v = metric.values;
    const h = (x) => humanizeValue(x, metric, unit);
    if (metric.type === 'counter') return [h(v.count), `${h(v.rate)}/s`];
    if (metric.type === 'gauge') return [h(v.value), `min=${h(v.min)}`, `max=${h(v.max)}`];
    if (metric.type === 'rate' && outOf) return [h(v.rate), `${v.passes} out of ${v.passes + v.fails}`];
    if (metric.type === 'rate') return [h(v.rate), `${PASS} ${v.passes}`, `${FAIL} ${v.fails}`];
    return ['[no data]'];
  }

  // Parents in order, each followed by its submetrics in order.
  function byParent(a, b) {
    const pa = a.split('{', 1)[0];
    const pb = b.split('{', 1)[0];
    return pa.localeCompare(pb) || a.slice(pa.length).localeCompare(b.slice(pb.length));
  }

  function metricLines(opts, data, color, outOf) {
    const indent = opts.indent + '  ';
    const stats = opts.summaryTrendStats || [];
    const names = Object.keys(data.metrics);
    const rows = {};
    const statWidth = stats.map(() => 0);
    const extraWidth = [];
    let nameWidth = 0;
    let valueWidth = 0;
    for (const name of names) {
      const metric = data.metrics[name];
      nameWidth = Math.max(nameWidth, width((isSub(name) ? '  ' : '') + shownName(name)));
      if (metric.type === 'trend') {
        const cols = stats.map((s) => (s === 'count' ? String(metric.values[s]) : humanizeValue(metric.values[s], metric, opts.summaryTimeUnit)));
        cols.forEach((c, i) => { statWidth[i] = Math.max(statWidth[i], width(c)); });
        rows[name] = { trend: cols };
        continue;
      }
      const [value, ...extras] = values(metric, opts.summaryTimeUnit, outOf);
      valueWidth = Math.max(valueWidth, width(value));
      extras.forEach((e, i) => { extraWidth[i] = Math.max(extraWidth[i] || 0, width(e)); });
      rows[name] = { value, extras };
    }
    const cells = (name) => {
      const r = rows[name];
      if (r.trend) return r.trend.map((c, i) => `${stats[i]}=${color(c, COLOR.cyan)}${pad(c, statWidth[i])}`).join(' ');
      let text = color(r.value, COLOR.cyan) + pad(r.value, valueWidth);
      if (r.extras.length === 1) text += ' ' + color(r.extras[0], COLOR.cyan, COLOR.faint);
      else if (r.extras.length > 1) {
        text += ' ' + r.extras.map((e, i) => color(e, COLOR.cyan, COLOR.faint) + pad(e, extraWidth[i])).join(' ');
      }
      return text;
    };
    return names.sort(byParent).map((name) => {
      const metric = data.metrics[name];
      let mark = ' ';
      if (metric.thresholds) {
        const failed = Object.values(metric.thresholds).some((t) => !t.ok);
        mark = failed ? color(FAIL, COLOR.red) : color(PASS, COLOR.green);
      }
      const sub = isSub(name) ? '  ' : '';
      const shown = shownName(name);
      const dots = color('.'.repeat(nameWidth - width(shown) - width(sub) + 3) + ':', COLOR.faint);
      return `${indent}${sub}${mark} ${shown}${dots} ${cells(name)}`;
    });
  }

  // The summary's text: the checks by group, then a row per metric.
  // Options (over `data.options`): `indent` (' '), `enableColors` (true),
  // `summaryTimeUnit`, `summaryTrendStats`.
  function textSummary(data, options, outOf) {
    const opts = Object.assign({}, DEFAULTS, data.options, options);
    const color = paint(opts.enableColors);
    return [...groupLines(opts.indent + '    ', data.root_group, color), ...metricLines(opts, data, color, outOf)].join('\n');
  }

  const XML = { '&': '&amp;', '<': '&lt;', '>': '&gt;', "'": '&#39;', '"': '&quot;' };
  const xml = (s) => String(s).replace(/[&<>'"]/g, (c) => XML[c]);

  // A JUnit report with a test case per threshold (a failure for each one
  // crossed, with the metric's values). Options: `name` ('k6 thresholds'),
  // `classname` ('Unnamed folder').
  function jUnit(data, options) {
    const suite = options && options.name ? xml(options.name) : 'k6 thresholds';
    const cls = options && options.classname ? xml(options.classname) : 'Unnamed folder';
    const cases = [];
    let failures = 0;
    for (const [metricName, metric] of Object.entries(data.metrics)) {
      if (!metric.thresholds) continue;
      for (const [th, t] of Object.entries(metric.thresholds)) {
        const name = `${xml(metricName)} - ${xml(th)}`;
        if (t.ok) {
          cases.push(`<testcase name="${name}" classname="${cls}" />`);
          continue;
        }
        failures += 1;
        const why = `${metric.type} threshold failed: ` + Object.entries(metric.values).map(([k, v]) => `${k} value: ${v}`).join(', ');
        cases.push(`<testcase name="${name}" classname="${cls}"><failure message="${xml(why)}" /></testcase>`);
      }
    }
    return `<?xml version="1.0"?>
    <testsuites tests="${cases.length}" failures="${failures}">
      <testsuite name="${suite}" tests="${cases.length}" failures="${failures}">
        ${cases.join('\n')}
      </testsuite>
    </testsuites>`;
  }

  k.jslibSummary = {
    textSummary: (data, options) => textSummary(data, options, false),
    jUnit,
    humanizeValue,
    legacy: (json) => `\n${textSummary(JSON.parse(json), { enableColors: false }, true)}\n\n`,
  };
}
