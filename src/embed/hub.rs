//! Sentence-transformers models by Hugging Face id (`--embeddings-local
//! sentence-transformers/all-MiniLM-L6-v2`), fetched once into the Hugging
//! Face cache with the `hf-hub` crate and read from there afterwards, with
//! no network.
//!
//! The cache is the one the Python libraries share (`$HF_HOME/hub`, by
//! default `~/.cache/huggingface/hub`), so a model they fetched is found
//! here too. `HF_ENDPOINT` names a mirror; `HF_TOKEN` (or the token file
//! `huggingface-cli login` writes) opens private models.
//!
//! The optional files (`modules.json`, the pooling module's config,
//! `sentence_bert_config.json`) are fetched first and the weights last, so
//! a cached `model.safetensors` means an earlier fetch got everything.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

use hf_hub::api::Progress;
use hf_hub::api::sync::{ApiBuilder, ApiError, ApiRepo};
use hf_hub::{Cache, Repo, RepoType};

use super::model_files::Module;

/// The files a model needs, in the order they are fetched (weights last).
const REQUIRED: [&str; 3] = ["config.json", "tokenizer.json", "model.safetensors"];

/// The default hub.
const HUB: &str = "https://huggingface.co";

/// How long the hub may send nothing (no answer, no bytes) before the fetch
/// is given up: the client has no time limits of its own.
pub const STALL: Duration = Duration::from_secs(60);

/// A model id with its revision: `owner/name[@revision]` or `name`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelId {
    pub id: String,
    pub revision: String,
}

impl ModelId {
    /// `spec` read as a hub id, or `None` when it is shaped like a path
    /// (it starts with `/`, `.` or `~`, has a backslash or more than one
    /// `/`, or a character ids never have).
    pub fn parse(spec: &str) -> Option<ModelId> {
        let (id, revision) = match spec.split_once('@') {
            Some((id, rev)) => (id, rev),
            None => (spec, "main"),
        };
        let part_ok = |p: &str| {
            !p.is_empty()
                && p.len() <= 96
                && !p.starts_with(['.', '-'])
                && !p.ends_with('.')
                && !p.contains("..")
                && p.chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        };
        let parts: Vec<&str> = id.split('/').collect();
        let rev_ok = !revision.is_empty()
            && revision.len() <= 128
            && !revision.contains("..")
            && revision
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '/'));
        (parts.len() <= 2 && parts.iter().all(|p| part_ok(p)) && rev_ok).then(|| ModelId {
            id: id.to_string(),
            revision: revision.to_string(),
        })
    }

    fn repo(&self) -> Repo {
        Repo::with_revision(self.id.clone(), RepoType::Model, self.revision.clone())
    }
}

impl std::fmt::Display for ModelId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.revision == "main" {
            write!(f, "{}", self.id)
        } else {
            write!(f, "{}@{}", self.id, self.revision)
        }
    }
}

/// Where the hub is and where its files are kept, from the environment.
#[derive(Debug, Clone)]
pub struct HubSettings {
    pub endpoint: String,
    /// The hub cache (`$HF_HOME/hub`).
    pub cache: PathBuf,
    pub token: Option<String>,
    /// A progress bar on stderr while fetching.
    pub progress: bool,
    /// Silence after which the fetch is given up ([`STALL`]).
    pub stall: Duration,
    /// Told each file's bytes so far and its size while fetching (a screen
    /// that shows the progress itself; no bar then).
    pub report: Option<Report>,
}

/// A watcher of a fetch's progress: `(bytes so far, size)` of the file
/// being fetched.
#[derive(Clone)]
pub struct Report(pub std::sync::Arc<dyn Fn(u64, u64) + Send + Sync>);

impl std::fmt::Debug for Report {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Report")
    }
}

