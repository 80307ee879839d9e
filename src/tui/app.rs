//! The explorer's state and its one update function. No terminal here: the
//! loop feeds [`Msg`]s in and carries the returned [`Effect`]s out, so tests
//! drive `App::update` directly.
//!
//! The state is split by what owns the keys: the query box, the catalog
//! view, the search state (results pane), the settings editor and the
//! breaker each handle their own actions; `update` resolves a key to an
//! action in the context of the screen that has the keyboard and dispatches.

mod catalog_view;
mod export_box;
mod query_box;
mod search_state;
mod settings;

use std::sync::Arc;

use crossterm::event::{KeyEvent, KeyEventKind};
use ratatui::layout::Rect;

use super::action::{Action, Context};
use super::breaker::{BreakerOutcome, BreakerPane};
use super::help::help_rows;
use super::keymap::{Key, Keymap};
use super::layout::{ScreenLayout, layout};
use super::tune::{Measured, TuneOutcome, TunePane};
use crate::catalog::{Catalog, Tool};
use crate::engine::Ranker;
use crate::replay::{TraceCall, TraceError};
use crate::search::{SearchHit, SearchRequest, Searcher};
use crate::select::{SelectError, ToolsHandle};
use crate::settings::Settings;
use crate::sources::mcp::{CallOutcome, McpCallError, McpHost, ServerStatus};
use crate::tokens::TokenBasis;

pub use super::line_input::LineInput;
pub use catalog_view::{CatalogView, Filter, ListState, Sort, ViewSource, movement};
pub use export_box::{ExportBox, ExportOutcome, default_path, format_name};
pub use query_box::{QueryBox, QueryOutcome};
pub use search_state::{Results, SearchAnswer, SearchState};
pub use settings::{SETTINGS_ROWS, SettingsEditor, SettingsOutcome};

/// How long a preview answered by BM25F (the catalog's vectors not ready)
/// waits before asking again.
pub const REFRESH_WHILE_EMBEDDING: std::time::Duration = std::time::Duration::from_millis(400);

/// Which pane has the keyboard.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Focus {
    Query,
    Catalog,
    Results,
    Detail,
}

/// A window over everything else.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Popup {
    Help,
    Settings,
    Detail,
    /// The breaker simulator (a full screen).
    Breaker,
    /// The Tune screen (a full screen).
    Tune,
    /// The export of the loaded tools to a file.
    Export,
}

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
    /// The input ended (terminal closed or broken, script over).
    InputClosed,
    Resize(u16, u16),
    SearchDone(SearchAnswer),
    CostsReady {
        basis: TokenBasis,
        costs: Arc<Vec<u64>>,
    },
    /// A trace file, read for the breaker.
    TraceLoaded {
        path: String,
        result: Result<Vec<TraceCall>, TraceError>,
    },
    /// The answer of real call `id` to an MCP server (the breaker's).
    McpCallDone {
        id: u64,
        result: Result<CallOutcome, McpCallError>,
    },
    /// A Tune measurement (the newest one's answer is shown).
    TuneDone {
        generation: u64,
        result: Result<crate::tune::TuneReport, String>,
    },
    /// A file was written (export, saved settings): the message to show.
    Written(Result<String, String>),
    /// Time to ask again for the answer of search `generation`, which came
    /// from BM25F while the catalog's vectors were being computed.
    Refresh {
        generation: u64,
    },
}

/// What the loop must do for the app (off the UI thread; each answer comes
/// back as a `Msg`).
#[derive(Debug, Clone)]
pub enum Effect {
    /// Run a search; answers `Msg::SearchDone`.
    Search {
        generation: u64,
        catalog: Arc<Catalog>,
        request: SearchRequest,
        /// BM25F's answer shown while a dense ranker's is computed (the
        /// dense search has the next generation and replaces it).
        interim: bool,
    },
    /// Count every tool's tokens with `basis`; answers `Msg::CostsReady`.
    Costs {
        catalog: Arc<Catalog>,
        basis: TokenBasis,
    },
    /// Read a trace file (or `@example`); answers `Msg::TraceLoaded`.
    LoadTrace { path: String },
    /// Call `tool` (its name on `server`) for real through `host` (which
    /// blocks until the answer or its time limit); answers
    /// `Msg::McpCallDone`.
    McpCall {
        id: u64,
        host: Arc<McpHost>,
        server: String,
        tool: String,
        arguments: serde_json::Map<String, serde_json::Value>,
    },
    /// Measure the caps on the request file `queries`; answers
    /// `Msg::TuneDone`.
    Tune {
        generation: u64,
        catalog: Arc<Catalog>,
        queries: String,
        options: crate::tune::TuneOptions,
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
    },
}

/// A key, resolved.
enum Command {
    Act(Action),
    Type(char),
}

