//! The text form of an eval's report. Queries, ids, categories and tool
//! names are escaped for the terminal: a queries file and a catalog are
//! untrusted.

use std::fmt::Write as _;

use super::{EvalReport, Metrics};
use crate::terminal_text::{escape, escape_join};

/// The metrics table's header; [`metrics_row`] writes its rows.
const METRICS_HEADER: &str =
    "           all@1  all@3  all@5 all@10  any@1  any@3  any@5 any@10  MRR@10";

/// One row of the metrics table: all@k, any@k, MRR@10.
fn metrics_row(name: &str, m: &Metrics) -> String {
    let mut s = format!("{name:<9}");
    for v in m.all.iter().chain(&m.any) {
        let _ = write!(s, " {v:>6.1}");
    }
    let _ = write!(s, "  {:>6.3}", m.mrr10);
    s
}

impl EvalReport {
    pub fn render_text(&self) -> String {
        let mut out = String::new();
        self.render_summary(&mut out);
        let _ = writeln!(out, "\n");
        let _ = writeln!(out, "{METRICS_HEADER}");
        let _ = writeln!(out, "{}", metrics_row("strict", &self.strict));
        let _ = writeln!(out, "{}", metrics_row("lenient", &self.lenient));
        self.render_categories(&mut out);
        self.render_misses(&mut out);
        self.render_loaded_for_nothing(&mut out);
        out
    }

    /// The opening lines: how many requests against how many tools, the
    /// speed and latency when measured, what the gate answered with no
    /// tool, and how the requests no tool serves were answered.
    fn render_summary(&self, out: &mut String) {
        let _ = write!(
            out,
            "{} queries against {} tools",
            self.queries, self.catalog_tools
        );
        if let Some(speed) = &self.speed {
            let _ = write!(
                out,
                "; index built in {:.1} ms; {:.0} queries/s (ranking, one thread)",
                speed.index_build_ms, speed.queries_per_second
            );
        }
        if let Some(l) = &self.latency {
            let _ = write!(
                out,
                "; {} requests {}, latency p50 {:.1} ms, p95 {:.1} ms, p99 {:.1} ms",
                l.requests,
                if self.speed.is_some() {
                    "ranked (query embedding included)"
                } else {
                    "to the service"
                },
                l.p50_ms,
                l.p95_ms,
                l.p99_ms
            );
        }
        if let Some(g) = &self.gate {
            let cosine = g
                .gate
                .min_cosine
                .map_or(String::new(), |c| format!(", cosine {c}"));
            let _ = write!(
                out,
                "\nrelevance gate on (evidence {}{cosine}): {} of {} requests answered with no tool",
                g.gate.min_evidence, g.no_fit, self.queries
            );
        }
        if let Some(n) = &self.nothing_fits {
            let _ = write!(
                out,
                "\n{} of {} requests no tool serves answered with no tool",
                n.answered_nothing, n.requests
            );
            if self.gate.is_none() {
                let _ = write!(out, " (the relevance gate is off)");
            }
        }
    }

    /// Each category's strict all@1/5/10 and lenient all@10, when there is
    /// more than one.
    fn render_categories(&self, out: &mut String) {
        if self.per_category.len() <= 1 {
            return;
        }
        let _ = writeln!(
            out,
            "\nper category (strict all@1/all@5/all@10, lenient all@10):"
        );
        for (c, m) in &self.per_category {
            let _ = writeln!(
                out,
                "  {:<28} {:>4} queries  {:>5.1} {:>5.1} {:>5.1}  {:>5.1}",
                escape(c),
                m.queries,
                m.strict.all[0],
                m.strict.all[2],
                m.strict.all[3],
                m.lenient.all[3]
            );
        }
    }

    /// The requests with an expected tool outside the top k: the request
    /// (its first 100 characters), the tools missing and what came first.
    fn render_misses(&self, out: &mut String) {
        let _ = writeln!(
            out,
            "\n{} requests with an expected tool outside the top {}:",
            self.misses.len(),
            self.k
        );
        for m in &self.misses {
            let query: String = m.query.chars().take(100).collect();
            let ellipsis = if query.len() < m.query.len() {
                "…"
            } else {
                ""
            };
            let _ = writeln!(out, "  [{}] {}{ellipsis}", escape(&m.id), escape(&query));
            let _ = writeln!(
                out,
                "      missing {}; top: {}",
                escape_join(&m.missing, ", "),
                escape_join(&m.top, ", ")
            );
        }
    }

    /// The requests no tool serves that loaded tools anyway, with those
    /// tools.
    fn render_loaded_for_nothing(&self, out: &mut String) {
        let Some(n) = &self.nothing_fits else { return };
        if n.loaded.is_empty() {
            return;
        }
        let _ = writeln!(
            out,
            "\n{} requests no tool serves that loaded tools:",
            n.loaded.len()
        );
        for m in &n.loaded {
            let _ = writeln!(out, "  [{}] {}", escape(&m.id), escape(&m.query));
            let _ = writeln!(out, "      top: {}", escape_join(&m.top, ", "));
        }
    }
}
