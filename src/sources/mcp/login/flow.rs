//! One login, and the connection that uses it.

use std::collections::{BTreeMap, HashMap};
use std::time::Duration;

use rmcp::ServiceExt;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::auth::{
    AuthClient, AuthorizationManager, AuthorizationRequest, AuthorizationSession,
    OAuthClientConfig, WWWAuthenticateParams,
};
use rmcp::transport::streamable_http_client::{
    AuthRequiredError, InsufficientScopeError, StreamableHttpClientTransportConfig,
};

use super::callback::{Callback, Shown, show, state_of, unsafe_page};
use super::private::StoreError;
use super::store::{Registered, TokenStore};
use super::{LoginError, plain};
use crate::sources::mcp::OAuthSettings;

/// The name toolsift registers under.
const CLIENT_NAME: &str = "toolsift";

/// What a login needs to know.
pub struct Asked<'a> {
    pub server: &'a str,
    pub url: &'a str,
    pub headers: &'a BTreeMap<String, String>,
    pub oauth: &'a OAuthSettings,
    /// The server's `WWW-Authenticate` challenge (its 401, or its 403 for
    /// more scopes); none: asked of the server first.
    pub challenge: Option<String>,
    /// How long the browser's answer is waited for.
    pub limit: Duration,
    /// Told the page's address and whether it opened (to say it to the
    /// user, escaped).
    pub shown: &'a (dyn Fn(&str, Shown) + Send + Sync),
    /// Whether to wait for the answer when no browser opened the page
    /// (someone at the terminal opens it); else the login goes on in the
    /// background and [`LoginError::NotOpened`] says where the page is.
    pub wait_unopened: bool,
    /// Held until the login ends, however it ends (the server's turn at
    /// its login page).
    pub hold: Option<Box<dyn std::any::Any + Send>>,
}

/// A completed login.
pub struct LoggedIn {
    /// Configured and holding the tokens: hand it to the connection.
    pub manager: AuthorizationManager,
    /// Where the tokens are kept (the keyring, or the file's path).
    pub kept_in: String,
}

