//! Credentials in a target URL (`http://user:pass@host/`) are sent as Basic
//! authentication, as Go's client (and so vegeta) does, and the password
//! never shows in target labels or error messages.

use crate::common;
use common::*;

use bytes::Bytes;
use loadlab_core::{PacerSpec, Rate};
use loadlab_engine::{AttackConfig, Target, TargetSource, attack};

fn cfg(n: u64) -> AttackConfig {
    AttackConfig {
        pacer: PacerSpec::Constant(Rate::per_second(500)),
        max_requests: Some(n),
        ..Default::default()
    }
}

fn header(s: &Seen, name: &str) -> Vec<String> {
    s.headers
        .iter()
        .filter(|(k, _)| k == name)
        .map(|(_, v)| v.clone())
        .collect()
}

/// "user:p@ss" in base64.
const USER_P_AT_SS: &str = "Basic dXNlcjpwQHNz";

#[tokio::test]
async fn url_credentials_are_sent_as_basic_auth_and_redacted_in_labels() {
    let srv = serve(hello()).await;
    let sink = Collect::default();
    let url = format!("http://user:p%40ss@{}/private", srv.addr);
    attack(cfg(2), one(&url), sink.boxed(), never())
        .await
        .unwrap();
    assert!(sink.samples().iter().all(|s| s.status == 200));
    let seen = srv.stats.seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 2);
    for s in &seen {
        assert_eq!(header(s, "authorization"), vec![USER_P_AT_SS]);
        assert_eq!(header(s, "host"), vec![srv.addr.to_string()]);
        assert_eq!(s.path, "/private");
    }
    // Results, reports, progress and Prometheus label requests with this.
    let targets = sink.targets.lock().unwrap().clone();
    assert_eq!(
        targets[0].1.url,
        format!("http://user:xxxxx@{}/private", srv.addr)
    );
}

#[tokio::test]
async fn an_authorization_header_wins_over_url_credentials() {
    let srv = serve(hello()).await;
    let sink = Collect::default();
    let t = Target {
        method: http::Method::GET,
        url: format!("http://user:pass@{}/", srv.addr),
        headers: vec![("Authorization".into(), "Bearer t0k3n".into())],
        body: Bytes::new(),
    };
    attack(cfg(1), TargetSource::Static(vec![t]), sink.boxed(), never())
        .await
        .unwrap();
    let seen = srv.stats.seen.lock().unwrap().clone();
    assert_eq!(header(&seen[0], "authorization"), vec!["Bearer t0k3n"]);
}

#[tokio::test]
async fn http2_sends_basic_auth_and_no_credentials_in_the_authority() {
    let srv = serve(hello()).await;
    let sink = Collect::default();
    let c = AttackConfig {
        h2c: true,
        ..cfg(1)
    };
    let url = format!("http://user:p%40ss@{}/", srv.addr);
    attack(c, one(&url), sink.boxed(), never()).await.unwrap();
    assert_eq!(sink.samples()[0].status, 200);
    let seen = srv.stats.seen.lock().unwrap().clone();
    assert_eq!(seen[0].version, http::Version::HTTP_2);
    assert_eq!(header(&seen[0], "authorization"), vec![USER_P_AT_SS]);
    assert_eq!(seen[0].authority.as_deref(), Some(&*srv.addr.to_string()));
}

#[tokio::test]
async fn credentials_follow_redirects_only_within_the_site() {
    // The second server is reached as "localhost": another host name, so
    // Authorization is dropped there, as Go's client drops it.
    let other = serve(hello()).await;
    let other_url = format!("http://localhost:{}/elsewhere", other.addr.port());
    let srv = serve(handler(move |s: Seen| {
        let other_url = other_url.clone();
        async move {
            let to = match s.path.as_str() {
                "/same" => "/done".to_string(),
                "/away" => other_url,
                _ => return ok("done"),
            };
            hyper::Response::builder()
                .status(302)
                .header("location", to)
                .body(http_body_util::Full::new(Bytes::new()))
                .unwrap()
        }
    }))
    .await;
    let sink = Collect::default();
    let targets = TargetSource::Static(vec![
        get(&format!("http://user:p%40ss@{}/same", srv.addr)),
        get(&format!("http://user:p%40ss@{}/away", srv.addr)),
    ]);
    let c = AttackConfig {
        max_workers: Some(1),
        ..cfg(2)
    };
    attack(c, targets, sink.boxed(), never()).await.unwrap();
    assert!(sink.samples().iter().all(|s| s.status == 200));
    let seen = srv.stats.seen.lock().unwrap().clone();
    let done = seen.iter().find(|s| s.path == "/done").unwrap();
    assert_eq!(header(done, "authorization"), vec![USER_P_AT_SS]);
    let away = other.stats.seen.lock().unwrap().clone();
    assert_eq!(away.len(), 1);
    assert_eq!(header(&away[0], "authorization"), Vec::<String>::new());
}

#[test]
fn error_messages_do_not_show_the_password() {
    for text in [
        "GET http://user:s3cret@/nohost\n",
        "GET ftp://user:s3cret@host/\n",
        "http://user:s3cret@host/\n",
    ] {
        let e = loadlab_engine::parse_targets(
            std::io::Cursor::new(text),
            loadlab_engine::TargetFormat::Http,
            "t.txt",
            None,
            &[],
        )
        .unwrap_err()
        .to_string();
        assert!(!e.contains("s3cret"), "{e}");
        assert!(e.contains("user:xxxxx@"), "{e}");
    }
}
