//! The `toolsift check` report: what a catalog costs and what a deferred
//! handle would send first.

use std::fmt::Write as _;
use std::sync::Arc;

use serde::Serialize;

use crate::catalog::{self, Catalog};
use crate::numbers::thousands;
use crate::terminal_text::{escape, escape_join};
use crate::tokens::by_basis::{BasisCost, Counted, costs_by_basis};
use crate::tokens::{Savings, TokenBasis, TokenCounter};
use crate::tools_handle::{
    HandleOptions, InitialToolCount, MaxTools, SelectError, Strategy, ToolsHandle,
};

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
        let strategies = Strategies {
            all: cost_under(Strategy::All)?,
            deferred_error: deferred.as_ref().err().map(ToString::to_string),
            deferred: deferred.ok(),
        };
        let initial_tokens = basis.set_cost(handle.initial_indices().iter().map(|&i| costs[i]));
        let savings = Savings::new(full, initial_tokens);
        let lints = catalog::lint(&catalog);
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

    /// The human-readable report. Catalog text (names, warnings) is escaped
    /// for the terminal: a catalog is untrusted input.
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

    fn render_bases(&self, out: &mut String) {
        let Some(rows) = &self.bases else { return };
        let initial = match (&self.strategies.deferred, self.strategy_chosen) {
            (Some(d), false) => d.initial.len(),
            _ => self.initial.len(),
        };
        let _ = writeln!(
            out,
            "bases     {:<22} {:>12} {:>12} {:>8}  counted",
            "basis",
            "full catalog",
            format!("initial ({initial})"),
            "saved"
        );
        for r in rows {
            let counted = match r.counted {
                Counted::Json => "each tool's JSON",
                Counted::Estimate => "bytes/4 of each tool's JSON",
                Counted::Rendered => "OpenAI's rendering, one block, +9",
                Counted::AnthropicEstimate => "346 + 1.23 x cl100k per tool",
                Counted::Exact => "the provider's counting endpoint: exact",
            };
            let _ = writeln!(
                out,
                "          {:<22} {:>12} {:>12} {:>6.1} %  {counted}",
                r.basis,
                thousands(r.full_tokens),
                thousands(r.initial_tokens),
                r.reduction_pct
            );
        }
    }

    pub fn render_text(&self) -> String {
        let mut out = String::new();
        let always = self.always_load.len();
        let _ = writeln!(
            out,
            "catalog   {} ({}): {} tools, {} always-load",
            escape(&self.catalog),
            escape_join(&self.formats, ", "),
            self.tools,
            always
        );
        let _ = writeln!(
            out,
            "handle    strategy {}{}, initial_tool_count {}, max_loaded_tools {}, token basis {}",
            self.strategy,
            if self.strategy_chosen {
                ""
            } else {
                " (the SDK's default; the explorer opens on deferred)"
            },
            self.initial_tool_count,
            self.max_loaded_tools
                .map_or_else(|| "none".to_string(), |m| m.to_string()),
            self.token_basis.label()
        );
        let overhead = self.token_basis.request_overhead();
        if overhead > 0 {
            let _ = writeln!(
                out,
                "          {}: a request with tools costs {overhead} tokens more (in the totals); a tool's figure is its share",
                self.token_basis.label()
            );
        }
        let deferred = self.strategies.deferred.as_ref();
        let sends = |c: &StrategyCost| {
            format!(
                "{} tools first: {} tokens, saves {} ({:.1} %)",
                c.initial.len(),
                thousands(c.initial_schema_tokens),
                thousands(c.initial_saved_tokens),
                c.initial_reduction_pct
            )
        };
        let deferred_line = match (deferred, &self.strategies.deferred_error) {
            (Some(c), _) => format!("sends {}", sends(c)),
            (None, Some(e)) => format!("not possible with these caps: {e}"),
            (None, None) => "not possible with these caps".to_string(),
        };
        if self.strategy_chosen {
            let _ = writeln!(
                out,
                "tokens    full catalog {}, initial set {} ({} tools): saves {} ({:.1} %)",
                thousands(self.full_schema_tokens),
                thousands(self.initial_schema_tokens),
                self.initial.len(),
                thousands(self.initial_saved_tokens),
                self.initial_reduction_pct
            );
            if self.strategy == Strategy::All.as_str() {
                let _ = writeln!(
                    out,
                    "          nothing is saved: strategy all sends every tool up front; deferred {deferred_line}"
                );
            }
        } else {
            let _ = writeln!(
                out,
                "tokens    full catalog {}",
                thousands(self.full_schema_tokens)
            );
            let _ = writeln!(
                out,
                "  all       sends all {} tools up front: {} tokens, saves {} ({:.1} %)",
                self.strategies.all.initial.len(),
                thousands(self.strategies.all.initial_schema_tokens),
                thousands(self.strategies.all.initial_saved_tokens),
                self.strategies.all.initial_reduction_pct
            );
            let _ = writeln!(out, "  deferred  {deferred_line}");
        }
        self.render_bases(&mut out);
        let _ = writeln!(
            out,
            "always    {}",
            if self.always_load.is_empty() {
                "(none)".to_string()
            } else {
                escape_join(&self.always_load, ", ")
            }
        );
        // With no strategy chosen, the initial set shown is deferred's
        // (strategy all's is every tool).
        let shown: Option<&[String]> = if self.strategy_chosen {
            None
        } else {
            deferred.map(|c| c.initial.as_slice())
        };
        match shown {
            Some(names) => {
                let _ = writeln!(
                    out,
                    "initial   deferred: {} (all: every tool)",
                    escape_join(names, ", ")
                );
            }
            None => {
                let _ = writeln!(out, "initial   {}", escape_join(&self.initial, ", "));
            }
        }
        for s in &self.servers {
            let line = match &s.error {
                Some(e) => format!("{}: failed: {e}", s.name),
                None if s.prefixed > 0 => format!(
                    "{}: {} tools ({} prefixed {}__ because another server has the name)",
                    s.name, s.tools, s.prefixed, s.name
                ),
                None => format!("{}: {} tools", s.name, s.tools),
            };
            let _ = writeln!(out, "server    {}", escape(&line));
        }
        out.push('\n');
        let with_servers = self.tool_costs.iter().any(|t| t.server.is_some());
        let names: Vec<_> = self.tool_costs.iter().map(|t| escape(&t.name)).collect();
        let width = crate::terminal_text::column_width(&names, 4);
        let header = if shown.is_some() {
            "deferred"
        } else {
            "initial"
        };
        let in_initial = |t: &ToolCost| match shown {
            Some(names) => names.contains(&t.name),
            None => t.initial,
        };
        let with_exact = self.tool_costs.iter().any(|t| t.exact.is_some());
        let _ = writeln!(
            out,
            "{:>4}  {:<width$}  {:<8}  {:>7}  {}{}{}",
            "#",
            "name",
            "flags",
            "tokens",
            if with_exact { "  exact  " } else { "" },
            header,
            if with_servers { "  server" } else { "" }
        );
        for (i, (t, name)) in self.tool_costs.iter().zip(&names).enumerate() {
            let initial = in_initial(t);
            let flags = format!(
                "{} {} {}",
                if t.always_load { "AL" } else { "--" },
                if t.read_only { "RO" } else { "--" },
                if t.idempotent { "ID" } else { "--" },
            );
            let exact = match (with_exact, t.exact) {
                (false, _) => String::new(),
                (true, Some(n)) => format!("{:>7}  ", thousands(n)),
                (true, None) => format!("{:>7}  ", "-"),
            };
            let mut row = format!(
                "{:>4}  {:<width$}  {:<8}  {:>7}  {exact}{}",
                i + 1,
                name,
                flags,
                thousands(t.tokens),
                if initial { "yes" } else { "" }
            );
            if with_servers {
                let _ = write!(
                    row,
                    "{:pad$}{}",
                    "",
                    escape(t.server.as_deref().unwrap_or("-")),
                    pad = header.len() + 2 - if initial { 3 } else { 0 }
                );
            }
            let _ = writeln!(out, "{}", row.trim_end());
        }
        let _ = writeln!(
            out,
            "\nflags: AL always-load, RO read-only, ID idempotent; tokens: {} of the provider definition",
            self.token_basis
        );
        if self.warnings.is_empty() {
            out.push_str("\nno warnings\n");
        } else {
            let _ = writeln!(out, "\nwarnings ({})", self.warnings.len());
            for w in &self.warnings {
                let _ = writeln!(out, "  - {}", escape(w));
            }
        }
        out
    }
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
