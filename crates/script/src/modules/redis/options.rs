//! A client's options as k6's module reads them: a Redis URL
//! (`redis://[user:password@]host[:port][/database]`) or an object
//! (`socket: {host, port, dialTimeout, readTimeout, …}`, `username`,
//! `password`, `database`, `clientName`, …), refused in k6's words (an
//! unknown field, a wrong scheme). TLS from `rediss://` or `socket.tls`
//! (`ca`, `cert`, `key`). Cluster and sentinel clients are refused by
//! name.

use serde_json::Value as J;

use super::conn::{Target, Tls};
use super::{DIAL_TIMEOUT, READ_TIMEOUT};

const NOT_HERE: &str = "is not supported by loadlab k6 (see docs/k6.md)";

fn invalid(reason: String) -> String {
    format!("invalid options; reason: {reason}")
}

fn default_target() -> Target {
    Target {
        host: "localhost".into(),
        port: 6379,
        dial_timeout: DIAL_TIMEOUT,
        read_timeout: READ_TIMEOUT,
        ..Default::default()
    }
}

/// A Redis URL's target.
pub fn from_url(text: &str) -> Result<Target, String> {
    let u = url::Url::parse(text).map_err(|e| invalid(format!("parse {text:?}: {e}")))?;
    match u.scheme() {
        "redis" | "rediss" => {}
        other => return Err(invalid(format!("redis: invalid URL scheme: {other}"))),
    }
    let mut t = default_target();
    if u.scheme() == "rediss" {
        t.tls = Some(Tls::default());
    }
    if let Some(h) = u.host_str() {
        t.host = h.trim_start_matches('[').trim_end_matches(']').to_string();
    }
    if let Some(p) = u.port() {
        t.port = p;
    }
    let decode = |s: &str| {
        percent_encoding::percent_decode_str(s)
            .decode_utf8_lossy()
            .into_owned()
    };
    if !u.username().is_empty() {
        t.username = Some(decode(u.username()));
    }
    if let Some(p) = u.password() {
        t.password = Some(decode(p));
    }
    let db = u.path().trim_start_matches('/');
    if !db.is_empty() {
        t.database = db
            .parse()
            .map_err(|_| invalid(format!("redis: invalid database number: {db:?}")))?;
    }
    if let Some((k, _)) = u.query_pairs().next() {
        return Err(invalid(format!("redis: unexpected option: {k}")));
    }
    Ok(t)
}

/// An options object's target (the object as JSON).
pub fn from_object(json: &str) -> Result<Target, String> {
    let o: J = serde_json::from_str(json).map_err(|e| invalid(e.to_string()))?;
    let J::Object(o) = o else {
        return Err("invalid options type; expected string or object".into());
    };
    if o.contains_key("cluster") {
        return Err(format!(
            "a redis cluster client (options.cluster) {NOT_HERE}"
        ));
    }
    if o.contains_key("masterName") {
        return Err(format!(
            "a redis sentinel client (options.masterName) {NOT_HERE}"
        ));
    }
    let mut t = default_target();
    let mut socket = None;
    for (k, v) in &o {
        match k.as_str() {
            "socket" => socket = Some(v),
            "username" => t.username = Some(string(TOP, k, v)?),
            "password" => t.password = Some(string(TOP, k, v)?),
            "clientName" => t.client_name = Some(string(TOP, k, v)?),
            "database" => t.database = int(TOP, k, v)?,
            "maxRetries" | "minRetryBackoff" | "maxRetryBackoff" => {
                int(TOP, k, v)?;
            }
            other => return Err(invalid(format!("json: unknown field {other:?}"))),
        }
    }
    let Some(J::Object(s)) = socket else {
        return Err(invalid("empty socket options".into()));
    };
    t.host = String::new();
    t.port = 0;
    for (k, v) in s {
        match k.as_str() {
            "host" => t.host = string(SOCKET, k, v)?,
            "port" => t.port = int(SOCKET, k, v)? as u16,
            "dialTimeout" => t.dial_timeout = millis(v, DIAL_TIMEOUT),
            "readTimeout" => t.read_timeout = millis(v, READ_TIMEOUT),
            "tls" => t.tls = Some(tls(v)?),
            "writeTimeout" | "poolSize" | "minIdleConns" | "maxConnAge" | "poolTimeout"
            | "idleTimeout" | "idleCheckFrequency" => {
                int(SOCKET, k, v)?;
            }
            other => return Err(invalid(format!("json: unknown field {other:?}"))),
        }
    }
    Ok(t)
}

/// Where Go's JSON decoder says a field is, in its errors.
const TOP: &str = "singleNodeOptions.";
const SOCKET: &str = "socketOptions.socket.";

/// `socket.tls`: `ca` (PEM texts), `cert` and `key` (PEM).
fn tls(v: &J) -> Result<Tls, String> {
    const AT: &str = "tlsOptions.socket.tls.";
    let J::Object(o) = v else {
        return Err(invalid(format!(
            "json: cannot unmarshal {} into Go struct field socketOptions.socket.tls of type redis.tlsOptions",
            json_kind(v)
        )));
    };
    let mut out = Tls::default();
    let (mut cert, mut key) = (None, None);
    for (k, v) in o {
        match k.as_str() {
            "ca" => {
                let J::Array(a) = v else {
                    return Err(invalid(format!(
                        "json: cannot unmarshal {} into Go struct field {AT}ca of type []string",
                        json_kind(v)
                    )));
                };
                for c in a {
                    out.ca.push(string(AT, "ca", c)?);
                }
            }
            "cert" => cert = Some(string(AT, k, v)?),
            "key" => key = Some(string(AT, k, v)?),
            other => return Err(invalid(format!("json: unknown field {other:?}"))),
        }
    }
    out.cert = cert
        .zip(key)
        .filter(|(c, k)| !c.is_empty() && !k.is_empty());
    Ok(out)
}

fn string(at: &str, k: &str, v: &J) -> Result<String, String> {
    v.as_str().map(str::to_string).ok_or_else(|| {
        invalid(format!(
            "json: cannot unmarshal {} into Go struct field {at}{k} of type string",
            json_kind(v)
        ))
    })
}

fn int(at: &str, k: &str, v: &J) -> Result<i64, String> {
    v.as_i64().ok_or_else(|| {
        invalid(format!(
            "json: cannot unmarshal {} into Go struct field {at}{k} of type int",
            json_kind(v)
        ))
    })
}

/// A timeout in milliseconds; 0 (or none) keeps the default.
fn millis(v: &J, default: std::time::Duration) -> std::time::Duration {
    match v.as_u64() {
        Some(ms) if ms > 0 => std::time::Duration::from_millis(ms),
        _ => default,
    }
}

fn json_kind(v: &J) -> &'static str {
    match v {
        J::Null => "null",
        J::Bool(_) => "bool",
        J::Number(_) => "number",
        J::String(_) => "string",
        J::Array(_) => "array",
        J::Object(_) => "object",
    }
}

/// A JavaScript value's type as Go names what it exported to.
pub fn go_type(v: &rquickjs::Value<'_>) -> &'static str {
    if v.is_number() {
        "int64"
    } else if v.is_bool() {
        "bool"
    } else {
        "<nil>"
    }
}
