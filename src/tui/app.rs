//! The explorer's state and its one update function. No terminal here: the
//! loop feeds [`Msg`]s in and carries the returned [`Effect`]s out, so tests
//! drive `App::update` directly.

use std::sync::Arc;
use std::time::Duration;

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

use super::action::Action;
use super::breaker::BreakerPane;
use super::keymap::Keymap;
use crate::catalog::{Catalog, Tool};
use crate::engine::Ranker;
use crate::search::{SearchError, SearchHit, SearchRequest, SearchResult, Searcher};
use crate::select::{HandleOptions, SelectError, Strategy, ToolsHandle};
use crate::tokens::TokenBasis;

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
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sort {
    Catalog,
    Name,
    Tokens,
}

impl Sort {
    pub fn label(self) -> &'static str {
        match self {
            Sort::Catalog => "catalog order",
            Sort::Name => "name",
            Sort::Tokens => "tokens",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Filter {
    All,
    AlwaysLoad,
    Initial,
    Selected,
}

impl Filter {
    pub fn label(self) -> &'static str {
        match self {
            Filter::All => "all",
            Filter::AlwaysLoad => "always-load",
            Filter::Initial => "initial",
            Filter::Selected => "selected",
        }
    }
}

/// The settings a person tunes. Integers are signed so that an invalid value
/// can be shown with the SDK's message instead of being clamped.
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    pub strategy: Strategy,
    pub initial_tool_count: i64,
    pub max_loaded_tools: Option<i64>,
    pub max_tools: Option<i64>,
    pub ranker: Ranker,
    pub token_basis: TokenBasis,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            strategy: Strategy::Deferred,
            initial_tool_count: crate::select::DEFAULT_INITIAL_TOOL_COUNT,
            max_loaded_tools: None,
            max_tools: None,
            ranker: Ranker::Bm25,
            token_basis: TokenBasis::O200kBase,
        }
    }
}

impl Settings {
    pub fn handle_options(&self) -> HandleOptions {
        HandleOptions {
            strategy: self.strategy,
            initial_tool_count: self.initial_tool_count,
            max_loaded_tools: self.max_loaded_tools,
        }
    }

    /// The SDK's checks, in its order, then `max_tools`.
    pub fn validate(&self, catalog: &Arc<Catalog>) -> Result<ToolsHandle, SelectError> {
        let handle = ToolsHandle::new(catalog.clone(), &self.handle_options())?;
        handle.search_cap(self.max_tools)?;
        Ok(handle)
    }
}

/// The rows of the settings popup.
pub const SETTINGS_ROWS: [&str; 6] = [
    "strategy",
    "initial_tool_count",
    "max_loaded_tools",
    "max_tools",
    "ranker",
    "token_basis",
];

/// A one-line text input with a cursor (a char index).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct LineInput {
    pub text: String,
    pub cursor: usize,
}

impl LineInput {
    fn byte_at(&self, char_index: usize) -> usize {
        self.text
            .char_indices()
            .nth(char_index)
            .map_or(self.text.len(), |(i, _)| i)
    }

    /// Applies an editing key; true when the text changed.
    pub(crate) fn edit(&mut self, key: &KeyEvent) -> bool {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        let len = self.text.chars().count();
        match key.code {
            KeyCode::Char('u') if ctrl => {
                let changed = !self.text.is_empty();
                self.text.clear();
                self.cursor = 0;
                changed
            }
            KeyCode::Char('w') if ctrl => {
                let end = self.byte_at(self.cursor);
                let before = &self.text[..end];
                let trimmed = before.trim_end();
                let start = trimmed.rfind(char::is_whitespace).map_or(0, |i| i + 1);
                let removed = self.text[start..end].chars().count();
                self.text.replace_range(start..end, "");
                self.cursor -= removed;
                removed > 0
            }
            KeyCode::Char('a') if ctrl => {
                self.cursor = 0;
                false
            }
            KeyCode::Char('e') if ctrl => {
                self.cursor = len;
                false
            }
            KeyCode::Char(c) if !ctrl && !key.modifiers.contains(KeyModifiers::ALT) => {
                let at = self.byte_at(self.cursor);
                self.text.insert(at, c);
                self.cursor += 1;
                true
            }
            KeyCode::Backspace if self.cursor > 0 => {
                let at = self.byte_at(self.cursor - 1);
                self.text.remove(at);
                self.cursor -= 1;
                true
            }
            KeyCode::Delete if self.cursor < len => {
                let at = self.byte_at(self.cursor);
                self.text.remove(at);
                true
            }
            KeyCode::Left => {
                self.cursor = self.cursor.saturating_sub(1);
                false
            }
            KeyCode::Right => {
                self.cursor = (self.cursor + 1).min(len);
                false
            }
            KeyCode::Home => {
                self.cursor = 0;
                false
            }
            KeyCode::End => {
                self.cursor = len;
                false
            }
            _ => false,
        }
    }

