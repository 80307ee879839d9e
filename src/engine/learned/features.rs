//! What the learned ranking reads of one tool for one request: a few
//! numbers, each on a scale that does not depend on the catalog's size
//! (shares, reciprocal ranks, cosines, coverage).
//!
//! The facts of a catalog ([`CatalogFacts`]) are read once when its ranker
//! is built: each tool's name words and its server's, and which name words
//! the catalog's read-only tools have (a request that says them reads). The
//! facts of a request ([`QueryFacts`]) once per request.

use std::collections::{HashMap, HashSet};

use super::super::analyzer::{QUERY_FILLER, Stemmer, for_each_word, is_stop_word};
use super::super::gate::evidence;
use super::super::vocabulary::ARROW;
use super::super::{Explanation, TermMatch};
use crate::catalog::Tool;

/// The features, in the order a model's weights are.
pub const NAMES: [&str; COUNT] = [
    "lexical_share",
    "lexical_reciprocal_rank",
    "evidence",
    "name_coverage",
    "request_coverage",
    "request_in_name",
    "exact_name",
    "cosine",
    "cosine_gap",
    "dense_reciprocal_rank",
    "server_named",
    "request_is_server",
    "intent_fit",
    "unasked_destructive",
    "usage",
    "request_unknown",
];

/// How many features there are.
pub const COUNT: usize = 16;

/// One tool's features for one request.
pub type Features = [f32; COUNT];

thread_local! {
    static STEMMER: Stemmer = Stemmer::default();
}

/// The stems of `text`'s words that say what is asked: no stop words, no
/// filler ("please", "me"), no numbers; each once, in order.
pub fn content_stems(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut buf = String::new();
    STEMMER.with(|s| {
        for_each_word(text, &mut buf, |w| {
            if is_stop_word(w)
                || QUERY_FILLER.contains(&w)
                || w.chars().next().is_some_and(|c| c.is_ascii_digit())
            {
                return;
            }
            let stem = s.stem(w).into_owned();
            if !out.contains(&stem) {
                out.push(stem);
            }
        });
    });
    out
}

/// What ranking reads of one tool, once per catalog.
#[derive(Debug, Clone, Default)]
struct ToolFacts {
    name: Vec<String>,
    server: Vec<String>,
    read_only: bool,
}

/// What ranking reads of a catalog, once.
#[derive(Debug, Clone, Default)]
pub struct CatalogFacts {
    tools: Vec<ToolFacts>,
    /// Per name word: how far the tools that have it lean to read-only
    /// (-0.5 all writers, 0.5 all read-only), for words of at least two
    /// tools, in a catalog that marks some tools read-only and some not.
    lean: HashMap<String, f32>,
    /// Every word stem of the tools' names and descriptions.
    words: HashSet<String>,
}

impl CatalogFacts {
    pub fn build(tools: &[Tool]) -> CatalogFacts {
        let facts: Vec<ToolFacts> = tools
            .iter()
            .map(|t| ToolFacts {
                name: content_stems(&super::super::analyzer::name_words(&t.name).join(" ")),
                server: t
                    .mcp
                    .as_ref()
                    .map(|m| {
                        content_stems(&m.server)
                            .into_iter()
                            .filter(|w| w.chars().count() >= 3)
                            .collect()
                    })
                    .unwrap_or_default(),
                read_only: t.read_only,
            })
            .collect();
        let mut counts: HashMap<&str, (u32, u32)> = HashMap::new();
        for t in &facts {
            for w in &t.name {
                let c = counts.entry(w.as_str()).or_default();
                c.0 += u32::from(t.read_only);
                c.1 += 1;
            }
        }
        let marked = facts.iter().any(|t| t.read_only) && facts.iter().any(|t| !t.read_only);
        let lean = if marked {
            counts
                .into_iter()
                .filter(|(_, (_, n))| *n >= 2)
                .map(|(w, (ro, n))| (w.to_string(), (ro as f32 + 0.5) / (n as f32 + 1.0) - 0.5))
                .collect()
        } else {
            HashMap::new()
        };
        let words = tools
            .iter()
            .flat_map(|t| {
                let mut w = content_stems(&super::super::analyzer::name_words(&t.name).join(" "));
                w.extend(content_stems(&t.description));
                w
            })
            .collect();
        CatalogFacts {
            tools: facts,
            lean,
            words,
        }
    }

    /// The request's facts.
    pub fn request(&self, text: &str) -> QueryFacts {
        let stems = content_stems(text);
        let leans: Vec<f32> = stems
            .iter()
            .filter_map(|s| self.lean.get(s).copied())
            .collect();
        let lean = if leans.is_empty() {
            0.0
        } else {
            leans.iter().sum::<f32>() / leans.len() as f32
        };
        let unknown = if stems.is_empty() {
            0.0
        } else {
            stems.iter().filter(|s| !self.words.contains(*s)).count() as f32 / stems.len() as f32
        };
        QueryFacts {
            set: stems.iter().cloned().collect(),
            stems,
            lean,
            unknown,
        }
    }
}

