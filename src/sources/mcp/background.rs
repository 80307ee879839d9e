//! Servers started without blocking (the gateway's start): every server
//! starts in the background; the start waits a moment for the quick ones,
//! and each server that comes up later joins as a change (the same path as
//! its `list_changed`). A server that fails to start is tried again with a
//! growing pause (1 s, 2 s, 4 s ... at most a minute) for as long as the
//! host lives.

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::McpHost;
use super::config::{McpConfig, McpServer};
use super::connect::{Connected, Failure, connect_and_list};
use super::host::{Entry, Shared};
use super::reaper::kill_group;
use super::status::{Gathered, ServerStatus};
use crate::lock::lock;

/// The longest pause between two tries of a server that failed to start.
pub const MAX_RETRY_PAUSE: Duration = Duration::from_secs(60);

impl McpHost {
    /// Starts every server of `config` in the background and gathers the
    /// tools of those that listed them within `wait` (all of them, if they
    /// are quicker); the others join later, each announced as a change
    /// ([`McpHost::watch_changes`]). Never waits longer than `wait`.
    pub fn gather_within(&self, config: &McpConfig, wait: Duration) -> Gathered {
        *lock(&self.shared.always_load) = config.always_load.clone();
        *lock(&self.shared.start_timeout) = config.timeout;
        *lock(&self.shared.begun) = Some(Instant::now());
        *lock(&self.shared.entries) = config
            .servers
            .iter()
            .map(|server| Entry::starting(server.clone(), 0))
            .collect();
        let (done_tx, done_rx) = std::sync::mpsc::channel::<()>();
        for server in config.servers.clone() {
            let shared = self.shared.clone();
            let done = done_tx.clone();
            let limit = config.timeout;
            self.handle().spawn(async move {
                keep_starting(shared, server, 0, limit, done).await;
            });
        }
        drop(done_tx);
        let deadline = Instant::now() + wait;
        for _ in 0..config.servers.len() {
            let left = deadline.saturating_duration_since(Instant::now());
            if done_rx.recv_timeout(left).is_err() {
                break;
            }
        }
        // From now on a server that comes up is a change to follow.
        *lock(&self.shared.started) = true;
        self.rebuild()
    }

    /// The servers still in their first start (not tried again after a
    /// failure), and when their start time limit runs out.
    pub fn first_starts(&self) -> (Vec<String>, Option<Instant>) {
        let names: Vec<String> = lock(&self.shared.entries)
            .iter()
            .filter(|e| e.starting && e.failed.is_none() && !e.loaded)
            .map(|e| e.server.name.clone())
            .collect();
        let deadline = lock(&self.shared.begun).map(|b| b + *lock(&self.shared.start_timeout));
        (names, deadline)
    }

    /// Each server's state as of now (starting, loaded, failed), without
    /// building a catalog.
    pub fn states(&self) -> Vec<ServerStatus> {
        let crowded = lock(&self.shared.crowded).clone();
        lock(&self.shared.entries)
            .iter()
            .map(|e| {
                let mut status = e.status();
                // Listed, but left out of the catalog for room.
                if let (true, Some(why)) = (e.loaded, crowded.get(&e.server.name)) {
                    status.state = super::ServerState::Failed {
                        why: why.clone(),
                        stderr_tail: String::new(),
                    };
                }
                status
            })
            .collect()
    }
}

/// Starts `server` until it lists its tools: its first try says `done`;
/// each later success is announced as a change. It stops when the servers
/// file takes this `generation` of the server out. A server that needs a
/// login waits for one, then starts again at once; one that failed is
/// tried again after a pause that doubles, at most [`MAX_RETRY_PAUSE`].
pub(super) async fn keep_starting(
    shared: Arc<Shared>,
    server: McpServer,
    generation: u64,
    limit: Duration,
    done: std::sync::mpsc::Sender<()>,
) {
    let mut pause = Duration::from_secs(1);
    let mut first = true;
    loop {
        if !is_current(&shared, &server, generation) {
            return;
        }
        // A per-user server is listed with a key's own login when no
        // shared one is kept.
        let listing = super::key_logins::listing_config(&shared, &server).await;
        let outcome = connect_and_list(&listing, limit, shared.listener(&server.name)).await;
        let tried = take_try(&shared, &server, generation, outcome);
        if matches!(tried, Tried::Gone) {
            return;
        }
        if first {
            let _ = done.send(());
            first = false;
        }
        match tried {
            Tried::Gone => return,
            Tried::Listed => {
                if *lock(&shared.started) {
                    shared.notify_changed(&server.name);
                }
                return;
            }
            Tried::Login(challenge, before) => {
                if *lock(&shared.started) {
                    shared.notify_changed(&server.name);
                }
                super::logins::wait_for_login(shared.clone(), &server, generation, challenge, before)
                    .await;
                pause = Duration::from_secs(1);
            }
            Tried::Failed => {
                tokio::time::sleep(pause).await;
                pause = (pause * 2).min(MAX_RETRY_PAUSE);
                set_entry(&shared, &server.name, |e| e.starting = true);
            }
        }
    }
}

/// Whether this `generation` of `server` is still in the servers file.
fn is_current(shared: &Shared, server: &McpServer, generation: u64) -> bool {
    lock(&shared.entries)
        .iter()
        .any(|e| e.server == *server && e.generation == generation)
}

/// Changes the entry of server `name`, if it is still there.
fn set_entry(shared: &Shared, name: &str, change: impl FnOnce(&mut Entry)) {
    if let Some(e) = lock(&shared.entries)
        .iter_mut()
        .find(|e| e.server.name == name)
    {
        change(e);
    }
}

/// What one try to start a server came to.
enum Tried {
    /// It started after the servers file took it out: stopped.
    Gone,
    /// Its connection and tools are the host's.
    Listed,
    /// It needs a login (its challenge, and what became of the kept one).
    Login(String, super::login::Before),
    Failed,
}

/// Takes one try's outcome into the host: a connection adopted with its
/// tools and what the server says of itself; a login needed marked as the
/// server's state (said at once: the start goes on once one is kept); a
/// failure kept with its stderr's tail, its processes killed. A warning
/// about its kept login goes to the logins.
fn take_try(
    shared: &Shared,
    server: &McpServer,
    generation: u64,
    outcome: Result<Connected, Failure>,
) -> Tried {
    match outcome {
        Ok(connected) if !is_current(shared, server, generation) => {
            // The servers file changed while it started.
            drop(connected.client);
            if let Some(pgid) = connected.pgid {
                kill_group(pgid);
            }
            Tried::Gone
        }
        Ok(connected) => {
            let about = super::listed::about(connected.client.peer_info().as_deref());
            shared.adopt_arc(
                &server.name,
                Arc::new(connected.client),
                connected.tools,
                connected.skipped,
                connected.pgid,
            );
            set_entry(shared, &server.name, |e| {
                e.about = about;
                e.starting = false;
            });
            Tried::Listed
        }
        Err(failure) => {
            if let Some(warning) = &failure.warning {
                shared.logins.warn(&server.name, warning);
            }
            if let Some(challenge) = failure.login {
                super::logins::mark_waiting(shared, &server.name, &challenge, &failure.before);
                return Tried::Login(challenge, failure.before);
            }
            if let Some(pgid) = failure.pgid {
                kill_group(pgid);
            }
            set_entry(shared, &server.name, |e| {
                e.failed = Some(super::status::with_tail(&failure.why, &failure.stderr_tail));
                e.starting = false;
            });
            Tried::Failed
        }
    }
}
