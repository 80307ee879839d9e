//! The regex ranker (`ranker: "regex"`): the query is a regular expression,
//! matched against each tool's name, its description, its parameter names
//! and its parameter descriptions (with titles and enum values, at every
//! nesting level of the input schema, as [`super::schema_text`] reads it).
//!
//! Patterns are compiled by the `regex` crate, whose matching is linear in
//! the text whatever the pattern (no backtracking: `(a+)+$` against a long
//! description answers at once); the compiled program is bounded in size, and
//! a pattern is at most [`MAX_PATTERN_CHARS`] characters. A pattern that
//! cannot be compiled is a [`RegexError`] saying where and what is wrong.
//!
//! Only tools that match are ranked: by the best field they match (name,
//! then description, parameter names, parameter descriptions), then by how
//! many of the four fields match, then in catalog order. A tool's score is
//! `10 × tier + fields`, the tier 4 for a name down to 1 for a parameter
//! description: 42 is a name and one other field.

use std::sync::Mutex;

use ::regex::{Regex, RegexBuilder};

use super::schema_text::walk_schema;
use super::{CatalogRanker, Explanation, Field, Hit, RankError, Ranker, TermMatch};
use crate::catalog::Tool;

/// The longest pattern accepted, in characters.
pub const MAX_PATTERN_CHARS: usize = 200;

/// Bytes the compiled program may take, and the lazy DFA's cache.
const SIZE_LIMIT: usize = 1 << 20;
const DFA_SIZE_LIMIT: usize = 2 << 20;

/// The regex crate's default nesting limit, for the syntax check too.
const NEST_LIMIT: u32 = 250;

/// A matched text longer than this (in characters) is cut in an
/// explanation.
const MAX_TERM_CHARS: usize = 120;

/// The fields a pattern is matched against, best first.
pub const FIELDS: [Field; 4] = [
    Field::Name,
    Field::Description,
    Field::ParamName,
    Field::ParamDescription,
];

/// A pattern that cannot be used: too long, bad syntax (with its column), or
/// too large once compiled.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("regex: {0}")]
pub struct RegexError(String);

/// `pattern` compiled, or why not.
pub fn compile(pattern: &str) -> Result<Regex, RegexError> {
    let chars = pattern.chars().count();
    if chars > MAX_PATTERN_CHARS {
        return Err(RegexError(format!(
            "the pattern is {chars} characters; at most {MAX_PATTERN_CHARS} are accepted"
        )));
    }
    // The syntax first, for an error with its position.
    if let Err(e) = regex_syntax::ParserBuilder::new()
        .nest_limit(NEST_LIMIT)
        .build()
        .parse(pattern)
    {
        return Err(syntax_error(pattern, &e));
    }
    RegexBuilder::new(pattern)
        .size_limit(SIZE_LIMIT)
        .dfa_size_limit(DFA_SIZE_LIMIT)
        .nest_limit(NEST_LIMIT)
        .build()
        .map_err(|e| match e {
            ::regex::Error::CompiledTooBig(limit) => RegexError(format!(
                "the pattern compiles to more than {} KiB; make it simpler (fewer or smaller repetitions, narrower classes)",
                limit / 1024
            )),
            other => RegexError(other.to_string().lines().last().unwrap_or("").to_string()),
        })
}

/// Whether `pattern` can be used as a regex query (the check the service
/// makes before it ranks).
pub fn check(pattern: &str) -> Result<(), RegexError> {
    compile(pattern).map(drop)
}

/// `unclosed group at column 1 of "(abc"`, from the parser's error.
fn syntax_error(pattern: &str, e: &regex_syntax::Error) -> RegexError {
    let (what, span) = match e {
        regex_syntax::Error::Parse(e) => (e.kind().to_string(), *e.span()),
        regex_syntax::Error::Translate(e) => (e.kind().to_string(), *e.span()),
        other => return RegexError(format!("{other}")),
    };
    let at = if pattern.contains('\n') {
        format!("line {}, column {}", span.start.line, span.start.column)
    } else {
        format!("column {}", span.start.column)
    };
    RegexError(format!("{what} at {at} of {pattern:?}"))
}

/// A catalog's text, ready for patterns: each tool's pieces with their
/// field, the name and description first, then the schema's in order.
#[derive(Debug)]
pub struct RegexRanker {
    tools: Vec<Vec<(Field, Box<str>)>>,
    /// The last pattern compiled (rank, score and explain of one request
    /// compile it once).
    last: Mutex<Option<Regex>>,
}

impl RegexRanker {
    pub fn build(tools: &[Tool]) -> RegexRanker {
        let tools = tools
            .iter()
            .map(|tool| {
                let mut pieces = vec![
                    (Field::Name, Box::from(tool.name.as_str())),
                    (Field::Description, Box::from(tool.description.as_str())),
                ];
                walk_schema(&tool.input_schema, &mut |field, text| {
                    pieces.push((field, Box::from(text)));
                });
                pieces
            })
            .collect();
        RegexRanker {
            tools,
            last: Mutex::new(None),
        }
    }

