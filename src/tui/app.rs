//! The explorer's state and its one update function. No terminal here: the
//! loop feeds [`Msg`]s in and carries the returned [`Effect`]s out, so tests
//! drive `App::update` directly and read the state through its methods
//! (`app/accessors.rs`); nothing else changes it.
//!
//! Each pane's and screen's state owns its keys and says what they ask
//! for ([`super::pane`], [`super::screen`]). `App` holds them, resolves a
//! key to an action in the context of the screen that has the keyboard,
//! dispatches it, and carries out what crosses screens: settings put in
//! force, an always-load flag toggled, the pane a click lands on.

mod accessors;
mod apply;
mod ask;
mod cmdline;
mod detail_view;
mod exact;
mod find;
mod input;
mod jump;
mod live;
mod login;
mod main_keys;
mod model_fetch;
mod pane_view;
mod pick;
mod reload;
mod screens;
mod searching;
mod servers;
mod tool_out;
mod warm;

use std::sync::Arc;

use crossterm::event::KeyEventKind;
use ratatui::layout::Rect;

use super::action::{Action, Context};
use super::cmdline::CommandLine;
use super::effect::{Effect, Msg, run_effect};
use super::keymap::Keymap;
use super::layout::{ScreenLayout, layout};
use super::pane::catalog::CatalogView;
use super::pane::detail::DetailState;
use super::pane::query::QueryBox;
use super::pane::results::SearchState;
pub use super::screen::Popup;
use super::screen::Screens;
use super::setup::Setup;
use crate::catalog::Catalog;
use crate::provider::PayloadFormat;
use crate::search::Searcher;
use crate::settings::Settings;
use crate::sources::mcp::{McpHost, ServerStatus};
use crate::tools_handle::{SelectError, ToolsHandle};
pub use model_fetch::ModelFetch;

/// Which pane has the keyboard.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Focus {
    Query,
    Catalog,
    Results,
    Detail,
}

/// A key, resolved.
enum Command {
    Act(Action),
    Type(char),
}

/// Everything the explorer shows.
pub struct App {
    catalog: Arc<Catalog>,
    /// The catalog files, as the header names them.
    sources: String,
    searcher: Searcher,
    keymap: Keymap,
    /// The settings in force (the last valid ones) and their handle.
    settings: Settings,
    handle: ToolsHandle,
    /// Per-tool tokens for `settings.basis()`, once counted.
    costs: Option<Arc<Vec<u64>>>,
    /// Per-tool count of what `toolsift check` warns about (counted off
    /// the UI thread as the explorer starts; empty until then).
    lints: Vec<u16>,
    /// Each tool's findability audit, by catalog place (audited off the UI
    /// thread once the ranker is warm; empty until then).
    findability: Vec<Option<crate::findability::ToolAudit>>,
    focus: Focus,
    /// The ranker as the explorer started, and whether the user named it
    /// (a flag or the config file): Tune's save writes the ranker only when
    /// the user named it or changed it since.
    ranker_at_start: (crate::engine::Ranker, bool),
    /// Where leaving the query box returns to.
    last_list: Focus,
    /// The screens open, and those kept while closed.
    screens: Screens,
    query: QueryBox,
    catalog_view: CatalogView,
    search: SearchState,
    detail: DetailState,
    /// The Tokens box prices a session with this provider's caching.
    caching: Option<crate::caching::Pricing>,
    /// Tools picked by hand (Space), by catalog place.
    picked: std::collections::BTreeSet<usize>,
    /// Where the catalog is read again from when a file changes.
    reload: Vec<crate::catalog::CatalogSource>,
    /// The provider format last exported (a copied or opened tool's).
    tool_format: PayloadFormat,
    /// What the first search waits for.
    warming: warm::Warming,
    /// The provider's exact counts (`--count-with`), if asked for.
    exact: Option<super::pane::exact::ExactCounts>,
    /// Live MCP servers the catalog came from (tool calls go there).
    mcp: Option<Arc<McpHost>>,
    /// What became of each MCP server.
    mcp_servers: Vec<ServerStatus>,
    /// The servers to follow as they start, taken by the loop.
    mcp_start: Option<super::servers::ServersStart>,
    /// The server a login is under way to.
    logging_in: Option<String>,
    /// A message on the bottom line, until the next key.
    status: Option<String>,
    /// A demo's caption, while one is shown.
    caption: Option<String>,
    /// In a demo: whether it is paused (None: not a demo).
    demo: Option<bool>,
    no_color: bool,
    /// The search model fetched on a first run: the job, its run, its
    /// state.
    model: model_fetch::ModelFetcher,
    /// The followed gateway's catalog, still to take (it could not be read
    /// as the explorer started): asked for each time the follower connects.
    follow_catalog: Option<(String, Option<String>)>,
    /// What the followed gateway answered the request last explained from
    /// the live screen: the detail's standing comes from it while that
    /// request is the one searched.
    gateway_answer: Option<crate::tui::screen::Answered>,
    /// Where everything goes at the current size.
    layout: ScreenLayout,
    /// The command line (`:`).
    cmdline: CommandLine,
    /// The focused pane has the whole width.
    zoomed: bool,
    /// A catalog `:open` asked for: its name and where it is read from.
    opening: Option<(String, Vec<crate::catalog::CatalogSource>)>,
    should_quit: bool,
}