/// Everything the explorer shows.
pub struct App {
    pub catalog: Arc<Catalog>,
    /// The catalog files, as the header names them.
    pub sources: String,
    pub searcher: Searcher,
    pub keymap: Keymap,
    pub settings: Settings,
    /// The handle of the settings in force (the last valid ones).
    pub handle: ToolsHandle,
    pub editor: SettingsEditor,
    pub focus: Focus,
    /// Where leaving the query box returns to.
    pub last_list: Focus,
    pub popup: Option<Popup>,
    pub query: QueryBox,
    pub catalog_view: CatalogView,
    pub search: SearchState,
    pub detail_scroll: u16,
    pub help_scroll: usize,
    /// Per-tool tokens for `settings.basis()`, once counted.
    pub costs: Option<Arc<Vec<u64>>>,
    pub status: Option<String>,
    /// The breaker simulator, once opened (its log and streak survive closing).
    pub breaker: Option<BreakerPane>,
    pub no_color: bool,
    /// Live MCP servers the catalog came from (tool calls go there).
    pub mcp: Option<Arc<McpHost>>,
    /// What became of each MCP server.
    pub mcp_servers: Vec<ServerStatus>,
    /// The Tune screen's measurement and request file.
    pub tune: TunePane,
    /// The export popup, while open.
    pub export: Option<ExportBox>,
    /// Where the settings are saved (the config file).
    pub config_path: Option<std::path::PathBuf>,
    /// Tokens the context can spend on tools: the full catalog is offered
    /// after a failed search only if it fits. None: never offered.
    pub context_budget: Option<u64>,
    /// A demo's caption, while one is shown.
    pub caption: Option<String>,
    /// In a demo: whether it is paused (None: not a demo).
    pub demo: Option<bool>,
    /// Where everything goes at the current size.
    pub layout: ScreenLayout,
    pub should_quit: bool,
}

impl App {
    /// A new explorer. `settings` must be valid for `catalog` (the caller
    /// checks them first, so that bad flags fail before the terminal opens).
    pub fn new(
        catalog: Arc<Catalog>,
        sources: String,
        searcher: Searcher,
        keymap: Keymap,
        settings: Settings,
    ) -> Result<(App, Vec<Effect>), SelectError> {
        let handle = settings.validate(&catalog)?;
        let mut app = App {
            catalog_view: CatalogView::new(&catalog),
            catalog,
            sources,
            searcher,
            keymap,
            editor: SettingsEditor::new(&settings),
            settings,
            handle,
            focus: Focus::Catalog,
            last_list: Focus::Catalog,
            popup: None,
            query: QueryBox::default(),
            search: SearchState::default(),
            detail_scroll: 0,
            help_scroll: 0,
            costs: None,
            status: None,
            breaker: None,
            no_color: false,
            mcp: None,
            mcp_servers: Vec::new(),
            tune: TunePane::new(None),
            export: None,
            config_path: None,
            context_budget: None,
            caption: None,
            demo: None,
            layout: layout(Rect::new(0, 0, 120, 35), false, false, false),
            should_quit: false,
        };
        let effects = vec![app.costs_effect(), app.search_effect(true)];
        Ok((app, effects))
    }

    /// The terminal size the layout is for.
    pub fn size(&self) -> (u16, u16) {
        (self.layout.area.width, self.layout.area.height)
    }

    fn costs_effect(&self) -> Effect {
        Effect::Costs {
            catalog: self.catalog.clone(),
            basis: self.settings.basis(),
        }
    }

    /// A search of the current query; `preview` while typing.
    fn search_effect(&mut self, preview: bool) -> Effect {
        let max_tools = self
            .handle
            .search_cap(self.settings.max_tools)
            .ok()
            .flatten();
        let request = self
            .search
            .request(self.query.text(), max_tools, &self.settings, preview);
        self.search.last_request = Some(request.clone());
        Effect::Search {
            generation: self.search.next_generation(),
            catalog: self.catalog.clone(),
            request,
            interim: false,
        }
    }

    /// The searches of a query being typed. With a dense ranker, BM25F's
    /// answer (no model call) is asked for first and shown at once; the
    /// dense search, one generation newer, replaces it when the query is
    /// embedded, and an older keystroke's answers never replace a newer's.
    fn typing_effects(&mut self) -> Vec<Effect> {
        if !self.settings.ranker.needs_embeddings() {
            return vec![self.search_effect(true)];
        }
        let Effect::Search {
            generation,
            catalog,
            mut request,
            ..
        } = self.search_effect(true)
        else {
            unreachable!("search_effect makes a search");
        };
        request.ranker = Some(Ranker::Bm25);
        let lexical = Effect::Search {
            generation,
            catalog,
            request,
            interim: true,
        };
        vec![lexical, self.search_effect(true)]
    }

    /// The last search again (a new generation, the session as it is now):
    /// after a failure, the service may be back.
    fn retry_effect(&mut self) -> Effect {
        let Some(mut request) = self.search.last_request.clone() else {
            return self.search_effect(true);
        };
        request.session_id = self.search.session.clone();
        Effect::Search {
            generation: self.search.next_generation(),
            catalog: self.catalog.clone(),
            request,
            interim: false,
        }
    }

