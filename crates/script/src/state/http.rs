//! What `RunState` records of an HTTP request: its samples, their tags and
//! series, and its failure's text.

use std::time::Duration;

use loadlab_core::{ErrorKind, Sample, SeriesInfo};
use loadlab_engine::client::ClientResponse;
use tokio::time::Instant;

use super::request::ReqMeta;
use crate::log::Level;
use crate::system_tags::SystemTags;

use crate::http_result::url_host;
use crate::http_result::{Timings, error_of, go_method, proto_of};

use super::run_state::*;

/// A request that failed (no response), in Go's words as k6 says it: `Get
/// "URL": dial tcp 127.0.0.1:1: connect: connection refused`; `None` for a
/// response, or a request the end of the test cut short.
pub fn failure_text(
    meta: &ReqMeta,
    r: &ClientResponse,
    blocklist: &loadlab_engine::blocklist::Blocklist,
) -> Option<String> {
    if matches!(r.error, ErrorKind::None | ErrorKind::Canceled) {
        return None;
    }
    // Go's client writes the URL with its password as `***`.
    let url = &*crate::url_clean::strip_password(r.url.as_deref().unwrap_or(&meta.url));
    let method = go_method(&meta.method);
    let detail = match r.error {
        ErrorKind::ConnectRefused => {
            let host = url::Url::parse(url)
                .ok()
                .and_then(|u| Some(format!("{}:{}", u.host_str()?, u.port_or_known_default()?)));
            format!(
                "dial tcp {}: connect: connection refused",
                host.as_deref().unwrap_or("?")
            )
        }
        // Go's words, with the pattern or range that blocked it.
        ErrorKind::BlockedHost | ErrorKind::BlockedIp => {
            let host = url_host(url);
            let host = host.trim_matches(['[', ']']);
            let ip = host.parse::<std::net::IpAddr>().ok();
            match (r.error, ip) {
                (ErrorKind::BlockedHost, _) => format!(
                    "hostname ({host}) is in a blocked pattern ({})",
                    blocklist.host_match(host).unwrap_or("?")
                ),
                (_, Some(ip)) => format!(
                    "IP ({ip}) is in a blacklisted range ({})",
                    blocklist.ip_match(ip).unwrap_or_default()
                ),
                // (The address a name had is not kept.)
                _ => format!("the address of {host} is in a blacklisted range"),
            }
        }
        _ => error_of(r, url).0,
    };
    Some(format!("{method} {url:?}: {detail}"))
}

/// A status code as text, without an allocation.
pub(crate) fn status_text(status: u16, buf: &mut [u8; 5]) -> &str {
    let mut n = status;
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    std::str::from_utf8(&buf[i..]).unwrap_or("0")
}

impl RunState {
    /// An HTTP request's tags before the URL: the VU's, the request's
    /// (over those), method, status and `expected_response`.
    pub(crate) fn http_tags(
        &self,
        vu: usize,
        meta: &ReqMeta,
        status: u16,
        expected: Option<bool>,
    ) -> Tags {
        let mut tags = self.vu_tags(vu);
        for (k, v) in &meta.tags {
            tags.retain(|(a, _)| a != k);
            tags.push((k.clone(), v.clone()));
        }
        if self.sys.has(SystemTags::METHOD) {
            tags.push(("method".into(), meta.method.clone()));
        }
        if self.sys.has(SystemTags::STATUS) {
            tags.push(("status".into(), status.to_string()));
        }
        if let Some(e) = expected
            && self.sys.has(SystemTags::EXPECTED_RESPONSE)
        {
            tags.push(("expected_response".into(), e.to_string()));
        }
        tags
    }

