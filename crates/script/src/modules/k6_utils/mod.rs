//! `jslib.k6.io/k6-utils`, answered locally.

/// The module that answers imports of k6's remote utility library
/// (`https://jslib.k6.io/k6-utils/<version>/index.js`, any version): the
/// functions scripts use most, written here, with no network.
pub const K6_UTILS: &str = "jslib.k6.io/k6-utils";

pub(crate) const K6_UTILS_JS: &str = include_str!("k6_utils.js");

/// The module as the loader sees it (its imports are not checked: a
/// script names it by URL).
pub(crate) const MODULE: super::Module = super::Module {
    name: K6_UTILS,
    js: K6_UTILS_JS,
    exports: None,
};
