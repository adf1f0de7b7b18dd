//! The helpers do what the crates' tests rely on.

use tokio::io::{AsyncReadExt, AsyncWriteExt};

#[test]
fn golden_check_passes_on_equal_text_and_names_the_first_differing_line() {
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        return;
    }
    let path = std::env::temp_dir().join(format!("loadlab-testkit-{}.txt", std::process::id()));
    std::fs::write(&path, "a\nb\nc\n").unwrap();
    loadlab_testkit::golden::check(&path, "a\nb\nc\n");
    let err = std::panic::catch_unwind(|| loadlab_testkit::golden::check(&path, "a\nB\nc\n"))
        .unwrap_err();
    let msg = err.downcast_ref::<String>().unwrap();
    assert!(msg.contains("line 2") && msg.contains("\"B\""), "{msg}");
    let err = std::panic::catch_unwind(|| loadlab_testkit::golden::check(&path, "a\nb\nc\nd\n"))
        .unwrap_err();
    let msg = err.downcast_ref::<String>().unwrap();
    assert!(
        msg.contains("expected 3 lines") && msg.contains("actual 4 lines"),
        "{msg}"
    );
    std::fs::remove_file(&path).unwrap();
}

#[tokio::test]
async fn raw_server_reads_whole_heads_sent_in_pieces() {
    let addr = loadlab_testkit::raw::serve(|mut c| async move {
        while let Some(head) = loadlab_testkit::raw::read_head(&mut c).await {
            let body = head.len().to_string();
            let resp = format!(
                "HTTP/1.1 200 OK\r\nContent-Length: {}\r\n\r\n{body}",
                body.len()
            );
            c.write_all(resp.as_bytes()).await.unwrap();
        }
    })
    .await;
    let mut c = tokio::net::TcpStream::connect(addr).await.unwrap();
    for piece in ["GET / HTTP/1.1\r\n", "Host: x\r\n", "\r\n"] {
        c.write_all(piece.as_bytes()).await.unwrap();
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    let mut buf = vec![0u8; 256];
    let mut got = Vec::new();
    while !got.ends_with(b"\r\n\r\n27") {
        let n = c.read(&mut buf).await.unwrap();
        assert!(n > 0, "{}", String::from_utf8_lossy(&got));
        got.extend_from_slice(&buf[..n]);
    }
    drop(c);
    let (mut a, mut b) = std::os::unix::net::UnixStream::pair().unwrap();
    std::io::Write::write_all(&mut a, b"GET / HTTP/1.1\r\n\r\nrest").unwrap();
    drop(a);
    assert_eq!(
        loadlab_testkit::raw::read_head_blocking(&mut b).as_deref(),
        Some(&b"GET / HTTP/1.1\r\n\r\nrest"[..])
    );
    assert_eq!(loadlab_testkit::raw::read_head_blocking(&mut b), None);
}

#[test]
fn self_signed_certificates_come_with_their_pem() {
    let s = loadlab_testkit::tls::self_signed(&[b"h2"]);
    assert!(
        s.cert_pem.starts_with("-----BEGIN CERTIFICATE-----"),
        "{}",
        s.cert_pem
    );
}

#[test]
fn private_mariadb_and_postgres_start_answer_and_stop() {
    use loadlab_testkit::db::{MariaDb, MariaDbOptions, Postgres};
    if let Some(mut m) = MariaDb::start_with_or_skip(
        "private_mariadb",
        MariaDbOptions {
            max_connections: 10,
            ..Default::default()
        },
    ) {
        let out = m.root_sql("SELECT @@max_connections, @@port").unwrap();
        assert_eq!(out.trim(), format!("10\t{}", m.port));
        let dir = m.dir().to_path_buf();
        assert!(dir.join("sock").exists());
        m.kill();
        assert!(std::net::TcpStream::connect(("127.0.0.1", m.port)).is_err());
        drop(m);
        assert!(!dir.exists(), "the data directory is removed on drop");
    }
    if let Some(p) = Postgres::start_or_skip("private_postgres") {
        let out = p
            .superuser_sql(
                "sbtest",
                "SELECT current_setting('port'), current_database()",
            )
            .unwrap();
        assert_eq!(out.trim(), format!("{}|sbtest", p.port));
        let port = p.port;
        drop(p);
        assert!(std::net::TcpStream::connect(("127.0.0.1", port)).is_err());
    }
}

#[test]
fn netns_lab_makes_and_removes_its_namespaces() {
    use loadlab_testkit::netns::{Lab, ip, skip_reason};
    if let Some(why) = skip_reason() {
        eprintln!("{why}");
        return;
    }
    let listed = || String::from_utf8_lossy(&ip(&["netns", "list"]).unwrap().stdout).into_owned();
    // A namespace left by a lab whose process is gone (a pid above
    // pid_max never exists) is removed by the next lab.
    let pid_max: u64 = std::fs::read_to_string("/proc/sys/kernel/pid_max")
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let stale = format!("ll{}x0h", pid_max + 1);
    ip(&["netns", "add", &stale]).unwrap();
    let names = {
        let mut lab = Lab::new().unwrap();
        assert!(
            !listed()
                .lines()
                .any(|x| x.split_whitespace().next() == Some(stale.as_str())),
            "{stale} was not removed"
        );
        let a = lab.node("198.18.0.1".parse().unwrap()).unwrap();
        let b = lab.node("198.18.0.2".parse().unwrap()).unwrap();
        assert_ne!(a.ns, b.ns);
        let addr = ip(&["-n", &a.ns, "-4", "addr", "show", "dev", "eth0"]).unwrap();
        assert!(String::from_utf8_lossy(&addr.stdout).contains("198.18.0.1/15"));
        // b reaches a over the lab's bridge (and nothing else: no route out).
        let route = ip(&["-n", &b.ns, "route", "get", "198.18.0.1"]).unwrap();
        assert!(String::from_utf8_lossy(&route.stdout).contains("dev eth0"));
        assert!(ip(&["-n", &b.ns, "route", "get", "1.1.1.1"]).is_err());
        let names = lab.namespaces().to_vec();
        assert_eq!(names.len(), 3);
        let l = listed();
        for n in &names {
            assert!(
                l.lines()
                    .any(|x| x.split_whitespace().next() == Some(n.as_str())),
                "{n}"
            );
        }
        names
    };
    let l = listed();
    for n in names {
        assert!(
            !l.lines()
                .any(|x| x.split_whitespace().next() == Some(n.as_str())),
            "{n} left"
        );
    }
}
