//! `loadlab wrk <options> <url>`: wrk2's flags and report on loadlab's
//! engine. Arguments are parsed with wrk's own syntax by `loadlab_faces::wrk`
//! (see docs/faces.md).

use loadlab_faces::wrk::{self, WrkCommand, WrkError};

use crate::exit::{self, CliError};

#[derive(Debug, clap::Args)]
#[command(disable_help_flag = true)]
pub struct WrkArgs {
    /// wrk's options and URL (`loadlab wrk -h` lists them).
    #[arg(num_args = 0.., allow_hyphen_values = true, trailing_var_arg = true)]
    args: Vec<String>,
}

pub fn run(a: WrkArgs) -> Result<(), CliError> {
    let mut opts = match wrk::parse(&a.args).map_err(|e| CliError::usage(format!("wrk: {e}")))? {
        WrkCommand::Help => {
            print!("{}", wrk::USAGE);
            return Ok(());
        }
        WrkCommand::Version => {
            print!("{}", wrk::version());
            return Ok(());
        }
        WrkCommand::Run(o) => o,
    };
    opts.results =
        std::env::var_os(loadlab_faces::results::RESULTS_ENV).map(std::path::PathBuf::from);
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let shutdown = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    let run = wrk::run(&opts, &mut out, shutdown).map_err(|e| {
        let code = match &e {
            WrkError::Probe(_) => exit::NETWORK,
            WrkError::Results(_) => exit::IO,
            WrkError::Engine(loadlab_engine::EngineError::Config(_)) => exit::USAGE,
            _ => exit::INTERNAL,
        };
        CliError::new(code, format!("wrk: {e}"))
    })?;
    // wrk2's layout has no line for a schedule the connections could not
    // keep; say it on stderr so stdout stays parseable.
    if run.summary.unsent > 0 {
        eprintln!(
            "loadlab wrk: {} scheduled requests were never sent: all {} connections were busy (the rate was not reached)",
            run.summary.unsent, opts.connections
        );
    }
    Ok(())
}
