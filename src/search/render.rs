//! The CLI's views of a search result: `--json` and the text table.

use std::fmt::Write as _;

use serde_json::{Value, json};

use super::*;
use crate::catalog::Tool;
use crate::numbers::thousands;
use crate::terminal_text::escape;

/// A score as `--json` gives it: four decimals.
fn rounded(score: f32) -> f64 {
    (f64::from(score) * 10_000.0).round() / 10_000.0
}

/// A tool's flags column: always-load, read-only, idempotent.
fn flags(t: &Tool) -> String {
    format!(
        "{} {} {}",
        if t.always_load { "AL" } else { "--" },
        if t.read_only { "RO" } else { "--" },
        if t.idempotent { "ID" } else { "--" },
    )
}

/// Display helpers shared by the CLI (the TUI draws its own).
impl SearchResult {
    /// The `--json` object of `toolsift search`.
    pub fn to_json(&self, catalog: &Catalog) -> Value {
        let tools: Vec<Value> = self
            .tools
            .iter()
            .map(|h| self.hit_json(h, catalog))
            .collect();
        let mut out = json!({
            "tools": tools,
            "session_id": self.session_id,
            "method": self.method,
            "deferred_count": self.deferred_count,
            "full_schema_tokens": self.savings.full_schema_tokens,
            "sent_schema_tokens": self.savings.sent_schema_tokens,
            "saved_tokens": self.savings.saved_tokens,
            "reduction_pct": self.savings.reduction_pct,
            "token_basis": self.token_basis,
            "basis": self.basis,
            "session_tools": self.session_tools,
        });
        if let Some(note) = &self.note {
            out["note"] = json!(note);
        }
        if let Some(note) = &self.session_note {
            out["session_note"] = json!(note);
        }
        if !self.held_back.is_empty() {
            out["held_back"] = self.held_back_json(catalog);
        }
        // Whether no searched tool fits: the gate held them back, or no
        // tool matched at all (an empty answer says so, never by silence).
        out["nothing_fits"] = json!(
            !self.held_back.is_empty()
                || self
                    .tools
                    .iter()
                    .all(|t| catalog.tools()[t.index].always_load)
        );
        if let Some(m) = &self.matching {
            out["matching"] = json!(m);
        }
        out
    }

    /// One found tool's object in `--json`: its flags, score, matched
    /// words, and its tokens, usage and dense scores when known.
    fn hit_json(&self, h: &SearchHit, catalog: &Catalog) -> Value {
        let t = &catalog.tools()[h.index];
        let mut v = json!({
            "name": t.name,
            "score": h.score.map(rounded),
            "reason": h.reason.map(|r| r.as_str()),
            "read_only": t.read_only,
            "idempotent": t.idempotent,
            "always_load": t.always_load,
            "matched": h.explanation.matches.iter().map(|m| json!({
                "term": m.term,
                "fields": m.fields.iter().map(|f| f.label()).collect::<Vec<_>>(),
                "score": rounded(m.score),
            })).collect::<Vec<_>>(),
        });
        if let Some(costs) = &self.tool_tokens {
            v["tokens"] = json!(costs.get(h.index));
        }
        if let Some(u) = &h.explanation.usage {
            v["usage"] = json!(u);
        }
        if let Some(d) = &h.explanation.dense {
            v["dense"] = json!({
                "cosine": rounded(d.cosine),
                "dense_rank": d.dense_rank,
                "lexical_rank": d.lexical_rank,
            });
        }
        v
    }

    /// The tools the relevance gate held back, as `--json` lists them.
    fn held_back_json(&self, catalog: &Catalog) -> Value {
        self.held_back
            .iter()
            .map(|h| {
                json!({
                    "name": catalog.tools()[h.index].name,
                    "score": h.score,
                    "evidence": h.evidence,
                    "cosine": h.cosine,
                    "probability": h.probability,
                })
            })
            .collect()
    }

    /// The human-readable table of `toolsift search`. Names, matched
    /// words, the note and the service's strings are escaped for the
    /// terminal: a catalog and a service are untrusted.
    pub fn render_text(&self, catalog: &Catalog) -> String {
        let mut out = String::new();
        self.render_table(&mut out, catalog);
        if let Some(note) = &self.note {
            let _ = writeln!(out, "note: {}", escape(note));
        }
        if let Some(more) = self
            .matching
            .as_deref()
            .and_then(crate::service::matching::note)
        {
            let _ = writeln!(out, "{more}");
        }
        self.render_held_back(&mut out, catalog);
        self.render_totals(&mut out);
        out
    }