    /// The results file's series of a request: one per method, URL (or
    /// `name` tag) and the tags but status.
    pub(crate) fn http_file_series(&self, vu: usize, meta: &ReqMeta, url: &str) -> u32 {
        let mut ftags: Tags = self
            .http_tags(vu, meta, 0, None)
            .into_iter()
            .filter(|(k, _)| {
                k != "status" && k != "expected_response" && k != "method" && k != "name"
            })
            .collect();
        ftags.sort();
        let mut key = ftags.clone();
        key.push(("method".into(), meta.method.clone()));
        key.push(("url".into(), url.to_string()));
        let known = self.file_http.borrow().get(&key).copied();
        match known {
            Some(id) => id,
            None => {
                let n = self.distinct_urls.get();
                let url = if n >= MAX_URL_SERIES {
                    "(other URLs)".to_string()
                } else {
                    url.to_string()
                };
                self.distinct_urls.set(n + 1);
                let mut info = SeriesInfo::http(&meta.method, &url);
                info.tags.extend(ftags.iter().cloned());
                let id = self.file_series(info);
                self.file_http.borrow_mut().insert(key, id);
                id
            }
        }
    }

    /// The in-memory series of each of a request's metrics, with the
    /// request's tags and `extra` ones over them (see `full_http_tags`).
    pub(crate) fn http_series(
        &self,
        vu: usize,
        meta: &ReqMeta,
        status: u16,
        expected: Option<bool>,
        extra: &[(&str, &str)],
    ) -> HttpSeries {
        let mut tags = self.http_tags(vu, meta, status, expected);
        for (k, v) in extra {
            tags.retain(|(a, _)| a != k);
            tags.push(((*k).to_string(), (*v).to_string()));
        }
        tags.sort();
        let cached = self.http_cache.borrow().get(&tags).copied();
        match cached {
            Some(ids) => ids,
            None => {
                let mut ids = [0usize; HTTP_METRICS.len()];
                for (i, name) in HTTP_METRICS.iter().enumerate() {
                    let m = self.metric_id(name);
                    ids[i] = self.series_for(m, tags.clone(), false);
                }
                self.http_cache.borrow_mut().insert(tags, ids);
                ids
            }
        }
    }

    /// Records a request's samples: as k6, one per response, so each
    /// redirect followed is a request of its own (its URL, status and
    /// timings), then the final response.
    /// The samples of a request k6 counts though it could not be made (an
    /// unsupported scheme, an invalid method): status 0, no time, and the
    /// error of `meta.unsent`.
    pub fn record_unsent(&self, vu: usize, meta: &ReqMeta) {
        let now = Instant::now();
        let r = ClientResponse {
            status: 0,
            error: ErrorKind::Protocol,
            headers: Default::default(),
            body: Vec::new(),
            bytes_in: 0,
            bytes_out: 0,
            body_wire: 0,
            wire_in: 0,
            wire_out: 0,
            sent: now,
            first_byte: None,
            done: now,
            connect: Duration::ZERO,
            phases: Default::default(),
            http2: false,
            http10: false,
            conn: Default::default(),
            reason: None,
            redirects: Vec::new(),
            url: None,
            method: None,
            redirect_stopped: false,
            request_headers: Vec::new(),
            request_body: Default::default(),
        };
        self.record_response(vu, meta, &meta.url, &r);
    }

    pub fn record_http(&self, vu: usize, meta: &ReqMeta, r: &ClientResponse) {
        for hop in r.redirects.iter().chain([r]) {
            let url = hop.url.as_deref().unwrap_or(&meta.url);
            match &hop.method {
                // A redirect turned a POST into a GET: that hop's `method`.
                Some(m) => {
                    let mut other = meta.clone();
                    other.method = m.as_str().to_string();
                    self.record_response(vu, &other, url, hop);
                }
                None => self.record_response(vu, meta, url, hop),
            }
        }
        if let Some(mode) = self.http.request.http_debug.as_deref() {
            self.http_debug(vu, meta, r, mode);
        }
        // k6's warning for a request that failed (with `options.throw`,
        // the script's exception instead).
        if let Some(text) = failure_text(meta, r, &self.http.blocklist)
            && !meta.throws
        {
            self.log(Level::Warning, "Request Failed", &[("error", &text)]);
        }
        if r.redirect_stopped && !meta.redirects_set {
            // k6's warning (when neither `params.redirects` nor
            // `options.maxRedirects` chose the limit), its count being
            // the requests made.
            self.log(
                Level::Warning,
                &format!(
                    "Stopped after {} redirects and returned the redirection; pass {{ redirects: n }} \
                     in request params or set global maxRedirects to silence this",
                    r.redirects.len() + 1,
                ),
                &[("url", &meta.url)],
            );
        }
    }

