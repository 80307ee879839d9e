//! The `toolsift check` report: what a catalog costs and what a deferred
//! handle would send first.

use std::sync::Arc;

use serde::Serialize;

use crate::catalog::{self, Catalog};
use crate::tokens::by_basis::{BasisCost, Counted, costs_by_basis};
use crate::tokens::{Savings, TokenBasis, TokenCounter};
use crate::tools_handle::{
    HandleOptions, InitialToolCount, MaxTools, SelectError, Strategy, ToolsHandle,
};

mod render;

/// One row of the per-tool table.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolCost {
    pub name: String,
    pub read_only: bool,
    pub idempotent: bool,
    pub always_load: bool,
    pub initial: bool,
    pub tokens: u64,
    /// The tool's share by the provider's own counts (`check --count-with
    /// P --count-tools`): its count alone less a request's overhead.
    #[serde(rename = "exact_tokens", skip_serializing_if = "Option::is_none")]
    pub exact: Option<u64>,
    /// The MCP server it came from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server: Option<String>,
}

/// An MCP server the catalog was gathered from.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ServerReport {
    pub name: String,
    /// `loaded`, `starting` or `failed`.
    pub state: &'static str,
    pub tools: usize,
    /// Tools renamed `server__tool` because another server has the name.
    pub prefixed: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// What one strategy sends before any search, with the handle's caps.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StrategyCost {
    /// The initial set, in the SDK's order.
    pub initial: Vec<String>,
    pub initial_schema_tokens: u64,
    pub initial_saved_tokens: u64,
    pub initial_reduction_pct: f64,
}

/// The initial set under each strategy, whichever is in force.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Strategies {
    /// Strategy `all` (the SDK's default): every tool up front.
    pub all: StrategyCost,
    /// Strategy `deferred` with the same `initial_tool_count` and
    /// `max_loaded_tools` (the explorer's default strategy); `None` when the
    /// caps do not allow it (`max_loaded_tools` below the always-load count).
    pub deferred: Option<StrategyCost>,
    /// Why `deferred` is missing: the SDK's message.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deferred_error: Option<String>,
}

/// Everything `check` reports. Serialised as the `--json` output.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CheckReport {
    pub catalog: String,
    pub formats: Vec<String>,
    /// Number of tools in the catalog.
    pub tools: usize,
    pub always_load: Vec<String>,
    pub strategy: String,
    /// Whether the strategy was chosen (a flag) rather than the SDK's
    /// default, `all`; when it was not, the text report shows both.
    pub strategy_chosen: bool,
    pub initial_tool_count: InitialToolCount,
    pub max_loaded_tools: Option<MaxTools>,
    /// The initial set, in the SDK's order.
    pub initial: Vec<String>,
    pub full_schema_tokens: u64,
    pub initial_schema_tokens: u64,
    /// Tokens the initial set saves against sending the full catalog.
    pub initial_saved_tokens: u64,
    pub initial_reduction_pct: f64,
    pub token_basis: TokenBasis,
    /// The initial set and its tokens under `all` and under `deferred`.
    pub strategies: Strategies,
    /// Import notes and lints, as sentences.
    pub warnings: Vec<String>,
    /// The lints of text a reviewer cannot see (tag, zero-width, invisible
    /// or bidi characters), also in `warnings`: errors under `--strict`.
    pub hidden_text: Vec<String>,
    pub tool_costs: Vec<ToolCost>,
    /// MCP servers, when the catalog was gathered from some.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub servers: Vec<ServerReport>,
    /// The full catalog and the initial set under every basis
    /// (`--bases all`); the initial set is deferred's when no strategy was
    /// chosen.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bases: Option<Vec<BasisCost>>,
}

