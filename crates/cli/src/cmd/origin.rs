//! `loadlab origin`: run the built-in origin simulator (OriginSimulator-compatible recipes).

use std::net::SocketAddr;
use std::time::Duration;

use loadlab_origin::{OriginConfig, OriginError};

use crate::exit::CliError;

/// Serve OriginSimulator-style recipes over HTTP/1.1 and h2c, with an admin API under /_admin/.
#[derive(Debug, clap::Args)]
pub struct OriginArgs {
    /// Address to listen on. Non-loopback addresses need --admin-token.
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8080")]
    pub listen: SocketAddr,
    /// Recipe file (a JSON recipe or a list of them) to load at start-up.
    #[arg(long, value_name = "FILE")]
    pub recipe: Option<std::path::PathBuf>,
    /// Token the admin API requires (Authorization: Bearer TOKEN or X-Admin-Token: TOKEN).
    /// Without it the admin API answers loopback clients only.
    /// On the command line it shows in `ps`: prefer --admin-token-file or
    /// the LOADLAB_ORIGIN_ADMIN_TOKEN environment variable.
    #[arg(long, value_name = "TOKEN", conflicts_with = "admin_token_file")]
    pub admin_token: Option<String>,
    /// Read the admin token from this file (its first line).
    #[arg(long, value_name = "FILE")]
    pub admin_token_file: Option<std::path::PathBuf>,
    /// With no recipe, answer 406 "Recipe not set" (OriginSimulator <= 1.0) instead of
    /// serving the default page (OriginSimulator 1.1).
    #[arg(long)]
    pub no_default_page: bool,
    /// Largest admin request body, in bytes.
    #[arg(long, value_name = "BYTES", default_value_t = 1024 * 1024)]
    pub admin_body_limit: usize,
    /// Worker threads (default: one per available CPU).
    #[arg(long, value_name = "N")]
    pub workers: Option<usize>,
    /// Close a connection whose request head is not whole this long after its first byte.
    #[arg(long, value_name = "DURATION", default_value = "30s", value_parser = crate::flags::duration)]
    pub header_timeout: Duration,
    /// Close a connection whose request body sends nothing for this long.
    #[arg(long, value_name = "DURATION", default_value = "30s", value_parser = crate::flags::duration)]
    pub body_timeout: Duration,
    /// Close a connection that starts no request for this long (new or keep-alive); 0s: never.
    #[arg(long, value_name = "DURATION", default_value = "60s", value_parser = crate::flags::duration)]
    pub idle_timeout: Duration,
}

/// A timeout flag of `0s` means no limit (ten years, which tokio's timers hold).
fn no_limit_if_zero(d: Duration) -> Duration {
    if d.is_zero() {
        Duration::from_secs(10 * 365 * 86_400)
    } else {
        d
    }
}

/// The environment variable that may hold the admin token.
pub const ADMIN_TOKEN_ENV: &str = "LOADLAB_ORIGIN_ADMIN_TOKEN";

/// The admin token from --admin-token, --admin-token-file or
/// LOADLAB_ORIGIN_ADMIN_TOKEN, in that order; an empty one is refused.
fn admin_token(args: &OriginArgs) -> Result<Option<String>, CliError> {
    let (token, from) = if let Some(t) = &args.admin_token {
        (t.clone(), "--admin-token".to_string())
    } else if let Some(f) = &args.admin_token_file {
        let text = std::fs::read_to_string(f).map_err(|e| {
            CliError::io(format!(
                "cannot read --admin-token-file {}: {e}",
                f.display()
            ))
        })?;
        let first = text.lines().next().unwrap_or("").trim().to_string();
        (first, format!("--admin-token-file {}", f.display()))
    } else {
        match std::env::var(ADMIN_TOKEN_ENV) {
            Ok(t) => (t.trim().to_string(), ADMIN_TOKEN_ENV.to_string()),
            Err(_) => return Ok(None),
        }
    };
    if token.is_empty() {
        return Err(CliError::usage(format!("{from}: the admin token is empty")));
    }
    Ok(Some(token))
}

pub fn run(args: OriginArgs) -> Result<(), CliError> {
    let recipes = match &args.recipe {
        None => Vec::new(),
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .map_err(|e| CliError::io(format!("{}: {e}", path.display())))?;
            loadlab_origin::parse_recipes(&text)
                .map_err(|e| CliError::bad_input(format!("{}: {e}", path.display())))?
        }
    };
    let config = OriginConfig {
        recipes,
        admin_token: admin_token(&args)?,
        default_page: !args.no_default_page,
        admin_body_limit: args.admin_body_limit,
        shutdown_grace: Duration::from_secs(2),
        workers: args.workers,
        timeouts: loadlab_origin::Timeouts {
            header: no_limit_if_zero(args.header_timeout),
            body: no_limit_if_zero(args.body_timeout),
            idle: no_limit_if_zero(args.idle_timeout),
        },
    };
    if config.admin_token.is_none() && !args.listen.ip().is_loopback() {
        return Err(CliError::usage(OriginError::UnsafeAdmin(args.listen)));
    }
    let workers = args
        .workers
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .max(1);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(workers)
        .enable_all()
        .build()
        .map_err(|e| CliError::internal(format!("cannot start the runtime: {e}")))?;
    runtime.block_on(async move {
        let listener = loadlab_origin::bind_listener(args.listen)
            .and_then(tokio::net::TcpListener::from_std)
            .map_err(|e| CliError::network(format!("cannot listen on {}: {e}", args.listen)))?;
        let addr = listener
            .local_addr()
            .map_err(|e| CliError::network(e.to_string()))?;
        eprintln!("loadlab origin: listening on http://{addr} (admin API at /_admin/)");
        let shutdown = async {
            let _ = tokio::signal::ctrl_c().await;
        };
        loadlab_origin::serve(listener, config, shutdown)
            .await
            .map_err(|e| match e {
                OriginError::UnsafeAdmin(_) => CliError::usage(e),
                OriginError::Recipe(_) => CliError::bad_input(e),
                OriginError::Ingest(_) | OriginError::Io(_) => CliError::network(e),
            })
    })
}
