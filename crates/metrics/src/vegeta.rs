//! Readers for vegeta's JSON and CSV result encodings (its gob encoding is
//! in `gob.rs`), so old runs can be re-reported and merged with ours.
//!
//! vegeta records one timestamp per request (its send time) and one latency.
//! We map them onto a [`Sample`] with `intended = sent = timestamp` and
//! `done = timestamp + latency`; vegeta files carry `start_unix_ns == 0`, so
//! sample instants are absolute. The error text is kept as it was written and
//! also classified into an [`ErrorKind`] (best effort).

use std::borrow::Cow;
use std::io::BufRead;
use std::sync::Arc;

use loadlab_core::{ErrorKind, Sample};
use serde::Deserialize;

use crate::error::ReadError;
use crate::record::Record;
use crate::timefmt::parse_rfc3339;

/// Classifies a Go HTTP client error text, e.g. `Get "http://h/p": EOF`.
/// Only the part after the quoted URL is looked at, so a URL that happens to
/// contain `timeout` does not fool it. Unknown texts are [`ErrorKind::Io`].
pub fn classify_error(text: &str) -> ErrorKind {
    let msg = match text.find(" \"") {
        Some(q) if !text[..q].contains(' ') => match text[q + 2..].find("\": ") {
            Some(e) => &text[q + 2 + e + 3..],
            None => text,
        },
        _ => text,
    };
    let m = msg.to_ascii_lowercase();
    let has = |s: &str| m.contains(s);
    if has("connection refused") {
        ErrorKind::ConnectRefused
    } else if has("tls handshake timeout") {
        ErrorKind::TlsHandshakeTimeout
    } else if has("timeout") || has("deadline exceeded") {
        if has("reading body") {
            ErrorKind::BodyTimeout
        } else if has("dial") || has("connect") {
            ErrorKind::ConnectTimeout
        } else {
            ErrorKind::Timeout
        }
    } else if has("reset by peer") || has("connection reset") {
        ErrorKind::ConnectionReset
    } else if has("no such host") || has("lookup ") {
        ErrorKind::Dns
    } else if has("tls") || has("x509") || has("certificate") {
        if has("unknown issuer") || has("unknown authority") {
            ErrorKind::TlsUnknownIssuer
        } else if has("name mismatch") || has("certificate is valid for") {
            ErrorKind::TlsNameMismatch
        } else if has("not valid yet") || (has("not yet valid") && !has("expired")) {
            ErrorKind::TlsNotYetValid
        } else if has("expired") {
            ErrorKind::TlsExpired
        } else if has("alert") || has("remote error") {
            ErrorKind::TlsAlert
        } else {
            ErrorKind::Tls
        }
    } else if has("gzip: ") || has("flate: ") {
        // Go's gzip reader on a body the client decoded: "gzip: invalid
        // header", "gzip: invalid checksum", "flate: corrupt input …".
        ErrorKind::BadGzip
    } else if has("hostname is blocked") {
        ErrorKind::BlockedHost
    } else if has("ip is blacklisted") {
        ErrorKind::BlockedIp
    } else if has("redirects") {
        ErrorKind::TooManyRedirects
    } else if has("cannot assign requested address") || has("address already in use") {
        ErrorKind::AddressUnavailable
    } else if has("canceled") || has("cancelled") {
        ErrorKind::Canceled
    } else if has("header") && (has("too large") || has("larger than") || has("exceeded")) {
        ErrorKind::HeadersTooLarge
    } else if has("content-length") {
        ErrorKind::InvalidContentLength
    } else if has("malformed http") || has("http response to") || has("unexpected http") {
        ErrorKind::Protocol
    } else if has("unexpected eof") {
        ErrorKind::UnexpectedEof
    } else if m.ends_with("eof") || has("server closed") || has("broken pipe") {
        ErrorKind::ConnectionClosed
    } else {
        ErrorKind::Io
    }
}

/// Reuses the last `Arc<str>` while consecutive records repeat a string (the
/// usual case), so decoding allocates only when a label changes.
#[derive(Default)]
pub(crate) struct Interner {
    attack: Option<Arc<str>>,
    method: Option<Arc<str>>,
    url: Option<Arc<str>>,
    error: Option<Arc<str>>,
}

fn intern(slot: &mut Option<Arc<str>>, s: &str) -> Arc<str> {
    match slot {
        Some(a) if &**a == s => a.clone(),
        _ => {
            let a: Arc<str> = Arc::from(s);
            *slot = Some(a.clone());
            a
        }
    }
}

/// Fields common to both encodings, borrowed from the input line.
pub(crate) struct Raw<'a> {
    pub attack: &'a str,
    pub seq: u64,
    pub code: u16,
    pub ts_ns: i128,
    pub latency_ns: i64,
    pub bytes_out: u64,
    pub bytes_in: u64,
    pub error: &'a str,
    pub method: &'a str,
    pub url: &'a str,
}

