//! The summary's options: its trend statistics and its time unit.

/// A fixed unit for the summary's times.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TimeUnit {
    /// As written in the option: `s`, `ms`, `us`.
    pub name: &'static str,
    /// What the summary shows after the value (`µs` for `us`).
    pub suffix: &'static str,
    /// Milliseconds in one unit.
    pub ms: f64,
}

impl TimeUnit {
    pub fn parse(s: &str) -> Option<TimeUnit> {
        let (name, suffix, ms) = match s {
            "s" => ("s", "s", 1000.0),
            "ms" => ("ms", "ms", 1.0),
            "us" => ("us", "µs", 0.001),
            _ => return None,
        };
        Some(TimeUnit { name, suffix, ms })
    }
}

pub(crate) const DEFAULT_STATS: [&str; 6] = ["avg", "min", "med", "max", "p(90)", "p(95)"];
