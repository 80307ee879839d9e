//! Servers that need a login, in the host: the state a server waits in
//! (named in the gateway's first view and search answers, the explorer's
//! servers pane, `check --gateway`), the login started the first time one
//! is needed (the page opened once per server), a login made elsewhere
//! (`toolsift login NAME`) noticed as its tokens are kept, and a call the
//! server refuses for want of a token or of scopes, logged in and sent
//! again (at most [`MAX_LOGINS_PER_CALL`] times). A server has one login
//! page at a time: a login needed while its page is open waits for that
//! one.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use super::host::Shared;

use super::login::{Asked, Before, LoginError, Shown, TokenStore, Turn};
use super::login::{LoginCommand, Notice, Waiting, Warn};
use super::{McpHost, McpServer, Transport};
use crate::lock::lock;

/// Logins a call may start before it gives up (a server that keeps asking
/// for more scopes is not followed round and round: one step-up a call).
pub const MAX_LOGINS_PER_CALL: u32 = 1;
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

    /// `warn` is told what the user should hear of a server's login (a
    /// kept login refused, a login page refused), once for the same words.
    pub fn warn_of_logins(&self, warn: Warn) {
        *lock(&self.shared.logins.warn) = Some(warn);
    }

    /// The hints name `command` (of a server's name) as the way to log
    /// in: `toolsift login NAME` with the servers file the host read.
    pub fn log_in_with(&self, command: LoginCommand) {
        *lock(&self.shared.logins.command) = Some(command);
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
    let config = super::key_logins::listing_config(shared, &config).await;
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
/// While the server's login page is open (another call's, the start's),
/// this waits for that login instead of opening a second page; a page no
/// browser opened is said again at once when `wait_unopened` is off.
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
    let page = shared.logins.page(server);
    let before = stamp(shared, &config).await;
    let held = match page.turn.clone().try_lock_owned() {
        Ok(held) => held,
        Err(_) => {
            let printed = lock(&page.printed).clone();
            if let (Some(printed), false) = (printed, wait_unopened) {
                return Err(LoginError::NotOpened(printed));
            }
            let Ok(held) = tokio::time::timeout(limit, page.turn.clone().lock_owned()).await
            else {
                return Err(LoginError::TimedOut(limit.as_secs()));
            };
            if stamp(shared, &config).await != before {
                // The login waited for is kept: this one is made.
                return Ok(TokenStore::new(server, url).kept_where());
            }
            held
        }
    };
    let turn = Turn::new(held, page.clone());
    let challenge = challenge.or_else(|| {
        lock(&shared.entries)
            .iter()
            .find(|e| e.server.name == server)
            .and_then(|e| e.waiting_for_login.as_ref().map(|w| w.challenge.clone()))
    });
    let notice = lock(&shared.logins.notice).clone();
    let shown = move |url: &str, how: Shown| {
        if how == Shown::Printed {
            *lock(&page.printed) = Some(url.to_string());
        }
        if let Some(n) = &notice {
            n(server, url, how);
        }
    };
    let logged = super::login::log_in(Asked {
        server,
        url,
        as_key: None,
        headers,
        oauth,
        challenge,
        limit,
        shown: &shown,
        wait_unopened,
        hold: Some(Box::new(turn)),
    })
    .await;
    match logged {
        Ok(logged) => Ok(logged.kept_in),
        Err(e) => {
            if matches!(e, LoginError::UnsafePage { .. }) {
                shared.logins.warn(server, &e.to_string());
            }
            Err(e)
        }
    }
}

/// `server` waits for a login, with `challenge`; `before` says what
/// became of the login kept for it.
pub(super) fn mark_waiting(shared: &Shared, server: &str, challenge: &str, before: &Before) {
    let command = shared.logins.command_for(server);
    if let Some(e) = lock(&shared.entries)
        .iter_mut()
        .find(|e| e.server.name == server)
    {
        if e.waiting_for_login.is_none() {
            e.waiting_for_login = Some(Waiting::new(&command, challenge.to_string(), before));
        }
        e.failed = None;
        e.starting = false;
    }
}

/// A call to `server`, which was up, was refused for want of a login
/// (its refresh refused, its client unknown): it waits for one in every
/// state shown, its tools kept for the call that logs in, until a login
/// is kept (here or by another process) or a call goes through.
pub(super) fn mark_call_waiting(shared: &Arc<Shared>, server: &str, challenge: Option<&str>, before: &Before) {
    let command = shared.logins.command_for(server);
    let config = {
        let mut entries = lock(&shared.entries);
        let Some(e) = entries.iter_mut().find(|e| e.server.name == server) else {
            return;
        };
        if e.waiting_for_login.is_none() {
            e.waiting_for_login = Some(Waiting::new(
                &command,
                challenge.unwrap_or_default().to_string(),
                before,
            ));
        }
        e.server.clone()
    };
    if !lock(&shared.logins.watched).insert(server.to_string()) {
        return;
    }
    let shared = shared.clone();
    tokio::spawn(async move {
        let first = stamp(&shared, &config).await;
        loop {
            tokio::time::sleep(LOOK_EVERY).await;
            let waiting = lock(&shared.entries)
                .iter()
                .find(|e| e.server == config)
                .map(|e| e.waiting_for_login.is_some());
            if waiting != Some(true) {
                break;
            }
            if stamp(&shared, &config).await != first {
                if let Some(e) = lock(&shared.entries)
                    .iter_mut()
                    .find(|e| e.server == config && e.loaded)
                {
                    e.waiting_for_login = None;
                }
                shared.notify_changed(&config.name);
                break;
            }
        }
        lock(&shared.logins.watched).remove(&config.name);
    });
}

