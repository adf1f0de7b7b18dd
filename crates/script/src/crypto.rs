//! k6/crypto lives in `modules/crypto/`; this file is kept empty so that
//! the crate's module list stays as it is.
