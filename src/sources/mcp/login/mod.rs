//! Logins to hosted MCP servers, as the MCP authorization specification
//! has them, with rmcp's OAuth support doing the protocol: the server's
//! `WWW-Authenticate` challenge, its protected-resource metadata and its
//! authorization server's (with the specification's fallbacks), a client
//! registered beforehand (the servers file's `oauth`), a client ID metadata
//! document or a dynamic registration, the authorization code with PKCE and
//! the `resource` parameter, the scopes of the challenge or the metadata,
//! and more scopes when a call needs them.
//!
//! Here: the page opened in the browser once and the answer taken on a
//! loopback port (`callback.rs`), the tokens kept per server (`store.rs`),
//! and the connection that sends them, refreshing them before they expire
//! (`flow.rs`). No token is ever written to a log, a trace, an event or an
//! error: errors from the protocol are cut where a token could start.

mod callback;
mod choice;
mod private;
mod flow;
mod keyring;
mod store;
mod waiting;

pub use callback::{Shown, no_browser};
pub use flow::{
    Asked, LoggedIn, auth_challenge, authorized_client, log_in, unknown_client, whole_text,
};
pub use private::StoreError;
pub use keyring::KeyringError;
pub use store::{STORE_VAR, TokenStore, UnknownStore};
pub use waiting::{LoginCommand, Notice, Warn};
pub(crate) use waiting::{Before, Logins, Turn, Waiting};

/// Why a login did not complete.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LoginError {
    #[error("it is started with a command: only a server reached by url logs in")]
    NotHttp,
    #[error("its authorization server's login page {endpoint:?} is refused: {why}; no page is opened for it")]
    UnsafePage { endpoint: String, why: String },
    #[error("cannot find how it logs in: {0}")]
    Discovery(String),
    #[error("cannot register toolsift as a client: {0}")]
    Registration(String),
    #[error("{0}")]
    Callback(String),
    #[error("no answer came back from the browser within {0} s")]
    TimedOut(u64),
    #[error("no browser opened its login page: open {0} (it waits a few minutes), then try again")]
    NotOpened(String),
    #[error("the authorization server refused the login: {error}{}", if description.is_empty() { String::new() } else { format!(" ({description})") })]
    Refused { error: String, description: String },
    #[error("the authorization code could not be exchanged for a token: {0}")]
    Exchange(String),
    #[error("cannot keep the login: {0}")]
    Store(StoreError),
    #[error("cannot forget the login: {0}")]
    Forget(StoreError),
    #[error("cannot make the HTTP client: {0}")]
    Client(String),
}

/// An SDK error's text, plain, and cut where a token could start (an
/// answer's body quoted back), at most 300 characters.
pub(crate) fn plain(text: &str) -> String {
    let text = super::sdk_text::plain(text);
    let lower = text.to_ascii_lowercase();
    let cut = ["access_token", "refresh_token", "id_token", "bearer ", "code="]
        .iter()
        .filter_map(|w| lower.find(w))
        .min();
    let mut kept: String = match cut {
        Some(at) => format!("{} … (the rest is not shown: it may hold a token)", text[..at].trim_end()),
        None => text,
    };
    if kept.chars().count() > 300 {
        kept = kept.chars().take(300).collect::<String>() + "…";
    }
    kept
}

#[cfg(test)]
mod tests {
    #[test]
    fn an_error_is_cut_where_a_token_could_start() {
        let said = super::plain(r#"parse error: {"access_token":"tok-123","token_type":"bearer"}"#);
        assert!(!said.contains("tok-123"), "{said}");
        assert!(said.starts_with("parse error:"), "{said}");
        let said = super::plain("HTTP 401: Bearer abc.def");
        assert!(!said.contains("abc.def"), "{said}");
    }
}
