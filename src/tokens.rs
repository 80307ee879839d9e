//! Schema token costs (CONTRACT §4) and the savings arithmetic (CONTRACT §3).
//!
//! A tool costs the tokens of its definition as a provider receives it: the
//! compact JSON of `{"type":"function","name","description","parameters"}`.
//! Counts are cached per basis by a 128-bit hash of that JSON, so a repeated
//! tool is serialised and hashed, never tokenized again. The BPE vocabularies
//! (bundled by tiktoken-rs, no network) load once, on first use.

use std::collections::HashMap;
use std::fmt;
use std::str::FromStr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{OnceLock, RwLock};

use serde::{Deserialize, Deserializer, Serialize};
use tiktoken_rs::CoreBPE;

use crate::catalog::Tool;

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
}

impl TokenBasis {
    pub const ALL: [TokenBasis; 3] = [
        TokenBasis::O200kBase,
        TokenBasis::Cl100kBase,
        TokenBasis::EstimatedBytesDiv4,
    ];

    /// The name on the wire (`token_basis`).
    pub fn as_str(self) -> &'static str {
        match self {
            TokenBasis::O200kBase => "o200k_base",
            TokenBasis::Cl100kBase => "cl100k_base",
            TokenBasis::EstimatedBytesDiv4 => "estimated_bytes_div_4",
        }
    }

    /// The next basis in [`TokenBasis::ALL`], wrapping around.
    pub fn next(self) -> Self {
        let i = Self::ALL.iter().position(|b| *b == self).unwrap_or(0);
        Self::ALL[(i + 1) % Self::ALL.len()]
    }

    fn bpe(self) -> Option<&'static CoreBPE> {
        static O200K: OnceLock<Option<CoreBPE>> = OnceLock::new();
        static CL100K: OnceLock<Option<CoreBPE>> = OnceLock::new();
        match self {
            TokenBasis::O200kBase => O200K
                .get_or_init(|| tiktoken_rs::o200k_base().ok())
                .as_ref(),
            TokenBasis::Cl100kBase => CL100K
                .get_or_init(|| tiktoken_rs::cl100k_base().ok())
                .as_ref(),
            TokenBasis::EstimatedBytesDiv4 => None,
        }
    }

    /// Token count of `text` with this basis. The vocabularies are bundled in
    /// the binary; should one ever fail to load, the count falls back to
    /// `ceil(bytes/4)` rather than failing.
    pub fn count(self, text: &str) -> u64 {
        match self.bpe() {
            Some(bpe) => bpe.encode_ordinary(text).len() as u64,
            None => text.len().div_ceil(4) as u64,
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
    const ALL: &'static [Self] = &TokenBasis::ALL;
}

impl fmt::Display for TokenBasis {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An unknown token basis name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown token basis {0:?} (expected o200k_base, cl100k_base or estimated_bytes_div_4)")]
pub struct UnknownBasis(pub String);

impl FromStr for TokenBasis {
    type Err = UnknownBasis;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        TokenBasis::ALL
            .into_iter()
            .find(|b| b.as_str() == s)
            .ok_or_else(|| UnknownBasis(s.to_string()))
    }
}

/// From its wire name; any other value is an [`UnknownBasis`].
impl<'de> Deserialize<'de> for TokenBasis {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = String::deserialize(deserializer)?;
        name.parse().map_err(serde::de::Error::custom)
    }
}

#[derive(Serialize)]
struct ProviderTool<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    name: &'a str,
    description: &'a str,
    parameters: &'a serde_json::Value,
}

/// The tool's definition as a provider receives it: compact JSON of
/// `{"type":"function","name","description","parameters"}` (schema object keys
/// sorted, so the count does not depend on the source file's key order).
pub fn provider_json(tool: &Tool) -> String {
    let definition = ProviderTool {
        kind: "function",
        name: &tool.name,
        description: &tool.description,
        parameters: &tool.input_schema,
    };
    // Serialising a struct of strings and a `Value` cannot fail.
    serde_json::to_string(&definition).unwrap_or_default()
}

/// Counts schema tokens, caching per-tool counts by content hash.
#[derive(Debug, Default)]
pub struct TokenCounter {
    cache: RwLock<HashMap<(TokenBasis, u128), u64>>,
    tokenized: AtomicU64,
}

impl TokenCounter {
    pub fn new() -> Self {
        Self::default()
    }

    /// The tool's schema tokens with `basis`.
    pub fn tool_tokens(&self, tool: &Tool, basis: TokenBasis) -> u64 {
        let json = provider_json(tool);
        let key = (basis, xxhash_rust::xxh3::xxh3_128(json.as_bytes()));
        if let Ok(cache) = self.cache.read()
            && let Some(count) = cache.get(&key)
        {
            return *count;
        }
        let count = basis.count(&json);
        self.tokenized.fetch_add(1, Ordering::Relaxed);
        if let Ok(mut cache) = self.cache.write() {
            cache.insert(key, count);
        }
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
}

/// The client's view of a search's token figures (CONTRACT §3): invalid
/// counts (sent > full) become 0/0; saved = full - sent; the reduction is a
/// percentage rounded half-up to one decimal, computed in integers.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Savings {
    pub full_schema_tokens: u64,
    pub sent_schema_tokens: u64,
    pub saved_tokens: u64,
    pub reduction_pct: f64,
}

impl Savings {
    pub fn new(full: u64, sent: u64) -> Self {
        let (full, sent) = if sent > full { (0, 0) } else { (full, sent) };
        Savings {
            full_schema_tokens: full,
            sent_schema_tokens: sent,
            saved_tokens: saved_tokens(full, sent),
            reduction_pct: reduction_pct(full, sent),
        }
    }
}

