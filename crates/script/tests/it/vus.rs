//! VUs as coroutines: many VUs interleaving on one thread, exceptions
//! after other VUs ran, deep recursion in a VU, and the executors' counts.

use crate::common;

use std::path::Path;
use std::time::{Duration, Instant};

use loadlab_script::{Overrides, RunOutcome};

fn run_script(
    dir: &Path,
    src: &str,
    env: Vec<(String, String)>,
    summary_export: bool,
) -> (RunOutcome, serde_json::Value) {
    common::run_script_with(dir, src, env, Overrides::default(), summary_export)
}

fn count(e: &serde_json::Value, metric: &str) -> f64 {
    e["metrics"][metric]["count"].as_f64().unwrap_or(0.0)
}

#[test]
fn interleaved_vus_throw_after_others_ran() {
    let dir = tempfile::tempdir().unwrap();
    // Each VU suspends at different depths, then some throw: the exception's
    // stack is built while other VUs' frames come and go.
    let src = r#"
import { sleep } from 'k6';
export const options = { vus: 40, duration: '1500ms' };
function deep(n) { if (n === 0) { sleep(0.001 * (__VU % 7)); return 1; } return deep(n - 1) + 1; }
export default function () {
  deep(__VU % 13);
  if ((__VU + __ITER) % 3 === 0) throw new Error(`vu ${__VU} iter ${__ITER}`);
}
"#;
    let (out, _) = run_script(dir.path(), src, vec![], false);
    assert!(out.iterations > 100, "{}", out.summary);
    assert!(out.script_errors > 10, "{}", out.summary);
    assert!(out.script_errors < out.iterations);
}

#[test]
fn runaway_recursion_is_an_exception_not_a_crash() {
    let dir = tempfile::tempdir().unwrap();
    let src = r#"
import { sleep } from 'k6';
export const options = { vus: 3, iterations: 6 };
function f(n) { return f(n + 1) + 1; }
export default function () {
  sleep(0.001);
  try { f(0); } catch (e) { if (!(e instanceof RangeError)) throw e; throw new Error('overflow caught: ' + e.message); }
}
"#;
    let (out, _) = run_script(dir.path(), src, vec![], false);
    assert_eq!(out.iterations, 6, "{}", out.summary);
    assert_eq!(out.script_errors, 6, "{}", out.summary);
}

#[test]
fn executors_count_their_iterations() {
    let dir = tempfile::tempdir().unwrap();
    let src = r#"
import { sleep } from 'k6';
export const options = {
  scenarios: {
    per: { executor: 'per-vu-iterations', vus: 3, iterations: 4 },
    shared: { executor: 'shared-iterations', vus: 2, iterations: 7 },
    ramp: { executor: 'ramping-vus', startVUs: 0, stages: [{ duration: '600ms', target: 4 }, { duration: '900ms', target: 4 }] },
    open: { executor: 'ramping-arrival-rate', startRate: 0, timeUnit: '1s', preAllocatedVUs: 5, stages: [{ duration: '1s', target: 20 }] },
  },
};
export default function () { sleep(0.01); }
"#;
    let (out, e) = run_script(dir.path(), src, vec![], true);
    assert_eq!(out.script_errors, 0);
    // Per scenario: read from the summary export's total and the summary.
    let total = count(&e, "iterations");
    // per: 12, shared: 7, ramp: some, open: ~10 (area of 0→20/s over 1 s).
    assert!(total >= 12.0 + 7.0 + 5.0 + 8.0, "{total}\n{}", out.summary);
    let vus_max = e["metrics"]["vus_max"]["value"].as_f64().unwrap();
    assert_eq!(vus_max, 3.0 + 2.0 + 4.0 + 5.0);
    assert_eq!(count(&e, "dropped_iterations"), 0.0, "{}", out.summary);
}

#[test]
fn setup_data_env_and_open_reach_every_vu() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("data.txt"), "hello file").unwrap();
    let src = r#"