impl CheckReport {
    /// Validates the options against the catalog and counts every tool.
    pub fn new(
        catalog: Arc<Catalog>,
        options: &HandleOptions,
        basis: TokenBasis,
        counter: &TokenCounter,
    ) -> Result<Self, SelectError> {
        let handle = ToolsHandle::new(catalog.clone(), options)?;
        let costs = counter.tools_tokens(catalog.tools(), basis);
        // Sets cost their tools' figures and, under a provider's basis,
        // what a request with tools adds.
        let full = basis.set_cost(costs.iter().copied());
        let strategies = Strategies::measure(&catalog, options, basis, &costs)?;
        let initial_tokens = basis.set_cost(handle.initial_indices().iter().map(|&i| costs[i]));
        let savings = Savings::new(full, initial_tokens);
        let (warnings, hidden_text) = warnings(&catalog);
        let tool_costs = catalog
            .tools()
            .iter()
            .zip(&costs)
            .enumerate()
            .map(|(i, (t, &tokens))| ToolCost {
                name: t.name.clone(),
                read_only: t.read_only,
                idempotent: t.idempotent,
                always_load: t.always_load,
                initial: handle.is_initial(i),
                tokens,
                exact: None,
                server: t.mcp.as_ref().map(|m| m.server.to_string()),
            })
            .collect();
        Ok(CheckReport {
            catalog: catalog.name().to_string(),
            formats: catalog.formats().iter().map(|f| f.label().into()).collect(),
            tools: catalog.len(),
            always_load: catalog
                .always_load_names()
                .into_iter()
                .map(String::from)
                .collect(),
            strategy: handle.strategy().to_string(),
            strategy_chosen: true,
            initial_tool_count: handle.initial_tool_count(),
            max_loaded_tools: handle.max_loaded_tools(),
            initial: handle
                .initial_names()
                .into_iter()
                .map(String::from)
                .collect(),
            full_schema_tokens: full,
            initial_schema_tokens: initial_tokens,
            initial_saved_tokens: savings.saved_tokens,
            initial_reduction_pct: savings.reduction_pct,
            token_basis: basis,
            strategies,
            warnings,
            hidden_text,
            tool_costs,
            servers: Vec::new(),
            bases: None,
        })
    }

    /// The whole catalog and the initial set the bases table compares
    /// (deferred's when no strategy was chosen).
    pub fn bases_sets<'a>(
        &self,
        catalog: &'a Catalog,
    ) -> (Vec<&'a crate::catalog::Tool>, Vec<&'a crate::catalog::Tool>) {
        let names = match (&self.strategies.deferred, self.strategy_chosen) {
            (Some(d), false) => &d.initial,
            _ => &self.initial,
        };
        let initial = names.iter().filter_map(|n| catalog.get(n)).collect();
        (catalog.tools().iter().collect(), initial)
    }

    /// Adds the figures under every basis.
    pub fn add_bases(&mut self, catalog: &Catalog, counter: &TokenCounter) {
        let (all, initial) = self.bases_sets(catalog);
        self.bases = Some(costs_by_basis(&all, &initial, counter));
    }

    /// Adds each tool's exact share, in the catalog's order.
    pub fn add_exact_tools(&mut self, shares: &[u64]) {
        for (t, &n) in self.tool_costs.iter_mut().zip(shares) {
            t.exact = Some(n);
        }
    }

    /// Adds a row of exact counts (from a provider's counting endpoint).
    pub fn add_exact(&mut self, basis: &str, full: u64, initial: u64) {
        self.bases.get_or_insert_with(Vec::new).push(BasisCost::new(
            basis,
            Counted::Exact,
            full,
            initial,
        ));
    }
}

impl Strategies {
    /// The initial set and its tokens under `all` and under `deferred`,
    /// with `options`' counts and caps; `costs` are the tools' tokens in
    /// catalog order. Deferred's error is kept (the caps may not allow
    /// it); `all`'s is the caller's.
    fn measure(
        catalog: &Arc<Catalog>,
        options: &HandleOptions,
        basis: TokenBasis,
        costs: &[u64],
    ) -> Result<Self, SelectError> {
        let full = basis.set_cost(costs.iter().copied());
        let cost_under = |strategy: Strategy| {
            let options = HandleOptions {
                strategy,
                ..options.clone()
            };
            ToolsHandle::new(catalog.clone(), &options).map(|h| {
                let sent = basis.set_cost(h.initial_indices().iter().map(|&i| costs[i]));
                let savings = Savings::new(full, sent);
                StrategyCost {
                    initial: h.initial_names().into_iter().map(String::from).collect(),
                    initial_schema_tokens: sent,
                    initial_saved_tokens: savings.saved_tokens,
                    initial_reduction_pct: savings.reduction_pct,
                }
            })
        };
        let deferred = cost_under(Strategy::Deferred);
        Ok(Strategies {
            all: cost_under(Strategy::All)?,
            deferred_error: deferred.as_ref().err().map(ToString::to_string),
            deferred: deferred.ok(),
        })
    }
}

