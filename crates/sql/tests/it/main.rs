//! The crate's integration tests, one binary: each file of the old
//! `tests/` folder is a module here (one link instead of one per file).

mod common;
mod counts;
mod golden;
pub mod golden04;
mod help;
mod lua;
mod mariadb;
mod mysql_wire;
mod postgres;
mod prepared_data;
mod sysbench04;
mod verbosity;
