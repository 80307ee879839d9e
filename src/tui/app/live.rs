//! Following a gateway's or service's traffic, the app's part: what is
//! followed (the screen that follows it is held from the start, or from
//! `:follow`), the followed gateway's catalog taken as the catalog in view,
//! and a miss explained: its request searched, the tool the agent wanted
//! shown in the catalog with why it was or was not found.

use super::{App, Popup};
use std::sync::Arc;

use crate::catalog::Catalog;
use crate::follow::Note;
use crate::terminal_text::escape;
use crate::tui::effect::Effect;
use crate::tui::screen::{Answered, Explain};
use crate::tui::setup::Follow;

/// The followed gateway's catalog still to take: its events' address and
/// key, when it could not be read as the explorer started.
pub(super) fn catalog_to_take(follow: &Option<Follow>) -> Option<(String, Option<String>)> {
    let f = follow.as_ref()?;
    f.blind.as_ref()?;
    match &f.source {
        crate::follow::Source::Url { url, key } => Some((url.clone(), key.clone())),
        _ => None,
    }
}

impl App {
    /// Whether a gateway's or service's traffic is followed (the live
    /// screen is kept from then on).
    pub fn following(&self) -> bool {
        self.screens.follower().is_some()
    }

    /// What the loop follows, if anything (the source of `--follow`).
    pub fn followed_source(&self) -> Option<crate::follow::Source> {
        let source = self.screens.follower()?.follows()?;
        source.recorded().is_none().then(|| source.clone())
    }

    /// Follows `source` from now on (`:follow`), in place of what was
    /// followed: a new live screen in front, its misses judged by the
    /// catalog in view until the followed gateway's own is read (once it
    /// is reached), and the loop told to follow it.
    pub(super) fn start_following(&mut self, source: crate::follow::Source) -> Vec<Effect> {
        self.follow_catalog = match &source {
            crate::follow::Source::Url { url, key } => Some((url.clone(), key.clone())),
            _ => None,
        };
        self.status = None;
        let catalog = self.catalog.clone();
        crate::tui::screen::follow(source.clone(), &catalog, &mut self.screens);
        if source.recorded().is_some() {
            return Vec::new();
        }
        vec![Effect::Follow(source)]
    }

    /// The held screens told of the catalog in view (read again, or an
    /// always-load flag toggled): the misses judged again by it.
    pub(super) fn rejudge(&mut self) {
        let catalog = self.catalog.clone();
        for screen in self.screens.each_mut() {
            screen.catalog_in_view(&catalog, false);
        }
    }

    pub(super) fn followed(&mut self, note: Note) -> Vec<Effect> {
        // Reached: the gateway's catalog, if it is still to take.
        let fetch = match (&note, self.follow_catalog.take()) {
            (Note::Connected, Some((events_url, key))) => {
                vec![Effect::FetchFollowedCatalog { events_url, key }]
            }
            (_, pending) => {
                self.follow_catalog = pending;
                Vec::new()
            }
        };
        self.with_screens(|screens, on| {
            if let Some(follower) = screens.follower_mut() {
                follower.followed(note, on);
            }
        });
        fetch
    }

    /// The followed gateway's catalog, read once it was reached: it
    /// becomes the catalog in view and the misses are judged by it; or
    /// why not (asked again when the follower connects again).
    pub(super) fn followed_catalog(
        &mut self,
        result: Result<Arc<Catalog>, crate::follow::FollowError>,
    ) -> Vec<Effect> {
        let source = self.followed_any();
        let catalog = match (result, source) {
            (Ok(c), Some(_)) => c,
            (Err(why), Some(crate::follow::Source::Url { url, key })) => {
                self.follow_catalog = Some((url, key));
                if let Some(follower) = self.screens.follower_mut() {
                    let message = format!("the gateway's catalog could not be read: {why}");
                    follower.tell(message, true);
                }
                return Vec::new();
            }
            _ => return Vec::new(),
        };
        let effects = self.catalog_loaded(Ok(catalog));
        self.sources = format!(
            "{} (from {})",
            self.catalog.name(),
            self.followed_any().map_or(String::new(), |s| s.shown())
        );
        let catalog = self.catalog.clone();
        if let Some(follower) = self.screens.follower_mut() {
            follower.catalog_in_view(&catalog, true);
        }
        let said = format!(
            "took the followed gateway's catalog: {} tools; misses are judged by it",
            self.catalog.len()
        );
        // Where the screen in front shows it.
        match self.screens.front_screen_mut() {
            Some(front) if front.follows().is_some() => {
                self.status = None;
                front.tell(said, false);
            }
            _ => self.status = Some(said),
        }
        effects
    }

