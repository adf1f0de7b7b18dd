//! The run: `setup.rs` (set-up, init, teardown; it installs the k6
//! modules in the run's context) and `drive.rs` (the loop that asks the
//! executors). What the VUs share is in [`crate::state`] (its state rules
//! at the top), their slots in `crate::vus`.

pub mod config;
pub(crate) mod drive;
mod live;
mod outputs;
pub mod setup;
