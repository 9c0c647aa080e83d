//! The gRPC port's TLS configuration (rustls, its `ring` provider): the server's certificate chain
//! and key read from PEM, HTTP/2 offered by ALPN, and — when a client CA is given — client
//! certificates verified against it during the handshake. A client certificate is optional: a
//! bearer token still authenticates a call (`auth.rs`). Reads nothing from disk itself.

use std::sync::Arc;

use tokio_rustls::rustls::crypto::ring;
use tokio_rustls::rustls::pki_types::pem::PemObject;
use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer};
use tokio_rustls::rustls::server::WebPkiClientVerifier;
use tokio_rustls::rustls::{RootCertStore, ServerConfig};

/// Why a TLS configuration cannot be made, naming the part at fault.
#[derive(Debug, thiserror::Error)]
pub enum TlsError {
    /// The certificate chain is not PEM certificates, or holds none.
    #[error("the TLS certificate chain holds no PEM certificate it can read: {0}")]
    Certificate(String),
    /// The key is not a PEM private key (PKCS#8, PKCS#1 or SEC1).
    #[error("the TLS key is not a PEM private key: {0}")]
    Key(String),
    /// The client CA is not PEM certificates that can be trusted.
    #[error("the client CA holds no PEM certificate it can trust: {0}")]
    ClientCa(String),
    /// rustls refused the combination (a key that is not the certificate's, …).
    #[error("the TLS configuration is refused: {0}")]
    Refused(String),
}

/// The server's TLS configuration from its certificate chain and key (PEM), and the CA of its
/// clients' certificates if any.
pub fn server_config(
    chain: &[u8],
    key: &[u8],
    client_ca: Option<&[u8]>,
) -> Result<Arc<ServerConfig>, TlsError> {
    let chain = certificates(chain).map_err(TlsError::Certificate)?;
    let key = PrivateKeyDer::from_pem_slice(key).map_err(|e| TlsError::Key(e.to_string()))?;
    let provider = Arc::new(ring::default_provider());
    let builder = ServerConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()
        .map_err(|e| TlsError::Refused(e.to_string()))?;
    let builder = match client_ca {
        None => builder.with_no_client_auth(),
        Some(pem) => {
            let mut roots = RootCertStore::empty();
            let (added, _) =
                roots.add_parsable_certificates(certificates(pem).map_err(TlsError::ClientCa)?);
            if added == 0 {
                return Err(TlsError::ClientCa(
                    "no certificate is a CA rustls can use".into(),
                ));
            }
            let verifier = WebPkiClientVerifier::builder_with_provider(roots.into(), provider)
                .allow_unauthenticated()
                .build()
                .map_err(|e| TlsError::ClientCa(e.to_string()))?;
            builder.with_client_cert_verifier(verifier)
        }
    };
    let mut config = builder
        .with_single_cert(chain, key)
        .map_err(|e| TlsError::Refused(e.to_string()))?;
    config.alpn_protocols = vec![b"h2".to_vec()];
    Ok(Arc::new(config))
}

/// The certificates of a PEM text (at least one).
fn certificates(pem: &[u8]) -> Result<Vec<CertificateDer<'static>>, String> {
    let certificates = CertificateDer::pem_slice_iter(pem)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| e.to_string())?;
    if certificates.is_empty() {
        return Err("no CERTIFICATE block".into());
    }
    Ok(certificates)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_is_not_pem_is_refused_naming_the_part() {
        assert!(matches!(
            server_config(b"nothing", b"nothing", None),
            Err(TlsError::Certificate(_))
        ));
        let issued = rcgen::generate_simple_self_signed(vec!["localhost".into()]).unwrap();
        let chain = issued.cert.pem();
        let key = issued.signing_key.serialize_pem();
        assert!(matches!(
            server_config(chain.as_bytes(), b"nothing", None),
            Err(TlsError::Key(_))
        ));
        assert!(matches!(
            server_config(chain.as_bytes(), key.as_bytes(), Some(b"nothing")),
            Err(TlsError::ClientCa(_))
        ));
        let other = rcgen::generate_simple_self_signed(vec!["other".into()]).unwrap();
        assert!(matches!(
            server_config(
                chain.as_bytes(),
                other.signing_key.serialize_pem().as_bytes(),
                None
            ),
            Err(TlsError::Refused(_))
        ));
        let config = server_config(chain.as_bytes(), key.as_bytes(), Some(chain.as_bytes()))
            .expect("a certificate, its key, and a CA");
        assert_eq!(config.alpn_protocols, vec![b"h2".to_vec()]);
    }
}