    /// A search is under way whose answer has not come back.
    pub fn searching(&self) -> bool {
        self.search.searching()
    }

    /// The tool whose detail is shown: the highlighted row of the results
    /// pane when it had the focus last, else of the catalog pane.
    pub fn current_tool(&self) -> Option<(usize, Option<&SearchHit>)> {
        let from_results = matches!(self.focus, Focus::Results)
            || (matches!(self.focus, Focus::Detail | Focus::Query)
                && self.last_list == Focus::Results);
        if from_results && let Some(hit) = self.search.current() {
            return Some((hit.index, Some(hit)));
        }
        let index = self.catalog_view.current()?;
        Some((index, self.search.hit(index)))
    }

    pub fn tool(&self, index: usize) -> &Tool {
        &self.catalog.tools()[index]
    }

    /// Tools the current search selected.
    pub fn is_selected(&self, index: usize) -> bool {
        self.search.hit(index).is_some()
    }

    pub fn tokens_of(&self, index: usize) -> Option<u64> {
        self.costs.as_ref().and_then(|c| c.get(index).copied())
    }

    /// Rows a list pane shows at the current terminal size.
    pub fn list_height(&self) -> usize {
        self.layout.list_rows()
    }

    /// The context the keys are looked up in: the screen with the keyboard.
    pub fn context(&self) -> Context {
        match self.popup {
            Some(Popup::Settings) => Context::Settings,
            Some(Popup::Breaker) if self.breaker.as_ref().is_some_and(|b| b.confirming()) => {
                Context::Confirm
            }
            Some(Popup::Breaker) if self.breaker.as_ref().is_some_and(|b| b.is_typing()) => {
                Context::Input
            }
            Some(Popup::Breaker) => Context::Breaker,
            Some(Popup::Tune) if self.tune.is_typing() => Context::Input,
            Some(Popup::Tune) => Context::Tune,
            Some(Popup::Export) => Context::Input,
            Some(Popup::Help | Popup::Detail) => Context::Main,
            None if self.focus == Focus::Query => Context::Input,
            None => Context::Main,
        }
    }

    /// Main-screen actions that keys typing no text reach from the query box.
    fn reaches_from_query(action: Action) -> bool {
        matches!(
            action,
            Action::Quit
                | Action::Help
                | Action::Settings
                | Action::NextPane
                | Action::PrevPane
                | Action::RetrySearch
        )
    }

    /// A key in the screen's context, else text typed in a text box, else a
    /// global action.
    fn resolve(&self, ev: &KeyEvent) -> Option<Command> {
        let context = self.context();
        if let Some(a) = self.keymap.action_in(context, ev) {
            return Some(Command::Act(a));
        }
        if context == Context::Input {
            if let Some(c) = Key::from_event(ev).and_then(|k| k.text()) {
                return Some(Command::Type(c));
            }
            if self.popup.is_none()
                && let Some(a) = self.keymap.action_in(Context::Main, ev)
                && App::reaches_from_query(a)
            {
                return Some(Command::Act(a));
            }
        }
        self.keymap.action_in(Context::Global, ev).map(Command::Act)
    }

