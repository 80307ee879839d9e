//! Live connections to MCP servers: gathering their tools in parallel,
//! listing them again when a server says they changed, and the catalog they
//! make. Calls are in `calls.rs`.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender, unbounded_channel};

use super::connect::{Client, Connected, Failure, connect_and_list};
use super::listed::build_catalog;
use super::listener::Listener;
use super::reaper::kill_group;
use super::{Gathered, McpConfig, McpServer, RelistError, ServerState, ServerStatus};
use crate::lock::lock;

/// One configured server and what it last listed.
pub(super) struct Entry {
    pub(super) server: McpServer,
    pub(super) listed: Vec<rmcp::model::Tool>,
    /// The tools it listed that could not be read (sentences).
    pub(super) skipped: Vec<String>,
    /// What the server says of itself (serverInfo, instructions).
    pub(super) about: Option<Arc<str>>,
    pub(super) loaded: bool,
    /// Why it did not start, when it did not.
    pub(super) failed: Option<String>,
    /// Restarts since its last call that reached it.
    pub(super) restarts_in_a_row: u32,
    pub(super) last_restart: Option<Instant>,
    /// Being started in the background ([`McpHost::gather_within`]).
    pub(super) starting: bool,
    /// It answered with an OAuth challenge: what is being done about it.
    pub(super) waiting_for_login: Option<super::login::Waiting>,
    /// Which configuration of the server this is: a server the servers
    /// file changed is a new generation, and the old one's start stops.
    pub(super) generation: u64,
}

impl Entry {
    /// A server's entry as its start begins: nothing listed yet.
    pub(super) fn starting(server: McpServer, generation: u64) -> Entry {
        Entry {
            server,
            listed: Vec::new(),
            skipped: Vec::new(),
            about: None,
            loaded: false,
            failed: None,
            restarts_in_a_row: 0,
            last_restart: None,
            starting: true,
            waiting_for_login: None,
            generation,
        }
    }

    /// The server's state from its entry.
    pub(super) fn status(&self) -> ServerStatus {
        let e = self;
        ServerStatus {
            name: e.server.name.clone(),
            state: if let Some(how) = &e.waiting_for_login {
                ServerState::WaitingForLogin {
                    how: how.how.clone(),
                }
            } else if e.loaded {
                ServerState::Loaded {
                    tools: e.listed.len(),
                    prefixed: 0,
                    hidden_text: Vec::new(),
                    skipped: Vec::new(),
                }
            } else if e.starting {
                ServerState::Starting {
                    failed_before: e.failed.clone(),
                }
            } else {
                ServerState::Failed {
                    why: e
                        .failed
                        .clone()
                        .unwrap_or_else(|| "it did not start".into()),
                    stderr_tail: String::new(),
                }
            },
        }
    }
}

/// What the host's tasks share.
pub(super) struct Shared {
    pub(super) clients: Mutex<HashMap<String, Arc<Client>>>,
    pub(super) entries: Mutex<Vec<Entry>>,
    pub(super) always_load: Mutex<Vec<String>>,
    /// The time a server gets to start and list its tools.
    pub(super) start_timeout: Mutex<Duration>,
    pub(super) groups: Mutex<Vec<i32>>,
    /// Each stdio server's process, to notice it exited before a call.
    pub(super) pids: Mutex<HashMap<String, i32>>,
    pub(super) call_timeout: Duration,
    pub(super) changes: Mutex<Option<UnboundedSender<String>>>,
    /// The hosts subscribed to each resource (the gateway's sessions).
    pub(super) subscribers: super::relay::Subscribers,
    /// The start is over: a server that comes up now is a change.
    pub(super) started: Mutex<bool>,
    /// When the background start began.
    pub(super) begun: Mutex<Option<Instant>>,
    /// The catalog name each server's tool was given (it never changes).
    pub(super) given: Mutex<HashMap<(String, String), String>>,
    /// The last [`Entry::generation`] handed out.
    pub(super) generations: std::sync::atomic::AtomicU64,
    /// How many calls each server runs at once, and the queue for more.
    pub(super) admission: super::admission::Admission,
    /// Logins: whether one starts when a server needs it, and who is told.
    pub(super) logins: super::login::Logins,
    /// Each key's own connection to a server of `"isolation": "per-key"`.
    pub(super) tenants: super::tenants::Tenants,
    /// The gateway's named keys and their own logins (`"login":
    /// "per-user"`).
    pub(super) key_names: super::key_names::KeyNames,
    /// The servers the last catalog left out for room, and why: their
    /// state says so (they stay connected, and join when there is room).
    pub(super) crowded: Mutex<HashMap<String, String>>,
}

