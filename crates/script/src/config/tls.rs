//! The TLS options: the versions and cipher suites offered, and the
//! client certificates.

use serde_json::Value;

use super::values::{Layered, bad};
use crate::ScriptError;

/// k6's TLS versions, by its names, as wire numbers (`""`: any).
pub(crate) fn tls_version(v: &Value, what: &str) -> Result<u16, ScriptError> {
    match v {
        Value::Null => Ok(0),
        Value::String(s) => match s.as_str() {
            "" => Ok(0),
            "tls1.0" => Ok(0x0301),
            "tls1.1" => Ok(0x0302),
            "tls1.2" => Ok(0x0303),
            "tls1.3" => Ok(0x0304),
            _ => Err(bad(format!("{what}: unknown TLS version '{s}'"))),
        },
        v => Err(bad(format!(
            "{what}: {v} is not a TLS version (\"tls1.2\")"
        ))),
    }
}

/// The cipher suites k6 knows by name (Go's), TLS 1.3's last.
pub(crate) const K6_CIPHER_SUITES: [&str; 25] = [
    "TLS_RSA_WITH_RC4_128_SHA",
    "TLS_RSA_WITH_3DES_EDE_CBC_SHA",
    "TLS_RSA_WITH_AES_128_CBC_SHA",
    "TLS_RSA_WITH_AES_256_CBC_SHA",
    "TLS_RSA_WITH_AES_128_CBC_SHA256",
    "TLS_RSA_WITH_AES_128_GCM_SHA256",
    "TLS_RSA_WITH_AES_256_GCM_SHA384",
    "TLS_ECDHE_ECDSA_WITH_RC4_128_SHA",
    "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA",
    "TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA",
    "TLS_ECDHE_RSA_WITH_RC4_128_SHA",
    "TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA",
    "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA",
    "TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA",
    "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256",
    "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256",
    "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384",
    "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384",
    "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256",
    "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305",
    "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305",
    "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256",
    "TLS_AES_128_GCM_SHA256",
    "TLS_AES_256_GCM_SHA384",
    "TLS_CHACHA20_POLY1305_SHA256",
];

/// `tlsVersion`: a version, or `{min, max}` (`""` or none: any); of
/// k6's, loadlab speaks TLS 1.2 and 1.3: which of them are offered.
pub(crate) fn versions(
    opts: Layered,
    warnings: &mut Vec<String>,
) -> Result<Option<(bool, bool)>, ScriptError> {
    let tls_versions = match opts.get("tlsVersion") {
        None => None,
        Some(v) => {
            let (min, max) = match v {
                Value::Object(m) => (
                    tls_version(
                        m.get("min").unwrap_or(&Value::Null),
                        "options.tlsVersion.min",
                    )?,
                    tls_version(
                        m.get("max").unwrap_or(&Value::Null),
                        "options.tlsVersion.max",
                    )?,
                ),
                v => {
                    let one = tls_version(v, "options.tlsVersion")?;
                    (one, one)
                }
            };
            // Go's client: at least TLS 1.2 unless asked; at most 1.3.
            let lo = if min == 0 { 0x0303 } else { min };
            let hi = if max == 0 { 0x0304 } else { max };
            let pair = (lo <= 0x0303 && hi >= 0x0303, lo <= 0x0304 && hi >= 0x0304);
            if pair == (false, false) {
                return Err(bad(format!(
                    "options.tlsVersion: {v}: loadlab k6 speaks TLS 1.2 and 1.3 only, none \
                     of them is in this range"
                )));
            }
            if lo < 0x0303 {
                warnings.push(
                    "tlsVersion: TLS 1.0 and 1.1 are not offered by loadlab k6 (it speaks TLS \
                     1.2 and 1.3); a server that speaks nothing newer will fail the handshake"
                        .into(),
                );
            }
            Some(pair)
        }
    };
    Ok(tls_versions)
}