    /// The one update function.
    pub fn update(&mut self, msg: Msg) -> Vec<Effect> {
        let trace_loaded = self.trace_loaded();
        let effects = match msg {
            Msg::InputClosed => {
                self.should_quit = true;
                Vec::new()
            }
            Msg::Resize(w, h) => {
                self.layout = layout(
                    Rect::new(0, 0, w, h),
                    trace_loaded,
                    self.servers_line(),
                    self.caption.is_some(),
                );
                let height = self.list_height();
                let len = self.catalog_view.rows.len();
                self.catalog_view.list.keep_visible(len, height);
                let len = self.search.len();
                self.search.list.keep_visible(len, height);
                Vec::new()
            }
            Msg::CostsReady { basis, costs } => {
                if basis == self.settings.basis() && costs.len() == self.catalog.len() {
                    self.costs = Some(costs);
                    if self.catalog_view.sort == Sort::Tokens {
                        self.rebuild_view();
                    }
                }
                Vec::new()
            }
            Msg::SearchDone(answer) => {
                let height = self.list_height();
                let taken = self.search.receive(answer, &self.catalog, height);
                if taken && self.catalog_view.filter == Filter::Selected {
                    self.rebuild_view();
                }
                // A dense ranker's preview answered by BM25F while the
                // catalog's vectors are computed (its note says how far):
                // ask again shortly, so the fused results and the progress
                // show without a keystroke.
                if taken && self.vectors_pending() {
                    vec![Effect::Refresh {
                        after: REFRESH_WHILE_EMBEDDING,
                        generation: self.search.applied(),
                    }]
                } else {
                    Vec::new()
                }
            }
            Msg::Refresh { generation } => {
                // Only if nothing newer was asked for meanwhile.
                if generation == self.search.applied() && !self.searching() {
                    vec![self.search_effect(true)]
                } else {
                    Vec::new()
                }
            }
            Msg::TraceLoaded { path, result } => {
                if let Some(pane) = &mut self.breaker {
                    pane.loaded(&path, result);
                }
                Vec::new()
            }
            Msg::McpCallDone { id, result } => {
                if let Some(pane) = &mut self.breaker {
                    pane.receive(id, result);
                }
                Vec::new()
            }
            Msg::TuneDone { generation, result } => {
                self.tune.receive(generation, result);
                Vec::new()
            }
            Msg::Written(result) => {
                let message = match result {
                    Ok(m) => m,
                    Err(e) => format!("not written: {e}"),
                };
                if self.popup == Some(Popup::Tune) {
                    self.tune.message = Some(message);
                } else {
                    self.status = Some(message);
                }
                Vec::new()
            }
            Msg::Key(key) => {
                if key.kind == KeyEventKind::Release {
                    return Vec::new();
                }
                // A message shows until the next key.
                self.status = None;
                match self.resolve(&key) {
                    Some(Command::Act(a)) => self.act(a),
                    Some(Command::Type(c)) => self.type_text(&c.to_string()),
                    None => Vec::new(),
                }
            }
            Msg::Action(a) => {
                self.status = None;
                let context = self.context();
                let reaches = a.context() == context
                    || a.context() == Context::Global
                    || (context == Context::Input
                        && self.popup.is_none()
                        && App::reaches_from_query(a));
                if reaches { self.act(a) } else { Vec::new() }
            }
            Msg::Type(text) => self.type_text(&text),
            Msg::Mouse(m) => {
                self.mouse(m);
                Vec::new()
            }
            Msg::Caption(text) => {
                self.caption = text.filter(|t| !t.trim().is_empty());
                Vec::new()
            }
            Msg::DemoPaused(paused) => {
                self.demo = Some(paused);
                Vec::new()
            }
        };
        if self.trace_loaded() != self.layout.breaker.trace.is_some()
            || self.servers_line() != self.layout.servers.is_some()
            || self.caption.is_some() != self.layout.caption.is_some()
        {
            self.layout = layout(
                self.layout.area,
                self.trace_loaded(),
                self.servers_line(),
                self.caption.is_some(),
            );
        }
        effects
    }

    /// A click focuses the pane under it and selects the row clicked; the
    /// wheel scrolls the pane under it (help and detail popups too).
    /// Other screens take keys only.
    fn mouse(&mut self, m: crossterm::event::MouseEvent) {
        use crossterm::event::{MouseButton, MouseEventKind};
        let at = ratatui::layout::Position::new(m.column, m.row);
        let wheel = match m.kind {
            MouseEventKind::ScrollDown => Some(Action::Down),
            MouseEventKind::ScrollUp => Some(Action::Up),
            _ => None,
        };
        match self.popup {
            Some(Popup::Help | Popup::Detail) => {
                if let Some(a) = wheel {
                    for _ in 0..3 {
                        self.act(a);
                    }
                }
                return;
            }
            Some(_) => return,
            None => {}
        }
        let l = self.layout;
        let height = self.list_height();
        let pane = if l.catalog.contains(at) {
            Focus::Catalog
        } else if l.results.contains(at) {
            Focus::Results
        } else if l.detail.is_some_and(|d| d.contains(at)) {
            Focus::Detail
        } else if l.query.contains(at) {
            Focus::Query
        } else {
            return;
        };
        if let Some(a) = wheel {
            for _ in 0..3 {
                match pane {
                    Focus::Catalog => {
                        if self.catalog_view.handle(a, height) {
                            self.rebuild_view();
                        }
                    }
                    Focus::Results => {
                        self.search.handle(a, height);
                    }
                    Focus::Detail => self.scroll_detail(a),
                    Focus::Query => {}
                }
            }
            return;
        }
        if m.kind != MouseEventKind::Down(MouseButton::Left) {
            return;
        }
        if matches!(pane, Focus::Catalog | Focus::Results) {
            self.last_list = pane;
        }
        self.focus = pane;
        // The row clicked (the pane's first row is under its top border).
        let row = usize::from(m.row.saturating_sub(l.catalog.y + 1));
        let inside = m.row > l.catalog.y && m.row + 1 < l.catalog.bottom();
        match pane {
            Focus::Catalog if inside => {
                let len = self.catalog_view.rows.len();
                let index = self.catalog_view.list.offset + row;
                if index < len {
                    self.catalog_view.list.selected = index;
                    self.catalog_view.list.keep_visible(len, height);
                }
            }
            Focus::Results if inside => {
                let len = self.search.len();
                let index = self.search.list.offset + row;
                if index < len {
                    self.search.list.selected = index;
                    self.search.list.keep_visible(len, height);
                }
            }
            _ => {}
        }
    }

