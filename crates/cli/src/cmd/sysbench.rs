//! `loadlab sysbench [options] TESTNAME prepare|run|cleanup`: sysbench
//! 1.0's OLTP tests (and sysbench 0.4's `--test=oltp` lines) against
//! MariaDB/MySQL or PostgreSQL, printed in sysbench 1.0.20's layout.
//! Arguments are parsed with sysbench's own syntax by `loadlab_sql::options`
//! (see docs/sysbench.md).

use loadlab_sql::{Ended, Parsed};

use crate::exit::{self, CliError};

#[derive(Debug, clap::Args)]
#[command(disable_help_flag = true)]
pub struct SysbenchArgs {
    /// sysbench's options, test name and command (`loadlab sysbench --help` lists them).
    #[arg(num_args = 0.., allow_hyphen_values = true, trailing_var_arg = true)]
    args: Vec<String>,
}

pub use crate::exit::sql_code as code;

pub fn run(a: SysbenchArgs) -> Result<(), CliError> {
    // A Lua script is read, checked for what loadlab does not support and
    // run once for its options before the command line is parsed.
    let script = loadlab_sql::lua::Script::detect(&a.args).map_err(|e| {
        let code = match e {
            loadlab_sql::lua::ScriptError::Unsupported(_) => exit::LUA_UNSUPPORTED,
            loadlab_sql::lua::ScriptError::Bad(_) => exit::LUA_SCRIPT,
        };
        CliError::new(code, format!("sysbench: {e}"))
    })?;
    if let Some(s) = &script
        && a.args
            .iter()
            .filter(|w| !w.starts_with('-'))
            .nth(1)
            .map(String::as_str)
            == Some("help")
    {
        print!("{}", s.help());
        return Ok(());
    }
    let opts = match loadlab_sql::parse_with(&a.args, script)
        .map_err(|e| CliError::usage(format!("sysbench: {e}; see 'loadlab sysbench --help'")))?
    {
        Parsed::Help => {
            print!("{}", loadlab_sql::usage());
            return Ok(());
        }
        Parsed::TestHelp(t) => {
            print!("{}", loadlab_sql::test_help(t));
            return Ok(());
        }
        Parsed::Version => {
            println!(
                "loadlab {} sysbench (sysbench 1.0.20 compatible)",
                env!("CARGO_PKG_VERSION")
            );
            return Ok(());
        }
        Parsed::Do(o) => *o,
    };
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    // Ctrl-C or SIGTERM ends a run as its time limit would: sysbench's
    // final blocks over the time it ran, then one line and exit 130.
    let interrupt = async {
        crate::signals::listen().next().await;
    };
    let rate = opts.rate;
    match loadlab_sql::execute_until(opts, &mut out, interrupt)
        .map_err(|e| CliError::new(code(&e), format!("sysbench: {e}")))?
    {
        Ended::Completed => Ok(()),
        Ended::Interrupted { seconds, events } => Err(CliError::new(
            exit::INTERRUPTED,
            format!(
                "sysbench: interrupted after {seconds:.2} s; the statistics above cover the {events} transactions completed"
            ),
        )),
        Ended::QueueFull {
            seconds,
            events,
            queued,
        } => Err(CliError::new(
            exit::DB_RATE_UNREACHABLE,
            format!(
                "sysbench: --rate={} is out of reach: {queued} transactions were due and not started after {seconds:.2} s (sysbench's event queue holds {}); the statistics above cover the {events} transactions completed ({:.2} per sec.); lower --rate or raise --threads",
                rate,
                loadlab_sql::QUEUE_LIMIT,
                events as f64 / seconds.max(1e-9)
            ),
        )),
    }
}