/// The `WWW-Authenticate` challenge behind an SDK error (a 401, or a 403
/// for more scopes), and whether it asks for more scopes.
pub fn auth_challenge(error: &(dyn std::error::Error + 'static)) -> Option<(String, bool)> {
    let mut source = Some(error);
    while let Some(e) = source {
        if let Some(a) = e.downcast_ref::<AuthRequiredError>() {
            return Some((a.www_authenticate_header.clone(), false));
        }
        if let Some(s) = e.downcast_ref::<InsufficientScopeError>() {
            return Some((s.www_authenticate_header.clone(), true));
        }
        source = e.source();
    }
    None
}

/// An error's text with every source's after it (an SDK error often says
/// the cause only in its source).
pub fn whole_text(error: &(dyn std::error::Error + 'static)) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(e) = source {
        let more = e.to_string();
        if !text.contains(&more) {
            text = format!("{text}: {more}");
        }
        source = e.source();
    }
    text
}

/// Whether an error's whole text says the authorization server refused a
/// refresh because it does not know the client (`invalid_client`,
/// `unauthorized_client`): the login is to make again, with a new client.
pub fn unknown_client(text: &str) -> bool {
    text.contains("token refresh failed")
        && (text.contains("invalid_client") || text.contains("unauthorized_client"))
}

fn config(url: &str, headers: &BTreeMap<String, String>) -> StreamableHttpClientTransportConfig {
    let custom: HashMap<_, _> = headers
        .iter()
        .filter_map(|(k, v)| {
            Some((
                reqwest::header::HeaderName::from_bytes(k.as_bytes()).ok()?,
                reqwest::header::HeaderValue::from_str(v).ok()?,
            ))
        })
        .collect();
    StreamableHttpClientTransportConfig::with_uri(url).custom_headers(custom)
}

/// The server's challenge to a client with no token: `None` when it lets
/// one in.
async fn challenge_of_server(
    url: &str,
    headers: &BTreeMap<String, String>,
) -> Result<Option<String>, LoginError> {
    crate::http::client::install_tls();
    let transport = StreamableHttpClientTransport::from_config(config(url, headers));
    match tokio::time::timeout(Duration::from_secs(20), ().serve(transport)).await {
        Err(_) => Err(LoginError::Discovery("the server did not answer within 20 s".into())),
        Ok(Ok(client)) => {
            let _ = client.cancel().await;
            Ok(None)
        }
        Ok(Err(e)) => match e.auth_challenge() {
            Some(c) => Ok(Some(c.to_string())),
            None => Err(LoginError::Discovery(plain(&e.to_string()))),
        },
    }
}

/// Logs in to one server: discovery, the client, the page in the browser,
/// the answer on the loopback port, the code for tokens, the tokens kept.
pub async fn log_in(asked: Asked<'_>) -> Result<LoggedIn, LoginError> {
    crate::http::client::install_tls();
    let challenge = match asked.challenge.clone() {
        Some(c) => Some(c),
        None => challenge_of_server(asked.url, asked.headers).await?,
    };
    let store = TokenStore::new(asked.server, asked.url);
    let mut manager = AuthorizationManager::new_allowing_private_addresses(asked.url)
        .await
        .map_err(|e| LoginError::Discovery(plain(&e.to_string())))?;
    manager.set_credential_store(store.clone());
    let resolution = manager
        .resolve_metadata_from_challenge(challenge.as_deref())
        .await
        .map_err(|e| LoginError::Discovery(plain(&e.to_string())))?;
    let metadata = resolution.metadata;
    let takes_metadata_documents = metadata
        .additional_fields
        .get("client_id_metadata_document_supported")
        .and_then(|v| v.as_bool())
        .unwrap_or(false);
    let can_register = metadata.registration_endpoint.is_some();
    // The page put before the user is the authorization server's: only
    // an https one (or http on this machine) is, and nothing is
    // registered with a server that names another.
    if let Some(why) = unsafe_page(&metadata.authorization_endpoint) {
        return Err(LoginError::UnsafePage {
            endpoint: metadata.authorization_endpoint.clone(),
            why: why.to_string(),
        });
    }
    let supported = metadata.scopes_supported.clone().unwrap_or_default();
    manager.set_metadata(metadata);

    // The client registered for this server before, when it is the one
    // to use and its loopback port is free: its redirect URI is the same.
    let kept = store.load().await.or_else(refused_as_none)?;
    let uses_registration = asked.oauth.client_id.is_none()
        && !(asked.oauth.client_metadata_url.is_some() && takes_metadata_documents);
    let mut reused = None;
    let mut callback = None;
    if uses_registration
        && asked.oauth.callback_port.is_none()
        && let Some(r) = kept.as_ref().and_then(|k| k.registered.clone())
        && let Some(port) = url::Url::parse(&r.redirect_uri).ok().and_then(|u| u.port())
        && let Ok(bound) = Callback::bind(Some(port)).await
        && bound.redirect_uri() == r.redirect_uri
    {
        callback = Some(bound);
        reused = Some(r);
    }
    let callback = match callback {
        Some(c) => c,
        None => Callback::bind(asked.oauth.callback_port).await?,
    };
    let redirect = callback.redirect_uri();
    let mut request = AuthorizationRequest::new(redirect.clone()).with_client_name(CLIENT_NAME);
    if let Some(c) = &challenge {
        request = request.with_challenge(c.clone());
    }
    // The scopes of the challenge (a step-up's above all), else those
    // the servers file asks, else the SDK's choice from the metadata.
    let base = url::Url::parse(asked.url).map_err(|e| LoginError::Discovery(e.to_string()))?;
    let challenge_scope = challenge
        .as_deref()
        .and_then(|c| WWWAuthenticateParams::parse(c, &base).scope)
        .filter(|s| !s.trim().is_empty());
    if challenge_scope.is_none() && !asked.oauth.scopes.is_empty() {
        request = request.with_scopes(asked.oauth.scopes.iter().cloned());
    }
    // The client: one registered beforehand, else a metadata document
    // where the server takes them, else a registration (ours, so its
    // secret is kept for refreshing).
    let mut secret = asked.oauth.client_secret.clone();
    if let Some(id) = &asked.oauth.client_id {
        request = request.with_preregistered_client(id.clone());
        if let Some(s) = &secret {
            request = request.with_client_secret(s.clone());
        }
    } else if let Some(doc) = asked
        .oauth
        .client_metadata_url
        .as_ref()
        .filter(|_| takes_metadata_documents)
    {
        request = request.with_client_metadata_url(doc.clone());
    } else if let Some(r) = &reused {
        secret = r.client_secret.clone();
        request = request.with_preregistered_client(r.client_id.clone());
        if let Some(s) = &secret {
            request = request.with_client_secret(s.clone());
        }
    } else if can_register {
        let scopes = if asked.oauth.scopes.is_empty() || challenge_scope.is_some() {
            manager.select_scopes(challenge_scope.as_deref(), &[])
        } else {
            asked.oauth.scopes.clone()
        };
        // Registered once for every scope the server offers, so a later
        // login for more scopes (a step-up) uses the same client.
        let mut scopes = scopes;
        for s in supported {
            if !scopes.contains(&s) {
                scopes.push(s);
            }
        }
        let refs: Vec<&str> = scopes.iter().map(String::as_str).collect();
        let registered: OAuthClientConfig = manager
            .register_client(CLIENT_NAME, &redirect, &refs)
            .await
            .map_err(|e| LoginError::Registration(plain(&e.to_string())))?;
        secret = registered.client_secret.clone();
        request = request.with_preregistered_client(registered.client_id.clone());
        if let Some(s) = &secret {
            request = request.with_client_secret(s.clone());
        }
        // Kept at once, so every later login (this one's answer or not)
        // uses this client rather than registering another.
        let mut record = kept.clone().unwrap_or_default();
        record.url = asked.url.to_string();
        record.registered = Some(Registered {
            client_id: registered.client_id.clone(),
            client_secret: registered.client_secret.clone(),
            redirect_uri: redirect.clone(),
        });
        store
            .save(&record)
            .await
            .map_err(|e| LoginError::Store(e.to_string()))?;
    } else {
        return Err(LoginError::Registration(
            "its authorization server takes no registration and the servers file names no client: give the server's `oauth.client_id` (and `client_secret`, if it has one)".into(),
        ));
    }
    let session = AuthorizationSession::new(manager, request)
        .await
        .map_err(|(_, e)| LoginError::Registration(plain(&e.to_string())))?;
    let page = session.get_authorization_url().to_string();
    let state = state_of(&page)
        .ok_or_else(|| LoginError::Discovery("the authorization address has no state".into()))?;
    // The listener answers while the browser is started: a browser
    // command that waits for its page does not hold the answer up.
    let waiting = tokio::spawn(callback.wait(state, asked.limit));
    let opened = {
        let page = page.clone();
        tokio::task::spawn_blocking(move || show(&page))
            .await
            .unwrap_or(Shown::Printed)
    };
    (asked.shown)(&page, opened);
    let url = asked.url.to_string();
    let hold = asked.hold;
    let finish = async move {
        let _hold = hold;
        let answer = waiting
            .await
            .map_err(|e| LoginError::Callback(e.to_string()))??;
        session
            .handle_callback_with_issuer(&answer.code, &answer.csrf_token, answer.issuer.as_deref())
            .await
            .map_err(|e| LoginError::Exchange(plain(&e.to_string())))?;
        // The secret beside the tokens, for refreshing in a later run.
        let mut record = store
            .load()
            .await
            .or_else(refused_as_none)?
            .unwrap_or_default();
        record.url = url;
        record.client_secret = secret;
        let kept_in = store
            .save(&record)
            .await
            .map_err(|e| LoginError::Store(e.to_string()))?;
        Ok(LoggedIn {
            manager: session.auth_manager,
            kept_in,
        })
    };
    if opened == Shown::Printed && !asked.wait_unopened {
        // Nobody may be there to open it: the login goes on without the
        // caller, who says where the page is.
        tokio::spawn(finish);
        return Err(LoginError::NotOpened(page));
    }
    finish.await
}

/// A kept login file that is refused (not the user's own) is none: the
/// new one replaces it. A refused folder (nothing is written there) and
/// any other failure end the login, before anything is registered.
fn refused_as_none<T>(e: StoreError) -> Result<Option<T>, LoginError> {
    match e {
        StoreError::Refused { path, .. } if !path.is_dir() => Ok(None),
        other => Err(LoginError::Store(other.to_string())),
    }
}

/// The HTTP client of a server reached by url: it sends the kept token
/// (refreshed before it expires, and once more when the server refuses
/// it), or none, so the server's challenge says a login is needed.
pub async fn authorized_client(
    server: &str,
    url: &str,
) -> Result<AuthClient<reqwest::Client>, LoginError> {
    let store = TokenStore::new(server, url);
    let http = crate::http::client::builder()
        .build()
        .map_err(|e| LoginError::Client(e.to_string()))?;
    let mut manager = AuthorizationManager::new_allowing_private_addresses(url)
        .await
        .map_err(|e| LoginError::Discovery(plain(&e.to_string())))?;
    manager.set_credential_store(store.clone());
    if let Ok(Some(record)) = store.load().await
        && let Some(id) = record.credentials.as_ref().map(|c| c.client_id.clone())
        && matches!(manager.initialize_from_store().await, Ok(true))
        && let Some(secret) = record
            .client_secret
            .or_else(|| record.registered.and_then(|r| r.client_secret))
    {
        let _ = manager.configure_client(OAuthClientConfig::new(id, url).with_client_secret(secret));
    }
    Ok(AuthClient::new(http, manager))
}
