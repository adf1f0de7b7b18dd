//! k6's thresholds: parsed from the options, checked before the load,
//! evaluated while it runs (`abortOnFail`) and at its end; the summary
//! renders the verdicts.

pub mod eval;
pub mod parse;
