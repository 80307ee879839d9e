//! The text of `toolsift check`: the catalog and handle lines, the tokens
//! each strategy sends, the bases, the sets, the per-tool table and the
//! warnings. Catalog text (names, warnings) is escaped for the terminal: a
//! catalog is untrusted input.

use std::fmt::Write as _;

use super::{CheckReport, StrategyCost, ToolCost};
use crate::numbers::thousands;
use crate::terminal_text::{escape, escape_join};
use crate::tokens::by_basis::Counted;
use crate::tools_handle::Strategy;

/// What a strategy sends first: its tools, their tokens and the saving.
fn sends(c: &StrategyCost) -> String {
    format!(
        "{} tools first: {} tokens, saves {} ({:.1} %)",
        c.initial.len(),
        thousands(c.initial_schema_tokens),
        thousands(c.initial_saved_tokens),
        c.initial_reduction_pct
    )
}

/// A tool's flags column: always-load, read-only, idempotent.
fn flags(t: &ToolCost) -> String {
    format!(
        "{} {} {}",
        if t.always_load { "AL" } else { "--" },
        if t.read_only { "RO" } else { "--" },
        if t.idempotent { "ID" } else { "--" },
    )
}

impl CheckReport {
    /// The human-readable report.
    pub fn render_text(&self) -> String {
        let mut out = String::new();
        self.render_header(&mut out);
        self.render_tokens(&mut out);
        self.render_bases(&mut out);
        self.render_sets(&mut out);
        self.render_servers(&mut out);
        out.push('\n');
        self.render_table(&mut out);
        let _ = writeln!(
            out,
            "\nflags: AL always-load, RO read-only, ID idempotent; tokens: {} of the provider definition",
            self.token_basis
        );
        self.render_warnings(&mut out);
        out
    }

    /// The initial set shown when no strategy was chosen: deferred's
    /// (strategy all's is every tool); `None` shows the one in force.
    fn shown(&self) -> Option<&[String]> {
        if self.strategy_chosen {
            None
        } else {
            self.strategies
                .deferred
                .as_ref()
                .map(|c| c.initial.as_slice())
        }
    }

    /// The catalog line (name, formats, tools, always-load), the handle's
    /// settings, and a provider basis's request overhead.
    fn render_header(&self, out: &mut String) {
        let _ = writeln!(
            out,
            "catalog   {} ({}): {} tools, {} always-load",
            escape(&self.catalog),
            escape_join(&self.formats, ", "),
            self.tools,
            self.always_load.len()
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
    }

    /// The tokens lines: the strategy chosen's initial set against the full
    /// catalog, or, with none chosen, what `all` and `deferred` each send.
    fn render_tokens(&self, out: &mut String) {
        let deferred_line = match (&self.strategies.deferred, &self.strategies.deferred_error) {
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
            let all = &self.strategies.all;
            let _ = writeln!(
                out,
                "  all       sends all {} tools up front: {} tokens, saves {} ({:.1} %)",
                all.initial.len(),
                thousands(all.initial_schema_tokens),
                thousands(all.initial_saved_tokens),
                all.initial_reduction_pct
            );
            let _ = writeln!(out, "  deferred  {deferred_line}");
        }
    }

    /// The full catalog and the initial set under every basis, when added.
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

    /// The always-load tools and the initial set, by name.
    fn render_sets(&self, out: &mut String) {
        let _ = writeln!(
            out,
            "always    {}",
            if self.always_load.is_empty() {
                "(none)".to_string()
            } else {
                escape_join(&self.always_load, ", ")
            }
        );
        match self.shown() {
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
    }

    /// One line per MCP server the catalog was gathered from.
    fn render_servers(&self, out: &mut String) {
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
    }

    /// The per-tool table: number, name, flags, tokens, the exact share
    /// when counted, whether it is in the initial set shown, its server.
    fn render_table(&self, out: &mut String) {
        let shown = self.shown();
        let with_servers = self.tool_costs.iter().any(|t| t.server.is_some());
        let names: Vec<_> = self.tool_costs.iter().map(|t| escape(&t.name)).collect();
        let width = crate::terminal_text::column_width(&names, 4);
        let header = if shown.is_some() {
            "deferred"
        } else {
            "initial"
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
            let initial = match shown {
                Some(names) => names.contains(&t.name),
                None => t.initial,
            };
            let exact = match (with_exact, t.exact) {
                (false, _) => String::new(),
                (true, Some(n)) => format!("{:>7}  ", thousands(n)),
                (true, None) => format!("{:>7}  ", "-"),
            };
            let mut row = format!(
                "{:>4}  {:<width$}  {:<8}  {:>7}  {exact}{}",
                i + 1,
                name,
                flags(t),
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
    }

    /// The warnings (import notes and lints), or that there are none.
    fn render_warnings(&self, out: &mut String) {
        if self.warnings.is_empty() {
            out.push_str("\nno warnings\n");
        } else {
            let _ = writeln!(out, "\nwarnings ({})", self.warnings.len());
            for w in &self.warnings {
                let _ = writeln!(out, "  - {}", escape(w));
            }
        }
    }
}
