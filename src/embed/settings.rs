//! Which embedding provider to use: command-line flags over the config
//! file's `[embeddings]` over the environment (`TOOLSIFT_EMBEDDINGS_*`).

#[cfg(feature = "embed-local")]
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use serde::Deserialize;

use super::http::{HttpConfig, HttpEmbedder};
#[cfg(feature = "embed-local")]
use super::hub::{self, HubSettings, ModelId};
#[cfg(feature = "embed-local")]
use super::local::LocalModel;
use super::{Embedder, Embeddings, VectorCache, cache::DEFAULT_MEMORY_VECTORS};

/// What `local` says to pick the model built into toolsift (feature
/// `bundled-model`).
pub const BUILTIN: &str = "builtin";

/// A provider's settings (all optional; `local` or `url` names one). A bad
/// value is refused saying what was found ([`crate::file_value`]).
#[derive(Debug, Clone, PartialEq, Eq, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EmbeddingSettings {
    /// A sentence-transformers model directory, run in-process.
    pub local: Option<String>,
    /// An OpenAI-compatible embeddings endpoint.
    pub url: Option<String>,
    /// The model name sent to `url`.
    pub model: Option<String>,
    /// The environment variable that holds `url`'s API key.
    pub key_env: Option<String>,
    /// Put before every query (e5-style models: `query: `).
    pub query_prefix: Option<String>,
    /// Put before every tool text (e5-style models: `passage: `).
    pub document_prefix: Option<String>,
    /// Send `input_type` (query or passage) to `url`.
    #[serde(default, deserialize_with = "crate::file_value::flag")]
    pub input_type: Option<bool>,
    /// Time limit of one call to `url`, in milliseconds.
    #[serde(default, deserialize_with = "crate::file_value::count")]
    pub timeout_ms: Option<u64>,
    /// Texts per call.
    #[serde(default, deserialize_with = "crate::file_value::count")]
    pub batch: Option<usize>,
    /// Keep vectors on disk under the cache directory (default true).
    #[serde(default, deserialize_with = "crate::file_value::flag")]
    pub disk_cache: Option<bool>,
}

/// A setting that names no usable provider.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("embeddings: {0}")]
pub struct SettingsError(pub String);

/// The environment variables read, by field.
pub const ENV_LOCAL: &str = "TOOLSIFT_EMBEDDINGS_LOCAL";
pub const ENV_URL: &str = "TOOLSIFT_EMBEDDINGS_URL";
pub const ENV_MODEL: &str = "TOOLSIFT_EMBEDDINGS_MODEL";
pub const ENV_KEY_ENV: &str = "TOOLSIFT_EMBEDDINGS_KEY_ENV";

impl EmbeddingSettings {
    /// The settings the environment gives.
    pub fn from_env(env: &dyn Fn(&str) -> Option<String>) -> Self {
        let get = |n: &str| env(n).filter(|v| !v.trim().is_empty());
        EmbeddingSettings {
            local: get(ENV_LOCAL),
            url: get(ENV_URL),
            model: get(ENV_MODEL),
            key_env: get(ENV_KEY_ENV),
            ..Default::default()
        }
    }
}

/// A layer of embedding settings: as every layer, except that a provider
/// named here (`local` or `url`) replaces the one below it whole (its model
/// and key go with it).
impl crate::layer::Layer for EmbeddingSettings {
    fn over(self, under: EmbeddingSettings) -> EmbeddingSettings {
        let names_provider = self.local.is_some() || self.url.is_some();
        let base = if names_provider && (under.local.is_some() || under.url.is_some()) {
            EmbeddingSettings {
                local: None,
                url: None,
                model: None,
                key_env: None,
                ..under.clone()
            }
        } else {
            under.clone()
        };
        EmbeddingSettings {
            local: self.local.or(base.local),
            url: self.url.or(base.url),
            model: self.model.or(base.model),
            key_env: self.key_env.or(base.key_env),
            query_prefix: self.query_prefix.or(base.query_prefix),
            document_prefix: self.document_prefix.or(base.document_prefix),
            input_type: self.input_type.or(base.input_type),
            timeout_ms: self.timeout_ms.or(base.timeout_ms),
            batch: self.batch.or(base.batch),
            disk_cache: self.disk_cache.or(base.disk_cache),
        }
    }
}

impl EmbeddingSettings {
    /// Whether a provider is named.
    pub fn is_configured(&self) -> bool {
        self.local.is_some() || self.url.is_some()
    }

