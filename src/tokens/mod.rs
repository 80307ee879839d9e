//! Schema token costs (docs/wire.md §4) and the savings arithmetic (docs/wire.md §3).
//!
//! A tool costs the tokens of its definition as a provider receives it: the
//! compact JSON of `{"type":"function","name","description","parameters"}`,
//! or, for a provider's own bases, the text its models are given. That text
//! is the provider module's ([`crate::provider::openai`],
//! [`crate::provider::anthropic`]); this module counts it.
//! Counts are cached by a 128-bit hash of the basis and that JSON, so a
//! repeated tool is serialised and hashed, never tokenized again; the cache
//! is bounded in bytes and keeps the recently used counts. The BPE
//! vocabularies (bundled by tiktoken-rs, no network) load once, on first use.

use std::collections::HashMap;
use std::fmt;
use std::str::FromStr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard, OnceLock};

use serde::{Deserialize, Deserializer, Serialize};
use tiktoken_rs::CoreBPE;

use crate::catalog::Tool;
use crate::provider::openai;
use anthropic::Claude;

pub mod anthropic;
pub mod by_basis;
mod savings;

pub use savings::{Savings, reduction_pct, saved_tokens};

/// Which counter gives the token figures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum TokenBasis {
    /// OpenAI's o200k_base BPE (GPT-4o and later). The default.
    #[default]
    O200kBase,
    /// OpenAI's cl100k_base BPE (GPT-4, GPT-3.5).
    Cl100kBase,
    /// `ceil(bytes / 4)`, Caveman's own estimate; needs no vocabulary.
    EstimatedBytesDiv4,
    /// OpenAI's rendering of the functions ([`crate::provider::openai`])
    /// under o200k_base (GPT-4o and later): a tool costs its part of the
    /// block, a request with tools [`TokenBasis::request_overhead`] more.
    OpenAi,
    /// The same under cl100k_base (GPT-4, GPT-3.5).
    OpenAiGpt4,
    /// An estimate of a Claude request ([`by_basis::anthropic_estimate`]):
    /// a tool costs its Messages API definition's cl100k_base count times
    /// 1.23, a request with tools the family's tool-use prompt more.
    Anthropic(Claude),
}

impl TokenBasis {
    pub const ALL: [TokenBasis; 6] = [
        TokenBasis::O200kBase,
        TokenBasis::Cl100kBase,
        TokenBasis::EstimatedBytesDiv4,
        TokenBasis::OpenAi,
        TokenBasis::OpenAiGpt4,
        TokenBasis::ANTHROPIC,
    ];

    /// The current Claude models with `tool_choice` auto.
    pub const ANTHROPIC: TokenBasis = TokenBasis::Anthropic(Claude::CURRENT);

    /// Every basis a name gives: [`TokenBasis::ALL`] and the other Claude
    /// families and choices.
    pub const NAMED: [TokenBasis; 13] = {
        let mut out = [TokenBasis::O200kBase; 13];
        let mut i = 0;
        while i < 5 {
            out[i] = TokenBasis::ALL[i];
            i += 1;
        }
        while i < 13 {
            out[i] = TokenBasis::Anthropic(Claude::EVERY[i - 5]);
            i += 1;
        }
        out
    };

    /// What a request that carries any tools costs beyond the tools' own
    /// figures: OpenAI's block header, footer and 9; Anthropic's tool-use
    /// prompt; nothing for the JSON bases.
    pub fn request_overhead(self) -> u64 {
        match self {
            TokenBasis::OpenAi | TokenBasis::OpenAiGpt4 => {
                // Counted once per basis: the explorer asks on every frame.
                static O200K: OnceLock<u64> = OnceLock::new();
                static CL100K: OnceLock<u64> = OnceLock::new();
                let cell = if self == TokenBasis::OpenAi {
                    &O200K
                } else {
                    &CL100K
                };
                *cell.get_or_init(|| {
                    self.count(openai::HEADER)
                        + self.count(openai::FOOTER)
                        + openai::REQUEST_OVERHEAD
                })
            }
            TokenBasis::Anthropic(claude) => claude.tool_prompt(),
            _ => 0,
        }
    }

    /// `tools` as a set: their figures, and the overhead when there is one.
    pub fn set_cost(self, tool_costs: impl IntoIterator<Item = u64>) -> u64 {
        let mut any = false;
        let sum: u64 = tool_costs.into_iter().inspect(|_| any = true).sum();
        if any {
            sum + self.request_overhead()
        } else {
            0
        }
    }

    /// The text a tool is counted on with this basis.
    pub fn tool_text(self, tool: &Tool) -> String {
        match self {
            TokenBasis::OpenAi | TokenBasis::OpenAiGpt4 => openai::render_tool(tool),
            TokenBasis::Anthropic(_) => crate::provider::anthropic::anthropic_json(tool),
            _ => provider_json(tool),
        }
    }

