//! rustls client configuration: web roots plus `-root-certs`, optional client
//! certificate, `-insecure`, and ALPN for HTTP/2.

use std::path::Path;
use std::sync::Arc;

use loadlab_core::ErrorKind;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::client::{WebPkiServerVerifier, verify_server_name};
use rustls::crypto::CryptoProvider;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName, UnixTime};
use rustls::server::ParsedCertificate;
use rustls::{
    CertificateError, ClientConfig, DigitallySignedStruct, RootCertStore, SignatureScheme,
};

use crate::EngineError;
use crate::config::TlsOptions;

/// A cipher suite's name as Go (and k6) write it: TLS 1.3's without
/// rustls's `TLS13_` (`TLS_AES_128_GCM_SHA256`), ChaCha20 ones of TLS 1.2
/// without `_SHA256` (`TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305`).
pub(crate) fn go_suite_name(suite: rustls::CipherSuite) -> &'static str {
    let name = suite.as_str().unwrap_or("");
    match name {
        "TLS13_AES_128_GCM_SHA256" => "TLS_AES_128_GCM_SHA256",
        "TLS13_AES_256_GCM_SHA384" => "TLS_AES_256_GCM_SHA384",
        "TLS13_CHACHA20_POLY1305_SHA256" => "TLS_CHACHA20_POLY1305_SHA256",
        "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256" => "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305",
        "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256" => "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305",
        _ => name,
    }
}

/// The TLS 1.2 cipher suites loadlab offers, by their Go names.
pub fn tls12_suite_names() -> Vec<&'static str> {
    rustls::crypto::ring::default_provider()
        .cipher_suites
        .iter()
        .filter(|s| s.version() == &rustls::version::TLS12)
        .map(|s| go_suite_name(s.suite()))
        .collect()
}

fn read_certs(path: &Path) -> Result<Vec<CertificateDer<'static>>, EngineError> {
    let data = std::fs::read(path)
        .map_err(|e| EngineError::Tls(format!("cannot read {}: {e}", path.display())))?;
    let certs: Result<Vec<_>, _> = rustls_pemfile::certs(&mut data.as_slice()).collect();
    let certs = certs
        .map_err(|e| EngineError::Tls(format!("{}: bad PEM certificate: {e}", path.display())))?;
    if certs.is_empty() {
        return Err(EngineError::Tls(format!(
            "{}: no PEM certificate found",
            path.display()
        )));
    }
    Ok(certs)
}

fn read_key(path: &Path) -> Result<PrivateKeyDer<'static>, EngineError> {
    let data = std::fs::read(path)
        .map_err(|e| EngineError::Tls(format!("cannot read {}: {e}", path.display())))?;
    rustls_pemfile::private_key(&mut data.as_slice())
        .map_err(|e| EngineError::Tls(format!("{}: bad PEM private key: {e}", path.display())))?
        .ok_or_else(|| EngineError::Tls(format!("{}: no PEM private key found", path.display())))
}

