//! Ranking parameters: the fields of a tool document and how each is weighted.

use std::fmt;
use std::str::FromStr;

use serde::Serialize;

use crate::engine::analyzer::QUERY_FILLER;

/// The fields of a tool document.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Field {
    Name,
    Description,
    ParamName,
    ParamDescription,
    NameBigram,
    DescriptionBigram,
    /// The MCP server a tool came from: its name and what it says of
    /// itself ([`crate::catalog::McpOrigin`]).
    Server,
}

// A posting stores the fields a term hit as one bit each in a `u8`.
const _: () = assert!(Field::COUNT <= u8::BITS as usize);

impl Field {
    /// How many fields a tool document has: the length of [`Field::ALL`] and
    /// of every per-field array.
    pub const COUNT: usize = 7;

    /// Every field, in `Field as usize` order.
    pub const ALL: [Field; Field::COUNT] = [
        Field::Name,
        Field::Description,
        Field::ParamName,
        Field::ParamDescription,
        Field::NameBigram,
        Field::DescriptionBigram,
        Field::Server,
    ];

    /// The human label (what explanations show).
    pub fn label(self) -> &'static str {
        match self {
            Field::Name => "name",
            Field::Description => "description",
            Field::ParamName => "parameter name",
            Field::ParamDescription => "parameter description",
            Field::NameBigram => "name phrase",
            Field::DescriptionBigram => "description phrase",
            Field::Server => "server",
        }
    }

    /// The machine name: the serialised form, which [`FromStr`] parses back.
    pub fn key(self) -> &'static str {
        match self {
            Field::Name => "name",
            Field::Description => "description",
            Field::ParamName => "param_name",
            Field::ParamDescription => "param_description",
            Field::NameBigram => "name_bigram",
            Field::DescriptionBigram => "description_bigram",
            Field::Server => "server",
        }
    }

    /// This field's bit in a posting's field mask.
    pub(super) fn bit(self) -> u8 {
        1 << (self as u8)
    }
}

impl fmt::Display for Field {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.label())
    }
}

/// A field name that is not the [`Field::key`] of any field.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown field {0:?} (expected {expected})", expected = expected_fields())]
pub struct UnknownField(pub String);

fn expected_fields() -> String {
    let keys: Vec<String> = Field::ALL
        .iter()
        .map(|f| format!("\"{}\"", f.key()))
        .collect();
    keys.join(", ")
}

impl FromStr for Field {
    type Err = UnknownField;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Field::ALL
            .into_iter()
            .find(|f| f.key() == s)
            .ok_or_else(|| UnknownField(s.to_string()))
    }
}

/// Weight and length normalisation of one field.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FieldParams {
    pub weight: f32,
    pub b: f32,
}

/// Ranking parameters. The defaults were tuned on the BFCL dev set (see
/// BENCHMARKS.md for the figures and the reasoning).
#[derive(Debug, Clone, PartialEq)]
pub struct Params {
    pub k1: f32,
    /// Indexed by `Field as usize`.
    pub fields: [FieldParams; Field::COUNT],
    /// Lucene's idf raised to this power (< 1 flattens rare-term dominance).
    pub idf_power: f32,
    /// A query of at least this many sentences is also scored sentence by
    /// sentence, so each request in a message pulls its own tool up.
    pub min_sentences: usize,
    /// Weight of the best sentence score in that blend.
    pub sentence_weight: f32,
    /// Weight of `context` terms that are not in the query itself.
    pub context_weight: f32,
    /// Words dropped from queries (not from tools): request filler.
    pub query_filler: &'static [&'static str],
    /// Recognise exact tool names in the query and rank those tools first.
    pub exact_names: bool,
    /// Weight of query words that are only digits.
    pub number_weight: f32,
    /// Also look a query's abbreviations up in their long form and the
    /// reverse ([`crate::engine::analyzer::ABBREVIATIONS`]). Off: it did
    /// not pass its bar on bfcl-dev and the GitHub catalog (BENCHMARKS.md).
    pub abbreviations: bool,
    /// Weight of a term added for an abbreviation's other form.
    pub abbreviation_weight: f32,
    /// Also look a query's words up in the words tools use for them
    /// ([`crate::engine::vocabulary`]): "folder" finds "directory".
    pub expansion: bool,
    /// Weight of a term the tool vocabulary table adds: below 1, so of two
    /// tools alike but for the request's word and its expansion, the one
    /// with the request's word ranks first.
    pub expansion_weight: f32,
    /// Weight of a term the WordNet-derived table adds.
    pub wordnet_weight: f32,
    /// An expansion of a word the catalog has weighs this much more or
    /// less (a word no tool has is where expansion matters most).
    pub known_word_expansion: f32,
    /// An expansion of or to a generic word of tool vocabulary ("show",
    /// "get", "make", "return": [`crate::engine::gate::GENERIC_WORDS`])
    /// weighs this much of the others: the verb says less than the thing
    /// it acts on, and most descriptions say "returns".
    pub generic_expansion: f32,
    /// In a query of more words than this, expansions weigh less, in
    /// proportion: a long request already says what it needs in many words.
    pub expansion_words: usize,
    /// A query of more words than this is not expanded at all: its words
    /// say what it needs, and each expansion walks a term's postings
    /// (on bfcl-dev, expanding its long requests too halved the engine's
    /// speed and cost 0.2 points of all@10).
    pub expansion_max_words: usize,
    /// The score of a tool whose name destroys or undoes
    /// ([`crate::engine::vocabulary::DESTRUCTIVE_WORDS`]) is multiplied by
    /// this when the request does not ask to destroy or undo anything.
    pub unasked_destructive: f32,
}

impl Default for Params {
    fn default() -> Self {
        let f = |weight, b| FieldParams { weight, b };
        Params {
            k1: 1.2,
            fields: [
                f(8.0, 0.75),  // name words
                f(1.0, 0.5),   // description
                f(2.0, 0.75),  // parameter names
                f(1.0, 0.75),  // parameter descriptions + enum values
                f(1.0, 0.75),  // name bigrams
                f(0.25, 0.75), // description bigrams
                f(0.25, 0.0),  // the server's name and what it says of itself
            ],
            idf_power: 0.5,
            min_sentences: 4,
            sentence_weight: 0.8,
            context_weight: 0.5,
            query_filler: QUERY_FILLER,
            exact_names: true,
            number_weight: 0.5,
            abbreviations: false,
            abbreviation_weight: 0.5,
            expansion: true,
            expansion_weight: 0.95,
            wordnet_weight: 0.3,
            known_word_expansion: 1.0,
            generic_expansion: 0.5,
            expansion_words: 8,
            expansion_max_words: 12,
            unasked_destructive: 0.8,
        }
    }
}
