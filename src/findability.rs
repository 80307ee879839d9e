//! The findability audit (`toolsift check --findability`): can each tool be
//! found from its own words?
//!
//! For every tool that is not always-load, two requests are made from what
//! the tool says of itself, as an agent that read it might write them:
//!
//! - **name**: its name's words ("create directory" for `create_directory`);
//! - **description**: the first sentence of its description, at most
//!   [`DESCRIPTION_WORDS`] words;
//! - **description without its name's words**: that sentence with every
//!   word of the name taken out, so the tool cannot lean on its name.
//!
//! Each is searched with the relevance gate off, and the tool's place among
//! the searched tools is noted. A tool that no request brings into the top
//! `k` is **not found**; a tool that one other tool outranks on its
//! description's requests is **shadowed** by that tool (two tools that describe themselves
//! alike, or one whose words say more of the other's job). A catalog's author
//! fixes either with clearer names and descriptions.

use serde::Serialize;

use crate::catalog::Catalog;
use crate::engine::analyzer::name_words;
use crate::search::{Reason, SearchError, SearchRequest, Searcher};

/// The top `k` that counts as found, unless asked otherwise.
pub const DEFAULT_K: usize = 3;

/// A description request holds at most this many words.
pub const DESCRIPTION_WORDS: usize = 20;

/// How far down a tool's place is looked for: a place below this is "not
/// in the first `DEPTH`".
pub const DEPTH: u64 = 20;

/// Which of a tool's own texts a request was made from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    Name,
    Description,
    /// The description's first sentence without the name's words: does
    /// what the tool says of itself tell it apart, or only its name?
    DescriptionAlone,
}

impl Source {
    pub fn label(self) -> &'static str {
        match self {
            Source::Name => "name",
            Source::Description => "description",
            Source::DescriptionAlone => "description without its name's words",
        }
    }
}

/// One request made from a tool's own words, and where the tool came.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Probe {
    pub source: Source,
    pub query: String,
    /// 1-based place among the searched tools (always-load tools not
    /// counted); `None` below [`DEPTH`].
    pub rank: Option<usize>,
    /// The tool that came first, when it was another.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first: Option<String>,
}

/// One tool's audit.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolAudit {
    /// The tool's place in the catalog.
    #[serde(skip)]
    pub index: usize,
    pub name: String,
    pub probes: Vec<Probe>,
    /// Some request brings it into the top `k`.
    pub found: bool,
    /// Another tool came first for every request.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shadowed_by: Option<String>,
}

impl Probe {
    /// Where the tool came: `3rd`, or `below 20th`.
    pub fn place(&self) -> String {
        use crate::search::why::ordinal;
        match self.rank {
            Some(r) => ordinal(r),
            None => format!("below {}", ordinal(DEPTH as usize)),
        }
    }
}

impl ToolAudit {
    /// Found, but what its description says without the name's words does
    /// not bring it into the top `k`: the request that does, if any.
    fn name_only(&self, k: usize) -> Option<&Probe> {
        self.probes
            .iter()
            .find(|p| p.source == Source::DescriptionAlone)
            .filter(|p| self.found && p.rank.is_none_or(|r| r > k))
    }

    /// Found from its own words, shadowed by none, and not by its name only.
    pub fn well_found(&self, k: usize) -> bool {
        self.found && self.shadowed_by.is_none() && self.name_only(k).is_none()
    }

    /// Hard to find from its own words: no request brings it into the
    /// top `k`, or another tool came first for every request.
    pub fn hard_to_find(&self) -> bool {
        !self.found || self.shadowed_by.is_some()
    }

    /// The audit in one sentence, for the top `k` (names unescaped).
    pub fn verdict(&self, k: usize) -> String {
        if !self.found {
            format!("not found: no request made of its own words brings it into the top {k}")
        } else if let Some(other) = &self.shadowed_by {
            format!("shadowed: {other} comes first for what its description says")
        } else if let Some(p) = self.name_only(k) {
            format!(
                "by its name only: its description without the name's words puts it {}",
                p.place()
            )
        } else {
            format!("found by its own words (top {k})")
        }
    }
}

/// The audit of a catalog.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Audit {
    pub k: usize,
    pub method: String,
    /// Tools audited (always-load tools are loaded whatever is asked).
    pub audited: usize,
    pub always_load: usize,
    pub tools: Vec<ToolAudit>,
}

impl Audit {
    pub fn not_found(&self) -> impl Iterator<Item = &ToolAudit> {
        self.tools.iter().filter(|t| !t.found)
    }

    /// Tools told apart by their name's words only: found, but what their
    /// description says without those words does not bring them into the
    /// top `k`.
    pub fn name_only(&self) -> impl Iterator<Item = &ToolAudit> {
        self.tools.iter().filter(|t| t.name_only(self.k).is_some())
    }