impl App {
    /// A new explorer and the effects it starts with (the token counts and
    /// the ranker; the empty query's search follows them, see `warm.rs`).
    /// `setup.settings` must be valid for its catalog (the caller checks
    /// them first, so that bad flags fail before the terminal opens).
    pub fn new(setup: Setup) -> Result<(App, Vec<Effect>), SelectError> {
        let handle = setup.settings.validate(&setup.catalog)?;
        let ranker_at_start = (setup.settings.ranker, setup.ranker_chosen);
        let screens = super::screen::started(&setup);
        let mut app = App {
            catalog_view: CatalogView::new(&setup.catalog),
            catalog: setup.catalog,
            sources: setup.sources,
            searcher: setup.searcher,
            keymap: setup.keymap,
            settings: setup.settings,
            handle,
            costs: None,
            lints: Vec::new(),
            findability: Vec::new(),
            focus: Focus::Catalog,
            last_list: Focus::Catalog,
            ranker_at_start,
            screens,
            query: QueryBox::default(),
            search: SearchState::new(setup.context_budget),
            detail: DetailState::default(),
            caching: None,
            picked: Default::default(),
            reload: setup.reload,
            tool_format: PayloadFormat::OpenaiResponses,
            warming: warm::Warming::start(),
            exact: setup.count.map(|c| {
                super::pane::exact::ExactCounts::new(Arc::new(
                    crate::provider_count::SharedCounter::new(c),
                ))
            }),
            mcp: setup.mcp,
            mcp_servers: setup.mcp_servers,
            mcp_start: setup.mcp_start,
            logging_in: None,
            caption: None,
            demo: setup.demo.then_some(false),
            no_color: setup.no_color,
            layout: ScreenLayout::default(),
            cmdline: CommandLine::default(),
            zoomed: false,
            opening: None,
            should_quit: false,
            follow_catalog: live::catalog_to_take(&setup.follow),
            gateway_answer: None,
            status: setup.follow.as_ref().and_then(|f| f.blind_said()),
            model: model_fetch::ModelFetcher::new(setup.model_later),
        };
        // A key the user's config took from another action is said at once.
        if !app.keymap.taken().is_empty() {
            let taken = app.keymap.taken().join("; ");
            app.status = Some(match app.status.take() {
                Some(first) => format!("{first}; {taken}"),
                None => taken,
            });
        }
        app.layout = app.layout_for(Rect::new(0, 0, 120, 35));
        let mut effects = app.start_effects();
        effects.extend(app.exact_next());
        Ok((app, effects))
    }

    /// The layout of a screen of `area` with what this app shows now.
    fn layout_for(&self, area: Rect) -> ScreenLayout {
        let l = layout(
            area,
            self.servers_line(),
            crate::tui::layout::caption_lines(self.caption.as_deref(), area.width),
        );
        match self.zoomed_pane() {
            Some(pane) => l.zoom(pane_of(pane)),
            None => l,
        }
    }

    fn costs_effect(&self) -> Effect {
        Effect::Costs {
            catalog: self.catalog.clone(),
            basis: self.settings.basis(),
        }
    }