impl Shared {
    pub(super) fn listener(&self, server: &str) -> Listener {
        Listener::new(server, lock(&self.changes).clone(), self.subscribers.clone())
    }

    pub(super) fn client(&self, server: &str) -> Option<Arc<Client>> {
        lock(&self.clients).get(server).cloned()
    }

    /// Keeps a new connection and its listing; says whether the listing
    /// differs from the one before.
    pub(super) fn adopt_arc(
        &self,
        name: &str,
        client: Arc<Client>,
        tools: Vec<rmcp::model::Tool>,
        skipped: Vec<String>,
        pgid: Option<i32>,
    ) -> bool {
        let mut entries = lock(&self.entries);
        let Some(e) = entries.iter_mut().find(|e| e.server.name == name) else {
            // Taken out of the servers file while it started.
            drop(client);
            if let Some(p) = pgid {
                kill_group(p);
            }
            return false;
        };
        if let Some(p) = pgid {
            lock(&self.groups).push(p);
            lock(&self.pids).insert(name.to_string(), p);
        }
        lock(&self.clients).insert(name.to_string(), client);
        let changed = e.listed != tools || !e.loaded || e.skipped != skipped;
        e.listed = tools;
        e.skipped = skipped;
        e.loaded = true;
        e.failed = None;
        e.waiting_for_login = None;
        changed
    }

    pub(super) fn notify_changed(&self, server: &str) {
        if let Some(tx) = lock(&self.changes).as_ref() {
            let _ = tx.send(server.to_string());
        }
    }
}

/// Live connections to MCP servers, on a runtime of their own (so any
/// thread, inside another runtime or not, can use them).
pub struct McpHost {
    runtime: Option<tokio::runtime::Runtime>,
    pub(super) shared: Arc<Shared>,
}

impl std::fmt::Debug for McpHost {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let servers: Vec<String> = lock(&self.shared.clients).keys().cloned().collect();
        f.debug_struct("McpHost")
            .field("servers", &servers)
            .finish()
    }
}

impl McpHost {
    /// A host with its own runtime; `call_timeout` bounds each tool call.
    pub fn new(call_timeout: Duration) -> std::io::Result<McpHost> {
        crate::http::client::install_tls();
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("toolsift-mcp")
            .enable_all()
            .build()?;
        Ok(McpHost {
            runtime: Some(runtime),
            shared: Arc::new(Shared {
                clients: Mutex::new(HashMap::new()),
                entries: Mutex::new(Vec::new()),
                always_load: Mutex::new(Vec::new()),
                start_timeout: Mutex::new(super::config::DEFAULT_TIMEOUT),
                groups: Mutex::new(Vec::new()),
                pids: Mutex::new(HashMap::new()),
                call_timeout,
                changes: Mutex::new(None),
                subscribers: Default::default(),
                admission: Default::default(),
                logins: Default::default(),
                tenants: Default::default(),
                key_names: Default::default(),
                started: Mutex::new(false),
                begun: Mutex::new(None),
                given: Mutex::new(HashMap::new()),
                generations: std::sync::atomic::AtomicU64::new(0),
                crowded: Mutex::new(HashMap::new()),
            }),
        })
    }

    pub(super) fn handle(&self) -> &tokio::runtime::Handle {
        // The runtime is only taken in drop.
        self.runtime
            .as_ref()
            .map(|r| r.handle())
            .expect("runtime present until drop")
    }

