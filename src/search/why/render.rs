//! A tool's standing in words: the verdict as a sentence, the CLI's text
//! and `--json` views, and the names close to one the catalog lacks.

use std::fmt::Write as _;

use super::{Verdict, Why};
use crate::catalog::Catalog;
use crate::terminal_text::{escape, escape_join};

/// `1st`, `2nd`, `3rd`, `4th`, `11th`, `21st`.
pub fn ordinal(n: usize) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// "the cap of 8", and when always-load tools take places under it how
/// many are left for the searched ones: "the cap of 8 (4 always-load + 4
/// searched)", so a place is read against the room it had.
pub fn cap_words(cap: usize, always_load: usize) -> String {
    if always_load == 0 {
        format!("the cap of {cap}")
    } else {
        format!(
            "the cap of {cap} ({always_load} always-load + {} searched)",
            cap.saturating_sub(always_load)
        )
    }
}

impl Why {
    /// The verdict as a plain sentence (not escaped: it quotes the
    /// request's words).
    pub fn sentence(&self) -> String {
        let mut out = match self.verdict {
            Verdict::AlwaysLoad => {
                "loaded: an always-load tool, loaded whatever the request".to_string()
            }
            Verdict::Loaded if self.exact_name => "loaded: the request names it exactly".into(),
            Verdict::Loaded => match self.rank {
                Some(r) => format!(
                    "loaded: ranked {}, within {}",
                    ordinal(r),
                    cap_words(self.cap, self.always_load)
                ),
                None => "loaded".into(),
            },
            Verdict::BelowCap { rank, cap } => {
                format!(
                    "not loaded: ranked {}, below {}",
                    ordinal(rank),
                    cap_words(cap, self.always_load)
                )
            }
            Verdict::MatchedNothing => format!(
                "not loaded: matched none of the request's words ({})",
                self.unmatched.join(", ")
            ),
            Verdict::EmptyQuery => {
                "not loaded: the request has no words to match (it is empty, or only stop words)"
                    .into()
            }
            Verdict::NotReturned { rank } => format!(
                "not loaded: ranked {}, within {}, but the service did not return it",
                ordinal(rank),
                cap_words(self.cap, self.always_load)
            ),
            Verdict::NoFit { rank } => format!(
                "not loaded: ranked {}, but no tool fits this request well enough (the relevance gate)",
                ordinal(rank)
            ),
        };
        if let Some(u) = &self.usage
            && !matches!(self.verdict, Verdict::AlwaysLoad)
        {
            let _ = write!(out, "; {}", crate::service::usage::words(u));
        }
        if let Some(d) = &self.dense
            && self.rank.is_some()
            && !matches!(self.verdict, Verdict::AlwaysLoad)
        {
            let _ = write!(
                out,
                "; by meaning, cosine {:.3} (dense #{})",
                d.cosine, d.dense_rank
            );
        }
        out
    }

    /// The `why` object of `toolsift search --why TOOL --json`.
    pub fn to_json(&self, catalog: &Catalog) -> serde_json::Value {
        let round = |x: f32| (f64::from(x) * 10_000.0).round() / 10_000.0;
        let mut v = serde_json::json!({
            "tool": catalog.tools()[self.tool].name,
            "loaded": self.verdict.loaded(),
            "verdict": self.verdict.as_str(),
            "sentence": self.sentence(),
            "rank": self.rank,
            "score": self.score.map(round),
            "cap": self.cap,
            "always_load": self.always_load,
            "matched": self.matched,
            "unmatched": self.unmatched,
            "exact_name": self.exact_name,
            "explained": self.explained,
        });
        if let Some(u) = &self.usage {
            v["usage"] = serde_json::json!(u);
        }
        if let Some(d) = &self.dense {
            v["dense"] = serde_json::json!({
                "cosine": round(d.cosine),
                "dense_rank": d.dense_rank,
                "lexical_rank": d.lexical_rank,
            });
        }
        v
    }

    /// The lines `toolsift search --why TOOL` prints after the table. The
    /// tool's name and the request's words are escaped for the terminal.
    pub fn render_text(&self, catalog: &Catalog) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "why {}: {}",
            escape(&catalog.tools()[self.tool].name),
            escape(&self.sentence())
        );
        let _ = writeln!(
            out,
            "  rank         {}",
            match (self.rank, self.verdict) {
                (Some(r), _) => r.to_string(),
                // As the table marks it: loaded first, no number.
                (None, Verdict::AlwaysLoad) => "AL".to_string(),
                (None, _) => "-".to_string(),
            }
        );
        let _ = writeln!(
            out,
            "  score        {}",
            self.score
                .map_or_else(|| "-".to_string(), |s| format!("{s:.3}"))
        );
        let list = |words: &[String]| {
            if words.is_empty() {
                "(none)".to_string()
            } else {
                escape_join(words, ", ")
            }
        };
        if self.explained {
            let _ = writeln!(out, "  matched      {}", list(&self.matched));
            let _ = writeln!(out, "  not matched  {}", list(&self.unmatched));
        } else {
            let _ = writeln!(out, "  matched      (the service does not say)");
        }
        if let Some(u) = &self.usage {
            let _ = writeln!(
                out,
                "  usage        {} (#{} by like requests)",
                crate::service::usage::words(u),
                u.rank
            );
        }
        if let Some(d) = &self.dense {
            let lexical = d
                .lexical_rank
                .map_or_else(|| "no word matched".to_string(), |r| format!("BM25F #{r}"));
            let _ = writeln!(
                out,
                "  cosine       {:.3} (dense #{}, {lexical})",
                d.cosine, d.dense_rank
            );
        }
        out
    }
}
