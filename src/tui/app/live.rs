//! The live screen's part of the app: the followed traffic kept from the
//! start (whether the screen is open or not), the screen opened with `L`,
//! and a miss explained: its request searched, the tool the agent wanted
//! shown in the catalog with why it was or was not found.

use super::{App, Popup};
use std::sync::Arc;

use crate::catalog::Catalog;
use crate::follow::Note;
use crate::terminal_text::escape;
use crate::traffic::misses::Judge;
use crate::tui::effect::Effect;
use crate::tui::screen::live::{Answered, Explain, LivePane, draw};
use crate::tui::setup::Follow;

/// The screen's state when following something.
/// A recorded session is told at once.
pub(super) fn pane_for(follow: &Option<Follow>, catalog: &Catalog) -> Option<LivePane> {
    let f = follow.as_ref()?;
    let mut pane = LivePane::new(f.source.clone(), f.requests_file.clone());
    let ended = f.source.recorded().is_some();
    match &f.blind {
        Some(why) => pane.judge_by(Judge::blind(ended), format!("no catalog ({why})")),
        None => pane.judge_by(judge(catalog, ended), said(catalog)),
    }
    pane.message = blind_said(follow);
    for note in f.source.recorded().unwrap_or_default() {
        pane.receive(note, 1_000);
    }
    Some(pane)
}

/// Why the misses are judged by no catalog, said on screen as the explorer
/// opens (the live screen's box keeps it whole after: "judged by").
pub(super) fn blind_said(follow: &Option<Follow>) -> Option<String> {
    let why = follow.as_ref()?.blind.as_ref()?;
    Some(format!(
        "{why}; misses are judged by no catalog until it can be read (asked again each time the follower connects)"
    ))
}

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

/// The misses judged by `catalog`: each tool by its name and, when a
/// catalog of several servers prefixed it, by its name on its server (when
/// no other tool has that name).
pub(super) fn judge(catalog: &Catalog, ended: bool) -> Judge {
    let tools = catalog.tools();
    let mut on_servers: std::collections::HashMap<&str, Vec<bool>> = Default::default();
    for t in tools {
        if let Some(m) = &t.mcp {
            on_servers.entry(&m.name).or_default().push(t.always_load);
        }
    }
    let names = tools.iter().map(|t| (t.name.clone(), t.always_load)).chain(
        on_servers
            .into_iter()
            .filter(|(_, a)| a.len() == 1)
            .map(|(n, a)| (n.to_string(), a[0])),
    );
    // A tool's own name wins over another's name on its server.
    let mut map: std::collections::HashMap<String, bool> = Default::default();
    for (n, a) in names {
        map.entry(n).or_insert(a);
    }
    Judge::by(map, ended)
}

/// The catalog judged by, as the live screen says it.
fn said(catalog: &Catalog) -> String {
    format!("{} ({} tools)", catalog.name(), catalog.len())
}

/// [`judge`], for the live screen's tests.
#[cfg(test)]
pub(crate) fn judge_for_tests(catalog: &Catalog, ended: bool) -> Judge {
    judge(catalog, ended)
}

impl App {
    /// Whether a gateway's or service's traffic is followed (the live
    /// screen is kept from then on).
    pub fn following(&self) -> bool {
        self.screens.get::<LivePane>().is_some()
    }

    /// What the loop follows, if anything (the source of `--follow`).
    pub fn followed_source(&self) -> Option<crate::follow::Source> {
        let source = self.screens.get::<LivePane>()?.source();
        source.recorded().is_none().then(|| source.clone())
    }

    /// Follows `source` from now on (`:follow`), in place of what was
    /// followed: a new live screen in front, its misses judged by the
    /// catalog in view until the followed gateway's own is read (once it
    /// is reached), and the loop told to follow it.
    pub(super) fn start_following(&mut self, source: crate::follow::Source) -> Vec<Effect> {
        let requests_file = self.screens.get::<LivePane>().map_or_else(
            || crate::tui::setup::MISSES_FILE.to_string(),
            |l| l.requests_file().to_string(),
        );
        let follow = Some(Follow {
            source: source.clone(),
            requests_file,
            open_first: true,
            blind: None,
        });
        let Some(pane) = pane_for(&follow, &self.catalog) else {
            return Vec::new();
        };
        self.follow_catalog = match &source {
            crate::follow::Source::Url { url, key } => Some((url.clone(), key.clone())),
            _ => None,
        };
        self.status = None;
        self.screens.hold(Box::new(pane));
        self.screens.show(Popup::Live);
        if source.recorded().is_some() {
            return Vec::new();
        }
        vec![Effect::Follow(source)]
    }

    /// The misses judged again by the catalog in view (read again, or an
    /// always-load flag toggled).
    pub(super) fn rejudge(&mut self) {
        let catalog = self.catalog.clone();
        if let Some(live) = self.screens.get_mut::<LivePane>()
            && live.judged()
        {
            let ended = live.source().recorded().is_some();
            live.judge_by(judge(&catalog, ended), said(&catalog));
        }
    }

    /// How many rows the live screen's list shows now.
    pub(super) fn live_rows(&self) -> usize {
        self.screens
            .get::<LivePane>()
            .map_or(1, |l| draw::list_rows(self.layout.body, l))
    }

    pub(super) fn followed(&mut self, note: Note) -> Vec<Effect> {
        let rows = self.live_rows();
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
        if let Some(live) = self.screens.get_mut::<LivePane>() {
            live.receive(note, rows);
        }
        fetch
    }

    /// The followed gateway's catalog, read once it was reached: it
    /// becomes the catalog in view and the misses are judged by it; or
    /// why not (asked again when the follower connects again).
    pub(super) fn followed_catalog(
        &mut self,
        result: Result<Arc<Catalog>, crate::follow::FollowError>,
    ) -> Vec<Effect> {
        let source = self.screens.get::<LivePane>().map(|l| l.source().clone());
        let catalog = match (result, source) {
            (Ok(c), Some(_)) => c,
            (Err(why), Some(crate::follow::Source::Url { url, key })) => {
                self.follow_catalog = Some((url, key));
                if let Some(live) = self.screens.get_mut::<LivePane>() {
                    live.message = Some(format!("the gateway's catalog could not be read: {why}"));
                }
                return Vec::new();
            }
            _ => return Vec::new(),
        };
        let effects = self.catalog_loaded(Ok(catalog));
        self.sources = format!(
            "{} (from {})",
            self.catalog.name(),
            self.screens
                .get::<LivePane>()
                .map_or(String::new(), |l| l.source().shown())
        );
        let catalog = self.catalog.clone();
        if let Some(live) = self.screens.get_mut::<LivePane>() {
            live.judge_by(judge(&catalog, false), said(&catalog));
        }
        let said = format!(
            "took the followed gateway's catalog: {} tools; misses are judged by it",
            self.catalog.len()
        );
        // Where the screen in front shows it.
        let in_front = self.screens.front() == Some(Popup::Live);
        match self.screens.get_mut::<LivePane>() {
            Some(live) if in_front => {
                self.status = None;
                live.message = Some(said);
            }
            _ => self.status = Some(said),
        }
        effects
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
                    if let Some(live) = self.screens.get_mut::<LivePane>() {
                        live.message = Some(message);
                    }
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
