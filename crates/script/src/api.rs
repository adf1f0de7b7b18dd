//! The k6 API as the script sees it, now cut into one module per k6
//! module under `modules/`; these are the old paths of what other files
//! import.

pub use crate::modules::common::{js_pairs, k6_helper};
pub use crate::modules::http::cookies::AllJars;
pub use crate::modules::http::request::{Expect, HttpDefaults, ReqMeta, ResponseType};
pub use crate::modules::http::response::register_response_class;
pub use crate::modules::timers::TIMERS_LIVE;
pub use crate::modules::{K6_UTILS, MODULES, install};
