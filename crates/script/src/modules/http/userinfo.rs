//! The credentials a request carries in its URL, for the handshakes
//! that answer a challenge with them (`digest.rs`, the NTLM steps in
//! `challenge.rs`).

use loadlab_engine::client::ClientRequest;

/// The request's URL as a URI (parsed when the request has none).
pub(super) fn request_uri(req: &ClientRequest) -> Option<http::Uri> {
    match &req.uri {
        Some(u) => Some(u.clone()),
        None => req.url.parse::<http::Uri>().ok(),
    }
}

/// The user and password of the request's URL, decoded; `None` without.
pub(super) fn credentials(req: &ClientRequest) -> Option<(String, String)> {
    credentials_in(&request_uri(req)?)
}

/// The user and password of `uri`, decoded; `None` without.
pub(super) fn credentials_in(uri: &http::Uri) -> Option<(String, String)> {
    let (user, pass) = loadlab_engine::url_credentials(uri)?;
    Some((
        String::from_utf8_lossy(&user).into_owned(),
        String::from_utf8_lossy(&pass).into_owned(),
    ))
}