    /// The header has a line for the MCP servers (the catalog came from some).
    pub fn servers_line(&self) -> bool {
        !self.mcp_servers.is_empty()
    }

    fn trace_loaded(&self) -> bool {
        self.breaker.as_ref().is_some_and(|b| b.trace.is_some())
    }

    /// Text into the text box that has the keyboard.
    fn type_text(&mut self, text: &str) -> Vec<Effect> {
        if self.context() != Context::Input {
            return Vec::new();
        }
        if self.popup == Some(Popup::Breaker) {
            if let Some(pane) = &mut self.breaker {
                pane.type_text(text);
            }
            return Vec::new();
        }
        if self.popup == Some(Popup::Tune) {
            self.tune.type_text(text);
            return Vec::new();
        }
        if self.popup == Some(Popup::Export) {
            if let Some(b) = &mut self.export {
                b.type_text(text);
            }
            return Vec::new();
        }
        let outcome = self.query.type_text(text);
        self.on_query(outcome)
    }

    /// Dispatches an action to whoever owns the screen.
    fn act(&mut self, action: Action) -> Vec<Effect> {
        if action == Action::QuitNow {
            self.should_quit = true;
            return Vec::new();
        }
        match self.popup {
            Some(Popup::Settings) => match self.editor.handle(action) {
                SettingsOutcome::Nothing => Vec::new(),
                SettingsOutcome::Close => {
                    self.popup = None;
                    Vec::new()
                }
                SettingsOutcome::Apply(edited) => self.apply_settings(edited),
            },
            Some(Popup::Breaker) => {
                let Some(pane) = &mut self.breaker else {
                    self.popup = None;
                    return Vec::new();
                };
                let live = self.mcp.is_some();
                match pane.handle(action, &self.catalog, &self.catalog_view.rows, live) {
                    BreakerOutcome::Stay => Vec::new(),
                    BreakerOutcome::Close => {
                        self.popup = None;
                        Vec::new()
                    }
                    BreakerOutcome::Load(path) => vec![Effect::LoadTrace { path }],
                    BreakerOutcome::Call(calls) => {
                        let Some(host) = &self.mcp else {
                            return Vec::new();
                        };
                        calls
                            .into_iter()
                            .map(|c| Effect::McpCall {
                                id: c.id,
                                host: host.clone(),
                                server: c.server,
                                tool: c.tool,
                                arguments: c.arguments,
                            })
                            .collect()
                    }
                }
            }
            Some(Popup::Tune) => self.on_tune(action),
            Some(Popup::Export) => {
                let Some(b) = &mut self.export else {
                    self.popup = None;
                    return Vec::new();
                };
                match b.handle(action) {
                    ExportOutcome::Stay => Vec::new(),
                    ExportOutcome::Close => {
                        self.popup = None;
                        self.export = None;
                        Vec::new()
                    }
                    ExportOutcome::Write { format, path } => {
                        self.popup = None;
                        self.export = None;
                        self.export_effect(format, path)
                    }
                }
            }
            Some(Popup::Help) => {
                let rows = help_rows(&self.keymap, &self.mcp_servers).len();
                let height = self.layout.help_rows();
                let max = rows.saturating_sub(height) as isize;
                match action {
                    Action::Escape | Action::Help | Action::Quit => self.popup = None,
                    other => {
                        if let Some(d) = movement(other, height) {
                            self.help_scroll =
                                (self.help_scroll as isize).saturating_add(d).clamp(0, max)
                                    as usize;
                        }
                    }
                }
                Vec::new()
            }
            Some(Popup::Detail) => {
                match action {
                    Action::Escape | Action::OpenDetail | Action::Quit => self.popup = None,
                    other => self.scroll_detail(other),
                }
                Vec::new()
            }
            None if self.focus == Focus::Query && action.context() == Context::Input => {
                let outcome = self.query.handle(action);
                self.on_query(outcome)
            }
            None => self.on_main(action),
        }
    }

    fn on_query(&mut self, outcome: QueryOutcome) -> Vec<Effect> {
        match outcome {
            QueryOutcome::Nothing => Vec::new(),
            QueryOutcome::Changed => {
                self.search.list = ListState::default();
                self.typing_effects()
            }
            QueryOutcome::Commit => {
                self.focus = Focus::Results;
                self.last_list = Focus::Results;
                // A committed query is recorded in the session.
                vec![self.search_effect(false)]
            }
            QueryOutcome::Leave => {
                self.focus = self.last_list;
                Vec::new()
            }
        }
    }

    fn scroll_detail(&mut self, action: Action) {
        if let Some(d) = movement(action, usize::from(self.layout.area.height)) {
            let d = d.clamp(-10_000, 10_000) as i32;
            self.detail_scroll = (i32::from(self.detail_scroll) + d).clamp(0, 10_000) as u16;
        }
    }

