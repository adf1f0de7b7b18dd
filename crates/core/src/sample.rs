//! The record of one request: fixed size, `Copy`, no strings, no body.

use crate::info::AttackInfo;

/// Why a request failed at the transport level. A response with a 5xx status is
/// *not* an error kind: its status carries it. `status == 0` iff `error != None`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
#[repr(u8)]
pub enum ErrorKind {
    /// The request completed with a response (whatever its status).
    #[default]
    None = 0,
    /// No complete response within `-timeout`.
    Timeout = 1,
    /// The connection was refused.
    ConnectRefused = 2,
    /// Connecting took longer than the timeout.
    ConnectTimeout = 3,
    /// The peer reset the connection.
    ConnectionReset = 4,
    /// The peer closed the connection before a complete response (EOF).
    ConnectionClosed = 5,
    /// TLS handshake or certificate failure.
    Tls = 6,
    /// The host name could not be resolved.
    Dns = 7,
    /// The response was not valid HTTP.
    Protocol = 8,
    /// More redirects than `-redirects` allows.
    TooManyRedirects = 9,
    /// The request was still in flight when the attack was stopped.
    Canceled = 10,
    /// The local address could not be bound, or no local port was free.
    AddressUnavailable = 11,
    /// Any other I/O failure.
    Io = 12,
    /// The response head arrived but the body did not complete within
    /// `-timeout` (it stalled or trickled).
    BodyTimeout = 13,
    /// TCP connected but the TLS handshake did not complete within `-timeout`.
    TlsHandshakeTimeout = 14,
    /// The connection ended before the whole body arrived (fewer bytes than
    /// `Content-Length`, or no last chunk). `bytes_in` holds the bytes received.
    UnexpectedEof = 15,
    /// TLS: the server's certificate is not signed by a trusted root.
    TlsUnknownIssuer = 16,
    /// TLS: the certificate is not valid for the host name of the URL.
    TlsNameMismatch = 17,
    /// TLS: the certificate has expired.
    TlsExpired = 18,
    /// TLS: the certificate is not valid yet.
    TlsNotYetValid = 19,
    /// TLS: the server ended the handshake with an alert (e.g. it wants a
    /// client certificate, or shares no protocol version or cipher).
    TlsAlert = 20,
    /// The response's `Content-Length` is not a number, or several
    /// disagree (RFC 9112 §6.3): its framing cannot be trusted.
    InvalidContentLength = 21,
    /// The response head was larger than `-max-headers-size`.
    HeadersTooLarge = 22,
    /// The host name is one the test blocks (k6's `blockHostnames`): never
    /// looked up nor dialled.
    BlockedHost = 23,
    /// The address is in a range the test blocks (k6's `blacklistIPs`):
    /// never dialled.
    BlockedIp = 24,
    /// The response said `Content-Encoding: gzip` to a request the engine
    /// asked gzip for, and its body is not valid gzip (or ends before its
    /// last member does): Go's client fails the body read, and vegeta
    /// the request. `bytes_in` holds the body bytes as they came.
    BadGzip = 25,
}

impl ErrorKind {
    pub const ALL: [ErrorKind; 26] = [
        ErrorKind::None,
        ErrorKind::Timeout,
        ErrorKind::ConnectRefused,
        ErrorKind::ConnectTimeout,
        ErrorKind::ConnectionReset,
        ErrorKind::ConnectionClosed,
        ErrorKind::Tls,
        ErrorKind::Dns,
        ErrorKind::Protocol,
        ErrorKind::TooManyRedirects,
        ErrorKind::Canceled,
        ErrorKind::AddressUnavailable,
        ErrorKind::Io,
        ErrorKind::BodyTimeout,
        ErrorKind::TlsHandshakeTimeout,
        ErrorKind::UnexpectedEof,
        ErrorKind::TlsUnknownIssuer,
        ErrorKind::TlsNameMismatch,
        ErrorKind::TlsExpired,
        ErrorKind::TlsNotYetValid,
        ErrorKind::TlsAlert,
        ErrorKind::InvalidContentLength,
        ErrorKind::HeadersTooLarge,
        ErrorKind::BlockedHost,
        ErrorKind::BlockedIp,
        ErrorKind::BadGzip,
    ];

