//! The ranking engine: a tool-aware analyzer and a BM25F index with exact-name
//! matching and explanations, and the regex ranker. Pure: no I/O, no async.

pub mod analyzer;
pub mod close_names;
pub mod dense;
pub mod gate;
mod index;
pub mod intents;
pub mod learned;
pub mod ranker;
pub mod regex;
mod schema_text;
pub mod syntax;
pub mod vocabulary;

pub use gate::{Fit, Gate};
pub use index::{
    DenseMatch, Explanation, Field, FieldParams, Hit, Index, Params, TermMatch, UnknownField,
    UsageMatch, sentence_count,
};
pub use ranker::{CatalogRanker, RankError, Ranker, UnknownRanker};
pub use regex::{RegexError, RegexRanker};