    /// The panes' actions.
    fn on_main(&mut self, action: Action) -> Vec<Effect> {
        let height = self.list_height();
        match action {
            Action::Quit => self.should_quit = true,
            Action::FocusQuery => {
                if matches!(self.focus, Focus::Catalog | Focus::Results) {
                    self.last_list = self.focus;
                }
                self.focus = Focus::Query;
            }
            Action::Escape => {
                if self.focus == Focus::Detail {
                    self.focus = self.last_list;
                }
            }
            Action::NextPane | Action::PrevPane => {
                let order = [Focus::Query, Focus::Catalog, Focus::Results, Focus::Detail];
                let i = order.iter().position(|f| *f == self.focus).unwrap_or(0);
                let step = if action == Action::NextPane { 1 } else { 3 };
                self.focus = order[(i + step) % 4];
                if matches!(self.focus, Focus::Catalog | Focus::Results) {
                    self.last_list = self.focus;
                }
            }
            Action::OpenDetail => {
                self.detail_scroll = 0;
                if self.layout.detail_is_popup() {
                    self.popup = Some(Popup::Detail);
                } else {
                    self.focus = Focus::Detail;
                }
            }
            Action::ToggleAlwaysLoad => return self.toggle_always_load(),
            Action::Settings => {
                self.editor.open(&self.settings);
                self.popup = Some(Popup::Settings);
            }
            Action::Help => {
                self.help_scroll = 0;
                self.popup = Some(Popup::Help);
            }
            Action::RetrySearch => {
                self.search.full_catalog = false;
                return vec![self.retry_effect()];
            }
            Action::SendFullCatalog => self.send_full_catalog(),
            Action::Tune => return self.open_tune(),
            Action::Export => {
                let tools = self.loaded_tools().map_or(0, |t| t.len());
                if tools == 0 {
                    self.status = Some(
                        "nothing to export: no tools are loaded (the search has not come back or failed)"
                            .into(),
                    );
                } else {
                    self.export = Some(ExportBox::new(tools));
                    self.popup = Some(Popup::Export);
                }
            }
            Action::Breaker => {
                // The highlighted tool (results or catalog) is the one to call.
                if let Some((index, _)) = self.current_tool() {
                    match &mut self.breaker {
                        Some(pane) if pane.tool != index => pane.pick(&self.catalog, index),
                        Some(_) => {}
                        None => self.breaker = Some(BreakerPane::new(&self.catalog, index)),
                    }
                    self.popup = Some(Popup::Breaker);
                }
            }
            other => match self.focus {
                Focus::Results => {
                    self.search.handle(other, height);
                }
                Focus::Detail => self.scroll_detail(other),
                _ => {
                    if self.catalog_view.handle(other, height) {
                        self.rebuild_view();
                    }
                }
            },
        }
        Vec::new()
    }

    /// Recomputes the catalog pane's rows.
    pub fn rebuild_view(&mut self) {
        let search = &self.search;
        let selected = |i: usize| search.hit(i).is_some();
        let src = ViewSource {
            catalog: &self.catalog,
            handle: &self.handle,
            costs: self.costs.as_deref().map(Vec::as_slice),
            selected: &selected,
            height: self.layout.list_rows(),
        };
        self.catalog_view.rebuild(&src);
    }

    fn toggle_always_load(&mut self) -> Vec<Effect> {
        let index = match self.focus {
            Focus::Results => self.search.current().map(|h| h.index),
            _ => self.catalog_view.current(),
        };
        let Some(index) = index else {
            return Vec::new();
        };
        let value = !self.catalog.tools()[index].always_load;
        let toggled = Arc::new(self.catalog.with_always_load(index, value));
        let name = toggled.tools()[index].name.clone();
        // The initial set, caps and their validation follow at once; a change
        // the SDK would refuse is refused, with its message.
        match self.settings.validate(&toggled) {
            Ok(handle) => {
                self.catalog = toggled;
                self.handle = handle;
                self.status = Some(format!(
                    "{name}: always-load {}",
                    if value { "on" } else { "off" }
                ));
            }
            Err(e) => {
                self.status = Some(format!("{name} stays as it was: {e}"));
                return Vec::new();
            }
        }
        self.rebuild_view();
        vec![self.search_effect(true)]
    }

    /// Validates edited settings: valid ones take effect at once; invalid ones
    /// are shown with the SDK's message and the last valid ones stay in force.
    pub fn apply_settings(&mut self, edited: Settings) -> Vec<Effect> {
        self.editor.edited = edited.clone();
        match edited.validate(&self.catalog) {
            Err(e) => {
                self.editor.error = Some(e.to_string());
                Vec::new()
            }
            Ok(handle) => {
                self.editor.error = None;
                let basis_changed = edited.basis() != self.settings.basis();
                self.settings = edited;
                self.handle = handle;
                self.rebuild_view();
                let mut effects = Vec::new();
                if basis_changed {
                    self.costs = None;
                    effects.push(self.costs_effect());
                }
                effects.push(self.search_effect(true));
                if self.popup == Some(Popup::Tune) {
                    effects.extend(self.tune_effects());
                }
                effects
            }
        }
    }