/// A call to `server` went through: it waits for no login.
pub(super) fn mark_logged_in(shared: &Shared, server: &str) {
    if let Some(e) = lock(&shared.entries)
        .iter_mut()
        .find(|e| e.server.name == server && e.loaded)
    {
        e.waiting_for_login = None;
    }
}

/// When the logins `server` is listed with were last written (none: no
/// token): its shared one, and for a per-user server each key's own.
async fn stamp(shared: &Shared, server: &McpServer) -> Vec<Option<u64>> {
    super::key_logins::stamps(shared, server).await
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
    lost: Before,
) {
    let before = stamp(&shared, server).await;
    // A per-user server's page is no one key's to open: each logs in as
    // itself.
    let start_one = shared.logins.on_need.load(Ordering::SeqCst)
        && !super::key_logins::per_user(&shared, &server.name)
        && lock(&shared.logins.opened).insert(server.name.clone());
    let command = shared.logins.command_for(&server.name);
    // The state first: a login that fails at once says so over it. Under
    // TOOLSIFT_NO_BROWSER no page is opened, and it says so.
    if let Some(e) = lock(&shared.entries)
        .iter_mut()
        .find(|e| e.server.name == server.name)
    {
        e.waiting_for_login = Some(Waiting::with(
            &command,
            challenge.clone(),
            &lost,
            start_one.then(|| !super::login::no_browser()),
        ));
    }
    // The login started here ends when this wait does (a login kept by
    // another process, the server taken out): its page's turn is free.
    struct EndsWithTheWait(Option<tokio::task::JoinHandle<()>>);
    impl Drop for EndsWithTheWait {
        fn drop(&mut self) {
            if let Some(task) = &self.0 {
                task.abort();
            }
        }
    }
    let mut _started = EndsWithTheWait(None);
    if start_one {
        let shared = shared.clone();
        let name = server.name.clone();
        _started.0 = Some(tokio::spawn(async move {
            let outcome = log_in_to(&shared, &name, Some(challenge), LOGIN_WAIT, true).await;
            let Err(e) = outcome else { return };
            let command = shared.logins.command_for(&name);
            let mut entries = lock(&shared.entries);
            let Some(entry) = entries.iter_mut().find(|e| e.server.name == name) else {
                return;
            };
            if matches!(e, LoginError::UnsafePage { .. }) {
                // Refused: it cannot be logged in as it stands.
                entry.waiting_for_login = None;
                entry.failed = Some(format!("its login is refused: {e}"));
            } else if let Some(w) = entry.waiting_for_login.as_mut() {
                w.how = format!("the login did not complete: {e}; log in with `{command}`");
            }
        }));
    }
    loop {
        let current = lock(&shared.entries)
            .iter()
            .any(|e| &e.server == server && e.generation == generation);
        if !current {
            return;
        }
        if stamp(&shared, server).await != before {
            return;
        }
        tokio::time::sleep(LOOK_EVERY).await;
    }
}
/// A call refused for want of a login.
pub(super) struct Need {
    /// The server's challenge (none when its authorization server no
    /// longer knows the client: the login asks the server).
    pub(super) challenge: Option<String>,
    /// What became of the kept login.
    pub(super) before: Before,
    /// The call wants more scopes (a 403 `insufficient_scope`).
    pub(super) more_scopes: bool,
}

/// Whether a call's error is the server's need of a login.
pub(super) async fn login_need(
    shared: &Shared,
    server: &str,
    error: &rmcp::service::ServiceError,
) -> Option<Need> {
    let url = {
        let entries = lock(&shared.entries);
        match entries.iter().find(|e| e.server.name == server).map(|e| &e.server.transport) {
            Some(Transport::Http { url, .. }) => Some(url.clone()),
            _ => None,
        }
    };
    let store = url.map(|url| TokenStore::new(server, &url));
    if let Some((challenge, more_scopes)) = super::login::auth_challenge(error) {
        let kept = match &store {
            Some(store) => store.has_token().await,
            None => false,
        };
        let before = if kept { Before::Expired } else { Before::Nothing };
        return Some(Need {
            challenge: Some(challenge),
            before,
            more_scopes,
        });
    }
    if super::login::unknown_client(&super::login::whole_text(error)) {
        // The kept login's client is unknown: forgotten, so the login
        // registers a new one.
        if let Some(store) = &store {
            let _ = store.forget_client().await;
        }
        return Some(Need {
            challenge: None,
            before: Before::UnknownClient,
            more_scopes: false,
        });
    }
    None
}

