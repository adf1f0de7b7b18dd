//! k6/websockets: `new WebSocket(url, protocols, params)` against a real
//! WebSocket server on 127.0.0.1 (testkit's): events on the VU's event
//! loop among its timers, several sockets at once, closes from either
//! side, failures, Blob, and the `ws_*` samples, as k6 v1.8.1 gives them.

use crate::common;

use common::wsk::{num, run, server};
use loadlab_script::Overrides;
use tokio_tungstenite::tungstenite::Message;

#[test]
fn sockets_fire_their_events_on_the_vus_event_loop_as_k6() {
    let (_rt, s) = server();
    let e = run(
        r#"
import { WebSocket, Blob } from 'k6/websockets';
import { setTimeout } from 'k6/timers';
import { check } from 'k6';
export const options = { vus: 1, iterations: 1 };
const logs = {};
let closes = 0;
const log = (k, s) => {
  (logs[k] = logs[k] || []).push(s);
  // The nine sockets' last events: compare (see WANT).
  if (s.startsWith('close') && ++closes === 9) {
    const norm = (o) => JSON.stringify(Object.keys(o).sort().map((k) => [k, o[k]]));
    const ok = norm(logs) === norm(WANT);
    check(logs, { 'events as k6': () => ok });
    if (!ok) console.error(JSON.stringify(logs));
  }
};
export default function () {
  const W = __ENV.WS;
  // Echo: text, bytes (a Blob by default, then an ArrayBuffer), ping and
  // pong, then our close after a timer; the server answers 3001, which
  // Go's package reports as an error before the close.
  const ws = new WebSocket(`${W}/echo`, ['chat', 'x'], { headers: { 'X-Test': 'yes' }, tags: { my: 't' } });
  log('echo', `new:${ws.readyState}:${ws.url === `${W}/echo`}:${ws.binaryType}`);
  try { ws.send('early'); } catch (e) { log('echo', `early:${e.message}`); }
  ws.onopen = (e) => {
    log('echo', `open:${e.type}:${ws.readyState}:${e.target === ws}:${ws.protocol}`);
    ws.send('hello');
    ws.send(new Uint8Array([1, 2, 3]));
    ws.ping();
  };
  let n = 0;
  ws.addEventListener('message', (e) => {
    n++;
    if (typeof e.data === 'string') log('echo', `text:${e.data}:${e.origin === `${W}/echo`}`);
    else if (e.data instanceof ArrayBuffer) {
      log('echo', `ab:${new Uint8Array(e.data).join()}`);
      setTimeout(() => ws.close(3001, 'done'), 100);
    } else {
      log('echo', `blob:${e.data.size}:${Object.prototype.toString.call(e.data)}`);
      e.data.arrayBuffer().then((b) => log('echo', `bytes:${new Uint8Array(b).join()}`));
      ws.binaryType = 'arraybuffer';
      ws.send(new Uint8Array([4, 5]).buffer);
    }
  });
  ws.onpong = (e) => log('echo', `pong:${e.type}`);
  ws.onerror = (e) => log('echo', `error:${e.error}`);
  ws.onclose = (e) => log('echo', `close:${e.code}:${e.reason}:${ws.readyState}`);
  try { ws.binaryType = 'text'; } catch (e) { log('echo', `bt:${e.message}`); }
  try { ws.close(1001); } catch (e) { log('echo', `code:${e.message}`); }

  const c4 = new WebSocket(`${W}/close/4000`);
  c4.onopen = () => c4.send('x');
  c4.onerror = (e) => log('c4', `error:${e.error}`);
  c4.onclose = (e) => log('c4', `close:${e.code}:${e.reason}`);

  const c1 = new WebSocket(`${W}/close/1000`);
  c1.onopen = () => c1.send('x');
  c1.onerror = (e) => log('c1', `error:${e.error}`);
  c1.onclose = (e) => log('c1', `close:${e.code}:${e.reason}`);

  const dr = new WebSocket(`${W}/drop`);
  dr.onopen = () => dr.send('x');
  dr.onerror = (e) => log('drop', `error:${e.error}`);
  dr.onclose = (e) => log('drop', `close:${e.code}`);

  const pg = new WebSocket(`${W}/ping`);
  pg.onping = (e) => { log('ping', `ping:${e.type}`); pg.close(); };
  pg.onclose = (e) => log('ping', `close:${e.code}`);

  const pu = new WebSocket(`${W}/push/3`);
  pu.onmessage = (e) => { log('push', e.data); if (e.data === 'msg-2') pu.close(); };
  pu.onclose = (e) => log('push', `close:${e.code}`);

  const de = new WebSocket(`${W}/deny`);
  de.onopen = () => log('deny', 'never');
  de.onerror = (e) => log('deny', `error:${e.error}`);
  de.onclose = (e) => log('deny', `close:${'code' in e}:${JSON.stringify(e.reason)}`);

  const dn = new WebSocket('ws://127.0.0.1:1/x');
  dn.onerror = (e) => log('down', `error:${e.error}`);
  dn.onclose = () => log('down', 'close');

  const early = new WebSocket(`${W}/echo`);
  early.onopen = () => log('early', 'never');
  early.onclose = (e) => log('early', `close:${e.code}`);
  early.close();

  for (const [u, p, o] of [['http://x/', undefined, undefined], [`${W}/a#b`, undefined, undefined],
                           [`${W}/`, null, { foo: 1 }], [undefined, undefined, undefined],
                           [`${W}/`, null, { compression: 'gzip' }], [`${W}/`, null, { compression: 'deflate' }]]) {
    try { new WebSocket(u, p, o); } catch (e) { log('ctor', e.message); }
  }
  const b = new Blob(['héllo', new Uint8Array([33]), new Blob(['?'])], { type: 'text/plain' });
  b.text().then((t) => log('blob', `${t}:${b.size}:${b.type}`));
  b.slice(1, 3).arrayBuffer().then((a) => log('blob', new Uint8Array(a).join()));
}
const WANT = {
    echo: ['new:0:true:blob', 'early:InvalidStateError', 'bt:unknown binaryType text, the supported ones are "blob" and "arraybuffer"',
      "code:InvalidAccessError: Failed to execute 'close' on 'WebSocket': The close code must be either 1000, or between 3000 and 4999. 1001 is neither",
      'open:open:1:true:chat', 'text:hello:true', 'blob:3:[object Object]', 'bytes:1,2,3', 'pong:pong', 'ab:4,5',
      'error:websocket: close 3001: done', 'close:3001:done:3'],
    c4: ['error:websocket: close 4000: bye', 'close:4000:bye'],
    c1: ['close:1000:bye'],
    drop: ['error:websocket: close 1006 (abnormal closure): unexpected EOF', 'close:1006'],
    ping: ['ping:ping', 'close:1000'],
    push: ['msg-0', 'msg-1', 'msg-2', 'close:1000'],
    deny: ['error:websocket: bad handshake', 'close:false:""'],
    down: ['error:dial tcp 127.0.0.1:1: connect: connection refused', 'close'],
    early: ['close:1000'],
    ctor: ['WebSocket requires url with scheme ws or wss, but got "http"', 'WebSocket requires no url fragment, but got "b"',
      "unknown WebSocket's option foo", 'WebSocket requires a url',
      "unsupported compression algorithm 'gzip', supported algorithm is 'deflate'",
      "new WebSocket(): compression 'deflate' is not supported by loadlab k6"],
    blob: ['héllo!?:8:text/plain', '195,169'],
};
"#,
        &s,
    );
    // The events, compared inside the script (WANT; a mismatch is logged).
    assert_eq!(num(&e, "checks", "passes"), 1.0, "{}", e["metrics"]);
    let seen = s.seen();
    // Every dial counts a session, the refused and failed ones too.
    assert_eq!(num(&e, "ws_sessions", "count"), 9.0, "{}", e["metrics"]);
    assert!(num(&e, "ws_session_duration", "max") >= 100.0);
    // The iteration lasted until its last socket closed (the echo one,
    // 100 ms after its last message).
    assert!(num(&e, "iteration_duration", "min") >= 100.0);
    // Sent: echo (hello, bytes, ping, bytes, close), c4, c1, drop (x),
    // ping (close), push (close), early (close).
    assert_eq!(num(&e, "ws_msgs_sent", "count"), 11.0);
    assert!(num(&e, "ws_ping", "max") >= 0.0);
    let up = seen
        .upgrades
        .iter()
        .find(|(p, _)| p == "/echo")
        .expect("the echo upgrade");
    let get = |n: &str| up.1.iter().find(|(k, _)| k == n).map(|(_, v)| v.as_str());
    assert_eq!(get("x-test"), Some("yes"));
    assert_eq!(get("sec-websocket-protocol"), Some("chat, x"));
    assert!(
        seen.messages
            .contains(&Message::Binary(vec![4u8, 5].into()))
    );
}

