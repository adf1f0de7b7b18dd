//! The plan behind `loadlab demo` (also shipped as `examples/c5-vs-c6g.yaml`).

/// The demo plan's YAML text.
pub const DEMO_PLAN: &str = include_str!("../assets/demo.yaml");
