//! Query expansion: the everyday words of a request meet the words tools
//! use ("folder" finds `create_directory`, "picture" an image tool).
//!
//! Two tables, both bundled (nothing is read or fetched at run time):
//!
//! - `assets/vocabulary/tools.txt`: toolsift's own table of software and
//!   tool verbs and objects, written from general knowledge (its header
//!   gives the format). Its expansions weigh more.
//! - `assets/vocabulary/wordnet.tsv`: synonyms of the most frequent senses
//!   of common English words, derived from WordNet 3.0 by
//!   `scripts/wordnet-table.py` (WordNet 3.0 Copyright 2006 by Princeton
//!   University; its licence is in `assets/vocabulary/WORDNET-LICENSE`).
//!
//! A request's word is looked up by its stem, so every inflection of it
//! expands, unless the table's word is itself an inflection ("times",
//! "contents"): that form has a sense of its own, and only that form
//! expands ("times" looks for "multiply", "time" does not). An expansion
//! is then looked up in the index like any query word. Expanded terms weigh less than the request's own words (see
//! [`super::Params::expansion_weight`]), so a tool that shares the request's
//! exact words still ranks first, and explanations show each expansion as
//! `folder → directory`.

use std::collections::HashSet;
use std::sync::LazyLock;

use rustc_hash::FxHashMap as HashMap;

use super::analyzer::Stemmer;

/// Words of tool vocabulary that say little about which tool a request
/// needs: most tools get, list, create or return some data.
pub const GENERIC_WORDS: &[&str] = &[
    "get",
    "set",
    "list",
    "create",
    "find",
    "search",
    "update",
    "delete",
    "remove",
    "add",
    "calculate",
    "compute",
    "fetch",
    "retrieve",
    "show",
    "make",
    "run",
    "execute",
    "check",
    "send",
    "read",
    "write",
    "open",
    "close",
    "start",
    "stop",
    "info",
    "information",
    "data",
    "detail",
    "details",
    "value",
    "number",
    "result",
    "name",
    "type",
    "id",
    "new",
    "use",
    "using",
    "based",
    "given",
    "specific",
    "provide",
    "return",
    "current",
    "all",
    "any",
];

/// Everyday English words that say nothing of a tool: when, how much, what
/// in general ("next", "about", "everything", "today"), not where (a
/// browser tool hovers "over" and scrolls "below"). A tool whose text
/// has one has not been asked for by it: the relevance gate counts them as
/// weak evidence, never as a rare word ([`crate::engine::gate`]).
pub const EVERYDAY_WORDS: &[&str] = &[
    "about",
    "after",
    "again",
    "ago",
    "almost",
    "already",
    "always",
    "anyone",
    "anything",
    "anywhere",
    "before",
    "both",
    "each",
    "else",
    "enough",
    "even",
    "ever",
    "every",
    "everybody",
    "everyone",
    "everything",
    "everywhere",
    "few",
    "last",
    "later",
    "less",
    "lot",
    "lots",
    "many",
    "more",
    "most",
    "much",
    "never",
    "next",
    "nobody",
    "nothing",
    "now",
    "often",
    "once",
    "only",
    "other",
    "others",
    "own",
    "previous",
    "quite",
    "rather",
    "really",
    "same",
    "something",
    "sometimes",
    "somewhere",
    "soon",
    "still",
    "stuff",
    "than",
    "thing",
    "things",
    "today",
    "tomorrow",
    "tonight",
    "too",
    "very",
    "whatever",
    "yesterday",
    "yet",
];

/// The stems of `words`, for lookups of a word in any form.
fn stems<'a>(words: impl Iterator<Item = &'a &'a str>) -> HashSet<String> {
    let stemmer = Stemmer::default();
    words.map(|w| stemmer.stem(w).into_owned()).collect()
}

static GENERIC_STEMS: LazyLock<HashSet<String>> = LazyLock::new(|| stems(GENERIC_WORDS.iter()));
static EVERYDAY_STEMS: LazyLock<HashSet<String>> = LazyLock::new(|| stems(EVERYDAY_WORDS.iter()));

/// Words of a tool's name that say it destroys or undoes something. Of two
/// tools that match a request alike, the one whose name says so comes
/// second unless the request asks for it ([`UNDO_WORDS`] or one of these):
/// "remember that Alice works at Acme" wants `add_observations` before
/// `delete_observations`.
pub const DESTRUCTIVE_WORDS: &[&str] = &[
    "delete",
    "remove",
    "destroy",
    "drop",
    "erase",
    "purge",
    "reset",
    "clear",
    "kill",
    "revoke",
    "cancel",
    "uninstall",
    "wipe",
    "truncate",
    "discard",
    "terminate",
    "unlink",
];

