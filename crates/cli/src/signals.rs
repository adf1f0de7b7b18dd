//! The signals that end a run early: Ctrl-C (SIGINT) and SIGTERM (what
//! Kubernetes sends a pod it stops).

use tokio::signal::unix::{Signal, SignalKind, signal};

/// Ctrl-C's and SIGTERM's streams, set up once (inside a tokio runtime)
/// and waited on as often as a face needs: a signal that comes between
/// two waits is kept for the next. (A listener made anew for each wait
/// would miss it, and the handler the first one installed keeps the
/// signal's default action from ending the process: a second Ctrl-C
/// would be lost.) A stream that cannot be set up never fires; that
/// signal then keeps its default action.
pub struct Stops {
    int: Option<Signal>,
    term: Option<Signal>,
}

/// Listens for Ctrl-C and SIGTERM from now on.
pub fn listen() -> Stops {
    Stops {
        int: signal(SignalKind::interrupt()).ok(),
        term: signal(SignalKind::terminate()).ok(),
    }
}

impl Stops {
    /// Resolves at the next Ctrl-C or SIGTERM (one that came since the
    /// last wait included), with the signal's name as Go gives it
    /// (`interrupt`, `terminated`), which k6's log line shows.
    pub async fn next(&mut self) -> &'static str {
        tokio::select! {
            _ = recv(&mut self.int) => "interrupt",
            _ = recv(&mut self.term) => "terminated",
        }
    }
}

async fn recv(s: &mut Option<Signal>) {
    match s {
        Some(s) => {
            s.recv().await;
        }
        None => std::future::pending::<()>().await,
    }
}

#[cfg(test)]
mod tests {
    use loadlab_testkit::proc::{PATIENCE, within};

    /// A SIGTERM sent to this process (after `listen`, whose handler
    /// keeps it from ending the process), taken in by the signal driver
    /// while nothing waits on it, is still there for the next wait; so
    /// is a second one, after the first wait.
    #[tokio::test(flavor = "current_thread")]
    async fn a_signal_while_nothing_waits_is_kept_for_the_next_wait() {
        let mut stops = super::listen();
        for _ in 0..2 {
            let st = std::process::Command::new("kill")
                .args(["-TERM", &std::process::id().to_string()])
                .status()
                .unwrap();
            assert!(st.success());
            // The runtime polls its drivers (the signal's among them)
            // before it runs this task again.
            tokio::task::yield_now().await;
            assert_eq!(
                within("a SIGTERM", PATIENCE, stops.next()).await,
                "terminated"
            );
        }
    }
}
