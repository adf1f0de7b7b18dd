#![no_main]
//! The origin's HTTP/1 request-head parser.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| loadlab_origin::fuzzing::check_http1(data));