/// `tlsCipherSuites`: Go's names (k6 refuses others); as in Go they
/// choose among TLS 1.2's, TLS 1.3's are not chosen.
pub(crate) fn cipher_suites(
    opts: Layered,
    warnings: &mut Vec<String>,
) -> Result<Option<Vec<String>>, ScriptError> {
    let tls_cipher_suites = match opts.get("tlsCipherSuites") {
        None => None,
        Some(Value::Array(a)) => {
            let ours = loadlab_engine::tls12_suite_names();
            let mut keep = Vec::new();
            let mut missing = Vec::new();
            for v in a {
                let Value::String(name) = v else {
                    return Err(bad(format!(
                        "options.tlsCipherSuites: {v} is not a cipher suite name"
                    )));
                };
                if !K6_CIPHER_SUITES.contains(&name.as_str()) {
                    return Err(bad(format!(
                        "options.tlsCipherSuites: unknown cipher suite '{name}'"
                    )));
                }
                if ours.contains(&name.as_str()) {
                    keep.push(name.clone());
                } else if !name.starts_with("TLS_AES_") && !name.starts_with("TLS_CHACHA20") {
                    missing.push(name.clone());
                }
            }
            if !missing.is_empty() {
                let what = format!(
                    "{} not offered by loadlab k6 (no CBC, RC4, 3DES or RSA key exchange; \
                     its TLS 1.2 suites: {})",
                    missing.join(", "),
                    ours.join(", ")
                );
                // None of the TLS 1.2 suites asked for: the server the
                // script was written for cannot be reached as asked.
                if keep.is_empty() {
                    return Err(bad(format!("options.tlsCipherSuites: {what}")));
                }
                warnings.push(format!("tlsCipherSuites: {what}"));
            }
            Some(keep)
        }
        Some(v) => {
            return Err(bad(format!(
                "options.tlsCipherSuites: {v} is not a list of cipher suite names"
            )));
        }
    };
    Ok(tls_cipher_suites)
}

/// `tlsAuth`: client certificates (PEM texts), checked before any
/// load; as in Go's client, `domains` chooses nothing (k6 warns).
pub(crate) fn client_certs(
    opts: Layered,
    warnings: &mut Vec<String>,
) -> Result<Vec<(String, String)>, ScriptError> {
    let tls_auth = match opts.get("tlsAuth") {
        None => Vec::new(),
        Some(Value::Array(a)) => {
            let mut out = Vec::new();
            for (i, item) in a.iter().enumerate() {
                let what = format!("options.tlsAuth[{i}]");
                let Value::Object(m) = item else {
                    return Err(bad(format!("{what}: {item} is not an object (cert, key)")));
                };
                let text = |k: &str| match m.get(k) {
                    Some(Value::String(s)) => Ok(s.clone()),
                    None | Some(Value::Null) => Err(bad(format!("{what}.{k} is missing"))),
                    Some(v) => Err(bad(format!("{what}.{k}: {v} is not a string"))),
                };
                for k in m.keys() {
                    if !["cert", "key", "password", "domains"].contains(&k.as_str()) {
                        return Err(bad(format!("{what}: json: unknown field {k:?}")));
                    }
                }
                match m.get("domains") {
                    None | Some(Value::Null) => {}
                    Some(Value::Array(d)) if d.iter().all(Value::is_string) => {
                        if !d.is_empty()
                            && !warnings.iter().any(|w| w.starts_with("tlsAuth.domains"))
                        {
                            warnings.push(
                                "tlsAuth.domains option could be removed in the next releases, \
                                 it's recommended to leave it empty and let k6 automatically \
                                 detect from the provided certificate. It follows the Go's \
                                 NameToCertificate deprecation - \
                                 https://pkg.go.dev/crypto/tls@go1.17#Config."
                                    .into(),
                            );
                        }
                    }
                    Some(v) => {
                        return Err(bad(format!("{what}.domains: {v} is not a list of names")));
                    }
                }
                let (cert, mut key) = (text("cert")?, text("key")?);
                // As k6: a password (even "") means a key encrypted the
                // legacy PEM way, decrypted before any load.
                match m.get("password") {
                    None | Some(Value::Null) => {}
                    Some(Value::String(p)) => {
                        key = super::pem_key::decrypt(&key, p)
                            .map_err(|e| bad(format!("{what}: {e}")))?;
                    }
                    Some(v) => return Err(bad(format!("{what}.password: {v} is not a string"))),
                }
                loadlab_engine::check_client_cert(&cert, &key)
                    .map_err(|e| bad(format!("{what}: {e}")))?;
                out.push((cert, key));
            }
            out
        }
        Some(v) => return Err(bad(format!("options.tlsAuth: {v} is not a list"))),
    };
    Ok(tls_auth)
}
