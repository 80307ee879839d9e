//! Embedding providers and the vector cache: the I/O behind the dense
//! rankers (`embeddings`, `hybrid`), whose math is in
//! [`crate::engine::dense`].
//!
//! - [`local`]: a sentence-transformers BERT model run in-process (candle);
//! - [`http`]: any OpenAI-compatible `/v1/embeddings` service;
//! - [`cache`]: vectors by (provider, model, prefix, text hash), in memory
//!   and on disk;
//! - [`ranker`]: the `embeddings` and `hybrid` [`crate::engine::CatalogRanker`]s;
//! - [`settings`]: which provider the flags, the config file and the
//!   environment name.

#[cfg(feature = "embed-local")]
pub mod bert;
#[cfg(bundled_model)]
pub mod bundled;
pub mod cache;
pub mod http;
#[cfg(feature = "embed-local")]
pub mod hub;
#[cfg(feature = "embed-local")]
mod kernels;
#[cfg(feature = "embed-local")]
pub mod local;
#[cfg(feature = "embed-local")]
pub mod model_files;
mod no_default;
pub mod ranker;
pub mod settings;

use std::fmt;
use std::sync::Arc;

pub use cache::{CacheStats, SharedVectors, VectorCache};

/// The model the explorer and the gateway rank with by default when it is
/// already in the hub cache (`hybrid`): small (90 MB), English, and the one
/// the gate's cosine threshold was measured with.
pub const DEFAULT_MODEL: &str = "sentence-transformers/all-MiniLM-L6-v2";
/// Texts sent to a provider per call, unless configured.
pub const DEFAULT_BATCH: usize = 32;

/// The model every front end ranks with when none is named: the one built
/// into toolsift (feature `bundled-model`), else [`DEFAULT_MODEL`] from the
/// hub cache.
pub fn default_model_name() -> &'static str {
    #[cfg(bundled_model)]
    return bundled::NAME;
    #[cfg(not(bundled_model))]
    DEFAULT_MODEL
}

/// About how many bytes a fetch of [`DEFAULT_MODEL`] brings (its weights,
/// tokenizer and configuration), said before it starts.
pub const DEFAULT_MODEL_BYTES: u64 = 91_000_000;

/// [`DEFAULT_MODEL`]'s directory when the hub cache holds it whole (no
/// network); never in a build without the `embed-local` feature, which
/// cannot run it.
pub fn default_model_cached(env: &dyn Fn(&str) -> Option<String>) -> Option<std::path::PathBuf> {
    #[cfg(feature = "embed-local")]
    return hub::default_model_cached(env);
    #[cfg(not(feature = "embed-local"))]
    {
        let _ = env;
        None
    }
}

/// Whether the default search model is turned off (`TOOLSIFT_MODEL=off`,
/// or `0`, `false`, `no`, `none`): front ends that named no provider rank
/// with BM25F alone.
pub fn model_off_in(env: &dyn Fn(&str) -> Option<String>) -> bool {
    env("TOOLSIFT_MODEL").is_some_and(|v| {
        matches!(
            v.trim().to_ascii_lowercase().as_str(),
            "off" | "0" | "false" | "no" | "none"
        )
    })
}

/// Whether fetching is off: `TOOLSIFT_OFFLINE` or the hub's own
/// `HF_HUB_OFFLINE` set to `1`, `true`, `yes` or `on`.
pub fn offline_in(env: &dyn Fn(&str) -> Option<String>) -> bool {
    ["TOOLSIFT_OFFLINE", "HF_HUB_OFFLINE"].iter().any(|n| {
        env(n).is_some_and(|v| {
            matches!(
                v.trim().to_ascii_lowercase().as_str(),
                "1" | "true" | "yes" | "on"
            )
        })
    })
}

/// [`DEFAULT_MODEL`]'s directory: from the hub cache, else (unless
/// `offline`) fetched once, `announce` told first what and how big. `Err`
/// says why there is none, for the line that names the BM25F fallback.
pub fn default_model_dir(
    env: &dyn Fn(&str) -> Option<String>,
    offline: bool,
    announce: &mut dyn FnMut(&str),
) -> Result<std::path::PathBuf, NoModel> {
    if let Some(dir) = default_model_cached(env) {
        return Ok(dir);
    }
    #[cfg(not(feature = "embed-local"))]
    {
        let _ = (offline, announce);
        Err(NoModel::NotBuilt)
    }
    #[cfg(feature = "embed-local")]
    {
        if offline {
            return Err(NoModel::Offline);
        }
        let id = default_model_id()?;
        let settings = hub::HubSettings::from_env(env);
        Ok(hub::resolve(&id, &settings, &mut |m| {
            announce(&format!(
                "{m}, once: the search model, about {} MB (--offline or TOOLSIFT_OFFLINE=1 ranks with BM25F alone)",
                DEFAULT_MODEL_BYTES / 1_000_000
            ))
        })?)
    }
}