    /// The found tools, one row each: rank (`AL` for an always-load tool),
    /// name, flags, tokens, score and why it matched.
    fn render_table(&self, out: &mut String, catalog: &Catalog) {
        let names: Vec<_> = self
            .tools
            .iter()
            .map(|h| escape(&catalog.tools()[h.index].name))
            .collect();
        let width = crate::terminal_text::column_width(&names, 4);
        if !self.tools.is_empty() {
            let _ = writeln!(
                out,
                "{:>4}  {:<width$}  {:<8}  {:>6}  {:>7}  matched",
                "rank", "name", "flags", "tokens", "score"
            );
        }
        let mut rank = 0;
        for (h, name) in self.tools.iter().zip(&names) {
            let t = &catalog.tools()[h.index];
            let rank_cell = if h.reason == Some(Reason::AlwaysLoad) {
                "AL".to_string()
            } else {
                rank += 1;
                rank.to_string()
            };
            let flags = flags(t);
            let tokens = self
                .tool_tokens
                .as_ref()
                .and_then(|c| c.get(h.index))
                .map_or_else(|| "-".to_string(), |n| thousands(*n));
            let score = h
                .score
                .map_or_else(|| "-".to_string(), |s| format!("{s:.3}"));
            let row = format!(
                "{rank_cell:>4}  {name:<width$}  {flags:<8}  {tokens:>6}  {score:>7}  {}",
                matched(h).join("; ")
            );
            let _ = writeln!(out, "{}", row.trim_end());
        }
    }

    /// The tools the gate held back, with their scores, under a line that
    /// says how to load them.
    fn render_held_back(&self, out: &mut String, catalog: &Catalog) {
        if self.held_back.is_empty() {
            return;
        }
        let _ = writeln!(out, "held back (no tool fits; --gate off loads them):");
        let names: Vec<String> = self
            .held_back
            .iter()
            .map(|h| escape(&catalog.tools()[h.index].name).into_owned())
            .collect();
        let width = crate::terminal_text::column_width(&names, 0);
        for (h, name) in self.held_back.iter().zip(&names) {
            let cosine = h
                .cosine
                .map_or(String::new(), |c| format!(", cosine {c:.3}"));
            let _ = writeln!(
                out,
                "      {name:<width$}  score {:.3}, evidence {}{cosine}",
                h.score, h.evidence
            );
        }
    }

    /// The closing lines: tokens full, sent and saved, the method, the
    /// token basis and the session.
    fn render_totals(&self, out: &mut String) {
        let s = &self.savings;
        let _ = writeln!(
            out,
            "\nfull {} tokens, sent {}, saved {} ({:.1} %), deferred {} tools; method {}, token basis {} ({}); session {}",
            thousands(s.full_schema_tokens),
            thousands(s.sent_schema_tokens),
            thousands(s.saved_tokens),
            s.reduction_pct,
            self.deferred_count,
            escape(&self.method),
            escape(&self.token_basis),
            escape(self.basis),
            escape(self.session_id.as_deref().unwrap_or("-"))
        );
        if let Some(note) = &self.session_note {
            let _ = writeln!(out, "session: {}", escape(note));
        }
    }
}

/// Why a found tool matched, as the table's last column says it: an exact
/// name, its usage, its dense scores, then each matched word and where.
fn matched(h: &SearchHit) -> Vec<String> {
    let mut matched: Vec<String> = h
        .explanation
        .matches
        .iter()
        .map(|m| {
            let fields: Vec<&str> = m.fields.iter().map(|f| f.label()).collect();
            let fields = fields.join(", ");
            match m.came_from() {
                Some(from) => escape(&format!("{} ({from}; {fields})", m.word())).into_owned(),
                None => format!("{} ({fields})", escape(&m.term)),
            }
        })
        .collect();
    if let Some(d) = &h.explanation.dense {
        let lexical = d
            .lexical_rank
            .map_or_else(|| "no word matched".to_string(), |r| format!("BM25F #{r}"));
        matched.insert(
            0,
            format!(
                "cosine {:.3} (dense #{}, {lexical})",
                d.cosine, d.dense_rank
            ),
        );
    }
    if let Some(u) = &h.explanation.usage {
        matched.insert(0, crate::service::usage::words(u));
    }
    if h.reason == Some(Reason::ExactName) {
        matched.insert(0, "exact name".into());
    }
    if matched.is_empty() && h.reason == Some(Reason::AlwaysLoad) {
        matched.push("always-load".into());
    }
    matched
}