impl HubSettings {
    /// `HF_ENDPOINT`, `HF_HOME`, `HF_TOKEN` (else the token file), and a
    /// progress bar when stderr is a terminal.
    pub fn from_env(env: &dyn Fn(&str) -> Option<String>) -> HubSettings {
        let cache = match env("HF_HOME").filter(|h| !h.is_empty()) {
            Some(home) => PathBuf::from(home).join("hub"),
            None => Cache::default().path().clone(),
        };
        let token = env("HF_TOKEN")
            .filter(|t| !t.trim().is_empty())
            .or_else(|| Cache::new(cache.clone()).token());
        HubSettings {
            endpoint: env("HF_ENDPOINT")
                .filter(|e| !e.is_empty())
                .map(|e| e.trim_end_matches('/').to_string())
                .unwrap_or_else(|| HUB.to_string()),
            cache,
            token,
            progress: std::io::stderr().is_terminal(),
            stall: STALL,
            report: None,
        }
    }
}

pub use super::DEFAULT_MODEL;

/// [`DEFAULT_MODEL`]'s directory when the hub cache holds it whole (an
/// earlier fetch, ours or the Python libraries'); no network.
pub fn default_model_cached(env: &dyn Fn(&str) -> Option<String>) -> Option<PathBuf> {
    cached(&ModelId::parse(DEFAULT_MODEL)?, &HubSettings::from_env(env))
}

/// The model's directory in the cache if an earlier fetch (ours or the
/// Python libraries') completed; no network.
pub fn cached(model: &ModelId, hub: &HubSettings) -> Option<PathBuf> {
    let repo = Cache::new(hub.cache.clone()).repo(model.repo());
    let paths: Option<Vec<PathBuf>> = REQUIRED.iter().map(|f| repo.get(f)).collect();
    paths?.first()?.parent().map(Path::to_path_buf)
}

/// The model's folder in the hub cache (`models--owner--name`), whether or
/// not anything is in it.
pub fn repo_folder(model: &ModelId, hub: &HubSettings) -> PathBuf {
    hub.cache.join(model.repo().folder_name())
}

/// Bytes of the files under `dir` (links followed once, each file counted
/// once): what a cached model takes on disk.
pub fn bytes_under(dir: &Path) -> u64 {
    let mut seen = std::collections::HashSet::new();
    let mut total = 0;
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let Ok(meta) = std::fs::metadata(&path) else {
                continue;
            };
            if meta.is_dir() && !entry.file_type().is_ok_and(|t| t.is_symlink()) {
                stack.push(path);
            } else if meta.is_file() {
                let key = std::fs::canonicalize(&path).unwrap_or(path);
                if seen.insert(key) {
                    total += meta.len();
                }
            }
        }
    }
    total
}

/// Forgets the model: its folder in the hub cache goes. `Ok(None)` when
/// there was none; else the bytes freed.
pub fn remove(model: &ModelId, hub: &HubSettings) -> Result<Option<u64>, HubError> {
    let folder = repo_folder(model, hub);
    if !folder.exists() {
        return Ok(None);
    }
    let bytes = bytes_under(&folder);
    if let Err(source) = std::fs::remove_dir_all(&folder) {
        return Err(HubError::Remove {
            model: model.to_string(),
            folder,
            source,
        });
    }
    Ok(Some(bytes))
}

