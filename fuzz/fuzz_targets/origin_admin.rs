#![no_main]
//! Bodies posted to the origin's admin API (/_admin/add_recipe).

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| loadlab_origin::fuzzing::check_admin(data));