import { check } from 'k6';
const text = open('./data.txt');
export const options = { vus: 4, iterations: 8, thresholds: { checks: ['rate==1'] } };
export function setup() { return { token: __ENV.TOKEN + '-x', list: [1, 2, 3] }; }
export default function (data) {
  check(data, {
    'data': (d) => d.token === 'abc-x' && d.list.length === 3,
    'file': () => text === 'hello file',
    'vu': () => __VU >= 1 && __VU <= 4,
  });
}
export function teardown(data) { if (data.token !== 'abc-x') throw new Error('teardown data'); }
"#;
    let (out, _) = run_script(dir.path(), src, vec![("TOKEN".into(), "abc".into())], false);
    assert!(!out.thresholds_failed, "{}", out.summary);
    assert_eq!(out.iterations, 8);
}

#[test]
fn http_params_responses_and_errors() {
    let (addr, _srv) = common::echo();
    let dir = tempfile::tempdir().unwrap();
    let src = r#"
import http from 'k6/http';
import { check } from 'k6';
export const options = { iterations: 1, thresholds: { checks: ['rate==1'] } };
export default function () {
  const b = __ENV.BASE;
  const r = http.post(`${b}/p?q=1`, { a: 'x y', n: 2 }, { headers: { 'X-Test': 'v' }, tags: { name: 'post' } });
  const j = r.json();
  check(r, {
    'form body': () => j.body === 'a=x+y&n=2' && j.headers['content-type'] === 'application/x-www-form-urlencoded',
    'header': () => j.headers['x-test'] === 'v',
    'query': () => j.query === 'q=1' && j.method === 'POST',
    'response headers': () => r.headers['Content-Type'] === 'application/json',
  });
  const none = http.get(`${b}/x`, { responseType: 'none' });
  check(none, { 'none': (r) => r.body === null && r.status === 200 });
  const bin = http.get(`${b}/x`, { responseType: 'binary' });
  check(bin, { 'binary': (r) => r.body instanceof ArrayBuffer && r.body.byteLength > 0 });
  const st = http.request('PATCH', `${b}/status/404`);
  check(st, { '404': (r) => r.status === 404 && r.error_code === 1404 });
  const slow = http.get(`${b}/slow`, { timeout: '50ms' });
  check(slow, { 'timeout': (r) => r.status === 0 && r.error !== '' && r.error_code === 1050 });
  const refused = http.get('http://127.0.0.1:1/');
  check(refused, { 'refused': (r) => r.status === 0 && r.error_code > 0 });
  const h = http.head(`${b}/x`);
  const d = http.del(`${b}/x`);
  const o = http.options(`${b}/x`);
  const p = http.put(`${b}/x`, 'body');
  const pa = http.patch(`${b}/x`, 'body');
  check([h, d, o, p, pa], { 'methods': (l) => l.every((r) => r.status === 200) && JSON.parse(p.body).method === 'PUT' });
}
"#;
    let (out, e) = run_script(
        dir.path(),
        src,
        vec![("BASE".into(), format!("http://{addr}"))],
        true,
    );
    assert!(!out.thresholds_failed, "{}", out.summary);
    assert_eq!(count(&e, "http_reqs"), 11.0, "{}", out.summary);
    // 404, the timeout and the refused one failed.
    assert_eq!(
        e["metrics"]["http_req_failed"]["passes"].as_f64(),
        Some(3.0),
        "{}",
        out.summary
    );
}

#[test]
fn a_finished_scenario_ends_the_run_at_once() {
    // The run used to wait for its next timer (up to 1 s) after the last
    // iteration of the last scenario.
    let dir = tempfile::tempdir().unwrap();
    let src =
        "export const options = { iterations: 200, vus: 2 };\nexport default function () {}\n";
    let t0 = Instant::now();
    let (out, _) = run_script(dir.path(), src, vec![], false);
    assert_eq!(out.iterations, 200);
    assert!(
        t0.elapsed() < Duration::from_millis(900),
        "{:?}",
        t0.elapsed()
    );
}

