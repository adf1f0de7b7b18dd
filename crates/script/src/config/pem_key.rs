//! Private keys encrypted with a password in the legacy PEM way (RFC 1423:
//! `Proc-Type: 4,ENCRYPTED` and `DEK-Info: CIPHER,IV` headers, as
//! `openssl rsa -aes256` and `openssl genrsa -des3` write them), which
//! k6 decrypts for `tlsAuth[].password` and gRPC's `tls.password`, with
//! Go's `x509.DecryptPEMBlock`: the key is MD5-derived from the password
//! and the IV's first 8 bytes (OpenSSL's `EVP_BytesToKey`, one round),
//! then CBC with PKCS#7 padding. The errors are Go's words.

use aes::cipher::{BlockDecryptMut, KeyIvInit, block_padding::NoPadding};
use md5::{Digest, Md5};

/// CBC decryption in place with a block cipher: the key, the IV, the data.
type CbcDecrypt = fn(&[u8], &[u8], &mut [u8]) -> Result<(), String>;

/// The ciphers Go reads: (name, key size, block size, decryption).
const CIPHERS: [(&str, usize, usize, CbcDecrypt); 5] = [
    ("DES-CBC", 8, 8, cbc_decrypt::<des::Des>),
    ("DES-EDE3-CBC", 24, 8, cbc_decrypt::<des::TdesEde3>),
    ("AES-128-CBC", 16, 16, cbc_decrypt::<aes::Aes128>),
    ("AES-192-CBC", 24, 16, cbc_decrypt::<aes::Aes192>),
    ("AES-256-CBC", 32, 16, cbc_decrypt::<aes::Aes256>),
];

/// `pem_text`'s first PEM block decrypted with `password`, as a PEM text
/// of the same type (what k6 hands on to its TLS client).
pub(crate) fn decrypt(pem_text: &str, password: &str) -> Result<String, String> {
    let block = pem::parse(pem_text).map_err(|_| "failed to decode PEM key".to_string())?;
    if block.tag() == "ENCRYPTED PRIVATE KEY" {
        return Err("encrypted pkcs8 formatted key is not supported".into());
    }
    let dek = block
        .headers()
        .get("DEK-Info")
        .ok_or("x509: no DEK-Info header in block")?;
    let (mode, iv_hex) = dek
        .split_once(',')
        .ok_or("x509: malformed DEK-Info header")?;
    let &(_, key_size, block_size, decrypt_cbc) = CIPHERS
        .iter()
        .find(|(name, ..)| *name == mode)
        .ok_or("x509: unknown encryption mode")?;
    let iv = hex_bytes(iv_hex.trim())
        .ok_or_else(|| format!("encoding/hex: invalid byte in {iv_hex:?}"))?;
    if iv.len() != block_size {
        return Err("x509: incorrect IV size".into());
    }
    let key = derive_key(password.as_bytes(), &iv[..8], key_size);
    let data = block.contents();
    if !data.len().is_multiple_of(block_size) {
        return Err("x509: encrypted PEM data is not a multiple of the block size".into());
    }
    let mut plain = data.to_vec();
    decrypt_cbc(&key, &iv, &mut plain)?;
    let unpadded = unpad(&plain, block_size)?;
    Ok(pem::encode(&pem::Pem::new(block.tag(), unpadded)))
}

/// OpenSSL's `EVP_BytesToKey` with MD5 and one round, as Go derives it.
fn derive_key(password: &[u8], salt: &[u8], size: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(size + 16);
    let mut digest: Vec<u8> = Vec::new();
    while out.len() < size {
        let mut h = Md5::new();
        h.update(&digest);
        h.update(password);
        h.update(salt);
        digest = h.finalize().to_vec();
        out.extend_from_slice(&digest);
    }
    out.truncate(size);
    out
}

fn cbc_decrypt<C>(key: &[u8], iv: &[u8], buf: &mut [u8]) -> Result<(), String>
where
    C: aes::cipher::BlockDecryptMut + aes::cipher::BlockCipher + aes::cipher::KeyInit,
{
    cbc::Decryptor::<C>::new_from_slices(key, iv)
        .map_err(|e| e.to_string())?
        .decrypt_padded_mut::<NoPadding>(buf)
        .map(|_| ())
        .map_err(|e| e.to_string())
}

/// PKCS#7 padding removed, or Go's words for a wrong password (the
/// padding is the only check the legacy format has).
fn unpad(data: &[u8], block_size: usize) -> Result<&[u8], String> {
    let incorrect = || "x509: decryption password incorrect".to_string();
    let last = usize::from(*data.last().ok_or("x509: invalid padding")?);
    if last == 0 || last > block_size || last > data.len() {
        return Err(incorrect());
    }
    let (body, pad) = data.split_at(data.len() - last);
    if pad.iter().any(|&b| usize::from(b) != last) {
        return Err(incorrect());
    }
    Ok(body)
}

fn hex_bytes(s: &str) -> Option<Vec<u8>> {
    if !s.len().is_multiple_of(2) {
        return None;
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(s.get(i..i + 2)?, 16).ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::decrypt;
    use loadlab_testkit::tls::{
        ENCRYPTED_KEY_PASSWORD, TRUSTED_KEY_ENCRYPTED, TRUSTED_KEY_PKCS8_ENCRYPTED,
        TRUSTED_KEY_SEC1,
    };

    /// The key inside a PEM text, whatever its line breaks.
    fn der(pem_text: &str) -> (String, Vec<u8>) {
        let p = pem::parse(pem_text).unwrap();
        (p.tag().to_string(), p.contents().to_vec())
    }

    #[test]
    fn openssl_legacy_encryptions_decrypt_to_the_key() {
        for (cipher, text) in TRUSTED_KEY_ENCRYPTED {
            assert!(text.contains(&format!("DEK-Info: {cipher},")), "{text}");
            let plain = decrypt(text, ENCRYPTED_KEY_PASSWORD).unwrap();
            assert_eq!(der(&plain), der(TRUSTED_KEY_SEC1), "{cipher}");
        }
    }

    #[test]
    fn errors_are_gos_words() {
        let aes = TRUSTED_KEY_ENCRYPTED[2].1;
        assert_eq!(
            decrypt(aes, "wrong").unwrap_err(),
            "x509: decryption password incorrect"
        );
        assert_eq!(
            decrypt(TRUSTED_KEY_PKCS8_ENCRYPTED, ENCRYPTED_KEY_PASSWORD).unwrap_err(),
            "encrypted pkcs8 formatted key is not supported"
        );
        assert_eq!(
            decrypt(TRUSTED_KEY_SEC1, "x").unwrap_err(),
            "x509: no DEK-Info header in block"
        );
        assert_eq!(decrypt("", "x").unwrap_err(), "failed to decode PEM key");
        let unknown = aes.replace("AES-256-CBC", "CAMELLIA-256-CBC");
        assert_eq!(
            decrypt(&unknown, "x").unwrap_err(),
            "x509: unknown encryption mode"
        );
        let short_iv = aes.replace("DEK-Info: AES-256-CBC,", "DEK-Info: AES-256-CBC,00");
        assert_eq!(
            decrypt(&short_iv, "x").unwrap_err(),
            "x509: incorrect IV size"
        );
    }
}
