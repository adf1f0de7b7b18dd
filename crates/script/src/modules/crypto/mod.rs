//! `k6/crypto`: hashes, HMACs and random bytes (the digests in
//! `hash.rs`).

use rquickjs::{Ctx, Function, Object, Value};

use super::common::js_bytes;

mod hash;
mod pk_natives;
mod subtle;
pub(crate) mod x509;

pub(crate) use hash::hex;

pub(crate) const NAME: &str = "k6/crypto";

pub(crate) const CRYPTO_JS: &str = include_str!("crypto.js");

/// What the module's default export has: the hashers, a function per
/// algorithm ([`hash::ALGORITHMS`]), and the rest.
pub(crate) const EXPORTS: &[&str] = &EXPORT_LIST;

const EXPORT_LIST: [&str; 5 + hash::ALGORITHMS.len()] = {
    const BEFORE: [&str; 3] = ["createHash", "createHMAC", "hmac"];
    const AFTER: [&str; 2] = ["hexEncode", "randomBytes"];
    let mut out = [""; 5 + hash::ALGORITHMS.len()];
    let mut i = 0;
    while i < out.len() {
        let a = hash::ALGORITHMS.len();
        out[i] = if i < 3 {
            BEFORE[i]
        } else if i < 3 + a {
            hash::ALGORITHMS[i - 3]
        } else {
            AFTER[i - 3 - a]
        };
        i += 1;
    }
    out
};

/// The module as the loader and the import checker see it.
/// The `crypto` global (WebCrypto): `getRandomValues`, `randomUUID` and
/// `crypto.subtle` (its public-key algorithms in `pk_natives`).
const WEBCRYPTO_JS: &str = include_str!("webcrypto.fn.js");

/// What of `crypto.subtle` loadlab has; the member checker refuses the
/// rest before the test starts.
pub(crate) const SUBTLE_SUPPORTED: &[&str] = &[
    "digest",
    "importKey",
    "exportKey",
    "sign",
    "verify",
    "deriveBits",
    "encrypt",
    "decrypt",
    "generateKey",
    "deriveKey",
    "wrapKey",
    "unwrapKey",
];

pub(crate) const MODULE: super::Module = super::Module {
    name: NAME,
    js: CRYPTO_JS,
    exports: Some(EXPORTS),
};

/// k6/crypto's natives: whether an algorithm is known, a digest (or an
/// HMAC) in an encoding, random bytes.
pub(crate) fn install<'js>(ctx: &Ctx<'js>, k6: &Object<'js>) -> rquickjs::Result<()> {
    // The WebCrypto global (`crypto`), on these natives and those of the
    // public-key algorithms.
    pk_natives::install(ctx, k6)?;
    super::common::k6_code(ctx, WEBCRYPTO_JS)?.call::<_, ()>((k6.clone(),))?;
    // k6/crypto's natives: whether an algorithm is known; a digest (or,
    // with a key, an HMAC) of the parts' bytes in an encoding, or a number
    // for bad input (0: the algorithm, 1: the encoding), which the module
    // turns into k6's GoError; `randomBytes(n)`.
    k6.set(
        "hashKnown",
        Function::new(ctx.clone(), |alg: String| hash::known(&alg))?,
    )?;
    k6.set(
        "digest",
        Function::new(
            ctx.clone(),
            |ctx: Ctx<'js>,
             alg: String,
             key: Value<'js>,
             parts: Vec<Value<'js>>,
             enc: String|
             -> rquickjs::Result<Value<'js>> {
                let key = (!key.is_undefined()).then(|| js_bytes(&key)).transpose()?;
                let mut data = Vec::new();
                for p in &parts {
                    data.extend_from_slice(&js_bytes(p)?);
                }
                let Some(sum) = hash::digest(&alg, key.as_deref(), &data) else {
                    return Ok(Value::new_number(ctx, 0.0));
                };
                use base64::Engine as _;
                let b64 = &base64::engine::general_purpose::STANDARD;
                let url = &base64::engine::general_purpose::URL_SAFE;
                let raw_url = &base64::engine::general_purpose::URL_SAFE_NO_PAD;
                let text = match enc.as_str() {
                    "hex" => hash::hex(&sum),
                    "base64" => b64.encode(&sum),
                    "base64url" => url.encode(&sum),
                    "base64rawurl" => raw_url.encode(&sum),
                    "binary" => return Ok(rquickjs::ArrayBuffer::new(ctx, sum)?.into_value()),
                    _ => return Ok(Value::new_number(ctx, 1.0)),
                };
                Ok(rquickjs::String::from_str(ctx, &text)?.into_value())
            },
        )?,
    )?;
    // PBKDF2: `len` bytes, from the password's and the salt's bytes.
    k6.set(
        "pbkdf2",
        Function::new(
            ctx.clone(),
            |ctx: Ctx<'js>,
             hash: String,
             password: Value<'js>,
             salt: Value<'js>,
             iterations: u32,
             len: usize|
             -> rquickjs::Result<Value<'js>> {
                let (password, salt) = (js_bytes(&password)?, js_bytes(&salt)?);
                match subtle::kdf::pbkdf2(&hash, &password, &salt, iterations, len) {
                    Some(out) => Ok(rquickjs::ArrayBuffer::new(ctx, out)?.into_value()),
                    None => Ok(Value::new_undefined(ctx)),
                }
            },
        )?,
    )?;
    // AES: `mode` AES-GCM, AES-CBC or AES-CTR; `iv` the IV or counter
    // block; `aad` GCM's additional data. The result's bytes, or the
    // reason it failed (a string, for an OperationError).
    k6.set(
        "aes",
        Function::new(
            ctx.clone(),
            |ctx: Ctx<'js>,
             mode: String,
             encrypt: bool,
             key: Value<'js>,
             iv: Value<'js>,
             aad: Value<'js>,
             data: Value<'js>|
             -> rquickjs::Result<Value<'js>> {
                let (key, iv, aad, data) = (
                    js_bytes(&key)?,
                    js_bytes(&iv)?,
                    js_bytes(&aad)?,
                    js_bytes(&data)?,
                );
                let mode = match mode.as_str() {
                    "AES-GCM" => subtle::aes::Mode::Gcm { iv: &iv, aad: &aad },
                    "AES-CBC" => subtle::aes::Mode::Cbc { iv: &iv },
                    _ => subtle::aes::Mode::Ctr { counter: &iv },
                };
                match subtle::aes::run(&mode, &key, &data, encrypt) {
                    Ok(out) => Ok(rquickjs::ArrayBuffer::new(ctx, out)?.into_value()),
                    Err(why) => Ok(rquickjs::String::from_str(ctx, why)?.into_value()),
                }
            },
        )?,
    )?;
    k6.set(
        "randomBytes",
        Function::new(
            ctx.clone(),
            |ctx: Ctx<'js>, n: usize| -> rquickjs::Result<Value<'js>> {
                let mut buf = vec![0u8; n];
                rand::RngCore::fill_bytes(&mut rand::rng(), &mut buf);
                Ok(rquickjs::ArrayBuffer::new(ctx, buf)?.into_value())
            },
        )?,
    )?;
    Ok(())
}
