//! A request's way through the 401s its `params.auth` answers: none for
//! basic, one more try for a digest challenge (`digest.rs`), the NTLM
//! handshake's two (`ntlm.rs`). `send.rs` sends what [`Handshake::after`]
//! asks for and records every exchange, each as k6 v1.8.1 records it.

use std::borrow::Cow;
use std::rc::Rc;

use loadlab_engine::client::{ClientRequest, ClientResponse};

use super::userinfo::credentials;
use crate::state::request::{Auth, Expect, ReqMeta};

/// Where a request is in its handshake.
pub(super) struct Handshake {
    /// The request as the script made it, credentials in its URL (`None`
    /// for basic: nothing to answer, nothing kept).
    req: Option<ClientRequest>,
    auth: Auth,
    /// Exchanges done so far.
    sent: u8,
    /// NTLM: the first answer, which is the response when the handshake
    /// cannot go on (as k6's client returns it).
    first: Option<ClientResponse>,
}

/// What follows a response.
// One per exchange, moved once: the size of a request in `Again` costs
// nothing worth a Box.
#[allow(clippy::large_enum_variant)]
pub(super) enum Step {
    /// It is the request's response.
    Done,
    /// Record it as `record` says, then send `next`.
    Again {
        record: ReqMeta,
        next: ClientRequest,
    },
    /// Record it as `record` says; the request's response is `answer`,
    /// recorded already.
    Fallback {
        record: ReqMeta,
        answer: Box<ClientResponse>,
    },
}

impl Handshake {
    /// The request to send first: NTLM's goes without credentials (k6's
    /// client tries anonymously first); the others as they are. A basic
    /// request is not copied.
    pub(super) fn start(meta: &ReqMeta, req: ClientRequest) -> (Handshake, ClientRequest) {
        let kept = (meta.auth != Auth::Basic).then(|| req.clone());
        let mut first = req;
        if meta.auth == Auth::Ntlm && credentials(&first).is_some() {
            strip_authorization(&mut first);
        }
        let hs = Handshake {
            req: kept,
            auth: meta.auth,
            sent: 1,
            first: None,
        };
        (hs, first)
    }

    /// What follows `resp`, the answer to the last request sent.
    pub(super) fn after(&mut self, resp: &ClientResponse, meta: &ReqMeta) -> Step {
        let Some(req) = &self.req else {
            return Step::Done;
        };
        match (self.auth, self.sent) {
            (Auth::Digest, 1) => match super::digest::answer(req, resp) {
                Some(auth) => self.again(expecting_401(meta, false), auth_header(auth)),
                None => Step::Done,
            },
            (Auth::Ntlm, 1) => self.ntlm_negotiate(resp, meta),
            (Auth::Ntlm, 2) => self.ntlm_authenticate(resp, meta),
            _ => Step::Done,
        }
    }

    /// How the request's response is recorded when [`Step::Done`] ends
    /// the handshake: as the request says, except NTLM's first answer,
    /// whose 401 k6 takes as expected (its callback for the first answer).
    pub(super) fn record_final<'m>(&self, meta: &'m ReqMeta) -> Cow<'m, ReqMeta> {
        if self.auth == Auth::Ntlm && self.sent == 1 {
            Cow::Owned(expecting_401(meta, true))
        } else {
            Cow::Borrowed(meta)
        }
    }

    fn again(&mut self, record: ReqMeta, header: (String, String)) -> Step {
        let Some(mut next) = self.req.clone() else {
            return Step::Done;
        };
        strip_authorization(&mut next);
        next.headers.push(header);
        self.sent += 1;
        Step::Again { record, next }
    }

    /// After the anonymous try: a 401 offering NTLM gets the NEGOTIATE
    /// message.
    fn ntlm_negotiate(&mut self, resp: &ClientResponse, meta: &ReqMeta) -> Step {
        if resp.status != 401 || self.req.as_ref().and_then(credentials).is_none() {
            return Step::Done;
        }
        let Some((scheme, _)) = super::ntlm::offered(resp.headers.iter()) else {
            return Step::Done;
        };
        let header = auth_header(format!("{scheme} {}", super::ntlm::negotiate()));
        self.first = Some(resp.clone());
        // k6 takes the first answer's 401 as expected (an NTLM connection
        // may be authenticated already), the later ones by the callback.
        self.again(expecting_401(meta, true), header)
    }

    /// After the NEGOTIATE message: a 401 with the CHALLENGE gets the
    /// AUTHENTICATE message; anything else ends the handshake.
    fn ntlm_authenticate(&mut self, resp: &ClientResponse, meta: &ReqMeta) -> Step {
        let first = self.first.take();
        if resp.status != 401 {
            return Step::Done;
        }
        let answer = super::ntlm::offered(resp.headers.iter()).and_then(|(scheme, token)| {
            let (user, pass) = self.req.as_ref().and_then(credentials)?;
            let m = super::ntlm::authenticate(token, &user, &pass)?;
            Some(format!("{scheme} {m}"))
        });
        match (answer, first) {
            (Some(auth), _) => self.again(meta.clone(), auth_header(auth)),
            (None, Some(answer)) => Step::Fallback {
                record: meta.clone(),
                answer: Box::new(answer),
            },
            (None, None) => Step::Done,
        }
    }
}

fn auth_header(value: String) -> (String, String) {
    ("Authorization".into(), value)
}

fn strip_authorization(req: &mut ClientRequest) {
    req.headers
        .retain(|(k, _)| !k.eq_ignore_ascii_case("authorization"));
}

/// How a challenge's 401 is recorded: expected (digest: only a 401, as
/// k6's callback for it says; NTLM: a 401 or what the request expects),
/// unless no response is expected of any request.
fn expecting_401(meta: &ReqMeta, or_expected: bool) -> ReqMeta {
    let mut m = meta.clone();
    m.expect = match &m.expect {
        Expect::Nothing => Expect::Nothing,
        _ if !or_expected => Expect::Statuses(Rc::from([(401u16, 401u16)])),
        Expect::Default => Expect::Statuses(Rc::from([(200, 399), (401, 401)])),
        Expect::Statuses(r) => {
            let mut r = r.to_vec();
            r.push((401, 401));
            Expect::Statuses(Rc::from(r))
        }
    };
    m
}
