//! The text of `toolsift tune`: the two tables, the recommendation and why,
//! and the config snippet.

use std::fmt::Write as _;

use super::{DEFAULT_TARGET_SHARE, InitialReason, Recommended, TuneReport, initial_choice};
use crate::numbers::{thousands, thousands_tenths};
use crate::terminal_text::escape;
use crate::tools_handle::{InitialToolCount, MaxTools};

/// The mark of the row the flags set.
fn mark(on: bool) -> &'static str {
    if on { "  <- current" } else { "" }
}

impl TuneReport {
    /// The config file's lines and the SDK call for the recommendation.
    pub fn snippet(&self) -> String {
        let Recommended {
            max_tools,
            initial_tool_count,
        } = self.recommended;
        format!(
            "# config.toml (the explorer)\n[explorer]\nstrategy = \"deferred\"\nmax_loaded_tools = {max_tools}\ninitial_tool_count = {initial_tool_count}\n\n# SDK\ncave.tools(catalog, strategy=\"deferred\", initial_tool_count={initial_tool_count}, max_loaded_tools={max_tools})\n"
        )
    }

    /// The text report: two tables, the recommendation and the snippet.
    /// `current` marks a cap and an initial count (the flags' settings).
    pub fn render_text(&self, current: Option<(MaxTools, InitialToolCount)>) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "{} requests against {} ({} tools, {} always-load); strategy all sends {} tokens ({})\n",
            thousands(self.queries as u64),
            escape(&self.catalog),
            thousands(self.catalog_tools as u64),
            self.always_load,
            thousands(self.full_tokens),
            self.token_basis
        );
        self.render_caps(&mut out, current.map(|c| c.0));
        self.render_initial(&mut out, current.map(|c| c.1));
        let _ = writeln!(
            out,
            "\nrecommended: max_loaded_tools {} ({}); initial_tool_count {}\n",
            self.recommended.max_tools,
            self.cap_why(),
            self.initial_why()
        );
        out.push_str(&self.snippet());
        if self.from_traffic {
            out.push_str(&self.suggestions_text());
        }
        out
    }

    /// The search cap's table: per cap, the requests with every expected
    /// tool loaded (strict, lenient), the tokens sent and saved; `current`
    /// marks a cap.
    fn render_caps(&self, out: &mut String, current: Option<MaxTools>) {
        let _ = writeln!(
            out,
            "search cap (max_loaded_tools): the always-load tools, then the best-ranked others"
        );
        let _ = writeln!(
            out,
            "max_tools  all loaded  lenient  mean tokens  p95 tokens  saved"
        );
        for p in &self.points {
            let _ = writeln!(
                out,
                "{:>9}  {:>9.1}%  {:>6.1}%  {:>11}  {:>10}  {:>5.1}%{}",
                p.max_tools,
                p.all_loaded_pct,
                p.lenient_all_loaded_pct,
                thousands_tenths(p.mean_sent_tokens),
                thousands(p.p95_sent_tokens),
                p.saved_pct,
                mark(current == Some(p.max_tools))
            );
        }
    }

    /// The deferred initial set's table: per count, the requests it covers
    /// and its tokens; `current` marks a count.
    fn render_initial(&self, out: &mut String, current: Option<InitialToolCount>) {
        let _ = writeln!(
            out,
            "\ndeferred initial set, no search: the always-load tools, then the first N others in catalog order"
        );
        let _ = writeln!(out, "initial_tool_count  covered  tokens");
        for p in &self.initial {
            let _ = writeln!(
                out,
                "{:>18}  {:>6.1}%  {:>6}{}",
                p.initial_tool_count,
                p.covered_pct,
                thousands(p.tokens),
                mark(current == Some(p.initial_tool_count))
            );
        }
    }

    /// Why the recommended cap: the target reached, or the best share.
    fn cap_why(&self) -> String {
        if self.target_reached {
            format!(
                "the smallest cap loading every expected tool for at least {:.1}% of requests",
                self.target_pct
            )
        } else {
            format!(
                "no cap reaches {:.1}%: the smallest cap with the best share",
                self.target_pct
            )
        }
    }

    /// The recommended `initial_tool_count` and why: no coverage worth its
    /// tokens, near the best coverage, or all the cap leaves.
    fn initial_why(&self) -> String {
        let r = self.recommended;
        let (_, reason) = initial_choice(&self.initial, r.max_tools, self.always_load);
        match reason {
            InitialReason::Useless { .. } => {
                "0: the initial set alone covers (next to) no request; search loads the tools"
                    .to_string()
            }
            InitialReason::NearBest { best_pct } => format!(
                "{}: the smallest count covering at least {:.0} % of the initial set's best coverage ({best_pct:.1} %)",
                r.initial_tool_count,
                DEFAULT_TARGET_SHARE * 100.0
            ),
            InitialReason::Capped { room, .. } if room.get() == 0 => format!(
                "0: max_loaded_tools {} leaves no room beside the {} always-load tools",
                r.max_tools, self.always_load
            ),
            InitialReason::Capped {
                wanted,
                room,
                best_pct,
            } => format!(
                "{room}: all that max_loaded_tools {} leaves beside the {} always-load tools (covering {:.0} % of the initial set's best coverage, {best_pct:.1} %, would take {wanted})",
                r.max_tools,
                self.always_load,
                DEFAULT_TARGET_SHARE * 100.0
            ),
        }
    }

    /// From a trace: the always-load suggestions, and the config line.
    pub fn suggestions_text(&self) -> String {
        let mut out = String::new();
        if self.always_load_suggested.is_empty() {
            out.push_str(
                "\nalways-load: no tool was called after a search in at least half the sessions (and two); none suggested\n",
            );
            return out;
        }
        let _ = writeln!(
            out,
            "\nalways-load suggestions: tools called after a search in at least half the sessions"
        );
        for s in &self.always_load_suggested {
            let _ = writeln!(
                out,
                "  {}  called in {} of {} sessions ({} calls); saves {} searches; costs {} tokens on every request",
                escape(&s.name),
                s.sessions,
                s.of_sessions,
                s.calls,
                s.searches_saved,
                thousands(s.tokens)
            );
        }
        let names: Vec<String> = self
            .always_load_suggested
            .iter()
            .map(|s| serde_json::Value::from(s.name.as_str()).to_string())
            .collect();
        let _ = writeln!(
            out,
            "\n# config.toml (the gateway: tool names or server/tool patterns)\n[mcp]\nalways_load = [{}]",
            escape(&names.join(", "))
        );
        out
    }
}
