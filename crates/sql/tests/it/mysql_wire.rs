//! loadlab's own MySQL protocol client (`loadlab_sql::mysql_wire`) against
//! a private MariaDB: rows skipped but counted exactly (text and binary
//! protocol, rows larger than the read buffer, several results), the login
//! (an auth switch, an empty password, a plugin it does not speak), a
//! server error in the middle of a result, and a connection cut in the
//! middle of a result (through a relay on 127.0.0.1 that stops forwarding).

use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use loadlab_sql::driver::Param;
use loadlab_sql::mysql_wire::Conn;
use loadlab_sql::{ErrKind, SqlError};
use loadlab_testkit::db::{DATABASE, MariaDb, PASSWORD, USER};

fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

async fn connect(port: u16) -> Conn {
    Conn::connect("127.0.0.1", port, USER, PASSWORD, DATABASE)
        .await
        .unwrap()
}

#[test]
fn rows_are_skipped_and_counted_exactly() {
    let Some(db) = MariaDb::start_or_skip("rows_are_skipped_and_counted_exactly") else {
        return;
    };
    rt().block_on(async {
        let mut c = connect(db.port).await;
        // A compound statement in one COM_QUERY.
        c.query("CREATE PROCEDURE two() BEGIN SELECT 1; SELECT seq FROM seq_1_to_10; END")
            .await
            .unwrap();
        // The Sequence engine: 100,000 small rows, many read buffers' worth.
        assert_eq!(
            c.query("SELECT seq FROM seq_1_to_100000").await.unwrap(),
            100_000
        );
        // Rows of 1 KB, and one of 200 KB (larger than the read buffer).
        assert_eq!(
            c.query("SELECT seq, REPEAT('x', 1000) FROM seq_1_to_5000")
                .await
                .unwrap(),
            5000
        );
        let big = c
            .query_one("SELECT REPEAT('y', 200000)")
            .await
            .unwrap()
            .unwrap();
        assert_eq!(big.len(), 200_000);
        assert_eq!(c.query_one("SELECT NULL").await.unwrap(), None);
        assert_eq!(
            c.query_one("SELECT 1 FROM seq_1_to_3 WHERE seq > 5")
                .await
                .unwrap(),
            None
        );
        // No rows, an OK packet.
        assert_eq!(c.query("DO 1").await.unwrap(), 0);
        // Binary protocol, with integer and string parameters.
        let s = c
            .prepare("SELECT seq, ? FROM seq_1_to_100000 WHERE seq <= ?")
            .await
            .unwrap();
        for n in [0i64, 1, 77_777, 100_000] {
            let rows = c
                .exec(s, &[Param::Str("a'b"), Param::Int(n)])
                .await
                .unwrap();
            assert_eq!(rows, n as u64);
        }
        // Wrong parameter count: refused before anything is sent.
        let e = c.exec(s, &[Param::Int(1)]).await.unwrap_err();
        assert_eq!(e.code, 2034, "{e}");
        // Two results of a procedure (and its final OK), then the
        // connection goes on.
        assert_eq!(c.query("CALL two()").await.unwrap(), 11);
        assert_eq!(
            c.query_one("SELECT 6 * 7").await.unwrap().as_deref(),
            Some("42")
        );
        c.close().await;
    });
}

#[test]
fn a_server_error_in_the_middle_of_a_result() {
    let Some(db) = MariaDb::start_or_skip("a_server_error_in_the_middle_of_a_result") else {
        return;
    };
    // A function that fails on the 50,001st row: the server has sent rows
    // already when its ERR packet comes.
    rt().block_on(async {
        let mut c = connect(db.port).await;
        c.query(
            "CREATE FUNCTION boom(x INT) RETURNS INT DETERMINISTIC BEGIN \
             IF x > 50000 THEN SIGNAL SQLSTATE '45000' SET MYSQL_ERRNO = 1644, \
             MESSAGE_TEXT = 'boom after 50000 rows'; END IF; RETURN x; END",
        )
        .await
        .unwrap();
        let e = c
            .query("SELECT boom(seq), REPEAT('x', 50) FROM seq_1_to_100000")
            .await
            .unwrap_err();
        assert_eq!((e.code, e.kind), (1644, ErrKind::Other), "{e}");
        assert_eq!(e.message, "boom after 50000 rows");
        // The connection is in step: the next statements work.
        assert_eq!(c.query_one("SELECT 1").await.unwrap().as_deref(), Some("1"));
        let s = c
            .prepare("SELECT boom(seq) FROM seq_1_to_100000 WHERE seq <= ?")
            .await
            .unwrap();
        assert_eq!(c.exec(s, &[Param::Int(50_000)]).await.unwrap(), 50_000);
        let e = c.exec(s, &[Param::Int(60_000)]).await.unwrap_err();
        assert_eq!(e.code, 1644, "{e}");
        assert_eq!(c.exec(s, &[Param::Int(3)]).await.unwrap(), 3);
        c.close().await;
    });
}