    pub fn from_u8(v: u8) -> Option<ErrorKind> {
        ErrorKind::ALL.get(v as usize).copied()
    }

    /// A short, stable, machine-friendly name (used in JSON and CSV).
    pub fn code(self) -> &'static str {
        match self {
            ErrorKind::None => "",
            ErrorKind::Timeout => "timeout",
            ErrorKind::ConnectRefused => "connection_refused",
            ErrorKind::ConnectTimeout => "connect_timeout",
            ErrorKind::ConnectionReset => "connection_reset",
            ErrorKind::ConnectionClosed => "eof",
            ErrorKind::Tls => "tls",
            ErrorKind::Dns => "dns",
            ErrorKind::Protocol => "protocol",
            ErrorKind::TooManyRedirects => "too_many_redirects",
            ErrorKind::Canceled => "canceled",
            ErrorKind::AddressUnavailable => "address_unavailable",
            ErrorKind::Io => "io",
            ErrorKind::BodyTimeout => "body_timeout",
            ErrorKind::TlsHandshakeTimeout => "tls_handshake_timeout",
            ErrorKind::UnexpectedEof => "unexpected_eof",
            ErrorKind::TlsUnknownIssuer => "tls_unknown_issuer",
            ErrorKind::TlsNameMismatch => "tls_name_mismatch",
            ErrorKind::TlsExpired => "tls_expired",
            ErrorKind::TlsNotYetValid => "tls_not_yet_valid",
            ErrorKind::TlsAlert => "tls_alert",
            ErrorKind::InvalidContentLength => "invalid_content_length",
            ErrorKind::HeadersTooLarge => "headers_too_large",
            ErrorKind::BlockedHost => "blocked_hostname",
            ErrorKind::BlockedIp => "blacklisted_ip",
            ErrorKind::BadGzip => "bad_gzip",
        }
    }

    /// The human text used in the report's error set, after `METHOD URL: `.
    pub fn message(self) -> &'static str {
        match self {
            ErrorKind::None => "",
            ErrorKind::Timeout => "timeout awaiting response",
            ErrorKind::ConnectRefused => "connect: connection refused",
            ErrorKind::ConnectTimeout => "connect: i/o timeout",
            ErrorKind::ConnectionReset => "connection reset by peer",
            ErrorKind::ConnectionClosed => "EOF",
            ErrorKind::Tls => "tls handshake failed",
            ErrorKind::Dns => "no such host",
            ErrorKind::Protocol => "malformed HTTP response",
            ErrorKind::TooManyRedirects => "stopped after too many redirects",
            ErrorKind::Canceled => "canceled: attack stopped before a response arrived",
            ErrorKind::AddressUnavailable => "cannot assign requested address",
            ErrorKind::Io => "i/o error",
            ErrorKind::BodyTimeout => "timeout reading body",
            ErrorKind::TlsHandshakeTimeout => "TLS handshake timeout",
            ErrorKind::UnexpectedEof => "unexpected EOF reading body",
            ErrorKind::TlsUnknownIssuer => {
                "tls handshake failed: unknown issuer (the certificate is not signed by a trusted root; see -root-certs, -insecure)"
            }
            ErrorKind::TlsNameMismatch => "tls handshake failed: name mismatch",
            ErrorKind::TlsExpired => "tls handshake failed: certificate expired",
            ErrorKind::TlsNotYetValid => "tls handshake failed: certificate not valid yet",
            ErrorKind::TlsAlert => "tls handshake failed: the server sent an alert",
            ErrorKind::InvalidContentLength => {
                "malformed HTTP response: invalid Content-Length (conflicting values or not a number)"
            }
            ErrorKind::HeadersTooLarge => "response headers larger than -max-headers-size",
            ErrorKind::BlockedHost => "hostname is blocked",
            ErrorKind::BlockedIp => "ip is blacklisted",
            ErrorKind::BadGzip => "gzip: invalid compressed body",
        }
    }

    /// Appends the error text with what the attack knows beyond the kind:
    /// the dialled address of a failed connection (`connect
    /// 127.0.0.1:9: connection refused`, after `-connect-to` or
    /// `-unix-socket`), the host of a failed lookup, and the `-timeout` that
    /// expired (`timeout awaiting response after 30s`). `url` is the
    /// request's. Rendered when a report is made, never per request.
    pub fn write_text(self, out: &mut String, url: &str, info: &AttackInfo) {
        let after = |out: &mut String| {
            if info.timeout_ns > 0 {
                out.push_str(" after ");
                out.push_str(&crate::format_go_duration(std::time::Duration::from_nanos(
                    info.timeout_ns,
                )));
            }
        };
        match self {
            ErrorKind::ConnectRefused
            | ErrorKind::ConnectTimeout
            | ErrorKind::AddressUnavailable => {
                out.push_str("connect ");
                out.push_str(&dialled(url, info));
                out.push_str(": ");
                out.push_str(match self {
                    ErrorKind::ConnectRefused => "connection refused",
                    ErrorKind::ConnectTimeout => "i/o timeout",
                    _ => "cannot assign requested address",
                });
                if self == ErrorKind::ConnectTimeout {
                    after(out);
                }
            }
            ErrorKind::Dns => {
                out.push_str("lookup ");
                out.push_str(host_of(&dialled(url, info)));
                out.push_str(": no such host");
            }
            ErrorKind::TlsNameMismatch => {
                // The name checked is the URL's host, wherever -connect-to sent us.
                out.push_str(self.message());
                out.push_str(" (the certificate is not valid for ");
                out.push_str(host_of(&dialled(url, &AttackInfo::default())));
                out.push(')');
            }
            ErrorKind::HeadersTooLarge => {
                out.push_str(self.message());
                if info.max_headers_size > 0 {
                    out.push('=');
                    out.push_str(&format_size(info.max_headers_size));
                }
            }
            ErrorKind::Timeout | ErrorKind::BodyTimeout | ErrorKind::TlsHandshakeTimeout => {
                out.push_str(self.message());
                after(out);
            }
            _ => out.push_str(self.message()),
        }
    }

    /// True for the TLS failures (handshake timeout included).
    pub fn is_tls(self) -> bool {
        matches!(
            self,
            ErrorKind::Tls
                | ErrorKind::TlsHandshakeTimeout
                | ErrorKind::TlsUnknownIssuer
                | ErrorKind::TlsNameMismatch
                | ErrorKind::TlsExpired
                | ErrorKind::TlsNotYetValid
                | ErrorKind::TlsAlert
        )
    }

    /// Parses a [`ErrorKind::code`] back.
    pub fn from_code(code: &str) -> Option<ErrorKind> {
        ErrorKind::ALL.iter().copied().find(|k| k.code() == code)
    }
}

