//! `crypto.subtle.encrypt` and `decrypt` with AES-GCM, AES-CBC (PKCS#7
//! padding) and AES-CTR, as k6's WebCrypto has them: 128-, 192- and
//! 256-bit keys; GCM with a 96-bit IV and a 128-bit tag (the ciphertext
//! ends with it), optional additional data; CBC with a 128-bit IV; CTR
//! with a 128-bit counter block incremented as one big-endian number, as
//! Go's `cipher.NewCTR` (and so k6) does, whatever `length` says.

use aes::cipher::{
    BlockDecryptMut, BlockEncryptMut, KeyIvInit, StreamCipher, block_padding::Pkcs7,
};
use aes::{Aes128, Aes192, Aes256};
use aes_gcm::AesGcm;
use aes_gcm::aead::consts::U12;
use aes_gcm::aead::{Aead, KeyInit, Payload};

/// What failed, as WebCrypto names it (`OperationError` for a wrong
/// length, a bad tag or bad padding).
pub type AesError = &'static str;

/// The mode and its parameters.
pub enum Mode<'a> {
    Gcm { iv: &'a [u8], aad: &'a [u8] },
    Cbc { iv: &'a [u8] },
    Ctr { counter: &'a [u8] },
}

fn gcm<C>(
    key: &[u8],
    iv: &[u8],
    aad: &[u8],
    data: &[u8],
    encrypt: bool,
) -> Result<Vec<u8>, AesError>
where
    AesGcm<C, U12>: KeyInit + Aead,
{
    if iv.len() != 12 {
        return Err("AES-GCM: the iv must be 96 bits (12 bytes)");
    }
    let cipher =
        <AesGcm<C, U12> as KeyInit>::new_from_slice(key).map_err(|_| "invalid key length")?;
    let nonce = aes_gcm::aead::Nonce::<AesGcm<C, U12>>::from_slice(iv);
    let payload = Payload { msg: data, aad };
    if encrypt {
        cipher
            .encrypt(nonce, payload)
            .map_err(|_| "AES-GCM encryption failed")
    } else {
        cipher.decrypt(nonce, payload).map_err(
            |_| "AES-GCM: the data could not be decrypted (wrong key, iv, additional data or tag)",
        )
    }
}

fn cbc<C>(key: &[u8], iv: &[u8], data: &[u8], encrypt: bool) -> Result<Vec<u8>, AesError>
where
    C: aes::cipher::BlockCipher + aes::cipher::BlockEncryptMut + aes::cipher::BlockDecryptMut,
    C: aes::cipher::KeyInit,
    cbc::Encryptor<C>: KeyIvInit,
    cbc::Decryptor<C>: KeyIvInit,
{
    if iv.len() != 16 {
        return Err("AES-CBC: the iv must be 128 bits (16 bytes)");
    }
    if encrypt {
        let e = cbc::Encryptor::<C>::new_from_slices(key, iv).map_err(|_| "invalid key length")?;
        Ok(e.encrypt_padded_vec_mut::<Pkcs7>(data))
    } else {
        let d = cbc::Decryptor::<C>::new_from_slices(key, iv).map_err(|_| "invalid key length")?;
        d.decrypt_padded_vec_mut::<Pkcs7>(data)
            .map_err(|_| "AES-CBC: the data could not be decrypted (wrong key, iv or padding)")
    }
}

fn ctr<C>(key: &[u8], counter: &[u8], data: &[u8]) -> Result<Vec<u8>, AesError>
where
    C: aes::cipher::BlockCipher + aes::cipher::BlockEncrypt + aes::cipher::KeyInit,
    C: aes::cipher::BlockSizeUser<BlockSize = aes::cipher::consts::U16>,
    ctr::Ctr128BE<C>: KeyIvInit + StreamCipher,
{
    if counter.len() != 16 {
        return Err("AES-CTR: the counter must be 128 bits (16 bytes)");
    }
    let mut c =
        ctr::Ctr128BE::<C>::new_from_slices(key, counter).map_err(|_| "invalid key length")?;
    let mut out = data.to_vec();
    c.apply_keystream(&mut out);
    Ok(out)
}

/// Encrypts (or decrypts) `data` with `key` (16, 24 or 32 bytes).
pub fn run(mode: &Mode<'_>, key: &[u8], data: &[u8], encrypt: bool) -> Result<Vec<u8>, AesError> {
    match (mode, key.len()) {
        (Mode::Gcm { iv, aad }, 16) => gcm::<Aes128>(key, iv, aad, data, encrypt),
        (Mode::Gcm { iv, aad }, 24) => gcm::<Aes192>(key, iv, aad, data, encrypt),
        (Mode::Gcm { iv, aad }, 32) => gcm::<Aes256>(key, iv, aad, data, encrypt),
        (Mode::Cbc { iv }, 16) => cbc::<Aes128>(key, iv, data, encrypt),
        (Mode::Cbc { iv }, 24) => cbc::<Aes192>(key, iv, data, encrypt),
        (Mode::Cbc { iv }, 32) => cbc::<Aes256>(key, iv, data, encrypt),
        (Mode::Ctr { counter }, 16) => ctr::<Aes128>(key, counter, data),
        (Mode::Ctr { counter }, 24) => ctr::<Aes192>(key, counter, data),
        (Mode::Ctr { counter }, 32) => ctr::<Aes256>(key, counter, data),
        _ => Err("invalid key length: an AES key is 128, 192 or 256 bits"),
    }
}

#[cfg(test)]
mod tests {
    use super::super::super::hash::hex;
    use super::*;

    fn unhex(s: &str) -> Vec<u8> {
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    }

    /// NIST SP 800-38D (the GCM specification's test case 4, 128-bit key,
    /// with additional data): ciphertext then the 128-bit tag.
    #[test]
    fn gcm_answers_nist() {
        let key = unhex("feffe9928665731c6d6a8f9467308308");
        let iv = unhex("cafebabefacedbaddecaf888");
        let pt = unhex(
            "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39",
        );
        let aad = unhex("feedfacedeadbeeffeedfacedeadbeefabaddad2");
        let mode = Mode::Gcm { iv: &iv, aad: &aad };
        let ct = run(&mode, &key, &pt, true).unwrap();
        assert_eq!(
            hex(&ct),
            "42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e21d514b25466931c7d8f6a5aac84aa051ba30b396a0aac973d58e091\
             5bc94fbc3221a5db94fae95ae7121a47"
        );
        assert_eq!(run(&mode, &key, &ct, false).unwrap(), pt);
        let mut bad = ct.clone();
        bad[0] ^= 1;
        assert!(run(&mode, &key, &bad, false).is_err());
    }

    /// NIST SP 800-38A F.2.1 (CBC-AES128) and F.5.1 (CTR-AES128), first
    /// block; CBC then adds a whole block of PKCS#7 padding.
    #[test]
    fn cbc_and_ctr_answer_nist() {
        let key = unhex("2b7e151628aed2a6abf7158809cf4f3c");
        let pt = unhex("6bc1bee22e409f96e93d7e117393172a");
        let iv = unhex("000102030405060708090a0b0c0d0e0f");
        let ct = run(&Mode::Cbc { iv: &iv }, &key, &pt, true).unwrap();
        assert_eq!(hex(&ct[..16]), "7649abac8119b246cee98e9b12e9197d");
        assert_eq!(ct.len(), 32);
        assert_eq!(run(&Mode::Cbc { iv: &iv }, &key, &ct, false).unwrap(), pt);
        let counter = unhex("f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff");
        let ct = run(&Mode::Ctr { counter: &counter }, &key, &pt, true).unwrap();
        assert_eq!(hex(&ct), "874d6191b620e3261bef6864990db6ce");
        assert_eq!(
            run(&Mode::Ctr { counter: &counter }, &key, &ct, false).unwrap(),
            pt
        );
    }

    #[test]
    fn wrong_lengths_are_errors() {
        let iv = [0u8; 12];
        assert!(run(&Mode::Gcm { iv: &iv, aad: &[] }, &[0; 20], b"x", true).is_err());
        assert!(
            run(
                &Mode::Gcm {
                    iv: &[0; 8],
                    aad: &[]
                },
                &[0; 16],
                b"x",
                true
            )
            .is_err()
        );
        assert!(run(&Mode::Cbc { iv: &[0; 8] }, &[0; 16], b"x", true).is_err());
        assert!(run(&Mode::Ctr { counter: &[0; 8] }, &[0; 16], b"x", true).is_err());
    }
}