    /// Runs `fut` on the host's runtime and waits for it from any thread.
    pub(super) fn wait<T: Send + 'static>(
        &self,
        fut: impl std::future::Future<Output = T> + Send + 'static,
    ) -> Option<T> {
        let (tx, rx) = std::sync::mpsc::channel();
        self.handle().spawn(async move {
            let _ = tx.send(fut.await);
        });
        rx.recv().ok()
    }

    /// Runs `fut` on the host's runtime and awaits it from another one.
    pub(super) async fn run<T: Send + 'static>(
        &self,
        fut: impl std::future::Future<Output = T> + Send + 'static,
    ) -> Option<T> {
        self.handle().spawn(fut).await.ok()
    }

    /// [`McpHost::run`], and dropping the wait drops `fut` too (a call
    /// given up is cancelled on its server).
    pub(super) async fn run_abortable<T: Send + 'static>(
        &self,
        fut: impl std::future::Future<Output = T> + Send + 'static,
    ) -> Option<T> {
        struct AbortOnDrop<T>(tokio::task::JoinHandle<T>);
        impl<T> Drop for AbortOnDrop<T> {
            fn drop(&mut self) {
                self.0.abort();
            }
        }
        let mut task = AbortOnDrop(self.handle().spawn(fut));
        (&mut task.0).await.ok()
    }

    /// The names of the servers whose tool lists changed, as they say so
    /// (`notifications/tools/list_changed`) or as a restart finds. Call
    /// before [`McpHost::gather`]; a second call replaces the first.
    pub fn watch_changes(&self) -> UnboundedReceiver<String> {
        let (tx, rx) = unbounded_channel();
        *lock(&self.shared.changes) = Some(tx);
        rx
    }

    /// Starts or connects to every server of `config` in parallel, each
    /// within the config's time limit, and gathers their tools.
    pub fn gather(&self, config: &McpConfig) -> Gathered {
        let timeout = config.timeout;
        let servers = config.servers.clone();
        let shared = self.shared.clone();
        let results = self
            .wait(async move {
                let tasks = servers.into_iter().map(|server| {
                    let listener = shared.listener(&server.name);
                    async move {
                        let outcome = connect_and_list(&server, timeout, listener).await;
                        (server, outcome)
                    }
                });
                futures_util::future::join_all(tasks).await
            })
            .unwrap_or_default();
        *lock(&self.shared.always_load) = config.always_load.clone();
        *lock(&self.shared.start_timeout) = timeout;
        let (statuses, entries) = results
            .into_iter()
            .map(|(server, outcome)| match outcome {
                Ok(connected) => self.adopt_first(server, connected),
                Err(failure) => self.first_failed(server, failure),
            })
            .unzip();
        *lock(&self.shared.entries) = entries;
        self.catalog_with(statuses)
    }

    /// A server that listed its tools on its first start: its connection
    /// and process group kept, its state and entry loaded.
    fn adopt_first(&self, server: McpServer, connected: Connected) -> (ServerStatus, Entry) {
        if let Some(pgid) = connected.pgid {
            lock(&self.shared.groups).push(pgid);
            lock(&self.shared.pids).insert(server.name.clone(), pgid);
        }
        let about = super::listed::about(connected.client.peer_info().as_deref());
        lock(&self.shared.clients).insert(server.name.clone(), Arc::new(connected.client));
        let status = ServerStatus {
            name: server.name.clone(),
            state: ServerState::Loaded {
                tools: connected.tools.len(),
                prefixed: 0,
                hidden_text: Vec::new(),
                skipped: Vec::new(),
            },
        };
        let entry = Entry {
            listed: connected.tools,
            skipped: connected.skipped,
            about,
            loaded: true,
            starting: false,
            ..Entry::starting(server, 0)
        };
        (status, entry)
    }

    /// A server whose first start failed: its processes killed, its state
    /// waiting for a login when it asked for one, else failed with why and
    /// its stderr's tail; a warning about its kept login to the logins.
    fn first_failed(&self, server: McpServer, failure: Failure) -> (ServerStatus, Entry) {
        if let Some(pgid) = failure.pgid {
            kill_group(pgid);
        }
        let failed = Some(super::status::with_tail(&failure.why, &failure.stderr_tail));
        if let Some(warning) = &failure.warning {
            self.shared.logins.warn(&server.name, warning);
        }
        let command = self.shared.logins.command_for(&server.name);
        let before = failure.before.clone();
        let waiting = failure
            .login
            .map(|c| super::login::Waiting::new(&command, c, &before));
        let status = ServerStatus {
            name: server.name.clone(),
            state: match &waiting {
                Some(w) => ServerState::WaitingForLogin { how: w.how.clone() },
                None => ServerState::Failed {
                    why: failure.why,
                    stderr_tail: failure.stderr_tail,
                },
            },
        };
        let entry = Entry {
            failed,
            starting: false,
            waiting_for_login: waiting,
            ..Entry::starting(server, 0)
        };
        (status, entry)
    }

    /// The catalog of what the servers listed last (after a change), with
    /// each server's state.
    pub fn rebuild(&self) -> Gathered {
        let statuses = lock(&self.shared.entries)
            .iter()
            .map(Entry::status)
            .collect();
        self.catalog_with(statuses)
    }

    fn catalog_with(&self, mut statuses: Vec<ServerStatus>) -> Gathered {
        let listed: Vec<super::listed::Listed> = lock(&self.shared.entries)
            .iter()
            .filter(|e| e.loaded)
            .map(|e| super::listed::Listed {
                server: e.server.clone(),
                tools: e.listed.clone(),
                skipped: e.skipped.clone(),
                about: e.about.clone(),
            })
            .collect();
        let always = lock(&self.shared.always_load).clone();
        let (catalog, failed, crowded) = build_catalog(
            listed,
            &always,
            &mut statuses,
            &mut lock(&self.shared.given),
        );
        *lock(&self.shared.crowded) = crowded;
        for server in failed {
            self.disconnect(&server);
        }
        Gathered {
            catalog,
            servers: statuses,
        }
    }

    /// Lists `server`'s tools again (after it said they changed); returns
    /// whether the list differs.
    pub async fn relist(&self, server: &str) -> Result<bool, RelistError> {
        let Some(client) = self.shared.client(server) else {
            // Still starting (its start lists its tools), or taken out of
            // the servers file: nothing to list again.
            let known = lock(&self.shared.entries)
                .iter()
                .any(|e| e.server.name == server && e.loaded);
            return if known {
                Err(RelistError::NotConnected(server.to_string()))
            } else {
                Ok(false)
            };
        };
        let limit = *lock(&self.shared.start_timeout);
        let listing =
            self.run(async move {
                tokio::time::timeout(limit, super::lenient::list_tools(&client)).await
            })
            .await
            .ok_or(RelistError::TaskEnded)?
            .map_err(|_| RelistError::Slow {
                secs: limit.as_secs_f64(),
            })?
            .map_err(|e| RelistError::Refused(super::sdk_text::plain(&e.to_string())))?;
        let tools = listing.tools;
        let mut entries = lock(&self.shared.entries);
        let entry = entries
            .iter_mut()
            .find(|e| e.server.name == server)
            .ok_or_else(|| RelistError::Gone(server.to_string()))?;
        let changed = entry.listed != tools || entry.skipped != listing.skipped;
        entry.listed = tools;
        entry.skipped = listing.skipped;
        Ok(changed)
    }

    /// Every tool as its server last listed it, by (server, the server's
    /// name for the tool).
    pub fn listed_by_origin(&self) -> HashMap<(String, String), rmcp::model::Tool> {
        let entries = lock(&self.shared.entries);
        let mut out = HashMap::new();
        for e in entries.iter().filter(|e| e.loaded) {
            for t in &e.listed {
                out.insert((e.server.name.clone(), t.name.to_string()), t.clone());
            }
        }
        out
    }

    /// Closes the connection to `server` (its process is killed), and
    /// each key's own.
    pub fn disconnect(&self, server: &str) {
        lock(&self.shared.clients).remove(server);
        self.shared.tenants.stop_all(server);
    }
}

impl Drop for McpHost {
    fn drop(&mut self) {
        lock(&self.shared.clients).clear();
        self.shared.tenants.clear();
        for pgid in std::mem::take(&mut *lock(&self.shared.groups)) {
            kill_group(pgid);
        }
        if let Some(rt) = self.runtime.take() {
            rt.shutdown_background();
        }
    }
}
