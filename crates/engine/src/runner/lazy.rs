//! Lazy target feeding (`-lazy`): a thread reads the targets and feeds them
//! through a bounded channel; workers take the next one as they claim a
//! request, build its template, and register each new target with the sink.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use loadlab_core::TargetInfo;
use tokio::sync::mpsc;

use super::shared::{Shared, Targets};
use crate::EngineError;
use crate::collector::Msg;
use crate::live::StopReason;
use crate::request::Template;
use crate::targets::{Target, TargetError};

impl Shared {
    pub(super) async fn next_lazy(&self, tx: &mpsc::Sender<Msg>) -> Option<(u32, Arc<Template>)> {
        let Targets::Lazy { rx, .. } = &self.targets else {
            return None;
        };
        // A generator may block forever (stdin): the end of the attack must
        // not wait for it. A target already read is still taken first
        // (`biased`), so a claimed request is never dropped while its target
        // is at hand.
        let got = tokio::select! {
            biased;
            item = async { rx.lock().await.recv().await } => Some(item),
            _ = self.clock.abort_signal().wait() => return None,
            _ = self.stopped.wait() => None,
        };
        let item = match got {
            Some(item) => item,
            None => Some(rx.lock().await.try_recv().ok()?),
        };
        let target = match item {
            None => {
                self.stop(StopReason::Exhausted);
                return None;
            }
            Some(Err(e)) => {
                self.target_error.lock().expect("lock").get_or_insert(e);
                self.stop(StopReason::TargetError);
                return None;
            }
            Some(Ok(t)) => t,
        };
        self.admit(&target, "lazy targets", tx).await
    }

    /// Builds a target read as the attack runs into its request template and
    /// registers it with the sink the first time its method and URL are seen.
    pub(super) async fn admit(
        &self,
        target: &Target,
        source_name: &str,
        tx: &mpsc::Sender<Msg>,
    ) -> Option<(u32, Arc<Template>)> {
        let index = match &self.targets {
            Targets::Lazy { index, .. } | Targets::Replay { index, .. } => index,
            Targets::Static(..) => return None,
        };
        let tpl = match Template::build(
            target,
            &self.cfg.headers,
            self.cfg.body.as_ref(),
            self.cfg.vegeta_headers.then_some(self.cfg.name.as_str()),
            &self.transport,
        ) {
            Ok(t) => Arc::new(t),
            Err(reason) => {
                let e = TargetError::Syntax {
                    source_name: source_name.into(),
                    line: 0,
                    reason,
                };
                self.target_error.lock().expect("lock").get_or_insert(e);
                self.stop(StopReason::TargetError);
                return None;
            }
        };
        let key = (target.method.clone(), target.url.clone());
        let (idx, new) = {
            let mut map = index.lock().expect("lock");
            let len = map.len() as u32;
            match map.get(&key) {
                Some(i) => (*i, false),
                None => {
                    map.insert(key, len);
                    (len, true)
                }
            }
        };
        if new {
            let info = TargetInfo {
                method: target.method.to_string(),
                url: crate::targets::redact_url(&target.url).into_owned(),
            };
            let _ = tx.send(Msg::Target(idx, info)).await;
        }
        Some((idx, tpl))
    }
}

/// Starts the thread that reads lazy targets into a bounded channel.
pub(super) fn feed(
    iter: Box<dyn Iterator<Item = Result<Target, TargetError>> + Send>,
) -> Result<Targets, EngineError> {
    let (tx, rx) = mpsc::channel(1024);
    std::thread::Builder::new()
        .name("loadlab-targets".into())
        .spawn(move || {
            for t in iter {
                let stop = t.is_err();
                if tx.blocking_send(t).is_err() || stop {
                    break;
                }
            }
        })
        .map_err(EngineError::Runtime)?;
    Ok(Targets::Lazy {
        rx: tokio::sync::Mutex::new(rx),
        index: Mutex::new(HashMap::new()),
    })
}
