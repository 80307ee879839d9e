//! The catalog in use: a [`Snapshot`] (the catalog, each tool as its
//! server listed it, the validators, the description), made again when a
//! server's tools change (its `list_changed`, a restart, the servers file)
//! and swapped whole; searches and calls in flight keep the one they
//! started with. A tool a rule denies never enters it.

use std::sync::Arc;

use super::{Gateway, GatewayConfig, GatewayError, ToolRule, ToolRules};
use crate::catalog::Catalog;
use crate::sources::mcp::{Gathered, McpHost};

/// The catalog as of the last listing, with what the servers wrote.
pub(crate) struct Snapshot {
    pub(crate) catalog: Arc<Catalog>,
    /// Each catalog tool as its server listed it (renamed when prefixed).
    pub(crate) listed: Vec<rmcp::model::Tool>,
    pub(crate) validators: super::policy::validate::Validators,
    /// `search_tools`'s description, made from this catalog.
    pub(crate) search_description: String,
    /// Per tool: whether `call_read_tool` runs it (marked read-only and
    /// closed-world by its server, or a `read` rule vouches for it).
    pub(crate) reads: Vec<bool>,
    /// Per tool: whether an `ask` rule holds it until the user approves.
    pub(crate) asks: Vec<bool>,
}

impl Snapshot {
    pub(super) fn new(catalog: Arc<Catalog>, host: &McpHost, config: &GatewayConfig) -> Snapshot {
        let hidden_text = config.hidden_text;
        let by_origin = host.listed_by_origin();
        let listed = catalog
            .tools()
            .iter()
            .map(|t| {
                let mut listed = super::answer::meta::upstream_definition(t, &by_origin);
                super::policy::hidden::clean_listed(&mut listed, hidden_text);
                listed
            })
            .collect();
        let validators = super::policy::validate::Validators::new(catalog.len());
        let reads = catalog
            .tools()
            .iter()
            .zip(&listed)
            .map(|(t, l)| {
                config.rules.rule_for(t) == ToolRule::Read
                    || super::answer::call::not_a_plain_read(t, l).is_none()
            })
            .collect();
        let asks = catalog
            .tools()
            .iter()
            .map(|t| config.rules.rule_for(t) == ToolRule::Ask)
            .collect();
        let search_description = super::answer::describe::search_description(
            &catalog,
            &super::answer::first_view::states_of(host),
        );
        Snapshot {
            catalog,
            listed,
            validators,
            search_description,
            reads,
            asks,
        }
    }
}

impl Gateway {
    /// Lists `server` again and, when the catalog changed, swaps in the new
    /// one (the rankers are cached by fingerprint, so the next search
    /// indexes it once). Returns whether anything changed.
    pub async fn relist(&self, server: &str) -> Result<bool, crate::sources::mcp::RelistError> {
        self.host.relist(server).await?;
        Ok(self.reindex())
    }

    /// Swaps in the catalog of the servers' last listings (a restart may
    /// have listed them already) when it differs from the one in use.
    pub fn reindex(&self) -> bool {
        let Gathered { catalog, servers } = self.host.rebuild();
        let all = merged(catalog, &self.files).map(|(c, _)| c);
        if let Ok(all) = &all {
            self.warn_rules_when_answered(all.tools());
        }
        let (catalog, hidden) = match all
            .and_then(|c| without_denied(c, &self.config.rules))
            .and_then(|c| {
                super::policy::hidden::sanitize(c, self.config.hidden_text, &self.recorder)
            }) {
            Ok(c) => c,
            Err(e) => {
                self.recorder.warn(&format!(
                    "after a change the tools do not form a catalog ({e}); keeping the last one"
                ));
                return false;
            }
        };
        if catalog.fingerprint() == self.snapshot().catalog.fingerprint() {
            self.refresh_description();
            return false;
        }
        let tools = catalog.len();
        let snapshot = Arc::new(Snapshot::new(Arc::new(catalog), &self.host, &self.config));
        *self.hidden.lock().unwrap_or_else(|p| p.into_inner()) = hidden;
        let description = snapshot.search_description.clone();
        *self.snapshot.write().unwrap_or_else(|p| p.into_inner()) = snapshot;
        self.adopt_description(description);
        let names: Vec<String> = servers.iter().map(|s| s.summary()).collect();
        self.recorder.info(&format!(
            "re-indexed: {} ({})",
            crate::numbers::counted(tools, "tool"),
            names.join("; ")
        ));
        for s in &servers {
            if let crate::sources::mcp::ServerState::Loaded { skipped, .. } = &s.state {
                for why in skipped {
                    self.recorder.warn(&format!(
                        "MCP server {}: {}",
                        crate::terminal_text::escape(&s.name),
                        crate::terminal_text::escape(why)
                    ));
                }
            }
        }
        true
    }

    /// Follows the servers' `list_changed` notifications (and restarts that
    /// found a different list) for as long as `changes` is open.
    pub async fn follow_changes(
        self: Arc<Self>,
        mut changes: tokio::sync::mpsc::UnboundedReceiver<String>,
    ) {
        // A server's state can change without a listing (starting, then
        // down): the description follows it too.
        let mut states = tokio::time::interval(super::answer::first_view::STATES_EVERY);
        loop {
            tokio::select! {
                server = changes.recv() => {
                    let Some(server) = server else { return };
                    if let Err(e) = self.relist(&server).await {
                        self.recorder.warn(&format!(
                            "{server}: listing its tools again after a change failed: {e}"
                        ));
                    }
                }
                _ = states.tick() => {
                    self.refresh_description();
                    if self.rules_warnings_pending() {
                        self.reindex();
                    }
                }
            }
        }
    }
}

/// The MCP servers' catalog and the files' as one (while the servers are
/// still starting, the files' alone, or an empty one: their tools join as
/// they come). A server's tool named as a file's takes its server's
/// prefix, and a sentence says so.
pub(super) fn merged(
    mcp: Option<Catalog>,
    files: &[Catalog],
) -> Result<(Catalog, Vec<String>), GatewayError> {
    Ok(crate::sources::mcp::merge_beside_files(mcp, files)?)
}

/// The most tools the gateway's catalog can hold, which `search_tools`
/// searches whole: the servers' share ([`MAX_CATALOG_TOOLS`], each server
/// at most [`crate::sources::mcp::MAX_SERVER_TOOLS`]) and the catalog
/// files' tools. Not `serve`'s limit on a request's catalog: this one is
/// the gateway's own, built here.
///
/// [`MAX_CATALOG_TOOLS`]: crate::sources::mcp::MAX_CATALOG_TOOLS
pub(super) fn catalog_bound(files: &[Catalog]) -> usize {
    crate::sources::mcp::MAX_CATALOG_TOOLS + files.iter().map(Catalog::len).sum::<usize>()
}

/// `catalog` without the tools a rule denies.
pub(super) fn without_denied(catalog: Catalog, rules: &ToolRules) -> Result<Catalog, GatewayError> {
    let denied = |t: &crate::catalog::Tool| rules.rule_for(t) == ToolRule::Deny;
    if rules.is_empty() || catalog.is_empty() || !catalog.tools().iter().any(denied) {
        return Ok(catalog);
    }
    let kept: Vec<crate::catalog::Tool> = catalog
        .tools()
        .iter()
        .filter(|t| !denied(t))
        .cloned()
        .collect();
    if kept.is_empty() {
        return Err(GatewayError::AllDenied {
            tools: catalog.len(),
        });
    }
    Ok(Catalog::new(catalog.name(), kept)?)
}