/// `full - sent`, or 0 when the counts are inconsistent (sent > full).
pub fn saved_tokens(full: u64, sent: u64) -> u64 {
    full.saturating_sub(sent)
}

/// `100 * saved / full` rounded half-up to one decimal; 0 when full is 0 or
/// sent > full. Integer arithmetic (u128, so no overflow for any u64 input).
pub fn reduction_pct(full: u64, sent: u64) -> f64 {
    if full == 0 || sent > full {
        return 0.0;
    }
    let saved = u128::from(full - sent);
    let full = u128::from(full);
    let tenths = (saved * 2000 + full) / (2 * full);
    tenths as f64 / 10.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn contract_vectors() {
        // (sent, full) -> (saved, pct)
        let cases = [
            (120, 840, 720, 85.7),
            (50, 200, 150, 75.0),
            (60, 420, 360, 85.7),
            (0, 100, 100, 100.0),
            (197, 400, 203, 50.8),
        ];
        for (sent, full, saved, pct) in cases {
            let s = Savings::new(full, sent);
            assert_eq!(s.saved_tokens, saved, "{sent}/{full}");
            assert_eq!(s.reduction_pct, pct, "{sent}/{full}");
            assert_eq!((s.full_schema_tokens, s.sent_schema_tokens), (full, sent));
        }
        let bad = Savings::new(100, 200);
        assert_eq!(
            (
                bad.full_schema_tokens,
                bad.sent_schema_tokens,
                bad.saved_tokens,
                bad.reduction_pct
            ),
            (0, 0, 0, 0.0)
        );
        assert_eq!(reduction_pct(0, 0), 0.0);
    }

    #[test]
    fn half_up_rounding() {
        // 1/8 saved = 12.5 % exactly; 1/16 = 6.25 % -> 6.3 (half up, not banker's).
        assert_eq!(reduction_pct(8, 7), 12.5);
        assert_eq!(reduction_pct(16, 15), 6.3);
        assert_eq!(reduction_pct(1600, 1500), 6.3);
        // 2/3 = 66.666.. -> 66.7
        assert_eq!(reduction_pct(3, 1), 66.7);
    }

    proptest! {
        #[test]
        fn pct_matches_float_reference(full in 1u64..10_000_000, frac in 0.0f64..=1.0) {
            let sent = ((full as f64) * frac) as u64;
            let pct = reduction_pct(full, sent);
            let reference = ((full - sent) as f64 * 1000.0 / full as f64 + 0.5).floor() / 10.0;
            prop_assert!((pct - reference).abs() < 0.051, "{pct} vs {reference}");
            prop_assert!((0.0..=100.0).contains(&pct));
            prop_assert_eq!(saved_tokens(full, sent), full - sent);
        }

        #[test]
        fn savings_never_exceed_full(full in any::<u64>(), sent in any::<u64>()) {
            let s = Savings::new(full, sent);
            prop_assert!(s.sent_schema_tokens <= s.full_schema_tokens);
            prop_assert_eq!(s.saved_tokens + s.sent_schema_tokens, s.full_schema_tokens);
            prop_assert!((0.0..=100.0).contains(&s.reduction_pct));
        }
    }

    #[test]
    fn basis_names_round_trip() {
        for b in TokenBasis::ALL {
            assert_eq!(b.as_str().parse::<TokenBasis>(), Ok(b));
            assert_eq!(serde_json::to_value(b).unwrap(), b.as_str());
        }
        assert!("gpt2".parse::<TokenBasis>().is_err());
        assert_eq!(TokenBasis::default(), TokenBasis::O200kBase);
    }

    #[test]
    fn real_tokenizers_count() {
        // Known counts of the real vocabularies: "hello world" is 2 tokens in both.
        assert_eq!(TokenBasis::O200kBase.count("hello world"), 2);
        assert_eq!(TokenBasis::Cl100kBase.count("hello world"), 2);
        assert_eq!(TokenBasis::EstimatedBytesDiv4.count("hello world"), 3);
        assert_eq!(TokenBasis::EstimatedBytesDiv4.count(""), 0);
        // The two vocabularies really differ on some text.
        let text = "Получить статус сервиса и список инцидентов за неделю";
        assert_ne!(
            TokenBasis::O200kBase.count(text),
            TokenBasis::Cl100kBase.count(text)
        );
    }

    #[test]
    fn provider_json_shape_and_cache() {
        let mut tool = Tool::new("lookup_status", "Look up the current service status");
        tool.input_schema =
            serde_json::json!({"type":"object","properties":{},"additionalProperties":false});
        assert_eq!(
            provider_json(&tool),
            r#"{"type":"function","name":"lookup_status","description":"Look up the current service status","parameters":{"additionalProperties":false,"properties":{},"type":"object"}}"#
        );
        let counter = TokenCounter::new();
        let a = counter.tool_tokens(&tool, TokenBasis::O200kBase);
        let b = counter.tool_tokens(&tool, TokenBasis::O200kBase);
        assert_eq!(a, b);
        assert_eq!(a, TokenBasis::O200kBase.count(&provider_json(&tool)));
        assert_eq!(
            counter.tokenized_count(),
            1,
            "second count came from the cache"
        );
        counter.tool_tokens(&tool, TokenBasis::Cl100kBase);
        assert_eq!(counter.tokenized_count(), 2, "cache is per basis");
        tool.description.push('!');
        counter.tool_tokens(&tool, TokenBasis::O200kBase);
        assert_eq!(
            counter.tokenized_count(),
            3,
            "changed content is re-counted"
        );
        let bytes = provider_json(&tool).len() as u64;
        assert_eq!(
            counter.tool_tokens(&tool, TokenBasis::EstimatedBytesDiv4),
            bytes.div_ceil(4)
        );
    }
}
