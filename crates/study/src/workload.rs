//! Targets that are not HTTP request lists: a k6 script (`script:`) or a
//! sysbench database test (`sysbench:`). The study steps them along its
//! load axis — `threads` for a database test, `vus` or one of the script's
//! environment variables for a script, `rate` for either's arrival rate —
//! and a [`WorkloadRunner`] (the CLI's) runs one step, handing its samples
//! and metric records to the study's sink like any attack.
//!
//! A plan never stores a database password: it must be written `${NAME}`
//! and is expanded from the environment only for the run itself.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use loadlab_core::{Sink, format_go_duration};
use loadlab_engine::StopSignal;
use serde::{Deserialize, Serialize};

/// What a workload target runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum WorkloadPlan {
    /// `loadlab sysbench ARGS… run`: `args` are the test name and options as
    /// written (`${NAME}` references unexpanded).
    Sysbench { args: Vec<String> },
    /// `loadlab k6 run [-e K=V]… SCRIPT`. `env` holds the fixed values; the
    /// study's axis, when it is an environment variable, adds its own.
    Script {
        path: PathBuf,
        env: Vec<(String, String)>,
    },
}

impl WorkloadPlan {
    /// `sysbench` or `k6`.
    pub fn tool(&self) -> &'static str {
        match self {
            WorkloadPlan::Sysbench { .. } => "sysbench",
            WorkloadPlan::Script { .. } => "k6",
        }
    }

    /// The axes this kind of workload can step along (besides an
    /// environment variable, for a script).
    pub fn axes(&self) -> &'static [&'static str] {
        match self {
            WorkloadPlan::Sysbench { .. } => &["threads", "rate"],
            WorkloadPlan::Script { .. } => &["vus"],
        }
    }

    /// The strings in which `${NAME}` references may appear.
    pub fn values(&self) -> Vec<(String, &str)> {
        match self {
            WorkloadPlan::Sysbench { args } => args
                .iter()
                .map(|a| ("sysbench".to_string(), a.as_str()))
                .collect(),
            WorkloadPlan::Script { env, .. } => env
                .iter()
                .map(|(k, v)| (format!("env {k}"), v.as_str()))
                .collect(),
        }
    }

    /// The command line of one step, as a user would type it (arguments
    /// quoted for a POSIX shell; `${NAME}` references left for the shell
    /// to expand, so no secret is written out).
    pub fn command(&self, axis: &str, level: &str, step: Duration) -> Vec<String> {
        let secs = step.as_secs().max(1);
        match self {
            WorkloadPlan::Sysbench { args } => {
                let mut out = vec!["loadlab".to_string(), "sysbench".to_string()];
                out.extend(args.iter().cloned());
                match axis {
                    "rate" => out.push(format!("--rate={level}")),
                    _ => out.push(format!("--threads={level}")),
                }
                out.push(format!("--time={secs}"));
                out.push("run".into());
                out
            }
            WorkloadPlan::Script { path, env } => {
                let mut out = vec!["loadlab".to_string(), "k6".into(), "run".into()];
                for (k, v) in env {
                    out.push("-e".into());
                    out.push(format!("{k}={v}"));
                }
                if axis == "vus" {
                    out.push(format!("--vus={level}"));
                    out.push(format!("--duration={}", format_go_duration(step)));
                } else if axis != "rate" {
                    out.push("-e".into());
                    out.push(format!("{axis}={level}"));
                }
                out.push(path.display().to_string());
                out
            }
        }
    }
}

/// One step of a workload target, `${NAME}` references expanded.
#[derive(Debug, Clone)]
pub struct WorkloadStep {
    /// `plan/target/level`, for the results' attack name.
    pub name: String,
    pub workload: WorkloadPlan,
    pub axis: String,
    pub level: u64,
    pub step: Duration,
    /// The base URL of the plan's `origin:` (`{origin}`), or ""; the named
    /// origins are already filled in the step's values.
    pub base_url: String,
    /// A concurrent group's common start instant (ns since the Unix
    /// epoch): the step's load starts then (`--start-at`), once its
    /// script is compiled or its connections are made.
    pub start_at_unix_ns: Option<u64>,
}