/// Builds the client configuration. `alpn_h2` offers `h2` before `http/1.1`.
/// (Also used by the ab/wrk faces' probe, which shares the engine's TLS.)
pub fn client_config(opts: &TlsOptions, alpn_h2: bool) -> Result<Arc<ClientConfig>, EngineError> {
    let mut prov = rustls::crypto::ring::default_provider();
    if let Some(names) = &opts.cipher_suites_12 {
        prov.cipher_suites.retain(|s| {
            s.version() == &rustls::version::TLS13
                || names.iter().any(|n| n == go_suite_name(s.suite()))
        });
    }
    let has_12 = prov
        .cipher_suites
        .iter()
        .any(|s| s.version() == &rustls::version::TLS12);
    let (v12, v13) = opts.versions.unwrap_or((true, true));
    let mut versions: Vec<&'static rustls::SupportedProtocolVersion> = Vec::new();
    if v12 && has_12 {
        versions.push(&rustls::version::TLS12);
    }
    if v13 {
        versions.push(&rustls::version::TLS13);
    }
    if versions.is_empty() {
        return Err(EngineError::Config(
            "no TLS version left to offer (TLS 1.2 without a cipher suite, and not TLS 1.3)".into(),
        ));
    }
    let provider = Arc::new(prov);
    let builder = ClientConfig::builder_with_provider(provider.clone())
        .with_protocol_versions(&versions)
        .map_err(|e| EngineError::Tls(e.to_string()))?;
    let builder = if opts.insecure {
        builder
            .dangerous()
            .with_custom_certificate_verifier(Arc::new(AcceptAnything(provider.clone())))
    } else {
        let mut roots = RootCertStore {
            roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
        };
        let mut own = Vec::new();
        for p in &opts.root_certs {
            for c in read_certs(p)? {
                roots.add(c.clone()).map_err(|e| {
                    EngineError::Tls(format!("{}: unusable root certificate: {e}", p.display()))
                })?;
                own.push(c);
            }
        }
        for (i, pem) in opts.root_pems.iter().enumerate() {
            // Go's words (k6's), for a text without a certificate.
            let bad =
                || EngineError::Tls(format!("failed to append ca certificate [{i}] from PEM"));
            let certs: Vec<CertificateDer<'static>> = rustls_pemfile::certs(&mut pem.as_bytes())
                .collect::<Result<_, _>>()
                .map_err(|_| bad())?;
            if certs.is_empty() {
                return Err(bad());
            }
            for c in certs {
                roots.add(c.clone()).map_err(|_| bad())?;
                own.push(c);
            }
        }
        let inner = WebPkiServerVerifier::builder_with_provider(Arc::new(roots), provider.clone())
            .build()
            .map_err(|e| EngineError::Tls(e.to_string()))?;
        builder
            .dangerous()
            .with_custom_certificate_verifier(Arc::new(OwnRootsAsLeaves { inner, own }))
    };
    let mut cfg = match (&opts.cert, &opts.key) {
        (Some(c), Some(k)) => builder
            .with_client_auth_cert(read_certs(c)?, read_key(k)?)
            .map_err(|e| EngineError::Tls(format!("client certificate {}: {e}", c.display())))?,
        (None, None) if !opts.client_pems.is_empty() => {
            let mut certs = Vec::new();
            for (i, (c, k)) in opts.client_pems.iter().enumerate() {
                let pick = client_cert(&provider, c, k)
                    .map_err(|e| EngineError::Tls(format!("client certificate {}: {e}", i + 1)))?;
                certs.push(pick);
            }
            builder.with_client_cert_resolver(Arc::new(PickClientCert { certs }))
        }
        (None, None) => builder.with_no_client_auth(),
        _ => {
            return Err(EngineError::Config(
                "-cert and -key must be given together".into(),
            ));
        }
    };
    cfg.resumption = if opts.session_tickets {
        rustls::client::Resumption::default()
    } else {
        rustls::client::Resumption::disabled()
    };
    cfg.alpn_protocols = if alpn_h2 {
        vec![b"h2".to_vec(), b"http/1.1".to_vec()]
    } else {
        vec![b"http/1.1".to_vec()]
    };
    Ok(Arc::new(cfg))
}

/// A client certificate from PEM texts (a chain, and its key), with the
/// issuers of its chain (for the server's hints). The error says what is
/// wrong with them.
fn client_cert(
    provider: &CryptoProvider,
    cert_pem: &str,
    key_pem: &str,
) -> Result<(Arc<rustls::sign::CertifiedKey>, Vec<Vec<u8>>), String> {
    let chain: Vec<CertificateDer<'static>> = rustls_pemfile::certs(&mut cert_pem.as_bytes())
        .collect::<Result<_, _>>()
        .map_err(|e| format!("bad PEM certificate: {e}"))?;
    if chain.is_empty() {
        return Err("no PEM certificate found".into());
    }
    let key = rustls_pemfile::private_key(&mut key_pem.as_bytes())
        .map_err(|e| format!("bad PEM private key: {e}"))?
        .ok_or("no PEM private key found")?;
    let signer = provider
        .key_provider
        .load_private_key(key)
        .map_err(|e| format!("unusable private key: {e}"))?;
    let mut issuers = Vec::new();
    for (i, c) in chain.iter().enumerate() {
        let (_, x) = x509_parser::parse_x509_certificate(c)
            .map_err(|e| format!("unreadable certificate: {e}"))?;
        issuers.push(x.issuer().as_raw().to_vec());
        // The key is the leaf's (compared by their public keys, as Go
        // does; X.509 v1 certificates, which webpki does not read, too).
        if i == 0
            && let Some(spki) = signer.public_key()
            && spki.as_ref() != x.public_key().raw
        {
            return Err("the private key does not match the certificate".into());
        }
    }
    let ck = rustls::sign::CertifiedKey::new(chain, signer);
    Ok((Arc::new(ck), issuers))
}

/// Checks a client certificate and its key (PEM texts) before any load.
pub fn check_client_cert(cert_pem: &str, key_pem: &str) -> Result<(), String> {
    client_cert(&rustls::crypto::ring::default_provider(), cert_pem, key_pem).map(|_| ())
}

