// The k6/http surface a script uses, setup/teardown, open(), __ENV, k6/execution,
// console; logs the values k6 gives so a runtime can be compared field by field.
import http from 'k6/http';
import { check, group, fail } from 'k6';
import exec from 'k6/execution';

const fixture = open('./fixture.txt');

export const options = { vus: 1, iterations: 1 };

export function setup() {
  console.log(`setup: fixture=${JSON.stringify(fixture)} env.GREETING=${__ENV.GREETING} vu=${__VU}`);
  return { token: 'abc', n: 3 };
}

function show(name, r) {
  console.log(`${name}: status=${r.status} error=${JSON.stringify(r.error)} error_code=${r.error_code} ` +
    `proto=${r.proto} url=${r.url} body_type=${typeof r.body} body_len=${r.body === null ? null : r.body.length} ` +
    `ct=${r.headers['Content-Type']} timing_keys=${Object.keys(r.timings).sort().join(',')}`);
}

export default function (data) {
  console.log(`default: data=${JSON.stringify(data)} vu=${__VU} iter=${__ITER} ` +
    `scenario=${exec.scenario.name} executor=${exec.scenario.executor} vu.idInTest=${exec.vu.idInTest}`);
  const B = __ENV.BASE;
  show('get', http.get(`${B}/fast`, { headers: { 'X-Test': '1' }, tags: { name: 'fast' } }));
  show('post', http.post(`${B}/fast`, JSON.stringify({ a: 1 }), { headers: { 'Content-Type': 'application/json' } }));
  show('post-form', http.post(`${B}/fast`, { a: '1', b: 'two' }));
  show('put', http.put(`${B}/fast`, 'x'));
  show('patch', http.patch(`${B}/fast`, 'x'));
  show('del', http.del(`${B}/fast`));
  show('head', http.head(`${B}/fast`));
  show('options', http.options(`${B}/fast`));
  show('request', http.request('GET', `${B}/fast`, null, { timeout: '5s' }));
  show('binary', http.get(`${B}/fast`, { responseType: 'binary' }));
  show('none', http.get(`${B}/fast`, { responseType: 'none' }));
  show('404', http.get(`${B}/missing`));
  show('err', http.get(`${B}/err`));
  show('closed-port', http.get('http://127.0.0.1:1/', { timeout: '2s' }));
  show('timeout', http.get(`${B}/slow`, { timeout: '50ms' }));
  const r = http.get(`${B}/fast`);
  console.log(`json: ${JSON.stringify(r.json())} json(ok)=${r.json('ok')} headers=${JSON.stringify(Object.keys(r.headers).sort())}`);
  const rs = http.batch([
    ['GET', `${B}/fast`],
    { method: 'GET', url: `${B}/err` },
    `${B}/fast`,
  ]);
  console.log(`batch: ${rs.length} statuses=${rs.map((x) => x.status).join(',')}`);
  group('g', () => { check(r, { 'in group': () => true }); });
  console.info('info line');
  console.warn('warn line');
  console.error('error line');
  console.debug('debug line (shown only with -v)');
  try {
    fail('a failure message');
  } catch (e) {
    console.log(`fail threw: ${e}`);
  }
}

export function teardown(data) {
  console.log(`teardown: data=${JSON.stringify(data)}`);
}
