//! `loadlab import log FILE --to targets|plan|k6`: an access log's
//! endpoint mix as a vegeta targets file, one target per method and path
//! (the query left out), most requested first, with the measured weights
//! for `attack -weights=` in its first line; as a study plan of that
//! weighted mix; or as a k6 script drawing each request with the weights.

use std::collections::HashMap;
use std::fs::File;
use std::io::{BufReader, Read, Write};

use loadlab_engine::replay::{Item, LogFormat, ReplayFormat};

use crate::exit::CliError;

mod correlate;
mod from_har;
pub mod har;
pub mod k6;
mod log_k6;
pub mod openapi;
mod plan_name;

#[derive(Debug, clap::Args)]
pub struct ImportArgs {
    /// What FILE is: log (any log `attack -replay` reads), har (a
    /// browser's recording, to targets, plan or k6) or openapi (an OpenAPI
    /// 3.0/3.1 document, YAML or JSON, to targets or plan)
    pub kind: String,
    /// The file to import
    pub file: String,
    /// What to write: targets (a vegeta targets file with the weights),
    /// plan (a study plan of the weighted mix at the log's mean rate ×½, ×1,
    /// ×2, to --output, its targets file beside it), or k6 (an editable k6
    /// script of the mix); for a HAR, targets, plan or k6
    #[arg(long, default_value = "targets")]
    pub to: String,
    /// The log's format (combined, common, har, json, alb, cloudfront) [default: detected]
    #[arg(long)]
    pub format: Option<String>,
    /// A custom log written with this nginx log_format
    #[arg(long, conflicts_with = "format")]
    pub log_format: Option<String>,
    /// scheme://host:port for logs that record paths without a host
    #[arg(
        long,
        visible_alias = "base-url",
        default_value = "http://127.0.0.1:8080"
    )]
    pub base: String,
    /// Keep the N most requested endpoints (the rest are counted in a comment)
    #[arg(long, default_value_t = 50)]
    pub top: usize,
    /// Output file
    #[arg(short = 'o', long, default_value = "stdout")]
    pub output: String,
    /// HAR: keep the static assets (images, CSS, scripts, fonts)
    #[arg(long)]
    pub keep_static: bool,
}

pub fn run(a: ImportArgs) -> Result<(), CliError> {
    if a.kind == "openapi" {
        if !matches!(a.to.as_str(), "targets" | "plan") {
            return Err(CliError::usage(format!(
                "--to={}: import openapi writes targets or plan",
                a.to
            )));
        }
        return openapi::run(&openapi::Convert {
            file: &a.file,
            to: &a.to,
            base: &a.base,
            output: &a.output,
        });
    }
    if a.kind == "har" {
        return from_har::run(&a);
    }
    if a.kind != "log" {
        return Err(CliError::usage(format!(
            "loadlab import {:?}: expected log, har or openapi",
            a.kind
        )));
    }
    match a.to.as_str() {
        "targets" | "k6" => {}
        "plan" if a.output != "stdout" && a.output != "-" => {}
        "plan" => {
            return Err(CliError::usage(
                "--to=plan writes two files: give --output=PLAN.yaml (its targets file goes beside it)",
            ));
        }
        other => {
            return Err(CliError::usage(format!(
                "--to={other}: expected targets, plan or k6"
            )));
        }
    }
    let format = format(&a)?;
    let f =
        File::open(&a.file).map_err(|e| CliError::io(format!("cannot read {}: {e}", a.file)))?;
    let mut counts: HashMap<(String, String), u64> = HashMap::new();
    let mut malformed = 0u64;
    let (mut first, mut last) = (i128::MAX, i128::MIN);
    for item in format.source(Box::new(BufReader::new(f)), &a.file) {
        match item.map_err(CliError::bad_input)? {
            Item::Malformed(..) => malformed += 1,
            Item::Record(_, r) => {
                (first, last) = (first.min(r.ts), last.max(r.ts));
                let url = if r.url.starts_with('/') {
                    format!("{}{}", a.base.trim_end_matches('/'), r.url)
                } else {
                    r.url
                };
                let endpoint = url.split(['?', '#']).next().unwrap_or("").to_string();
                *counts.entry((r.method.to_string(), endpoint)).or_default() += 1;
            }
        }
    }
    if counts.is_empty() {
        return Err(CliError::bad_input(format!(
            "{}: no requests found",
            a.file
        )));
    }
    let mut mix: Vec<_> = counts.into_iter().collect();
    mix.sort_by(|x, y| y.1.cmp(&x.1).then_with(|| x.0.cmp(&y.0)));
    let rest: u64 = mix.iter().skip(a.top.max(1)).map(|e| e.1).sum();
    mix.truncate(a.top.max(1));
    let weights: Vec<String> = mix.iter().map(|e| e.1.to_string()).collect();
    let mut out = format!(
        "# loadlab attack -targets=FILE -weights={}\n# the endpoint mix of {}: requests per endpoint as weights",
        weights.join(","),
        a.file
    );
    if rest > 0 {
        out += &format!("; {rest} requests to other endpoints left out (--top)");
    }
    if malformed > 0 {
        out += &format!("; {malformed} malformed lines skipped");
    }
    out.push('\n');
    for ((method, url), _) in &mix {
        out += &format!("{method} {url}\n");
    }
    let span_s = ((last - first) as f64 / 1e9).max(1.0);
    let total: u64 = mix.iter().map(|e| e.1).sum::<u64>() + rest;
    if a.to == "plan" {
        return write_plan(&a, &out, &weights, total as f64 / span_s);
    }
    if a.to == "k6" {
        let about = log_k6::About {
            file: &a.file,
            rest,
            malformed,
            rate: total as f64 / span_s,
        };
        return write(&a.output, &log_k6::script(&mix, &about));
    }
    write(&a.output, &out)
}

