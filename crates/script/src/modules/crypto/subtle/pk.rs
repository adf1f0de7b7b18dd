//! `crypto.subtle`'s public-key algorithms: RSASSA-PKCS1-v1_5, RSA-PSS
//! and RSA-OAEP; ECDSA and ECDH on P-256, P-384 and P-521. A key crosses
//! to JavaScript as DER (PKCS#8 for a private key, SPKI for a public
//! one), which every function here takes back; JWK is read and written
//! as JSON text (the key's own fields; the script's `alg`, `ext` and
//! `key_ops` are added by the JavaScript). Errors are the reason, which
//! the JavaScript turns into the DOMException WebCrypto names.

use base64::Engine as _;
use rsa::pkcs1::der::asn1::UintRef;
use rsa::pkcs1::der::{Decode, Encode};
use rsa::pkcs8::{DecodePrivateKey, DecodePublicKey, EncodePrivateKey, EncodePublicKey};
use rsa::traits::PublicKeyParts;
use serde_json::{Map, Value, json};

type Res<T> = Result<T, String>;

fn rng() -> getrandom::rand_core::UnwrapErr<getrandom::SysRng> {
    getrandom::rand_core::UnwrapErr(getrandom::SysRng)
}

/// Runs `$body` with `$d` the digest type WebCrypto's `$hash` names.
macro_rules! with_hash {
    ($hash:expr, $d:ident => $body:expr) => {
        match $hash {
            "SHA-1" => {
                type $d = sha1::Sha1;
                $body
            }
            "SHA-256" => {
                type $d = sha2_11::Sha256;
                $body
            }
            "SHA-384" => {
                type $d = sha2_11::Sha384;
                $body
            }
            "SHA-512" => {
                type $d = sha2_11::Sha512;
                $body
            }
            h => Err(format!("unsupported hash algorithm: {h}")),
        }
    };
}

/// Runs `$body` with `$m` the crate of the curve WebCrypto's `$curve` names.
macro_rules! with_curve {
    ($curve:expr, $m:ident => $body:expr) => {
        match $curve {
            "P-256" => {
                use p256 as $m;
                $body
            }
            "P-384" => {
                use p384 as $m;
                $body
            }
            "P-521" => {
                use p521 as $m;
                $body
            }
            c => Err(format!("unsupported named curve: {c}")),
        }
    };
}

fn b64url(b: &[u8]) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(b)
}

fn unb64url(v: &Value, field: &str) -> Res<Vec<u8>> {
    let s = v
        .get(field)
        .and_then(Value::as_str)
        .ok_or_else(|| format!("the JWK has no {field:?}"))?;
    base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(s.trim_end_matches('='))
        .map_err(|e| format!("the JWK's {field:?} is not base64url: {e}"))
}

/// A new key pair: PKCS#8 and SPKI.
pub fn generate(
    kind: &str,
    modulus_bits: usize,
    exponent: &[u8],
    curve: &str,
) -> Res<[Vec<u8>; 2]> {
    if kind == "RSA" {
        let e = rsa::BoxedUint::from_be_slice_vartime(exponent);
        let key = rsa::PrivateKey::new_with_exp(&mut rng(), modulus_bits, e)
            .map_err(|e| e.to_string())?;
        let public = key.to_public_key();
        return Ok([
            key.to_pkcs8_der()
                .map_err(|e| e.to_string())?
                .as_bytes()
                .to_vec(),
            public
                .to_public_key_der()
                .map_err(|e| e.to_string())?
                .into_vec(),
        ]);
    }
    with_curve!(curve, m => {
        let key = <m::SecretKey as rsa::Generate>::generate();
        Ok([
            key.to_pkcs8_der().map_err(|e| e.to_string())?.as_bytes().to_vec(),
            key.public_key().to_public_key_der().map_err(|e| e.to_string())?.into_vec(),
        ])
    })
}

