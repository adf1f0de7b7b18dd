//! `loadlab attack -replay=FILE`: the log's format (given or detected), the
//! replay's options from the flags, and loadlab's own results files (and
//! vegeta's) as a replay source: a past attack's schedule sent again.

use std::fs::File;
use std::io::BufReader;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use loadlab_engine::TargetSource;
use loadlab_engine::replay::{
    Item, LogFormat, Opener, Record, Replay, ReplayFormat, ReplayOptions, Rewrite, SharedStats,
    Source,
};
use loadlab_engine::targets::TargetError;

use super::attack_args::AttackArgs;
use crate::exit::CliError;

/// A replay ready to run, and what it read (for the report at the end).
pub struct ReplayRun {
    pub source: TargetSource,
    pub stats: SharedStats,
    pub name: String,
    pub reorder: usize,
}

enum Kind {
    Log(ReplayFormat),
    Results,
}

/// The replay the flags ask for, if any.
pub fn source(a: &AttackArgs) -> Result<Option<ReplayRun>, CliError> {
    let Some(path) = a.replay.clone() else {
        return Ok(None);
    };
    if !(a.speed.is_finite() && a.speed > 0.0) {
        return Err(CliError::usage(format!(
            "invalid -speed {}: expected a number greater than 0 (2 = twice as fast)",
            a.speed
        )));
    }
    if a.rate.is_unlimited() {
        return Err(CliError::usage(
            "-replay sends at the log's own times: it cannot take -rate=0",
        ));
    }
    let name = path.display().to_string();
    let mut opts = ReplayOptions::new(&name);
    opts.speed = a.speed;
    opts.window = a.replay_window.unwrap_or_default();
    opts.looped = a.looped;
    opts.strict = a.strict;
    opts.reorder = a.replay_reorder.max(1);
    opts.base = match &a.replay_base {
        None => None,
        Some(b) => {
            let b = b.trim_end_matches('/');
            loadlab_engine::targets::check_url(&format!("{b}/"))
                .map_err(|e| CliError::usage(format!("-replay-base: {e}")))?;
            Some(b.to_string())
        }
    };
    opts.rewrite = Rewrite {
        hosts: a.rewrite_host.clone(),
        drop_headers: a.drop_header.clone(),
        // Parsed here, not by clap: clap's message would repeat the value.
        set_headers: a
            .set_header
            .iter()
            .map(|h| crate::flags::set_header(h))
            .collect::<Result<_, _>>()
            .map_err(CliError::usage)?,
    };
    // The flags first (usage errors), then the file.
    let kind = kind(a, &path, &name)?;
    let open: Opener = match kind {
        Kind::Log(format) => {
            loadlab_engine::replay::file_opener(path.clone(), name.clone(), format)
        }
        Kind::Results => {
            let (path, name) = (path.clone(), name.clone());
            Box::new(move || results_source(&path, &name))
        }
    };
    let stats: SharedStats = Arc::new(Mutex::new(Default::default()));
    let reorder = opts.reorder;
    let replay = Replay::new(opts, open, stats.clone());
    Ok(Some(ReplayRun {
        source: TargetSource::Replay(Box::new(replay)),
        stats,
        name,
        reorder,
    }))
}

/// The format: `-log-format`, `-replay-format`, or detected from the
/// first bytes.
fn kind(a: &AttackArgs, path: &Path, name: &str) -> Result<Kind, CliError> {
    if let Some(lf) = &a.log_format {
        let f = LogFormat::parse(lf).map_err(|e| CliError::usage(format!("-log-format: {e}")))?;
        return Ok(Kind::Log(ReplayFormat::Log(f)));
    }
    match a.replay_format.as_deref() {
        Some("results") => return Ok(Kind::Results),
        Some(f) => {
            return ReplayFormat::parse(f)
                .map(Kind::Log)
                .map_err(CliError::usage);
        }
        None => {}
    }
    let head = loadlab_engine::replay::head(path)
        .map_err(|e| CliError::io(format!("cannot read -replay file {name}: {e}")))?;
    if head.starts_with(&loadlab_metrics::codec::MAGIC) || vegeta_results(&head) {
        return Ok(Kind::Results);
    }
    ReplayFormat::detect(&head).map(Kind::Log).ok_or_else(|| {
        CliError::bad_input(format!(
            "{name}: cannot tell the log's format from its first line: give -replay-format=combined|common|har|json|alb|cloudfront|results, or -log-format='…' (nginx syntax)"
        ))
    })
}

/// vegeta's JSON results (with `latency` and `code`), not JSON targets.
fn vegeta_results(head: &[u8]) -> bool {
    let text = String::from_utf8_lossy(head);
    let first = text.trim_start().lines().next().unwrap_or("");
    serde_json::from_str::<serde_json::Value>(first)
        .ok()
        .is_some_and(|v| v.get("latency").is_some() && v.get("code").is_some())
}

/// A results file's requests at their intended instants (no headers or
/// bodies: results files do not keep them).
fn results_source(path: &PathBuf, name: &str) -> Result<Source, TargetError> {
    let f = File::open(path).map_err(|err| TargetError::Io {
        source_name: name.to_string(),
        err,
    })?;
    let results = loadlab_metrics::open_results(BufReader::new(f), name).map_err(|e| {
        TargetError::Syntax {
            source_name: name.to_string(),
            line: 0,
            reason: e.to_string(),
        }
    })?;
    let name = name.to_string();
    Ok(Box::new(results.enumerate().map(move |(i, r)| {
        let r = r.map_err(|e| TargetError::Syntax {
            source_name: name.clone(),
            line: i + 1,
            reason: e.to_string(),
        })?;
        let Ok(method) = http::Method::from_bytes(r.method.as_bytes()) else {
            return Ok(Item::Malformed(i + 1, format!("bad method {:?}", r.method)));
        };
        Ok(Item::Record(
            i + 1,
            Record {
                ts: i128::from(r.start_unix_ns) + i128::from(r.sample.intended_ns),
                resolution: 0,
                method,
                url: r.url.to_string(),
                headers: Vec::new(),
                body: bytes::Bytes::new(),
            },
        ))
    })))
}

/// The lines printed after a replay: malformed lines, timestamps that went
/// backwards.
pub fn report(run: &ReplayRun) {
    let stats = run.stats.lock().expect("stats lock").clone();
    for line in stats.report(&run.name, run.reorder) {
        eprintln!("loadlab: {line}");
    }
}