    /// The name on the wire (`token_basis`).
    pub fn as_str(self) -> &'static str {
        match self {
            TokenBasis::O200kBase => "o200k_base",
            TokenBasis::Cl100kBase => "cl100k_base",
            TokenBasis::EstimatedBytesDiv4 => "estimated_bytes_div_4",
            TokenBasis::OpenAi => "openai",
            TokenBasis::OpenAiGpt4 => "openai:gpt-4",
            TokenBasis::Anthropic(claude) => claude.name(),
        }
    }

    /// The name shown to people: an estimate says so.
    pub fn label(self) -> &'static str {
        match self {
            TokenBasis::Anthropic(claude) => claude.label(),
            other => other.as_str(),
        }
    }

    /// The next basis in [`TokenBasis::ALL`], wrapping around (from one
    /// of the other Claude bases, the first after the default).
    pub fn next(self) -> Self {
        let i = Self::ALL.iter().position(|b| *b == self).unwrap_or(0);
        Self::ALL[(i + 1) % Self::ALL.len()]
    }

    /// The basis before this one in [`TokenBasis::ALL`], wrapping around
    /// (from one of the other Claude bases, the default).
    pub fn prev(self) -> Self {
        match Self::ALL.iter().position(|b| *b == self) {
            Some(i) => Self::ALL[(i + Self::ALL.len() - 1) % Self::ALL.len()],
            None => Self::ALL[0],
        }
    }

    /// A number of its own, which seeds the cache's hash.
    fn seed(self) -> u64 {
        Self::NAMED.iter().position(|b| *b == self).unwrap_or(0) as u64
    }

    fn bpe(self) -> Option<&'static CoreBPE> {
        static O200K: OnceLock<Option<CoreBPE>> = OnceLock::new();
        static CL100K: OnceLock<Option<CoreBPE>> = OnceLock::new();
        match self {
            TokenBasis::O200kBase | TokenBasis::OpenAi => O200K
                .get_or_init(|| tiktoken_rs::o200k_base().ok())
                .as_ref(),
            TokenBasis::Cl100kBase | TokenBasis::OpenAiGpt4 | TokenBasis::Anthropic(_) => CL100K
                .get_or_init(|| tiktoken_rs::cl100k_base().ok())
                .as_ref(),
            TokenBasis::EstimatedBytesDiv4 => None,
        }
    }

    /// Token count of `text` with this basis. The vocabularies are bundled in
    /// the binary; should one ever fail to load, the count falls back to
    /// `ceil(bytes/4)` rather than failing.
    pub fn count(self, text: &str) -> u64 {
        let n = match self.bpe() {
            Some(bpe) => bpe.encode_ordinary(text).len() as u64,
            None => text.len().div_ceil(4) as u64,
        };
        if let TokenBasis::Anthropic(_) = self {
            anthropic::scale(n)
        } else {
            n
        }
    }
}

impl Serialize for TokenBasis {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

/// A config file names a token basis.
impl crate::file_value::Named for TokenBasis {
    const ALL: &'static [Self] = &TokenBasis::NAMED;
    const EXPECTED: Option<&'static str> = Some(
        "o200k_base, cl100k_base, estimated_bytes_div_4, openai, openai:MODEL, anthropic or anthropic:MODEL (:any after an Anthropic basis for tool_choice any or tool)",
    );
}

impl fmt::Display for TokenBasis {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An unknown token basis name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown token basis {0:?} (expected o200k_base, cl100k_base, estimated_bytes_div_4, openai, openai:MODEL, anthropic or anthropic:MODEL, with :any after an Anthropic one for tool_choice any or tool)"
)]
pub struct UnknownBasis(pub String);

impl FromStr for TokenBasis {
    type Err = UnknownBasis;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        // A label read back (`anthropic (estimate)`, as a response names it).
        if let Some(b) = TokenBasis::NAMED.into_iter().find(|b| b.label() == s) {
            return Ok(b);
        }
        if let Some(b) = TokenBasis::NAMED.into_iter().find(|b| b.as_str() == s) {
            return Ok(b);
        }
        let unknown = || UnknownBasis(s.to_string());
        if let Some(model) = s.strip_prefix("openai:") {
            // The model's encoding, as tiktoken maps model names.
            use tiktoken_rs::tokenizer::{Tokenizer, get_tokenizer};
            return match get_tokenizer(model).ok_or_else(unknown)? {
                Tokenizer::O200kBase | Tokenizer::O200kHarmony => Ok(TokenBasis::OpenAi),
                Tokenizer::Cl100kBase => Ok(TokenBasis::OpenAiGpt4),
                _ => Err(unknown()),
            };
        }
        Claude::parse(s)
            .map(TokenBasis::Anthropic)
            .ok_or_else(unknown)
    }
}

/// From its wire name; any other value is an [`UnknownBasis`].
impl<'de> Deserialize<'de> for TokenBasis {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = String::deserialize(deserializer)?;
        name.parse().map_err(serde::de::Error::custom)
    }
}

/// The text the JSON bases count: the tool's definition as a provider
/// receives it, compact JSON of
/// `{"type":"function","name","description","parameters"}`
/// ([`openai::openai_json`]).
pub fn provider_json(tool: &Tool) -> String {
    openai::openai_json(tool)
}