#[test]
fn response_objects_show_the_same_fields_however_they_are_read() {
    // Responses are filled in when the script reads them (CPU
    // per request): every field must still be there, the same object each
    // time it is read, assignable, and in `JSON.stringify(res)`.
    let (addr, _srv) = common::echo();
    let dir = tempfile::tempdir().unwrap();
    let src = r#"
import http from 'k6/http';
import { check } from 'k6';
export const options = { iterations: 1, thresholds: { checks: ['rate==1'] } };
export default function () {
  const b = __ENV.BASE;
  const r = http.get(`${b}/a?x=1`, { headers: { 'X-Test': 'v' } });
  const all = JSON.parse(JSON.stringify(r));
  const keys = Object.keys(all).join(',');
  check(r, {
    'stringify keys': () => keys === 'remote_ip,remote_port,url,status,status_text,proto,headers,cookies,body,timings,tls_version,tls_cipher_suite,ocsp,error,error_code,request',
    'stringify values': () => all.status === 200 && all.url === `${b}/a?x=1` && all.proto === 'HTTP/1.1'
      && all.error === '' && all.error_code === 0 && all.headers['Content-Type'] === 'application/json'
      && JSON.parse(all.body).query === 'x=1' && typeof all.timings.duration === 'number',
    'same objects': (r) => r.headers === r.headers && r.timings === r.timings && r.body === r.body && r.cookies === r.cookies,
    'timing keys': (r) => Object.keys(r.timings).sort().join(',') ===
      'blocked,connecting,duration,looking_up,receiving,sending,tls_handshaking,waiting',
    'timings add up': (r) => Math.abs(r.timings.duration - r.timings.sending - r.timings.waiting - r.timings.receiving) < 1e-6,
    'instanceof': (r) => r instanceof http.Response && typeof r.json === 'function',
  });
  // json() before and after the body is read, and after it is replaced.
  const r2 = http.get(`${b}/b`);
  const j1 = r2.json();
  const body = r2.body;
  const j2 = r2.json();
  r2.body = '{"replaced":true}';
  const j3 = r2.json();
  r2.status = 7;
  r2.timings = 'x';
  check(r2, {
    'json first': () => j1.path === '/b' && j2.path === '/b' && JSON.parse(body).path === '/b',
    'json of a replaced body': () => j3.replaced === true,
    'assignable': (r) => r.status === 7 && r.timings === 'x',
  });
  const frozen = Object.freeze(http.get(`${b}/c`));
  check(frozen, { 'frozen response readable': (r) => r.status === 200 && r.headers['Content-Type'] === 'application/json' && JSON.parse(r.body).path === '/c' && r.json().path === '/c' });
  const bad = http.get(`${b}/status/404`);
  let threw = false;
  try { JSON.parse('{'); } catch (e) { threw = true; }
  check(bad, {
    'error fields': (r) => r.status === 404 && r.error_code === 1404 && r.error === '',
    'json of a non-JSON body throws': () => { try { http.get(`${b}/x`, { responseType: 'none' }).json(); return false; } catch (e) { return threw && String(e.message).includes('no body'); } },
  });
}
"#;
    let (out, e) = run_script(
        dir.path(),
        src,
        vec![("BASE".into(), format!("http://{addr}"))],
        true,
    );
    assert!(!out.thresholds_failed, "{}", out.summary);
    assert_eq!(count(&e, "http_reqs"), 5.0, "{}", out.summary);
    assert_eq!(out.script_errors, 0, "{}", out.summary);
}

