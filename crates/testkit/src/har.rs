//! A HAR 1.2 document from what headless Chromium saw: the DevTools
//! protocol's `Network.*` events of one tab (see [`crate::cdp`]), each
//! request's body and each text response's body, as one page.
//!
//! ```no_run
//! # let exe = "chromium";
//! let mut b = loadlab_testkit::cdp::Browser::launch(exe, &[]);
//! let tab = b.blank(800, 600);
//! loadlab_testkit::har::record(&mut b, &tab);
//! b.navigate(&tab, "http://127.0.0.1:8080/");
//! let har = loadlab_testkit::har::finish(&mut b, &tab, "home");
//! ```

use serde_json::{Value, json};

use crate::cdp::{Browser, Tab};

/// Starts recording the tab's network traffic (call before navigating).
pub fn record(b: &mut Browser, tab: &Tab) {
    b.call(Some(tab), "Network.enable", json!({}));
    b.network_events(tab);
}

/// The HAR of everything the tab fetched since [`record`], one page
/// titled `title`; requests that got no response are left out.
pub fn finish(b: &mut Browser, tab: &Tab, title: &str) -> Value {
    let events = b.network_events(tab);
    let mut entries = Vec::new();
    for (m, sent) in &events {
        if m != "Network.requestWillBeSent" {
            continue;
        }
        let id = &sent["requestId"];
        let find = |name: &str| {
            events
                .iter()
                .find(|(m, p)| m == name && p["requestId"] == *id)
                .map(|(_, p)| p)
        };
        let Some(resp) = find("Network.responseReceived") else {
            continue;
        };
        let end = find("Network.loadingFinished")
            .map_or(resp["timestamp"].clone(), |p| p["timestamp"].clone());
        let ms = (end.as_f64().unwrap_or(0.0) - sent["timestamp"].as_f64().unwrap_or(0.0)) * 1e3;
        entries.push(entry(b, tab, sent, &resp["response"], ms.max(0.0)));
    }
    let started = entries
        .first()
        .map_or(json!(""), |e: &Value| e["startedDateTime"].clone());
    json!({ "log": {
        "version": "1.2",
        "creator": { "name": "loadlab-testkit", "version": "1" },
        "pages": [{ "startedDateTime": started, "id": "page_1", "title": title, "pageTimings": {} }],
        "entries": entries,
    }})
}

fn headers(h: &Value) -> Vec<Value> {
    h.as_object()
        .into_iter()
        .flatten()
        .map(|(k, v)| json!({ "name": k, "value": v.as_str().unwrap_or_default() }))
        .collect()
}

fn entry(b: &mut Browser, tab: &Tab, sent: &Value, resp: &Value, ms: f64) -> Value {
    let req = &sent["request"];
    let id = sent["requestId"].clone();
    let mut request = json!({
        "method": req["method"], "url": req["url"], "httpVersion": "HTTP/1.1",
        "headers": headers(&req["headers"]), "queryString": [], "cookies": [],
        "headersSize": -1, "bodySize": 0,
    });
    let post = match req["postData"].as_str() {
        Some(p) => Some(p.to_string()),
        None if req["hasPostData"] == json!(true) => b
            .try_call(
                Some(tab),
                "Network.getRequestPostData",
                json!({ "requestId": id }),
            )
            .ok()
            .and_then(|r| r["postData"].as_str().map(str::to_string)),
        None => None,
    };
    if let Some(p) = post {
        let mime = req["headers"]
            .as_object()
            .and_then(|h| {
                h.iter()
                    .find(|(k, _)| k.eq_ignore_ascii_case("content-type"))
            })
            .and_then(|(_, v)| v.as_str())
            .unwrap_or("application/octet-stream")
            .to_string();
        request["bodySize"] = json!(p.len());
        request["postData"] = json!({ "mimeType": mime, "text": p });
    }
    let mime = resp["mimeType"].as_str().unwrap_or_default().to_string();
    let mut content = json!({ "size": 0, "mimeType": mime });
    let texty = mime.starts_with("text/") || mime.contains("json") || mime.contains("javascript");
    if texty
        && let Ok(r) = b.try_call(
            Some(tab),
            "Network.getResponseBody",
            json!({ "requestId": id }),
        )
        && r["base64Encoded"] != json!(true)
    {
        let text = r["body"].as_str().unwrap_or_default();
        content["size"] = json!(text.len());
        content["text"] = json!(text);
    }
    json!({
        "pageref": "page_1",
        "startedDateTime": iso(sent["wallTime"].as_f64().unwrap_or(0.0)),
        "time": ms,
        "request": request,
        "response": {
            "status": resp["status"], "statusText": resp["statusText"],
            "httpVersion": "HTTP/1.1", "headers": headers(&resp["headers"]),
            "cookies": [], "content": content, "redirectURL": "",
            "headersSize": -1, "bodySize": -1,
        },
        "cache": {},
        "timings": { "send": 0, "wait": ms, "receive": 0 },
    })
}

/// Seconds since the Unix epoch as ISO 8601 in UTC, to the millisecond.
pub fn iso(secs: f64) -> String {
    let ms = (secs * 1e3).round() as i64;
    let (days, rem) = (ms.div_euclid(86_400_000), ms.rem_euclid(86_400_000));
    // Days to a civil date (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3_600_000,
        rem / 60_000 % 60,
        rem / 1000 % 60,
        rem % 1000
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn iso_dates() {
        assert_eq!(super::iso(0.0), "1970-01-01T00:00:00.000Z");
        assert_eq!(super::iso(1_709_251_200.5), "2024-03-01T00:00:00.500Z");
    }
}
