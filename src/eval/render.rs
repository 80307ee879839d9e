//! The text form of an eval's report.

use super::{EvalReport, Metrics};

impl EvalReport {
    pub fn render_text(&self) -> String {
        // Queries, ids, categories and tool names are escaped for the
        // terminal: a queries file and a catalog are untrusted.
        use crate::terminal_text::{escape, escape_join};
        use std::fmt::Write as _;
        let mut out = String::new();
        let header = "           all@1  all@3  all@5 all@10  any@1  any@3  any@5 any@10  MRR@10";
        let row = |name: &str, m: &Metrics| {
            let mut s = format!("{name:<9}");
            for v in m.all.iter().chain(&m.any) {
                let _ = write!(s, " {v:>6.1}");
            }
            let _ = write!(s, "  {:>6.3}", m.mrr10);
            s
        };
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
        let _ = writeln!(out, "\n");
        let _ = writeln!(out, "{header}");
        let _ = writeln!(out, "{}", row("strict", &self.strict));
        let _ = writeln!(out, "{}", row("lenient", &self.lenient));
        if self.per_category.len() > 1 {
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
        if let Some(n) = &self.nothing_fits
            && !n.loaded.is_empty()
        {
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
        out
    }
}
