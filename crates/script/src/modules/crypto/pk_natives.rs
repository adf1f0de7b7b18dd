//! The natives of WebCrypto's public-key algorithms (`subtle/pk.rs`) on
//! `__k6`, as `webcrypto_pk.fn.js` calls them: each answers `[value]`, or
//! the reason it failed (a string), which the JavaScript turns into a
//! DOMException.

use rquickjs::{ArrayBuffer, Ctx, Function, Object, Value};

use super::super::common::js_bytes;
use super::subtle::pk;

/// The public-key half of `crypto.subtle` (its JavaScript), given the
/// rest of it when the `crypto` global is made.
const PK_JS: &str = include_str!("webcrypto_pk.fn.js");

/// Runs `f` on a thread of its own with a stack of 8 MiB: the big-number
/// and curve arithmetic (P-384 and P-521 above all, in a debug build)
/// needs more stack than a VU's coroutine has. A key, a signature or a
/// derivation costs far more than the thread.
fn on_big_stack<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    std::thread::scope(|s| {
        let t = std::thread::Builder::new()
            .name("webcrypto".into())
            .stack_size(8 << 20)
            .spawn_scoped(s, f);
        match t {
            Ok(t) => t.join().unwrap_or_else(|p| std::panic::resume_unwind(p)),
            Err(e) => panic!("cannot start a thread for WebCrypto: {e}"),
        }
    })
}

fn answer<'js>(ctx: &Ctx<'js>, r: Result<Value<'js>, String>) -> rquickjs::Result<Value<'js>> {
    match r {
        Ok(v) => {
            let a = rquickjs::Array::new(ctx.clone())?;
            a.set(0, v)?;
            Ok(a.into_value())
        }
        Err(why) => Ok(rquickjs::String::from_str(ctx.clone(), &why)?.into_value()),
    }
}

fn buffer<'js>(ctx: &Ctx<'js>, b: Vec<u8>) -> rquickjs::Result<Value<'js>> {
    Ok(ArrayBuffer::new(ctx.clone(), b)?.into_value())
}

/// Bytes of an ArrayBuffer, a view, or (for a JWK) the string's UTF-8.
fn bytes_or_text(v: &Value<'_>) -> rquickjs::Result<Vec<u8>> {
    match v.as_string() {
        Some(s) => Ok(s.to_string()?.into_bytes()),
        None => js_bytes(v),
    }
}

pub(super) fn install<'js>(ctx: &Ctx<'js>, k6: &Object<'js>) -> rquickjs::Result<()> {
    let f: Function = super::super::common::k6_code(ctx, PK_JS)?.call((k6.clone(),))?;
    k6.set("pkSubtle", f)?;
    k6.set(
        "pkGenerate",
        Function::new(
            ctx.clone(),
            |ctx: Ctx<'js>, kind: String, bits: usize, exp: Value<'js>, curve: String| {
                let exp = js_bytes(&exp)?;
                let r = on_big_stack(|| pk::generate(&kind, bits, &exp, &curve));
                let v = match r {
                    Ok([private, public]) => {
                        let a = rquickjs::Array::new(ctx.clone())?;
                        a.set(0, buffer(&ctx, private)?)?;
                        a.set(1, buffer(&ctx, public)?)?;
                        Ok(a.into_value())
                    }
                    Err(e) => Err(e),
                };
                answer(&ctx, v)
            },
        )?,
    )?;
    k6.set(
        "pkImport",
        Function::new(
            ctx.clone(),
            |ctx: Ctx<'js>, kind: String, curve: String, format: String, data: Value<'js>| {
                let data = bytes_or_text(&data)?;
                let v = match on_big_stack(|| pk::import(&kind, &curve, &format, &data)) {
                    Ok(k) => {
                        let o = Object::new(ctx.clone())?;
                        o.set("private", k.private)?;
                        o.set("der", buffer(&ctx, k.der)?)?;
                        o.set("bits", k.modulus_bits)?;
                        o.set("exp", buffer(&ctx, k.exponent)?)?;
                        Ok(o.into_value())
                    }
                    Err(e) => Err(e),
                };
                answer(&ctx, v)
            },
        )?,
    )?;
    k6.set(
        "pkExport",
        Function::new(
            ctx.clone(),
            |ctx: Ctx<'js>,
             kind: String,
             curve: String,
             format: String,
             der: Value<'js>,
             private: bool| {
                let der = js_bytes(&der)?;
                let v = match on_big_stack(|| pk::export(&kind, &curve, &format, &der, private)) {
                    Ok(out) if format == "jwk" => Ok(rquickjs::String::from_str(
                        ctx.clone(),
                        &String::from_utf8_lossy(&out),
                    )?
                    .into_value()),
                    Ok(out) => Ok(buffer(&ctx, out)?),
                    Err(e) => Err(e),
                };
                answer(&ctx, v)
            },
        )?,
    )?;
    install_operations(ctx, k6)
}

