//! `loadlab import log FILE --to k6`: a log's endpoint mix as an editable
//! k6 script, as a k6 user writes a mix: one `constant-arrival-rate`
//! scenario at the log's mean rate, each iteration one request to an
//! endpoint drawn with the measured weights, tagged with the endpoint's
//! name so that k6 reports each endpoint's figures. `BASE_URL`, `RATE`,
//! `DURATION` and `VUS` are read from the environment (`-e`), so a study
//! can step the script along `RATE`.

use std::fmt::Write as _;

/// One endpoint of the mix: method, URL without its query, requests.
pub(super) type Endpoint = ((String, String), u64);

/// What the script says about the log besides its mix.
pub(super) struct About<'a> {
    pub file: &'a str,
    /// Requests to the endpoints left out (`--top`).
    pub rest: u64,
    pub malformed: u64,
    /// The log's mean rate, requests per second.
    pub rate: f64,
}

/// The scheme and authority of an absolute URL (`http://h:8080`).
fn origin_of(url: &str) -> Option<&str> {
    let (_, rest) = url.split_once("://")?;
    let end = rest.find('/').unwrap_or(rest.len());
    Some(&url[..url.len() - rest.len() + end])
}

fn js(s: &str) -> String {
    serde_json::to_string(s).expect("a string serializes")
}

/// The script.
pub(super) fn script(mix: &[Endpoint], about: &About) -> String {
    let rate = about.rate.round().max(1.0) as u64;
    // One origin for all: `BASE_URL` + path, so that `-e BASE_URL=…`
    // points the script elsewhere; else each endpoint's whole URL.
    let base =
        origin_of(&mix[0].0.1).filter(|o| mix.iter().all(|((_, u), _)| origin_of(u) == Some(*o)));
    let mut s = String::new();
    let n = mix.len();
    let which = if about.rest > 0 {
        format!("its {n} most requested endpoints")
    } else {
        format!("its {n} endpoint(s)")
    };
    let _ = writeln!(
        s,
        "// The endpoint mix of {} (loadlab import log --to k6): {which},\n\
         // each iteration one request to an endpoint drawn with the log's\n\
         // counts as weights, at the log's mean rate ({:.1} requests/s).",
        about.file, about.rate
    );
    if about.rest > 0 {
        let _ = writeln!(
            s,
            "// {} requests to other endpoints left out (--top).",
            about.rest
        );
    }
    if about.malformed > 0 {
        let _ = writeln!(s, "// {} malformed lines skipped.", about.malformed);
    }
    let _ = writeln!(
        s,
        "// Run: loadlab k6 run -e RATE={} -e DURATION=5m{} SCRIPT.js",
        rate * 2,
        if base.is_some() {
            " -e BASE_URL=http://HOST:PORT"
        } else {
            ""
        }
    );
    s += "// Written by loadlab import: edit freely.\n\
          import http from 'k6/http';\n\
          import { check } from 'k6';\n\n";
    if let Some(b) = base {
        let _ = writeln!(s, "const BASE_URL = __ENV.BASE_URL || {};\n", js(b));
        s += "// [method, path, requests in the log]\n";
    } else {
        s += "// [method, URL, requests in the log]\n";
    }
    s += "const ENDPOINTS = [\n";
    for ((method, url), count) in mix {
        let u = match base {
            Some(b) => &url[b.len()..],
            None => url.as_str(),
        };
        let u = if u.is_empty() { "/" } else { u };
        let _ = writeln!(s, "  [{}, {}, {count}],", js(method), js(u));
    }
    s += "];\n\
          const TOTAL = ENDPOINTS.reduce((sum, e) => sum + e[2], 0);\n\n";
    let vus = (rate / 10).clamp(5, 100);
    let _ = write!(
        s,
        "export const options = {{\n\
         \x20 scenarios: {{\n\
         \x20   mix: {{\n\
         \x20     executor: 'constant-arrival-rate',\n\
         \x20     rate: Number(__ENV.RATE || {rate}),\n\
         \x20     timeUnit: '1s',\n\
         \x20     duration: __ENV.DURATION || '1m',\n\
         \x20     preAllocatedVUs: Number(__ENV.VUS || {vus}),\n\
         \x20     maxVUs: Number(__ENV.VUS || {vus}) * 10,\n\
         \x20   }},\n\
         \x20 }},\n\
         \x20 thresholds: {{ checks: ['rate>0.99'] }},\n\
         }};\n\n"
    );
    s += "// An endpoint drawn with the log's weights.\n\
          function pick() {\n\
          \x20 let r = Math.random() * TOTAL;\n\
          \x20 for (const e of ENDPOINTS) {\n\
          \x20   r -= e[2];\n\
          \x20   if (r < 0) return e;\n\
          \x20 }\n\
          \x20 return ENDPOINTS[ENDPOINTS.length - 1];\n\
          }\n\n\
          export default function () {\n\
          \x20 const [method, path] = pick();\n";
    let url = if base.is_some() {
        "BASE_URL + path"
    } else {
        "path"
    };
    let _ = write!(
        s,
        "  const res = http.request(method, {url}, null, {{ tags: {{ name: `${{method}} ${{path}}` }} }});\n\
         \x20 check(res, {{ 'status is below 400': (r) => r.status > 0 && r.status < 400 }});\n\
         }}\n"
    );
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_origin_becomes_base_url() {
        let mix: Vec<Endpoint> = vec![
            (("GET".into(), "http://h:8/news".into()), 7),
            (("POST".into(), "http://h:8/".into()), 3),
        ];
        let about = About {
            file: "a.log",
            rest: 0,
            malformed: 0,
            rate: 12.0,
        };
        let s = script(&mix, &about);
        assert!(
            s.contains("const BASE_URL = __ENV.BASE_URL || \"http://h:8\";"),
            "{s}"
        );
        assert!(s.contains("[\"GET\", \"/news\", 7],"), "{s}");
        assert!(s.contains("[\"POST\", \"/\", 3],"), "{s}");
        assert!(s.contains("rate: Number(__ENV.RATE || 12),"), "{s}");
        let two: Vec<Endpoint> = vec![
            (("GET".into(), "http://a/x".into()), 1),
            (("GET".into(), "https://b/y".into()), 1),
        ];
        let s = script(&two, &about);
        assert!(!s.contains("BASE_URL"), "{s}");
        assert!(s.contains("[\"GET\", \"https://b/y\", 1],"), "{s}");
    }
}
