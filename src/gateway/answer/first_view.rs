//! The model's first view, right from the start: `search_tools`'
//! description and the instructions name every configured server (those
//! still starting, those down), a search made while servers are in their
//! first start waits for them (up to their start time limit), and a
//! changed description is announced with `notifications/tools/list_changed`
//! wherever the revision lets a server say so: on the handshake revisions
//! to the session, on 2026-07-28 on the host's `subscriptions/listen`
//! stream.

pub(crate) use super::describe::NotUp;
use std::time::{Duration, Instant};

use super::describe::search_description;
use super::meta::{CALL_READ_TOOL, CALL_TOOL, SEARCH_TOOLS};
use crate::gateway::Gateway;
use crate::sources::mcp::ServerState;
use crate::terminal_text::escape;

/// How often the servers' states are looked at for a changed description.
pub(crate) const STATES_EVERY: Duration = Duration::from_millis(250);
/// How often a search waiting for the servers' first start looks again.
const WAIT_STEP: Duration = Duration::from_millis(50);

impl Gateway {
    /// `search_tools`' description as of now.
    pub(crate) fn description(&self) -> String {
        self.description.borrow().clone()
    }

    /// Follows the description: each change, as it happens.
    pub(crate) fn description_changes(&self) -> tokio::sync::watch::Receiver<String> {
        self.description.subscribe()
    }

    /// The description again when the servers' states changed since it
    /// was made (the catalog walked only then); whether it changed.
    pub(crate) fn refresh_description(&self) -> bool {
        let states = self.servers_not_up();
        {
            let mut made_with = self
                .described_states
                .lock()
                .unwrap_or_else(|p| p.into_inner());
            if *made_with == states {
                return false;
            }
            made_with.clone_from(&states);
        }
        let fresh = search_description(&self.snapshot().catalog, &states);
        self.set_description(fresh)
    }

    /// `fresh` as the description in use (a new snapshot's, made with the
    /// states as of now); whether it changed.
    pub(crate) fn adopt_description(&self, fresh: String) -> bool {
        *self
            .described_states
            .lock()
            .unwrap_or_else(|p| p.into_inner()) = self.servers_not_up();
        self.set_description(fresh)
    }

    fn set_description(&self, fresh: String) -> bool {
        self.description.send_if_modified(|d| {
            if *d == fresh {
                return false;
            }
            *d = fresh;
            true
        })
    }

    /// The servers still starting (or being tried again) and those down,
    /// by name.
    pub(crate) fn servers_not_up(&self) -> NotUp {
        states_of(&self.host)
    }

    /// The instructions a host gets when it connects: what the gateway
    /// fronts, every server named.
    pub(crate) fn instructions(&self) -> String {
        self.instructions_for(&crate::gateway::Reach::default(), None)
    }

    /// The instructions for the key `key` of `reach`: the servers it
    /// reaches alone named, its tools counted, and the servers waiting for
    /// its own login saying so.
    pub(crate) fn instructions_for(
        &self,
        reach: &crate::gateway::Reach,
        key: Option<&str>,
    ) -> String {
        let states = self.host.states_for(key);
        let view = self.view(reach);
        // A key that reaches a part counts its own tools of each server.
        let own = |server: &str| {
            let of =
                |t: &&crate::catalog::Tool| t.mcp.as_ref().is_some_and(|m| *m.server == *server);
            view.catalog.tools().iter().filter(of).count()
        };
        let servers: Vec<String> = states
            .iter()
            .filter(|s| reach.is_everything() || reach.server(&s.name, &self.config.rules))
            .map(|s| {
                let name = escape(&s.name);
                match &s.state {
                    ServerState::Loaded { tools, .. } => {
                        let tools = if reach.is_everything() {
                            *tools
                        } else {
                            own(&s.name)
                        };
                        format!("{name} ({})", crate::numbers::counted(tools, "tool"))
                    }
                    ServerState::Starting { .. } => format!("{name} (starting)"),
                    ServerState::WaitingForLogin { how } => {
                        format!("{name} (waiting for login: {})", escape(how))
                    }
                    ServerState::Failed { .. } => format!("{name} (down, tried again)"),
                }
            })
            .collect();
        let tools = crate::numbers::counted(view.catalog.len(), "tool");
        let fronts = if servers.is_empty() {
            format!("This server fronts {tools}")
        } else {
            format!(
                "This server fronts {tools} from the MCP servers {}",
                servers.join(", ")
            )
        };
        format!(
            "{fronts}; only a few tools are listed. To do something no listed tool does, call {SEARCH_TOOLS} with the task in plain words, then {CALL_READ_TOOL} or {CALL_TOOL}, as each found tool says, with its name and arguments."
        )
    }

    /// Waits while servers are in their first start, up to their start
    /// time limit, then takes in what they listed. Returns at once when
    /// none is.
    pub(crate) async fn wait_for_first_starts(&self) {
        let mut waited = false;
        loop {
            let (starting, deadline) = self.host.first_starts();
            let over = deadline.is_some_and(|d| Instant::now() >= d);
            if starting.is_empty() || over {
                break;
            }
            if !waited {
                self.recorder.info(&format!(
                    "a search or a call waits for {} (starting)",
                    escape(&starting.join(", "))
                ));
                waited = true;
            }
            tokio::time::sleep(WAIT_STEP).await;
        }
        if waited {
            // What came up joins now, not when the change is followed.
            self.reindex();
        }
    }
}

/// The servers of `host` that are not up.
pub(crate) fn states_of(host: &crate::sources::mcp::McpHost) -> NotUp {
    let mut not_up = NotUp::default();
    for s in host.states() {
        match s.state {
            ServerState::Starting { .. } => not_up.starting.push(s.name),
            ServerState::Failed { .. } => not_up.down.push(s.name),
            ServerState::WaitingForLogin { how } => {
                not_up.login_how.push(format!("{}: {how}", s.name));
                not_up.login.push(s.name);
            }
            ServerState::Loaded { .. } => {}
        }
    }
    not_up
}

/// Sends `notifications/tools/list_changed` through `send` each time the
/// description or `own` (the session's found tools) changes, until `stop`
/// or a send fails.
pub(crate) async fn announce_changes<F, Fut>(
    mut description: tokio::sync::watch::Receiver<String>,
    mut own: tokio::sync::watch::Receiver<u64>,
    stop: impl std::future::Future<Output = ()>,
    send: F,
) where
    F: Fn() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    description.mark_unchanged();
    own.mark_unchanged();
    tokio::pin!(stop);
    loop {
        tokio::select! {
            () = &mut stop => return,
            changed = description.changed() => if changed.is_err() { return },
            changed = own.changed() => if changed.is_err() { return },
        }
        if !send().await {
            return;
        }
    }
}
