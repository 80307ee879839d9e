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
    /// The gateway key whose own login this is (`toolsift login --as
    /// KEY`); none: the server's one login.
    pub as_key: Option<&'a str>,
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
    let Asked {
        server,
        url,
        as_key,
        headers,
        oauth,
        challenge,
        limit,
        shown,
        wait_unopened,
        hold,
    } = asked;
    let asked = Target {
        server,
        url,
        headers,
        oauth,
    };
    let store = TokenStore::for_key(asked.server, asked.url, as_key);
    let (mut manager, found) = discover(&asked, challenge, &store).await?;
    // The client registered for this server before, when it is the one
    // to use and its loopback port is free: its redirect URI is the same.
    let kept = store.load().await.or_else(refused_as_none)?;
    let uses_registration = asked.oauth.client_id.is_none()
        && !(asked.oauth.client_metadata_url.is_some() && found.takes_metadata_documents);
    let (callback, reused) = loopback(&asked, kept.as_ref(), uses_registration).await?;
    let redirect = callback.redirect_uri();
    let making = Making {
        asked: &asked,
        store: &store,
        found: &found,
        redirect: &redirect,
    };
    let (request, secret) = making.request(&mut manager, reused, kept).await?;
    let session = AuthorizationSession::new(manager, request)
        .await
        .map_err(|(_, e)| LoginError::Registration(plain(&e.to_string())))?;
    let waits = Waits {
        limit,
        shown,
        wait_unopened,
        hold,
    };
    open_and_finish(url, waits, session, callback, store, secret).await
}

/// The server logged in to, as the login's steps need it.
struct Target<'a> {
    server: &'a str,
    url: &'a str,
    headers: &'a BTreeMap<String, String>,
    oauth: &'a OAuthSettings,
}

/// How the browser's answer is waited for (see [`Asked`]).
struct Waits<'a> {
    limit: Duration,
    shown: &'a (dyn Fn(&str, Shown) + Send + Sync),
    wait_unopened: bool,
    hold: Option<Box<dyn std::any::Any + Send>>,
}

/// What discovery found of the server's authorization server.
struct Discovered {
    /// The server's challenge (asked of it when the caller had none).
    challenge: Option<String>,
    /// It takes client ID metadata documents as client ids.
    takes_metadata_documents: bool,
    /// It registers clients.
    can_register: bool,
    /// The scopes its metadata lists.
    supported: Vec<String>,
}

/// Discovery: the server's challenge, its authorization server's metadata
/// (set on the manager, which keeps its tokens in `store`). An
/// authorization server whose login page is not https (or http on this
/// machine) is refused before anything is registered with it.
async fn discover(
    asked: &Target<'_>,
    challenge: Option<String>,
    store: &TokenStore,
) -> Result<(AuthorizationManager, Discovered), LoginError> {
    let challenge = match challenge {
        Some(c) => Some(c),
        None => challenge_of_server(asked.url, asked.headers).await?,
    };
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
    if let Some(why) = unsafe_page(&metadata.authorization_endpoint) {
        return Err(LoginError::UnsafePage {
            endpoint: metadata.authorization_endpoint.clone(),
            why: why.to_string(),
        });
    }
    let supported = metadata.scopes_supported.clone().unwrap_or_default();
    manager.set_metadata(metadata);
    let found = Discovered {
        challenge,
        takes_metadata_documents,
        can_register,
        supported,
    };
    Ok((manager, found))
}

/// The loopback port the browser's answer comes to: the kept
/// registration's again when the login registers its client, the servers
/// file names no port and that port is free (the registration then
/// reused); else the servers file's port, else any free one.
async fn loopback(
    asked: &Target<'_>,
    kept: Option<&super::store::Record>,
    uses_registration: bool,
) -> Result<(Callback, Option<Registered>), LoginError> {
    if uses_registration
        && asked.oauth.callback_port.is_none()
        && let Some(r) = kept.and_then(|k| k.registered.clone())
        && let Some(port) = url::Url::parse(&r.redirect_uri).ok().and_then(|u| u.port())
        && let Ok(bound) = Callback::bind(Some(port)).await
        && bound.redirect_uri() == r.redirect_uri
    {
        return Ok((bound, Some(r)));
    }
    Ok((Callback::bind(asked.oauth.callback_port).await?, None))
}

/// What making the authorization request shares.
struct Making<'s, 'a> {
    asked: &'s Target<'a>,
    store: &'s TokenStore,
    found: &'s Discovered,
    redirect: &'s str,
}