/// sign, verify, RSA-OAEP and ECDH.
fn install_operations<'js>(ctx: &Ctx<'js>, k6: &Object<'js>) -> rquickjs::Result<()> {
    // `p`: `{alg, hash, curve, salt}`.
    let params = |p: &Object<'js>| -> rquickjs::Result<(String, String, String, usize)> {
        Ok((
            p.get("alg")?,
            p.get("hash")?,
            p.get("curve")?,
            p.get("salt")?,
        ))
    };
    k6.set(
        "pkSign",
        Function::new(
            ctx.clone(),
            move |ctx: Ctx<'js>, p: Object<'js>, der: Value<'js>, data: Value<'js>| {
                let (alg, hash, curve, salt) = params(&p)?;
                let (der, data) = (js_bytes(&der)?, js_bytes(&data)?);
                let r = on_big_stack(|| pk::sign(&alg, &hash, &curve, &der, &data, salt));
                let v = match r {
                    Ok(sig) => Ok(buffer(&ctx, sig)?),
                    Err(e) => Err(e),
                };
                answer(&ctx, v)
            },
        )?,
    )?;
    k6.set(
        "pkVerify",
        Function::new(
            ctx.clone(),
            move |ctx: Ctx<'js>,
                  p: Object<'js>,
                  der: Value<'js>,
                  sig: Value<'js>,
                  data: Value<'js>| {
                let (alg, hash, curve, salt) = params(&p)?;
                let (der, sig, data) = (js_bytes(&der)?, js_bytes(&sig)?, js_bytes(&data)?);
                let r = on_big_stack(|| pk::verify(&alg, &hash, &curve, &der, &sig, &data, salt));
                let v = r.map(|ok| Value::new_bool(ctx.clone(), ok));
                answer(&ctx, v)
            },
        )?,
    )?;
    k6.set(
        "rsaOaep",
        Function::new(
            ctx.clone(),
            |ctx: Ctx<'js>,
             encrypt: bool,
             hash: String,
             der: Value<'js>,
             data: Value<'js>,
             label: Value<'js>| {
                let (der, data, label) = (js_bytes(&der)?, js_bytes(&data)?, js_bytes(&label)?);
                let v = match on_big_stack(|| pk::rsa_oaep(encrypt, &hash, &der, &data, &label)) {
                    Ok(out) => Ok(buffer(&ctx, out)?),
                    Err(e) => Err(e),
                };
                answer(&ctx, v)
            },
        )?,
    )?;
    k6.set(
        "ecdh",
        Function::new(
            ctx.clone(),
            |ctx: Ctx<'js>, curve: String, der: Value<'js>, peer: Value<'js>| {
                let (der, peer) = (js_bytes(&der)?, js_bytes(&peer)?);
                let v = match on_big_stack(|| pk::ecdh(&curve, &der, &peer)) {
                    Ok(out) => Ok(buffer(&ctx, out)?),
                    Err(e) => Err(e),
                };
                answer(&ctx, v)
            },
        )?,
    )?;
    Ok(())
}
