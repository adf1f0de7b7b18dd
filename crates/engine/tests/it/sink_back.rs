//! The engine hands its sink back: a sink of any type goes in, the same
//! sink comes out with the summary, finished, with everything it recorded —
//! no shared slot, no lock.

use crate::common;
use common::*;

use loadlab_core::{AttackInfo, PacerSpec, Rate, Sample, Sink, TargetInfo};
use loadlab_engine::{AttackConfig, attack};

/// A plain sink: no `Arc`, no `Mutex`, nothing shared.
#[derive(Default)]
struct Owned {
    began: bool,
    targets: Vec<String>,
    samples: Vec<Sample>,
    finished: bool,
}

impl Sink for Owned {
    fn begin(&mut self, _: &AttackInfo) {
        self.began = true;
    }
    fn register_target(&mut self, _: u32, t: &TargetInfo) {
        self.targets.push(t.url.clone());
    }
    fn record(&mut self, s: &Sample) {
        self.samples.push(*s);
    }
    fn finish(&mut self) -> std::io::Result<()> {
        self.finished = true;
        Ok(())
    }
}

#[tokio::test]
async fn the_sink_comes_back_with_the_summary() {
    let srv = serve(hello()).await;
    let cfg = AttackConfig {
        pacer: PacerSpec::Constant(Rate::per_second(1000)),
        max_requests: Some(25),
        ..Default::default()
    };
    // A pair keeps both types; an absent optional sink is fine.
    let (sum, (owned, none)) = attack(
        cfg,
        one(&srv.url("/")),
        (Owned::default(), None::<Owned>),
        never(),
    )
    .await
    .unwrap();
    assert!(none.is_none());
    assert_eq!(sum.requests, 25);
    assert!(owned.began && owned.finished);
    assert_eq!(owned.targets, [srv.url("/")]);
    assert_eq!(owned.samples.len(), 25);
    assert!(owned.samples.iter().all(|s| s.status == 200));
}
