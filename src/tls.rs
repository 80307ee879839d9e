//! The TLS provider every HTTPS client of this crate needs (rustls with
//! ring), installed once for the process, below everything that connects.

/// Installs rustls's ring provider as the process default (once; a
/// provider already installed stays).
pub fn install_provider() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
}
