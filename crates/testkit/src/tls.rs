//! A self-signed certificate for `localhost` and a TLS acceptor presenting it.

use std::sync::Arc;

use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
pub use tokio_rustls::TlsAcceptor;

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

/// A server that requires a client certificate (k6's `tlsAuth`), and two
/// client certificates as PEM texts (chain, key): `trusted`, issued by
/// the CA the server trusts for [`TRUSTED_KEY`], and `foreign`, issued by
/// another.
pub struct MutualTls {
    pub acceptor: TlsAcceptor,
    pub trusted: (String, String),
    pub foreign: (String, String),
    /// The server's own certificate, PEM (a client's CA to trust it).
    pub server_pem: String,
}

/// The trusted client certificate's key ([`MutualTls::trusted`]), a
/// P-256 key in PKCS#8, and the same key encrypted the legacy PEM way
/// (RFC 1423, `openssl pkey -traditional -CIPHER`) with
/// [`ENCRYPTED_KEY_PASSWORD`], by cipher; and encrypted as PKCS#8
/// (`ENCRYPTED PRIVATE KEY`), which k6 refuses. Files under `src/keys/`.
pub const TRUSTED_KEY: &str = include_str!("keys/client.pem");
pub const ENCRYPTED_KEY_PASSWORD: &str = "s3cret";
pub const TRUSTED_KEY_ENCRYPTED: [(&str, &str); 5] = [
    ("AES-128-CBC", include_str!("keys/client.aes128.pem")),
    ("AES-192-CBC", include_str!("keys/client.aes192.pem")),
    ("AES-256-CBC", include_str!("keys/client.aes256.pem")),
    ("DES-EDE3-CBC", include_str!("keys/client.des3.pem")),
    ("DES-CBC", include_str!("keys/client.des.pem")),
];
pub const TRUSTED_KEY_PKCS8_ENCRYPTED: &str = include_str!("keys/client.pkcs8.pem");
/// [`TRUSTED_KEY`] in SEC1 (`EC PRIVATE KEY`): what decrypting the legacy
/// ones gives.
pub const TRUSTED_KEY_SEC1: &str = include_str!("keys/client.sec1.pem");

/// A CA and a client certificate it issued for `key` (a fresh one if
/// none): (the CA's DER, the client's chain and key as PEM).
fn client_ca(name: &str, key: Option<&str>) -> (CertificateDer<'static>, (String, String)) {
    let mut ca = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
    ca.distinguished_name.push(rcgen::DnType::CommonName, name);
    ca.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    let ca_key = rcgen::KeyPair::generate().unwrap();
    let ca_der = CertificateDer::from(ca.self_signed(&ca_key).unwrap().der().to_vec());
    let mut p = rcgen::CertificateParams::new(vec!["client.test".to_string()]).unwrap();
    p.distinguished_name
        .push(rcgen::DnType::CommonName, "client");
    let key = match key {
        Some(pem) => rcgen::KeyPair::from_pem(pem).unwrap(),
        None => rcgen::KeyPair::generate().unwrap(),
    };
    let c = p.signed_by(&key, &rcgen::Issuer::new(ca, ca_key)).unwrap();
    (ca_der, (c.pem(), key.serialize_pem()))
}

/// A fresh [`MutualTls`]: the server presents a self-signed certificate
/// for `localhost` (trust it with `-insecure`, or its `server_pem`).
pub fn mutual() -> MutualTls {
    mutual_offering(&[])
}

/// [`mutual`], offering `alpn` (`[b"h2"]` for gRPC).
pub fn mutual_offering(alpn: &[&[u8]]) -> MutualTls {
    let (ca, trusted) = client_ca("loadlab test client CA", Some(TRUSTED_KEY));
    let (_, foreign) = client_ca("another CA", None);
    let ck = rcgen::generate_simple_self_signed(vec!["localhost".to_string()]).unwrap();
    let cert = CertificateDer::from(ck.cert.der().to_vec());
    let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(ck.signing_key.serialize_der()));
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut roots = rustls::RootCertStore::empty();
    roots.add(ca).unwrap();
    let verifier = rustls::server::WebPkiClientVerifier::builder_with_provider(
        Arc::new(roots),
        provider.clone(),
    )
    .build()
    .unwrap();
    let mut cfg = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_client_cert_verifier(verifier)
        .with_single_cert(vec![cert], key)
        .unwrap();
    cfg.alpn_protocols = alpn.iter().map(|p| p.to_vec()).collect();
    MutualTls {
        acceptor: TlsAcceptor::from(Arc::new(cfg)),
        trusted,
        foreign,
        server_pem: ck.cert.pem(),
    }
}
