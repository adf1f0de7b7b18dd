#![no_main]
//! Study plans (YAML) as Plan::from_yaml reads them.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| loadlab_study::fuzzing::check_plan(data));