/// What ranking reads of one request.
#[derive(Debug, Clone, Default)]
pub struct QueryFacts {
    stems: Vec<String>,
    set: HashSet<String>,
    /// How far the request's words lean to reading (positive) or changing.
    lean: f32,
    /// The share of the request's words no tool of the catalog has.
    unknown: f32,
}

/// Where a tool stood in the lexical and the dense lists of a request.
#[derive(Debug, Clone, Copy, Default)]
pub struct Standing {
    /// BM25F score and best score, 1-based rank; `None` when no word hit.
    pub lexical: Option<(f32, f32, usize)>,
    /// Cosine, best cosine, 1-based rank; `None` without vectors.
    pub dense: Option<(f32, f32, usize)>,
}

/// The word of the request a match stands for (an expansion's left side).
fn request_word(m: &TermMatch) -> &str {
    m.term
        .split_once(ARROW)
        .map_or(m.term.as_str(), |(from, _)| from)
}

/// Tool `doc`'s features for the request `q`, from its standing and its
/// explanation.
pub fn features(
    facts: &CatalogFacts,
    q: &QueryFacts,
    doc: usize,
    standing: Standing,
    e: &Explanation,
) -> Features {
    let tool = facts.tools.get(doc).cloned().unwrap_or_default();
    let mut x = [0.0; COUNT];
    if let Some((score, best, rank)) = standing.lexical {
        x[0] = if best > 0.0 { score / best } else { 0.0 };
        x[1] = 1.0 / rank as f32;
    }
    x[2] = (evidence(&e.matches) / 4.0).min(1.5);
    if !tool.name.is_empty() {
        let inside = tool.name.iter().filter(|w| q.set.contains(*w)).count();
        x[3] = inside as f32 / tool.name.len() as f32;
    }
    if !q.stems.is_empty() {
        let matched: HashSet<String> = STEMMER.with(|s| {
            e.matches
                .iter()
                .filter(|m| !m.term.contains(' ') || m.term.contains(ARROW))
                .map(|m| s.stem(&request_word(m).to_lowercase()).into_owned())
                .collect()
        });
        let n = q.stems.len() as f32;
        x[4] = q.stems.iter().filter(|s| matched.contains(*s)).count() as f32 / n;
        x[5] = q.stems.iter().filter(|s| tool.name.contains(s)).count() as f32 / n;
        if !tool.server.is_empty() {
            let named = tool.server.iter().filter(|w| q.set.contains(*w)).count();
            x[10] = named as f32 / tool.server.len() as f32;
            x[11] = q.stems.iter().filter(|s| tool.server.contains(s)).count() as f32 / n;
        }
    }
    x[6] = f32::from(u8::from(e.exact_name));
    if let Some((cos, best, rank)) = standing.dense {
        x[7] = cos;
        x[8] = cos - best;
        x[9] = 1.0 / rank as f32;
    }
    x[12] = if tool.read_only { q.lean } else { -q.lean };
    x[13] = f32::from(u8::from(e.unasked_destructive));
    x[14] = f32::from(u8::from(e.usage.is_some()));
    x[15] = q.unknown;
    x
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::McpOrigin;

    fn tool(name: &str, server: &str, read_only: bool) -> Tool {
        let mut t = Tool::new(name, "");
        t.read_only = read_only;
        t.mcp = Some(McpOrigin::new(server, name));
        t
    }

    #[test]
    fn content_stems_drop_filler_stop_words_and_numbers() {
        assert_eq!(
            content_stems("Please add the two numbers 3 and 4"),
            ["add", "two", "number"]
        );
    }

    #[test]
    fn coverage_and_servers_do_not_depend_on_the_catalog_size() {
        let one = CatalogFacts::build(&[tool("add_numbers", "math", false)]);
        let q = one.request("add two numbers");
        let x = features(&one, &q, 0, Standing::default(), &Explanation::default());
        assert_eq!(x[3], 1.0, "every name word is in the request");
        let q = one.request("use math");
        let x = features(&one, &q, 0, Standing::default(), &Explanation::default());
        assert_eq!((x[10], x[11]), (1.0, 0.5));
    }

    #[test]
    fn words_no_tool_has_are_counted() {
        let facts = CatalogFacts::build(&[Tool::new("get_weather", "Forecast for a city")]);
        let q = facts.request("book a flight to the city");
        let x = features(&facts, &q, 0, Standing::default(), &Explanation::default());
        assert_eq!(x[15], 2.0 / 3.0, "book and flight of book, flight, city");
    }

    #[test]
    fn read_words_lean_to_read_only_tools() {
        let facts = CatalogFacts::build(&[
            tool("list_issues", "gh", true),
            tool("list_files", "gh", true),
            tool("create_issue", "gh", false),
            tool("create_file", "gh", false),
        ]);
        let reads = facts.request("list my issues");
        let writes = facts.request("create an issue");
        let e = Explanation::default();
        let ro = |q: &QueryFacts| features(&facts, q, 0, Standing::default(), &e)[12];
        let rw = |q: &QueryFacts| features(&facts, q, 2, Standing::default(), &e)[12];
        assert!(ro(&reads) > 0.0 && rw(&reads) < 0.0);
        assert!(ro(&writes) < 0.0 && rw(&writes) > 0.0);
    }
}
