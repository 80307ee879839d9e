//! HTTP clients, every one built here: the TLS provider (rustls with ring)
//! installed once for the process before the first is made.

/// Installs rustls's ring provider as the process default (once; a
/// provider already installed stays). Clients built here need not call it;
/// one another crate builds (rmcp's) does.
pub fn install_tls() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
}

/// An async client's builder.
pub fn builder() -> reqwest::ClientBuilder {
    install_tls();
    reqwest::Client::builder()
}

/// A blocking client's builder.
pub fn blocking_builder() -> reqwest::blocking::ClientBuilder {
    install_tls();
    reqwest::blocking::Client::builder()
}
