//! `-lazy` targets: every scheduled request goes out, whatever the reader's
//! format, however many workers hold claims ahead of the clock, and however
//! slowly the targets arrive (what cannot be sent in time is counted unsent).

use crate::common;
use common::*;

use std::collections::BTreeSet;

use loadlab_core::{PacerSpec, Rate};
use loadlab_engine::{AttackConfig, StopReason, Target, TargetFormat, TargetSource, attack};

fn cfg(rate: u64, secs: u64, workers: u64) -> AttackConfig {
    AttackConfig {
        pacer: PacerSpec::Constant(Rate::per_second(rate)),
        duration: Some(ms(secs * 1000)),
        workers,
        ..Default::default()
    }
}

/// The `i=` numbers of the URLs the sink saw, and the seqs.
fn sent(sink: &Collect) -> (BTreeSet<u64>, Vec<u64>) {
    let targets = sink.targets.lock().unwrap().clone();
    let mut urls = BTreeSet::new();
    let mut seqs = Vec::new();
    for s in sink.samples() {
        let (_, info) = targets.iter().find(|(i, _)| *i == s.target).unwrap();
        let i: u64 = info.url.rsplit('=').next().unwrap().parse().unwrap();
        urls.insert(i);
        seqs.push(s.seq);
    }
    (urls, seqs)
}

fn lines(srv: &Server, n: u64, json: bool) -> Vec<u8> {
    let mut text = String::new();
    for i in 0..n {
        let url = srv.url(&format!("/?i={i}"));
        if json {
            text.push_str(&format!("{{\"method\":\"GET\",\"url\":\"{url}\"}}\n"));
        } else {
            text.push_str(&format!("GET {url}\n"));
        }
    }
    text.into_bytes()
}

/// Many idle workers each hold a claim up to a pool's worth of requests
/// ahead; the claim past the end of the schedule must not abort theirs.
async fn every_scheduled_request_goes_out(format: TargetFormat) {
    let srv = serve(hello()).await;
    let json = format == TargetFormat::Json;
    let src = loadlab_engine::lazy_targets(
        std::io::Cursor::new(lines(&srv, 1000, json)),
        format,
        "t.txt",
    );
    let sink = Collect::default();
    let (sum, _) = attack(cfg(100, 1, 50), src, sink.boxed(), never())
        .await
        .unwrap();
    assert_eq!(sum.stop_reason, StopReason::Duration);
    assert_eq!(sum.requests, 100, "unsent {}", sum.unsent);
    assert_eq!(sum.unsent, 0);
    let (urls, seqs) = sent(&sink);
    assert_eq!(seqs, (0..100).collect::<Vec<_>>(), "no gaps in seq");
    assert_eq!(
        urls,
        (0..100).collect::<BTreeSet<_>>(),
        "the first 100 targets, each once"
    );
    assert_eq!(srv.requests(), 100);
}

#[tokio::test]
async fn lazy_http_targets_lose_no_request_at_the_end() {
    every_scheduled_request_goes_out(TargetFormat::Http).await;
}

#[tokio::test]
async fn lazy_json_targets_lose_no_request_at_the_end() {
    every_scheduled_request_goes_out(TargetFormat::Json).await;
}

#[tokio::test]
async fn lazy_targets_that_run_out_are_each_sent_once() {
    let srv = serve(hello()).await;
    let src = loadlab_engine::lazy_targets(
        std::io::Cursor::new(lines(&srv, 30, false)),
        TargetFormat::Http,
        "t.txt",
    );
    let sink = Collect::default();
    let (sum, _) = attack(cfg(100, 1, 50), src, sink.boxed(), never())
        .await
        .unwrap();
    assert_eq!(sum.stop_reason, StopReason::Exhausted);
    assert_eq!(sum.requests, 30);
    let (urls, seqs) = sent(&sink);
    assert_eq!(urls, (0..30).collect::<BTreeSet<_>>());
    assert_eq!(seqs.len(), 30);
    assert_eq!(srv.requests(), 30);
}

/// Targets arriving at half the rate (a slow pipe): each one that arrives in
/// time is sent, and the shortfall is counted, not hidden.
#[tokio::test]
async fn slow_lazy_targets_are_sent_as_they_come_and_the_rest_counted_unsent() {
    let srv = serve(hello()).await;
    let (tx, rx) = std::sync::mpsc::sync_channel::<Result<Target, loadlab_engine::TargetError>>(0);
    let urls: Vec<String> = (0..1000).map(|i| srv.url(&format!("/?i={i}"))).collect();
    let feeder = std::thread::spawn(move || {
        for u in urls {
            std::thread::sleep(ms(20));
            if tx.send(Ok(get(&u))).is_err() {
                return;
            }
        }
    });
    let sink = Collect::default();
    let (sum, _) = attack(
        cfg(100, 1, 50),
        TargetSource::Lazy(Box::new(rx.into_iter())),
        sink.boxed(),
        never(),
    )
    .await
    .unwrap();
    assert_eq!(sum.stop_reason, StopReason::Duration);
    // About 50 arrive within the second; a loaded machine may feed fewer.
    assert!((5..=60).contains(&sum.requests), "{}", sum.requests);
    assert_eq!(sum.requests + sum.unsent, 100, "unsent {}", sum.unsent);
    let (urls, seqs) = sent(&sink);
    assert_eq!(urls.len() as u64, sum.requests, "each target once");
    assert_eq!(seqs.len() as u64, sum.requests);
    feeder.join().unwrap();
}
