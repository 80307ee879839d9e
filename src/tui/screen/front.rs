//! What every screen is: the [`Screen`] trait a screen implements once
//! (its keys, its key line, its drawing, its outcome), and [`On`], what it
//! is handed of the app to act and draw on (read-only).

use std::any::Any;
use std::sync::Arc;

use ratatui::Frame;
use ratatui::layout::Rect;

use super::job::Answer;
use super::{Outcome, Popup, Screens};
use crate::caching::Pricing;
use crate::catalog::Catalog;
use crate::provider::PayloadFormat;
use crate::search::Searcher;
use crate::settings::Settings;
use crate::sources::mcp::{McpHost, ServerStatus};
use crate::tools_handle::ToolsHandle;
use crate::tui::action::{Action, Context, KeyGroup};
use crate::tui::effect::Effect;
use crate::tui::find::Find;
use crate::tui::keymap::Keymap;
use crate::tui::layout::ScreenLayout;
use crate::tui::list::Scroll;
use crate::tui::paint::Theme;

/// The app as a screen sees it.
pub struct On<'a> {
    pub catalog: &'a Arc<Catalog>,
    /// The settings in force and their handle.
    pub settings: &'a Settings,
    pub handle: &'a ToolsHandle,
    pub keymap: &'a Keymap,
    pub searcher: &'a Searcher,
    /// Where everything goes at the current size.
    pub layout: &'a ScreenLayout,
    /// The catalog pane's rows, in their order (catalog places).
    pub rows: &'a [usize],
    /// The highlighted tool (results or catalog), by catalog place.
    pub current_tool: Option<usize>,
    /// The live MCP servers' host, when tool calls are real.
    pub host: Option<&'a Arc<McpHost>>,
    /// What became of each MCP server, and whether the catalog's tools
    /// came from some.
    pub servers: &'a [ServerStatus],
    pub catalog_servers: bool,
    /// Whether the user named the ranker in force.
    pub ranker_chosen: bool,
    /// The query box's request, whether it is a regex, and its history
    /// (oldest first).
    pub query: &'a str,
    pub regex: bool,
    pub history: &'a [String],
    /// The tools an export writes and where they come from, or why there
    /// are none.
    pub export: Result<ToolsOut<'a>, NothingToExport>,
    /// The provider format last exported.
    pub tool_format: PayloadFormat,
    /// Per-tool tokens, once counted.
    pub costs: Option<&'a [u64]>,
    /// The provider whose caching the Tokens box prices, if any.
    pub caching: Option<Pricing>,
}

/// The tools taken out of the explorer (an export writes them), by
/// catalog place, and where they come from.
#[derive(Debug, Clone)]
pub struct ToolsOut<'a> {
    pub tools: Vec<&'a crate::catalog::Tool>,
    pub from: ToolsFrom,
}

/// Where the tools taken out come from: picked by hand, the full catalog
/// (after a failed search), or the search's loaded set.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolsFrom {
    Picked,
    FullCatalog,
    Loaded,
}

/// Why there are no tools to take out, as the search stands.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NothingToExport {
    #[error("nothing to export yet: the first search has not come back")]
    Waiting,
    /// The search failed (`retry`: the key that retries it).
    #[error("nothing to export: the search failed, so no tools are loaded ({retry} retries)")]
    Failed { retry: String },
    #[error(
        "nothing to export: an empty query loads only the always-load tools, and this catalog has none; type a query first"
    )]
    EmptyQuery,
    #[error("nothing to export: the search loaded no tools (none matched the query)")]
    NoneMatched,
}

/// Where a message for the screen in front goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Told {
    /// The screen shows it.
    Shown,
    /// The screen closes and the bottom line says this.
    Close(String),
    /// The bottom line says this.
    Elsewhere(String),
}

/// How a screen opens: on what the app shows, into the registry (kept
/// screens are found there, new ones are held there), shown in front; or
/// why it cannot open, said on the bottom line.
pub type Open = fn(&On, &mut Screens) -> Result<Vec<Effect>, Unopened>;

