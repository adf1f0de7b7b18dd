//! k6/websockets lives in `modules/websockets/`; this file is kept empty
//! so that the crate's module list stays as it is.
