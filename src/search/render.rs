//! The CLI's views of a search result: `--json` and the text table.

use super::*;

/// Display helpers shared by the CLI (the TUI draws its own).
impl SearchResult {
    /// The `--json` object of `toolsift search`.
    pub fn to_json(&self, catalog: &Catalog) -> serde_json::Value {
        use serde_json::json;
        let tools: Vec<serde_json::Value> = self
            .tools
            .iter()
            .map(|h| {
                let t = &catalog.tools()[h.index];
                let mut v = json!({
                    "name": t.name,
                    "score": h.score.map(|s| (f64::from(s) * 10_000.0).round() / 10_000.0),
                    "reason": h.reason.map(|r| r.as_str()),
                    "read_only": t.read_only,
                    "idempotent": t.idempotent,
                    "always_load": t.always_load,
                    "matched": h.explanation.matches.iter().map(|m| json!({
                        "term": m.term,
                        "fields": m.fields.iter().map(|f| f.label()).collect::<Vec<_>>(),
                        "score": (f64::from(m.score) * 10_000.0).round() / 10_000.0,
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
                        "cosine": (f64::from(d.cosine) * 10_000.0).round() / 10_000.0,
                        "dense_rank": d.dense_rank,
                        "lexical_rank": d.lexical_rank,
                    });
                }
                v
            })
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
            out["held_back"] = self
                .held_back
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
                .collect();
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

    /// The human-readable table of `toolsift search`.
    pub fn render_text(&self, catalog: &Catalog) -> String {
        // Names, matched words, the note and the service's strings are
        // escaped for the terminal: a catalog and a service are untrusted.
        use crate::numbers::thousands;
        use crate::terminal_text::escape;
        use std::fmt::Write as _;
        let mut out = String::new();
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
            let flags = format!(
                "{} {} {}",
                if t.always_load { "AL" } else { "--" },
                if t.read_only { "RO" } else { "--" },
                if t.idempotent { "ID" } else { "--" },
            );
            let tokens = self
                .tool_tokens
                .as_ref()
                .and_then(|c| c.get(h.index))
                .map_or_else(|| "-".to_string(), |n| thousands(*n));
            let score = h
                .score
                .map_or_else(|| "-".to_string(), |s| format!("{s:.3}"));
            let mut matched: Vec<String> = h
                .explanation
                .matches
                .iter()
                .map(|m| {
                    let fields: Vec<&str> = m.fields.iter().map(|f| f.label()).collect();
                    let fields = fields.join(", ");
                    match m.came_from() {
                        Some(from) => {
                            escape(&format!("{} ({from}; {fields})", m.word())).into_owned()
                        }
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
            let row = format!(
                "{rank_cell:>4}  {name:<width$}  {flags:<8}  {tokens:>6}  {score:>7}  {}",
                matched.join("; ")
            );
            let _ = writeln!(out, "{}", row.trim_end());
        }
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
        if !self.held_back.is_empty() {
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
        out
    }
}
