//! k6's thresholds (parsed with the options, in
//! [`crate::config::thresholds`]): checked before the load,
//! evaluated while it runs (`abortOnFail`) and at its end; the summary
//! renders the verdicts.

pub mod eval;