#[test]
fn a_handlers_exception_drops_the_socket_and_ends_the_iteration_as_k6() {
    let (_rt, s) = server();
    let dir = tempfile::tempdir().unwrap();
    let (out, e) = common::run_script_full(
        dir.path(),
        r#"
import { WebSocket } from 'k6/websockets';
import { Counter } from 'k6/metrics';
const ev = new Counter('ev');
export const options = { vus: 1, iterations: 2 };
export default function () {
  const ws = new WebSocket(`${__ENV.WS}/echo`);
  ws.onopen = () => ws.send('boom');
  ws.onmessage = (e) => { throw new Error('handler failed on ' + e.data); };
  // As k6: the error handlers get the exception, the close handlers
  // run (no code: nobody closed), then the exception is the iteration's.
  ws.onerror = (e) => { if (e.error.startsWith('Error: handler failed on boom')) ev.add(1, { t: 'error' }); };
  ws.onclose = (e) => { if (!('code' in e)) ev.add(1, { t: 'close' }); };
}
"#,
        vec![("WS".into(), format!("ws://{}", s.addr))],
        Overrides::default(),
        true,
        false,
    );
    assert_eq!(out.script_errors, 2);
    assert_eq!(num(&e, "ev", "count"), 4.0, "{}", e["metrics"]);
    assert_eq!(num(&e, "iterations", "count"), 2.0);
    // Dropped, as k6 drops it: no close frame.
    std::thread::sleep(std::time::Duration::from_millis(200));
    assert!(s.seen().closes.is_empty(), "{:?}", s.seen().closes);
}

