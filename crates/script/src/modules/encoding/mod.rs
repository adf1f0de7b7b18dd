//! `k6/encoding`: base64 in k6's four alphabets.

use rquickjs::{Ctx, Function, Object, Value};

use crate::js::runtime::array_buffer_bytes;

pub(crate) const NAME: &str = "k6/encoding";

pub(crate) const ENCODING_JS: &str = include_str!("encoding.js");

/// What the module's default export has.
pub(crate) const EXPORTS: &[&str] = &["b64encode", "b64decode"];

/// The module as the loader and the import checker see it.
pub(crate) const MODULE: super::Module = super::Module {
    name: NAME,
    js: ENCODING_JS,
    exports: Some(EXPORTS),
};

/// k6/encoding's alphabets: `std` (the default, for any other name too, as
/// in k6), `rawstd`, `url`, `rawurl`; decoding accepts non-zero trailing
/// bits, as Go's decoder does.
fn b64_engine(encoding: &str) -> base64::engine::GeneralPurpose {
    use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
    let (alphabet, pad) = match encoding {
        "rawstd" => (&base64::alphabet::STANDARD, false),
        "url" => (&base64::alphabet::URL_SAFE, true),
        "rawurl" => (&base64::alphabet::URL_SAFE, false),
        _ => (&base64::alphabet::STANDARD, true),
    };
    let config = GeneralPurposeConfig::new()
        .with_encode_padding(pad)
        .with_decode_allow_trailing_bits(true)
        .with_decode_padding_mode(if pad {
            DecodePaddingMode::RequireCanonical
        } else {
            DecodePaddingMode::RequireNone
        });
    GeneralPurpose::new(alphabet, config)
}

/// Where Go's decoder stops on bad base64 (its error says `illegal base64
/// data at input byte N`): the bad byte; for padding where there should be
/// none, the first `=`; for a missing end, the start of the last quantum.
fn b64_error_at(e: &base64::DecodeError, input: &str) -> usize {
    use base64::DecodeError as E;
    match *e {
        E::InvalidByte(at, _) | E::InvalidLastSymbol(at, _) => at,
        E::InvalidLength(_) | E::InvalidPadding => {
            input.find('=').unwrap_or(input.len() - input.len() % 4)
        }
    }
}

/// k6/encoding's natives: base64 in and out.
pub(crate) fn install<'js>(ctx: &Ctx<'js>, k6: &Object<'js>) -> rquickjs::Result<()> {
    // k6/encoding's natives: a string (its UTF-8 bytes) or an ArrayBuffer
    // in, base64 out; base64 in, an ArrayBuffer or (`as_string`) a string
    // out. Go's error text for bad input.
    k6.set(
        "b64encode",
        Function::new(
            ctx.clone(),
            |input: Value<'js>, encoding: String| -> rquickjs::Result<String> {
                let engine = b64_engine(&encoding);
                Ok(match input.as_string() {
                    Some(s) => base64::Engine::encode(&engine, s.to_string()?),
                    None => {
                        let ab = rquickjs::ArrayBuffer::from_value(input);
                        let data = ab.as_ref().and_then(array_buffer_bytes);
                        base64::Engine::encode(&engine, data.unwrap_or_default())
                    }
                })
            },
        )?,
    )?;
    k6.set(
        "b64decode",
        Function::new(
            ctx.clone(),
            |ctx: Ctx<'js>,
             input: String,
             encoding: String,
             as_string: bool|
             -> rquickjs::Result<Value<'js>> {
                let out = match base64::Engine::decode(&b64_engine(&encoding), input.as_bytes()) {
                    Ok(out) => out,
                    // The module throws k6's GoError with it.
                    Err(e) => return Ok(Value::new_number(ctx, b64_error_at(&e, &input) as f64)),
                };
                if as_string {
                    Ok(
                        rquickjs::String::from_str(ctx.clone(), &String::from_utf8_lossy(&out))?
                            .into_value(),
                    )
                } else {
                    Ok(rquickjs::ArrayBuffer::new(ctx.clone(), out)?.into_value())
                }
            },
        )?,
    )?;

    Ok(())
}
