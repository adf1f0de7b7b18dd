//! `loadlab ab [options] URL`: ApacheBench's flags and report on loadlab's
//! engine. Arguments are parsed with ab's own syntax by `loadlab_faces::ab`
//! (see docs/faces.md for what is supported).

use loadlab_faces::ab::{self, AbCommand, AbError, AbFlagError};

use crate::exit::{self, CliError};

#[derive(Debug, clap::Args)]
#[command(disable_help_flag = true)]
pub struct AbArgs {
    /// ab's options and URL (`loadlab ab -h` lists them).
    #[arg(num_args = 0.., allow_hyphen_values = true, trailing_var_arg = true)]
    args: Vec<String>,
}

pub fn run(a: AbArgs) -> Result<(), CliError> {
    let parsed = ab::parse(&a.args).map_err(|e| match e {
        // A -p/-u/-T… file that cannot be read is a file error, as for
        // every other command, not a command-line mistake.
        AbFlagError::File { .. } => CliError::new(exit::IO, format!("ab: {e}")),
        _ => CliError::usage(format!("ab: {e}")),
    })?;
    let mut opts = match parsed {
        AbCommand::Help => {
            print!("{}", ab::USAGE);
            return Ok(());
        }
        AbCommand::Version => {
            print!("{}", ab::banner());
            return Ok(());
        }
        AbCommand::Run(o) => o,
    };
    opts.results =
        std::env::var_os(loadlab_faces::results::RESULTS_ENV).map(std::path::PathBuf::from);
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let shutdown = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    ab::run(&opts, &mut out, Box::new(std::io::stderr()), shutdown).map_err(|e| {
        let code = match &e {
            AbError::Probe(_) => exit::NETWORK,
            AbError::Results(_) => exit::IO,
            AbError::Write { .. } => exit::IO,
            AbError::Engine(loadlab_engine::EngineError::Config(_)) => exit::USAGE,
            _ => exit::INTERNAL,
        };
        CliError::new(code, format!("ab: {e}"))
    })?;
    Ok(())
}
