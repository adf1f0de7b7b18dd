//! HTTPS with rustls: -insecure, -root-certs, HTTP/2 via ALPN, and h2c.

use crate::common;
use common::*;

use std::sync::Arc;

use loadlab_core::{ErrorKind, PacerSpec, Rate};
use loadlab_engine::{AttackConfig, TlsOptions, attack};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};

struct TlsServer {
    srv: Server,
    cert_pem: String,
    /// Handshakes that resumed an earlier session.
    resumed: Arc<std::sync::atomic::AtomicU64>,
}

async fn serve_tls() -> TlsServer {
    let loadlab_testkit::tls::SelfSigned { acceptor, cert_pem } =
        loadlab_testkit::tls::self_signed(&[b"h2", b"http/1.1"]);
    let resumed = Arc::new(std::sync::atomic::AtomicU64::new(0));
    let res = resumed.clone();
    let srv = serve_with(move |sock, st| {
        let (acceptor, res) = (acceptor.clone(), res.clone());
        tokio::spawn(async move {
            if let Ok(tls) = acceptor.accept(sock).await {
                if tls.get_ref().1.handshake_kind() == Some(rustls::HandshakeKind::Resumed) {
                    res.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                }
                serve_conn(hyper_util::rt::TokioIo::new(tls), st, hello());
            }
        });
    })
    .await;
    TlsServer {
        srv,
        cert_pem,
        resumed,
    }
}

fn cfg(srv: &Server, tls: TlsOptions, http2: bool) -> AttackConfig {
    AttackConfig {
        pacer: PacerSpec::Constant(Rate::per_second(200)),
        max_requests: Some(5),
        tls,
        http2,
        // The certificate is for "localhost": reach it on the listener's address.
        connect_to: vec![(
            format!("localhost:{}", srv.addr.port()),
            srv.addr.to_string(),
        )],
        ..Default::default()
    }
}

async fn run(c: AttackConfig, srv: &Server) -> Vec<loadlab_core::Sample> {
    let sink = Collect::default();
    let url = format!("https://localhost:{}/", srv.addr.port());
    attack(c, one(&url), sink.boxed(), never()).await.unwrap();
    sink.samples()
}

#[tokio::test]
async fn insecure_accepts_a_self_signed_certificate() {
    let t = serve_tls().await;
    let s = run(
        cfg(
            &t.srv,
            TlsOptions {
                insecure: true,
                ..Default::default()
            },
            false,
        ),
        &t.srv,
    )
    .await;
    assert!(
        s.iter().all(|s| s.status == 200 && s.bytes_in == 5),
        "{s:?}"
    );
    assert!(s[0].connect_ns > 0);
    assert!(
        t.srv
            .stats
            .seen
            .lock()
            .unwrap()
            .iter()
            .all(|s| s.version == http::Version::HTTP_11)
    );
}

#[tokio::test]
async fn untrusted_certificate_is_a_tls_error() {
    let t = serve_tls().await;
    let s = run(cfg(&t.srv, TlsOptions::default(), false), &t.srv).await;
    assert_eq!(s.len(), 5);
    assert!(
        s.iter()
            .all(|s| s.status == 0 && s.error == ErrorKind::TlsUnknownIssuer),
        "{s:?}"
    );
    assert_eq!(t.srv.requests(), 0);
}

#[tokio::test]
async fn extra_root_certificate_is_trusted() {
    let t = serve_tls().await;
    let dir = tempfile::tempdir().unwrap();
    let pem = dir.path().join("root.pem");
    std::fs::write(&pem, &t.cert_pem).unwrap();
    let s = run(
        cfg(
            &t.srv,
            TlsOptions {
                root_certs: vec![pem],
                ..Default::default()
            },
            false,
        ),
        &t.srv,
    )
    .await;
    assert!(s.iter().all(|s| s.status == 200), "{s:?}");
}

#[tokio::test]
async fn missing_root_cert_file_is_a_setup_error() {
    let c = AttackConfig {
        tls: TlsOptions {
            root_certs: vec!["/nonexistent/root.pem".into()],
            ..Default::default()
        },
        ..Default::default()
    };
    let err = attack(
        c,
        one("https://localhost/"),
        Collect::default().boxed(),
        never(),
    )
    .await
    .map(|(sum, _)| sum)
    .unwrap_err();
    assert!(err.to_string().contains("/nonexistent/root.pem"), "{err}");
}

#[tokio::test]
async fn http2_over_tls_via_alpn() {
    let t = serve_tls().await;
    let s = run(
        cfg(
            &t.srv,
            TlsOptions {
                insecure: true,
                ..Default::default()
            },
            true,
        ),
        &t.srv,
    )
    .await;
    assert!(
        s.iter().all(|s| s.status == 200 && s.bytes_in == 5),
        "{s:?}"
    );
    let seen = t.srv.stats.seen.lock().unwrap();
    assert_eq!(seen.len(), 5);
    assert!(seen.iter().all(|s| s.version == http::Version::HTTP_2));
    assert_eq!(t.srv.accepted(), 1, "one multiplexed connection");
}