/// The address a request to `url` dialled: the `-unix-socket` path, else the
/// URL's `host:port` (default port from the scheme) after `-connect-to`
/// (several destinations, used in turn, are joined with " or ").
fn dialled(url: &str, info: &AttackInfo) -> String {
    if let Some(p) = &info.unix_socket {
        return p.clone();
    }
    let (scheme, rest) = url.split_once("://").unwrap_or(("http", url));
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    let hostport = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let has_port = match hostport.rfind(']') {
        Some(i) => hostport[i..].contains(':'),
        None => hostport.contains(':'),
    };
    let hostport = if has_port {
        hostport.to_string()
    } else {
        let port = if scheme.eq_ignore_ascii_case("https") {
            443
        } else {
            80
        };
        format!("{hostport}:{port}")
    };
    let dsts: Vec<&str> = info
        .connect_to
        .iter()
        .filter(|(src, _)| src.eq_ignore_ascii_case(&hostport))
        .map(|(_, dst)| dst.as_str())
        .collect();
    if dsts.is_empty() {
        hostport
    } else {
        dsts.join(" or ")
    }
}

/// A byte count as a size flag takes it: `1mb`, `64kb`, `1000`.
fn format_size(n: u64) -> String {
    match n {
        n if n >= 1 << 20 && n % (1 << 20) == 0 => format!("{}mb", n >> 20),
        n if n >= 1 << 10 && n % (1 << 10) == 0 => format!("{}kb", n >> 10),
        n => n.to_string(),
    }
}

