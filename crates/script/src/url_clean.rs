//! A URL as k6 writes it into metrics and outputs: its user information
//! masked (`http://****:****@host/` with a password, `http://****@host/`
//! without), so no credential in a request's URL reaches a `url` or `name`
//! tag, a JSON or CSV output, a results file or a log line.

use std::borrow::Cow;

/// `url` with its userinfo masked as k6 masks it; borrowed when there is
/// none (the common case costs one scan of the authority).
pub fn clean(url: &str) -> Cow<'_, str> {
    let Some((start, at)) = userinfo(url) else {
        return Cow::Borrowed(url);
    };
    let mask = if url[start..at].contains(':') {
        "****:****"
    } else {
        "****"
    };
    Cow::Owned(format!("{}{mask}{}", &url[..start], &url[at..]))
}

/// `url` without its user information (`http://host/`), as k6 tags a
/// request whose credentials went into a digest answer.
pub fn without_userinfo(url: &str) -> Cow<'_, str> {
    match userinfo(url) {
        Some((start, at)) => Cow::Owned(format!("{}{}", &url[..start], &url[at + 1..])),
        None => Cow::Borrowed(url),
    }
}

/// Where a URL's user information lies: from just after `://` to its
/// `@` (byte offsets), when the authority has one.
fn userinfo(url: &str) -> Option<(usize, usize)> {
    let start = url.find("://")? + 3;
    let rest = &url[start..];
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let at = rest[..authority_end].rfind('@')?;
    Some((start, start + at))
}

/// `url` as Go's HTTP client writes it in an error (`Get "…"`): the
/// password, if any, as `***`, the user name kept.
pub fn strip_password(url: &str) -> Cow<'_, str> {
    let Some((start, at)) = userinfo(url) else {
        return Cow::Borrowed(url);
    };
    let Some(colon) = url[start..at].find(':') else {
        return Cow::Borrowed(url);
    };
    Cow::Owned(format!("{}:***{}", &url[..start + colon], &url[at..]))
}

#[cfg(test)]
mod tests {
    #[test]
    fn digest_urls_lose_their_user_information() {
        assert_eq!(
            super::without_userinfo("http://bob:s%3A@h:1/p?a=@"),
            "http://h:1/p?a=@"
        );
        assert_eq!(super::without_userinfo("http://h/p"), "http://h/p");
    }

    use super::{clean, strip_password};

    #[test]
    fn go_keeps_the_user_and_hides_the_password() {
        assert_eq!(strip_password("http://u:pw@h/x"), "http://u:***@h/x");
        assert_eq!(strip_password("http://u@h/x"), "http://u@h/x");
        assert_eq!(strip_password("http://h/x?a=b:c@d"), "http://h/x?a=b:c@d");
    }

    #[test]
    fn userinfo_is_masked_as_k6_masks_it() {
        assert_eq!(
            clean("http://u:pw@h:1/p?q=a@b"),
            "http://****:****@h:1/p?q=a@b"
        );
        assert_eq!(clean("https://alice@h/"), "https://****@h/");
        assert_eq!(clean("http://h/p?mail=a@b"), "http://h/p?mail=a@b");
        assert!(matches!(clean("http://h/"), std::borrow::Cow::Borrowed(_)));
        assert_eq!(clean("not a url"), "not a url");
    }
}
