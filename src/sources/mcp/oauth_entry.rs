//! A hosted server's login settings, as a servers file gives them: its
//! `oauth` entry (toolsift's keys, and Claude Code's `clientId` and
//! `callbackPort`). All optional: with none, the client registers itself
//! with the server's authorization server when it allows that.
//!
//! ```toml
//! [mcp.servers.tracker]
//! url = "https://mcp.tracker.example/mcp"
//! oauth = { client_id = "toolsift-at-acme", client_secret = "${TRACKER_SECRET}", scopes = ["read"], callback_port = 8976 }
//! ```

use serde::Deserialize;

use super::vars::VarError;

/// How toolsift logs in to one HTTP server.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OAuthSettings {
    /// A client registered beforehand with the server's authorization
    /// server; none: a client ID metadata document or a registration.
    pub client_id: Option<String>,
    /// That client's secret (a confidential client).
    pub client_secret: Option<String>,
    /// The scopes to ask for; none: those of the server's challenge, else
    /// those its metadata lists.
    pub scopes: Vec<String>,
    /// An https URL where this client's metadata document is served, used
    /// as its client id where the authorization server takes those.
    pub client_metadata_url: Option<String>,
    /// The loopback port the login's answer comes back to; none: any free
    /// port. A pre-registered client often needs a fixed one.
    pub callback_port: Option<u16>,
}

/// Scopes as a list or one space-separated string.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
enum Scopes {
    List(Vec<String>),
    Line(String),
}

/// The `oauth` entry as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct OAuthEntry {
    #[serde(alias = "clientId")]
    client_id: Option<String>,
    #[serde(alias = "clientSecret")]
    client_secret: Option<String>,
    #[serde(alias = "scope")]
    scopes: Option<Scopes>,
    #[serde(alias = "clientMetadataUrl")]
    client_metadata_url: Option<String>,
    #[serde(alias = "callbackPort")]
    callback_port: Option<u16>,
}

/// An `oauth` entry that cannot be used: which key, and its value.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(super) enum OAuthError {
    #[error("oauth.scopes: {0:?} is not a scope")]
    Scope(String),
    #[error("oauth.client_metadata_url must be an https URL with a path, not {0:?}")]
    MetadataUrl(String),
    #[error("oauth.callback_port must be 1 to 65535 (leave it out for any free port)")]
    CallbackPort,
    #[error("oauth.client_secret needs oauth.client_id (the client it is the secret of)")]
    SecretWithoutId,
    /// A `${NAME}` in the client id or secret.
    #[error(transparent)]
    Var(#[from] VarError),
}

impl OAuthEntry {
    /// The settings, `${NAME}` expanded in the client id and secret.
    pub(super) fn read(
        self,
        expand: &dyn Fn(&str) -> Result<String, VarError>,
    ) -> Result<OAuthSettings, OAuthError> {
        let scopes = match self.scopes {
            None => Vec::new(),
            Some(Scopes::List(list)) => list,
            Some(Scopes::Line(line)) => line.split_whitespace().map(str::to_string).collect(),
        };
        if let Some(bad) = scopes
            .iter()
            .find(|s| s.is_empty() || s.chars().any(|c| c.is_whitespace() || c.is_control()))
        {
            return Err(OAuthError::Scope(bad.clone()));
        }
        if let Some(url) = &self.client_metadata_url {
            let ok = url::Url::parse(url)
                .map(|u| u.scheme() == "https" && u.path() != "/")
                .unwrap_or(false);
            if !ok {
                return Err(OAuthError::MetadataUrl(url.clone()));
            }
        }
        if self.callback_port == Some(0) {
            return Err(OAuthError::CallbackPort);
        }
        let client_id = self.client_id.as_deref().map(expand).transpose()?;
        let client_secret = self.client_secret.as_deref().map(expand).transpose()?;
        if client_secret.is_some() && client_id.is_none() {
            return Err(OAuthError::SecretWithoutId);
        }
        Ok(OAuthSettings {
            client_id,
            client_secret,
            scopes,
            client_metadata_url: self.client_metadata_url,
            callback_port: self.callback_port,
        })
    }
}