    /// `pattern` compiled (the last one kept).
    fn regex(&self, pattern: &str) -> Result<Regex, RegexError> {
        let mut last = self.last.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(re) = last.as_ref()
            && re.as_str() == pattern
        {
            return Ok(re.clone());
        }
        let re = compile(pattern)?;
        *last = Some(re.clone());
        Ok(re)
    }

    /// The fields of tool `doc` that `re` matches, one bit each (in
    /// [`FIELDS`] order).
    fn matched(&self, re: &Regex, doc: usize) -> u8 {
        let mut mask = 0u8;
        for (field, text) in &self.tools[doc] {
            let bit = field_bit(*field);
            if mask & bit == 0 && re.is_match(text) {
                mask |= bit;
            }
        }
        mask
    }

    /// Every matching tool, best first.
    fn hits(&self, pattern: &str) -> Result<Vec<Hit>, RankError> {
        if pattern.trim().is_empty() {
            return Ok(Vec::new());
        }
        let re = self.regex(pattern).map_err(|e| RankError(e.to_string()))?;
        let mut hits: Vec<Hit> = (0..self.tools.len())
            .filter_map(|doc| {
                let mask = self.matched(&re, doc);
                (mask != 0).then(|| Hit {
                    doc,
                    score: score(mask),
                    exact: false,
                })
            })
            .collect();
        // Stable: ties stay in catalog order.
        hits.sort_by(|a, b| b.score.total_cmp(&a.score));
        Ok(hits)
    }
}

/// A field's place in [`FIELDS`].
fn place(field: Field) -> usize {
    FIELDS.iter().position(|f| *f == field).unwrap_or(0)
}

fn field_bit(field: Field) -> u8 {
    1 << place(field)
}

/// What a field adds when it is the best one matched: 40 for the name down
/// to 10 for a parameter description.
fn tier(field: Field) -> f32 {
    (10 * (FIELDS.len() - place(field))) as f32
}

/// `10 × tier` of the best field matched, plus 1 per field matched (0 when
/// none is).
fn score(mask: u8) -> f32 {
    match FIELDS.get(mask.trailing_zeros() as usize) {
        Some(&best) => tier(best) + mask.count_ones() as f32,
        None => 0.0,
    }
}

/// `text` cut to [`MAX_TERM_CHARS`] characters, with an ellipsis.
fn cut(text: &str) -> String {
    match text.char_indices().nth(MAX_TERM_CHARS) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
}

impl CatalogRanker for RegexRanker {
    fn ranker(&self) -> Ranker {
        Ranker::Regex
    }

    fn len(&self) -> usize {
        self.tools.len()
    }

    /// The context is not used: the pattern is the query.
    fn rank(&self, query: &str, _context: Option<&str>, k: usize) -> Result<Vec<Hit>, RankError> {
        let mut hits = self.hits(query)?;
        hits.truncate(k);
        Ok(hits)
    }

    /// Per field matched, best first: the first text the pattern matched in
    /// it (cut to 120 characters), and what the field added to the score.
    fn explain(&self, query: &str, _context: Option<&str>, docs: &[usize]) -> Vec<Explanation> {
        let re = match self.regex(query) {
            Ok(re) if !query.trim().is_empty() => re,
            _ => return vec![Explanation::default(); docs.len()],
        };
        docs.iter()
            .map(|&doc| {
                let mut matches: Vec<TermMatch> = Vec::new();
                for field in FIELDS {
                    let found = self
                        .tools
                        .get(doc)
                        .into_iter()
                        .flatten()
                        .find_map(|(f, text)| if *f == field { re.find(text) } else { None });
                    if let Some(m) = found {
                        // The best field carries its tier; each field adds 1.
                        let best = if matches.is_empty() { tier(field) } else { 0.0 };
                        matches.push(TermMatch {
                            term: cut(m.as_str()),
                            fields: vec![field],
                            score: best + 1.0,
                            weak: false,
                            rare: false,
                        });
                    }
                }
                Explanation {
                    unasked_destructive: false,
                    exact_name: false,
                    name_covered: false,
                    matches,
                    dense: None,
                    usage: None,
                }
            })
            .collect()
    }

    fn score(
        &self,
        query: &str,
        _context: Option<&str>,
        docs: &[usize],
    ) -> Result<Vec<f32>, RankError> {
        if query.trim().is_empty() {
            return Ok(vec![0.0; docs.len()]);
        }
        let re = self.regex(query).map_err(|e| RankError(e.to_string()))?;
        Ok(docs
            .iter()
            .map(|&doc| {
                if doc < self.tools.len() {
                    score(self.matched(&re, doc))
                } else {
                    0.0
                }
            })
            .collect())
    }

    fn heap_bytes(&self) -> usize {
        let piece = std::mem::size_of::<(Field, Box<str>)>();
        self.tools.capacity() * std::mem::size_of::<Vec<(Field, Box<str>)>>()
            + self
                .tools
                .iter()
                .map(|t| t.capacity() * piece + t.iter().map(|(_, s)| s.len()).sum::<usize>())
                .sum::<usize>()
    }
}

#[cfg(test)]
mod tests;
