//! What the explorer's loop carries: [`Msg`]s in (keys, answers) and
//! [`Effect`]s out (searches, token counts, files, calls to MCP servers),
//! and what runs an effect: [`run_effect`] does the I/O, [`spawn`] runs it
//! off the UI thread, a [`Lane`] one at a time and newest first.

use std::sync::Arc;
use std::time::Duration;

use crossterm::event::KeyEvent;
use tokio::sync::mpsc::UnboundedSender;

use super::action::Action;
use super::screen::job::{Answer, ScreenJob};
use crate::catalog::Catalog;
use crate::search::{SearchError, SearchRequest, SearchResult, Searcher, Standing};
use crate::settings::Settings;
use crate::sources::mcp::McpHost;
use crate::tokens::TokenBasis;

/// What the loop feeds in.
#[derive(Debug, Clone)]
pub enum Msg {
    /// A key, resolved through the keymap for the screen that has it.
    Key(KeyEvent),
    /// An action, as if its key had been pressed (scripts use these, so they
    /// need not know the user's keymap). An action of another screen than
    /// the one that has the keyboard does nothing.
    Action(Action),
    /// Text typed into the text box that has the keyboard (none: nothing).
    Type(String),
    /// A click or the wheel (everything it does, keys do too).
    Mouse(crossterm::event::MouseEvent),
    /// A demo's caption (none: hide it).
    Caption(Option<String>),
    /// A demo was paused (true) or resumed.
    DemoPaused(bool),
    /// Fetch `run` of the search model: bytes so far and the file's size.
    ModelFetching {
        run: u64,
        done: u64,
        total: u64,
    },
    /// Fetch `run` has had no byte for `secs` seconds.
    ModelStalled {
        run: u64,
        secs: u64,
    },
    /// Fetch `run` done: the model loaded (a searcher ranking with it), or
    /// why not.
    ModelReady {
        run: u64,
        ready: Result<crate::search::Searcher, ModelNotReady>,
    },
    /// The input ended (terminal closed or broken, script over).
    InputClosed,
    Resize(u16, u16),
    SearchDone(SearchAnswer),
    CostsReady {
        basis: TokenBasis,
        costs: Arc<Vec<u64>>,
    },
    /// A login's page: the server, its address, and whether a browser
    /// opened it.
    LoginPage {
        server: String,
        url: String,
        opened: bool,
    },
    /// A login to an MCP server done (the catalog of every server, and
    /// each server's state, with it), or why not.
    LoggedIn {
        server: String,
        result: Result<Box<crate::sources::mcp::LoggedIn>, crate::sources::mcp::NotLoggedIn>,
    },
    /// A file was written (export, saved settings): the message to show.
    Written(Result<String, NotWritten>),
    /// Time to ask again for the answer of search `generation`, which came
    /// from BM25F while the catalog's vectors were being computed.
    Refresh {
        generation: u64,
    },
    /// The ranker the first search needs is built (`Effect::Warm`), and
    /// each tool's count of what `toolsift check` warns about.
    Warmed {
        lints: Vec<u16>,
    },
    /// The findability audit of the catalog (`Effect::Audit`): none when
    /// its searches failed (a catalog too large for the service).
    Audited {
        audit: Option<Arc<crate::findability::Audit>>,
    },
    /// A message for the status line (a copy, a pager come back).
    Status(String),
    /// The provider's count of `set` (`Effect::Count`), or why it failed.
    Counted {
        set: Vec<usize>,
        result: Result<u64, crate::provider_count::CountError>,
    },
    /// A catalog file changed on disk (the watcher).
    CatalogChanged,
    /// The catalog read again (`Effect::LoadCatalog`), or why it could not
    /// be.
    CatalogLoaded(Result<Arc<Catalog>, Arc<crate::catalog::CatalogError>>),
    /// The MCP servers' catalog and states after one of them changed
    /// (started, listed its tools, failed: [`super::servers::follow`]);
    /// `None`: their tools do not form a catalog, the last one stays.
    Servers {
        catalog: Option<Arc<Catalog>>,
        servers: Vec<crate::sources::mcp::ServerStatus>,
    },
    /// What the follower of a gateway or service told (`explore --follow`).
    Followed(crate::follow::Note),
    /// The followed gateway's catalog (`Effect::FetchFollowedCatalog`), or
    /// why it could not be read.
    FollowedCatalog(Result<Arc<Catalog>, crate::follow::FollowError>),
    /// A screen's job done (`Effect::Screen`): its answer, for that screen.
    Screen(Answer),
}

/// Why the search model's fetch did not end with a searcher that uses it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ModelNotReady {
    /// The fetch or the load failed: the hub's or the loader's words.
    #[error("{0}")]
    Fetch(String),
    /// The searcher asks a remote service, which ranks with its own model.
    #[error("a remote service ranks; no model is used here")]
    RemoteRanks,
}