/// Words of a request that ask to destroy or undo, beside
/// [`DESTRUCTIVE_WORDS`].
pub const UNDO_WORDS: &[&str] = &[
    "undo",
    "forget",
    "unstage",
    "revert",
    "rollback",
    "abort",
    "unsubscribe",
    "rid",
    "stop",
    "disable",
    "deactivate",
    "unset",
    "unassign",
    "trash",
    "nuke",
    "scrap",
    "ditch",
];

static DESTRUCTIVE_STEMS: LazyLock<HashSet<String>> =
    LazyLock::new(|| stems(DESTRUCTIVE_WORDS.iter()));

static UNDO_STEMS: LazyLock<HashSet<String>> =
    LazyLock::new(|| stems(DESTRUCTIVE_WORDS.iter().chain(UNDO_WORDS)));

/// Whether `stem` is the stem of one of [`DESTRUCTIVE_WORDS`] (a tool's
/// name word).
pub fn is_destructive_stem(stem: &str) -> bool {
    DESTRUCTIVE_STEMS.contains(stem)
}

/// Whether `stem` is the stem of a word that asks to destroy or undo (a
/// request's word).
pub fn asks_undo_stem(stem: &str) -> bool {
    UNDO_STEMS.contains(stem)
}

/// Whether `stem` is the stem of one of [`GENERIC_WORDS`].
pub fn is_generic_stem(stem: &str) -> bool {
    GENERIC_STEMS.contains(stem)
}

/// Whether `stem` is the stem of one of [`EVERYDAY_WORDS`].
pub fn is_everyday_stem(stem: &str) -> bool {
    EVERYDAY_STEMS.contains(stem)
}

/// Where an expansion comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// toolsift's table of tool vocabulary.
    Tools,
    /// The WordNet-derived table of general synonyms.
    WordNet,
}

/// One word a request's word also looks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expansion {
    pub word: Box<str>,
    pub source: Source,
    /// The word is one of [`GENERIC_WORDS`]: it says little of a tool.
    pub generic: bool,
}

/// How an explanation writes an expanded term: the request's word, this
/// arrow, the word the tool has (what a person reads is
/// [`crate::engine::index::TermMatch::shown`]).
pub const ARROW: &str = " → ";

/// The tool vocabulary table's text.
pub const TOOLS_TABLE: &str = include_str!("../../assets/vocabulary/tools.txt");
/// The WordNet-derived table's text.
pub const WORDNET_TABLE: &str = include_str!("../../assets/vocabulary/wordnet.tsv");

/// Both tables, keyed by the stem of the request's word, or by the word
/// itself (after [`FORM_KEY`]) when the table's word is an inflection.
#[derive(Debug, Default)]
pub struct Vocabulary {
    by_stem: HashMap<Box<str>, Vec<Expansion>>,
    /// The inflected words the table expands as they are written.
    forms: rustc_hash::FxHashSet<Box<str>>,
    /// A stem -> the keys of its inflected forms that have lists.
    forms_of: HashMap<Box<str>, Vec<Box<str>>>,
}

/// Adds `e` to `list` unless it has the word.
fn push_new(list: &mut Vec<Expansion>, e: Expansion) {
    if list.iter().all(|x| x.word != e.word) {
        list.push(e);
    }
}

/// Marks a key of [`Vocabulary::entries`] that is an inflected word, not a
/// stem (no stem has it).
pub const FORM_KEY: char = '=';

/// Whether `word` is an inflection of a shorter word of the same stem
/// ("times" of "time", "contents" of "content", "modified"): a table's
/// word of that form stands for its own sense, not for every word of its
/// stem.
pub fn is_inflection(stemmer: &Stemmer, word: &str) -> bool {
    let stem = stemmer.stem(word);
    ["s", "es", "d", "ed", "ing"].iter().any(|suffix| {
        word.strip_suffix(suffix)
            .is_some_and(|base| base.len() >= 3 && stemmer.stem(base) == stem)
    })
}

static VOCABULARY: LazyLock<Vocabulary> = LazyLock::new(|| {
    let mut v = Vocabulary::default();
    // A bundled table is checked by the tests; a line it cannot read
    // would be skipped, never a failure at run time.
    let _ = v.add_tools_table(TOOLS_TABLE);
    v.add_wordnet_table(WORDNET_TABLE);
    v
});

/// The bundled vocabulary.
pub fn vocabulary() -> &'static Vocabulary {
    &VOCABULARY
}

/// A line of a table that is not of its form.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {message}: {text:?}")]
pub struct TableError {
    pub line: usize,
    pub message: &'static str,
    pub text: String,
}

fn is_word(w: &str) -> bool {
    !w.is_empty() && w.bytes().all(|b| b.is_ascii_lowercase())
}

impl Vocabulary {
    /// The words a request's word (by its stem) also looks for, the tool
    /// table's first.
    pub fn expansions(&self, stem: &str) -> &[Expansion] {
        self.by_stem.get(stem).map_or(&[], Vec::as_slice)
    }

