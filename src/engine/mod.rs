//! The ranking engine: a tool-aware analyzer and a BM25F index with exact-name
//! matching and explanations. Pure: no I/O, no async.

pub mod analyzer;
pub mod dense;
mod index;
pub mod ranker;
mod schema_text;

pub use index::{
    DenseMatch, Explanation, Field, FieldParams, Hit, Index, Params, TermMatch, UnknownField,
    sentence_count,
};
pub use ranker::{CatalogRanker, RankError, Ranker, UnknownRanker};