/// Bytes of token counts a [`TokenCounter`] keeps by default (up to 458,752
/// definitions' counts, 2 tables of 6.25 MiB).
pub const DEFAULT_CACHE_BYTES: usize = 16 << 20;

/// A definition's cache key: 128 bits of hash of its basis and JSON, as two
/// halves (no 16-byte alignment, so an entry is 24 bytes).
type Key = (u64, u64);

/// Bytes of a table of counts with room for `capacity`.
fn table_bytes(capacity: usize) -> usize {
    crate::heap_size::table(capacity, std::mem::size_of::<(Key, u64)>())
}

/// The counts: two generations of a hash map. New counts go into the young
/// one; when it is full the old one is dropped (its table reused) and the
/// young one becomes old; a count found in the old one moves to the young
/// one. So the counts used within the last generation are kept, and the
/// tables never hold more than the budget.
#[derive(Debug, Default)]
struct Counts {
    young: HashMap<Key, u64>,
    old: HashMap<Key, u64>,
    /// Entries a generation holds (0: nothing is cached).
    per_generation: usize,
}

impl Counts {
    /// Two generations whose tables fit in `budget` bytes together.
    fn new(budget: usize) -> Self {
        let slot = std::mem::size_of::<(Key, u64)>() + 1;
        let buckets = (budget / 2).saturating_sub(16) / slot;
        // The largest table that fits: a power of two of buckets, 7/8 full.
        let per_generation = match buckets {
            0..8 => 0,
            b => (1usize << b.ilog2()) / 8 * 7,
        };
        Counts {
            per_generation,
            ..Counts::default()
        }
    }

    fn get(&mut self, key: &Key) -> Option<u64> {
        if let Some(&count) = self.young.get(key) {
            return Some(count);
        }
        let count = self.old.remove(key)?;
        self.insert(*key, count);
        Some(count)
    }

    fn insert(&mut self, key: Key, count: u64) {
        if self.per_generation == 0 {
            return;
        }
        if self.young.len() >= self.per_generation {
            std::mem::swap(&mut self.young, &mut self.old);
            self.young.clear();
            // A generation's full table at once, rather than grown by
            // doubling (which holds two tables while it copies).
            if self.young.capacity() < self.per_generation {
                self.young = HashMap::with_capacity(self.per_generation);
            }
        }
        self.young.insert(key, count);
    }

    fn len(&self) -> usize {
        self.young.len() + self.old.len()
    }

    fn bytes(&self) -> usize {
        table_bytes(self.young.capacity()) + table_bytes(self.old.capacity())
    }
}

/// Counts schema tokens, caching per-tool counts by content hash.
#[derive(Debug)]
pub struct TokenCounter {
    cache: Mutex<Counts>,
    tokenized: AtomicU64,
}

impl Default for TokenCounter {
    fn default() -> Self {
        Self::with_cache_bytes(DEFAULT_CACHE_BYTES)
    }
}

impl TokenCounter {
    /// A counter with the default cache, [`DEFAULT_CACHE_BYTES`].
    pub fn new() -> Self {
        Self::default()
    }

    /// A counter whose cache holds at most `bytes` (0: no cache).
    pub fn with_cache_bytes(bytes: usize) -> Self {
        TokenCounter {
            cache: Mutex::new(Counts::new(bytes)),
            tokenized: AtomicU64::new(0),
        }
    }

    fn cache(&self) -> MutexGuard<'_, Counts> {
        self.cache.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The tool's schema tokens with `basis`.
    pub fn tool_tokens(&self, tool: &Tool, basis: TokenBasis) -> u64 {
        let json = basis.tool_text(tool);
        let seed = basis.seed();
        let hash = xxhash_rust::xxh3::xxh3_128_with_seed(json.as_bytes(), seed);
        let key = ((hash >> 64) as u64, hash as u64);
        if let Some(count) = self.cache().get(&key) {
            return count;
        }
        let count = basis.count(&json);
        self.tokenized.fetch_add(1, Ordering::Relaxed);
        self.cache().insert(key, count);
        count
    }

    /// Per-tool counts, in the order given.
    pub fn tools_tokens<'a>(
        &self,
        tools: impl IntoIterator<Item = &'a Tool>,
        basis: TokenBasis,
    ) -> Vec<u64> {
        tools
            .into_iter()
            .map(|t| self.tool_tokens(t, basis))
            .collect()
    }

    /// How many definitions were actually tokenized (cache misses) so far.
    pub fn tokenized_count(&self) -> u64 {
        self.tokenized.load(Ordering::Relaxed)
    }

    /// Counts held in the cache now.
    pub fn cached_count(&self) -> usize {
        self.cache().len()
    }

    /// Bytes the cache's tables take now (approximate: what std's hash
    /// table allocates for them).
    pub fn cache_bytes(&self) -> usize {
        self.cache().bytes()
    }
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod provider_bases_tests;