/// Why a file was not written.
#[derive(Debug, Clone, thiserror::Error)]
pub enum NotWritten {
    /// The file could not be written (its path, escaped for the screen).
    #[error("{path}: {source}")]
    File {
        path: String,
        source: Arc<std::io::Error>,
    },
    /// The settings could not be saved to the config file.
    #[error(transparent)]
    Settings(Arc<crate::config::ConfigError>),
}

impl NotWritten {
    /// `path` not written, for `source`.
    pub fn file(path: &str, source: std::io::Error) -> NotWritten {
        NotWritten::File {
            path: crate::terminal_text::escape(path).into_owned(),
            source: Arc::new(source),
        }
    }
}

/// What the loop must do for the app (off the UI thread; each answer comes
/// back as a `Msg`).
#[derive(Debug, Clone)]
pub enum Effect {
    /// A screen's own work (a measurement, a call, a file read, a search
    /// of its own); answers `Msg::Screen`, for that screen.
    Screen(ScreenJob),
    /// Run a search; answers `Msg::SearchDone`.
    Search {
        generation: u64,
        catalog: Arc<Catalog>,
        request: SearchRequest,
        /// BM25F's answer shown while a dense ranker's is computed (the
        /// dense search has the next generation and replaces it).
        interim: bool,
    },
    /// Read the followed gateway's catalog (beside its `events_url`);
    /// answers `Msg::FollowedCatalog`.
    FetchFollowedCatalog {
        events_url: String,
        key: Option<String>,
    },
    /// Follow `source`'s traffic from now on, in place of what was
    /// followed (`:follow URL`): the loop holds the follower, so it
    /// carries this out itself; each note is a `Msg::Followed`.
    Follow(crate::follow::Source),
    /// Read the catalog again from `sources`; answers `Msg::CatalogLoaded`.
    LoadCatalog {
        sources: Vec<crate::catalog::CatalogSource>,
    },
    /// Count every tool's tokens with `basis`; answers `Msg::CostsReady`.
    Costs {
        catalog: Arc<Catalog>,
        basis: TokenBasis,
    },
    /// Log in to `server` through `host` (blocks until the browser's
    /// answer or its time limit); answers `Msg::LoggedIn`.
    McpLogIn { host: Arc<McpHost>, server: String },
    /// Append `line` (and a newline) to `path`, made if missing; answers
    /// `Msg::Written` with `done`.
    AppendLine {
        path: String,
        line: String,
        done: String,
    },
    /// Write `text` to `path`; answers `Msg::Written` with `done`.
    WriteFile {
        path: String,
        text: String,
        done: String,
    },
    /// Wait `after`, then answer `Msg::Refresh { generation }`.
    Refresh {
        after: std::time::Duration,
        generation: u64,
    },
    /// Save the explorer's settings to the config file; answers
    /// `Msg::Written`.
    SaveSettings {
        path: std::path::PathBuf,
        settings: Settings,
        /// The request file, and whether the ranker is left as it is.
        also: crate::config::Also,
    },
    /// Build what the first search of `catalog` needs (the BM25F index)
    /// before it is asked for, and lint its tools; answers `Msg::Warmed`.
    Warm { catalog: Arc<Catalog> },
    /// Audit whether each tool is found from its own words (`toolsift check
    /// --findability`, BM25F); answers `Msg::Audited`.
    Audit { catalog: Arc<Catalog> },
    /// Put `text` (`what`, for the message) on the clipboard through the
    /// terminal; `instead` says what to do when it cannot be. The loop
    /// writes it between frames; answers `Msg::Status`.
    Copy {
        text: String,
        what: String,
        instead: String,
    },
    /// Show `text` (`what`) in the user's pager, lending it the terminal;
    /// the loop does it between frames; answers `Msg::Status`.
    Page { text: String, what: String },
    /// Suspend the process to the shell (SIGTSTP), the terminal given back
    /// to it until `fg`; the loop does it between frames.
    Suspend,
    /// Ask the provider what the tools `set` (indices into `catalog`) add
    /// to a request; answers `Msg::Counted`.
    Count {
        counter: Arc<crate::provider_count::SharedCounter>,
        catalog: Arc<Catalog>,
        set: Vec<usize>,
    },
}

/// A search's answer as the loop brings it back.
#[derive(Debug, Clone)]
pub struct SearchAnswer {
    pub generation: u64,
    /// BM25F's answer shown until the dense ranker's comes.
    pub interim: bool,
    /// The catalog the search ran on: its hits index into this one.
    pub catalog: Arc<Catalog>,
    pub query: String,
    /// A search as you type (no session recorded).
    pub preview: bool,
    pub result: Box<Result<SearchResult, SearchError>>,
    pub elapsed: Duration,
    /// The query's vector was in memory: `elapsed` has no embedding in it.
    pub query_cached: bool,
    /// Where every tool stood (why one was or was not found), when it
    /// could be computed: always in-process; for a remote service only for
    /// committed queries (it costs the service a whole ranking).
    pub standing: Option<Standing>,
}

