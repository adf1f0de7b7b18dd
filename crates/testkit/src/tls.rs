//! A self-signed certificate for `localhost` and a TLS acceptor presenting it.

use std::sync::Arc;

use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
use tokio_rustls::TlsAcceptor;

/// A server's TLS setup: the acceptor, and its certificate in PEM (for a
/// client's `-root-certs`).
pub struct SelfSigned {
    pub acceptor: TlsAcceptor,
    pub cert_pem: String,
}

/// A fresh self-signed certificate for `localhost` (reach the server with
/// `-connect-to localhost:PORT:127.0.0.1:PORT` or trust it with
/// `-insecure`), offering `alpn` (e.g. `[b"h2", b"http/1.1"]`; empty: none).
pub fn self_signed(alpn: &[&[u8]]) -> SelfSigned {
    let ck = rcgen::generate_simple_self_signed(vec!["localhost".to_string()]).unwrap();
    let cert_pem = ck.cert.pem();
    let cert = CertificateDer::from(ck.cert.der().to_vec());
    let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(ck.signing_key.serialize_der()));
    let mut cfg = rustls::ServerConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .unwrap()
    .with_no_client_auth()
    .with_single_cert(vec![cert], key)
    .unwrap();
    cfg.alpn_protocols = alpn.iter().map(|p| p.to_vec()).collect();
    SelfSigned {
        acceptor: TlsAcceptor::from(Arc::new(cfg)),
        cert_pem,
    }
}