#[test]
fn sleeps_end_on_time_from_the_one_timer() {
    // Sleeping VUs wait in the scheduler's own queue (one timer for
    // all): never woken early, never skipped, in setup() and teardown()
    // too.
    let dir = tempfile::tempdir().unwrap();
    let src = r#"
import { sleep, check } from 'k6';
import { Trend } from 'k6/metrics';
const slept = new Trend('slept_ms');
export const options = { vus: 20, duration: '1s', thresholds: { checks: ['rate==1'] } };
export function setup() { const t = Date.now(); sleep(0.05); return { setupSlept: Date.now() - t }; }
export default function (data) {
  const d = 0.02 * (1 + (__VU % 5));
  const t = Date.now();
  sleep(d);
  const el = Date.now() - t;
  slept.add(el);
  check(null, { 'not early': () => el >= d * 1000 - 1, 'setup slept': () => data.setupSlept >= 49 });
}
export function teardown() { sleep(0.02); }
"#;
    let t0 = Instant::now();
    let (out, e) = run_script(dir.path(), src, vec![], true);
    assert!(!out.thresholds_failed, "{}", out.summary);
    // Per VU at most 1 s / its sleep (+1): 4 VUs each at 20, 40, 60, 80
    // and 100 ms make at most 4 * (51 + 26 + 17 + 13 + 11) = 472.
    assert!(
        (100..=472).contains(&out.iterations),
        "{} iterations\n{}",
        out.iterations,
        out.summary
    );
    assert!(e["metrics"]["slept_ms"]["min"].as_f64().unwrap() >= 19.0);
    // setup, 1 s, the last sleeps and teardown.
    assert!(
        t0.elapsed() >= Duration::from_millis(1070),
        "{:?}",
        t0.elapsed()
    );
}

#[test]
fn vus_sharing_one_context_keep_their_own_numbers_env_group_and_jar_across_waits() {
    // Every VU's code runs in one context: while one VU waits in
    // `http.get()`, others run, so what the API reads for "this VU" must
    // be the caller's own at every step.
    let (addr, _server) = common::echo();
    let dir = tempfile::tempdir().unwrap();
    let src = format!(
        r#"
import http from 'k6/http';
import {{ check, group }} from 'k6';
import exec from 'k6/execution';
const base = 'http://{addr}';
const initWho = __ENV.WHO;
export const options = {{
  scenarios: {{
    a: {{ executor: 'per-vu-iterations', vus: 3, iterations: 2, env: {{ WHO: 'a' }} }},
    b: {{ executor: 'per-vu-iterations', vus: 3, iterations: 2, env: {{ WHO: 'b' }} }},
  }},
  thresholds: {{
    checks: ['rate==1'],
    'http_reqs{{group:::g-a}}': ['count==6'],
    'http_reqs{{group:::g-b}}': ['count==6'],
  }},
}};
export default function () {{
  group(`g-${{__ENV.WHO}}`, () => {{
    const vu = __VU, it = __ITER;
    http.cookieJar().set(base, 'me', String(vu));
    const res = http.get(`${{base}}/slow`);
    check(res, {{
      'numbers are the VU own after the wait': () => __VU === vu && __ITER === it && exec.vu.idInTest === vu,
      'env is the scenario own; init saw the common one': () => __ENV.WHO === exec.scenario.name && initWho === undefined,
      'the jar is the VU own': (r) => r.json().headers.cookie === `me=${{vu}}`,
    }});
  }});
}}
"#
    );
    let (out, _) = run_script(dir.path(), &src, vec![], false);
    assert_eq!(out.iterations, 12, "{}", out.summary);
    assert_eq!(out.script_errors, 0, "{}", out.summary);
    assert!(!out.thresholds_failed, "{}", out.summary);
}

#[test]
fn check_takes_values_and_functions_in_order_and_stops_at_an_exception() {
    let dir = tempfile::tempdir().unwrap();
    let src = r#"
import { check } from 'k6';
export const options = { vus: 1, iterations: 1 };
export default function () {
  const order = [];
  const all = check(5, {
    'a function': (v) => { order.push('f'); return v === 5; },
    'a truthy value': 'yes',
    'a falsy value': 0,
    'NaN': NaN,
    'an object': {},
  }, { kind: 'mix' });
  if (all !== false || order.join() !== 'f') throw new Error(`all=${all} order=${order}`);
  if (check(null, {}) !== true || check(null) !== true) throw new Error('empty sets');
  check(1, { 'before': true, 'throws': () => { throw new Error('inside'); }, 'never': true });
}
"#;
    let (out, e) = run_script(dir.path(), src, vec![], true);
    assert_eq!(out.script_errors, 1, "{}", out.summary);
    let checks = &e["root_group"]["checks"];
    let pf = |name: &str| {
        let c = &checks[name];
        (
            c["passes"].as_u64().unwrap_or(99),
            c["fails"].as_u64().unwrap_or(99),
        )
    };
    assert_eq!(pf("a function"), (1, 0), "{checks}");
    assert_eq!(pf("a truthy value"), (1, 0), "{checks}");
    assert_eq!(pf("a falsy value"), (0, 1), "{checks}");
    assert_eq!(pf("NaN"), (0, 1), "{checks}");
    assert_eq!(pf("an object"), (1, 0), "{checks}");
    assert_eq!(pf("before"), (1, 0), "{checks}");
    assert!(checks.get("never").is_none(), "{checks}");
}

