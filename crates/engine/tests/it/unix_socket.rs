//! -unix-socket: every request goes over the socket, Host comes from the URL.

use crate::common;
use common::*;

use std::sync::Arc;

use loadlab_core::{PacerSpec, Rate};
use loadlab_engine::{AttackConfig, attack};

#[tokio::test]
async fn requests_go_over_the_unix_socket() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.sock");
    let listener = tokio::net::UnixListener::bind(&path).unwrap();
    let stats = Arc::new(Stats::default());
    let st = stats.clone();
    tokio::spawn(async move {
        loop {
            let Ok((sock, _)) = listener.accept().await else {
                return;
            };
            st.accepted
                .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            serve_conn(hyper_util::rt::TokioIo::new(sock), st.clone(), hello());
        }
    });
    let sink = Collect::default();
    let c = AttackConfig {
        pacer: PacerSpec::Constant(Rate::per_second(500)),
        max_requests: Some(10),
        unix_socket: Some(path),
        ..Default::default()
    };
    attack(c, one("http://app.local/u"), sink.boxed(), never())
        .await
        .unwrap();
    assert!(
        sink.samples()
            .iter()
            .all(|s| s.status == 200 && s.bytes_in == 5)
    );
    let seen = stats.seen.lock().unwrap();
    assert_eq!(seen.len(), 10);
    assert!(seen.iter().all(|s| {
        s.path == "/u"
            && s.headers
                .iter()
                .any(|(k, v)| k == "host" && v == "app.local")
    }));
}
