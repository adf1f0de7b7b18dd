//! What a VU costs, and the k6 semantics the savings must keep: each VU's
//! own module state, `__ENV` and local modules (the script and modules are
//! compiled once and each VU reads the bytecode), exceptions that still name
//! `file:line`, and every built-in present (the VUs share one context).

use crate::common;

use std::path::{Path, PathBuf};

use loadlab_script::{Overrides, RunOutcome};

fn run_in(dir: &Path, src: &str, env: Vec<(String, String)>, overrides: Overrides) -> RunOutcome {
    common::run_script_with(dir, src, env, overrides, false).0
}

#[test]
fn every_vu_keeps_its_own_module_state_env_and_local_modules() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("lib.js"),
        "let n = 0;\nexport function bump() { n += 1; return n; }\nexport const born = __VU;\n",
    )
    .unwrap();
    let src = r#"
import { check } from 'k6';
import { bump, born } from './lib.js';
let mine = 0;
const me = __VU;
__ENV.MINE = `vu-${__VU}`;
const seen = new Map();
export const options = {
  scenarios: { s: { executor: 'per-vu-iterations', vus: 40, iterations: 5 } },
  thresholds: { checks: ['rate==1'] },
};
export default function () {
  mine += 1;
  seen.set(__ITER, true);
  check(null, {
    'module state is the VU own': () => mine === __ITER + 1 && me === __VU,
    'local module state is the VU own': () => bump() === __ITER + 1 && born === __VU,
    'env is the VU own': () => __ENV.MINE === `vu-${__VU}` && __ENV.SHARED === 'same',
    'Map named, so there': () => seen.size === __ITER + 1,
  });
}
"#;
    let out = run_in(
        dir.path(),
        src,
        vec![("SHARED".into(), "same".into())],
        Overrides::default(),
    );
    assert_eq!(out.iterations, 200, "{}", out.summary);
    assert_eq!(out.script_errors, 0, "{}", out.summary);
    assert!(!out.thresholds_failed, "{}", out.summary);
}

#[test]
fn exceptions_name_the_line_and_functions_lose_only_their_source_text() {
    let dir = tempfile::tempdir().unwrap();
    // Line 6 throws. Functions read from bytecode have no source text:
    // `toString()` gives QuickJS's placeholder, not the code.
    let src = r#"import { check } from 'k6';
export const options = { vus: 3, iterations: 6, thresholds: { checks: ['rate==1'] } };
function named() { return 42; }
function where() {
  try {
    throw new Error('here');
  } catch (e) { return String(e.stack); }
}
export default function () {
  check(null, {
    'stack names file:line': () => /s\.js:6/.test(where()),
    'functions still work': () => named() === 42,
    'toString has no source': () => !named.toString().includes('return 42'),
    'every built-in is there, named or not': () => typeof globalThis['M' + 'ap'] === 'function',
  });
}
"#;
    let out = run_in(dir.path(), src, vec![], Overrides::default());
    assert_eq!(out.iterations, 6, "{}", out.summary);
    assert!(!out.thresholds_failed, "{}", out.summary);
}

#[test]
fn a_vu_of_the_seed_script_costs_under_20_kb_of_javascript_heap() {
    // The DSPS pub/sub script, 400 VUs initialised, an iteration each (their
    // requests go to a closed port: only the init matters here).
    let dir = tempfile::tempdir().unwrap();
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", closed.local_addr().unwrap());
    drop(closed);
    let script =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/scripts/dsps_loadtest.k6.js");
    let src = std::fs::read_to_string(script).unwrap();
    let out = run_in(
        dir.path(),
        &src,
        vec![("BASE_URL".into(), base), ("CHANNELS".into(), "100".into())],
        Overrides {
            vus: Some(400),
            iterations: Some(400),
            no_thresholds: true,
            ..Default::default()
        },
    );
    assert_eq!(out.vus_initialised, 401);
    let per_vu = out.js_heap_bytes / out.vus_initialised;
    println!("QuickJS heap per VU: {per_vu} bytes");
    // 88.8 KB a VU (on this test) with a context per VU and the script
    // compiled in each; 83 KB with the bytecode read instead; ~15 KB since
    // the VUs share one context (built-ins, k6 modules and natives once;
    // each VU has its own instance of the script's module).
    assert!(per_vu < 20_000, "{per_vu} bytes of QuickJS heap per VU");
}

#[test]
fn parsed_html_documents_are_freed_when_the_script_drops_them() {
    // 200 iterations in 4 VUs, each parsing a 50 KB page and walking it
    // (Selections, Elements, callbacks): the documents alive at once stay
    // a handful (QuickJS frees a document with its last Selection or
    // Element), and none is left after the run.
    let dir = tempfile::tempdir().unwrap();
    let src = r#"
import { parseHTML } from 'k6/html';
const row = (i) => `<tr class="r${i % 3}"><td><a href="/item/${i}">Item ${i}</a></td><td data-price="${i}.5">${i * 3}</td><td><input name="q${i}" value="${i}"></td></tr>\n`;
let page = '<!DOCTYPE html><html><head><title>Load</title></head><body><form><table>';
for (let i = 0; page.length < 50000; i++) page += row(i);
page += '</table></form></body></html>';
export const options = { vus: 4, iterations: 200 };
let kept;
export default function () {
  const doc = parseHTML(page);
  const links = doc.find('a');
  let sum = 0;
  links.each((i, el) => { sum += el.getAttribute('href').length; });
  const prices = doc.find('td[data-price]').map((i, s) => s.data('price'));
  const form = doc.find('form').serializeObject();
  kept = doc.find('tr').last().get(0);
  if (links.size() < 100 || prices.length !== links.size() || form.q0 !== '0' || sum === 0) {
    throw new Error('bad page');
  }
}
"#;
    loadlab_script::reset_peak();
    let before = loadlab_script::live_documents();
    let out = run_in(dir.path(), src, vec![], Overrides::default());
    assert_eq!(out.iterations, 200, "{}", out.summary);
    assert_eq!(out.script_errors, 0, "{}", out.summary);
    let peak = loadlab_script::peak_documents();
    let after = loadlab_script::live_documents();
    println!("HTML documents: {before} before, at most {peak} alive at once, {after} after");
    assert!(peak <= 12, "{peak} documents alive at once");
    assert_eq!(after, before, "documents left after the run");
    assert_eq!(loadlab_script::live_document_bytes(), 0);
}
