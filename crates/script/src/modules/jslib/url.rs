//! The natives of jslib's `url` module (`url.js`): WHATWG URL parsing,
//! its getters and setters (the `url` crate's `quirks`, which follow the
//! URL Standard's API), and `application/x-www-form-urlencoded` for
//! `URLSearchParams`.

use rquickjs::{Ctx, Function, Object, Value};

/// `input` against `base`, as `new URL(input, base)`: its `href`, or
/// `None` for a URL the standard rejects.
pub fn parse(input: &str, base: Option<&str>) -> Option<String> {
    let base = match base {
        Some(b) => Some(url::Url::parse(b).ok()?),
        None => None,
    };
    url::Url::options()
        .base_url(base.as_ref())
        .parse(input)
        .ok()
        .map(String::from)
}

/// A part of the URL `href` (`protocol`, `host`, `pathname`, …).
pub fn get(href: &str, part: &str) -> String {
    use url::quirks as q;
    let Ok(u) = url::Url::parse(href) else {
        return String::new();
    };
    match part {
        "origin" => q::origin(&u),
        "protocol" => q::protocol(&u).to_string(),
        "username" => q::username(&u).to_string(),
        "password" => q::password(&u).to_string(),
        "host" => q::host(&u).to_string(),
        "hostname" => q::hostname(&u).to_string(),
        "port" => q::port(&u).to_string(),
        "pathname" => q::pathname(&u).to_string(),
        "search" => q::search(&u).to_string(),
        "hash" => q::hash(&u).to_string(),
        _ => q::href(&u).to_string(),
    }
}

/// The URL `href` with `part` set to `value`, as the URL Standard's
/// setters set it (a value it refuses leaves the URL as it was).
pub fn set(href: &str, part: &str, value: &str) -> String {
    use url::quirks as q;
    let Ok(mut u) = url::Url::parse(href) else {
        return href.to_string();
    };
    let _ = match part {
        "protocol" => q::set_protocol(&mut u, value),
        "username" => q::set_username(&mut u, value),
        "password" => q::set_password(&mut u, value),
        "host" => q::set_host(&mut u, value),
        "hostname" => q::set_hostname(&mut u, value),
        "port" => q::set_port(&mut u, value),
        "pathname" => {
            q::set_pathname(&mut u, value);
            Ok(())
        }
        "search" => {
            q::set_search(&mut u, value);
            Ok(())
        }
        "hash" => {
            q::set_hash(&mut u, value);
            Ok(())
        }
        _ => Ok(()),
    };
    u.into()
}

pub(crate) fn install<'js>(ctx: &Ctx<'js>, k6: &Object<'js>) -> rquickjs::Result<()> {
    k6.set(
        "urlParse",
        Function::new(ctx.clone(), |input: String, base: Option<String>| {
            parse(&input, base.as_deref())
        })?,
    )?;
    k6.set(
        "urlGet",
        Function::new(ctx.clone(), |href: String, part: String| get(&href, &part))?,
    )?;
    k6.set(
        "urlSet",
        Function::new(ctx.clone(), |href: String, part: String, value: String| {
            set(&href, &part, &value)
        })?,
    )?;
    // A query as its name/value pairs (`+` a space, percent-escapes as
    // UTF-8, lossily), and pairs as a query.
    k6.set(
        "formParse",
        Function::new(
            ctx.clone(),
            |ctx: Ctx<'js>, query: String| -> rquickjs::Result<Value<'js>> {
                let out = rquickjs::Array::new(ctx.clone())?;
                for (i, (k, v)) in url::form_urlencoded::parse(query.as_bytes()).enumerate() {
                    let pair = rquickjs::Array::new(ctx.clone())?;
                    pair.set(0, k.as_ref())?;
                    pair.set(1, v.as_ref())?;
                    out.set(i, pair)?;
                }
                Ok(out.into_value())
            },
        )?,
    )?;
    k6.set(
        "formSerialize",
        Function::new(ctx.clone(), |pairs: Vec<Vec<String>>| {
            let mut s = url::form_urlencoded::Serializer::new(String::new());
            for p in &pairs {
                s.append_pair(
                    p.first().map_or("", String::as_str),
                    p.get(1).map_or("", String::as_str),
                );
            }
            s.finish()
        })?,
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_parse_resolve_and_set_as_the_standard_says() {
        let h = parse("../b?x=1#f", Some("https://user:pw@Example.com:8443/a/c")).unwrap();
        assert_eq!(h, "https://user:pw@example.com:8443/b?x=1#f");
        assert_eq!(get(&h, "host"), "example.com:8443");
        assert_eq!(get(&h, "origin"), "https://example.com:8443");
        assert_eq!(get(&h, "search"), "?x=1");
        assert_eq!(
            set(&h, "port", "443"),
            "https://user:pw@example.com/b?x=1#f"
        );
        assert_eq!(
            set(&h, "pathname", "/a b"),
            "https://user:pw@example.com:8443/a%20b?x=1#f"
        );
        assert!(parse("not a url", None).is_none());
    }
}