/// Picks a client certificate as Go's client does: the first whose key
/// signs with a scheme the server takes and, when the server names the
/// CAs it trusts, whose chain one of them issued; else none.
#[derive(Debug)]
struct PickClientCert {
    certs: Vec<(Arc<rustls::sign::CertifiedKey>, Vec<Vec<u8>>)>,
}

impl rustls::client::ResolvesClientCert for PickClientCert {
    fn resolve(
        &self,
        hints: &[&[u8]],
        schemes: &[SignatureScheme],
    ) -> Option<Arc<rustls::sign::CertifiedKey>> {
        // A hint may come with or without its outer SEQUENCE.
        let named = |issuer: &[u8]| {
            hints
                .iter()
                .any(|h| *h == issuer || issuer.ends_with(h) && issuer.len() - h.len() <= 4)
        };
        self.certs
            .iter()
            .find(|(ck, issuers)| {
                ck.key.choose_scheme(schemes).is_some()
                    && (hints.is_empty() || issuers.iter().any(|i| named(i)))
            })
            .map(|(ck, _)| ck.clone())
    }

    fn has_certs(&self) -> bool {
        !self.certs.is_empty()
    }
}

/// The standard (webpki) verification, plus one case Go's client accepts
/// and webpki does not: a server presenting, as its leaf, a CA certificate
/// that the user listed in `-root-certs` — what `openssl req -x509` makes
/// (`CA:TRUE`). The certificate is trusted by name, so it needs no chain;
/// webpki has already checked its validity dates (it does so before it
/// objects to the CA bit), and its host name is checked here. Anyone else's
/// CA certificate presented as a leaf is reported as of an unknown issuer.
#[derive(Debug)]
struct OwnRootsAsLeaves {
    inner: Arc<WebPkiServerVerifier>,
    /// The `-root-certs` certificates.
    own: Vec<CertificateDer<'static>>,
}

/// True for webpki's "CA certificate used as end entity" (rustls passes it
/// through as an `Other` certificate error, displayed by its name).
fn is_ca_used_as_leaf(e: &rustls::Error) -> bool {
    matches!(
        e,
        rustls::Error::InvalidCertificate(CertificateError::Other(o))
            if o.to_string().contains("CaUsedAsEndEntity")
    )
}

impl ServerCertVerifier for OwnRootsAsLeaves {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        match self.inner.verify_server_cert(
            end_entity,
            intermediates,
            server_name,
            ocsp_response,
            now,
        ) {
            Err(e) if is_ca_used_as_leaf(&e) => {
                if !self.own.iter().any(|c| c.as_ref() == end_entity.as_ref()) {
                    return Err(CertificateError::UnknownIssuer.into());
                }
                let cert = ParsedCertificate::try_from(end_entity)?;
                verify_server_name(&cert, server_name)?;
                Ok(ServerCertVerified::assertion())
            }
            r => r,
        }
    }
    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.inner.verify_tls12_signature(message, cert, dss)
    }
    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.inner.verify_tls13_signature(message, cert, dss)
    }
    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.inner.supported_verify_schemes()
    }
}

/// The error kind of a TLS failure: why the certificate was refused, or
/// that the server sent an alert. `None` if `e` is not a TLS error.
pub(crate) fn tls_error_kind(e: &std::io::Error) -> Option<ErrorKind> {
    let tls = e.get_ref()?.downcast_ref::<rustls::Error>()?;
    Some(match tls {
        rustls::Error::InvalidCertificate(c) => match c {
            CertificateError::UnknownIssuer => ErrorKind::TlsUnknownIssuer,
            CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. } => {
                ErrorKind::TlsNameMismatch
            }
            CertificateError::Expired | CertificateError::ExpiredContext { .. } => {
                ErrorKind::TlsExpired
            }
            CertificateError::NotValidYet | CertificateError::NotValidYetContext { .. } => {
                ErrorKind::TlsNotYetValid
            }
            _ => ErrorKind::Tls,
        },
        rustls::Error::AlertReceived(_) => ErrorKind::TlsAlert,
        _ => ErrorKind::Tls,
    })
}

/// `-insecure`: accepts any certificate, but still checks that handshake
/// signatures are well formed so the session itself works.
#[derive(Debug)]
struct AcceptAnything(Arc<CryptoProvider>);

impl ServerCertVerifier for AcceptAnything {
    fn verify_server_cert(
        &self,
        _end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }
    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }
    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }
    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.signature_verification_algorithms.supported_schemes()
    }
}
