//! A Redis client's connection: TCP, or TLS when the URL is `rediss://`
//! or the options name `socket.tls`; RESP2, as k6's client speaks it;
//! `AUTH`, `SELECT` and `CLIENT SETNAME` from the options when it opens.
//! Commands are written and answers read by redis-rs's multiplexed
//! connection, whose task runs beside the VUs.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use redis::aio::MultiplexedConnection;

use crate::modules::counted::Counted;

/// Where and how a client connects, from its URL or options. (No
/// `Debug`: it holds the password and the client's key.)
#[derive(Clone, Default)]
pub struct Target {
    pub host: String,
    pub port: u16,
    /// TLS (`rediss://`, `socket.tls`): the CAs to trust and a client
    /// certificate, PEM texts.
    pub tls: Option<Tls>,
    pub username: Option<String>,
    pub password: Option<String>,
    pub database: i64,
    pub client_name: Option<String>,
    /// go-redis's defaults: 5 s to dial, 3 s for an answer.
    pub dial_timeout: Duration,
    pub read_timeout: Duration,
}

/// A client's TLS settings.
#[derive(Clone, Default)]
pub struct Tls {
    pub ca: Vec<String>,
    pub cert: Option<(String, String)>,
}

/// An open connection and the bytes on it so far.
#[derive(Clone)]
pub struct Conn {
    inner: MultiplexedConnection,
    counts: Arc<[AtomicU64; 2]>,
}

impl Conn {
    /// Bytes written and read so far (TLS included).
    pub fn bytes(&self) -> (u64, u64) {
        (
            self.counts[0].load(Ordering::Relaxed),
            self.counts[1].load(Ordering::Relaxed),
        )
    }
}

/// Dials `t` and opens the connection (over TLS with `tls`, made from
/// `t.tls`), in Go's words when it fails.
pub async fn connect(t: Target, tls: Option<Arc<rustls::ClientConfig>>) -> Result<Conn, String> {
    let addr = format!("{}:{}", t.host, t.port);
    let dial = async {
        let tcp = tokio::net::TcpStream::connect(&addr).await.map_err(|e| {
            let why = match e.kind() {
                std::io::ErrorKind::ConnectionRefused => "connect: connection refused".to_string(),
                _ => e.to_string(),
            };
            format!("dial tcp {addr}: {why}")
        })?;
        let _ = tcp.set_nodelay(true);
        let (tcp, counts) = Counted::new(tcp);
        let mut info = redis::RedisConnectionInfo::default()
            .set_db(t.database)
            .set_skip_set_lib_name();
        if let Some(u) = &t.username {
            info = info.set_username(u);
        }
        if let Some(p) = &t.password {
            info = info.set_password(p);
        }
        let config = redis::AsyncConnectionConfig::new().set_response_timeout(Some(t.read_timeout));
        let inner = match &tls {
            None => {
                let (inner, driver) = MultiplexedConnection::new_with_config(&info, tcp, config)
                    .await
                    .map_err(|e| error_text(&e))?;
                tokio::spawn(driver);
                inner
            }
            Some(cfg) => {
                let name = rustls::pki_types::ServerName::try_from(t.host.clone())
                    .map_err(|e| format!("invalid server name {}: {e}", t.host))?;
                let stream = tokio_rustls::TlsConnector::from(cfg.clone())
                    .connect(name, tcp)
                    .await
                    .map_err(|e| format!("tls: {e}"))?;
                let (inner, driver) = MultiplexedConnection::new_with_config(&info, stream, config)
                    .await
                    .map_err(|e| error_text(&e))?;
                tokio::spawn(driver);
                inner
            }
        };
        let mut conn = Conn { inner, counts };
        if let Some(name) = &t.client_name {
            let setname = vec![
                b"client".to_vec(),
                b"setname".to_vec(),
                name.clone().into_bytes(),
            ];
            command(&mut conn, setname).await.map_err(|e| match e {
                Failed::Server(m) | Failed::Network(m) => m,
            })?;
        }
        Ok(conn)
    };
    tokio::time::timeout(t.dial_timeout, dial)
        .await
        .unwrap_or_else(|_| Err(format!("dial tcp {addr}: i/o timeout")))
}

/// Why a command got no answer: the server's error (the connection is
/// fine), or the connection's.
pub enum Failed {
    Server(String),
    Network(String),
}

/// One command (its name and arguments as bytes) and its answer.
pub async fn command(conn: &mut Conn, args: Vec<Vec<u8>>) -> Result<redis::Value, Failed> {
    let mut cmd = redis::Cmd::new();
    for a in args {
        cmd.arg(a);
    }
    match conn.inner.send_packed_command(&cmd).await {
        Ok(redis::Value::ServerError(e)) => Err(Failed::Server(server_error(&e))),
        Ok(v) => Ok(v),
        // An error the server answered (with its code) leaves the
        // connection usable.
        Err(e) if e.code().is_some() => Err(Failed::Server(error_text(&e))),
        Err(e) => Err(Failed::Network(error_text(&e))),
    }
}

/// A server's error line as it sent it (`ERR …`, `WRONGTYPE …`), as k6's
/// client reports it.
fn server_error(e: &redis::ServerError) -> String {
    match e.details() {
        Some(d) => format!("{} {d}", e.code()),
        None => e.code().to_string(),
    }
}

/// redis-rs's error as the server or the network gave it.
fn error_text(e: &redis::RedisError) -> String {
    match (e.code(), e.detail()) {
        (Some(code), Some(detail)) => format!("{code} {detail}"),
        (Some(code), None) => code.to_string(),
        _ => e.to_string(),
    }
}
