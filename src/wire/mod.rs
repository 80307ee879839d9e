//! Serde types of the Caveman tool-search protocol (docs/wire.md §3), field names
//! exactly as on the wire, plus toolsift's documented extensions, which
//! Caveman clients and services ignore:
//!
//! - request `token_basis`: the counter for the token figures (toolsift
//!   sends it only when the user chose a basis);
//! - request `preview: true`: a search made while typing, which neither
//!   creates nor extends a session (sent only when true);
//! - request `gate: true | false`: whether a request no tool fits gets no
//!   searched tool (the relevance gate; the service's default when absent,
//!   sent only when set);
//! - response `held_back`: when the gate found that no tool fits, the
//!   nearest tools it held back, `[{"name", "score", "evidence", "cosine"}]`;
//! - response `note` (why nothing matched), `session_tools` (every tool loaded
//!   in the session, first-load order), `embedding: {"done", "total"}` (a
//!   preview answered by BM25F while the catalog's vectors are computed);
//! - per returned tool: `score`, `reason` (`always_load`, `exact_name`,
//!   `ranked`) and `matched`: `[{"term", "fields", "score"}]`, where `fields`
//!   are the engine's field keys (`name`, `description`, `param_name`,
//!   `param_description`, `name_bigram`, `description_bigram`).

mod base_url;
mod parse;
mod tools_span;

pub use tools_span::{tools_value_start, without_tools};

pub use base_url::{BaseUrlError, normalize_base_url};
pub use parse::{MAX_SAFE_INTEGER, ResponseError, parse_response};

use serde::{Deserialize, Serialize};
use serde_json::Value;
use serde_json::value::RawValue;

use crate::catalog::{Catalog, Tool};
use crate::engine::{Field, Ranker, TermMatch};
use crate::tokens::TokenBasis;

/// The path of the endpoint, below the base URL.
pub const TOOL_SEARCH_PATH: &str = "/sdk/v1/tool-search";

/// A request body. `tools` stays raw so the catalog importer reads it (with
/// its positions and messages); the integers stay JSON values so a bad one
/// gets the SDK's message rather than serde's.
#[derive(Debug, Deserialize)]
pub struct ToolSearchRequest<'a> {
    #[serde(borrow)]
    pub tools: &'a RawValue,
    pub query: Value,
    #[serde(default)]
    pub context: Option<Value>,
    #[serde(default)]
    pub max_tools: Option<Value>,
    #[serde(default)]
    pub session_id: Option<Value>,
    #[serde(default)]
    pub ranker: Option<Value>,
    /// toolsift extension: the counter for the token figures.
    #[serde(default)]
    pub token_basis: Option<Value>,
    /// toolsift extension: a preview records no session.
    #[serde(default)]
    pub preview: Option<Value>,
    /// toolsift extension: the relevance gate on or off.
    #[serde(default)]
    pub gate: Option<Value>,
    /// toolsift extension: the request's intents, each ranked and the
    /// rankings merged (at most 16).
    #[serde(default)]
    pub queries: Option<Value>,
    /// toolsift extension: the always-load tools left out of the answer.
    #[serde(default)]
    pub omit_always_load: Option<Value>,
}

/// A request body as a client sends it: keys in the SDKs' order, optional
/// ones only when given (docs/wire.md §3), then toolsift's extensions.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolSearchBody<'a> {
    pub tools: Vec<WireTool>,
    pub query: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_tools: Option<crate::tools_handle::MaxTools>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session_id: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ranker: Option<Ranker>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub token_basis: Option<&'static str>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub preview: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gate: Option<Value>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub omit_always_load: bool,
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    pub queries: &'a [String],
}

impl<'a> ToolSearchBody<'a> {
    /// The token basis as its wire name.
    pub fn basis(basis: Option<TokenBasis>) -> Option<&'static str> {
        basis.map(TokenBasis::as_str)
    }
}

/// A tool as sent in a request (snake_case descriptor).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WireTool {
    pub name: String,
    pub description: String,
    pub input_schema: Value,
    pub read_only: bool,
    pub idempotent: bool,
    pub always_load: bool,
}

impl From<&Tool> for WireTool {
    fn from(t: &Tool) -> Self {
        WireTool {
            name: t.name.clone(),
            description: t.description.clone(),
            input_schema: t.input_schema.clone(),
            read_only: t.read_only,
            idempotent: t.idempotent,
            always_load: t.always_load,
        }
    }
}

/// One query term that matched a returned tool.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WireMatch {
    pub term: String,
    /// Field keys ([`Field::key`]).
    pub fields: Vec<String>,
    pub score: f64,
}