impl Interner {
    pub(crate) fn record(
        &mut self,
        raw: Raw<'_>,
        name: &str,
        line: u64,
    ) -> Result<Record, ReadError> {
        let ts = u64::try_from(raw.ts_ns).map_err(|_| {
            ReadError::malformed(
                name,
                format!("line {line}"),
                "timestamp before 1970 or out of range",
            )
        })?;
        let latency = u64::try_from(raw.latency_ns.max(0)).unwrap_or(0);
        let error_text = if raw.error.is_empty() && raw.code != 0 {
            None
        } else {
            Some(intern(&mut self.error, raw.error))
        };
        let error = if raw.code == 0 {
            classify_error(raw.error)
        } else {
            ErrorKind::None
        };
        Ok(Record {
            attack: intern(&mut self.attack, raw.attack),
            start_unix_ns: 0,
            sample: Sample {
                seq: raw.seq,
                target: 0,
                intended_ns: ts,
                sent_ns: ts,
                first_byte_ns: 0,
                done_ns: ts.saturating_add(latency),
                connect_ns: 0,
                status: raw.code,
                error,
                bytes_out: raw.bytes_out,
                bytes_in: raw.bytes_in,
                wire_in: 0,
            },
            method: intern(&mut self.method, raw.method),
            url: intern(&mut self.url, raw.url),
            error_text,
            series: None,
        })
    }
}

#[derive(Deserialize)]
struct JsonResult<'a> {
    #[serde(default, borrow)]
    attack: Cow<'a, str>,
    #[serde(default)]
    seq: u64,
    #[serde(default)]
    code: u16,
    #[serde(borrow)]
    timestamp: Cow<'a, str>,
    #[serde(default)]
    latency: i64,
    #[serde(default)]
    bytes_out: u64,
    #[serde(default)]
    bytes_in: u64,
    #[serde(default, borrow)]
    error: Cow<'a, str>,
    #[serde(default, borrow)]
    method: Cow<'a, str>,
    #[serde(default, borrow)]
    url: Cow<'a, str>,
}

/// Decodes vegeta JSON results: one object per line.
pub struct JsonDecoder<R: BufRead> {
    src: R,
    name: String,
    line: Vec<u8>,
    lineno: u64,
    interner: Interner,
    done: bool,
}

impl<R: BufRead> JsonDecoder<R> {
    pub fn new(src: R, name: &str) -> Self {
        JsonDecoder {
            src,
            name: name.to_string(),
            line: Vec::with_capacity(512),
            lineno: 0,
            interner: Interner::default(),
            done: false,
        }
    }

    fn next_record(&mut self) -> Result<Option<Record>, ReadError> {
        loop {
            self.line.clear();
            let n = self
                .src
                .read_until(b'\n', &mut self.line)
                .map_err(|e| ReadError::io(&self.name, e))?;
            if n == 0 {
                return Ok(None);
            }
            self.lineno += 1;
            if self.line.iter().all(|b| b.is_ascii_whitespace()) {
                continue;
            }
            let loc = || format!("line {}", self.lineno);
            let j: JsonResult<'_> = serde_json::from_slice(&self.line).map_err(|e| {
                ReadError::malformed(&self.name, loc(), format!("not a vegeta JSON result: {e}"))
            })?;
            let ts_ns = parse_rfc3339(&j.timestamp).ok_or_else(|| {
                ReadError::malformed(
                    &self.name,
                    loc(),
                    format!("timestamp {:?} is not RFC 3339", j.timestamp),
                )
            })?;
            let raw = Raw {
                attack: &j.attack,
                seq: j.seq,
                code: j.code,
                ts_ns,
                latency_ns: j.latency,
                bytes_out: j.bytes_out,
                bytes_in: j.bytes_in,
                error: &j.error,
                method: &j.method,
                url: &j.url,
            };
            return self.interner.record(raw, &self.name, self.lineno).map(Some);
        }
    }
}

impl<R: BufRead> Iterator for JsonDecoder<R> {
    type Item = Result<Record, ReadError>;
    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let r = self.next_record().transpose();
        if !matches!(r, Some(Ok(_))) {
            self.done = true;
        }
        r
    }
}

/// Decodes vegeta CSV results: no header, 12 columns (ts_ns, code,
/// latency_ns, bytes_out, bytes_in, error, base64 body, attack, seq, method,
/// url, base64 headers).
pub struct CsvDecoder<R: std::io::Read> {
    rdr: csv::Reader<R>,
    name: String,
    rec: csv::StringRecord,
    interner: Interner,
    done: bool,
}

impl<R: std::io::Read> CsvDecoder<R> {
    pub fn new(src: R, name: &str) -> Self {
        let rdr = csv::ReaderBuilder::new()
            .has_headers(false)
            .flexible(true)
            .from_reader(src);
        CsvDecoder {
            rdr,
            name: name.to_string(),
            rec: csv::StringRecord::new(),
            interner: Interner::default(),
            done: false,
        }
    }