/// Twenty requests that start together share the first HTTP/2 connection:
/// one dial learns what the endpoint speaks while the others wait for it,
/// instead of each opening a connection of its own.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requests_that_start_together_share_the_first_http2_connection() {
    let t = serve_tls().await;
    let mut c = cfg(
        &t.srv,
        TlsOptions {
            insecure: true,
            ..Default::default()
        },
        true,
    );
    c.pacer = PacerSpec::Constant(Rate::per_second(0));
    c.max_workers = Some(20);
    c.max_requests = Some(60);
    let s = run(c, &t.srv).await;
    assert_eq!(s.len(), 60);
    assert!(s.iter().all(|s| s.status == 200), "{s:?}");
    assert_eq!(t.srv.accepted(), 1, "one multiplexed connection");
}

#[tokio::test]
async fn h2c_prior_knowledge() {
    let srv = serve(hello()).await;
    let sink = Collect::default();
    let c = AttackConfig {
        pacer: PacerSpec::Constant(Rate::per_second(200)),
        max_requests: Some(5),
        h2c: true,
        ..Default::default()
    };
    attack(c, one(&srv.url("/h2c")), sink.boxed(), never())
        .await
        .unwrap();
    assert!(
        sink.samples()
            .iter()
            .all(|s| s.status == 200 && s.bytes_in == 5)
    );
    let seen = srv.stats.seen.lock().unwrap();
    assert!(
        seen.iter()
            .all(|s| s.version == http::Version::HTTP_2 && s.path == "/h2c")
    );
}

#[tokio::test]
async fn sessions_resume_only_with_session_tickets() {
    // No keep-alive: every request opens (and handshakes) a new connection.
    // A TLS 1.3 server sends its tickets once it has the client's Finished,
    // before any response: a connection can resume only with a ticket an
    // earlier connection has already read, as with any client. One request
    // in flight at a time (`max_workers`), so each handshake starts after
    // the previous response, its tickets with it: every one after the
    // first resumes. (Paced alone, 5 ms apart, the handshakes overlapped on
    // a busy machine, where a debug handshake takes longer than that: the
    // second and third began before the first had a ticket, and 2 of 5
    // resumed.)
    for tickets in [false, true] {
        let t = serve_tls().await;
        let mut c = cfg(
            &t.srv,
            TlsOptions {
                insecure: true,
                session_tickets: tickets,
                ..Default::default()
            },
            false,
        );
        c.keepalive = false;
        c.workers = 1;
        c.max_workers = Some(1);
        let s = run(c, &t.srv).await;
        assert!(s.iter().all(|s| s.status == 200), "{s:?}");
        assert_eq!(t.srv.accepted(), 5);
        let resumed = t.resumed.load(std::sync::atomic::Ordering::SeqCst);
        if tickets {
            assert_eq!(resumed, 4, "{resumed} of 5 handshakes resumed");
        } else {
            assert_eq!(resumed, 0);
        }
    }
}

/// A certificate and its key, as a server presents them.
struct Cert {
    pem: String,
    der: CertificateDer<'static>,
    key: Vec<u8>,
}

/// A self-signed certificate for `names`; `ca` makes it a CA certificate
/// used as its own leaf, as `openssl req -x509` makes them.
fn cert(names: &[&str], ca: bool, valid: Option<(i32, i32)>) -> Cert {
    let mut p =
        rcgen::CertificateParams::new(names.iter().map(|s| s.to_string()).collect::<Vec<_>>())
            .unwrap();
    p.distinguished_name
        .push(rcgen::DnType::CommonName, names[0]);
    if ca {
        p.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    }
    if let Some((from, to)) = valid {
        p.not_before = rcgen::date_time_ymd(from, 1, 1);
        p.not_after = rcgen::date_time_ymd(to, 1, 1);
    }
    let key = rcgen::KeyPair::generate().unwrap();
    let c = p.self_signed(&key).unwrap();
    Cert {
        pem: c.pem(),
        der: CertificateDer::from(c.der().to_vec()),
        key: key.serialize_der(),
    }
}

/// An HTTPS server on 127.0.0.1:0 presenting `c`; with `client_ca`, it
/// requires a client certificate signed by it.
async fn serve_cert(c: &Cert, client_ca: Option<&Cert>) -> Server {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let builder = rustls::ServerConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()
        .unwrap();
    let builder = match client_ca {
        None => builder.with_no_client_auth(),
        Some(ca) => {
            let mut roots = rustls::RootCertStore::empty();
            roots.add(ca.der.clone()).unwrap();
            let v = rustls::server::WebPkiClientVerifier::builder_with_provider(
                Arc::new(roots),
                provider,
            )
            .build()
            .unwrap();
            builder.with_client_cert_verifier(v)
        }
    };
    let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(c.key.clone()));
    let cfg = builder.with_single_cert(vec![c.der.clone()], key).unwrap();
    let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(cfg));
    serve_with(move |sock, st| {
        let acceptor = acceptor.clone();
        tokio::spawn(async move {
            if let Ok(tls) = acceptor.accept(sock).await {
                serve_conn(hyper_util::rt::TokioIo::new(tls), st, hello());
            }
        });
    })
    .await
}