    /// The provider these settings name, loaded (a local model is read
    /// here), with a cache; `None` when none is named.
    pub fn build(
        &self,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Option<Embeddings>, SettingsError> {
        let provider: Arc<dyn Embedder> = match (&self.local, &self.url) {
            (None, None) => return Ok(None),
            (Some(_), Some(_)) => {
                return Err(SettingsError(
                    "both a local model and a URL are given; choose one".into(),
                ));
            }
            #[cfg(not(feature = "embed-local"))]
            (Some(local), None) => {
                return Err(SettingsError(format!(
                    "local model {local:?}: this toolsift was built without the embed-local feature, so it runs no model itself; give an embedding service with --embeddings-url URL, or install toolsift with its default features"
                )));
            }
            #[cfg(bundled_model)]
            (Some(local), None) if local == BUILTIN => Arc::new(
                super::bundled::load()
                    .map_err(|e| SettingsError(e.to_string()))?
                    .with_prefixes(
                        self.query_prefix.clone().unwrap_or_default(),
                        self.document_prefix.clone().unwrap_or_default(),
                    ),
            ),
            #[cfg(all(feature = "embed-local", not(bundled_model)))]
            (Some(local), None) if local == BUILTIN => {
                return Err(SettingsError(format!(
                    "local model {BUILTIN:?}: this toolsift was built without the bundled-model feature, so it has no model built in; give a model directory or a Hugging Face id"
                )));
            }
            #[cfg(feature = "embed-local")]
            (Some(local), None) => self.local_model(local, env)?,
            (None, Some(url)) => self.http_provider(url, env)?,
        };
        let dir = if self.disk_cache.unwrap_or(true) {
            VectorCache::default_dir()
        } else {
            None
        };
        let cache = Arc::new(VectorCache::new(DEFAULT_MEMORY_VECTORS, dir));
        let mut embeddings = Embeddings::new(provider, cache);
        if let Some(b) = self.batch {
            if b == 0 {
                return Err(SettingsError("batch must be at least 1".into()));
            }
            embeddings = embeddings.with_batch(b);
        }
        Ok(Some(embeddings))
    }

    /// The local model `local` names: a directory (`~/` is the home), else
    /// a Hugging Face id fetched once, with the prefixes set.
    #[cfg(feature = "embed-local")]
    fn local_model(
        &self,
        local: &str,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Arc<dyn Embedder>, SettingsError> {
        let dir = match (local.strip_prefix("~/"), env("HOME")) {
            (Some(rest), Some(home)) => PathBuf::from(home).join(rest),
            _ => PathBuf::from(local),
        };
        let model = if dir.exists() {
            LocalModel::load(&dir).map_err(|e| SettingsError(e.to_string()))?
        } else if let Some(id) = ModelId::parse(local) {
            let hub = HubSettings::from_env(env);
            let dir = hub::resolve(&id, &hub, &mut |m| eprintln!("toolsift: {m}"))
                .map_err(|m| SettingsError(format!("local model {m}")))?;
            LocalModel::load(&dir)
                .map_err(|e| SettingsError(e.to_string()))?
                .with_hub_id(&id.to_string())
        } else {
            return Err(SettingsError(format!(
                "local model {local:?}: no such directory (give a sentence-transformers model directory, or a Hugging Face id such as sentence-transformers/all-MiniLM-L6-v2)"
            )));
        };
        Ok(Arc::new(model.with_prefixes(
            self.query_prefix.clone().unwrap_or_default(),
            self.document_prefix.clone().unwrap_or_default(),
        )))
    }

    /// The embeddings service at `url`: its model, key (read from the
    /// environment variable named), prefixes and time limit.
    fn http_provider(
        &self,
        url: &str,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Arc<dyn Embedder>, SettingsError> {
        let model = self.model.clone().ok_or_else(|| {
            SettingsError(format!(
                "URL {url} needs a model name (--embeddings-model or model = \"...\")"
            ))
        })?;
        let mut config = HttpConfig::new(url, &model).map_err(|e| SettingsError(e.to_string()))?;
        if let Some(name) = &self.key_env {
            config.api_key = Some(env(name).filter(|k| !k.is_empty()).ok_or_else(|| {
                SettingsError(format!(
                    "key environment variable {name} is not set or empty"
                ))
            })?);
        }
        config.query_prefix = self.query_prefix.clone().unwrap_or_default();
        config.document_prefix = self.document_prefix.clone().unwrap_or_default();
        config.input_type = self.input_type.unwrap_or(false);
        if let Some(ms) = self.timeout_ms {
            config.timeout = Duration::from_millis(ms.max(1));
        }
        Ok(Arc::new(
            HttpEmbedder::new(config).map_err(|e| SettingsError(e.to_string()))?,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layers_and_errors() {
        let file = EmbeddingSettings {
            url: Some("http://127.0.0.1:1".into()),
            model: Some("m".into()),
            query_prefix: Some("query: ".into()),
            ..Default::default()
        };
        let flags = EmbeddingSettings {
            local: Some("/nonexistent".into()),
            ..Default::default()
        };
        let merged = crate::layer::Layer::over(flags.clone(), file.clone());
        assert_eq!(merged.url, None);
        assert_eq!(merged.query_prefix.as_deref(), Some("query: "));
        let env = |_: &str| None;
        let e = merged.build(&env).unwrap_err().to_string();
        assert!(e.contains("no such directory"), "{e}");
        let no_model = EmbeddingSettings {
            url: Some("http://127.0.0.1:1".into()),
            ..Default::default()
        };
        assert!(
            no_model
                .build(&env)
                .unwrap_err()
                .to_string()
                .contains("model name")
        );
        let key = EmbeddingSettings {
            key_env: Some("NOPE".into()),
            ..file.clone()
        };
        assert!(key.build(&env).unwrap_err().to_string().contains("NOPE"));
        assert!(EmbeddingSettings::default().build(&env).unwrap().is_none());
    }
}
