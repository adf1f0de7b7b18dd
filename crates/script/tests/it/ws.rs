//! k6/ws: `ws.connect` against a real WebSocket server on 127.0.0.1
//! (testkit's): the session's events, timers, pings, closes from either
//! side, failures, and k6's `ws_*` samples.

use crate::common;

use common::wsk::{num, run, server};
use loadlab_script::Overrides;
use loadlab_testkit::ws::WsServer;
use tokio_tungstenite::tungstenite::Message;

/// Waits (5 s at most) until the server has read `n` close frames: the
/// last ones reach it a moment after the run returns.
fn wait_closes(s: &WsServer, n: usize) {
    let t0 = std::time::Instant::now();
    while s.seen().closes.len() < n && t0.elapsed() < std::time::Duration::from_secs(5) {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

#[test]
fn a_session_echoes_pings_and_closes_on_its_timer_as_k6() {
    let (_rt, s) = server();
    let e = run(
        r#"
import ws from 'k6/ws';
import http from 'k6/http';
import { check } from 'k6';
import { Counter } from 'k6/metrics';
const got = new Counter('got');
const closes = new Counter('closed_1001');
export const options = { vus: 1, iterations: 2 };
export default function () {
  // The VU's jar's cookies for the URL go with the upgrade, as in k6.
  http.cookieJar().set(`http${__ENV.WS.slice(2)}/`, 'sid', 'abc');
  const res = ws.connect(`${__ENV.WS}/echo`, { headers: { 'X-Test': 'yes' }, tags: { my: 't' } }, function (socket) {
    socket.on('open', () => {
      socket.send('hello');
      socket.send('x'.repeat(300000));
      socket.sendBinary(new Uint8Array([1, 2, 3]).buffer);
      socket.ping();
    });
    socket.on('message', (m) => { if (m === 'hello' || m === 'x'.repeat(300000)) got.add(1); });
    socket.on('binaryMessage', (b) => { if (new Uint8Array(b).join() === '1,2,3') got.add(1); });
    socket.on('pong', () => got.add(1));
    socket.setTimeout(() => socket.close(), 300);
    socket.on('close', (c) => { if (c === 1001) closes.add(1); });
  });
  check(res, {
    'status is 101': (r) => r.status === 101,
    'url': (r) => r.url === `${__ENV.WS}/echo`,
    'no error': (r) => r.error === '',
    'upgrade header': (r) => r.headers['Upgrade'] === 'websocket',
  });
}
"#,
        &s,
    );
    assert_eq!(num(&e, "checks", "passes"), 8.0, "{}", e["root_group"]);
    assert_eq!(num(&e, "got", "count"), 8.0);
    assert_eq!(num(&e, "closed_1001", "count"), 2.0);
    assert_eq!(num(&e, "ws_sessions", "count"), 2.0);
    assert_eq!(num(&e, "ws_msgs_sent", "count"), 6.0);
    assert_eq!(num(&e, "ws_msgs_received", "count"), 6.0);
    assert!(num(&e, "ws_ping", "max") >= 0.0);
    assert!(num(&e, "ws_session_duration", "min") >= 300.0);
    assert!(num(&e, "ws_connecting", "max") < 5_000.0);
    assert!(num(&e, "data_sent", "count") > 0.0 && num(&e, "data_received", "count") > 0.0);
    let seen = s.seen();
    assert_eq!(seen.upgrades.len(), 2);
    for (path, fields) in &seen.upgrades {
        assert_eq!(path, "/echo");
        let get = |n: &str| fields.iter().find(|(k, _)| k == n).map(|(_, v)| v.as_str());
        assert_eq!(get("x-test"), Some("yes"));
        assert_eq!(get("user-agent"), Some("loadlab-k6"));
        assert_eq!(get("cookie"), Some("sid=abc"));
    }
    assert_eq!(seen.messages.len(), 6);
    wait_closes(&s, 2);
    let seen = s.seen();
    assert!(
        seen.messages
            .contains(&Message::Binary(vec![1u8, 2, 3].into()))
    );
    assert_eq!(seen.closes, vec![1001, 1001]);
}

#[test]
fn closes_failures_and_refusals_as_k6() {
    let (_rt, s) = server();
    let e = run(
        r#"
import ws from 'k6/ws';
import { check } from 'k6';
import { Counter } from 'k6/metrics';
const ev = new Counter('ev');
export const options = { vus: 1, iterations: 1 };
export default function () {
  const seen = [];
  const log = (s) => seen.push(s);
  // The server closes with 4000: an error (Go's words), then the close.
  ws.connect(`${__ENV.WS}/close/4000`, (socket) => {
    socket.on('open', () => socket.send('x'));
    socket.on('error', (e) => log(`error:${e.error()}:${e.code}:${e.text}`));
    socket.on('close', (c) => log(`close:${c}`));
  });
  // A normal close from the server: no error; a send after the close
  // fails in Go's words.
  ws.connect(`${__ENV.WS}/close/1000`, (socket) => {
    socket.on('open', () => socket.send('x'));
    socket.on('error', (e) => log(`error:${e.error()}`));
    socket.on('close', (c) => { log(`close:${c}`); socket.send('late'); });
  });
  // The connection dropped: abnormal closure.
  ws.connect(`${__ENV.WS}/drop`, (socket) => {
    socket.on('open', () => socket.send('x'));
    socket.on('error', (e) => log(`error:${e.error()}:${e.code}:${e.text}`));
    socket.on('close', (c) => log(`close:${c}`));
  });
  // A server ping: the ping event (the pong is the protocol's).
  ws.connect(`${__ENV.WS}/ping`, (socket) => {
    socket.on('ping', () => { log('ping'); socket.close(1000); });
    socket.on('close', (c) => log(`close:${c}`));
  });
  // Pushed messages, read in order; setInterval.
  let n = 0, ticks = 0;
  ws.connect(`${__ENV.WS}/push/5`, (socket) => {
    socket.on('message', (m) => { if (m === `msg-${n}`) n++; });
    socket.setInterval(() => { ticks++; if (ticks === 3) socket.close(); }, 50);
  });
  log(`push:${n}:${ticks}`);
  // Refused upgrade: the server's answer, no error text.
  const denied = ws.connect(`${__ENV.WS}/deny`, () => log('never'));
  log(`deny:${denied.status}:${denied.body}:${denied.error}`);
  // Nothing listening.
  const down = ws.connect('ws://127.0.0.1:1/x', () => log('never'));
  log(`down:${down.status}:${down.error}`);
  const bad = ws.connect('http://127.0.0.1:1/x', () => log('never'));
  log(`bad:${bad.error}`);
  // A handler's exception ends the session (a going-away close, the
  // close handlers run) and is the iteration's.
  try {
    ws.connect(`${__ENV.WS}/push/1`, (socket) => {
      socket.on('message', () => { throw new Error('handler failed'); });
      socket.on('close', (c) => log(`close:${c}`));
    });
  } catch (e) { log(`thrown:${e.message}`); }
  // Argument errors, thrown as in k6.
  try { ws.connect(`${__ENV.WS}/echo`); } catch (e) { log(`args:${e.message}`); }
  try { ws.connect(`${__ENV.WS}/echo`, {}, 'x'); } catch (e) { log(`fn:${e.message}`); }
  try {
    ws.connect(`${__ENV.WS}/echo`, (socket) => socket.setTimeout(() => {}, 0));
  } catch (e) { log(`timeout:${e.message}`); }
  const want = [
    'error:websocket: close 4000: bye:4000:bye', 'close:4000',
    'close:1000', 'error:websocket: close sent',
    'error:websocket: close 1006 (abnormal closure): unexpected EOF:1006:unexpected EOF', 'close:1006',
    'ping', 'close:1000',
    'push:5:3',
    'deny:403:denied:',
    'down:0:dial tcp 127.0.0.1:1: connect: connection refused',
    'bad:malformed ws or wss URL',
    'close:1001', 'thrown:handler failed',
    'args:invalid number of arguments to ws.connect',
    'fn:last argument to ws.connect must be a function',
    'timeout:setTimeout requires a >0 timeout parameter, received 0.00',
  ];
  check(seen, { 'events as k6': (s) => JSON.stringify(s) === JSON.stringify(want) });
  if (JSON.stringify(seen) !== JSON.stringify(want)) console.error(JSON.stringify(seen));
}
"#,
        &s,
    );
    assert_eq!(num(&e, "checks", "fails"), 0.0, "{}", e["metrics"]);
    assert_eq!(num(&e, "checks", "passes"), 1.0);
    // Every connect that dialled counts a session, the refused ones too
    // (k6 counts them); the malformed URL none.
    assert_eq!(num(&e, "ws_sessions", "count"), 9.0);
    // 4000, 1000 (the server's), 1000 (the ping test's), 1001 × 3.
    wait_closes(&s, 6);
    let seen = s.seen();
    // The client answered the server's 4000 close with its own.
    assert!(seen.closes.contains(&4000), "{:?}", seen.closes);
    // Goodbyes: the ping test's 1000 and the others' 1001 (the push test,
    // the handler's exception, the setTimeout(0) one).
    assert_eq!(
        seen.closes.iter().filter(|&&c| c == 1001).count(),
        3,
        "{:?}",
        seen.closes
    );
}

#[test]
fn websockets_in_the_init_context_are_refused_as_k6() {
    common::wsk::init_use_refused(
        "import ws from 'k6/ws';\nws.connect(`${__ENV.WS}/echo`, () => {});\nexport default function () {}\n",
    );
}

/// `wss://`: TLS with the run's options (`insecureSkipTLSVerify` for the
/// self-signed certificate), offering only HTTP/1.1 by ALPN (the server
/// offers h2 too, and drops a client that picks it); without the option,
/// Go's certificate error.
#[test]
fn wss_uses_the_tls_options_and_offers_only_http11() {
    let (_rt, s) = common::wsk::server_tls();
    let src = |insecure: bool| {
        format!(
            r#"
import ws from 'k6/ws';
import {{ check }} from 'k6';
export const options = {{ iterations: 1, insecureSkipTLSVerify: {insecure} }};
export default function () {{
  let echoed = false;
  const res = ws.connect(`wss://localhost:${{__ENV.PORT}}/echo`, (socket) => {{
    socket.on('open', () => socket.send('over tls'));
    socket.on('message', (m) => {{ echoed = m === 'over tls'; socket.close(); }});
  }});
  check(res, {{
    'status': (r) => r.status === ({insecure} ? 101 : 0),
    'echoed': () => echoed === {insecure},
    'error': (r) => r.error === ({insecure} ? '' : 'tls: failed to verify certificate: x509: certificate signed by unknown authority'),
  }});
}}
"#
        )
    };
    for insecure in [true, false] {
        let dir = tempfile::tempdir().unwrap();
        let env = vec![("PORT".into(), s.addr.port().to_string())];
        let (_, e) = common::run_script_full(
            dir.path(),
            &src(insecure),
            env,
            Overrides::default(),
            true,
            false,
        );
        assert_eq!(
            num(&e, "checks", "fails"),
            0.0,
            "insecure {insecure}: {}",
            e["metrics"]
        );
        assert_eq!(num(&e, "checks", "passes"), 3.0);
    }
    assert_eq!(s.seen().upgrades.len(), 1);
}

/// A session the end of the test cuts short: the server gets a going-away
/// close, and the session has no `ws_session_duration` (as in k6).
#[test]
fn sessions_cut_short_by_the_end_of_the_test_say_goodbye_as_k6() {
    let (_rt, s) = server();
    let e = run(
        r#"
import ws from 'k6/ws';
export const options = { scenarios: { s: { executor: 'constant-vus', vus: 2, duration: '1s', gracefulStop: '0s' } } };
export default function () {
  ws.connect(`${__ENV.WS}/echo`, (socket) => { socket.setInterval(() => socket.send('tick'), 100); });
}
"#,
        &s,
    );
    assert_eq!(num(&e, "ws_sessions", "count"), 2.0);
    assert!(num(&e, "ws_msgs_sent", "count") >= 2.0);
    assert!(
        e["metrics"].get("ws_session_duration").is_none(),
        "{}",
        e["metrics"]
    );
    assert!(e["metrics"].get("iterations").is_none(), "{}", e["metrics"]);
    wait_closes(&s, 2);
    assert_eq!(s.seen().closes, vec![1001, 1001]);
}
