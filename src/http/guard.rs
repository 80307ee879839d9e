//! What both servers decide alike: whether an address may be served
//! without keys, the answer to a request without a valid key, `/metrics`'
//! answer, and when to stop.

use std::net::SocketAddr;

use axum::Json;
use axum::http::header::{AUTHORIZATION, CONTENT_TYPE, WWW_AUTHENTICATE};
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};

use super::ApiKeys;
use crate::wire::{ErrorBody, ErrorDetail};

/// A public address asked for without an API key.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "refusing to listen on {addr} without an API key: anyone who can reach it could {reach}; give --api-key-env NAME, or --insecure-no-auth if you mean it"
)]
pub struct PublicWithoutKey {
    pub addr: SocketAddr,
    /// What a stranger could do there (`use it`, `call your MCP servers' tools`).
    pub reach: &'static str,
}

/// Refuses a non-loopback `addr` without `keys`, unless `insecure_no_auth`.
pub fn check_bind(
    addr: SocketAddr,
    keys: &ApiKeys,
    insecure_no_auth: bool,
    reach: &'static str,
) -> Result<(), PublicWithoutKey> {
    if keys.is_empty() && !addr.ip().is_loopback() && !insecure_no_auth {
        return Err(PublicWithoutKey { addr, reach });
    }
    Ok(())
}

/// 401 with `www-authenticate: Bearer`, saying whether the key was
/// missing or wrong, in the error shape of every answer.
pub fn unauthorized(headers: &HeaderMap) -> Response {
    let message = if headers.contains_key(AUTHORIZATION) {
        "the API key is not valid here"
    } else {
        "this server needs an API key: send authorization: Bearer KEY"
    };
    let body = ErrorBody {
        error: ErrorDetail {
            code: "unauthorized".to_string(),
            message: message.to_string(),
        },
    };
    let mut r = (StatusCode::UNAUTHORIZED, Json(body)).into_response();
    r.headers_mut()
        .insert(WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
    r
}

/// `/metrics`' answer: `text` in the Prometheus text format.
pub fn metrics_text(text: String) -> Response {
    (
        [(CONTENT_TYPE, "text/plain; version=0.0.4; charset=utf-8")],
        text,
    )
        .into_response()
}

/// A future that resolves on SIGINT or SIGTERM. The handlers are installed
/// here, before it is first polled, so a signal that comes early (while the
/// server warms up) is caught rather than ending the process at once.
pub fn shutdown_signal() -> std::io::Result<impl std::future::Future<Output = ()> + Send + 'static>
{
    use tokio::signal::unix::{SignalKind, signal};
    let mut interrupt = signal(SignalKind::interrupt())?;
    let mut term = signal(SignalKind::terminate())?;
    Ok(async move {
        tokio::select! {
            _ = interrupt.recv() => {}
            _ = term.recv() => {}
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_public_address_needs_a_key_or_the_insecure_flag() {
        let public: SocketAddr = "0.0.0.0:8787".parse().unwrap();
        let local: SocketAddr = "127.0.0.1:8787".parse().unwrap();
        let none = ApiKeys::default();
        assert!(check_bind(local, &none, false, "use it").is_ok());
        assert!(check_bind(public, &none, true, "use it").is_ok());
        let e = check_bind(public, &none, false, "use it").unwrap_err();
        assert!(
            e.to_string()
                .starts_with("refusing to listen on 0.0.0.0:8787")
        );
        assert!(e.to_string().contains("could use it;"), "{e}");
    }

    #[test]
    fn one_answer_without_a_valid_key() {
        let mut headers = HeaderMap::new();
        let r = unauthorized(&headers);
        assert_eq!(r.status(), StatusCode::UNAUTHORIZED);
        assert_eq!(r.headers()[WWW_AUTHENTICATE], "Bearer");
        headers.insert(AUTHORIZATION, HeaderValue::from_static("Bearer x"));
        assert_eq!(unauthorized(&headers).status(), StatusCode::UNAUTHORIZED);
    }
}
