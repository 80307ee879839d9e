//! A hosted MCP server that waits for a login: `log_in` (i) starts it
//! (its page opened in the browser, or its address said), and the servers'
//! catalog, with the new server's tools, takes the old one's place.

use std::sync::Arc;

use super::App;
use crate::sources::mcp::{LoggedIn, ServerState};
use crate::terminal_text::escape;
use crate::tui::effect::Effect;

impl App {
    /// The servers waiting for a login, by name.
    pub fn waiting_for_login(&self) -> Vec<&str> {
        self.mcp_servers
            .iter()
            .filter(|s| matches!(s.state, ServerState::WaitingForLogin { .. }))
            .map(|s| s.name.as_str())
            .collect()
    }

    /// `log_in`: the first server waiting for a login logs in.
    pub(super) fn log_in(&mut self) -> Vec<Effect> {
        let waiting = self.waiting_for_login();
        let (Some(first), Some(host)) = (waiting.first(), self.mcp.clone()) else {
            self.status = Some(if self.mcp.is_none() {
                "no MCP server here: a login is for a hosted server given with --mcp FILE or --mcp-url URL".into()
            } else {
                "no MCP server waits for a login".into()
            });
            return Vec::new();
        };
        if self.logging_in.is_some() {
            self.status = Some(format!(
                "the login to {} is under way: finish it in the browser",
                escape(self.logging_in.as_deref().unwrap_or(""))
            ));
            return Vec::new();
        }
        let server = first.to_string();
        self.status = Some(format!("logging in to {}...", escape(&server)));
        self.logging_in = Some(server.clone());
        vec![Effect::McpLogIn { host, server }]
    }

    /// The login page of `server`, opened or to open.
    pub(super) fn login_page(&mut self, server: &str, url: &str, opened: bool) {
        self.status = Some(if opened {
            format!(
                "logging in to {}: its page is open in the browser (if not, open {})",
                escape(server),
                escape(url)
            )
        } else {
            format!(
                "logging in to {}: open {} in a browser",
                escape(server),
                escape(url)
            )
        });
    }

    /// The login done: the servers' catalog in place of the old one, or
    /// why not.
    pub(super) fn logged_in(
        &mut self,
        server: &str,
        result: Result<Box<LoggedIn>, crate::sources::mcp::NotLoggedIn>,
    ) -> Vec<Effect> {
        self.logging_in = None;
        let logged = match result {
            Ok(l) => l,
            Err(why) => {
                self.status = Some(format!(
                    "the login to {} did not complete: {} (i tries again)",
                    escape(server),
                    escape(&why.to_string())
                ));
                return Vec::new();
            }
        };
        self.mcp_servers = logged.servers;
        if self.catalog.tools().iter().any(|t| t.mcp.is_none()) {
            // Files beside the servers: their merge is made at the start.
            self.status = Some(format!(
                "logged in to {} (the tokens are kept in {}); its tools join when the explorer starts again (this catalog mixes files and servers)",
                escape(server),
                escape(&logged.kept_in)
            ));
            return Vec::new();
        }
        let Some(catalog) = logged.catalog else {
            self.status = Some(format!(
                "logged in to {} (kept in {}), but no server lists a tool yet",
                escape(server),
                escape(&logged.kept_in)
            ));
            return Vec::new();
        };
        let named_by_catalog = self.sources == self.catalog.name();
        let effects = self.catalog_loaded(Ok(Arc::new(catalog)));
        if named_by_catalog {
            // `mcp: time` becomes `mcp: hosted, time`.
            self.sources = self.catalog.name().to_string();
        }
        if !self
            .status
            .as_deref()
            .is_some_and(|s| s.contains("does not read") || s.contains("do not fit"))
        {
            self.status = Some(format!(
                "logged in to {} (the tokens are kept in {}): its tools joined the catalog",
                escape(server),
                escape(&logged.kept_in)
            ));
        }
        effects
    }
}