impl Making<'_, '_> {
    /// The authorization request: the challenge, the scopes (the
    /// challenge's, a step-up's above all, else those the servers file
    /// asks, else the SDK's choice from the metadata), and the client: one
    /// registered beforehand, else a metadata document where the server
    /// takes them, else the registration kept, else a new one (ours, so
    /// its secret is kept for refreshing). Returns the client's secret
    /// too.
    async fn request(
        &self,
        manager: &mut AuthorizationManager,
        reused: Option<Registered>,
        kept: Option<super::store::Record>,
    ) -> Result<(AuthorizationRequest, Option<String>), LoginError> {
        let (asked, found) = (self.asked, self.found);
        let mut request =
            AuthorizationRequest::new(self.redirect.to_string()).with_client_name(CLIENT_NAME);
        if let Some(c) = &found.challenge {
            request = request.with_challenge(c.clone());
        }
        let base = url::Url::parse(asked.url).map_err(|e| LoginError::Discovery(e.to_string()))?;
        let challenge_scope = found
            .challenge
            .as_deref()
            .and_then(|c| WWWAuthenticateParams::parse(c, &base).scope)
            .filter(|s| !s.trim().is_empty());
        if challenge_scope.is_none() && !asked.oauth.scopes.is_empty() {
            request = request.with_scopes(asked.oauth.scopes.iter().cloned());
        }
        let mut secret = asked.oauth.client_secret.clone();
        let client_id = if let Some(id) = &asked.oauth.client_id {
            id.clone()
        } else if let Some(doc) = asked
            .oauth
            .client_metadata_url
            .as_ref()
            .filter(|_| found.takes_metadata_documents)
        {
            return Ok((request.with_client_metadata_url(doc.clone()), secret));
        } else if let Some(r) = reused {
            secret = r.client_secret;
            r.client_id
        } else if found.can_register {
            let registered = self.register(manager, challenge_scope, kept).await?;
            secret = registered.client_secret;
            registered.client_id
        } else {
            return Err(LoginError::Registration(
                "its authorization server takes no registration and the servers file names no client: give the server's `oauth.client_id` (and `client_secret`, if it has one)".into(),
            ));
        };
        request = request.with_preregistered_client(client_id);
        if let Some(s) = &secret {
            request = request.with_client_secret(s.clone());
        }
        Ok((request, secret))
    }

    /// Registers toolsift with the authorization server, once for every
    /// scope it offers (so a later login for more scopes, a step-up, uses
    /// the same client), and keeps the registration at once: every later
    /// login, this one's answer or not, uses this client rather than
    /// registering another.
    async fn register(
        &self,
        manager: &mut AuthorizationManager,
        challenge_scope: Option<String>,
        kept: Option<super::store::Record>,
    ) -> Result<OAuthClientConfig, LoginError> {
        let asked = self.asked;
        let mut scopes = if asked.oauth.scopes.is_empty() || challenge_scope.is_some() {
            manager.select_scopes(challenge_scope.as_deref(), &[])
        } else {
            asked.oauth.scopes.clone()
        };
        for s in &self.found.supported {
            if !scopes.contains(s) {
                scopes.push(s.clone());
            }
        }
        let refs: Vec<&str> = scopes.iter().map(String::as_str).collect();
        let registered: OAuthClientConfig = manager
            .register_client(CLIENT_NAME, self.redirect, &refs)
            .await
            .map_err(|e| LoginError::Registration(plain(&e.to_string())))?;
        let mut record = kept.unwrap_or_default();
        record.url = asked.url.to_string();
        record.registered = Some(Registered {
            client_id: registered.client_id.clone(),
            client_secret: registered.client_secret.clone(),
            redirect_uri: self.redirect.to_string(),
        });
        self.store.save(&record).await.map_err(LoginError::Store)?;
        Ok(registered)
    }
}

/// Opens the login page (the caller told its address and whether it
/// opened), waits for the browser's answer on the loopback port, trades
/// the code for tokens and keeps them with the client's secret. When no
/// browser opened the page and nobody waits for it, the login goes on in
/// the background and [`LoginError::NotOpened`] says where the page is.
async fn open_and_finish(
    url: &str,
    asked: Waits<'_>,
    session: AuthorizationSession,
    callback: Callback,
    store: TokenStore,
    secret: Option<String>,
) -> Result<LoggedIn, LoginError> {
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
    let url = url.to_string();
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
        let kept_in = store.save(&record).await.map_err(LoginError::Store)?;
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
        other => Err(LoginError::Store(other)),
    }
}

/// The HTTP client of a server reached by url: it sends the kept token
/// (refreshed before it expires, and once more when the server refuses
/// it), or none, so the server's challenge says a login is needed. With
/// `as_key`, that key's own login and no other.
pub async fn authorized_client(
    server: &str,
    url: &str,
    as_key: Option<&str>,
) -> Result<AuthClient<reqwest::Client>, LoginError> {
    let store = TokenStore::for_key(server, url, as_key);
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