    /// Each catalog tool's audit, by its place in the catalog (`None` for
    /// an always-load tool), for a catalog of `len` tools.
    pub fn by_index(&self, len: usize) -> Vec<Option<ToolAudit>> {
        let mut out = vec![None; len];
        for t in &self.tools {
            if let Some(slot) = out.get_mut(t.index) {
                *slot = Some(t.clone());
            }
        }
        out
    }

    /// Tools hard to find: not found, or shadowed by another.
    pub fn hard_to_find(&self) -> usize {
        self.tools.iter().filter(|t| t.hard_to_find()).count()
    }

    pub fn shadowed(&self) -> impl Iterator<Item = &ToolAudit> {
        self.tools.iter().filter(|t| t.shadowed_by.is_some())
    }

    /// Tools found by every request.
    pub fn found_by_all(&self) -> usize {
        self.tools
            .iter()
            .filter(|t| t.probes.iter().all(|p| p.rank.is_some_and(|r| r <= self.k)))
            .count()
    }
}

/// The requests made from `name` and `description`: the name's words, and
/// the description's first sentence (none when the description is empty or
/// is the name's words again).
pub fn probes_of(name: &str, description: &str) -> Vec<(Source, String)> {
    let mut out = Vec::new();
    let words = name_words(name).join(" ");
    if !words.is_empty() {
        out.push((Source::Name, words.clone()));
    }
    let sentence = first_sentence(description);
    if !sentence.is_empty() && sentence.to_lowercase() != words {
        out.push((Source::Description, sentence.clone()));
        let stemmer = crate::engine::analyzer::Stemmer::default();
        let name_stems: Vec<String> = name_words(name)
            .iter()
            .map(|w| stemmer.stem(w).into_owned())
            .collect();
        let alone: Vec<&str> = sentence
            .split_whitespace()
            .filter(|w| {
                let bare: String = w
                    .chars()
                    .filter(|c| c.is_alphanumeric())
                    .flat_map(char::to_lowercase)
                    .collect();
                !name_stems.contains(&stemmer.stem(&bare).into_owned())
            })
            .collect();
        // Fewer than three words of content left say too little to judge by.
        let content = alone
            .iter()
            .filter(|w| {
                let bare = w
                    .trim_matches(|c: char| !c.is_alphanumeric())
                    .to_lowercase();
                !bare.is_empty() && !crate::engine::analyzer::is_stop_word(&bare)
            })
            .count();
        let alone = (content >= 3).then(|| alone.join(" "));
        if let Some(alone) = alone.filter(|a| *a != sentence) {
            out.push((Source::DescriptionAlone, alone));
        }
    }
    out
}

/// The first sentence of `text` (up to a `.`, `!` or `?` followed by a space
/// or the end, or a line break), at most [`DESCRIPTION_WORDS`] words, on one
/// line.
pub fn first_sentence(text: &str) -> String {
    let mut end = text.len();
    let bytes = text.as_bytes();
    for (i, c) in text.char_indices() {
        let next_is_break = bytes.get(i + 1).is_none_or(|b| b.is_ascii_whitespace());
        if c == '\n' || (matches!(c, '.' | '!' | '?') && next_is_break) {
            end = i;
            break;
        }
    }
    text[..end]
        .split_whitespace()
        .take(DESCRIPTION_WORDS)
        .collect::<Vec<_>>()
        .join(" ")
}

/// Audits every tool of `catalog` with `searcher` (as `base` asks: ranker,
/// token basis; the gate is off and the cap is set here), the top `k`
/// counting as found.
pub fn audit(
    searcher: &Searcher,
    catalog: &Catalog,
    base: &SearchRequest,
    k: usize,
) -> Result<Audit, SearchError> {
    let always = catalog.tools().iter().filter(|t| t.always_load).count();
    let mut method = String::new();
    let mut tools = Vec::new();
    for (index, tool) in catalog.tools().iter().enumerate() {
        if tool.always_load {
            continue;
        }
        let mut probes = Vec::new();
        for (source, query) in probes_of(&tool.name, &tool.description) {
            let request = SearchRequest {
                query: query.clone(),
                max_tools: crate::tools_handle::MaxTools::new(DEPTH + always as u64),
                gate: Some(false),
                preview: true,
                session_id: None,
                ..base.clone()
            };
            let result = searcher.search(catalog, &request)?;
            method.clone_from(&result.method);
            let searched: Vec<usize> = result
                .tools
                .iter()
                .filter(|h| h.reason != Some(Reason::AlwaysLoad))
                .map(|h| h.index)
                .collect();
            let rank = searched.iter().position(|&i| i == index).map(|p| p + 1);
            let first = searched
                .first()
                .filter(|&&i| i != index)
                .map(|&i| catalog.tools()[i].name.clone());
            probes.push(Probe {
                source,
                query,
                rank,
                first,
            });
        }
        let found = probes.iter().any(|p| p.rank.is_some_and(|r| r <= k));
        // Shadowed: one other tool came first for every request made
        // from the description (what the tool says it does).
        let described: Vec<&Probe> = probes.iter().filter(|p| p.source != Source::Name).collect();
        let shadowed_by = match described.first().and_then(|p| p.first.clone()) {
            Some(other) if described.iter().all(|p| p.first.as_deref() == Some(&other)) => {
                Some(other)
            }
            _ => None,
        };
        tools.push(ToolAudit {
            index,
            name: tool.name.clone(),
            probes,
            found,
            shadowed_by,
        });
    }
    Ok(Audit {
        k,
        method,
        audited: tools.len(),
        always_load: always,
        tools,
    })
}

