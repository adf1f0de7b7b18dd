//! The study plans the converters write (`--to plan`): the plan's name from
//! its file's stem, the targets file beside it, and the plan's text.

use std::path::{Path, PathBuf};

use crate::exit::CliError;

/// `my api.v2` → `my-api-v2`: letters, digits, `-` and `_` kept, anything
/// else a `-`, so that the name is a valid plan name.
pub(super) fn plan_name(stem: &str) -> String {
    stem.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '-'
            }
        })
        .collect()
}

/// The plan's stem and its targets file beside it (`api.yaml` →
/// `api`, `api.targets.txt`); `--output` must name the plan.
pub(super) fn beside(output: &str, fallback: &str) -> Result<(String, PathBuf), CliError> {
    if output == "stdout" || output == "-" {
        return Err(CliError::usage(
            "--to=plan writes several files: give --output=PLAN.yaml (its targets file goes beside it)",
        ));
    }
    let plan = Path::new(output);
    let stem = plan
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or(fallback)
        .to_string();
    let targets = plan.with_file_name(format!("{stem}.targets.txt"));
    Ok((stem, targets))
}

/// A plan of one HTTP target read from a targets file.
pub(super) struct PlanText<'a> {
    /// The opening comment, one `#` line each.
    pub comment: &'a [String],
    pub stem: &'a str,
    pub question: String,
    pub target: &'a str,
    pub targets: &'a Path,
    /// One per request (`None`: in turn).
    pub weights: Option<String>,
    pub rates: &'a [u64],
    pub step: &'a str,
    pub warmup: &'a str,
    pub cooldown: Option<&'a str>,
    pub repetitions: u32,
    pub success: &'a str,
}

impl PlanText<'_> {
    /// The plan's YAML.
    pub(super) fn render(&self) -> String {
        let mut s = String::new();
        for l in self.comment {
            s += &format!("# {l}\n");
        }
        let targets = self
            .targets
            .file_name()
            .and_then(|s| s.to_str())
            .unwrap_or("");
        s += &format!(
            "name: {}\nquestion: {}\ntargets:\n  - name: {}\n    targets_file: {targets}\n",
            plan_name(self.stem),
            self.question,
            self.target
        );
        if let Some(w) = &self.weights {
            s += &format!("    weights: [{w}]\n");
        }
        let rates: Vec<String> = self.rates.iter().map(u64::to_string).collect();
        s += &format!(
            "load:\n  rates: [{}]\n  step: {}\n  warmup: {}\n",
            rates.join(", "),
            self.step,
            self.warmup
        );
        if let Some(c) = self.cooldown {
            s += &format!("  cooldown: {c}\n");
        }
        s += &format!(
            "repetitions: {}\nslo:\n  success: {}\n",
            self.repetitions, self.success
        );
        s
    }
}