/// The catalog's import notes and lints as sentences, and apart the lints
/// of hidden text (errors under `--strict`).
fn warnings(catalog: &Catalog) -> (Vec<String>, Vec<String>) {
    let lints = catalog::lint(catalog);
    let warnings = catalog
        .notes()
        .iter()
        .map(ToString::to_string)
        .chain(lints.iter().map(ToString::to_string))
        .collect();
    let hidden_text = lints
        .iter()
        .filter(|l| l.hidden_text)
        .map(ToString::to_string)
        .collect();
    (warnings, hidden_text)
}

impl CheckReport {
    /// Under `check --strict`, the error the hidden text makes: the first
    /// lint of hidden text (naming the tool and field) and how many more.
    pub fn strict_error(&self) -> Option<String> {
        let first = self.hidden_text.first()?;
        let more = self.hidden_text.len() - 1;
        Some(match more {
            0 => format!("hidden text (--strict): {first}"),
            n => format!("hidden text (--strict): {first} (and {n} more in the warnings)"),
        })
    }
}

impl From<&crate::sources::mcp::ServerStatus> for ServerReport {
    fn from(s: &crate::sources::mcp::ServerStatus) -> Self {
        use crate::sources::mcp::ServerState;
        match &s.state {
            ServerState::Loaded {
                tools, prefixed, ..
            } => ServerReport {
                name: s.name.clone(),
                state: "loaded",
                tools: *tools,
                prefixed: *prefixed,
                error: None,
            },
            ServerState::Starting { failed_before } => ServerReport {
                name: s.name.clone(),
                state: "starting",
                tools: 0,
                prefixed: 0,
                error: failed_before.clone(),
            },
            ServerState::WaitingForLogin { how } => ServerReport {
                name: s.name.clone(),
                state: "waiting for login",
                tools: 0,
                prefixed: 0,
                error: Some(how.clone()),
            },
            ServerState::Failed { .. } => ServerReport {
                name: s.name.clone(),
                state: "failed",
                tools: 0,
                prefixed: 0,
                error: s.failure(),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::Tool;

    #[test]
    fn report_sums_match_rows() {
        let mut tools: Vec<Tool> = (0..12)
            .map(|i| Tool::new(format!("tool_{i}"), "x".repeat(i * 10)))
            .collect();
        tools[5].always_load = true;
        let catalog = Arc::new(Catalog::new("t", tools).unwrap());
        let options = HandleOptions {
            strategy: Strategy::Deferred,
            initial_tool_count: InitialToolCount::new(3),
            max_loaded_tools: None,
        };
        let r = CheckReport::new(
            catalog,
            &options,
            TokenBasis::EstimatedBytesDiv4,
            &TokenCounter::new(),
        )
        .unwrap();
        assert_eq!(r.initial, ["tool_5", "tool_0", "tool_1", "tool_2"]);
        assert_eq!(
            r.full_schema_tokens,
            r.tool_costs.iter().map(|t| t.tokens).sum::<u64>()
        );
        assert_eq!(
            r.initial_schema_tokens,
            r.tool_costs
                .iter()
                .filter(|t| t.initial)
                .map(|t| t.tokens)
                .sum::<u64>()
        );
        assert_eq!(
            r.initial_saved_tokens,
            r.full_schema_tokens - r.initial_schema_tokens
        );
        let text = r.render_text();
        assert!(text.contains("12 tools, 1 always-load"), "{text}");
        assert!(text.contains("tool_5"));
        // The empty description of tool_0 is linted.
        assert!(
            r.warnings
                .iter()
                .any(|w| w.contains("tool_0") && w.contains("empty description"))
        );
    }
}