    /// `--http-debug`: each hop's request and response as k6 logs them,
    /// with the VU's fields and a `request_id` per hop.
    pub(crate) fn http_debug(&self, vu: usize, meta: &ReqMeta, r: &ClientResponse, mode: &str) {
        let hops = super::http_debug::messages(
            meta,
            r,
            super::http_debug::full(mode),
            !self.http.request.no_connection_reuse,
        );
        let (group, iter, scenario, id) = {
            let vus = self.vus.borrow();
            let m = &vus[vu];
            (
                m.group.clone(),
                m.iter_in_scenario.to_string(),
                m.scenario
                    .map(|s| self.scenarios[s].name.clone())
                    .unwrap_or_default(),
                m.id.to_string(),
            )
        };
        for hop in hops {
            let request_id = super::http_debug::request_id();
            for msg in hop {
                self.log(
                    Level::Info,
                    &msg,
                    &[
                        ("group", &group),
                        ("iter", &iter),
                        ("request_id", &request_id),
                        ("scenario", &scenario),
                        ("source", "http-debug"),
                        ("vu", &id),
                    ],
                );
            }
        }
    }

    /// One response's samples; `req_url` is the URL that gave it.
    pub(crate) fn record_response(
        &self,
        vu: usize,
        meta: &ReqMeta,
        req_url: &str,
        r: &ClientResponse,
    ) {
        let name = meta
            .tags
            .iter()
            .find(|(k, _)| k == "name")
            .map(|(_, v)| v.as_str());
        // No credential of the URL in a tag, an output or an error text.
        let req_url = &*crate::url_clean::clean(req_url);
        let url = name.unwrap_or(req_url);
        let expected = meta.expect.of(r.status);
        let t = Timings::of(r);
        let sample = self.file_sample(vu, meta, url, r);
        let failed = if expected == Some(false) { 1.0 } else { 0.0 };
        // One look-up per request for the series of all its metrics.
        let mut buf = [0u8; 5];
        let status = status_text(r.status, &mut buf);
        let a = [
            ("method", meta.method.as_str()),
            ("status", status),
            // (Part of the cache key only when there is no callback.)
            (
                "expected_response",
                match expected {
                    Some(true) => "true",
                    Some(false) => "false",
                    None => "",
                },
            ),
            ("url", url),
        ];
        // k6's tags: `url` and `name`, both the URL unless the script
        // named the request (then both the name, as in k6), and, for a
        // failure or a 4xx/5xx, its error. The points and the tag-filtered
        // metrics get them; the series only for the Prometheus output.
        let (error, code) = match (&meta.unsent, self.full_http_tags.get()) {
            (_, false) => (String::new(), 0),
            (Some((e, c)), true) => (e.clone(), *c),
            (None, true) => error_of(r, req_url),
        };
        let ip = match r.conn.peer {
            Some(p) if self.full_http_tags.get() && self.sys.has(SystemTags::IP) => {
                p.ip().to_string()
            }
            _ => String::new(),
        };
        let mut cbuf = itoa::Buffer::new();
        let full = if self.full_http_tags.get() {
            self.request_tags(r, url, (&error, cbuf.format(code)), &ip)
        } else {
            Vec::new()
        };
        let ids = if self.http_series_full.get() {
            let mut key = a[..3].to_vec();
            key.extend_from_slice(&full);
            self.cached(&self.fast_http, vu, 1, &key, &meta.tags, || {
                self.http_series(vu, meta, r.status, expected, &full)
            })
        } else {
            // The URL only when the script named the request (and
            // `systemTags` keeps it).
            let a = if name.is_some() && self.sys.has(SystemTags::URL) {
                &a[..]
            } else {
                &a[..3]
            };
            self.cached(&self.fast_http, vu, 0, a, &meta.tags, || {
                self.http_series(vu, meta, r.status, expected, &a[3..])
            })
        };
        let done = sample.done_ns;
        self.add_http(vu, &ids, &t, (failed, expected.is_some()), r, done, &full);
    }

