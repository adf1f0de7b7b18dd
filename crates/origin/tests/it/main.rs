//! The crate's integration tests, one binary: each file of the old
//! `tests/` folder is a module here (one link instead of one per file).

mod admin;
mod arbitrary_recipes;
mod bad_recipes;
mod capacity;
mod common;
mod faults;
mod fuzz_corpus;
mod fuzz_regressions;
mod gzip;
mod h2c;
mod http1;
mod origin_fetch;
mod recipe_shapes;
mod routing;
mod stages;