    /// The answer shown is BM25F's standing in for a dense ranker whose
    /// catalog vectors are still being computed.
    pub fn vectors_pending(&self) -> bool {
        !self.search.interim
            && matches!(&self.search.results, Results::Found(r)
            if self.settings.ranker.needs_embeddings()
                && r.method != self.settings.ranker.to_string())
    }

    /// The tools the app would send now: the current search's loaded set,
    /// or the full catalog when it was sent instead after a failure.
    pub fn loaded_tools(&self) -> Option<Vec<usize>> {
        if self.search.full_catalog {
            return Some((0..self.catalog.len()).collect());
        }
        match &self.search.results {
            Results::Found(r) => Some(r.tools.iter().map(|h| h.index).collect()),
            _ => None,
        }
    }

    /// The full catalog's tokens (once counted) and whether they fit the
    /// context budget: `Err` says why the full catalog is not offered.
    pub fn full_catalog_offer(&self) -> Result<u64, String> {
        use crate::numbers::thousands;
        let Some(budget) = self.context_budget else {
            return Err("no context budget is set (--context-budget TOKENS)".into());
        };
        let Some(costs) = &self.costs else {
            return Err("the catalog's tokens are still being counted".into());
        };
        let full: u64 = costs.iter().sum();
        if full <= budget {
            Ok(full)
        } else {
            Err(format!(
                "the full catalog is {} tokens; the budget is {}",
                thousands(full),
                thousands(budget)
            ))
        }
    }

    fn send_full_catalog(&mut self) {
        if !matches!(self.search.results, Results::Failed(_)) {
            self.status = Some("the full catalog is offered only when a search fails".into());
            return;
        }
        match self.full_catalog_offer() {
            Ok(tokens) => {
                self.search.full_catalog = true;
                self.status = Some(format!(
                    "sending the full catalog instead: {} tools, {} tokens",
                    self.catalog.len(),
                    crate::numbers::thousands(tokens)
                ));
            }
            Err(why) => self.status = Some(format!("not sent: {why}")),
        }
    }

    fn export_effect(
        &mut self,
        format: crate::catalog::export::PayloadFormat,
        path: String,
    ) -> Vec<Effect> {
        let Some(indices) = self.loaded_tools() else {
            self.status = Some("nothing to export: no tools are loaded".into());
            return Vec::new();
        };
        let tools = indices.iter().map(|&i| &self.catalog.tools()[i]);
        match crate::catalog::export::payload(tools, format) {
            Ok(text) => {
                let shown = std::path::absolute(&path)
                    .map_or_else(|_| path.clone(), |p| p.display().to_string());
                vec![Effect::WriteFile {
                    done: format!(
                        "wrote {} tools ({}) to {}",
                        indices.len(),
                        format_name(format),
                        crate::terminal_text::escape(&shown)
                    ),
                    path,
                    text,
                }]
            }
            Err(e) => {
                self.status = Some(format!("not exported: {e}"));
                Vec::new()
            }
        }
    }

    /// What a Tune measurement is for now.
    fn tune_wanted(&self) -> Option<Measured> {
        Some(Measured {
            catalog: self.catalog.clone(),
            ranker: self.settings.ranker,
            basis: self.settings.basis(),
            queries: self.tune.queries.clone()?,
        })
    }

    /// A measurement if the one shown is not for the catalog and settings
    /// in force.
    fn tune_effects(&mut self) -> Vec<Effect> {
        let Some(wanted) = self.tune_wanted() else {
            return Vec::new();
        };
        if !self.tune.needs(&wanted) {
            return Vec::new();
        }
        let generation = self.tune.start(wanted.clone());
        vec![Effect::Tune {
            generation,
            catalog: wanted.catalog,
            queries: wanted.queries,
            options: crate::tune::TuneOptions {
                ranker: Some(wanted.ranker),
                token_basis: wanted.basis,
                target_pct: None,
            },
        }]
    }

    fn open_tune(&mut self) -> Vec<Effect> {
        self.popup = Some(Popup::Tune);
        if self.tune.queries.is_none() {
            // Nothing to measure yet: the prompt for a file opens at once.
            self.tune.handle(Action::TuneOpen);
        }
        self.tune_effects()
    }

    /// The search cap and initial count the Tune screen marks.
    pub fn tune_current(&self) -> Option<(usize, usize)> {
        let always = self
            .catalog
            .tools()
            .iter()
            .filter(|t| t.always_load)
            .count();
        let max_tools = self
            .handle
            .search_cap(self.settings.max_tools)
            .ok()
            .flatten();
        crate::tune::current_setting(&self.handle, max_tools, always)
    }