    /// Whether the table expands `word` as it is written (an inflection
    /// with a sense of its own), not by its stem.
    pub fn has_form(&self, word: &str) -> bool {
        self.forms.contains(word)
    }

    /// The key `word` (of stem `stem`) is expanded by: the word after
    /// [`FORM_KEY`] when [`Vocabulary::has_form`], else its stem.
    pub fn key<'a>(&self, word: &str, stem: &'a str) -> std::borrow::Cow<'a, str> {
        if self.has_form(word) {
            format!("{FORM_KEY}{word}").into()
        } else {
            stem.into()
        }
    }

    /// The words the request's word `word` (of stem `stem`) also looks
    /// for: its own form's when the table has it, else its stem's.
    pub fn expansions_of(&self, word: &str, stem: &str) -> &[Expansion] {
        self.expansions(&self.key(word, stem))
    }

    /// Each key (a request word's stem, or [`FORM_KEY`] and an inflected
    /// word) with the words it also looks for.
    pub fn entries(&self) -> impl Iterator<Item = (&str, &[Expansion])> {
        self.by_stem.iter().map(|(s, e)| (&**s, e.as_slice()))
    }

    /// How many request words expand.
    pub fn len(&self) -> usize {
        self.by_stem.len()
    }

    pub fn is_empty(&self) -> bool {
        self.by_stem.is_empty()
    }

    fn add(&mut self, stemmer: &Stemmer, from: &str, to: &str, source: Source) {
        if from == to {
            return;
        }
        let stem = stemmer.stem(from);
        // A word whose stem is the request word's adds nothing: the index
        // already finds every form of it.
        if stemmer.stem(to) == stem {
            return;
        }
        let expansion = Expansion {
            word: Box::from(to),
            source,
            generic: is_generic_stem(&stemmer.stem(to)),
        };
        if is_inflection(stemmer, from) {
            // The form has its own list, which starts with its stem's:
            // "times" also looks for what "time" does, not the reverse.
            let key = format!("{FORM_KEY}{from}").into_boxed_str();
            if self.forms.insert(Box::from(from)) {
                let seed = self.expansions(&stem).to_vec();
                self.by_stem.insert(key.clone(), seed);
                self.forms_of
                    .entry(Box::from(stem.as_ref()))
                    .or_default()
                    .push(key.clone());
            }
            push_new(self.by_stem.entry(key).or_default(), expansion);
            return;
        }
        for key in self.forms_of.get(stem.as_ref()).into_iter().flatten() {
            if let Some(list) = self.by_stem.get_mut(key) {
                push_new(list, expansion.clone());
            }
        }
        push_new(
            self.by_stem.entry(Box::from(stem.as_ref())).or_default(),
            expansion,
        );
    }

    /// Adds the lines of a tool table (`a = b = c`, `a -> b c`, `#`
    /// comments); every good line is added, and the bad ones returned.
    pub fn add_tools_table(&mut self, text: &str) -> Result<(), Vec<TableError>> {
        let stemmer = Stemmer::default();
        let mut errors = Vec::new();
        for (i, raw) in text.lines().enumerate() {
            let line = raw.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let bad = |message| TableError {
                line: i + 1,
                message,
                text: raw.to_string(),
            };
            if let Some((from, to)) = line.split_once("->") {
                let from = from.trim();
                let to: Vec<&str> = to.split_whitespace().collect();
                if !is_word(from) || to.is_empty() || !to.iter().all(|w| is_word(w)) {
                    errors.push(bad("expected `word -> word word ...` in lower case"));
                    continue;
                }
                for w in to {
                    self.add(&stemmer, from, w, Source::Tools);
                }
            } else if line.contains('=') {
                let group: Vec<&str> = line.split('=').map(str::trim).collect();
                if group.len() < 2 || !group.iter().all(|w| is_word(w)) {
                    errors.push(bad("expected `word = word [= word ...]` in lower case"));
                    continue;
                }
                for a in &group {
                    for b in &group {
                        self.add(&stemmer, a, b, Source::Tools);
                    }
                }
            } else {
                errors.push(bad("expected `->` or `=`"));
            }
        }
        if errors.is_empty() {
            Ok(())
        } else {
            Err(errors)
        }
    }

    /// Adds the lines of the WordNet table (`word<TAB>synonym synonym`),
    /// after the tool table's expansions of the same word.
    pub fn add_wordnet_table(&mut self, text: &str) {
        let stemmer = Stemmer::default();
        for line in text.lines() {
            let Some((from, to)) = line.split_once('\t') else {
                continue;
            };
            if !is_word(from) {
                continue;
            }
            for w in to.split_whitespace().filter(|w| is_word(w)) {
                self.add(&stemmer, from, w, Source::WordNet);
            }
        }
    }
}

#[cfg(test)]
mod tests;
