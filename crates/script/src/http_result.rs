//! k6's words and figures for one HTTP result: its `error` and
//! `error_code`, its `timings`, its protocol and its method as Go names it.

use std::time::Duration;

use loadlab_core::ErrorKind;
use loadlab_engine::client::ClientResponse;

/// The figures of one request's timings, in milliseconds (k6's `timings`).
pub struct Timings {
    pub blocked: f64,
    pub connecting: f64,
    pub tls_handshaking: f64,
    pub sending: f64,
    pub waiting: f64,
    pub receiving: f64,
    pub duration: f64,
}

/// Whole nanoseconds in milliseconds, as k6 gives them (`0.014882`, not
/// `0.014882000000000001`).
pub(crate) fn ms(d: Duration) -> f64 {
    d.as_nanos() as f64 / 1e6
}

impl Timings {
    /// k6's figures from the engine's instants: `blocked` from the
    /// request's start to its connection in hand (a new connection's
    /// dial and handshakes included), `connecting` the TCP connect,
    /// `tls_handshaking` the TLS handshake, `sending` from the connection
    /// in hand to the request written, `waiting` from then to the first
    /// response byte, `receiving` from it to the last; `duration` is the
    /// sum of the last three. A request that was never written waits,
    /// sends and receives nothing, as in k6.
    pub fn of(r: &ClientResponse) -> Timings {
        let p = &r.phases;
        let got = p.got_conn.map_or(r.sent, |g| g.max(r.sent));
        let zero = Duration::ZERO;
        let (sending, waiting, receiving) = match p.wrote {
            None => (zero, zero, zero),
            Some(wrote) => {
                let wrote = wrote.max(got);
                match r.first_byte {
                    // The response may start before the write returns.
                    Some(fb) => (
                        wrote - got,
                        fb.saturating_duration_since(wrote),
                        r.done.saturating_duration_since(fb.max(got)),
                    ),
                    None => (wrote - got, r.done.saturating_duration_since(wrote), zero),
                }
            }
        };
        Timings {
            blocked: ms(got - r.sent),
            connecting: ms(p.connecting),
            tls_handshaking: ms(p.tls_handshaking),
            sending: ms(sending),
            waiting: ms(waiting),
            receiving: ms(receiving),
            duration: ms(sending + waiting + receiving),
        }
    }
}

/// The protocol of a response as k6 names it (Go's `Proto`): `HTTP/1.1` or
/// `HTTP/2.0`; empty when there was no response.
pub fn proto_of(r: &ClientResponse) -> &'static str {
    match (r.status, r.http2, r.http10) {
        (0, _, _) => "",
        (_, true, _) => "HTTP/2.0",
        (_, false, true) => "HTTP/1.0",
        (_, false, false) => "HTTP/1.1",
    }
}

/// A method as Go's request errors name it: `Get`, `Post`.
pub fn go_method(method: &str) -> String {
    let mut m = method.to_ascii_lowercase();
    if let Some(first) = m.get_mut(..1) {
        first.make_ascii_uppercase();
    }
    m
}

/// The host of `url` (empty if it has none).
pub(crate) fn url_host(url: &str) -> String {
    url::Url::parse(url)
        .ok()
        .and_then(|u| u.host_str().map(str::to_string))
        .unwrap_or_default()
}

/// k6's `error` and `error_code` for a response from `url`.
pub fn error_of(r: &ClientResponse, url: &str) -> (String, u32) {
    if r.error == ErrorKind::None {
        if r.status >= 400 {
            return (String::new(), 1000 + u32::from(r.status));
        }
        return (String::new(), 0);
    }
    let code = match r.error {
        ErrorKind::Dns => 1101,
        ErrorKind::BlockedIp => 1110,
        ErrorKind::BlockedHost => 1111,
        ErrorKind::ConnectRefused => 1212,
        ErrorKind::Timeout | ErrorKind::BodyTimeout | ErrorKind::ConnectTimeout => 1050,
        ErrorKind::ConnectionReset => 1220,
        ErrorKind::TlsUnknownIssuer => 1310,
        ErrorKind::TlsNameMismatch => 1311,
        k if k.is_tls() => 1300,
        ErrorKind::TooManyRedirects => 1400,
        _ => 1000,
    };
    (error_text(r.error, url), code)
}

/// k6's `error` text for a request to `url` that failed with `kind`: k6's
/// texts where they are short and fixed, Go's where k6 reports Go's, else
/// loadlab's own.
pub fn error_text(kind: ErrorKind, url: &str) -> String {
    match kind {
        ErrorKind::ConnectRefused => "dial: connection refused".to_string(),
        ErrorKind::Timeout | ErrorKind::BodyTimeout => "request timeout".to_string(),
        // Go's words, which k6 reports (no attack flags in them).
        ErrorKind::TlsUnknownIssuer => {
            "tls: failed to verify certificate: x509: certificate signed by unknown authority"
                .to_string()
        }
        // Go's words (the policy of `dns` may leave no address, too).
        ErrorKind::Dns => format!("lookup {}: no such host", url_host(url)),
        ErrorKind::TlsNameMismatch => {
            let host = Some(url_host(url))
                .filter(|h| !h.is_empty())
                .unwrap_or_else(|| "the URL's host".to_string());
            format!("tls: failed to verify certificate: x509: certificate is not valid for {host}")
        }
        _ => {
            let mut s = String::new();
            kind.write_text(&mut s, "", &Default::default());
            s
        }
    }
}

/// A header name as Go writes it (`content-type`: `Content-Type`).
pub(crate) fn canonical(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut up = true;
    for c in name.chars() {
        if up {
            out.extend(c.to_uppercase());
        } else {
            out.extend(c.to_lowercase());
        }
        up = c == '-';
    }
    out
}