/// Why the default model is not at hand.
#[derive(Debug, thiserror::Error)]
pub enum NoModel {
    #[error("this toolsift was built without the embed-local feature, so it runs no model")]
    NotBuilt,
    #[error(
        "{DEFAULT_MODEL} is not in the hub cache and fetching is off (--offline, TOOLSIFT_OFFLINE or HF_HUB_OFFLINE); `toolsift model fetch` gets it"
    )]
    Offline,
    #[error("the default model id {DEFAULT_MODEL:?} is not a hub id")]
    BadId,
    #[cfg(feature = "embed-local")]
    #[error(transparent)]
    Hub(#[from] hub::HubError),
}

/// [`DEFAULT_MODEL`] as a hub id.
#[cfg(feature = "embed-local")]
fn default_model_id() -> Result<hub::ModelId, NoModel> {
    hub::ModelId::parse(DEFAULT_MODEL).ok_or(NoModel::BadId)
}
/// A fetch's progress, told `(bytes so far, size)` of the file fetched.
pub type FetchProgress = std::sync::Arc<dyn Fn(u64, u64) + Send + Sync>;

/// A model fetched and loaded later, off the UI thread, its progress told
/// to the watcher it is given (the explorer's first run); run again when a
/// fetch failed or stalled.
pub type ModelJob =
    std::sync::Arc<dyn Fn(FetchProgress) -> Result<Embeddings, NoDefaultModel> + Send + Sync>;

/// [`DEFAULT_MODEL`] fetched into the hub cache, its progress told to
/// `report` (a screen that shows it) and nothing written to stderr.
pub fn fetch_default_model(
    env: &dyn Fn(&str) -> Option<String>,
    report: FetchProgress,
) -> Result<std::path::PathBuf, NoModel> {
    if let Some(dir) = default_model_cached(env) {
        return Ok(dir);
    }
    #[cfg(not(feature = "embed-local"))]
    {
        let _ = report;
        Err(NoModel::NotBuilt)
    }
    #[cfg(feature = "embed-local")]
    {
        let id = default_model_id()?;
        let settings = hub::HubSettings {
            progress: false,
            report: Some(hub::Report(report)),
            ..hub::HubSettings::from_env(env)
        };
        Ok(hub::resolve(&id, &settings, &mut |_| {})?)
    }
}

pub use no_default::NoDefaultModel;
pub use ranker::DenseRanker;
pub use settings::{EmbeddingSettings, SettingsError};

/// What a text is embedded as: asymmetric models (e5) prefix each kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Role {
    Query,
    Document,
}

/// A provider's failure: what went wrong, naming the provider.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("embedding provider {provider}: {message}")]
pub struct EmbedError {
    /// The provider as [`Embedder::describe`] names it.
    pub provider: String,
    pub message: String,
}

impl EmbedError {
    pub fn new(provider: impl Into<String>, message: impl Into<String>) -> Self {
        EmbedError {
            provider: provider.into(),
            message: message.into(),
        }
    }
}

/// A source of unit-length text vectors.
pub trait Embedder: Send + Sync + fmt::Debug {
    /// `local` or `http`: the provider kind, part of every cache key.
    fn kind(&self) -> &'static str;

    /// The model's identity: a name plus whatever tells its weights apart
    /// (a local model's file hash, an HTTP provider's URL and model name).
    fn model(&self) -> &str;

    /// How messages name this provider (`local model DIR`, `URL (model M)`).
    fn describe(&self) -> String;

    /// The text put before every text of `role` (e5: `query: `).
    fn prefix(&self, role: Role) -> &str;

    /// The vector length, when known before the first call.
    fn dimension(&self) -> Option<usize>;

    /// One vector per text, in order, each of length `dimension` and unit
    /// length; prefixes are added here. A wrong count or length is an error.
    fn embed(&self, texts: &[&str], role: Role) -> Result<Vec<Vec<f32>>, EmbedError>;
}

/// Scales `v` to unit length (a zero vector stays zero).
pub fn normalize(v: &mut [f32]) {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 {
        for x in v.iter_mut() {
            *x /= norm;
        }
    }
}