    fn next_record(&mut self) -> Result<Option<Record>, ReadError> {
        let more = self.rdr.read_record(&mut self.rec).map_err(|e| {
            let line = e
                .position()
                .map_or_else(|| "input".to_string(), |p| format!("line {}", p.line()));
            match e.into_kind() {
                csv::ErrorKind::Io(io) => ReadError::io(&self.name, io),
                other => ReadError::malformed(&self.name, line, format!("bad CSV: {other:?}")),
            }
        })?;
        if !more {
            return Ok(None);
        }
        let line = self.rec.position().map_or(0, |p| p.line());
        let loc = format!("line {line}");
        if self.rec.len() != 12 {
            return Err(ReadError::malformed(
                &self.name,
                loc,
                format!("expected 12 vegeta CSV columns, found {}", self.rec.len()),
            ));
        }
        // Go's reader trims leading spaces of every field.
        let f = |i: usize| self.rec[i].trim_start();
        fn num<T: std::str::FromStr>(
            name: &str,
            loc: &str,
            col: &str,
            v: &str,
        ) -> Result<T, ReadError> {
            v.parse().map_err(|_| {
                ReadError::malformed(
                    name,
                    loc,
                    format!("column {col}: {v:?} is not a valid number"),
                )
            })
        }
        let n = &self.name;
        let raw = Raw {
            // i128: our encoder writes u64 instants (past 2262 too).
            ts_ns: num::<i128>(n, &loc, "1 (timestamp ns)", f(0))?,
            code: num(n, &loc, "2 (code)", f(1))?,
            latency_ns: num(n, &loc, "3 (latency ns)", f(2))?,
            bytes_out: num(n, &loc, "4 (bytes out)", f(3))?,
            bytes_in: num(n, &loc, "5 (bytes in)", f(4))?,
            error: f(5),
            attack: f(7),
            seq: num(n, &loc, "9 (seq)", f(8))?,
            method: f(9),
            url: f(10),
        };
        self.interner.record(raw, &self.name, line).map(Some)
    }
}

impl<R: std::io::Read> Iterator for CsvDecoder<R> {
    type Item = Result<Record, ReadError>;
    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let r = self.next_record().transpose();
        if !matches!(r, Some(Ok(_))) {
            self.done = true;
        }
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies_go_errors() {
        let cases = [
            ("Get \"http://h/timeout\": EOF", ErrorKind::ConnectionClosed),
            (
                "Get \"http://h/\": dial tcp 127.0.0.1:1: connect: connection refused",
                ErrorKind::ConnectRefused,
            ),
            (
                "Get \"http://h/\": dial tcp 10.0.0.1:80: i/o timeout",
                ErrorKind::ConnectTimeout,
            ),
            (
                "Get \"http://h/\": context deadline exceeded (Client.Timeout exceeded while awaiting headers)",
                ErrorKind::Timeout,
            ),
            (
                "Post \"http://h/\": read tcp 1.2.3.4:5->6.7.8.9:80: read: connection reset by peer",
                ErrorKind::ConnectionReset,
            ),
            (
                "Get \"https://h/\": x509: certificate signed by unknown authority",
                ErrorKind::TlsUnknownIssuer,
            ),
            (
                "Get \"https://h/\": tls: failed to verify certificate: x509: certificate is valid for a.test, not h",
                ErrorKind::TlsNameMismatch,
            ),
            (
                "Get \"https://h/\": x509: certificate has expired or is not yet valid: current time 2030-01-01 is after 2001-01-01",
                ErrorKind::TlsExpired,
            ),
            (
                "Get \"https://h/\": remote error: tls: certificate required",
                ErrorKind::TlsAlert,
            ),
            (
                "Get \"https://h/\": tls: protocol version not supported",
                ErrorKind::Tls,
            ),
            (
                "Get \"http://nope/\": dial tcp: lookup nope: no such host",
                ErrorKind::Dns,
            ),
            (
                "Get \"http://h/\": stopped after 10 redirects",
                ErrorKind::TooManyRedirects,
            ),
            (
                "Get \"https://h/\": net/http: TLS handshake timeout",
                ErrorKind::TlsHandshakeTimeout,
            ),
            (
                "Get \"http://h/\": context deadline exceeded (Client.Timeout or context cancellation while reading body)",
                ErrorKind::BodyTimeout,
            ),
            (
                "Get \"http://h/\": unexpected EOF",
                ErrorKind::UnexpectedEof,
            ),
            (
                "Get \"http://h/\": net/http: HTTP/1.x transport connection broken: http: message cannot contain multiple Content-Length headers; got [\"10\" \"5\"]",
                ErrorKind::InvalidContentLength,
            ),
            (
                "Get \"http://h/\": net/http: server response headers exceeded 10485760 bytes; aborted",
                ErrorKind::HeadersTooLarge,
            ),
            ("gzip: invalid header", ErrorKind::BadGzip),
            ("flate: corrupt input before offset 5", ErrorKind::BadGzip),
            ("something odd", ErrorKind::Io),
        ];
        for (t, k) in cases {
            assert_eq!(classify_error(t), k, "{t}");
        }
        for k in ErrorKind::ALL.into_iter().skip(1) {
            let mut s = String::new();
            crate::record::write_error_string(&mut s, "GET", "http://h/timeout", k, 0);
            assert_eq!(classify_error(&s), k, "{s}");
        }
    }
}