/// The host of a `host:port` (IPv6 brackets removed).
fn host_of(addr: &str) -> &str {
    match addr.rsplit_once(':') {
        Some((h, _)) => h.trim_start_matches('[').trim_end_matches(']'),
        None => addr,
    }
}

/// One request, as measured. All instants are nanosecond offsets from the
/// attack's start (whose wall-clock time lives in the results file header).
///
/// Latency is measured from the **intended** send time (`intended_ns`, the
/// pacer's schedule), so a stalled server or a lagging generator cannot hide:
/// that is [`Sample::latency_ns`]. The uncorrected service time, from the
/// actual send, is [`Sample::service_ns`]. The engine may send a request a
/// little *before* its intended time (it groups sends that fall within one
/// clock window, see `-resolution`); such a request is measured from its
/// actual send, never from the later intended time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Sample {
    /// Sequence number of the request in its attack (0-based).
    pub seq: u64,
    /// Index of the target in the attack's target table.
    pub target: u32,
    /// When the pacer scheduled the request.
    pub intended_ns: u64,
    /// When the request actually started (connection acquired or being dialled).
    pub sent_ns: u64,
    /// When the response head (status line) arrived; 0 if it never did.
    pub first_byte_ns: u64,
    /// When the response was complete, or the request failed.
    pub done_ns: u64,
    /// Time spent establishing a new connection for this request (0 if reused).
    pub connect_ns: u32,
    /// HTTP status, or 0 if there was no response.
    pub status: u16,
    /// Transport failure, if any.
    pub error: ErrorKind,
    /// Request bytes written (body only, as vegeta counts them).
    pub bytes_out: u64,
    /// Response body bytes received (every byte, whether stored or not),
    /// as vegeta counts them: a gzip body the engine asked for (as Go's
    /// client does) counts what it decoded to.
    pub bytes_in: u64,
    /// The body bytes as they came over the wire when they differ from
    /// `bytes_in` (a gzip body the engine decoded); 0 when they are
    /// `bytes_in`. Read it with [`Sample::wire_bytes_in`].
    pub wire_in: u64,
}