/// A search run here: its answer, how long it took, and where every tool
/// stood.
#[derive(Debug, Clone)]
pub struct SearchRun {
    pub result: Box<Result<SearchResult, SearchError>>,
    pub elapsed: Duration,
    /// The query's vector was in memory: `elapsed` has no embedding in it.
    pub query_cached: bool,
    /// Computed always in-process; for a remote service only for committed
    /// queries (it costs the service a whole ranking).
    pub standing: Option<Standing>,
}

/// Runs `request` on `catalog` and says where every tool stood.
pub fn run_search(
    searcher: &Searcher,
    catalog: &Arc<Catalog>,
    request: &SearchRequest,
) -> SearchRun {
    let query_cached = searcher.query_vector_held(request);
    let started = std::time::Instant::now();
    let result = Box::new(searcher.search(catalog, request));
    let elapsed = started.elapsed();
    let standing = match result.as_ref() {
        // An empty query ranks nothing: no standing to tell.
        Ok(r)
            if !request.query.trim().is_empty()
                && (!request.preview || searcher.remote_host().is_none()) =>
        {
            searcher.standing(catalog, request, r).ok()
        }
        _ => None,
    };
    SearchRun {
        result,
        elapsed,
        query_cached,
        standing,
    }
}

/// Appends `line` to `path` as a line of its own (a file that does not
/// end with a newline gets one first).
fn append_line(path: &str, line: &str) -> std::io::Result<()> {
    use std::io::{Read, Seek, SeekFrom, Write};
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .read(true)
        .append(true)
        .open(path)?;
    let len = file.metadata()?.len();
    let mut text = String::new();
    if len > 0 {
        file.seek(SeekFrom::Start(len - 1))?;
        let mut last = [0u8; 1];
        file.read_exact(&mut last)?;
        if last[0] != b'\n' {
            text.push('\n');
        }
    }
    text.push_str(line);
    text.push('\n');
    file.write_all(text.as_bytes())
}

/// Runs an effect where it stands (the loop does so off the UI thread;
/// tests and benchmarks right away): the answer as a `Msg`.
pub fn run_effect(searcher: &Searcher, effect: Effect) -> Msg {
    match effect {
        Effect::Screen(job) => Msg::Screen(job.run(searcher)),
        Effect::Search {
            generation,
            catalog,
            request,
            interim,
        } => search_done(searcher, generation, catalog, request, interim),
        Effect::FetchFollowedCatalog { events_url, key } => Msg::FollowedCatalog(
            crate::follow::catalog::fetch(&events_url, key.as_deref()).map(Arc::new),
        ),
        Effect::LoadCatalog { sources } => Msg::CatalogLoaded(
            crate::catalog::load_all(&sources)
                .map(Arc::new)
                .map_err(Arc::new),
        ),
        Effect::Costs { catalog, basis } => {
            let costs = searcher.tool_costs(&catalog, basis);
            Msg::CostsReady { basis, costs }
        }
        Effect::McpLogIn { host, server } => Msg::LoggedIn {
            result: host.log_in_blocking(&server).map(Box::new),
            server,
        },
        Effect::Refresh { after, generation } => {
            std::thread::sleep(after);
            Msg::Refresh { generation }
        }
        Effect::WriteFile { path, text, done } => Msg::Written(
            std::fs::write(&path, text)
                .map(|()| done)
                .map_err(|e| NotWritten::file(&path, e)),
        ),
        Effect::AppendLine { path, line, done } => Msg::Written(
            append_line(&path, &line)
                .map(|()| done)
                .map_err(|e| NotWritten::file(&path, e)),
        ),
        Effect::SaveSettings {
            path,
            settings,
            also,
        } => Msg::Written(saved(&path, &settings, &also)),
        Effect::Warm { catalog } => warmed(searcher, &catalog),
        Effect::Audit { catalog } => Msg::Audited {
            audit: audited(&catalog),
        },
        Effect::Count {
            counter,
            catalog,
            set,
        } => {
            let tools: Vec<&crate::catalog::Tool> =
                set.iter().filter_map(|&i| catalog.tools().get(i)).collect();
            let result = counter.tools_cost(&tools);
            Msg::Counted { set, result }
        }
        Effect::Copy { .. } | Effect::Follow(_) | Effect::Page { .. } | Effect::Suspend => {
            Msg::Status(no_terminal(&effect))
        }
    }
}