/// Why a model is not at hand in the hub cache.
#[derive(Debug, thiserror::Error)]
pub enum HubError {
    #[error("{model}: cannot remove {}: {source}", folder.display())]
    Remove {
        model: String,
        folder: PathBuf,
        source: std::io::Error,
    },
    /// The hub sent nothing for the stall time (`secs`).
    #[error(
        "{model}: {endpoint} sent nothing for {secs} s; giving up (give a model folder instead, or try again)"
    )]
    Stalled {
        model: String,
        endpoint: String,
        secs: f64,
    },
    #[error("{model}: the fetch ended without an answer")]
    NoAnswer { model: String },
    /// The hub client could not start.
    #[error("{model}: cannot start the hub client: {why}")]
    Client { model: String, why: String },
    /// A file from the hub failed: what, where, and what to do.
    #[error("{model}: {file} from {endpoint}: {why}")]
    File {
        model: String,
        file: String,
        endpoint: String,
        why: String,
    },
    /// A file fetched could not be read from the cache.
    #[error("{model}: {source}")]
    Read {
        model: String,
        source: std::io::Error,
    },
    #[error("{model}: modules.json from the hub is not valid: {why}")]
    BadModules { model: String, why: String },
    #[error("{model}: modules.json names a pooling path {path:?} that is not a plain folder")]
    PoolingPath { model: String, path: String },
    #[error("{model}: the hub cache gave no folder")]
    NoFolder { model: String },
}

/// The model's directory: from the cache, else fetched from the hub.
/// `announce` is told once before a fetch starts. A hub that sends nothing
/// for `hub.stall` is given up on (the fetch thread is left behind).
pub fn resolve(
    model: &ModelId,
    hub: &HubSettings,
    announce: &mut dyn FnMut(&str),
) -> Result<PathBuf, HubError> {
    if let Some(dir) = cached(model, hub) {
        return Ok(dir);
    }
    announce(&format!(
        "fetching {model} from {} into {}",
        hub.endpoint,
        hub.cache.display()
    ));
    let (tx, rx) = mpsc::channel();
    {
        let (model, hub, tx) = (model.clone(), hub.clone(), tx.clone());
        std::thread::spawn(move || {
            let result = fetch(&model, &hub, &tx);
            let _ = tx.send(Event::Done(result));
        });
    }
    drop(tx);
    loop {
        match rx.recv_timeout(hub.stall) {
            Ok(Event::Alive) => {}
            Ok(Event::Done(result)) => return result,
            Err(mpsc::RecvTimeoutError::Timeout) => {
                return Err(HubError::Stalled {
                    model: model.to_string(),
                    endpoint: hub.endpoint.clone(),
                    secs: hub.stall.as_secs_f64(),
                });
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                return Err(HubError::NoAnswer {
                    model: model.to_string(),
                });
            }
        }
    }
}

/// What the fetch thread says: it is still receiving, or it is done.
enum Event {
    Alive,
    Done(Result<PathBuf, HubError>),
}

/// A download's progress: every chunk tells the watcher the hub is alive,
/// and draws the bar when there is one.
struct Watch {
    tx: mpsc::Sender<Event>,
    bar: Option<indicatif::ProgressBar>,
    report: Option<Report>,
    /// The file's size and bytes so far.
    size: u64,
    done: u64,
}

impl Progress for Watch {
    fn init(&mut self, size: usize, filename: &str) {
        let _ = self.tx.send(Event::Alive);
        (self.size, self.done) = (size as u64, 0);
        if let Some(r) = &self.report {
            (r.0)(0, self.size);
        }
        if let Some(bar) = &self.bar {
            bar.set_length(size as u64);
            bar.set_position(0);
            bar.set_message(filename.to_string());
        }
    }

    fn update(&mut self, size: usize) {
        let _ = self.tx.send(Event::Alive);
        self.done += size as u64;
        if let Some(r) = &self.report {
            (r.0)(self.done, self.size);
        }
        if let Some(bar) = &self.bar {
            bar.inc(size as u64);
        }
    }

