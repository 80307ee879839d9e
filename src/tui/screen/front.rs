//! What every screen is: the [`Screen`] trait a screen implements once
//! (its keys, its key line, its drawing, its outcome), and [`On`], what it
//! is handed of the app to act and draw on (read-only).

use std::any::Any;
use std::sync::Arc;

use ratatui::Frame;
use ratatui::layout::Rect;

use super::job::Answer;
use super::{Ask, NothingToExport};
use super::{Outcome, Popup, Screens};
use crate::catalog::Catalog;
use crate::settings::Settings;
use crate::tools_handle::ToolsHandle;
use crate::tui::action::{Action, Context, KeyGroup};
use crate::tui::effect::Effect;
use crate::tui::find::Find;
use crate::tui::keymap::Keymap;
use crate::tui::layout::ScreenLayout;
use crate::tui::list::Scroll;
use crate::tui::paint::Theme;

/// The app as a screen sees it: what several screens need, laid out
/// and ready every time the app hands it (opening a screen, a key, a
/// frame). The catalog (the breaker, the comparison, Tune), the settings in
/// force and their handle (the comparison, the settings editor, Tune), the
/// keymap (the key lines and messages naming keys: the breaker, export,
/// help, Tune) and the layout (every screen's place). What only one screen
/// needs it asks of the app through [`Ask`], when it needs it.
pub struct On<'a> {
    pub catalog: &'a Arc<Catalog>,
    /// The settings in force and their handle.
    pub settings: &'a Settings,
    pub handle: &'a ToolsHandle,
    pub keymap: &'a Keymap,
    /// Where everything goes at the current size.
    pub layout: &'a ScreenLayout,
    /// The rest of the app, asked.
    pub ask: &'a dyn Ask,
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