/// Search `generation` run here, its answer as the loop brings it back.
fn search_done(
    searcher: &Searcher,
    generation: u64,
    catalog: Arc<Catalog>,
    request: SearchRequest,
    interim: bool,
) -> Msg {
    let SearchRun {
        result,
        elapsed,
        query_cached,
        standing,
    } = run_search(searcher, &catalog, &request);
    Msg::SearchDone(SearchAnswer {
        generation,
        interim,
        catalog,
        preview: request.preview,
        query: request.query,
        result,
        elapsed,
        query_cached,
        standing,
    })
}

/// The explorer's settings saved to the config file at `path`: the
/// message to show, or why not.
fn saved(
    path: &std::path::Path,
    settings: &Settings,
    also: &crate::config::Also,
) -> Result<String, NotWritten> {
    crate::config::save_explorer(path, settings, also)
        .map(|()| {
            format!(
                "saved the settings to {}",
                crate::terminal_text::escape(&path.display().to_string())
            )
        })
        .map_err(|e| NotWritten::Settings(Arc::new(e)))
}

/// What the first search of `catalog` needs built, and each tool's count
/// of what `toolsift check` warns about.
fn warmed(searcher: &Searcher, catalog: &Catalog) -> Msg {
    searcher.warm(catalog);
    let lints = catalog
        .tools()
        .iter()
        .map(|t| {
            crate::catalog::lint_tool(t)
                .len()
                .min(usize::from(u16::MAX)) as u16
        })
        .collect();
    Msg::Warmed { lints }
}

/// Whether each tool is found from its own words (BM25F); none when the
/// searches failed.
fn audited(catalog: &Arc<Catalog>) -> Option<Arc<crate::findability::Audit>> {
    // Words only, on a service of its own: the searches are neither the
    // user's (no session, no figures) nor sent to a remote service (three
    // requests a tool).
    let searcher = Searcher::embedded();
    let request = SearchRequest {
        ranker: Some(crate::engine::Ranker::Bm25),
        // The audit reads places, not tokens: the cheap basis, so the
        // catalog is not counted again with a tokenizer.
        token_basis: Some(crate::tokens::TokenBasis::EstimatedBytesDiv4),
        ..Default::default()
    };
    crate::findability::audit(&searcher, catalog, &request, crate::findability::DEFAULT_K)
        .ok()
        .map(Arc::new)
}

/// What an effect only the loop can carry out says when run without it:
/// only the loop has a terminal (see `super::lend`) and follows.
fn no_terminal(effect: &Effect) -> String {
    match effect {
        Effect::Copy { what, .. } => format!("{what} not copied: no terminal"),
        Effect::Follow(source) => format!(
            "{} not followed: only the explorer's loop follows",
            crate::terminal_text::escape(&source.shown())
        ),
        Effect::Page { what, .. } => format!("{what} not opened: no terminal"),
        _ => "not suspended: no terminal".into(),
    }
}

/// Runs an effect off the UI thread; its answer comes back on `tx`. A
/// dense ranker's search as you type goes through `lane`.
pub fn spawn(searcher: &Searcher, effect: Effect, tx: &UnboundedSender<Msg>, lane: &Arc<Lane>) {
    let searcher = searcher.clone();
    let tx = tx.clone();
    let dense_preview = matches!(&effect, Effect::Search { request, interim: false, .. }
        if request.preview && request.ranker.is_some_and(|r| r.needs_embeddings()));
    if dense_preview {
        lane.submit(effect, move |e| {
            let _ = tx.send(run_effect(&searcher, e));
        });
        return;
    }
    tokio::task::spawn_blocking(move || {
        let _ = tx.send(run_effect(&searcher, effect));
    });
}

/// Effects run one at a time, newest first: one submitted while another
/// runs waits, and replaces any still waiting, whose work is dropped
/// unstarted. Dense searches as you type go here, so a burst of keystrokes
/// embeds the query being run and the latest one, not every prefix.
#[derive(Default)]
pub struct Lane {
    /// The effect waiting, and whether a worker runs.
    state: std::sync::Mutex<(Option<Effect>, bool)>,
}

impl Lane {
    /// Queues `effect` in place of the one waiting; a worker thread runs
    /// `run` on each in turn until none waits.
    pub fn submit(self: &Arc<Self>, effect: Effect, run: impl Fn(Effect) + Send + 'static) {
        {
            let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
            state.0 = Some(effect);
            if state.1 {
                return;
            }
            state.1 = true;
        }
        let lane = self.clone();
        std::thread::spawn(move || {
            loop {
                let next = {
                    let mut state = lane.state.lock().unwrap_or_else(|p| p.into_inner());
                    match state.0.take() {
                        Some(e) => e,
                        None => {
                            state.1 = false;
                            return;
                        }
                    }
                };
                run(next);
            }
        });
    }
}

#[cfg(test)]
#[path = "effect_lane_tests.rs"]
mod lane_tests;
