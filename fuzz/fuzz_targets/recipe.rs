#![no_main]
//! OriginSimulator recipes (JSON) as the origin parses them.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| loadlab_origin::fuzzing::check_recipes(data));