/// A key read from `format` (`spki`, `pkcs8`, `jwk` as JSON text, `raw`
/// for an EC public key): whether it is private, its DER, and for RSA
/// its modulus length and public exponent.
pub struct Imported {
    pub private: bool,
    pub der: Vec<u8>,
    pub modulus_bits: usize,
    pub exponent: Vec<u8>,
}

pub fn import(kind: &str, curve: &str, format: &str, data: &[u8]) -> Res<Imported> {
    if kind == "RSA" {
        let (private, key) = match format {
            "pkcs8" => {
                let k = rsa::PrivateKey::from_pkcs8_der(data).map_err(|e| e.to_string())?;
                (Some(k.clone()), k.to_public_key())
            }
            "spki" => (
                None,
                rsa::PublicKey::from_public_key_der(data).map_err(|e| e.to_string())?,
            ),
            "jwk" => rsa_from_jwk(data)?,
            f => return Err(format!("unsupported key format {f} for RSA")),
        };
        let der = match &private {
            Some(k) => k
                .to_pkcs8_der()
                .map_err(|e| e.to_string())?
                .as_bytes()
                .to_vec(),
            None => key
                .to_public_key_der()
                .map_err(|e| e.to_string())?
                .into_vec(),
        };
        return Ok(Imported {
            private: private.is_some(),
            der,
            modulus_bits: key.size() * 8,
            exponent: trim(&key.e_bytes()).to_vec(),
        });
    }
    with_curve!(curve, m => {
        let (private, der) = match format {
            "pkcs8" => {
                let k = m::SecretKey::from_pkcs8_der(data).map_err(|e| e.to_string())?;
                (true, k.to_pkcs8_der().map_err(|e| e.to_string())?.as_bytes().to_vec())
            }
            "spki" | "raw" | "jwk" => {
                let v: Value;
                let public = match format {
                    "spki" => m::PublicKey::from_public_key_der(data).map_err(|e| e.to_string())?,
                    "raw" => m::PublicKey::from_sec1_bytes(data).map_err(|e| e.to_string())?,
                    _ => {
                        v = serde_json::from_slice(data).map_err(|e| e.to_string())?;
                        if v.get("crv").and_then(Value::as_str) != Some(curve) {
                            return Err(format!("the JWK's curve is not {curve}"));
                        }
                        if v.get("d").is_some() {
                            let d = unb64url(&v, "d")?;
                            let k = m::SecretKey::from_slice(&d).map_err(|e| e.to_string())?;
                            let der = k.to_pkcs8_der().map_err(|e| e.to_string())?;
                            return Ok(Imported { private: true, der: der.as_bytes().to_vec(), modulus_bits: 0, exponent: vec![] });
                        }
                        let mut point = vec![4u8];
                        point.extend(unb64url(&v, "x")?);
                        point.extend(unb64url(&v, "y")?);
                        m::PublicKey::from_sec1_bytes(&point).map_err(|e| e.to_string())?
                    }
                };
                (false, public.to_public_key_der().map_err(|e| e.to_string())?.into_vec())
            }
            f => return Err(format!("unsupported key format {f} for EC")),
        };
        Ok(Imported { private, der, modulus_bits: 0, exponent: vec![] })
    })
}

/// `b` without its leading zero bytes (JWK's integers have none).
fn trim(b: &[u8]) -> &[u8] {
    let i = b
        .iter()
        .position(|&x| x != 0)
        .unwrap_or(b.len().saturating_sub(1));
    &b[i..]
}

fn uint(b: &[u8]) -> Res<UintRef<'_>> {
    UintRef::new(trim(b)).map_err(|e| e.to_string())
}