    pub(crate) fn set(&mut self, text: &str) {
        self.text = text.to_string();
        self.cursor = text.chars().count();
    }
}

/// A scrolling list: the highlighted row and the first row shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ListState {
    pub selected: usize,
    pub offset: usize,
}

impl ListState {
    /// Moves by `delta` rows within `len`, keeping the selection visible in a
    /// window of `height` rows.
    fn shift(&mut self, delta: isize, len: usize, height: usize) {
        if len == 0 {
            *self = ListState::default();
            return;
        }
        let target = (self.selected as isize + delta).clamp(0, len as isize - 1) as usize;
        self.selected = target;
        self.keep_visible(len, height);
    }

    fn keep_visible(&mut self, len: usize, height: usize) {
        let height = height.max(1);
        self.selected = self.selected.min(len.saturating_sub(1));
        if self.selected < self.offset {
            self.offset = self.selected;
        } else if self.selected >= self.offset + height {
            self.offset = self.selected + 1 - height;
        }
        self.offset = self.offset.min(len.saturating_sub(height));
    }
}

/// The answer shown in the results pane.
#[derive(Debug, Clone, PartialEq)]
pub enum Results {
    /// No search has come back yet.
    Waiting,
    Found(SearchResult),
    Failed(String),
}

/// What the loop feeds in.
#[derive(Debug, Clone)]
pub enum Msg {
    Key(KeyEvent),
    /// The terminal's input ended (closed or broken): nothing more can be typed.
    InputClosed,
    Resize(u16, u16),
    SearchDone {
        generation: u64,
        query: String,
        /// A search as you type (no session recorded).
        preview: bool,
        result: Box<Result<SearchResult, SearchError>>,
        elapsed: Duration,
    },
    CostsReady {
        basis: TokenBasis,
        costs: Arc<Vec<u64>>,
    },
}