/// Checks a provider's answer: `n` vectors of one length (`dim` when known),
/// finite; returns them normalised.
pub fn check_vectors(
    provider: &str,
    n: usize,
    dim: Option<usize>,
    mut vectors: Vec<Vec<f32>>,
) -> Result<Vec<Vec<f32>>, EmbedError> {
    if vectors.len() != n {
        return Err(EmbedError::new(
            provider,
            format!("asked for {n} vectors, got {}", vectors.len()),
        ));
    }
    let want = dim.or_else(|| vectors.first().map(Vec::len));
    for (i, v) in vectors.iter_mut().enumerate() {
        if Some(v.len()) != want || v.is_empty() {
            return Err(EmbedError::new(
                provider,
                format!(
                    "vector {i} has dimension {}, expected {}",
                    v.len(),
                    want.unwrap_or(0)
                ),
            ));
        }
        if v.iter().any(|x| !x.is_finite()) {
            return Err(EmbedError::new(
                provider,
                format!("vector {i} holds a value that is not a finite number"),
            ));
        }
        normalize(v);
    }
    Ok(vectors)
}

/// What embedding a catalog has done so far, for a progress bar.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Progress {
    /// Texts embedded (or found in the cache) so far.
    pub done: usize,
    pub total: usize,
}

/// Told of the progress of long embedding work (a catalog).
pub type ProgressSink = Arc<dyn Fn(Progress) + Send + Sync>;

/// A provider with its cache: what the dense rankers are built from.
#[derive(Clone)]
pub struct Embeddings {
    provider: Arc<dyn Embedder>,
    cache: Arc<VectorCache>,
    progress: Option<ProgressSink>,
    /// Texts sent to the provider per call.
    batch: usize,
    /// The cosine at which the relevance gate lets a dense ranker's best
    /// tool through (it depends on the model).
    gate_cosine: f32,
}

impl fmt::Debug for Embeddings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Embeddings")
            .field("provider", &self.provider.describe())
            .field("cache", &self.cache.stats())
            .finish()
    }
}

impl Embeddings {
    pub fn new(provider: Arc<dyn Embedder>, cache: Arc<VectorCache>) -> Self {
        Embeddings {
            provider,
            cache,
            progress: None,
            batch: DEFAULT_BATCH,
            gate_cosine: crate::engine::Gate::MIN_COSINE,
        }
    }

    /// The cosine the relevance gate asks of this model's best tool.
    pub fn with_gate_cosine(mut self, cosine: f32) -> Self {
        self.gate_cosine = cosine;
        self
    }

    pub fn gate_cosine(&self) -> f32 {
        self.gate_cosine
    }

    /// Reports catalog embedding progress to `sink`.
    pub fn with_progress(mut self, sink: ProgressSink) -> Self {
        self.progress = Some(sink);
        self
    }

    /// Reports progress to `sink` as well as to the sink already set.
    pub fn also_progress(mut self, sink: ProgressSink) -> Self {
        self.progress = Some(match self.progress.take() {
            None => sink,
            Some(first) => Arc::new(move |p| {
                first(p);
                sink(p);
            }),
        });
        self
    }

    /// Texts per provider call (at least 1).
    pub fn with_batch(mut self, batch: usize) -> Self {
        self.batch = batch.max(1);
        self
    }

    pub fn provider(&self) -> &Arc<dyn Embedder> {
        &self.provider
    }

    pub fn cache(&self) -> &VectorCache {
        &self.cache
    }

    /// The cache namespace of `role`'s texts.
    fn namespace(&self, role: Role) -> cache::Namespace {
        cache::Namespace {
            provider: self.provider.kind().to_string(),
            model: self.provider.model().to_string(),
            prefix: self.provider.prefix(role).to_string(),
        }
    }

