//! What a request carries besides what the engine sends: the parts the
//! metrics and `--http-debug` need ([`ReqMeta`]), its expected statuses and
//! the options every request starts from.

use std::rc::Rc;

use rquickjs::Value;

use crate::tags::Tags;

/// Which statuses are expected (k6's response callback): they decide the
/// `expected_response` tag and `http_req_failed`.
#[derive(Debug, Clone, Default)]
pub enum Expect {
    /// k6's default: 200 to 399.
    #[default]
    Default,
    /// `http.expectedStatuses(…)`: inclusive ranges (an exact status is a
    /// range of one).
    Statuses(Rc<[(u16, u16)]>),
    /// A `null` callback: no `expected_response` tag, no `http_req_failed`.
    Nothing,
}

impl Expect {
    /// Whether `status` (0: no response) is expected; `None` for no callback.
    pub fn of(&self, status: u16) -> Option<bool> {
        match self {
            Expect::Default => Some((200..400).contains(&status)),
            Expect::Statuses(r) => Some(r.iter().any(|&(lo, hi)| lo <= status && status <= hi)),
            Expect::Nothing => None,
        }
    }

    /// A callback value from a script: `null`, or what `expectedStatuses`
    /// made (`Err` for anything else).
    pub(crate) fn from_js(v: &Value<'_>) -> Result<Expect, ()> {
        if v.is_null() || v.is_undefined() {
            return Ok(Expect::Nothing);
        }
        let list = v
            .as_object()
            .and_then(|o| o.get::<_, Option<Vec<f64>>>("__k6statuses").ok().flatten())
            .ok_or(())?;
        let clamp = |x: f64| x.clamp(0.0, f64::from(u16::MAX)) as u16;
        let ranges: Vec<(u16, u16)> = list
            .chunks_exact(2)
            .filter(|p| p[0] <= p[1] && p[1] >= 0.0 && p[0] <= f64::from(u16::MAX))
            .map(|p| (clamp(p[0]), clamp(p[1])))
            .collect();
        Ok(Expect::Statuses(ranges.into()))
    }
}

/// The parts of a request the metrics need besides the response.
#[derive(Clone)]
pub struct ReqMeta {
    pub method: String,
    pub url: String,
    pub tags: Tags,
    pub response_type: ResponseType,
    /// The cookie jar of the request (0: the VU's; `params.jar`: another).
    pub jar: usize,
    /// `params.cookies`: name, value, and whether it replaces the jar's
    /// cookie of that name.
    pub cookies: Vec<(String, String, bool)>,
    /// The redirect limit was chosen (`params.redirects` or
    /// `options.maxRedirects`): reaching it is not warned about.
    pub redirects_set: bool,
    /// `params.responseCallback`, else the VU's `http.setResponseCallback`.
    pub expect: Expect,
    /// A failure is the script's exception: `params.throw`, else
    /// `options.throw` (k6 takes both).
    pub throws: bool,
    /// A request that could not be made, its error and code as k6 tags
    /// them (see `BuildError::Request`'s `sampled`).
    pub unsent: Option<(String, u32)>,
    /// `params.auth`: how a 401 is answered.
    pub auth: Auth,
}

/// `params.auth`: the scheme a request answers 401s with.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Auth {
    /// The URL's credentials, if any, go as Basic; a 401 is the answer.
    #[default]
    Basic,
    /// A 401 with a `Digest` challenge is answered by a second try
    /// (`modules/http/digest.rs`).
    Digest,
    /// The NTLM handshake (`modules/http/ntlm.rs`).
    Ntlm,
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum ResponseType {
    Text,
    Binary,
    None,
}

/// The options every request starts from.
#[derive(Debug, Clone, Default)]
pub struct HttpDefaults {
    /// `options.maxRedirects` or `--max-redirects` (`None`: 10, k6's default).
    pub max_redirects: Option<u32>,
    /// `discardResponseBodies` (`responseType` is `none` unless a request
    /// says otherwise), `userAgent` (`None`: `loadlab-k6`), `throw`.
    pub request: crate::config::RequestOptions,
    /// `systemTags` keeps `name`: an `http.url` template names its request.
    pub name_tag: bool,
    /// `blockHostnames` and `blacklistIPs` (for the failures' words).
    pub blocklist: std::sync::Arc<loadlab_engine::blocklist::Blocklist>,
    /// `hosts`: names dialled at fixed addresses (the modules that open
    /// their own connections follow them, as HTTP does).
    pub hosts: loadlab_engine::hosts::HostOverrides,
    /// The TLS the options ask for (`insecureSkipTLSVerify`, `tlsVersion`,
    /// `tlsCipherSuites`, `tlsAuth`): HTTP's, and what the modules that
    /// open their own connections (gRPC, Redis) start from.
    pub tls: loadlab_engine::config::TlsOptions,
}