#[test]
fn get_and_head_take_url_and_params_and_drop_a_third_argument() {
    let (addr, _server) = common::echo();
    let dir = tempfile::tempdir().unwrap();
    let src = format!(
        r#"
import http from 'k6/http';
import {{ get, del }} from 'k6/http';
const base = 'http://{addr}';
export const options = {{
  vus: 1, iterations: 1,
  thresholds: {{ 'http_reqs{{x:y}}': ['count==0'], 'http_reqs{{x:z}}': ['count==2'], 'http_reqs{{x:w}}': ['count==1'] }},
}};
export default function () {{
  get(`${{base}}/a`, undefined, {{ tags: {{ x: 'y' }} }});
  const r = http.get(`${{base}}/a`, {{ tags: {{ x: 'z' }}, headers: {{ 'X-A': '1' }} }});
  if (r.json().headers['x-a'] !== '1') throw new Error('params lost');
  http.head(`${{base}}/a`, {{ tags: {{ x: 'z' }} }});
  const d = del(`${{base}}/a`, 'gone', {{ tags: {{ x: 'w' }} }});
  if (d.json().method !== 'DELETE' || d.json().body !== 'gone') throw new Error(d.body);
}}
"#
    );
    let (out, _) = run_script(dir.path(), &src, vec![], false);
    assert_eq!(out.script_errors, 0, "{}", out.summary);
    assert!(!out.thresholds_failed, "{}", out.summary);
}

#[test]
fn metric_add_coerces_as_number_and_refuses_what_is_not_a_number() {
    let dir = tempfile::tempdir().unwrap();
    let src = r#"
import { Counter, Rate } from 'k6/metrics';
import { sleep } from 'k6';
const c = new Counter('my_count');
const r = new Rate('my_rate');
export const options = {
  vus: 1, iterations: 1,
  thresholds: { my_count: ['count==5'], my_rate: ['rate==0.5'] },
};
export default function () {
  if (c.add(2) !== true) throw new Error('add returns true');
  c.add('3');
  r.add(true);
  r.add(false);
  sleep('0.01');
  let refused = 0;
  try { c.add(NaN); } catch (e) { refused++; }
  try { c.add(undefined); } catch (e) { refused++; }
  const loose = c.add;
  try { loose(1); } catch (e) { refused++; }
  if (refused !== 3) throw new Error(`refused ${refused}`);
}
"#;
    let (out, _) = run_script(dir.path(), src, vec![], false);
    assert_eq!(out.script_errors, 0, "{}", out.summary);
    assert!(!out.thresholds_failed, "{}", out.summary);
}

/// A flat stage wakes the scheduler where it ends, not on the ramp's 20 ms
/// grid: the next stage's VUs must still start on time. VU 1's only
/// iteration outlasts the test, so nothing but the ramp wakes the loop
/// before the 1 s gauge sample: VUs 2 and 3 join at 650 and 800 ms (as in
/// k6, when the climbing ramp reaches their numbers), then a hold.
#[test]
fn a_ramp_after_a_flat_stage_starts_its_vus() {
    let dir = tempfile::tempdir().unwrap();
    let src = r#"
import { sleep } from 'k6';
import { Trend } from 'k6/metrics';
const seen = new Trend('vu_seen');
export const options = {
  scenarios: {
    ramp: { executor: 'ramping-vus', startVUs: 1, gracefulStop: '3s', gracefulRampDown: '3s',
            stages: [{ duration: '500ms', target: 1 }, { duration: '300ms', target: 3 },
                     { duration: '200ms', target: 3 }] },
  },
};
export default function () { seen.add(__VU); sleep(__VU === 1 ? 1.5 : 0.05); }
"#;
    let (out, e) = run_script(dir.path(), src, vec![], true);
    assert_eq!(out.script_errors, 0);
    let max = e["metrics"]["vu_seen"]["max"].as_f64().unwrap();
    assert_eq!(max, 3.0, "{}", out.summary);
    // VU 1 ran too (its one iteration sleeps past the test's end).
    assert_eq!(e["metrics"]["vu_seen"]["min"].as_f64().unwrap(), 1.0);
}

