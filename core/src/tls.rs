//! TLS: rustls on the `ring` provider with the system's root certificates.

use std::sync::Arc;

use rustls::RootCertStore;

use crate::error::{Result, SikaError};

/// The trusted roots. They are only loaded when the base URL is `https`, so a sandbox client
/// on a machine without CA certificates still works, while a production client there fails at
/// construction with a clear error instead of at the first payment.
pub(crate) fn roots(load_system_roots: bool) -> Result<RootCertStore> {
    let mut roots = RootCertStore::empty();
    if load_system_roots {
        let found = rustls_native_certs::load_native_certs();
        let (added, _ignored) = roots.add_parsable_certificates(found.certs);
        if added == 0 {
            return Err(SikaError::configuration(
                "no trusted root certificates found on this system: install the CA certificates \
                 package (e.g. `ca-certificates`) or set SSL_CERT_FILE",
            ));
        }
    }
    Ok(roots)
}

/// A new TLS configuration trusting `roots`, with its own session cache: each process's
/// transport makes its own (a forked process must not lock a cache's mutex held in its parent);
/// its two pools, reads and charges, share it.
pub(crate) fn client_config(roots: RootCertStore) -> Result<rustls::ClientConfig> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| SikaError::configuration(format!("TLS setup failed: {e}")))?
        .with_root_certificates(roots)
        .with_no_client_auth();
    config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    Ok(config)
}