/// Why a screen does not open.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Unopened {
    /// The breaker calls the highlighted tool, and there is none.
    #[error(
        "no tool to call: the list under the cursor is empty (pick a tool in the catalog or results)"
    )]
    NoTool,
    /// The comparison searches the query box's request, and it is empty.
    #[error(
        "nothing to compare: type a request in the query box first (the comparison searches it two ways)"
    )]
    NoQuery,
    #[error("nothing to compare: no other way of searching can run here")]
    NoOtherWay,
    /// The history lists the committed queries, and there are none.
    #[error("no queries yet: Enter in the query box commits one, and it is kept here")]
    NoHistory,
    /// The live screen shows followed traffic, and nothing is followed.
    #[error(
        "not following anything: toolsift explore --follow URL (a gateway's or service's address) or --follow TRACE (a gateway's --trace file)"
    )]
    NotFollowing,
    /// An export writes tools, and none are loaded or picked: why, as the
    /// search's state says it.
    #[error(transparent)]
    NothingToExport(#[from] NothingToExport),
}

/// A screen: everything of its own, in its folder. The app hands it the
/// actions of its [`Context`] and carries out its [`Outcome`].
pub trait Screen: Any {
    /// Which screen it is.
    fn id(&self) -> Popup;

    /// Where its keys are looked up now ([`Context::Input`] while one of
    /// its text boxes has the keyboard).
    fn context(&self) -> Context;

    /// Its key line's own groups of keys, now (help and quit follow).
    fn keys(&self) -> &'static [KeyGroup];

    /// An action of its context.
    fn handle(&mut self, action: Action, on: &On) -> Outcome;

    /// What it covers of the screen (the rest of the main screen may peek
    /// out around it): the full screens' body unless it is a popup.
    fn area(&self, on: &On) -> Rect {
        on.layout.body
    }

    /// Draws it over the main screen.
    fn draw(&self, f: &mut Frame, on: &On, theme: &Theme);

    /// The answer of a job it asked for ([`super::job`]): what it runs
    /// next.
    fn receive(&mut self, _answer: &Answer, _on: &On) -> Vec<Effect> {
        Vec::new()
    }

    /// Text typed while one of its boxes has the keyboard.
    fn type_text(&mut self, _text: &str) {}

    /// A message to say: a file written (`failed`: not written), or what
    /// became of what it asked.
    fn tell(&mut self, message: String, _failed: bool) -> Told {
        Told::Elsewhere(message)
    }

    /// Settings it asked for were put in force (`Ok`), or refused with
    /// this message.
    fn applied(&mut self, refused: Option<String>) -> Told {
        match refused {
            Some(why) => Told::Elsewhere(why),
            None => Told::Shown,
        }
    }

    /// Other settings are in force while it is in front: what it runs
    /// again.
    fn settings_changed(&mut self, _on: &On) -> Vec<Effect> {
        Vec::new()
    }

    /// What it follows, when it shows followed traffic.
    fn follows(&self) -> Option<&crate::follow::Source> {
        None
    }

    /// A note of the traffic it follows.
    fn followed(&mut self, _note: crate::follow::Note, _on: &On) {}

    /// The catalog in view is `catalog` now (read again, an always-load
    /// flag toggled, or, `followed`, the followed gateway's own taken).
    fn catalog_in_view(&mut self, _catalog: &Catalog, _followed: bool) {}

    /// The settings in force changed without a screen asking (the search
    /// model came and ranks now) while it is not in front.
    fn settings_replaced(&mut self, _settings: &Settings) {}

    /// A key that is no action of its context: true when it says so
    /// itself (`key` as the key line names it).
    fn unbound(&mut self, _key: &str, _on: &On) -> bool {
        false
    }

    /// Shown over the screen in front, closing back to it (help): its key
    /// line names no key that opens it again.
    fn over(&self) -> bool {
        false
    }

    /// The words `/` looks for in the text it shows, if it has such a
    /// text (`n` and `N` step through them).
    fn find(&self) -> Option<&Find> {
        None
    }

    /// The words looked for and the scroll they move, to change.
    fn find_mut(&mut self) -> Option<(&mut Find, &mut Scroll)> {
        None
    }

    /// Whether the mouse wheel scrolls it (as its up and down keys do).
    fn wheel(&self) -> bool {
        false
    }

    /// Kept when closed (its log, its table, the traffic), else dropped.
    fn kept(&self) -> bool {
        false
    }

    /// Opened on the catalog's tools: dropped when the catalog is read
    /// again.
    fn of_catalog(&self) -> bool {
        false
    }
}