/// `exec.scenario.startTime` is when the scenario started (the test's
/// start plus its `startTime`), and `progress` the share of its duration
/// gone by, as in k6.
#[test]
fn exec_scenario_start_time_and_progress_are_the_scenarios_own() {
    let dir = tempfile::tempdir().unwrap();
    let src = r#"
import { check, sleep } from 'k6';
import exec from 'k6/execution';
export const options = {
  scenarios: {
    late: { executor: 'constant-vus', vus: 1, duration: '1s', startTime: '600ms' },
  },
  thresholds: { checks: ['rate==1'] },
};
export default function () {
  const since = Date.now() - exec.scenario.startTime;
  const p = exec.scenario.progress;
  check(null, {
    'startTime is the scenario start': () => since >= -5 && since < 1300,
    'progress is within 0..1 and follows the clock': () => p >= 0 && p <= 1 && Math.abs(p - since / 1000) < 0.2,
  });
  sleep(0.2);
}
"#;
    let (out, _) = run_script(dir.path(), src, vec![], false);
    assert!(out.iterations >= 3, "{}", out.summary);
    assert_eq!(out.script_errors, 0, "{}", out.summary);
    assert!(!out.thresholds_failed, "{}", out.summary);
}

/// A ramping-arrival-rate arrival is due once a whole one has accrued, as
/// in k6 v1.8.1: `startRate: 2` for 1 s starts at 0.5 and 1 s (not at 0 and
/// 0.5 s), and a stage at rate 0 starts nothing (the ramp 0 → 4/s over 1 s
/// that follows reaches its first at ~0.71 s).
#[test]
fn ramping_arrival_rate_starts_when_a_whole_arrival_has_accrued() {
    let dir = tempfile::tempdir().unwrap();
    let src = r#"
import exec from 'k6/execution';
import { Trend } from 'k6/metrics';
const at = new Trend('at', true);
export const options = {
  scenarios: {
    a: { executor: 'ramping-arrival-rate', startRate: 2, timeUnit: '1s', preAllocatedVUs: 2,
         stages: [{ duration: '1s', target: 2 }] },
    b: { executor: 'ramping-arrival-rate', startRate: 0, timeUnit: '1s', preAllocatedVUs: 2,
         stages: [{ duration: '1s', target: 0 }, { duration: '1s', target: 4 }] },
  },
  thresholds: {
    'at{scenario:a}': ['min>=450', 'max<1250'],
    'at{scenario:b}': ['min>=1650', 'max<2250'],
    'iterations{scenario:a}': ['count==2'],
    'iterations{scenario:b}': ['count==2'],
  },
};
export default function () { at.add(Date.now() - exec.scenario.startTime); }
"#;
    let (out, _) = run_script(dir.path(), src, vec![], false);
    assert_eq!(out.script_errors, 0, "{}", out.summary);
    assert!(!out.thresholds_failed, "{}", out.summary);
}