/// The audit as text: the counts, the tools not found with where each
/// request put them, and the shadowed tools. Names and requests come from
/// the catalog and are escaped.
pub fn render_text(audit: &Audit) -> String {
    use crate::terminal_text::escape;
    let k = audit.k;
    let mut out = format!(
        "Findability ({}; requests from each tool's name and description, gate off, top {k}):\n",
        audit.method
    );
    out.push_str(&format!(
        "  {} of {} tools found by every request, {} by some, {} by none{}; {} by the name only, {} shadowed\n",
        audit.found_by_all(),
        audit.audited,
        audit.tools.iter().filter(|t| t.found).count() - audit.found_by_all(),
        audit.not_found().count(),
        if audit.always_load > 0 {
            format!(" ({} always-load tools not audited)", audit.always_load)
        } else {
            String::new()
        },
        audit.name_only().count(),
        audit.shadowed().count(),
    ));
    let place = |p: &Probe| match p.rank {
        Some(r) => format!("#{r}"),
        None => format!("below #{DEPTH}"),
    };
    let listed = |out: &mut String, title: String, tools: Vec<&ToolAudit>| {
        if tools.is_empty() {
            return;
        }
        out.push_str(&title);
        for t in tools {
            out.push_str(&format!("  {}\n", escape(&t.name)));
            for p in &t.probes {
                let first = p
                    .first
                    .as_ref()
                    .map(|f| format!(" (first: {})", escape(f)))
                    .unwrap_or_default();
                out.push_str(&format!(
                    "    {} \"{}\": {}{first}\n",
                    p.source.label(),
                    escape(&p.query),
                    place(p)
                ));
            }
        }
    };
    listed(
        &mut out,
        format!("Not found in the top {k}:\n"),
        audit.not_found().collect(),
    );
    listed(
        &mut out,
        format!(
            "Told apart by the name only (the description without the name's words is not in the top {k}):\n"
        ),
        audit.name_only().collect(),
    );
    let shadowed: Vec<&ToolAudit> = audit.shadowed().collect();
    if !shadowed.is_empty() {
        out.push_str("Shadowed (another tool first for what its description says):\n");
        for t in shadowed {
            let places: Vec<String> = t.probes.iter().map(place).collect();
            out.push_str(&format!(
                "  {} by {} ({})\n",
                escape(&t.name),
                escape(t.shadowed_by.as_deref().unwrap_or_default()),
                places.join(", ")
            ));
        }
    }
    if audit.not_found().count() == 0
        && audit.name_only().count() == 0
        && audit.shadowed().count() == 0
    {
        out.push_str("  every tool is found from its own words, and none is shadowed\n");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tool_is_hard_to_find_when_not_found_or_shadowed() {
        let audit = |found: bool, shadowed_by: Option<&str>| ToolAudit {
            index: 0,
            name: "t".into(),
            probes: Vec::new(),
            found,
            shadowed_by: shadowed_by.map(str::to_string),
        };
        assert!(!audit(true, None).hard_to_find());
        assert!(audit(false, None).hard_to_find());
        assert!(audit(true, Some("other")).hard_to_find());
    }

    #[test]
    fn probes_are_the_names_words_and_the_descriptions_first_sentence() {
        assert_eq!(
            probes_of(
                "create_directory",
                "Create a new directory or ensure it exists. Can create nested dirs."
            ),
            [
                (Source::Name, "create directory".to_string()),
                (
                    Source::Description,
                    "Create a new directory or ensure it exists".to_string()
                ),
                (
                    Source::DescriptionAlone,
                    "a new or ensure it exists".to_string()
                ),
            ]
        );
        assert_eq!(
            probes_of("getWeather", ""),
            [(Source::Name, "get weather".to_string())]
        );
        // A version number's dot does not end the sentence.
        assert_eq!(
            first_sentence("Runs v1.2 of the tool\nSecond line"),
            "Runs v1.2 of the tool"
        );
        let long = "word ".repeat(50);
        assert_eq!(first_sentence(&long).split(' ').count(), DESCRIPTION_WORDS);
    }
}