#[test]
fn websockets_in_the_init_context_are_refused_as_k6() {
    common::wsk::init_use_refused(
        "import { WebSocket } from 'k6/websockets';\nnew WebSocket(`${__ENV.WS}/echo`);\nexport default function () {}\n",
    );
}

/// A socket still open when the test's time is up: the iteration is
/// interrupted and the socket says goodbye with a normal close, as k6's
/// (k6/ws's sessions go away with 1001).
#[test]
fn sockets_open_at_the_end_of_the_test_say_goodbye() {
    let (_rt, s) = server();
    let e = run(
        r#"
import { WebSocket } from 'k6/websockets';
import { setInterval } from 'k6/timers';
export const options = { scenarios: { s: { executor: 'constant-vus', vus: 2, duration: '1s', gracefulStop: '0s' } } };
export default function () {
  const ws = new WebSocket(`${__ENV.WS}/echo`);
  ws.onopen = () => setInterval(() => ws.send('tick'), 50);
}
"#,
        &s,
    );
    assert_eq!(num(&e, "ws_sessions", "count"), 2.0);
    assert!(num(&e, "ws_msgs_sent", "count") >= 4.0, "{}", e["metrics"]);
    let t0 = std::time::Instant::now();
    while s.seen().closes.len() < 2 && t0.elapsed() < std::time::Duration::from_secs(5) {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert_eq!(s.seen().closes, vec![1000, 1000]);
}