    fn finish(&mut self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

/// The fetch itself (on its own thread): optional files, then the model's.
fn fetch(
    model: &ModelId,
    hub: &HubSettings,
    tx: &mpsc::Sender<Event>,
) -> Result<PathBuf, HubError> {
    let api = ApiBuilder::new()
        .with_endpoint(hub.endpoint.clone())
        .with_cache_dir(hub.cache.clone())
        .with_token(hub.token.clone())
        .with_progress(false)
        .build()
        .map_err(|e| HubError::Client {
            model: model.to_string(),
            why: e.to_string(),
        })?;
    let repo = api.repo(model.repo());
    let fail = |file: &str, e: ApiError| describe(model, &hub.endpoint, file, e);
    let watch = || Watch {
        tx: tx.clone(),
        report: hub.report.clone(),
        size: 0,
        done: 0,
        bar: (hub.progress && hub.report.is_none()).then(|| {
            indicatif::ProgressBar::with_draw_target(None, indicatif::ProgressDrawTarget::stderr())
                .with_style(
                    indicatif::ProgressStyle::with_template(
                        "{msg} {bar:30} {bytes}/{total_bytes} {bytes_per_sec} {eta}",
                    )
                    .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
                )
        }),
    };

    // Optional files first: their absence upstream is no error.
    if let Some(path) =
        optional(&repo, "modules.json", watch()).map_err(|e| fail("modules.json", e))?
    {
        let text = std::fs::read_to_string(&path).map_err(|source| HubError::Read {
            model: model.to_string(),
            source,
        })?;
        let modules: Vec<Module> =
            serde_json::from_str(&text).map_err(|e| HubError::BadModules {
                model: model.to_string(),
                why: e.to_string(),
            })?;
        for m in modules.iter().filter(|m| m.kind.ends_with("Pooling")) {
            let file = format!("{}/config.json", m.path.trim_matches('/'));
            if !plain_folder(&m.path) {
                return Err(HubError::PoolingPath {
                    model: model.to_string(),
                    path: m.path.clone(),
                });
            }
            optional(&repo, &file, watch()).map_err(|e| fail(&file, e))?;
        }
    }
    optional(&repo, "sentence_bert_config.json", watch())
        .map_err(|e| fail("sentence_bert_config.json", e))?;
    let mut dir = None;
    for file in REQUIRED {
        let path = repo
            .download_with_progress(file, watch())
            .map_err(|e| fail(file, e))?;
        dir = path.parent().map(Path::to_path_buf);
    }
    dir.ok_or_else(|| HubError::NoFolder {
        model: model.to_string(),
    })
}

/// A relative folder of plain names (no `..`, no root): safe to join.
fn plain_folder(path: &str) -> bool {
    let path = path.trim_matches('/');
    !path.is_empty()
        && path.split('/').all(|p| {
            !p.is_empty()
                && p != "."
                && p != ".."
                && p.chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        })
}

/// A file that may be missing upstream (404 is `None`).
fn optional(repo: &ApiRepo, file: &str, watch: Watch) -> Result<Option<PathBuf>, ApiError> {
    match repo.download_with_progress(file, watch) {
        Ok(p) => Ok(Some(p)),
        Err(ApiError::RequestError(e)) if matches!(*e, ureq::Error::Status(404, _)) => Ok(None),
        Err(e) => Err(e),
    }
}

/// One line saying what failed, where, and what to do.
fn describe(model: &ModelId, endpoint: &str, file: &str, e: ApiError) -> HubError {
    let why = match &e {
        ApiError::RequestError(inner) => match inner.as_ref() {
            ureq::Error::Status(401 | 403, _) => {
                "access denied (a private or gated model needs HF_TOKEN)".to_string()
            }
            ureq::Error::Status(404, _) if file == "model.safetensors" => {
                "not found (toolsift reads safetensors weights; a model with only pytorch_model.bin cannot be used)"
                    .to_string()
            }
            ureq::Error::Status(404, _) => {
                "not found (is the model id right? it must be a sentence-transformers model)"
                    .to_string()
            }
            ureq::Error::Status(code, r) => format!("HTTP {code} {}", r.status_text()),
            ureq::Error::Transport(t) => format!(
                "cannot reach the hub ({t}); on a machine without access give a model folder instead"
            ),
        },
        other => other.to_string(),
    };
    HubError::File {
        model: model.to_string(),
        file: file.to_string(),
        endpoint: endpoint.to_string(),
        why,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_and_paths() {
        let m = ModelId::parse("sentence-transformers/all-MiniLM-L6-v2").unwrap();
        assert_eq!(m.id, "sentence-transformers/all-MiniLM-L6-v2");
        assert_eq!(m.revision, "main");
        assert_eq!(m.to_string(), "sentence-transformers/all-MiniLM-L6-v2");
        let r = ModelId::parse("intfloat/e5-small-v2@refs/pr/3").unwrap();
        assert_eq!(r.revision, "refs/pr/3");
        assert_eq!(r.to_string(), "intfloat/e5-small-v2@refs/pr/3");
        assert!(ModelId::parse("bert-base-uncased").is_some());
        assert!(plain_folder("1_Pooling"));
        assert!(!plain_folder("../x") && !plain_folder("a/../b") && !plain_folder(""));
        for path in [
            "/models/minilm",
            "./minilm",
            "../minilm",
            "~/minilm",
            "a/b/c",
            "C:\\models",
            "a b/c",
            "",
            "org/",
            "org/name@",
            "org/..",
            "org/name@../../etc",
        ] {
            assert_eq!(ModelId::parse(path), None, "{path}");
        }
    }

    #[test]
    fn settings_from_env() {
        let env = |n: &str| match n {
            "HF_HOME" => Some("/tmp/hfhome".to_string()),
            "HF_ENDPOINT" => Some("http://127.0.0.1:9/".to_string()),
            "HF_TOKEN" => Some("hf_x".to_string()),
            _ => None,
        };
        let s = HubSettings::from_env(&env);
        assert_eq!(s.cache, PathBuf::from("/tmp/hfhome/hub"));
        assert_eq!(s.endpoint, "http://127.0.0.1:9");
        assert_eq!(s.token.as_deref(), Some("hf_x"));
        let none = HubSettings::from_env(&|_| None);
        assert_eq!(none.endpoint, HUB);
    }

    #[test]
    fn an_unreachable_hub_is_a_clear_error() {
        let dir = tempfile::tempdir().unwrap();
        let hub = HubSettings {
            // Port 9 (discard) on loopback: nothing listens.
            endpoint: "http://127.0.0.1:9".into(),
            cache: dir.path().to_path_buf(),
            token: None,
            progress: false,
            report: None,
            stall: STALL,
        };
        let model = ModelId::parse("org/model").unwrap();
        let mut said = Vec::new();
        let e = resolve(&model, &hub, &mut |m| said.push(m.to_string())).unwrap_err();
        assert!(matches!(e, HubError::File { .. }), "{e:?}");
        let e = e.to_string();
        assert!(
            e.starts_with("org/model: modules.json from http://127.0.0.1:9: cannot reach the hub"),
            "{e}"
        );
        assert_eq!(said.len(), 1);
        assert!(said[0].contains("fetching org/model from http://127.0.0.1:9"));
        assert_eq!(cached(&model, &hub), None);
    }

    #[test]
    fn a_hub_that_never_answers_is_given_up() {
        // Accepts connections and says nothing.
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let endpoint = format!("http://{}", listener.local_addr().unwrap());
        std::thread::spawn(move || {
            let mut held = Vec::new();
            for stream in listener.incoming().flatten() {
                held.push(stream);
            }
        });
        let dir = tempfile::tempdir().unwrap();
        let hub = HubSettings {
            endpoint: endpoint.clone(),
            cache: dir.path().to_path_buf(),
            token: None,
            progress: false,
            report: None,
            stall: Duration::from_millis(300),
        };
        let model = ModelId::parse("org/model").unwrap();
        let e = resolve(&model, &hub, &mut |_| {}).unwrap_err();
        assert!(matches!(e, HubError::Stalled { .. }), "{e:?}");
        assert_eq!(
            e.to_string(),
            format!(
                "org/model: {endpoint} sent nothing for 0.3 s; giving up (give a model folder instead, or try again)"
            )
        );
    }
}