    /// What is followed, recorded or not.
    fn followed_any(&self) -> Option<crate::follow::Source> {
        self.screens.follower()?.follows().cloned()
    }

    /// A miss (or an event) explained on the main screen: its request in
    /// the query box and searched, the tool shown in the catalog.
    pub(super) fn explain(&mut self, explain: Explain) -> Vec<Effect> {
        let tool = match explain.tool.as_deref() {
            Some(name) => match self.tool_named(name) {
                Some(index) => Some(index),
                None => {
                    let message = format!(
                        "{} is not in this catalog ({}): start the explorer on the followed gateway's servers (--mcp FILE) to see why it was not found",
                        escape(name),
                        escape(&self.sources)
                    );
                    // Said by the screen that asked, in front.
                    let told = self
                        .screens
                        .front_screen_mut()
                        .map(|s| s.tell(message, true));
                    self.told(told);
                    return Vec::new();
                }
            },
            None => None,
        };
        self.screens.close_all();
        // Where each tool stood is told from what the gateway answered.
        self.gateway_answer = explain.answered;
        let mut effects = Vec::new();
        if let Some(query) = explain.query {
            self.query.input.set(&query);
            let outcome = self.query.handle(crate::tui::action::Action::InputSubmit);
            effects = self.on_query(outcome);
        }
        if let Some(index) = tool {
            self.show_index_in_catalog(index);
            let name = escape(&self.catalog.tools()[index].name).into_owned();
            // Where no detail pane fits, the detail opens as a popup: the
            // why is on screen either way.
            let back = if self.layout.detail_is_popup() {
                self.detail.open();
                self.screens.show(Popup::Detail);
                "Esc: the catalog; L: back to live"
            } else {
                "L: back to live"
            };
            let why = if self.gateway_answer.is_some() {
                "the gateway's answer beside toolsift's"
            } else {
                "why it was or was not loaded for this request"
            };
            self.status = Some(format!("{name}: the detail says {why} ({back})"));
        }
        effects
    }

    /// What the followed gateway answered the request searched now, when
    /// it came from the live screen (Enter on a search or a miss) and the
    /// query is still that request.
    pub fn gateway_answer(&self) -> Option<&Answered> {
        self.gateway_answer
            .as_ref()
            .filter(|a| a.query == self.search.query)
    }

    /// Where catalog tool `index` stood in the followed gateway's answer
    /// of the request searched now, as a sentence (not escaped).
    pub fn gateway_standing(&self, index: usize) -> Option<String> {
        let answered = self.gateway_answer()?;
        let place = answered
            .tools
            .iter()
            .position(|n| self.tool_named(n) == Some(index));
        Some(answered.standing(place))
    }

    /// The catalog's tool called `name` by the far side: the same name, or
    /// the tool of that name on its server when the catalog prefixed it.
    fn tool_named(&self, name: &str) -> Option<usize> {
        self.catalog.index_of(name).or_else(|| {
            let tools = self.catalog.tools();
            let mut on_servers = tools
                .iter()
                .enumerate()
                .filter(|(_, t)| t.mcp.as_ref().is_some_and(|m| m.name == name));
            match (on_servers.next(), on_servers.next()) {
                (Some((i, _)), None) => Some(i),
                _ => None,
            }
        })
    }
}

/// A pricing's label without its ratios (`Anthropic, 5-minute cache`): the
/// message fits the bottom line at 80 columns; docs/caching.md has the rest.
fn short_label(label: &str) -> &str {
    label.split(" (").next().unwrap_or(label)
}

impl App {
    /// `$`: the Tokens box prices a session with Anthropic's caching, then
    /// OpenAI's, then goes back to the first turn's figures.
    pub(super) fn cycle_caching(&mut self) {
        use crate::caching::{ANTHROPIC, OPENAI};
        let key = self.keymap.label(crate::tui::action::Action::CachingCosts);
        let (next, message) = match self.caching.map(|p| p.name) {
            None => (
                Some(ANTHROPIC),
                format!(
                    "Tokens box: priced with {} ({key}: OpenAI)",
                    short_label(ANTHROPIC.label),
                ),
            ),
            Some("anthropic") => (
                Some(OPENAI),
                format!(
                    "Tokens box: priced with {} ({key}: off)",
                    short_label(OPENAI.label),
                ),
            ),
            Some(_) => (
                None,
                "Tokens box: the first turn's tokens again".to_string(),
            ),
        };
        self.caching = next;
        self.status = Some(message);
    }

    /// The provider whose caching the Tokens box prices, if any.
    pub fn caching(&self) -> Option<crate::caching::Pricing> {
        self.caching
    }
}