/// An RSA key from its JWK: the private key if it has `d`, and the public one.
fn rsa_from_jwk(data: &[u8]) -> Res<(Option<rsa::PrivateKey>, rsa::PublicKey)> {
    use rsa::pkcs1::{DecodeRsaPrivateKey, DecodeRsaPublicKey};
    let v: Value = serde_json::from_slice(data).map_err(|e| e.to_string())?;
    let (n, e) = (unb64url(&v, "n")?, unb64url(&v, "e")?);
    if v.get("d").is_none() {
        let der = rsa::pkcs1::RsaPublicKeyRef {
            modulus: uint(&n)?,
            public_exponent: uint(&e)?,
        }
        .to_der()
        .map_err(|e| e.to_string())?;
        let k = rsa::PublicKey::from_pkcs1_der(&der).map_err(|e| e.to_string())?;
        return Ok((None, k));
    }
    let f: Vec<Vec<u8>> = ["d", "p", "q", "dp", "dq", "qi"]
        .iter()
        .map(|k| unb64url(&v, k))
        .collect::<Res<_>>()?;
    let der = rsa::pkcs1::RsaPrivateKeyRef {
        modulus: uint(&n)?,
        public_exponent: uint(&e)?,
        private_exponent: uint(&f[0])?,
        prime1: uint(&f[1])?,
        prime2: uint(&f[2])?,
        exponent1: uint(&f[3])?,
        exponent2: uint(&f[4])?,
        coefficient: uint(&f[5])?,
        other_prime_infos: None,
    }
    .to_der()
    .map_err(|e| e.to_string())?;
    let k = rsa::PrivateKey::from_pkcs1_der(&der).map_err(|e| e.to_string())?;
    let public = k.to_public_key();
    Ok((Some(k), public))
}

/// The key `der` (private: PKCS#8) in `format`: `spki`, `pkcs8`, `raw`
/// (an EC public key, uncompressed) or `jwk` (JSON text).
pub fn export(kind: &str, curve: &str, format: &str, der: &[u8], private: bool) -> Res<Vec<u8>> {
    if kind == "RSA" {
        let (key, public) = if private {
            let k = rsa::PrivateKey::from_pkcs8_der(der).map_err(|e| e.to_string())?;
            let p = k.to_public_key();
            (Some(k), p)
        } else {
            (
                None,
                rsa::PublicKey::from_public_key_der(der).map_err(|e| e.to_string())?,
            )
        };
        return match (format, &key) {
            ("pkcs8", Some(_)) | ("spki", None) => Ok(der.to_vec()),
            ("spki", Some(_)) | ("pkcs8", None) => Err(format!(
                "a {} key cannot be exported as {format}",
                if private { "private" } else { "public" }
            )),
            ("jwk", _) => rsa_jwk(key.as_ref(), &public),
            (f, _) => Err(format!("unsupported key format {f} for RSA")),
        };
    }
    with_curve!(curve, m => {
        let (secret, public) = if private {
            let k = m::SecretKey::from_pkcs8_der(der).map_err(|e| e.to_string())?;
            let p = k.public_key();
            (Some(k), p)
        } else {
            (None, m::PublicKey::from_public_key_der(der).map_err(|e| e.to_string())?)
        };
        match (format, &secret) {
            ("pkcs8", Some(_)) | ("spki", None) => Ok(der.to_vec()),
            ("raw", None) => Ok(public.to_sec1_bytes().to_vec()),
            ("jwk", _) => {
                let point = public.to_sec1_bytes();
                let half = (point.len() - 1) / 2;
                let mut jwk = json!({
                    "kty": "EC",
                    "crv": curve,
                    "x": b64url(&point[1..1 + half]),
                    "y": b64url(&point[1 + half..]),
                });
                if let Some(s) = &secret {
                    jwk["d"] = b64url(&s.to_bytes()).into();
                }
                Ok(jwk.to_string().into_bytes())
            }
            (f, _) => Err(format!("a {} key cannot be exported as {f}", if private { "private" } else { "public" })),
        }
    })
}

