//! The `loadlab` binary: argument parsing for every face, kept thin.
//! Each subcommand lives in `cmd/<name>.rs` as a clap `Args` struct plus `run`.

mod args;
mod cmd;
mod exit;

use clap::{Parser, Subcommand};

use crate::exit::CliError;

/// loadlab: open-model HTTP load testing, a programmable origin simulator, and
/// studies written up as reports.
#[derive(Debug, Parser)]
#[command(name = "loadlab", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run the built-in origin simulator (OriginSimulator-compatible recipes).
    Origin(cmd::origin::OriginArgs),
}

fn main() {
    let argv = args::normalize(std::env::args_os().collect());
    let cli = match Cli::try_parse_from(argv) {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() { exit::USAGE } else { exit::OK };
            let _ = e.print();
            std::process::exit(code);
        }
    };
    let result: Result<(), CliError> = match cli.command {
        Command::Origin(a) => cmd::origin::run(a),
    };
    if let Err(e) = result {
        eprintln!("loadlab: {}", e.message);
        std::process::exit(e.code);
    }
}