    /// The one update function.
    pub fn update(&mut self, msg: Msg) -> Vec<Effect> {
        let effects = match msg {
            Msg::Key(key) if key.kind == KeyEventKind::Release => return Vec::new(),
            Msg::Key(key) => self.key(&key),
            Msg::Action(a) => self.action_asked(a),
            Msg::Type(text) if self.cmdline.is_open() => {
                self.cmdline.type_text(&text);
                Vec::new()
            }
            Msg::Type(text) => self.type_text(&text),
            Msg::Mouse(m) => {
                self.mouse(m);
                Vec::new()
            }
            Msg::InputClosed => {
                self.should_quit = true;
                Vec::new()
            }
            Msg::Resize(w, h) => {
                self.resized(w, h);
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
            answer => self.answered(answer),
        };
        self.after_update(effects)
    }

    /// A key: to the command line when it is open, else to its action on
    /// the screen that has the keyboard (or the text it types).
    fn key(&mut self, key: &crossterm::event::KeyEvent) -> Vec<Effect> {
        // A message shows until the next key.
        self.status = None;
        if self.cmdline.is_open() {
            return self.cmdline_key(key);
        }
        match self.resolve(key) {
            Some(Command::Act(a)) => self.act(a),
            Some(Command::Type(c)) => self.type_text(&c.to_string()),
            None => self.unbound(key),
        }
    }

    /// An action as if its key had been pressed: done when it is one of
    /// the screen that has the keyboard (or everywhere's).
    fn action_asked(&mut self, a: Action) -> Vec<Effect> {
        self.status = None;
        if self.cmdline.is_open() {
            return if matches!(a.context(), Context::Input | Context::Global) {
                self.cmdline_action(a)
            } else {
                Vec::new()
            };
        }
        let context = self.context();
        let reaches = a.context() == context
            || a.context() == Context::Global
            || (context == Context::Input
                && self.screens.front().is_none()
                && App::reaches_from_query(a));
        if reaches { self.act(a) } else { Vec::new() }
    }

    /// The terminal is `w` by `h` now.
    fn resized(&mut self, w: u16, h: u16) {
        self.layout = self.layout_for(Rect::new(0, 0, w, h));
        // A pane that left the screen gives the keyboard back.
        if self.focus == Focus::Detail && self.layout.detail_is_popup() {
            self.focus = self.last_list;
        }
        let height = self.list_height();
        self.catalog_view.keep_visible(height);
        self.search.keep_visible(height);
    }

    /// The answer of an effect (or of a follower, a watcher, a fetch).
    fn answered(&mut self, msg: Msg) -> Vec<Effect> {
        match msg {
            Msg::CostsReady { basis, costs } => {
                self.costs_ready(basis, costs);
                self.warmed(warm::Warmed::Costs)
            }
            Msg::Warmed { lints } => self.ranker_warmed(lints),
            Msg::Audited { audit } => {
                self.audited(audit);
                Vec::new()
            }
            Msg::Status(message) => {
                self.status = Some(message);
                Vec::new()
            }
            Msg::Counted { set, result } => {
                self.counted(set, result);
                Vec::new()
            }
            Msg::SearchDone(answer) => self.search_done(answer),
            Msg::Refresh { generation } if self.search.refresh_wanted(generation) => {
                vec![self.search_effect(true)]
            }
            Msg::Followed(note) => self.followed(note),
            Msg::LoginPage {
                server,
                url,
                opened,
            } => {
                self.login_page(&server, &url, opened);
                Vec::new()
            }
            Msg::LoggedIn { server, result } => self.logged_in(&server, result),
            Msg::FollowedCatalog(result) => self.followed_catalog(result),
            Msg::CatalogChanged => self.catalog_changed(),
            Msg::CatalogLoaded(loaded) => self.catalog_loaded(loaded),
            Msg::Servers { catalog, servers } => self.servers_changed(catalog, servers),
            Msg::Screen(answer) => self.screen_answered(&answer),
            Msg::Written(result) => self.written(result),
            Msg::ModelFetching { run, done, total } => {
                self.model_progress(run, done, total);
                Vec::new()
            }
            Msg::ModelStalled { run, secs } => {
                self.model_stalled(run, secs);
                Vec::new()
            }
            Msg::ModelReady { run, ready } => self.model_ready(run, ready),
            // A refresh no longer wanted; the input's messages are the
            // update's own.
            _ => Vec::new(),
        }
    }

    /// What follows every message: the detail and the layout kept up, and
    /// the exact counts asked for.
    fn after_update(&mut self, effects: Vec<Effect>) -> Vec<Effect> {
        // Another tool's detail opens at its top.
        let shown = self.current_tool().map(|(index, _)| index);
        self.detail.follow(shown);
        // A trace, the servers' line or a caption that came or went makes
        // room or gives it back.
        self.layout = self.layout_for(self.layout.area);
        let mut effects = effects;
        effects.extend(self.exact_next());
        effects
    }

    /// Dispatches an action to whoever owns the screen.
    fn act(&mut self, action: Action) -> Vec<Effect> {
        if action == Action::QuitNow {
            self.should_quit = true;
            return Vec::new();
        }
        if action == Action::Suspend {
            return vec![Effect::Suspend];
        }
        // Help opens over any screen and goes back to it.
        let over = self.screens.front_screen().is_some_and(|s| s.over());
        if action == Action::Help
            && self.screens.front().is_some()
            && !over
            && let Some(open) = super::screen::opener(action)
        {
            return self.open_screen(open);
        }
        // `/`, `n`, `N` and the find box, in the detail and help.
        if self.find_key(action) {
            return Vec::new();
        }
        match self.screens.front() {
            // The tool shown copied or opened, as from the panes.
            Some(Popup::Detail) if action == Action::CopyTool => self.copy_tool(),
            Some(Popup::Detail) if action == Action::OpenTool => self.open_tool(),
            // The Tokens box is under the popup: it closes to show it.
            Some(Popup::Detail) if action == Action::CachingCosts => {
                self.screens.close();
                self.cycle_caching();
                Vec::new()
            }
            Some(Popup::Detail)
                if matches!(
                    action,
                    Action::FoldSchema
                        | Action::ToggleWrap
                        | Action::ScrollLeft
                        | Action::ScrollRight
                ) =>
            {
                self.detail_view_key(action);
                Vec::new()
            }
            Some(Popup::Detail) => {
                if self.detail.handle_popup(action, self.layout.detail_rows()) {
                    self.screens.close();
                }
                Vec::new()
            }
            Some(_) => self.on_screen(action),
            None if self.catalog_view.typing && action.context() == Context::Input => {
                let outcome = self.catalog_view.handle_name(action);
                self.on_name(outcome);
                Vec::new()
            }
            None if self.focus == Focus::Query && action.context() == Context::Input => {
                let outcome = self.query.handle(action);
                let effects = self.on_query(outcome);
                if outcome == super::pane::query::QueryOutcome::Commit {
                    // Typed Enter keeps the keyboard in the box: what is
                    // typed next is words, never commands.
                    self.focus = Focus::Query;
                    self.status = Some(format!(
                        "searched; still typing: {} takes the keys to the results",
                        self.keymap.label(Action::InputCancel)
                    ));
                }
                effects
            }
            None => self.on_main(action),
        }
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

/// The layout's pane for a focused pane.
pub(crate) fn pane_of(focus: Focus) -> super::layout::Pane {
    use super::layout::Pane;
    match focus {
        Focus::Results => Pane::Results,
        Focus::Detail => Pane::Detail,
        Focus::Query | Focus::Catalog => Pane::Catalog,
    }
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_ask;
#[cfg(test)]
mod tests_basis;
#[cfg(test)]
mod tests_cmdline;
#[cfg(test)]
mod tests_demo;
#[cfg(test)]
mod tests_faults;
#[cfg(test)]
mod tests_finish;
#[cfg(test)]
mod tests_habits;
#[cfg(test)]
mod tests_keys;
#[cfg(test)]
mod tests_mcp;
#[cfg(test)]
mod tests_model;
#[cfg(test)]
mod tests_regex;
#[cfg(test)]
mod tests_reload;
#[cfg(test)]
mod tests_servers;
#[cfg(test)]
mod tests_slips;
#[cfg(test)]
mod tests_start;
#[cfg(test)]
mod tests_trust;
#[cfg(test)]
mod tests_tune;
#[cfg(test)]
mod tests_tune_cap;