fn trusting(c: &Cert, dir: &tempfile::TempDir) -> TlsOptions {
    let pem = dir.path().join("root.pem");
    std::fs::write(&pem, &c.pem).unwrap();
    TlsOptions {
        root_certs: vec![pem],
        ..Default::default()
    }
}

#[tokio::test]
async fn a_self_signed_ca_used_as_its_own_leaf_is_trusted_with_root_certs() {
    let c = cert(&["localhost"], true, None);
    let srv = serve_cert(&c, None).await;
    let dir = tempfile::tempdir().unwrap();
    for http2 in [false, true] {
        let s = run(cfg(&srv, trusting(&c, &dir), http2), &srv).await;
        assert!(s.iter().all(|s| s.status == 200), "{s:?}");
    }
    // Without -root-certs it is just a certificate nobody vouches for.
    let s = run(cfg(&srv, TlsOptions::default(), false), &srv).await;
    assert!(
        s.iter().all(|s| s.error == ErrorKind::TlsUnknownIssuer),
        "{s:?}"
    );
}

#[tokio::test]
async fn tls_errors_say_why() {
    let dir = tempfile::tempdir().unwrap();
    // Trusted, but issued for another name.
    let other = cert(&["other.test"], true, None);
    let srv = serve_cert(&other, None).await;
    let s = run(cfg(&srv, trusting(&other, &dir), false), &srv).await;
    assert!(
        s.iter().all(|s| s.error == ErrorKind::TlsNameMismatch),
        "{s:?}"
    );
    // Trusted, right name, but expired or not valid yet.
    for (valid, kind) in [
        ((2000, 2001), ErrorKind::TlsExpired),
        ((2999, 3000), ErrorKind::TlsNotYetValid),
    ] {
        for ca in [false, true] {
            let c = cert(&["localhost"], ca, Some(valid));
            let srv = serve_cert(&c, None).await;
            let s = run(cfg(&srv, trusting(&c, &dir), false), &srv).await;
            assert!(s.iter().all(|s| s.error == kind), "{kind:?} {ca}: {s:?}");
        }
    }
    // The server wants a client certificate and gets none: its alert.
    let c = cert(&["localhost"], false, None);
    let client_ca = cert(&["client-ca"], true, None);
    let srv = serve_cert(&c, Some(&client_ca)).await;
    let s = run(cfg(&srv, trusting(&c, &dir), false), &srv).await;
    assert!(s.iter().all(|s| s.error == ErrorKind::TlsAlert), "{s:?}");
}

/// A CA (its certificate and key) and a client certificate it signed, as
/// PEM texts (chain, key).
fn client_of(ca_name: &str) -> (Cert, (String, String)) {
    let mut ca_params = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
    ca_params
        .distinguished_name
        .push(rcgen::DnType::CommonName, ca_name);
    ca_params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    let ca_key = rcgen::KeyPair::generate().unwrap();
    let ca_cert = ca_params.self_signed(&ca_key).unwrap();
    let ca = Cert {
        pem: ca_cert.pem(),
        der: CertificateDer::from(ca_cert.der().to_vec()),
        key: ca_key.serialize_der(),
    };
    let mut p = rcgen::CertificateParams::new(vec!["client.test".to_string()]).unwrap();
    p.distinguished_name
        .push(rcgen::DnType::CommonName, "client");
    let key = rcgen::KeyPair::generate().unwrap();
    let issuer = rcgen::Issuer::new(ca_params, ca_key);
    let c = p.signed_by(&key, &issuer).unwrap();
    (ca, (c.pem(), key.serialize_pem()))
}

/// Client certificates given as PEM texts (k6's `tlsAuth`): the server
/// gets the one its CA issued, whichever comes first; with none it trusts,
/// none is sent and it refuses the handshake; a key that is not the
/// certificate's is refused before any request.
#[tokio::test]
async fn client_certificates_are_picked_by_the_cas_the_server_names() {
    let dir = tempfile::tempdir().unwrap();
    let server = cert(&["localhost"], false, None);
    let (ca, ours) = client_of("our-ca");
    let (_, theirs) = client_of("their-ca");
    let srv = serve_cert(&server, Some(&ca)).await;
    for (pems, want) in [
        (vec![theirs.clone(), ours.clone()], ErrorKind::None),
        (vec![ours.clone()], ErrorKind::None),
        (vec![theirs.clone()], ErrorKind::TlsAlert),
    ] {
        let tls = TlsOptions {
            client_pems: pems,
            ..trusting(&server, &dir)
        };
        let s = run(cfg(&srv, tls, false), &srv).await;
        assert!(!s.is_empty());
        assert!(
            s.iter()
                .all(|s| s.error == want && (want != ErrorKind::None || s.status == 200)),
            "{want:?}: {s:?}"
        );
    }
    let mismatched = (ours.0.clone(), theirs.1.clone());
    let e = loadlab_engine::check_client_cert(&mismatched.0, &mismatched.1).unwrap_err();
    assert!(e.contains("does not match"), "{e}");
    let e = loadlab_engine::check_client_cert("nothing", &ours.1).unwrap_err();
    assert!(e.contains("no PEM certificate"), "{e}");
}
