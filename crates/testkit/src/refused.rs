//! A loopback address where every connection is refused, for as long as
//! the test holds it.
//!
//! Binding a listener to `127.0.0.1:0` and dropping it leaves a port that
//! is free *now*: with tests running side by side, another test's server
//! (or a process the suite starts) may bind it a moment later, and the
//! "refused" request is then answered. [`Refused`] keeps the port bound
//! without listening: the kernel answers a connection attempt with a
//! reset (ECONNREFUSED), no other socket can bind the port, and it is
//! never chosen as the local port of an outgoing connection.

use std::fmt;
use std::net::{Ipv4Addr, SocketAddr};

/// A port on 127.0.0.1 that refuses connections until this is dropped.
pub struct Refused {
    _socket: tokio::net::TcpSocket,
    addr: SocketAddr,
}

impl Refused {
    pub fn new() -> Self {
        let socket = tokio::net::TcpSocket::new_v4().expect("a TCP socket");
        socket
            .bind(SocketAddr::from((Ipv4Addr::LOCALHOST, 0)))
            .expect("bind 127.0.0.1:0");
        let addr = socket.local_addr().expect("the bound address");
        Refused {
            _socket: socket,
            addr,
        }
    }

    /// `127.0.0.1:PORT`.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    pub fn port(&self) -> u16 {
        self.addr.port()
    }
}

impl Default for Refused {
    fn default() -> Self {
        Self::new()
    }
}

impl fmt::Display for Refused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.addr.fmt(f)
    }
}

#[cfg(test)]
mod tests {
    use super::Refused;

    #[test]
    fn connections_are_refused_and_the_port_stays_taken() {
        let r = Refused::new();
        let err = std::net::TcpStream::connect(r.addr()).unwrap_err();
        assert_eq!(err.kind(), std::io::ErrorKind::ConnectionRefused);
        assert!(std::net::TcpListener::bind(r.addr()).is_err());
    }
}
