//! Headless Chromium driven over the DevTools protocol, for pages that keep
//! changing (a live dashboard): open a page, evaluate JavaScript (awaiting
//! a promise, e.g. one that resolves when the DOM says so), take a
//! screenshot. The browser is killed on drop.

use std::io::{BufRead, BufReader};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::{self, Message, WebSocket};

use crate::browser::HEADLESS;

pub struct Browser {
    child: Child,
    ws: WebSocket<TcpStream>,
    next: u64,
    /// Events read while waiting for an answer: (session, method).
    events: Vec<(String, String)>,
    /// `Network.*` events with their parameters: (session, method, params).
    network: Vec<(String, String, Value)>,
    _profile: tempfile::TempDir,
}

/// One tab, attached.
pub struct Tab(String);

impl Browser {
    /// Starts `exe` (see [`crate::browser::chromium_or_skip`]) with the
    /// headless flags, `extra` flags, and the DevTools endpoint, and
    /// connects to it (the endpoint's line on stderr is the signal).
    pub fn launch(exe: &str, extra: &[&str]) -> Browser {
        let profile = tempfile::tempdir().expect("profile dir");
        // Chromium keeps its singleton socket in a directory of its own
        // under TMPDIR and removes it only on a clean exit; the browser is
        // killed at the end, so that directory goes inside the profile,
        // which is removed with it.
        let mut child = Command::new(exe)
            .env("TMPDIR", profile.path())
            .args(HEADLESS)
            .args(extra)
            .arg(format!("--user-data-dir={}", profile.path().display()))
            .arg("--remote-debugging-port=0")
            .arg("about:blank")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start chromium");
        let mut lines = BufReader::new(child.stderr.take().expect("stderr")).lines();
        let url = loop {
            match lines.next() {
                Some(Ok(l)) => {
                    if let Some(u) = l.strip_prefix("DevTools listening on ") {
                        break u.trim().to_string();
                    }
                }
                _ => panic!("chromium ended before its DevTools endpoint was up"),
            }
        };
        // Keep draining stderr so the browser never blocks on it.
        std::thread::spawn(move || for _ in lines {});
        let hostport = url
            .strip_prefix("ws://")
            .and_then(|r| r.split('/').next())
            .expect("ws url")
            .to_string();
        let tcp = TcpStream::connect(&hostport).expect("connect to DevTools");
        // A bound on every answer (a hung browser fails the test, it does not hang it).
        tcp.set_read_timeout(Some(Duration::from_secs(120))).ok();
        let (ws, _) = tungstenite::client(url.as_str(), tcp).expect("DevTools handshake");
        Browser {
            child,
            ws,
            next: 0,
            events: Vec::new(),
            network: Vec::new(),
            _profile: profile,
        }
    }

    /// Sends one command and returns its result (events are skipped).
    pub fn call(&mut self, tab: Option<&Tab>, method: &str, params: Value) -> Value {
        self.try_call(tab, method, params)
            .unwrap_or_else(|e| panic!("{method}: {e}"))
    }

    /// [`Browser::call`], with the protocol's error as an `Err`.
    pub fn try_call(
        &mut self,
        tab: Option<&Tab>,
        method: &str,
        params: Value,
    ) -> Result<Value, Value> {
        self.next += 1;
        let id = self.next;
        let mut msg = json!({ "id": id, "method": method, "params": params });
        if let Some(t) = tab {
            msg["sessionId"] = json!(t.0);
        }
        self.ws
            .send(Message::text(msg.to_string()))
            .expect("send to DevTools");
        loop {
            let m = self.ws.read().expect("read from DevTools");
            let Message::Text(t) = m else { continue };
            let v: Value = serde_json::from_str(t.as_str()).expect("DevTools JSON");
            if v["method"].is_string() {
                self.note(&v);
                continue;
            }
            if v["id"].as_u64() == Some(id) {
                return match v.get("error") {
                    Some(e) => Err(e.clone()),
                    None => Ok(v["result"].clone()),
                };
            }
        }
    }