fn rsa_jwk(key: Option<&rsa::PrivateKey>, public: &rsa::PublicKey) -> Res<Vec<u8>> {
    use rsa::pkcs1::EncodeRsaPrivateKey;
    let mut jwk = Map::new();
    jwk.insert("kty".into(), "RSA".into());
    jwk.insert("n".into(), b64url(trim(&public.n_bytes())).into());
    jwk.insert("e".into(), b64url(trim(&public.e_bytes())).into());
    if let Some(k) = key {
        let der = k.to_pkcs1_der().map_err(|e| e.to_string())?;
        let p =
            rsa::pkcs1::RsaPrivateKeyRef::from_der(der.as_bytes()).map_err(|e| e.to_string())?;
        for (name, v) in [
            ("d", p.private_exponent),
            ("p", p.prime1),
            ("q", p.prime2),
            ("dp", p.exponent1),
            ("dq", p.exponent2),
            ("qi", p.coefficient),
        ] {
            jwk.insert(name.into(), b64url(v.as_bytes()).into());
        }
    }
    Ok(Value::Object(jwk).to_string().into_bytes())
}

/// A signature of `data` with the private key `pkcs8`: `alg`
/// RSASSA-PKCS1-v1_5, RSA-PSS (with `salt` bytes of salt) or ECDSA
/// (IEEE P1363 `r‖s`, as WebCrypto gives it).
pub fn sign(
    alg: &str,
    hash: &str,
    curve: &str,
    pkcs8: &[u8],
    data: &[u8],
    salt: usize,
) -> Res<Vec<u8>> {
    use sha2_11::Digest;
    with_hash!(hash, D => {
        let hashed = D::digest(data);
        match alg {
            "ECDSA" => with_curve!(curve, m => {
                use m::ecdsa::signature::hazmat::PrehashSigner;
                let k = m::SecretKey::from_pkcs8_der(pkcs8).map_err(|e| e.to_string())?;
                let s: m::ecdsa::Signature = m::ecdsa::SigningKey::from(&k)
                    .sign_prehash(&hashed)
                    .map_err(|e| e.to_string())?;
                Ok(s.to_bytes().to_vec())
            }),
            _ => {
                let k = rsa::PrivateKey::from_pkcs8_der(pkcs8).map_err(|e| e.to_string())?;
                let r = if alg == "RSA-PSS" {
                    k.sign_with_rng(&mut rng(), rsa::Pss::<D>::new_with_salt(salt), &hashed)
                } else {
                    k.sign_with_rng(&mut rng(), rsa::Pkcs1v15Sign::new::<D>(), &hashed)
                };
                r.map_err(|e| e.to_string())
            }
        }
    })
}

/// Whether `sig` is a signature of `data` by the public key `spki`.
pub fn verify(
    alg: &str,
    hash: &str,
    curve: &str,
    spki: &[u8],
    sig: &[u8],
    data: &[u8],
    salt: usize,
) -> Res<bool> {
    use sha2_11::Digest;
    with_hash!(hash, D => {
        let hashed = D::digest(data);
        match alg {
            "ECDSA" => with_curve!(curve, m => {
                use m::ecdsa::signature::hazmat::PrehashVerifier;
                let k = m::PublicKey::from_public_key_der(spki).map_err(|e| e.to_string())?;
                let Ok(s) = m::ecdsa::Signature::from_slice(sig) else { return Ok(false) };
                Ok(m::ecdsa::VerifyingKey::from(&k).verify_prehash(&hashed, &s).is_ok())
            }),
            _ => {
                let k = rsa::PublicKey::from_public_key_der(spki).map_err(|e| e.to_string())?;
                Ok(if alg == "RSA-PSS" {
                    k.verify(rsa::Pss::<D>::new_with_salt(salt), &hashed, sig).is_ok()
                } else {
                    k.verify(rsa::Pkcs1v15Sign::new::<D>(), &hashed, sig).is_ok()
                })
            }
        }
    })
}

