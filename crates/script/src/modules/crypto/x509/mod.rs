//! `k6/crypto/x509`: a PEM certificate read as k6 reads it (Go's
//! `crypto/x509` behind k6's field names): `parse`, `getSubject`,
//! `getIssuer`, `getAltNames`. The native parses with x509-parser and
//! answers JSON, which `x509.js` turns into k6's objects (the key's
//! numbers as BigInts).

use std::net::{Ipv4Addr, Ipv6Addr};

use rquickjs::{Ctx, Function, Object, Value};
use serde::Serialize;
use sha1::Digest as _;
use x509_parser::certificate::X509Certificate;
use x509_parser::extensions::GeneralName;
use x509_parser::public_key::PublicKey as Parsed;
use x509_parser::x509::X509Name;

use crate::modules::common::js_bytes;

pub(crate) const NAME: &str = "k6/crypto/x509";

const X509_JS: &str = include_str!("x509.js");

/// What the module's default export has.
pub(crate) const EXPORTS: &[&str] = &["parse", "getAltNames", "getIssuer", "getSubject"];

/// The module as the loader and the import checker see it.
pub(crate) const MODULE: crate::modules::Module = crate::modules::Module {
    name: NAME,
    js: X509_JS,
    exports: Some(EXPORTS),
};

/// One attribute of a distinguished name: its OID, dotted, and its value.
#[derive(Serialize)]
struct Rdn {
    r#type: String,
    value: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Subject {
    common_name: String,
    country: String,
    postal_code: String,
    state_or_province_name: String,
    locality_name: String,
    street_address: String,
    organization_name: String,
    organizational_unit_name: Vec<String>,
    names: Vec<Rdn>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Issuer {
    common_name: String,
    country: String,
    state_or_province_name: String,
    locality_name: String,
    organization_name: String,
    names: Vec<Rdn>,
}

/// The public key's numbers in hexadecimal (`x509.js` makes them BigInts).
#[derive(Serialize)]
#[serde(untagged)]
enum Key {
    Rsa {
        n: String,
        e: u64,
    },
    Ecdsa {
        curve: &'static str,
        #[serde(rename = "bitSize")]
        bit_size: u32,
        x: String,
        y: String,
    },
    Dsa {
        parameters: DsaParameters,
        y: String,
    },
}

#[derive(Serialize)]
struct DsaParameters {
    p: String,
    q: String,
    g: String,
}

#[derive(Serialize)]
struct PublicKey {
    algorithm: &'static str,
    key: Key,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Certificate {
    subject: Subject,
    issuer: Issuer,
    not_before: String,
    not_after: String,
    alt_names: Vec<String>,
    signature_algorithm: &'static str,
    finger_print: Vec<u8>,
    public_key: PublicKey,
}

/// The first PEM block's certificate, with its DER bytes (Go's
/// `pem.Decode` then `x509.ParseCertificate`, and their error texts).
fn with_certificate<T>(
    input: &[u8],
    f: impl FnOnce(&X509Certificate<'_>, &[u8]) -> Result<T, String>,
) -> Result<T, String> {
    let pem = x509_parser::pem::parse_x509_pem(input)
        .map(|(_, pem)| pem)
        .map_err(|_| "failed to decode certificate PEM file".to_string())?;
    let der = &pem.contents;
    let (rest, cert) = x509_parser::parse_x509_certificate(der)
        .map_err(|_| "failed to parse certificate: x509: malformed certificate".to_string())?;
    f(&cert, &der[..der.len() - rest.len()])
}

/// Go's `pkix.Name`: the last common name, the first of each other
/// field, every organizational unit, and every attribute in order.
struct Name {
    common: String,
    first: Vec<(&'static str, String)>,
    units: Vec<String>,
    names: Vec<Rdn>,
}

impl Name {
    fn read(name: &X509Name<'_>) -> Name {
        let mut out = Name {
            common: String::new(),
            first: Vec::new(),
            units: Vec::new(),
            names: Vec::new(),
        };
        for attr in name.iter_attributes() {
            let oid = attr.attr_type().to_id_string();
            let value = attr.as_str().map(str::to_string);
            if let Ok(v) = &value {
                let field = match oid.as_str() {
                    "2.5.4.3" => Some("CN"),
                    "2.5.4.6" => Some("C"),
                    "2.5.4.7" => Some("L"),
                    "2.5.4.8" => Some("ST"),
                    "2.5.4.9" => Some("STREET"),
                    "2.5.4.10" => Some("O"),
                    "2.5.4.17" => Some("POSTALCODE"),
                    "2.5.4.11" => {
                        out.units.push(v.clone());
                        None
                    }
                    _ => None,
                };
                match field {
                    Some("CN") => out.common = v.clone(),
                    Some(f) if !out.first.iter().any(|(k, _)| *k == f) => {
                        out.first.push((f, v.clone()))
                    }
                    _ => {}
                }
            }
            out.names.push(Rdn {
                r#type: oid,
                value: value.unwrap_or_default(),
            });
        }
        out
    }

    fn first(&self, field: &str) -> String {
        self.first
            .iter()
            .find(|(k, _)| *k == field)
            .map(|(_, v)| v.clone())
            .unwrap_or_default()
    }

    fn subject(self) -> Subject {
        Subject {
            country: self.first("C"),
            postal_code: self.first("POSTALCODE"),
            state_or_province_name: self.first("ST"),
            locality_name: self.first("L"),
            street_address: self.first("STREET"),
            organization_name: self.first("O"),
            common_name: self.common,
            organizational_unit_name: self.units,
            names: self.names,
        }
    }

    fn issuer(self) -> Issuer {
        Issuer {
            country: self.first("C"),
            state_or_province_name: self.first("ST"),
            locality_name: self.first("L"),
            organization_name: self.first("O"),
            common_name: self.common,
            names: self.names,
        }
    }
}

/// Go's order: DNS names, e-mail addresses, IP addresses, URIs.
fn alt_names(cert: &X509Certificate<'_>) -> Vec<String> {
    let Ok(Some(san)) = cert.subject_alternative_name() else {
        return Vec::new();
    };
    let mut kinds: [Vec<String>; 4] = Default::default();
    for n in &san.value.general_names {
        match n {
            GeneralName::DNSName(s) => kinds[0].push(s.to_string()),
            GeneralName::RFC822Name(s) => kinds[1].push(s.to_string()),
            GeneralName::IPAddress(b) => {
                if let Some(ip) = ip_text(b) {
                    kinds[2].push(ip)
                }
            }
            GeneralName::URI(s) => kinds[3].push(s.to_string()),
            _ => {}
        }
    }
    kinds.concat()
}

/// An address as Go's `net.IP` prints it (an IPv4-mapped IPv6 one as IPv4).
fn ip_text(b: &[u8]) -> Option<String> {
    match b.len() {
        4 => Some(Ipv4Addr::new(b[0], b[1], b[2], b[3]).to_string()),
        16 => {
            let a: [u8; 16] = b.try_into().ok()?;
            let v6 = Ipv6Addr::from(a);
            Some(match v6.to_ipv4_mapped() {
                Some(v4) => v4.to_string(),
                None => v6.to_string(),
            })
        }
        _ => None,
    }
}

/// Go's name of the signature algorithm (`SHA256-RSA`, `ECDSA-SHA384`, …);
/// RSA-PSS is named only with the parameters Go accepts (MGF1 with the
/// same hash, a salt as long as the hash).
fn signature_algorithm(cert: &X509Certificate<'_>) -> &'static str {
    let alg = &cert.signature_algorithm;
    match alg.algorithm.to_id_string().as_str() {
        "1.2.840.113549.1.1.2" => "MD2-RSA",
        "1.2.840.113549.1.1.4" => "MD5-RSA",
        "1.2.840.113549.1.1.5" | "1.3.14.3.2.29" => "SHA1-RSA",
        "1.2.840.113549.1.1.11" => "SHA256-RSA",
        "1.2.840.113549.1.1.12" => "SHA384-RSA",
        "1.2.840.113549.1.1.13" => "SHA512-RSA",
        "1.2.840.113549.1.1.10" => pss_name(alg).unwrap_or("UnknownSignatureAlgorithm"),
        "1.2.840.10040.4.3" => "DSA-SHA1",
        "2.16.840.1.101.3.4.3.2" => "DSA-SHA256",
        "1.2.840.10045.4.1" => "ECDSA-SHA1",
        "1.2.840.10045.4.3.2" => "ECDSA-SHA256",
        "1.2.840.10045.4.3.3" => "ECDSA-SHA384",
        "1.2.840.10045.4.3.4" => "ECDSA-SHA512",
        "1.3.101.112" => "Ed25519",
        _ => "UnknownSignatureAlgorithm",
    }
}

fn pss_name(alg: &x509_parser::x509::AlgorithmIdentifier<'_>) -> Option<&'static str> {
    use x509_parser::signature_algorithm::SignatureAlgorithm;
    let Ok(SignatureAlgorithm::RSASSA_PSS(p)) = SignatureAlgorithm::try_from(alg) else {
        return None;
    };
    let hash = p.hash_algorithm_oid().to_id_string();
    let (name, len) = match hash.as_str() {
        "2.16.840.1.101.3.4.2.1" => ("SHA256-RSAPSS", 32),
        "2.16.840.1.101.3.4.2.2" => ("SHA384-RSAPSS", 48),
        "2.16.840.1.101.3.4.2.3" => ("SHA512-RSAPSS", 64),
        _ => return None,
    };
    let mgf = p.mask_gen_algorithm().ok()?;
    (mgf.hash.to_id_string() == hash && p.salt_length() == len && p.trailer_field() == 1)
        .then_some(name)
}

/// Big-endian integer bytes in hexadecimal, without leading zeros.
fn hex(b: &[u8]) -> String {
    let s = super::hex(b);
    let t = s.trim_start_matches('0');
    if t.is_empty() { "0".into() } else { t.into() }
}

/// DSA's domain parameters: the algorithm's parameters, a SEQUENCE of
/// the INTEGERs p, q and g.
fn dsa_parameters(params: &x509_parser::asn1_rs::Any<'_>) -> Option<DsaParameters> {
    use x509_parser::asn1_rs::{Error, Integer};
    let seq = params.as_sequence().ok()?;
    let ints = seq
        .der_iter::<Integer, Error>()
        .collect::<Result<Vec<_>, _>>()
        .ok()?;
    let [p, q, g] = ints.as_slice() else {
        return None;
    };
    Some(DsaParameters {
        p: hex(p.as_ref()),
        q: hex(q.as_ref()),
        g: hex(g.as_ref()),
    })
}

/// k6's public key: RSA, ECDSA (the NIST curves Go reads) or DSA; any
/// other (Ed25519 among them) is k6's "unsupported public key algorithm".
fn public_key(cert: &X509Certificate<'_>) -> Result<PublicKey, String> {
    let spki = cert.public_key();
    let unsupported = || "unsupported public key algorithm".to_string();
    match spki.parsed().map_err(|_| unsupported())? {
        Parsed::RSA(k) => Ok(PublicKey {
            algorithm: "RSA",
            key: Key::Rsa {
                n: hex(k.modulus),
                e: k.try_exponent().map_err(|_| unsupported())?,
            },
        }),
        Parsed::EC(point) => {
            let curve = spki
                .algorithm
                .parameters
                .as_ref()
                .and_then(|p| p.as_oid().ok())
                .map(|o| o.to_id_string());
            let (curve, bit_size) = match curve.as_deref() {
                Some("1.2.840.10045.3.1.7") => ("P-256", 256),
                Some("1.3.132.0.34") => ("P-384", 384),
                Some("1.3.132.0.35") => ("P-521", 521),
                Some("1.3.132.0.33") => ("P-224", 224),
                _ => {
                    return Err(
                        "failed to parse certificate: x509: unsupported elliptic curve".into(),
                    );
                }
            };
            let data = point.data();
            let half = (data.len().saturating_sub(1)) / 2;
            if data.first() != Some(&4) || data.len() != 1 + 2 * half {
                return Err(
                    "failed to parse certificate: x509: failed to unmarshal elliptic curve point"
                        .into(),
                );
            }
            Ok(PublicKey {
                algorithm: "ECDSA",
                key: Key::Ecdsa {
                    curve,
                    bit_size,
                    x: hex(&data[1..1 + half]),
                    y: hex(&data[1 + half..]),
                },
            })
        }
        Parsed::DSA(y) => {
            let parameters = spki
                .algorithm
                .parameters
                .as_ref()
                .and_then(dsa_parameters)
                .ok_or_else(unsupported)?;
            Ok(PublicKey {
                algorithm: "DSA",
                key: Key::Dsa {
                    parameters,
                    y: hex(y),
                },
            })
        }
        _ => Err(unsupported()),
    }
}

fn rfc3339(t: &x509_parser::time::ASN1Time) -> String {
    loadlab_metrics::timefmt::rfc3339(i128::from(t.timestamp()) * 1_000_000_000)
}

/// What `what` asks of the certificate in `input`, as JSON text (its
/// keys in k6's order).
fn answer(input: &[u8], what: &str) -> Result<String, String> {
    let json = |v: Result<String, serde_json::Error>| v.map_err(|e| e.to_string());
    with_certificate(input, |cert, der| match what {
        "subject" => json(serde_json::to_string(&Name::read(cert.subject()).subject())),
        "issuer" => json(serde_json::to_string(&Name::read(cert.issuer()).issuer())),
        "altNames" => json(serde_json::to_string(&alt_names(cert))),
        _ => {
            let v = cert.validity();
            let c = Certificate {
                public_key: public_key(cert)?,
                subject: Name::read(cert.subject()).subject(),
                issuer: Name::read(cert.issuer()).issuer(),
                not_before: rfc3339(&v.not_before),
                not_after: rfc3339(&v.not_after),
                alt_names: alt_names(cert),
                signature_algorithm: signature_algorithm(cert),
                finger_print: sha1::Sha1::digest(der).to_vec(),
            };
            json(serde_json::to_string(&c))
        }
    })
}

/// The native: `x509(bytes, what)` answers `{"value": …}` or
/// `{"error": "…"}` (k6's GoError text).
pub(crate) fn install<'js>(ctx: &Ctx<'js>, k6: &Object<'js>) -> rquickjs::Result<()> {
    k6.set(
        "x509",
        Function::new(
            ctx.clone(),
            |input: Value<'js>, what: String| -> rquickjs::Result<String> {
                Ok(match answer(&js_bytes(&input)?, &what) {
                    Ok(value) => format!(r#"{{"value":{value}}}"#),
                    Err(error) => serde_json::json!({ "error": error }).to_string(),
                })
            },
        )?,
    )
}