    /// Opens `url` in a new tab of `width`×`height`.
    pub fn open(&mut self, url: &str, width: u32, height: u32) -> Tab {
        let r = self.call(None, "Target.createTarget", json!({ "url": "about:blank" }));
        let target = r["targetId"].as_str().expect("targetId").to_string();
        let r = self.call(
            None,
            "Target.attachToTarget",
            json!({ "targetId": target, "flatten": true }),
        );
        let tab = Tab(r["sessionId"].as_str().expect("sessionId").to_string());
        self.call(
            Some(&tab),
            "Emulation.setDeviceMetricsOverride",
            json!({ "width": width, "height": height, "deviceScaleFactor": 1, "mobile": false }),
        );
        self.call(Some(&tab), "Page.enable", json!({}));
        self.navigate(&tab, url);
        tab
    }

    /// A new tab of `width`×`height` on about:blank, its page events on.
    pub fn blank(&mut self, width: u32, height: u32) -> Tab {
        self.open("about:blank", width, height)
    }

    /// Loads `url` in the tab and waits for its load event.
    pub fn navigate(&mut self, tab: &Tab, url: &str) {
        self.events.clear();
        self.call(Some(tab), "Page.navigate", json!({ "url": url }));
        self.wait_event(tab, "Page.loadEventFired");
    }

    /// Waits for the tab's next `method` event.
    fn wait_event(&mut self, tab: &Tab, method: &str) {
        loop {
            if let Some(i) = self
                .events
                .iter()
                .position(|(s, m)| *s == tab.0 && m == method)
            {
                self.events.drain(..=i);
                return;
            }
            let m = self.ws.read().expect("read from DevTools");
            let Message::Text(t) = m else { continue };
            let v: Value = serde_json::from_str(t.as_str()).expect("DevTools JSON");
            if v["method"].is_string() {
                self.note(&v);
            }
        }
    }

    fn note(&mut self, v: &Value) {
        let m = v["method"].as_str().unwrap_or_default().to_string();
        let session = v["sessionId"].as_str().unwrap_or_default().to_string();
        if m.starts_with("Network.") {
            self.network
                .push((session.clone(), m.clone(), v["params"].clone()));
        }
        self.events.push((session, m));
    }

    /// The tab's `Network.*` events read so far (after
    /// `Network.enable`), as (method, params), taken out of the browser.
    pub fn network_events(&mut self, tab: &Tab) -> Vec<(String, Value)> {
        let (mine, rest) = std::mem::take(&mut self.network)
            .into_iter()
            .partition(|(s, _, _)| *s == tab.0);
        self.network = rest;
        let mine: Vec<(String, String, Value)> = mine;
        mine.into_iter().map(|(_, m, p)| (m, p)).collect()
    }

    /// Evaluates `expr` in the tab (awaiting it when it is a promise) and
    /// returns its value.
    pub fn eval(&mut self, tab: &Tab, expr: &str) -> Value {
        let r = self.call(
            Some(tab),
            "Runtime.evaluate",
            json!({ "expression": expr, "awaitPromise": true, "returnByValue": true }),
        );
        if let Some(e) = r.get("exceptionDetails") {
            panic!("{expr}: {e}");
        }
        r["result"]["value"].clone()
    }

    /// Waits until `cond` (a JavaScript expression) is true, re-checked on
    /// every change of the DOM; `what` names it in the failure.
    pub fn wait_for(&mut self, tab: &Tab, what: &str, cond: &str) {
        let expr = format!(
            "new Promise((ok, fail) => {{
                const check = () => {{ try {{ return !!({cond}); }} catch (e) {{ return false; }} }};
                if (check()) return ok(true);
                const o = new MutationObserver(() => {{ if (check()) {{ o.disconnect(); ok(true); }} }});
                o.observe(document, {{ subtree: true, childList: true, attributes: true, characterData: true }});
                setTimeout(() => {{ o.disconnect(); ok(check()); }}, 60000);
            }})"
        );
        let v = self.eval(tab, &expr);
        assert_eq!(v, json!(true), "{what}: not within 60s");
    }

    /// A PNG of the tab's page.
    pub fn screenshot(&mut self, tab: &Tab) -> Vec<u8> {
        use base64::Engine;
        let r = self.call(
            Some(tab),
            "Page.captureScreenshot",
            json!({ "format": "png", "captureBeyondViewport": true }),
        );
        base64::engine::general_purpose::STANDARD
            .decode(r["data"].as_str().expect("png data"))
            .expect("base64")
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
