#![no_main]
//! Replay logs (combined, common, a custom log_format, HAR, vegeta JSON
//! with timestamps) as `attack -replay` reads them.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| loadlab_engine::fuzzing::check_replay(data));
