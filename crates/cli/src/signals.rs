//! The signals that end a run early: Ctrl-C (SIGINT) and SIGTERM (what
//! Kubernetes sends a pod it stops).

use tokio::signal::unix::{Signal, SignalKind, signal};

/// SIGTERM's stream, to pass to [`stop_requested`] (none where it cannot
/// be set up: then only Ctrl-C counts).
pub fn term() -> Option<Signal> {
    signal(SignalKind::terminate()).ok()
}

/// Resolves at the next Ctrl-C or SIGTERM, with the signal's name as Go
/// gives it (`interrupt`, `terminated`), which k6's log line shows.
pub async fn stop_requested(term: &mut Option<Signal>) -> &'static str {
    tokio::select! {
        _ = tokio::signal::ctrl_c() => "interrupt",
        _ = async {
            match term.as_mut() {
                Some(t) => { t.recv().await; }
                None => std::future::pending::<()>().await,
            }
        } => "terminated",
    }
}
