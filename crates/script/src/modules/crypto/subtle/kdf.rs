//! `crypto.subtle.deriveBits` with PBKDF2 (RFC 8018) over the HMACs
//! k6/crypto already has.

use hmac::{Hmac, KeyInit, Mac};

/// PBKDF2 with HMAC-`M`: `len` bytes from `password` and `salt`.
fn pbkdf2_with<M: Mac + KeyInit + Clone>(
    password: &[u8],
    salt: &[u8],
    iterations: u32,
    len: usize,
) -> Vec<u8> {
    let prf = <M as KeyInit>::new_from_slice(password).expect("HMAC takes a key of any length");
    let mut out = Vec::with_capacity(len);
    let mut block = 1u32;
    while out.len() < len {
        let mut m = prf.clone();
        m.update(salt);
        m.update(&block.to_be_bytes());
        let mut u = m.finalize().into_bytes().to_vec();
        let mut t = u.clone();
        for _ in 1..iterations {
            let mut m = prf.clone();
            m.update(&u);
            u = m.finalize().into_bytes().to_vec();
            t.iter_mut().zip(&u).for_each(|(a, b)| *a ^= b);
        }
        let take = (len - out.len()).min(t.len());
        out.extend_from_slice(&t[..take]);
        block += 1;
    }
    out
}

/// PBKDF2 with HMAC over `hash` (`sha1`, `sha256`, `sha384`, `sha512`):
/// `len` bytes, or `None` for another hash.
pub fn pbkdf2(
    hash: &str,
    password: &[u8],
    salt: &[u8],
    iterations: u32,
    len: usize,
) -> Option<Vec<u8>> {
    use sha2_11::{Sha256, Sha384, Sha512};
    Some(match hash {
        "sha1" => pbkdf2_with::<Hmac<sha1::Sha1>>(password, salt, iterations, len),
        "sha256" => pbkdf2_with::<Hmac<Sha256>>(password, salt, iterations, len),
        "sha384" => pbkdf2_with::<Hmac<Sha384>>(password, salt, iterations, len),
        "sha512" => pbkdf2_with::<Hmac<Sha512>>(password, salt, iterations, len),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::super::super::hash::hex;
    use super::*;

    /// Known answers: RFC 6070 (HMAC-SHA-1) cases 1, 2, 3 and 5; RFC 7914
    /// section 11 (HMAC-SHA-256).
    #[test]
    fn pbkdf2_gives_the_rfc_answers() {
        let case = |h, p: &[u8], s: &[u8], c, n| hex(&pbkdf2(h, p, s, c, n).unwrap());
        assert_eq!(
            case("sha1", b"password", b"salt", 1, 20),
            "0c60c80f961f0e71f3a9b524af6012062fe037a6"
        );
        assert_eq!(
            case("sha1", b"password", b"salt", 2, 20),
            "ea6c014dc72d6f8ccd1ed92ace1d41f0d8de8957"
        );
        assert_eq!(
            case("sha1", b"password", b"salt", 4096, 20),
            "4b007901b765489abead49d926f721d065a429c1"
        );
        assert_eq!(
            case(
                "sha1",
                b"passwordPASSWORDpassword",
                b"saltSALTsaltSALTsaltSALTsaltSALTsalt",
                4096,
                25
            ),
            "3d2eec4fe41c849b80c8d83662c0e44a8b291a964cf2f07038"
        );
        assert_eq!(
            case("sha256", b"passwd", b"salt", 1, 64),
            "55ac046e56e3089fec1691c22544b605f94185216dde0465e68b9d57c20dacbc\
             49ca9cccf179b645991664b39d77ef317c71b845b1e30bd509112041d3a19783"
        );
        assert_eq!(pbkdf2("md5", b"p", b"s", 1, 16), None);
    }
}
