//! k6/crypto's hashes and HMACs over bytes (the JavaScript side is
//! `crypto.js`).

use hmac::{KeyInit, Mac};
use sha2_11::digest::Digest;

/// The algorithms k6/crypto names (each also a function the module
/// exports).
pub(super) const ALGORITHMS: [&str; 9] = [
    "md4",
    "md5",
    "sha1",
    "sha256",
    "sha384",
    "sha512",
    "sha512_224",
    "sha512_256",
    "ripemd160",
];

/// Whether k6/crypto knows `alg`.
pub fn known(alg: &str) -> bool {
    ALGORITHMS.contains(&alg)
}

fn hash<D: Digest>(data: &[u8]) -> Vec<u8> {
    D::digest(data).to_vec()
}

fn mac<M: Mac + KeyInit>(key: &[u8], data: &[u8]) -> Vec<u8> {
    let mut m = <M as KeyInit>::new_from_slice(key).expect("HMAC takes a key of any length");
    m.update(data);
    m.finalize().into_bytes().to_vec()
}

/// `alg`'s digest of `data`, or with `key` its HMAC; `identity` gives
/// `data` itself (`hexEncode`); `None` for an algorithm k6 lacks.
pub fn digest(alg: &str, key: Option<&[u8]>, data: &[u8]) -> Option<Vec<u8>> {
    use hmac::Hmac;
    use sha2_11::{Sha256, Sha384, Sha512, Sha512_224, Sha512_256};
    Some(match (alg, key) {
        ("identity", None) => data.to_vec(),
        ("md4", None) => hash::<md4::Md4>(data),
        ("md5", None) => hash::<md5::Md5>(data),
        ("sha1", None) => hash::<sha1::Sha1>(data),
        ("sha256", None) => hash::<Sha256>(data),
        ("sha384", None) => hash::<Sha384>(data),
        ("sha512", None) => hash::<Sha512>(data),
        ("sha512_224", None) => hash::<Sha512_224>(data),
        ("sha512_256", None) => hash::<Sha512_256>(data),
        ("ripemd160", None) => hash::<ripemd::Ripemd160>(data),
        ("md4", Some(k)) => mac::<Hmac<md4::Md4>>(k, data),
        ("md5", Some(k)) => mac::<Hmac<md5::Md5>>(k, data),
        ("sha1", Some(k)) => mac::<Hmac<sha1::Sha1>>(k, data),
        ("sha256", Some(k)) => mac::<Hmac<Sha256>>(k, data),
        ("sha384", Some(k)) => mac::<Hmac<Sha384>>(k, data),
        ("sha512", Some(k)) => mac::<Hmac<Sha512>>(k, data),
        ("sha512_224", Some(k)) => mac::<Hmac<Sha512_224>>(k, data),
        ("sha512_256", Some(k)) => mac::<Hmac<Sha512_256>>(k, data),
        ("ripemd160", Some(k)) => mac::<Hmac<ripemd::Ripemd160>>(k, data),
        _ => return None,
    })
}

/// Lower-case hex, as Go's `hex.EncodeToString`.
pub fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    bytes
        .iter()
        .fold(String::with_capacity(bytes.len() * 2), |mut s, b| {
            let _ = write!(s, "{b:02x}");
            s
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Known answers (RFC 1321, FIPS 180, RFC 4231 case 2).
    #[test]
    fn digests_and_hmacs_give_the_known_answers() {
        assert_eq!(
            hex(&digest("md5", None, b"abc").unwrap()),
            "900150983cd24fb0d6963f7d28e17f72"
        );
        assert_eq!(
            hex(&digest("sha256", None, b"abc").unwrap()),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(
            hex(&digest("sha256", Some(b"Jefe"), b"what do ya want for nothing?").unwrap()),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
        assert_eq!(digest("sha3", None, b""), None);
        assert!(
            ALGORITHMS
                .iter()
                .all(|a| digest(a, None, b"x").is_some() && known(a))
        );
    }
}
