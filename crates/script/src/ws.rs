//! k6/ws lives in `modules/ws/`; this file is kept empty so that the
//! crate's module list stays as it is.