impl Sample {
    /// Corrected latency: completion minus the intended send time (or
    /// minus the actual send, when that was earlier).
    pub fn latency_ns(&self) -> u64 {
        self.done_ns
            .saturating_sub(self.intended_ns.min(self.sent_ns))
    }
    /// Uncorrected service time: completion minus the actual send.
    pub fn service_ns(&self) -> u64 {
        self.done_ns.saturating_sub(self.sent_ns)
    }
    /// How late the request went out compared with the schedule (0 when it
    /// went out on time or early).
    pub fn send_lag_ns(&self) -> u64 {
        self.sent_ns.saturating_sub(self.intended_ns)
    }
    /// Time to first byte measured from the actual send (0 if no response).
    pub fn ttfb_ns(&self) -> u64 {
        if self.first_byte_ns == 0 {
            0
        } else {
            self.first_byte_ns.saturating_sub(self.sent_ns)
        }
    }
    /// The [`Sample::wire_in`] of a response whose body counted
    /// `bytes_in` and came as `wire` bytes.
    pub fn wire_in_of(bytes_in: u64, wire: u64) -> u64 {
        if wire == bytes_in { 0 } else { wire }
    }
    /// The response body bytes as they came over the wire (compressed
    /// bytes of a gzip body the engine decoded; else `bytes_in`).
    pub fn wire_bytes_in(&self) -> u64 {
        if self.wire_in == 0 {
            self.bytes_in
        } else {
            self.wire_in
        }
    }
    /// vegeta's definition of success: 200 ≤ status < 400.
    pub fn is_success(&self) -> bool {
        (200..400).contains(&self.status)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn error_kind_round_trip() {
        for k in ErrorKind::ALL {
            assert_eq!(ErrorKind::from_u8(k as u8), Some(k));
            assert_eq!(ErrorKind::from_code(k.code()), Some(k));
        }
        assert_eq!(ErrorKind::from_u8(200), None);
    }
    fn text(k: ErrorKind, url: &str, info: &AttackInfo) -> String {
        let mut s = String::new();
        k.write_text(&mut s, url, info);
        s
    }

    #[test]
    fn error_texts_name_the_dialled_address_and_the_timeout() {
        let none = AttackInfo::default();
        let k = ErrorKind::ConnectRefused;
        assert_eq!(
            text(k, "http://127.0.0.1:9/x", &none),
            "connect 127.0.0.1:9: connection refused"
        );
        assert_eq!(
            text(k, "https://u:xxxxx@Example.com/", &none),
            "connect Example.com:443: connection refused"
        );
        assert_eq!(
            text(k, "http://[::1]/", &none),
            "connect [::1]:80: connection refused"
        );
        let info = AttackInfo {
            timeout_ns: 1_500_000_000,
            connect_to: vec![
                ("example.com:80".into(), "10.0.0.1:8080".into()),
                ("example.com:80".into(), "10.0.0.2:8080".into()),
            ],
            ..AttackInfo::default()
        };
        assert_eq!(
            text(ErrorKind::ConnectTimeout, "http://example.com/", &info),
            "connect 10.0.0.1:8080 or 10.0.0.2:8080: i/o timeout after 1.5s"
        );
        assert_eq!(
            text(ErrorKind::Timeout, "http://example.com/", &info),
            "timeout awaiting response after 1.5s"
        );
        assert_eq!(
            text(ErrorKind::Timeout, "http://example.com/", &none),
            "timeout awaiting response"
        );
        assert_eq!(
            text(ErrorKind::Dns, "http://nosuch.invalid:8080/", &none),
            "lookup nosuch.invalid: no such host"
        );
        let unix = AttackInfo {
            unix_socket: Some("/run/app.sock".into()),
            ..AttackInfo::default()
        };
        assert_eq!(
            text(k, "http://app/", &unix),
            "connect /run/app.sock: connection refused"
        );
        assert_eq!(text(ErrorKind::ConnectionClosed, "http://h/", &info), "EOF");
        assert_eq!(
            text(ErrorKind::BodyTimeout, "http://h/", &info),
            "timeout reading body after 1.5s"
        );
        assert_eq!(
            text(
                ErrorKind::TlsNameMismatch,
                "https://u:xxxxx@Web.test:8443/",
                &info
            ),
            "tls handshake failed: name mismatch (the certificate is not valid for Web.test)"
        );
        assert_eq!(
            text(
                ErrorKind::HeadersTooLarge,
                "http://h/",
                &AttackInfo {
                    max_headers_size: 1 << 20,
                    ..AttackInfo::default()
                }
            ),
            "response headers larger than -max-headers-size=1mb"
        );
        assert_eq!(
            text(ErrorKind::TlsHandshakeTimeout, "https://h/", &info),
            "TLS handshake timeout after 1.5s"
        );
    }

    #[test]
    fn derived_times() {
        let s = Sample {
            intended_ns: 100,
            sent_ns: 150,
            done_ns: 1_150,
            status: 200,
            ..Default::default()
        };
        assert_eq!(s.latency_ns(), 1_050);
        assert_eq!(s.service_ns(), 1_000);
        assert_eq!(s.send_lag_ns(), 50);
        assert!(s.is_success());
        // Sent 30 ns early: measured from the send, no lag.
        let early = Sample {
            intended_ns: 100,
            sent_ns: 70,
            done_ns: 1_070,
            ..s
        };
        assert_eq!(early.latency_ns(), 1_000);
        assert_eq!(early.service_ns(), 1_000);
        assert_eq!(early.send_lag_ns(), 0);
    }
}