impl From<&TermMatch> for WireMatch {
    fn from(m: &TermMatch) -> Self {
        WireMatch {
            term: m.term.clone(),
            fields: m.fields.iter().map(|f| f.key().to_string()).collect(),
            score: f64::from(m.score),
        }
    }
}

impl WireMatch {
    /// Back to the engine's form; field keys this build does not know (a
    /// newer service's) are left out.
    pub fn to_match(&self) -> TermMatch {
        TermMatch {
            term: self.term.clone(),
            fields: self
                .fields
                .iter()
                .filter_map(|f| f.parse::<Field>().ok())
                .collect(),
            // The wire does not say; a remote service judged it already.
            weak: false,
            rare: false,
            score: self.score as f32,
        }
    }
}

/// A tool as a response sends it, borrowed from the catalog (the same
/// fields as [`WireTool`], nothing copied; the schema as the catalog keeps
/// it written, [`Catalog::schema_json`]).
#[derive(Debug, Clone, Copy, Serialize)]
pub struct WireToolRef<'a> {
    pub name: &'a str,
    pub description: &'a str,
    pub input_schema: &'a RawValue,
    pub read_only: bool,
    pub idempotent: bool,
    pub always_load: bool,
}

impl<'a> WireToolRef<'a> {
    /// Tool `index` of `catalog`.
    pub fn of(catalog: &'a Catalog, index: usize) -> Self {
        let t = &catalog.tools()[index];
        WireToolRef {
            name: &t.name,
            description: &t.description,
            input_schema: catalog.schema_json(index),
            read_only: t.read_only,
            idempotent: t.idempotent,
            always_load: t.always_load,
        }
    }
}

/// A returned tool: the descriptor (owned, or a [`WireToolRef`] when
/// answering) plus why it was loaded.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WireSelectedTool<T = WireTool> {
    #[serde(flatten)]
    pub tool: T,
    /// Ranking score (0 for an always-load tool that matched nothing).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub score: Option<f64>,
    /// `always_load`, `exact_name` or `ranked`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(default)]
    pub matched: Vec<WireMatch>,
    /// toolsift's extension for dense and hybrid rankings: the cosine and
    /// the tool's rank in each list.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dense: Option<crate::engine::DenseMatch>,
    /// toolsift's extension: agents called this tool after like requests
    /// (learning from use), how often, and its place by them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<crate::engine::UsageMatch>,
}

/// A response body: every contract field always present. `T` is how a
/// tool's descriptor is held ([`WireTool`], or [`WireToolRef`] when
/// answering).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolSearchResponse<T = WireTool> {
    pub tools: Vec<WireSelectedTool<T>>,
    pub sent_schema_tokens: u64,
    pub full_schema_tokens: u64,
    pub deferred_count: u64,
    pub method: String,
    pub token_basis: String,
    pub session_id: String,
    /// Why nothing (or only always-load tools) came back.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// Every tool loaded in this session so far, in first-load order.
    #[serde(default)]
    pub session_tools: Vec<String>,
    /// What became of the session, when not what the request asked: the
    /// `session_id` it named was not held (a new session starts under it),
    /// or its new session could not be saved.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_note: Option<String>,
    /// While a dense ranker's catalog vectors are computed (a preview then
    /// gets BM25F's answer): how many tools are embedded so far.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub embedding: Option<EmbeddingProgress>,
    /// The nearest tools the relevance gate held back, best first, when no
    /// tool fits the request.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub held_back: Vec<WireHeldBack>,
    /// How many tools matched the request beyond those sent (toolsift's
    /// extension: absent where the ranker cannot say, a pattern or a
    /// `select:`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub matching: Option<WireMatching>,
}

/// The tools that share a word with a request: `total` of them, `sent`
/// in the answer (always-load tools counted in neither), and where the
/// others are.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct WireMatching {
    pub total: u64,
    pub sent: u64,
    /// The matching tools not sent, per server (most first; `server`
    /// absent for tools of no server).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub more: Vec<WireServerCount>,
}

/// Matching tools of one server that an answer did not send.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WireServerCount {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server: Option<String>,
    pub count: u64,
}

/// A tool the relevance gate held back: its ranking score and how well it
/// fits ([`crate::engine::Fit`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WireHeldBack {
    pub name: String,
    pub score: f64,
    pub evidence: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cosine: Option<f64>,
    /// The learned ranking's probability that the tool fits.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub probability: Option<f64>,
}

/// Tools embedded so far of a catalog's `total`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct EmbeddingProgress {
    pub done: u64,
    pub total: u64,
}

/// Every error body: `{"error": {"code", "message"}}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ErrorBody {
    pub error: ErrorDetail,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ErrorDetail {
    pub code: String,
    pub message: String,
}
