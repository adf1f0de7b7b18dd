#![no_main]
//! Results files of every format report reads (loadlab v1, vegeta gob, JSON, CSV).

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| loadlab_metrics::fuzzing::check_results(data));