    /// Vectors of `texts`, from the cache where it has them; the others are
    /// embedded in batches (progress reported) and cached.
    pub fn embed_all(&self, texts: &[&str], role: Role) -> Result<Vec<Vec<f32>>, EmbedError> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        let ns = self.namespace(role);
        // Learn the length from the provider before trusting a cache: the
        // first text is embedded, and cached like the others.
        let mut first = None;
        let dim = match self.provider.dimension() {
            Some(d) => d,
            None => {
                let v = check_vectors(
                    &self.provider.describe(),
                    1,
                    None,
                    self.provider.embed(&texts[..1], role)?,
                )?
                .pop()
                .unwrap_or_default();
                self.cache.put_many(&ns, &[(texts[0], v.as_slice())]);
                let dim = v.len();
                first = Some(v);
                dim
            }
        };
        let mut out: Vec<Option<Vec<f32>>> = match first {
            Some(v) => {
                let mut out = vec![Some(v)];
                out.extend(self.cache.get_many(&ns, &texts[1..], dim));
                out
            }
            None => self.cache.get_many(&ns, texts, dim),
        };
        // Similar lengths batched together: a batch is padded to its
        // longest text, so sorting the whole list (not each batch) pads
        // least.
        let mut missing: Vec<usize> = (0..texts.len()).filter(|&i| out[i].is_none()).collect();
        missing.sort_by_key(|&i| texts[i].len());
        let total = texts.len();
        let mut done = total - missing.len();
        self.report(done, total);
        for chunk in missing.chunks(self.batch) {
            let batch: Vec<&str> = chunk.iter().map(|&i| texts[i]).collect();
            let vectors = self.provider.embed(&batch, role)?;
            let vectors =
                check_vectors(&self.provider.describe(), batch.len(), Some(dim), vectors)?;
            let pairs: Vec<(&str, &[f32])> = batch
                .iter()
                .copied()
                .zip(vectors.iter().map(Vec::as_slice))
                .collect();
            self.cache.put_many(&ns, &pairs);
            for (&i, v) in chunk.iter().zip(vectors) {
                out[i] = Some(v);
            }
            done += chunk.len();
            self.report(done, total);
        }
        Ok(out.into_iter().map(Option::unwrap_or_default).collect())
    }

    /// Whether the vector of query `text` is in memory already (its search
    /// then costs no embedding).
    pub fn holds_query(&self, text: &str) -> bool {
        self.cache.holds_memory(&self.namespace(Role::Query), text)
    }

    /// The vector of one query (cached in memory only).
    pub fn embed_query(&self, text: &str) -> Result<Vec<f32>, EmbedError> {
        let ns = self.namespace(Role::Query);
        if let Some(v) = self.cache.get_memory(&ns, text) {
            return Ok(v);
        }
        let vectors = self.provider.embed(&[text], Role::Query)?;
        let mut vectors = check_vectors(
            &self.provider.describe(),
            1,
            self.provider.dimension(),
            vectors,
        )?;
        let v = vectors.pop().unwrap_or_default();
        self.cache.put_memory(&ns, text, &v);
        Ok(v)
    }

    fn report(&self, done: usize, total: usize) {
        if let Some(sink) = &self.progress {
            sink(Progress { done, total });
        }
    }
}

/// A provider for unit tests: each word hashed into one of 64 dimensions
/// (a bag of words), so texts sharing words are close.
#[cfg(test)]
#[derive(Debug, Default)]
pub(crate) struct HashEmbedder {
    pub calls: std::sync::atomic::AtomicUsize,
}

#[cfg(test)]
impl Embedder for HashEmbedder {
    fn kind(&self) -> &'static str {
        "test"
    }

    fn model(&self) -> &str {
        "hash-64"
    }

    fn describe(&self) -> String {
        "test hash embedder".into()
    }

    fn prefix(&self, _role: Role) -> &str {
        ""
    }

    fn dimension(&self) -> Option<usize> {
        Some(64)
    }

    fn embed(&self, texts: &[&str], _role: Role) -> Result<Vec<Vec<f32>>, EmbedError> {
        self.calls
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        Ok(texts
            .iter()
            .map(|t| {
                let mut v = vec![0.0f32; 64];
                for w in t
                    .split(|c: char| !c.is_alphanumeric())
                    .filter(|w| !w.is_empty())
                {
                    let h = xxhash_rust::xxh3::xxh3_64(w.to_lowercase().as_bytes());
                    v[(h % 64) as usize] += 1.0;
                }
                v[63] += 0.01;
                normalize(&mut v);
                v
            })
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embed_all_uses_the_cache_and_reports_progress() {
        let provider = Arc::new(HashEmbedder::default());
        let cache = Arc::new(VectorCache::new(100, None));
        let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
        let log = seen.clone();
        let e = Embeddings::new(provider.clone(), cache.clone())
            .with_batch(2)
            .with_progress(Arc::new(move |p| {
                log.lock().unwrap().push((p.done, p.total))
            }));
        let v = e.embed_all(&["a b", "c", "d e f"], Role::Document).unwrap();
        assert_eq!(v.len(), 3);
        assert_eq!(provider.calls.load(std::sync::atomic::Ordering::Relaxed), 2);
        assert_eq!(*seen.lock().unwrap(), vec![(0, 3), (2, 3), (3, 3)]);
        e.embed_all(&["c", "a b"], Role::Document).unwrap();
        assert_eq!(provider.calls.load(std::sync::atomic::Ordering::Relaxed), 2);
        assert_eq!(cache.stats().memory_hits, 2);
    }

    #[test]
    fn wrong_count_length_or_values_are_errors_naming_the_provider() {
        let e = check_vectors("p", 2, Some(2), vec![vec![1.0, 0.0]]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "embedding provider p: asked for 2 vectors, got 1"
        );
        let e = check_vectors("p", 1, Some(3), vec![vec![1.0, 0.0]]).unwrap_err();
        assert!(e.message.contains("dimension 2, expected 3"));
        let e = check_vectors("p", 1, None, vec![vec![f32::NAN]]).unwrap_err();
        assert!(e.message.contains("not a finite number"));
        let ok = check_vectors("p", 1, None, vec![vec![3.0, 4.0]]).unwrap();
        assert_eq!(ok, vec![vec![0.6, 0.8]]);
    }
}