/// A relay on 127.0.0.1 to the server; after `cut` is set to N, it
/// forwards N more bytes from the server, then closes both sides.
fn relay(server_port: u16, cut: Arc<AtomicUsize>) -> u16 {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    std::thread::spawn(move || {
        let (client, _) = l.accept().unwrap();
        let server = TcpStream::connect(("127.0.0.1", server_port)).unwrap();
        let (mut c_in, mut s_out) = (client.try_clone().unwrap(), server.try_clone().unwrap());
        std::thread::spawn(move || {
            let mut b = [0u8; 16384];
            while let Ok(n) = c_in.read(&mut b) {
                if n == 0 || s_out.write_all(&b[..n]).is_err() {
                    break;
                }
            }
        });
        let (mut s_in, mut c_out) = (server, client);
        let mut b = [0u8; 16384];
        loop {
            let n = match s_in.read(&mut b) {
                Ok(0) | Err(_) => break,
                Ok(n) => n,
            };
            let budget = cut.load(Ordering::SeqCst);
            let n = n.min(budget);
            if budget != usize::MAX {
                cut.store(budget - n, Ordering::SeqCst);
            }
            if c_out.write_all(&b[..n]).is_err() || n == 0 {
                break;
            }
        }
        let _ = c_out.shutdown(Shutdown::Both);
        let _ = s_in.shutdown(Shutdown::Both);
    });
    port
}

#[test]
fn a_connection_cut_in_the_middle_of_a_result() {
    let Some(db) = MariaDb::start_or_skip("a_connection_cut_in_the_middle_of_a_result") else {
        return;
    };
    let cut = Arc::new(AtomicUsize::new(usize::MAX));
    let port = relay(db.port, cut.clone());
    rt().block_on(async {
        let mut c = connect(port).await;
        assert_eq!(
            c.query("SELECT seq FROM seq_1_to_1000").await.unwrap(),
            1000
        );
        // About 11 MB of rows; the relay passes 50 KB of them.
        cut.store(50_000, Ordering::SeqCst);
        let t = Instant::now();
        let e: SqlError = tokio::time::timeout(
            Duration::from_secs(30),
            c.query("SELECT seq, REPEAT('x', 100) FROM seq_1_to_100000"),
        )
        .await
        .expect("the client notices the cut")
        .unwrap_err();
        assert_eq!((e.kind, e.code), (ErrKind::Lost, 2013), "{e}");
        assert!(t.elapsed() < Duration::from_secs(30));
        // And it stays lost.
        let e = c.query("SELECT 1").await.unwrap_err();
        assert_eq!(e.kind, ErrKind::Lost, "{e}");
    });
}

#[test]
fn logins_auth_switch_empty_password_and_unknown_plugins() {
    let Some(db) = MariaDb::start_or_skip("logins_auth_switch_empty_password_and_unknown_plugins")
    else {
        return;
    };
    db.root_sql(
        "CREATE USER 'nopw'@'%'; GRANT ALL ON sbtest.* TO 'nopw'@'%'; \
         INSTALL SONAME 'auth_ed25519'; \
         CREATE USER 'ed'@'%' IDENTIFIED VIA ed25519 USING PASSWORD('ed-pw');",
    )
    .unwrap();
    rt().block_on(async {
        // The server's own plugin, no switch.
        let c = connect(db.port).await;
        assert_eq!(
            (c.auth_plugin.as_str(), c.auth_switched),
            ("mysql_native_password", false)
        );
        c.close().await;
        // Answered with caching_sha2_password (as to a MySQL 8 server):
        // MariaDB switches to the user's mysql_native_password, with a new
        // nonce, and the login succeeds.
        let mut c = Conn::connect_as(
            "127.0.0.1",
            db.port,
            USER,
            PASSWORD,
            DATABASE,
            Some("caching_sha2_password"),
        )
        .await
        .unwrap();
        assert_eq!(
            (c.auth_plugin.as_str(), c.auth_switched),
            ("mysql_native_password", true)
        );
        assert_eq!(
            c.query_one("SELECT DATABASE()").await.unwrap().as_deref(),
            Some("sbtest")
        );
        c.close().await;
        // The wrong password after a switch is still the wrong password.
        let e = Conn::connect_as(
            "127.0.0.1",
            db.port,
            USER,
            "nope",
            DATABASE,
            Some("caching_sha2_password"),
        )
        .await
        .err()
        .unwrap();
        assert_eq!((e.kind, e.code), (ErrKind::Auth, 1045), "{e}");
        assert!(!e.message.contains(PASSWORD));
        // An empty password.
        let mut c = Conn::connect("127.0.0.1", db.port, "nopw", "", DATABASE)
            .await
            .unwrap();
        assert_eq!(c.query("SELECT 1").await.unwrap(), 1);
        c.close().await;
        // No database in the handshake.
        let mut c = Conn::connect("127.0.0.1", db.port, USER, PASSWORD, "")
            .await
            .unwrap();
        assert_eq!(c.query_one("SELECT DATABASE()").await.unwrap(), None);
        c.close().await;
        // A plugin this client does not speak: one clear error naming it.
        let e = Conn::connect("127.0.0.1", db.port, "ed", "ed-pw", DATABASE)
            .await
            .err()
            .unwrap();
        assert_eq!(e.code, 2059, "{e}");
        assert!(e.message.contains("'client_ed25519'"), "{e}");
        assert!(e.message.contains("mysql_native_password"), "{e}");
        // Unknown database (root may see that it does not exist; sbtest
        // is told it may not use it), refused port.
        let e = Conn::connect("127.0.0.1", db.port, USER, PASSWORD, "nodb")
            .await
            .err()
            .unwrap();
        assert_eq!((e.kind, e.code), (ErrKind::UnknownDb, 1044), "{e}");
        let refused = loadlab_testkit::refused::Refused::new();
        let free = refused.port();
        let e = Conn::connect("127.0.0.1", free, USER, PASSWORD, DATABASE)
            .await
            .err()
            .unwrap();
        assert_eq!((e.kind, e.code), (ErrKind::Refused, 2002), "{e}");
    });
}

