//! k6's JavaScript library (`https://jslib.k6.io/…`), answered locally:
//! loadlab never fetches a module, so the modules scripts import most are
//! written here, each answering every version's URL.

/// The module answering `https://jslib.k6.io/k6-utils/<version>/index.js`:
/// the functions scripts use most.
pub const K6_UTILS: &str = "jslib.k6.io/k6-utils";
/// The module answering `https://jslib.k6.io/k6-summary/<version>/index.js`:
/// `textSummary`, `jUnit` and `humanizeValue` for `handleSummary`.
pub const K6_SUMMARY: &str = "jslib.k6.io/k6-summary";

/// The module answering `https://jslib.k6.io/url/<version>/index.js`:
/// `URL` and `URLSearchParams`.
pub const URL: &str = "jslib.k6.io/url";

/// The module answering `https://jslib.k6.io/formdata/<version>/index.js`:
/// `FormData`, for multipart/form-data bodies.
pub const FORMDATA: &str = "jslib.k6.io/formdata";

/// The module answering `https://jslib.k6.io/papaparse/<version>/index.js`:
/// Papa Parse's `parse` and `unparse` of CSV text.
pub const PAPAPARSE: &str = "jslib.k6.io/papaparse";

/// The module answering `https://jslib.k6.io/httpx/<version>/index.js`:
/// `Httpx` sessions and request objects over k6/http.
pub const HTTPX: &str = "jslib.k6.io/httpx";

/// The module answering `https://jslib.k6.io/k6chaijs/<version>/index.js`:
/// Chai's `expect`, every assertion a check, and `describe`.
pub const K6CHAIJS: &str = "jslib.k6.io/k6chaijs";

/// The module answering `https://jslib.k6.io/expect/<version>/index.js`:
/// the older `describe` and chained `expect` checks.
pub const EXPECT: &str = "jslib.k6.io/expect";

/// jslib's URLs (up to the version) and the modules that answer them.
pub const JSLIB: &[(&str, &str)] = &[
    ("https://jslib.k6.io/k6-utils/", K6_UTILS),
    ("https://jslib.k6.io/k6-summary/", K6_SUMMARY),
    ("https://jslib.k6.io/url/", URL),
    ("https://jslib.k6.io/formdata/", FORMDATA),
    ("https://jslib.k6.io/papaparse/", PAPAPARSE),
    ("https://jslib.k6.io/httpx/", HTTPX),
    ("https://jslib.k6.io/k6chaijs/", K6CHAIJS),
    ("https://jslib.k6.io/expect/", EXPECT),
];

mod url;

/// The functions k6-summary's module exports and `--summary-mode=legacy`
/// prints with, on `__k6.jslibSummary`.
const SUMMARY_FN_JS: &str = include_str!("summary.fn.js");

/// The natives of the jslib modules, and the summary's functions (on
/// `__k6`).
pub(crate) fn install<'js>(
    ctx: &rquickjs::Ctx<'js>,
    k6: &rquickjs::Object<'js>,
) -> rquickjs::Result<()> {
    super::common::k6_code(ctx, SUMMARY_FN_JS)?.call::<_, ()>((k6.clone(),))?;
    url::install(ctx, k6)
}

/// The modules as the loader sees them (their imports are not checked: a
/// script names them by URL; a function they lack is a link error at init).
pub(crate) const K6_UTILS_MODULE: super::Module = super::Module {
    name: K6_UTILS,
    js: include_str!("k6_utils.js"),
    exports: None,
};

pub(crate) const K6_SUMMARY_MODULE: super::Module = super::Module {
    name: K6_SUMMARY,
    js: include_str!("k6_summary.js"),
    exports: None,
};

pub(crate) const URL_MODULE: super::Module = super::Module {
    name: URL,
    js: include_str!("url.js"),
    exports: None,
};

pub(crate) const FORMDATA_MODULE: super::Module = super::Module {
    name: FORMDATA,
    js: include_str!("formdata.js"),
    exports: None,
};

pub(crate) const PAPAPARSE_MODULE: super::Module = super::Module {
    name: PAPAPARSE,
    js: include_str!("papaparse.js"),
    exports: None,
};

pub(crate) const HTTPX_MODULE: super::Module = super::Module {
    name: HTTPX,
    js: include_str!("httpx.js"),
    exports: None,
};

pub(crate) const K6CHAIJS_MODULE: super::Module = super::Module {
    name: K6CHAIJS,
    js: include_str!("k6chaijs.js"),
    exports: None,
};

pub(crate) const EXPECT_MODULE: super::Module = super::Module {
    name: EXPECT,
    js: include_str!("expect.js"),
    exports: None,
};