/// What the loop must do for the app.
#[derive(Debug, Clone)]
pub enum Effect {
    /// Run a search off the UI thread and send back `Msg::SearchDone`.
    Search {
        generation: u64,
        catalog: Arc<Catalog>,
        request: SearchRequest,
    },
    /// Count every tool's tokens with `basis` and send back `Msg::CostsReady`.
    Costs {
        catalog: Arc<Catalog>,
        basis: TokenBasis,
    },
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
    /// Settings as edited in the popup (may be invalid).
    pub edited: Settings,
    /// The SDK's message for the edited settings, when invalid.
    pub settings_error: Option<String>,
    pub settings_row: usize,
    pub focus: Focus,
    /// Where Esc from the query box returns to.
    pub last_list: Focus,
    pub popup: Option<Popup>,
    pub query: LineInput,
    pub history: Vec<String>,
    history_pos: Option<usize>,
    pub sort: Sort,
    pub filter: Filter,
    /// Catalog indices in display order (sorted, filtered).
    pub view: Vec<usize>,
    pub catalog_list: ListState,
    pub results_list: ListState,
    pub detail_scroll: u16,
    pub results: Results,
    /// The query the shown results answer.
    pub results_query: String,
    pub search_latency: Option<Duration>,
    next_generation: u64,
    applied_generation: u64,
    /// Per-tool tokens for `settings.token_basis`, once counted.
    pub costs: Option<Arc<Vec<u64>>>,
    pub session: Option<String>,
    pub session_tools: usize,
    pub status: Option<String>,
    /// The breaker simulator, once opened (its log and streak survive closing).
    pub breaker: Option<BreakerPane>,
    pub no_color: bool,
    pub size: (u16, u16),
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
            view: (0..catalog.len()).collect(),
            catalog,
            sources,
            searcher,
            keymap,
            edited: settings.clone(),
            settings,
            handle,
            settings_error: None,
            settings_row: 0,
            focus: Focus::Catalog,
            last_list: Focus::Catalog,
            popup: None,
            query: LineInput::default(),
            history: Vec::new(),
            history_pos: None,
            sort: Sort::Catalog,
            filter: Filter::All,
            catalog_list: ListState::default(),
            results_list: ListState::default(),
            detail_scroll: 0,
            results: Results::Waiting,
            results_query: String::new(),
            search_latency: None,
            next_generation: 0,
            applied_generation: 0,
            costs: None,
            session: None,
            session_tools: 0,
            status: None,
            breaker: None,
            no_color: false,
            size: (120, 35),
            should_quit: false,
        };
        let effects = vec![app.costs_effect(), app.search_effect(true)];
        Ok((app, effects))
    }

    fn costs_effect(&self) -> Effect {
        Effect::Costs {
            catalog: self.catalog.clone(),
            basis: self.settings.token_basis,
        }
    }

    /// A search of the current query; `preview` while typing.
    fn search_effect(&mut self, preview: bool) -> Effect {
        self.next_generation += 1;
        let max_tools = self
            .handle
            .search_cap(self.settings.max_tools)
            .ok()
            .flatten();
        Effect::Search {
            generation: self.next_generation,
            catalog: self.catalog.clone(),
            request: SearchRequest {
                query: self.query.text.clone(),
                context: None,
                max_tools,
                session_id: self.session.clone(),
                ranker: Some(self.settings.ranker),
                token_basis: Some(self.settings.token_basis),
                preview,
            },
        }
    }

    /// A search is under way whose answer has not come back.
    pub fn searching(&self) -> bool {
        self.applied_generation < self.next_generation
    }

    /// The tool whose detail is shown: the highlighted row of the results
    /// pane when it had the focus last, else of the catalog pane.
    pub fn current_tool(&self) -> Option<(usize, Option<&SearchHit>)> {
        let from_results = matches!(self.focus, Focus::Results)
            || (matches!(self.focus, Focus::Detail | Focus::Query)
                && self.last_list == Focus::Results);
        if from_results
            && let Results::Found(r) = &self.results
            && let Some(hit) = r.tools.get(self.results_list.selected)
        {
            return Some((hit.index, Some(hit)));
        }
        let index = *self.view.get(self.catalog_list.selected)?;
        let hit = match &self.results {
            Results::Found(r) => r.tools.iter().find(|h| h.index == index),
            _ => None,
        };
        Some((index, hit))
    }

    pub fn tool(&self, index: usize) -> &Tool {
        &self.catalog.tools()[index]
    }

    /// Tools the current search selected.
    pub fn is_selected(&self, index: usize) -> bool {
        matches!(&self.results, Results::Found(r) if r.tools.iter().any(|h| h.index == index))
    }

    pub fn tokens_of(&self, index: usize) -> Option<u64> {
        self.costs.as_ref().and_then(|c| c.get(index).copied())
    }

    /// Rows a list pane shows at the current terminal size.
    pub fn list_height(&self) -> usize {
        super::ui::list_rows(self.size)
    }

    /// The one update function.
    pub fn update(&mut self, msg: Msg) -> Vec<Effect> {
        match msg {
            Msg::InputClosed => {
                self.should_quit = true;
                Vec::new()
            }
            Msg::Resize(w, h) => {
                self.size = (w, h);
                let height = self.list_height();
                self.catalog_list.keep_visible(self.view.len(), height);
                Vec::new()
            }
            Msg::CostsReady { basis, costs } => {
                if basis == self.settings.token_basis {
                    self.costs = Some(costs);
                    if self.sort == Sort::Tokens {
                        self.rebuild_view();
                    }
                }
                Vec::new()
            }
            Msg::SearchDone {
                generation,
                query,
                preview,
                result,
                elapsed,
            } => {
                // An older query's answer never replaces a newer one's.
                if generation <= self.applied_generation {
                    return Vec::new();
                }
                self.applied_generation = generation;
                self.search_latency = Some(elapsed);
                self.results_query = query;
                self.results = match *result {
                    Ok(r) => {
                        if !preview && let Some(id) = &r.session_id {
                            self.session = Some(id.clone());
                            self.session_tools = r.session_tools.len();
                        }
                        Results::Found(r)
                    }
                    Err(e) => Results::Failed(e.to_string()),
                };
                let len = self.result_len();
                self.results_list.keep_visible(len, self.list_height());
                if self.filter == Filter::Selected {
                    self.rebuild_view();
                }
                Vec::new()
            }
            Msg::Key(key) => {
                if key.kind == KeyEventKind::Release {
                    return Vec::new();
                }
                self.on_key(key)
            }
        }
    }

    fn result_len(&self) -> usize {
        match &self.results {
            Results::Found(r) => r.tools.len(),
            _ => 0,
        }
    }

    fn on_key(&mut self, key: KeyEvent) -> Vec<Effect> {
        let ctrl_c =
            key.code == KeyCode::Char('c') && key.modifiers.contains(KeyModifiers::CONTROL);
        if ctrl_c {
            self.should_quit = true;
            return Vec::new();
        }
        let action = self.keymap.action(&key);
        match self.popup {
            Some(Popup::Settings) => return self.on_settings_key(key, action),
            Some(Popup::Help) => {
                if matches!(action, Some(Action::Escape | Action::Help | Action::Quit))
                    || key.code == KeyCode::Esc
                {
                    self.popup = None;
                }
                return Vec::new();
            }
            Some(Popup::Breaker) => {
                let tools = self.view.clone();
                if let Some(pane) = &mut self.breaker
                    && !pane.on_key(&key, &self.catalog, &tools)
                {
                    self.popup = None;
                }
                return Vec::new();
            }
            Some(Popup::Detail) => {
                match action {
                    Some(Action::Down) => self.detail_scroll = self.detail_scroll.saturating_add(1),
                    Some(Action::Up) => self.detail_scroll = self.detail_scroll.saturating_sub(1),
                    Some(Action::Escape | Action::OpenDetail | Action::Quit) => self.popup = None,
                    _ if key.code == KeyCode::Esc => self.popup = None,
                    _ => {}
                }
                return Vec::new();
            }
            None => {}
        }
        if self.focus == Focus::Query {
            return self.on_query_key(key, action);
        }
        match action {
            Some(a) => self.on_action(a),
            None => Vec::new(),
        }
    }

    fn on_query_key(&mut self, key: KeyEvent, action: Option<Action>) -> Vec<Effect> {
        match key.code {
            KeyCode::Esc => {
                self.focus = self.last_list;
                Vec::new()
            }
            KeyCode::Enter => {
                let q = self.query.text.trim().to_string();
                if !q.is_empty() && self.history.last() != Some(&q) {
                    self.history.push(q);
                }
                self.history_pos = None;
                self.focus = Focus::Results;
                self.last_list = Focus::Results;
                // A committed query is recorded in the session.
                vec![self.search_effect(false)]
            }
            KeyCode::Up | KeyCode::Down => {
                self.recall(key.code == KeyCode::Up);
                vec![self.search_effect(true)]
            }
            KeyCode::Tab | KeyCode::BackTab => {
                self.focus = if key.code == KeyCode::Tab {
                    Focus::Catalog
                } else {
                    Focus::Detail
                };
                Vec::new()
            }
            KeyCode::F(_) => match action {
                Some(a @ (Action::Help | Action::Settings)) => self.on_action(a),
                _ => Vec::new(),
            },
            _ => {
                if self.query.edit(&key) {
                    self.history_pos = None;
                    self.results_list = ListState::default();
                    vec![self.search_effect(true)]
                } else {
                    Vec::new()
                }
            }
        }
    }

    /// Up/Down in the query box: earlier and later queries.
    fn recall(&mut self, earlier: bool) {
        if self.history.is_empty() {
            return;
        }
        let last = self.history.len() - 1;
        self.history_pos = match (self.history_pos, earlier) {
            (None, true) => Some(last),
            (None, false) => None,
            (Some(0), true) => Some(0),
            (Some(i), true) => Some(i - 1),
            (Some(i), false) if i >= last => None,
            (Some(i), false) => Some(i + 1),
        };
        let text = self
            .history_pos
            .map_or(String::new(), |i| self.history[i].clone());
        self.query.set(&text);
    }

    fn on_action(&mut self, action: Action) -> Vec<Effect> {
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
            Action::Down | Action::Up | Action::HalfPageDown | Action::HalfPageUp => {
                let half = (height / 2).max(1) as isize;
                let delta = match action {
                    Action::Down => 1,
                    Action::Up => -1,
                    Action::HalfPageDown => half,
                    _ => -half,
                };
                self.move_by(delta, height);
            }
            Action::Top => self.move_by(isize::MIN / 2, height),
            Action::Bottom => self.move_by(isize::MAX / 2, height),
            Action::OpenDetail => {
                self.detail_scroll = 0;
                if super::ui::detail_is_popup(self.size) {
                    self.popup = Some(Popup::Detail);
                } else {
                    self.focus = Focus::Detail;
                }
            }
            Action::ToggleAlwaysLoad => return self.toggle_always_load(),
            Action::CycleSort => {
                self.sort = match self.sort {
                    Sort::Catalog => Sort::Name,
                    Sort::Name => Sort::Tokens,
                    Sort::Tokens => Sort::Catalog,
                };
                self.rebuild_view();
            }
            Action::CycleFilter => {
                self.filter = match self.filter {
                    Filter::All => Filter::AlwaysLoad,
                    Filter::AlwaysLoad => Filter::Initial,
                    Filter::Initial => Filter::Selected,
                    Filter::Selected => Filter::All,
                };
                self.catalog_list = ListState::default();
                self.rebuild_view();
            }
            Action::Settings => {
                self.edited = self.settings.clone();
                self.settings_error = None;
                self.popup = Some(Popup::Settings);
            }
            Action::Help => self.popup = Some(Popup::Help),
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
        }
        Vec::new()
    }

    fn move_by(&mut self, delta: isize, height: usize) {
        match self.focus {
            Focus::Results => {
                let len = self.result_len();
                self.results_list.shift(delta, len, height);
            }
            Focus::Detail => {
                let d = delta.clamp(-10_000, 10_000) as i32;
                self.detail_scroll = (i32::from(self.detail_scroll) + d).clamp(0, 10_000) as u16;
            }
            _ => self.catalog_list.shift(delta, self.view.len(), height),
        }
    }

    /// Recomputes the catalog pane's order and filter, keeping the highlighted
    /// tool highlighted when it is still shown.
    pub fn rebuild_view(&mut self) {
        let keep = self.view.get(self.catalog_list.selected).copied();
        let mut view: Vec<usize> = (0..self.catalog.len())
            .filter(|&i| match self.filter {
                Filter::All => true,
                Filter::AlwaysLoad => self.catalog.tools()[i].always_load,
                Filter::Initial => self.handle.is_initial(i),
                Filter::Selected => self.is_selected(i),
            })
            .collect();
        match self.sort {
            Sort::Catalog => {}
            Sort::Name => view.sort_by(|&a, &b| {
                self.catalog.tools()[a]
                    .name
                    .to_lowercase()
                    .cmp(&self.catalog.tools()[b].name.to_lowercase())
                    .then(a.cmp(&b))
            }),
            Sort::Tokens => {
                if let Some(costs) = &self.costs {
                    view.sort_by(|&a, &b| costs[b].cmp(&costs[a]).then(a.cmp(&b)));
                }
            }
        }
        self.view = view;
        if let Some(i) = keep.and_then(|k| self.view.iter().position(|&v| v == k)) {
            self.catalog_list.selected = i;
        }
        let height = self.list_height();
        self.catalog_list.keep_visible(self.view.len(), height);
    }

    fn toggle_always_load(&mut self) -> Vec<Effect> {
        let index = match self.focus {
            Focus::Results => match &self.results {
                Results::Found(r) => r.tools.get(self.results_list.selected).map(|h| h.index),
                _ => None,
            },
            _ => self.view.get(self.catalog_list.selected).copied(),
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

    fn on_settings_key(&mut self, key: KeyEvent, action: Option<Action>) -> Vec<Effect> {
        match key.code {
            KeyCode::Esc | KeyCode::Enter => {
                self.popup = None;
                return Vec::new();
            }
            KeyCode::Up | KeyCode::Char('k') => {
                self.settings_row = self.settings_row.saturating_sub(1);
                return Vec::new();
            }
            KeyCode::Down | KeyCode::Char('j') => {
                self.settings_row = (self.settings_row + 1).min(SETTINGS_ROWS.len() - 1);
                return Vec::new();
            }
            _ => {}
        }
        let step: i64 = match key.code {
            KeyCode::Left | KeyCode::Char('-') | KeyCode::Char('h') => -1,
            KeyCode::Right | KeyCode::Char('+') | KeyCode::Char('l') | KeyCode::Char(' ') => 1,
            _ => {
                if matches!(action, Some(Action::Settings | Action::Quit)) {
                    self.popup = None;
                }
                return Vec::new();
            }
        };
        let mut e = self.edited.clone();
        match self.settings_row {
            0 => e.strategy = e.strategy.toggled(),
            1 => e.initial_tool_count += step,
            2 => e.max_loaded_tools = step_optional(e.max_loaded_tools, step),
            3 => e.max_tools = step_optional(e.max_tools, step),
            4 => e.ranker = e.ranker.cycle(step < 0),
            _ => {
                e.token_basis = if step > 0 {
                    e.token_basis.next()
                } else {
                    e.token_basis.next().next()
                }
            }
        }
        self.apply_settings(e)
    }

    /// Validates edited settings: valid ones take effect at once; invalid ones
    /// are shown with the SDK's message and the last valid ones stay in force.
    pub fn apply_settings(&mut self, edited: Settings) -> Vec<Effect> {
        self.edited = edited.clone();
        match edited.validate(&self.catalog) {
            Err(e) => {
                self.settings_error = Some(e.to_string());
                Vec::new()
            }
            Ok(handle) => {
                self.settings_error = None;
                let basis_changed = edited.token_basis != self.settings.token_basis;
                self.settings = edited;
                self.handle = handle;
                self.rebuild_view();
                let mut effects = Vec::new();
                if basis_changed {
                    self.costs = None;
                    effects.push(self.costs_effect());
                }
                effects.push(self.search_effect(true));
                effects
            }
        }
    }
}

/// `None` (no cap) -> 1 -> 2 ...; stepping down from 1 gives 0, which the
/// SDK refuses (shown, not clamped); down from 0 or below gives `None`.
fn step_optional(value: Option<i64>, step: i64) -> Option<i64> {
    match (value, step > 0) {
        (None, true) => Some(1),
        (None, false) => None,
        (Some(v), true) => Some(v + 1),
        (Some(v), false) if v <= 0 => None,
        (Some(v), false) => Some(v - 1),
    }
}

impl App {
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

/// Runs an effect where it stands (tests, benchmarks): the answer as a `Msg`.
pub fn run_effect(searcher: &Searcher, effect: Effect) -> Msg {
    match effect {
        Effect::Search {
            generation,
            catalog,
            request,
        } => {
            let started = std::time::Instant::now();
            let result = Box::new(searcher.search(&catalog, &request));
            Msg::SearchDone {
                generation,
                preview: request.preview,
                query: request.query,
                result,
                elapsed: started.elapsed(),
            }
        }
        Effect::Costs { catalog, basis } => {
            let costs = searcher.tool_costs(&catalog, basis);
            Msg::CostsReady { basis, costs }
        }
    }
}

#[cfg(test)]
mod tests;