/// `gracefulRampDown`, as k6 v1.8.1 runs these two ramps: a VU the ramp
/// drops finishes its iteration for up to that long, then is interrupted
/// (VUs 2–4 at 1.5 s, their 3 s iterations half done); a ramp that climbs
/// back within it keeps them. The stages' end is no ramp down: the VUs
/// still running then have `gracefulStop` (30 s) and complete.
#[test]
fn graceful_ramp_down_interrupts_the_vus_a_ramp_dropped() {
    let ramp = |stages: &str| {
        format!(
            r#"
import {{ sleep }} from 'k6';
export const options = {{ scenarios: {{ r: {{ executor: 'ramping-vus', startVUs: 4,
  gracefulRampDown: '1s', stages: [{stages}] }} }} }};
export default function () {{ sleep(3); }}
"#
        )
    };
    let dir = tempfile::tempdir().unwrap();
    // Runs a ramp; checks k6's count of complete and interrupted iterations.
    let run = |stages: &str, complete: u64, interrupted: u64| {
        let src = ramp(stages);
        let (out, _) =
            common::run_script_full(dir.path(), &src, vec![], Overrides::default(), false, true);
        assert_eq!(out.iterations, complete, "{}", out.summary);
        let line = format!("{complete} complete and {interrupted} interrupted iterations");
        assert!(out.summary.contains(&line), "{}", out.summary);
    };
    // VU 1's iterations end at 3 s and 6 s (the second after the stages).
    let t0 = Instant::now();
    run(
        "{ duration: '500ms', target: 4 }, { duration: '0s', target: 1 }, \
         { duration: '3s', target: 1 }",
        2,
        3,
    );
    assert!(t0.elapsed() >= Duration::from_secs(6), "{:?}", t0.elapsed());
    run(
        "{ duration: '500ms', target: 4 }, { duration: '0s', target: 1 }, \
         { duration: '500ms', target: 1 }, { duration: '0s', target: 4 }, \
         { duration: '2500ms', target: 4 }",
        8,
        0,
    );
}

/// k6's timers (globals and `k6/timers`), as k6 v1.8.1 runs this script:
/// callbacks in deadline order with their arguments, an interval until
/// cleared, a cleared timeout never, and the iteration lasting until the
/// last timer fired (~100 ms); an exception in a callback is the
/// iteration's. An `async` default awaiting a timer waits for it.
#[test]
fn timers_run_in_order_and_the_iteration_waits_for_them() {
    let dir = tempfile::tempdir().unwrap();
    let src = r#"
import * as timers from 'k6/timers';
import { check } from 'k6';
export const options = { scenarios: {
  sync: { executor: 'shared-iterations', vus: 1, iterations: 1, exec: 'sync' },
  asy: { executor: 'shared-iterations', vus: 1, iterations: 2, exec: 'asy' },
}, thresholds: { checks: ['rate==1'] } };
export function sync() {
  check(null, {
    'k6/timers': () => Object.keys(timers).sort().join() === 'clearInterval,clearTimeout,setInterval,setTimeout'
      && timers.setTimeout === setTimeout,
    'a callback is a function': () => { try { setTimeout('x', 1); return false; } catch (e) { return e instanceof TypeError; } },
  });
  const order = [];
  const id = setInterval(() => { order.push('i'); if (order.filter((x) => x === 'i').length === 3) clearInterval(id); }, 20);
  setTimeout((a, b) => order.push('t' + a + b), 30, 1, 2);
  clearTimeout(setTimeout(() => order.push('never'), 5));
  setTimeout(() => check(order, { 'order': (o) => o.join(' ') === 'i t12 i i' }), 90);
  setTimeout(() => { throw new Error('late'); }, 100);
}
export async function asy() {
  const t0 = Date.now();
  const v = await new Promise((res) => setTimeout(res, 50, 42));
  check(v, { 'awaited': (x) => x === 42 && Date.now() - t0 >= 45 });
}
"#;
    let (out, e) = run_script(dir.path(), src, vec![], true);
    assert!(!out.thresholds_failed, "{}", out.summary);
    assert_eq!(e["metrics"]["checks"]["passes"], 5, "{}", out.summary);
    // The callback that threw: one exception, in the sync iteration.
    assert_eq!(out.script_errors, 1, "{}", out.summary);
    assert_eq!(out.iterations, 3, "{}", out.summary);
    let min = e["metrics"]["iteration_duration"]["min"].as_f64().unwrap();
    assert!(min >= 45.0, "{min} {}", out.summary);
    let max = e["metrics"]["iteration_duration"]["max"].as_f64().unwrap();
    assert!(max >= 95.0, "{max} {}", out.summary);
}
