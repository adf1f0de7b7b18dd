//! How a plan's steps are named for people: `400 req/s`, `8 threads`,
//! `speed ×2`.

use super::LoadPlan;

impl LoadPlan {
    /// A step's level for people: `400 req/s`, `8 threads`, `CHANNELS=200`.
    pub fn level_label(&self, level: u64) -> String {
        match self.axis.as_str() {
            "rate" => format!("{level} req/s"),
            "threads" => format!("{level} threads"),
            "vus" => format!("{level} VUs"),
            "speed" => format!("speed ×{level}"),
            name => format!("{name}={level}"),
        }
    }

    /// The axis for a chart: `offered rate (req/s)`, `threads`, `CHANNELS`.
    pub fn axis_label(&self) -> String {
        match self.axis.as_str() {
            "rate" => "offered rate (req/s)".into(),
            "vus" => "virtual users".into(),
            "speed" => "replay speed (×)".into(),
            name => name.into(),
        }
    }

    /// A step's level, short: `400/s`, `8 thr`, `CHANNELS=200`.
    pub fn level_short(&self, level: u64) -> String {
        match self.axis.as_str() {
            "rate" => format!("{level}/s"),
            "threads" => format!("{level} thr"),
            "vus" => format!("{level} VUs"),
            "speed" => format!("×{level}"),
            name => format!("{name}={level}"),
        }
    }
}