    /// k6's request tags of a response that `systemTags` keeps: `url` and
    /// `name` (`url`, the URL or the name the script gave), `proto`, TLS's,
    /// `error_code` and `error` (`error`: text and code, "" and "0" for
    /// none) and `ip` ("" for none). A `name` the script gave is its own
    /// tag, kept whatever `systemTags` says.
    fn request_tags<'a>(
        &self,
        r: &ClientResponse,
        url: &'a str,
        error: (&'a str, &'a str),
        ip: &'a str,
    ) -> Vec<(&'a str, &'a str)> {
        let sys = self.sys;
        let mut full = Vec::with_capacity(8);
        if sys.has(SystemTags::URL) {
            full.push(("url", url));
        }
        if sys.has(SystemTags::NAME) {
            full.push(("name", url));
        }
        if r.status > 0 {
            if sys.has(SystemTags::PROTO) {
                full.push(("proto", proto_of(r)));
            }
            if let Some(tls) = r.conn.tls {
                if sys.has(SystemTags::TLS_VERSION) {
                    full.push(("tls_version", tls.version));
                }
                if sys.has(SystemTags::OCSP_STATUS) {
                    // No staple is asked for (see `res.ocsp`).
                    full.push(("ocsp_status", "unknown"));
                }
            }
        }
        if error.1 != "0" && sys.has(SystemTags::ERROR_CODE) {
            full.push(("error_code", error.1));
        }
        if !error.0.is_empty() && sys.has(SystemTags::ERROR) {
            full.push(("error", error.0));
        }
        if !ip.is_empty() {
            full.push(("ip", ip));
        }
        full
    }

    /// The request's sample, written to the results file (its series
    /// named by the request's method and `url`).
    fn file_sample(&self, vu: usize, meta: &ReqMeta, url: &str, r: &ClientResponse) -> Sample {
        let has_file = self.out.borrow().has_results();
        let file_id = if !has_file {
            NO_FILE
        } else {
            let a = [("method", meta.method.as_str()), ("url", url)];
            self.cached(&self.fast_file, vu, usize::MAX, &a, &meta.tags, || {
                self.http_file_series(vu, meta, url)
            })
        };
        let ns = |i: Instant| i.saturating_duration_since(self.start).as_nanos() as u64;
        let seq = self.seq.get();
        self.seq.set(seq + 1);
        let sample = Sample {
            seq,
            target: file_id,
            intended_ns: ns(r.sent),
            sent_ns: ns(r.sent),
            first_byte_ns: r.first_byte.map_or(0, ns),
            done_ns: ns(r.done),
            connect_ns: r.connect.as_nanos() as u32,
            status: r.status,
            error: r.error,
            bytes_out: r.bytes_out,
            bytes_in: r.bytes_in,
            wire_in: Sample::wire_in_of(r.bytes_in, r.body_wire),
        };
        self.out.borrow_mut().sample(&sample);
        sample
    }

    /// Adds an HTTP request's values to its metrics' series `ids`, the
    /// values carrying the request's `tags` over the series'
    /// (`failed`: `http_req_failed`'s value, and whether a response
    /// callback decides it).
    #[allow(clippy::too_many_arguments)]
    fn add_http(
        &self,
        vu: usize,
        ids: &HttpSeries,
        t: &Timings,
        (failed, expected): (f64, bool),
        r: &ClientResponse,
        done_ns: u64,
        tags: &[(&str, &str)],
    ) {
        let values = [
            1.0,
            t.duration,
            t.blocked,
            t.connecting,
            t.tls_handshaking,
            t.sending,
            t.waiting,
            t.receiving,
            failed,
            // Bytes on the wire, as k6 counts them: request and status
            // lines, header fields, framing and bodies (see docs/k6.md).
            r.wire_out as f64,
            r.wire_in as f64,
        ];
        let smeta = self.sample_meta(vu);
        if expected {
            self.add_tagged(ids, &values, done_ns, smeta, tags);
        } else {
            // No callback: no `http_req_failed` sample, as in k6.
            let skip = |i: &usize| *i != FAILED;
            let ids: Vec<usize> = (0..ids.len()).filter(skip).map(|i| ids[i]).collect();
            let values: Vec<f64> = (0..values.len()).filter(skip).map(|i| values[i]).collect();
            self.add_tagged(&ids, &values, done_ns, smeta, tags);
        }
    }
}
