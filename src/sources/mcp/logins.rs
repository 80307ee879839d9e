//! Servers that need a login, in the host: the state a server waits in
//! (named in the gateway's first view and search answers, the explorer's
//! servers pane, `check --gateway`), the login started the first time one
//! is needed (the page opened once per server), a login made elsewhere
//! (`toolsift login NAME`) noticed as its tokens are kept, and a call the
//! server refuses for want of a token or of scopes, logged in and sent
//! again (at most [`MAX_LOGINS_PER_CALL`] times).

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use super::host::Shared;

use super::login::{Notice, Waiting};
use super::login::{Asked, LoginError, Shown, TokenStore};
use super::{McpHost, McpServer, Transport};
use crate::lock::lock;

/// Logins a call may start before it gives up (a server that keeps asking
/// for more scopes is not followed round and round).
pub const MAX_LOGINS_PER_CALL: u32 = 2;
/// How long a login waits for the browser's answer.
pub const LOGIN_WAIT: Duration = Duration::from_secs(300);
/// How often a server waiting for a login looks for a kept one.
const LOOK_EVERY: Duration = Duration::from_secs(1);

/// A login done from the explorer: where its tokens are kept, and the
/// servers' catalog and states with the server in.
#[derive(Debug, Clone)]
pub struct LoggedIn {
    pub kept_in: String,
    pub catalog: Option<crate::catalog::Catalog>,
    pub servers: Vec<super::ServerStatus>,
}

impl McpHost {
    /// Logs in to `server` (its page opened, its answer waited for), from
    /// any thread; connects to it again (its tools join as a change) and
    /// rebuilds the catalog.
    pub fn log_in_blocking(&self, server: &str) -> Result<LoggedIn, NotLoggedIn> {
        let shared = self.shared.clone();
        let name = server.to_string();
        let kept_in = self
            .wait(async move { log_in_and_connect(&shared, &name).await })
            .unwrap_or(Err(NotLoggedIn::TaskEnded))?;
        let gathered = self.rebuild();
        Ok(LoggedIn {
            kept_in,
            catalog: gathered.catalog,
            servers: gathered.servers,
        })
    }

    /// Logins start by themselves the first time a server needs one, and
    /// `notice` is told each login page's address.
    pub fn log_in_when_needed(&self, on_need: bool, notice: Notice) {
        self.shared.logins.on_need.store(on_need, Ordering::SeqCst);
        *lock(&self.shared.logins.notice) = Some(notice);
    }
}

/// Why a login from the explorer did not end with the server's tools.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NotLoggedIn {
    #[error(transparent)]
    Login(#[from] super::login::LoginError),
    #[error("the connection task ended")]
    TaskEnded,
    #[error("it is no longer configured")]
    NotConfigured,
    /// Where the login is kept, and why the connection failed.
    #[error("logged in (kept in {kept}), but {why}")]
    NotConnected { kept: String, why: String },
}

async fn log_in_and_connect(shared: &Arc<Shared>, name: &str) -> Result<String, NotLoggedIn> {
    let kept = log_in_to(shared, name, None, LOGIN_WAIT, true).await?;
    let config = entry_server(shared, name).ok_or(NotLoggedIn::NotConfigured)?;
    let limit = *lock(&shared.start_timeout);
    match super::connect::connect_and_list(&config, limit, shared.listener(name)).await {
        Ok(connected) => {
            if shared.adopt_arc(
                name,
                Arc::new(connected.client),
                connected.tools,
                connected.skipped,
                connected.pgid,
            ) {
                shared.notify_changed(name);
            }
            Ok(kept)
        }
        Err(f) => Err(NotLoggedIn::NotConnected {
            kept,
            why: f.why.to_string(),
        }),
    }
}

fn entry_server(shared: &Shared, server: &str) -> Option<McpServer> {
    lock(&shared.entries)
        .iter()
        .find(|e| e.server.name == server)
        .map(|e| e.server.clone())
}

/// One login to `server`, with `challenge` (else the one it waits with).
pub(super) async fn log_in_to(
    shared: &Shared,
    server: &str,
    challenge: Option<String>,
    limit: Duration,
    wait_unopened: bool,
) -> Result<String, LoginError> {
    let config = entry_server(shared, server).ok_or(LoginError::NotHttp)?;
    let Transport::Http { url, headers, oauth } = &config.transport else {
        return Err(LoginError::NotHttp);
    };
    let challenge = challenge.or_else(|| {
        lock(&shared.entries)
            .iter()
            .find(|e| e.server.name == server)
            .and_then(|e| e.waiting_for_login.as_ref().map(|w| w.challenge.clone()))
    });
    let notice = lock(&shared.logins.notice).clone();
    let shown = move |url: &str, how: Shown| {
        if let Some(n) = &notice {
            n(server, url, how);
        }
    };
    let logged = super::login::log_in(Asked {
        server,
        url,
        headers,
        oauth,
        challenge,
        limit,
        shown: &shown,
        wait_unopened,
    })
    .await?;
    Ok(logged.kept_in)
}

/// `server` waits for a login, with `challenge`.
pub(super) fn mark_waiting(shared: &Shared, server: &str, challenge: &str, had_login: bool) {
    if let Some(e) = lock(&shared.entries)
        .iter_mut()
        .find(|e| e.server.name == server)
    {
        if e.waiting_for_login.is_none() {
            e.waiting_for_login = Some(Waiting::new(server, challenge.to_string(), had_login));
        }
        e.failed = None;
        e.starting = false;
    }
}

/// When the kept login of `server` was last written (none: no token).
async fn stamp(server: &McpServer) -> Option<u64> {
    let Transport::Http { url, .. } = &server.transport else {
        return None;
    };
    TokenStore::new(&server.name, url).stamp().await
}

/// `server` answered with `challenge`: it waits for a login, started now
/// if logins start when needed and its page was not opened before, or
/// made elsewhere. Returns once a login is kept, to connect again; or
/// when the servers file takes this `generation` of it out.
pub(super) async fn wait_for_login(
    shared: Arc<Shared>,
    server: &McpServer,
    generation: u64,
    challenge: String,
    had_login: bool,
) {
    let before = stamp(server).await;
    let start_one = shared.logins.on_need.load(Ordering::SeqCst)
        && lock(&shared.logins.opened).insert(server.name.clone());
    // The state first: a login that fails at once says so over it.
    if let Some(e) = lock(&shared.entries)
        .iter_mut()
        .find(|e| e.server.name == server.name)
    {
        e.waiting_for_login = Some(Waiting::with(
            &server.name,
            challenge.clone(),
            had_login,
            start_one,
        ));
    }
    if start_one {
        let shared = shared.clone();
        let name = server.name.clone();
        tokio::spawn(async move {
            let outcome = log_in_to(&shared, &name, Some(challenge), LOGIN_WAIT, true).await;
            if let Err(e) = outcome
                && let Some(entry) = lock(&shared.entries)
                    .iter_mut()
                    .find(|e| e.server.name == name)
                && let Some(w) = entry.waiting_for_login.as_mut()
            {
                w.how = format!("the login did not complete: {e}; log in with `toolsift login {name}`");
            }
        });
    }
    loop {
        let current = lock(&shared.entries)
            .iter()
            .any(|e| &e.server == server && e.generation == generation);
        if !current {
            return;
        }
        if stamp(server).await != before {
            return;
        }
        tokio::time::sleep(LOOK_EVERY).await;
    }
}