#[test]
fn packets_of_16_mib_and_more_both_ways() {
    let Some(db) = MariaDb::start_or_skip("packets_of_16_mib_and_more_both_ways") else {
        return;
    };
    db.root_sql("SET GLOBAL max_allowed_packet = 64 * 1024 * 1024")
        .unwrap();
    rt().block_on(async {
        let mut c = connect(db.port).await;
        // A row of 17 MB comes in two wire packets (16 MiB - 1, then the
        // rest): read whole for query_one, skipped part by part in a count.
        let n = 17_000_000;
        let v = c
            .query_one(&format!("SELECT REPEAT('z', {n})"))
            .await
            .unwrap()
            .unwrap();
        assert_eq!(v.len(), n);
        assert!(v.bytes().all(|b| b == b'z'));
        assert_eq!(
            c.query(&format!("SELECT REPEAT('z', {n}) FROM seq_1_to_2"))
                .await
                .unwrap(),
            2
        );
        // A row of exactly 16 MiB - 1 bytes of payload is followed by an
        // empty packet.
        // (the value's length prefix is 4 bytes: 0xfd and 3 bytes)
        let exact = 0xff_ffff - 4;
        let v = c
            .query_one(&format!("SELECT REPEAT('e', {exact})"))
            .await
            .unwrap()
            .unwrap();
        assert_eq!(v.len(), exact);
        // A statement of 17 MB goes out in two packets.
        let sql = format!("SELECT LENGTH('{}')", "q".repeat(n));
        assert_eq!(
            c.query_one(&sql).await.unwrap().as_deref(),
            Some("17000000")
        );
        // And the connection is in step after all of it.
        assert_eq!(c.query("SELECT seq FROM seq_1_to_7").await.unwrap(), 7);
        c.close().await;
    });
}

/// The same protocol code on a blocking socket, driven by `ready` on a
/// plain thread with no runtime: rows counted exactly in both protocols;
/// and a `shutdown` from another thread ends a read blocked on a reply
/// that is not coming (how the run's time limit cuts a thread off).
#[test]
fn a_blocking_connection_runs_without_a_runtime_and_a_shutdown_ends_its_wait() {
    use loadlab_sql::mysql_wire::ready;
    let Some(db) = MariaDb::start_or_skip(
        "a_blocking_connection_runs_without_a_runtime_and_a_shutdown_ends_its_wait",
    ) else {
        return;
    };
    let mut c = ready(Conn::connect_blocking(
        "127.0.0.1",
        db.port,
        USER,
        PASSWORD,
        DATABASE,
    ))
    .unwrap();
    assert!(c.connection_id > 0);
    assert_eq!(
        ready(c.query("SELECT seq, REPEAT('x', 1000) FROM seq_1_to_5000")).unwrap(),
        5000
    );
    let s = ready(c.prepare("SELECT seq FROM seq_1_to_100000 WHERE seq <= ?")).unwrap();
    assert_eq!(ready(c.exec(s, &[Param::Int(77_777)])).unwrap(), 77_777);
    assert_eq!(
        ready(c.query_one("SELECT 6 * 7")).unwrap().as_deref(),
        Some("42")
    );
    let e = ready(c.query("SELECT * FROM no_such_table")).unwrap_err();
    assert_eq!(e.code, 1146, "{e}");
    // A reply 30 s away; the shutdown comes once the server is running the
    // query (its process list shows it), so the read is waiting for it.
    let sock = c.socket().try_clone().unwrap();
    let t0 = Instant::now();
    let h = std::thread::spawn(move || ready(c.query("SELECT SLEEP(30)")));
    loadlab_testkit::proc::wait_until(
        "the server to run SELECT SLEEP(30)",
        loadlab_testkit::proc::PATIENCE,
        || {
            db.root_sql("SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE INFO = 'SELECT SLEEP(30)'")
                .is_ok_and(|n| n.trim() != "0")
        },
    );
    sock.shutdown(Shutdown::Both).unwrap();
    let e = h.join().unwrap().unwrap_err();
    assert_eq!(e.kind, ErrKind::Lost, "{e}");
    // Ended by the shutdown, not by the reply 30 s on.
    assert!(t0.elapsed() < Duration::from_secs(25), "{:?}", t0.elapsed());
}