/// The log's format: `--log-format`, `--format`, or detected.
fn format(a: &ImportArgs) -> Result<ReplayFormat, CliError> {
    Ok(match (&a.log_format, &a.format) {
        (Some(f), _) => ReplayFormat::Log(
            LogFormat::parse(f).map_err(|e| CliError::usage(format!("--log-format: {e}")))?,
        ),
        (None, Some(f)) => ReplayFormat::parse(f).map_err(CliError::usage)?,
        (None, None) => {
            let mut head = Vec::new();
            File::open(&a.file)
                .and_then(|f| f.take(8192).read_to_end(&mut head))
                .map_err(|e| CliError::io(format!("cannot read {}: {e}", a.file)))?;
            ReplayFormat::detect(&head).ok_or_else(|| {
                CliError::bad_input(format!(
                    "{}: cannot tell the log's format from its first line: give --format or --log-format",
                    a.file
                ))
            })?
        }
    })
}

fn write(path: &str, text: &str) -> Result<(), CliError> {
    if path == "stdout" || path == "-" {
        std::io::stdout().write_all(text.as_bytes())
    } else {
        std::fs::write(path, text)
    }
    .map_err(|e| CliError::io(format!("cannot write {path}: {e}")))
}

/// A study plan of the mix: the targets file beside the plan, the rates
/// half, once and twice the log's mean rate.
fn write_plan(
    a: &ImportArgs,
    targets: &str,
    weights: &[String],
    rate: f64,
) -> Result<(), CliError> {
    let (stem, targets_path) = plan_name::beside(&a.output, "mix")?;
    write(&targets_path.display().to_string(), targets)?;
    let r = rate.round().max(2.0) as u64;
    let text = plan_name::PlanText {
        comment: &[
            format!(
                "The endpoint mix of {} (loadlab import log --to plan): its",
                a.file
            ),
            format!(
                "{} most requested endpoints, weighted by their counts, at half, once",
                weights.len()
            ),
            format!("and twice the log's mean rate ({rate:.1} requests/s)."),
        ],
        stem: &stem,
        question: format!(
            "How does the service hold the endpoint mix of {} at its own rate and twice it?",
            a.file
        ),
        target: "mix",
        targets: &targets_path,
        weights: Some(weights.join(", ")),
        rates: &[(r / 2).max(1), r, r * 2],
        step: "60s",
        warmup: "5s",
        cooldown: Some("2s"),
        repetitions: 3,
        success: "99.9%",
    }
    .render();
    write(&a.output, &text)
}
