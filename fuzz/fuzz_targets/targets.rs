#![no_main]
//! vegeta's target formats (http and json) as the engine reads them.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| loadlab_engine::fuzzing::check_targets(data));
