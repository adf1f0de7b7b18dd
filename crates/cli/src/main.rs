//! The `loadlab` binary: argument parsing for every face, kept thin.
//! Each subcommand lives in `cmd/<name>.rs` as a clap `Args` struct plus `run`.
//!
//! The doc comments on the `Args` structs are the `--help` texts clap prints,
//! written for a terminal, not Markdown: `<id>`, `hist[0,1ms]` and bare URLs
//! there are what the user should see.
#![allow(
    rustdoc::invalid_html_tags,
    rustdoc::broken_intra_doc_links,
    rustdoc::bare_urls
)]

mod absent;
mod args;
mod cmd;
mod dashboard;
mod exit;
mod flags;
mod local_server;
mod progress;
mod prom_server;
mod signals;
mod stdin;
mod store;
mod usage;
mod workload;

use clap::{Parser, Subcommand};

use crate::exit::CliError;

/// `loadlab --version`: the package version and the commit it was built from.
const VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (",
    env!("LOADLAB_BUILD_REV"),
    ")"
);

/// loadlab: open-model HTTP load testing, a programmable origin simulator, and
/// studies written up as reports.
#[derive(Debug, Parser)]
// A repeated flag overrides the earlier one (`-duration=5s -duration=1s`),
// as with Go's flag package; flags meant to repeat (`-header`) accumulate.
#[command(
    name = "loadlab",
    version = VERSION,
    about,
    long_about = None,
    args_override_self = true,
    after_help = "New here? Start with `loadlab demo`: a 90-second study against a built-in origin, with a report on disk and the answer in the terminal."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

// Parsed once at start-up and matched once: the size of the largest variant
// (the attack flags) costs nothing worth a Box.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Subcommand)]
enum Command {
    /// Send HTTP requests on a schedule and write results (vegeta's `attack`).
    Attack(cmd::attack::AttackArgs),
    /// Report on results files: text, json, hist[...] or hdrplot (vegeta's `report`).
    Report(cmd::report::ReportArgs),
    /// Convert results to vegeta's JSON or CSV encodings (vegeta's `encode`).
    Encode(cmd::encode::EncodeArgs),
    /// Turn a log or a HAR into targets, a plan or a k6 script (`import log|har FILE`).
    Import(cmd::import::ImportArgs),
    /// Run the built-in origin simulator (OriginSimulator-compatible recipes).
    Origin(cmd::origin::OriginArgs),
    /// ApacheBench-compatible closed-model benchmark (`loadlab ab -h`).
    Ab(cmd::ab::AbArgs),
    /// wrk2-compatible benchmark: open model at -R, closed loop without (`loadlab wrk -h`).
    Wrk(cmd::wrk::WrkArgs),
    /// Plot latency over time from results files as a self-contained HTML page (vegeta's `plot`).
    Plot(cmd::plot::PlotArgs),
    /// sysbench-compatible OLTP benchmark of MariaDB/MySQL or PostgreSQL (`loadlab sysbench --help`).
    #[cfg(feature = "sysbench")]
    Sysbench(cmd::sysbench::SysbenchArgs),
    /// sysbench-compatible OLTP benchmark: not in this build (cargo feature `sysbench`).
    #[cfg(not(feature = "sysbench"))]
    Sysbench(absent::Absent),
    /// Run k6 scripts unchanged (`loadlab k6 run script.js`), k6's flags and summary.
    #[cfg(feature = "k6")]
    K6(cmd::k6::K6Args),
    /// Run k6 scripts unchanged: not in this build (cargo feature `k6`).
    #[cfg(not(feature = "k6"))]
    K6(absent::Absent),
    /// Run a study plan (YAML): steps, repetitions, ceiling search, hypotheses, report.
    Study(cmd::study::StudyArgs),
    /// List and show the studies and runs in the store.
    Runs(cmd::runs::RunsArgs),
    /// Compare two runs (`12 15`) or two targets of studies (`3:c5 3:c6g`) with statistics.
    Compare(cmd::compare::CompareArgs),
    /// A 90-second self-contained study: in-process origin, two routes, report.
    Demo(cmd::demo::DemoArgs),
    /// Run one attack as N worker pods of a Kubernetes Indexed Job: `k8s render`, `k8s run`.
    #[cfg(feature = "cluster")]
    K8s(cmd::k8s::K8sArgs),
    /// Run one attack as N worker pods of a Kubernetes Indexed Job: not in this build (cargo feature `cluster`).
    #[cfg(not(feature = "cluster"))]
    K8s(absent::Absent),
}

fn main() {
    loadlab_study::env::set_build_revision(env!("LOADLAB_BUILD_REV"));
    let original: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let argv = args::normalize(original.clone());
    let cli = match Cli::try_parse_from(argv) {
        Ok(cli) => cli,
        Err(e) => {
            use clap::error::ErrorKind;
            match e.kind() {
                // --help, --version: stdout, exit 0. `loadlab` alone: the
                // help, on stderr, exit 2.
                ErrorKind::DisplayHelp
                | ErrorKind::DisplayVersion
                | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
                    let _ = e.print();
                    std::process::exit(if e.use_stderr() {
                        exit::USAGE
                    } else {
                        exit::OK
                    });
                }
                // Usage errors: one line, as docs/exit-codes.md promises.
                _ => {
                    // An attack flag given to `k8s` before `--` gets its own advice.
                    #[cfg(feature = "cluster")]
                    let line = cmd::k8s::attack_flag_before_dashes(&e, &original)
                        .unwrap_or_else(|| usage::one_line(&e, &original));
                    #[cfg(not(feature = "cluster"))]
                    let line = usage::one_line(&e, &original);
                    eprintln!("{line}");
                    std::process::exit(exit::USAGE);
                }
            }
        }
    };
    // Every connection is a file: the soft limit most systems start
    // processes with (1,024) would stall an attack or the origin at their
    // 1,021st connection (see loadlab_engine::fdlimit). As Go programs do.
    let _ = loadlab_engine::fdlimit::raise();
    let result: Result<(), CliError> = match cli.command {
        Command::Attack(a) => cmd::attack::run(a),
        Command::Report(a) => cmd::report::run(a),
        Command::Encode(a) => cmd::encode::run(a),
        Command::Import(a) => cmd::import::run(a),
        Command::Origin(a) => cmd::origin::run(a),
        Command::Ab(a) => cmd::ab::run(a),
        Command::Wrk(a) => cmd::wrk::run(a),
        Command::Plot(a) => cmd::plot::run(a),
        #[cfg(feature = "sysbench")]
        Command::Sysbench(a) => cmd::sysbench::run(a),
        #[cfg(not(feature = "sysbench"))]
        Command::Sysbench(_) => Err(absent::not_built("sysbench", "sysbench")),
        #[cfg(feature = "k6")]
        Command::K6(a) => cmd::k6::run(a),
        #[cfg(not(feature = "k6"))]
        Command::K6(_) => Err(absent::not_built("k6", "k6")),
        Command::Study(a) => cmd::study::run(a),
        Command::Runs(a) => cmd::runs::run(a),
        Command::Compare(a) => cmd::compare::run(a),
        Command::Demo(a) => cmd::demo::run(a),
        #[cfg(feature = "cluster")]
        Command::K8s(a) => cmd::k8s::run(a),
        #[cfg(not(feature = "cluster"))]
        Command::K8s(_) => Err(absent::not_built("k8s", "cluster")),
    };
    if let Err(e) = result {
        eprintln!("loadlab: {}", e.message);
        std::process::exit(e.code);
    }
}