/// What a step said beyond its samples: a script's threshold verdicts
/// (a crossed threshold is a measurement, not a failure of the step).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StepReport {
    pub thresholds: Vec<crate::collect::ThresholdVerdict>,
}

/// Why a workload step (or the check before the first one) could not be
/// measured: a script that does not compile, a database that refuses the
/// login, a crash.
#[derive(Debug, Clone, PartialEq)]
pub struct StepFailure {
    /// The face's own exit code (`loadlab k6 run`'s 107, `loadlab
    /// sysbench`'s 20, …), when it gave one.
    pub code: Option<i32>,
    /// One line, without the `loadlab:` prefix.
    pub message: String,
}

impl StepFailure {
    /// A failure without an exit code of its own.
    pub fn plain(message: impl Into<String>) -> StepFailure {
        StepFailure {
            code: None,
            message: message.into(),
        }
    }
}

/// Runs one workload step; the CLI implements it with its `sysbench` and
/// `k6` faces.
pub trait WorkloadRunner: Send + Sync {
    /// Runs the step to its end (or until `stop` fires), sending every
    /// sample and metric record to `sink`. The error's message is one
    /// line; the study scrubs it of secrets.
    fn run(
        &self,
        step: &WorkloadStep,
        stop: Arc<StopSignal>,
        sink: &mut dyn Sink,
    ) -> Result<StepReport, StepFailure>;

    /// Checks, before the study's first run and without sending load,
    /// that the step can run at all: the script compiles, the database
    /// accepts one connection. Called once per target, with its first
    /// step.
    fn check(&self, _step: &WorkloadStep) -> Result<(), StepFailure> {
        Ok(())
    }
}

/// A database password written literally in a sysbench target, instead of
/// as a `${NAME}` reference: the option's name.
pub fn literal_password(args: &[String]) -> Option<&str> {
    const SECRET: [&str; 3] = ["--mysql-password", "--pgsql-password", "--password"];
    let mut it = args.iter().peekable();
    while let Some(a) = it.next() {
        let (name, value) = match a.split_once('=') {
            Some((n, v)) => (n, Some(v.to_string())),
            None => (a.as_str(), it.peek().map(|v| v.to_string())),
        };
        if let Some(opt) = SECRET.iter().find(|s| **s == name)
            && let Some(v) = value
            && !v.is_empty()
            && !(v.starts_with("${") && v.ends_with('}'))
        {
            return Some(opt);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_step_along_the_axis() {
        let s = WorkloadPlan::Sysbench {
            args: vec!["oltp_read_only".into(), "--mysql-password=${DB_PW}".into()],
        };
        assert_eq!(
            s.command("threads", "8", Duration::from_secs(10)).join(" "),
            "loadlab sysbench oltp_read_only --mysql-password=${DB_PW} --threads=8 --time=10 run"
        );
        let k = WorkloadPlan::Script {
            path: "t.js".into(),
            env: vec![("BASE_URL".into(), "http://127.0.0.1:1".into())],
        };
        assert_eq!(
            k.command("CHANNELS", "200", Duration::from_secs(18))
                .join(" "),
            "loadlab k6 run -e BASE_URL=http://127.0.0.1:1 -e CHANNELS=200 t.js"
        );
        assert_eq!(
            k.command("vus", "50", Duration::from_secs(18)).join(" "),
            "loadlab k6 run -e BASE_URL=http://127.0.0.1:1 --vus=50 --duration=18s t.js"
        );
    }

    #[test]
    fn literal_passwords_are_found() {
        let v = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            literal_password(&v(&["--mysql-password=hunter2"])),
            Some("--mysql-password")
        );
        assert_eq!(
            literal_password(&v(&["--pgsql-password", "hunter2"])),
            Some("--pgsql-password")
        );
        assert_eq!(literal_password(&v(&["--mysql-password=${PW}"])), None);
        assert_eq!(literal_password(&v(&["--mysql-password="])), None);
        assert_eq!(literal_password(&v(&["--mysql-user=root"])), None);
    }
}