/// RSA-OAEP: `data` encrypted with the public key (SPKI) or decrypted
/// with the private one (PKCS#8), with `label`.
pub fn rsa_oaep(encrypt: bool, hash: &str, der: &[u8], data: &[u8], label: &[u8]) -> Res<Vec<u8>> {
    with_hash!(hash, D => {
        let padding = rsa::Oaep::<D>::new_with_label(label.to_vec());
        if encrypt {
            let k = rsa::PublicKey::from_public_key_der(der).map_err(|e| e.to_string())?;
            k.encrypt(&mut rng(), padding, data).map_err(|e| e.to_string())
        } else {
            let k = rsa::PrivateKey::from_pkcs8_der(der).map_err(|e| e.to_string())?;
            k.decrypt_blinded(&mut rng(), padding, data).map_err(|e| e.to_string())
        }
    })
}

/// ECDH: the shared secret (the x coordinate) of the private key `pkcs8`
/// and the peer's public key `spki`.
pub fn ecdh(curve: &str, pkcs8: &[u8], spki: &[u8]) -> Res<Vec<u8>> {
    with_curve!(curve, m => {
        let k = m::SecretKey::from_pkcs8_der(pkcs8).map_err(|e| e.to_string())?;
        let peer = m::PublicKey::from_public_key_der(spki).map_err(|_| "the public key is not on the curve".to_string())?;
        Ok(k.diffie_hellman(&peer).raw_secret_bytes().to_vec())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ecdsa_and_ecdh_round_trip_through_every_format() {
        for curve in ["P-256", "P-384", "P-521"] {
            let [private, public] = generate("EC", 0, &[], curve).unwrap();
            let sig = sign("ECDSA", "SHA-256", curve, &private, b"x", 0).unwrap();
            assert!(verify("ECDSA", "SHA-256", curve, &public, &sig, b"x", 0).unwrap());
            assert!(!verify("ECDSA", "SHA-256", curve, &public, &sig, b"y", 0).unwrap());
            for f in ["jwk", "raw", "spki"] {
                let out = export("EC", curve, f, &public, false).unwrap();
                assert_eq!(
                    import("EC", curve, f, &out).unwrap().der,
                    public,
                    "{curve} {f}"
                );
            }
            let jwk = export("EC", curve, "jwk", &private, true).unwrap();
            assert_eq!(import("EC", curve, "jwk", &jwk).unwrap().der, private);
            let [other, other_pub] = generate("EC", 0, &[], curve).unwrap();
            assert_eq!(
                ecdh(curve, &private, &other_pub).unwrap(),
                ecdh(curve, &other, &public).unwrap()
            );
        }
    }

    #[test]
    fn rsa_signs_encrypts_and_round_trips_its_jwk() {
        let [private, public] = generate("RSA", 1024, &[1, 0, 1], "").unwrap();
        for alg in ["RSASSA-PKCS1-v1_5", "RSA-PSS"] {
            let sig = sign(alg, "SHA-256", "", &private, b"x", 32).unwrap();
            assert!(verify(alg, "SHA-256", "", &public, &sig, b"x", 32).unwrap());
            assert!(!verify(alg, "SHA-256", "", &public, &sig, b"y", 32).unwrap());
        }
        let ct = rsa_oaep(true, "SHA-1", &public, b"secret", b"l").unwrap();
        assert_eq!(
            rsa_oaep(false, "SHA-1", &private, &ct, b"l").unwrap(),
            b"secret"
        );
        let jwk = export("RSA", "", "jwk", &private, true).unwrap();
        let back = import("RSA", "", "jwk", &jwk).unwrap();
        assert_eq!(
            (back.private, back.modulus_bits, back.exponent),
            (true, 1024, vec![1, 0, 1])
        );
        let jwk = export("RSA", "", "jwk", &public, false).unwrap();
        assert_eq!(import("RSA", "", "jwk", &jwk).unwrap().der, public);
    }
}