    fn on_tune(&mut self, action: Action) -> Vec<Effect> {
        let mut edited = self.settings.clone();
        match self.tune.handle(action) {
            TuneOutcome::Stay => return Vec::new(),
            TuneOutcome::Close => {
                self.popup = None;
                return Vec::new();
            }
            TuneOutcome::Measure => return self.tune_effects(),
            TuneOutcome::Save => return self.save_settings(),
            TuneOutcome::Cap(d) => {
                let Some((cap, _)) = self.tune_current() else {
                    self.tune.message =
                        Some("strategy all loads every tool: no cap to change".into());
                    return Vec::new();
                };
                let next = (cap as i64 + d).max(1);
                // The explicit search cap if there is one, else the handle's.
                if edited.max_tools.is_some() {
                    edited.max_tools = Some(next);
                } else {
                    edited.max_loaded_tools = Some(next);
                }
            }
            TuneOutcome::Initial(d) => {
                edited.initial_tool_count = (edited.initial_tool_count + d).max(0);
            }
            TuneOutcome::Apply => {
                let Some(report) = self.tune.report() else {
                    self.tune.message = Some("nothing measured yet: no recommendation".into());
                    return Vec::new();
                };
                let r = report.recommended;
                edited.strategy = crate::select::Strategy::Deferred;
                edited.max_loaded_tools = Some(r.max_tools as i64);
                edited.max_tools = None;
                edited.initial_tool_count = r.initial_tool_count as i64;
                self.tune.message = Some(format!(
                    "applied: max_loaded_tools {} · initial_tool_count {} ({} saves them)",
                    r.max_tools,
                    r.initial_tool_count,
                    self.keymap.label(Action::TuneSave)
                ));
            }
        }
        let effects = self.apply_settings(edited);
        if let Some(e) = self.editor.error.take() {
            self.tune.message = Some(format!("refused: {e}"));
        }
        effects
    }

    fn save_settings(&mut self) -> Vec<Effect> {
        let Some(path) = self.config_path.clone() else {
            self.tune.message =
                Some("no config file to save to (set --config, TOOLSIFT_CONFIG or HOME)".into());
            return Vec::new();
        };
        vec![Effect::SaveSettings {
            path,
            settings: self.settings.clone(),
        }]
    }

    /// Runs `effects` (and those their answers cause) here and now, in order:
    /// for tests and benchmarks, which need no terminal and no runtime.
    pub fn settle(&mut self, effects: Vec<Effect>) {
        let mut queue = std::collections::VecDeque::from(effects);
        while let Some(effect) = queue.pop_front() {
            let searcher = self.searcher.clone();
            let msg = run_effect(&searcher, effect);
            queue.extend(self.update(msg));
        }
    }
}

/// Runs an effect where it stands (the loop does so off the UI thread;
/// tests and benchmarks right away): the answer as a `Msg`.
pub fn run_effect(searcher: &Searcher, effect: Effect) -> Msg {
    match effect {
        Effect::Search {
            generation,
            catalog,
            request,
            interim,
        } => {
            let started = std::time::Instant::now();
            let result = Box::new(searcher.search(&catalog, &request));
            Msg::SearchDone(SearchAnswer {
                generation,
                interim,
                catalog,
                preview: request.preview,
                query: request.query,
                result,
                elapsed: started.elapsed(),
            })
        }
        Effect::Costs { catalog, basis } => {
            let costs = searcher.tool_costs(&catalog, basis);
            Msg::CostsReady { basis, costs }
        }
        Effect::LoadTrace { path } => {
            let result = crate::replay::load_trace(&path);
            Msg::TraceLoaded { path, result }
        }
        Effect::McpCall {
            id,
            host,
            server,
            tool,
            arguments,
        } => Msg::McpCallDone {
            id,
            result: host.call(&server, &tool, arguments),
        },
        Effect::Tune {
            generation,
            catalog,
            queries,
            options,
        } => {
            let result = crate::eval::load_queries_arg(&queries)
                .map_err(|e| e.to_string())
                .and_then(|q| {
                    crate::tune::tune(searcher, &catalog, &q, &options).map_err(|e| e.to_string())
                });
            Msg::TuneDone { generation, result }
        }
        Effect::Refresh { after, generation } => {
            std::thread::sleep(after);
            Msg::Refresh { generation }
        }
        Effect::WriteFile { path, text, done } => Msg::Written(
            std::fs::write(&path, text)
                .map(|()| done)
                .map_err(|e| format!("{}: {e}", crate::terminal_text::escape(&path))),
        ),
        Effect::SaveSettings { path, settings } => Msg::Written(
            crate::config::save_explorer_settings(&path, &settings)
                .map(|()| {
                    format!(
                        "saved the settings to {}",
                        crate::terminal_text::escape(&path.display().to_string())
                    )
                })
                .map_err(|e| e.to_string()),
        ),
    }
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod tests_mcp;

#[cfg(test)]
mod tests_tune;
