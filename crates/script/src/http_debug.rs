//! `--http-debug` (now in `modules/http/debug.rs`), by its old path.

pub(crate) use crate::modules::http::debug::{full, messages, request_id};
