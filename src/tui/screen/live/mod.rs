//! The live screen (`L`, or first with `explore --follow`): a running
//! gateway's or service's traffic as it happens, each search with its
//! query, ranker, tools and time, each call with its outcome and the
//! breaker's count, and the searches that failed the agent (misses),
//! found as the traffic comes in. Enter on a miss searches its request
//! and shows why the tool the agent wanted was not found; `e` adds it, with
//! that tool as its answer, to a request file `toolsift eval` reads.

pub mod actions;
pub mod draw;
mod filter;
mod follow;
#[cfg(test)]
mod tests;

use std::collections::VecDeque;

use ratatui::Frame;

use super::{Answered, Explain, On, Outcome, Popup, Screen, Screens, Told, Unopened};
use crate::catalog::Catalog;
use crate::follow::{Note, Source};
use crate::traffic::misses::{self, Judge, Miss, Standing};
use crate::traffic::{Event, KEPT_EVENTS};
use crate::tui::action::{Action, Context, KeyGroup};
use crate::tui::effect::Effect;
use crate::tui::list::ListState;
use crate::tui::paint::Theme;

/// The key line's own keys (help and quit follow).
pub const KEYS: &[KeyGroup] = &[
    (&[Action::LiveDown, Action::LiveUp], "choose", "choose", 2),
    (&[Action::LiveOpen], "why not found", "why", 0),
    (&[Action::LiveMisses], "misses/all", "misses", 1),
    (&[Action::LiveSave], "add to eval set", "eval", 3),
    (&[Action::LiveBottom], "newest", "newest", 4),
    (&[Action::LiveFilter], "filter", "filter", 2),
    (&[Action::LivePause], "pause/follow", "pause", 3),
    (&[Action::LiveClose], "back", "back", 0),
];

/// The key line while the filter's box has the keyboard.
const FILTER_KEYS: &[KeyGroup] = &[
    (&[Action::InputSubmit], "keep the filter", "keep", 0),
    (&[Action::InputCancel], "drop the filter", "drop", 0),
];

/// Whether the far side is reached.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Link {
    Connecting,
    Connected,
    /// Lost (or not there yet), and why; tried again.
    Lost(String),
}

/// One row of the list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Row {
    /// An event, by place in the events kept.
    Event(usize),
    /// A miss, by place in the misses.
    Miss(usize),
}

#[derive(Debug, Clone)]
pub struct LivePane {
    source: crate::follow::Source,
    link: Link,
    events: VecDeque<Event>,
    /// Events lost: the far side's buffer overran, or more came than are
    /// kept here.
    dropped: u64,
    /// Lines that were not events, and the last of them.
    bad_lines: u64,
    last_bad: Option<String>,
    /// Times the far side started anew (a trace file truncated).
    restarts: u32,
    misses: Vec<Miss>,
    /// What the misses are judged by (the catalog in view), and as said.
    judge: Judge,
    judged_by: String,
    misses_only: bool,
    list: ListState,
    /// The newest row stays in view as events come (until the user moves
    /// up; `G` comes back).
    at_newest: bool,
    /// The view stays where it is as events come (`p`), and how many came
    /// since.
    paused: bool,
    unseen: u64,
    /// The rows shown are those holding the words typed (`/`).
    filter: Option<filter::Filter>,
    /// Where `e` appends a miss as a request.
    requests_file: String,
    /// Misses added to it this run (none twice).
    saved: std::collections::BTreeSet<(String, String)>,
    /// What the last key did, for the bottom of the screen.
    pub message: Option<String>,
}

impl LivePane {
    /// The screen over `source`, nothing heard yet.
    pub fn new(source: crate::follow::Source, requests_file: String) -> LivePane {
        let ended = matches!(source, crate::follow::Source::Recorded);
        LivePane {
            source,
            link: Link::Connecting,
            events: VecDeque::new(),
            dropped: 0,
            bad_lines: 0,
            last_bad: None,
            restarts: 0,
            misses: Vec::new(),
            judge: Judge::blind(ended),
            judged_by: "no catalog".into(),
            misses_only: false,
            list: ListState::default(),
            at_newest: true,
            paused: false,
            unseen: 0,
            filter: None,
            requests_file,
            saved: Default::default(),
            message: None,
        }
    }

    /// Judges the misses by `judge` (the catalog in view), from now on and
    /// over the traffic heard so far.
    pub fn judge_by(&mut self, judge: Judge, said: String) {
        self.judge = judge;
        self.judged_by = said;
        self.misses = misses::find(self.events.make_contiguous(), &self.judge);
    }

    /// What the misses are judged by, as said on the screen.
    pub fn judged_by(&self) -> &str {
        &self.judged_by
    }

    /// Whether the misses are judged by a catalog.
    pub fn judged(&self) -> bool {
        self.judge.knows_names()
    }

    /// What is followed.
    pub fn source(&self) -> &crate::follow::Source {
        &self.source
    }
    pub fn link(&self) -> &Link {
        &self.link
    }
    pub fn events(&self) -> &VecDeque<Event> {
        &self.events
    }
    pub fn misses(&self) -> &[Miss] {
        &self.misses
    }
    pub fn dropped(&self) -> u64 {
        self.dropped
    }
    pub fn bad_lines(&self) -> (u64, Option<&str>) {
        (self.bad_lines, self.last_bad.as_deref())
    }
    pub fn restarts(&self) -> u32 {
        self.restarts
    }
    pub fn misses_only(&self) -> bool {
        self.misses_only
    }
    pub fn list(&self) -> ListState {
        self.list
    }
    pub fn requests_file(&self) -> &str {
        &self.requests_file
    }

    /// What the follower told; `height` is how many rows the list shows.
    pub fn receive(&mut self, note: Note, height: usize) {
        match note {
            Note::Connected => self.link = Link::Connected,
            Note::Lost(why) => self.link = Link::Lost(why),
            Note::Restarted => self.restarts += 1,
            Note::BadLine(line) => {
                self.bad_lines += 1;
                self.last_bad = Some(line);
            }
            Note::Events { events, dropped } => {
                self.dropped += dropped;
                let before = self.rows();
                let selected = before.get(self.list.selected).copied();
                let mut gone = 0;
                for event in events {
                    if let Event::Dropped { count } = event {
                        self.dropped += count;
                        continue;
                    }
                    if self.events.len() == KEPT_EVENTS {
                        self.events.pop_front();
                        self.dropped += 1;
                        gone += 1;
                    }
                    self.events.push_back(event);
                    if self.paused {
                        self.unseen += 1;
                    }
                }
                self.misses = misses::find(self.events.make_contiguous(), &self.judge);
                self.reselect(selected, gone, height);
            }
        }
    }

    /// After new events: the newest row in view when following it, else
    /// the same event (or the miss of the same search) kept highlighted.
    fn reselect(&mut self, selected: Option<Row>, gone: usize, height: usize) {
        let rows = self.rows();
        if (self.at_newest && !self.paused) || selected.is_none() {
            self.list.selected = rows.len().saturating_sub(1);
        } else if let Some(row) = selected {
            let place = match row {
                Row::Event(i) => rows
                    .iter()
                    .position(|r| *r == Row::Event(i.saturating_sub(gone))),
                Row::Miss(_) => None,
            };
            if let Some(place) = place {
                self.list.selected = place;
            }
        }
        self.list.keep_visible(rows.len(), height);
    }

    /// The rows shown: every event, or the misses alone.
    pub fn rows(&self) -> Vec<Row> {
        let words = self.filter.as_ref().map(filter::Filter::words);
        let words = words.as_deref().unwrap_or_default();
        if self.misses_only {
            (0..self.misses.len())
                .filter(|&i| filter::miss_matches(&self.misses[i], words))
                .map(Row::Miss)
                .collect()
        } else {
            (0..self.events.len())
                .filter(|&i| filter::event_matches(&self.events[i], words))
                .map(Row::Event)
                .collect()
        }
    }

    /// The filter's words as typed, and whether its box has the keyboard.
    pub fn filter(&self) -> Option<(&str, bool)> {
        self.filter
            .as_ref()
            .map(|f| (f.input.text.as_str(), f.typing))
    }

    /// Whether the view stays put as events come, and how many came since.
    pub fn paused(&self) -> Option<u64> {
        self.paused.then_some(self.unseen)
    }

    /// The newest row highlighted, and kept in view as events come.
    fn follow_newest(&mut self, height: usize) {
        let len = self.rows().len();
        self.list.selected = len.saturating_sub(1);
        self.at_newest = true;
        self.list.keep_visible(len, height);
    }

    /// The misses an event shows (by place in the misses): the search they
    /// blame, or the event that showed them.
    pub fn misses_of(&self, event: usize) -> Vec<usize> {
        self.misses
            .iter()
            .enumerate()
            .filter(|(_, m)| m.search == event || m.shown_by == event)
            .map(|(i, _)| i)
            .collect()
    }

    /// The highlighted row.
    pub fn current(&self) -> Option<Row> {
        self.rows().get(self.list.selected).copied()
    }

    /// The miss the highlighted row is or shows (the first of several).
    fn current_miss(&self) -> Option<&Miss> {
        match self.current()? {
            Row::Miss(i) => self.misses.get(i),
            Row::Event(i) => self.misses_of(i).first().and_then(|&m| self.misses.get(m)),
        }
    }

    /// The keys; `height` is how many rows the list shows.
    pub fn handle(&mut self, action: Action, height: usize) -> Outcome {
        self.message = None;
        if let Some(f) = self.filter.as_mut().filter(|f| f.typing) {
            if !f.edit(action) {
                self.filter = None;
            }
            self.follow_newest(height);
            return Outcome::Stay;
        }
        let len = self.rows().len();
        let movement = match action {
            Action::LiveDown => Some(Action::Down),
            Action::LiveUp => Some(Action::Up),
            Action::LivePageDown => Some(Action::HalfPageDown),
            Action::LivePageUp => Some(Action::HalfPageUp),
            Action::LiveTop => Some(Action::Top),
            Action::LiveBottom => Some(Action::Bottom),
            _ => None,
        };
        if let Some(m) = movement {
            self.list.handle(m, len, height);
            self.at_newest = self.list.selected + 1 >= len;
            if action == Action::LiveBottom {
                self.paused = false;
                self.unseen = 0;
            }
            return Outcome::Stay;
        }
        match action {
            Action::LiveClose => Outcome::Close,
            Action::LiveFilter => {
                match &mut self.filter {
                    Some(f) => f.typing = true,
                    None => self.filter = Some(filter::Filter::typing()),
                }
                Outcome::Stay
            }
            Action::LivePause => {
                self.paused = !self.paused;
                if self.paused {
                    self.message = Some(
                        "paused: the view stays here; new events are kept and counted (again to follow the newest)".into(),
                    );
                } else {
                    self.unseen = 0;
                    self.follow_newest(height);
                }
                Outcome::Stay
            }
            Action::LiveMisses => {
                let keep = self.current_miss().map(|m| (m.search, m.shown_by));
                self.misses_only = !self.misses_only;
                let rows = self.rows();
                self.list.selected = if self.misses_only {
                    keep.and_then(|k| self.misses.iter().position(|m| (m.search, m.shown_by) == k))
                        .unwrap_or(rows.len().saturating_sub(1))
                } else {
                    keep.map_or(rows.len().saturating_sub(1), |(_, shown_by)| shown_by)
                };
                self.at_newest = self.list.selected + 1 >= rows.len();
                self.list.keep_visible(rows.len(), height);
                if self.misses_only && self.misses.is_empty() {
                    self.message = Some(
                        "no misses yet: every search was followed by a call of a tool it returned"
                            .into(),
                    );
                }
                Outcome::Stay
            }
            Action::LiveOpen => self.open(),
            Action::LiveSave => self.save(),
            _ => Outcome::Stay,
        }
    }

    /// Enter: a miss (or a row that shows one) searches its request and
    /// shows the tool wanted; a search is searched again; a call shows its
    /// tool.
    fn open(&mut self) -> Outcome {
        let Some(row) = self.current() else {
            self.message = Some("nothing heard yet: the list is empty".into());
            return Outcome::Stay;
        };
        if let Some(m) = self.current_miss() {
            // The answer the miss blames, as the gateway gave it.
            let answered = match self.events.get(m.search) {
                Some(Event::Search(s)) => Some(Answered::of(s)),
                _ => None,
            };
            return Outcome::Explain(Explain {
                query: Some(m.query.clone()),
                tool: m.wanted.clone(),
                answered,
            });
        }
        let Row::Event(i) = row else {
            return Outcome::Stay;
        };
        let explain = match &self.events[i] {
            Event::Search(s) => Explain {
                query: Some(s.query.clone()),
                tool: None,
                answered: Some(Answered::of(s)),
            },
            Event::Call(c) => Explain {
                query: None,
                tool: Some(c.name.clone()),
                answered: None,
            },
            Event::Dropped { .. } => return Outcome::Stay,
        };
        Outcome::Explain(explain)
    }

    /// `e`: the miss as a request whose answer is the tool the agent wanted,
    /// appended to the request file.
    fn save(&mut self) -> Outcome {
        let Some(miss) = self.current_miss().cloned() else {
            self.message =
                Some("not a miss: e adds a miss (marked !) to the eval set; m lists them".into());
            return Outcome::Stay;
        };
        let Some(wanted) = miss.wanted.clone() else {
            self.message = Some(format!(
                "this miss ({}) shows no tool the agent wanted: nothing to add as an answer",
                miss.kind.phrase()
            ));
            return Outcome::Stay;
        };
        if self.judge.standing(&wanted) == Standing::Unknown {
            self.message = Some(format!(
                "not added: {} is not in the catalog in view, so toolsift eval could never find it (the agent guessed the name)",
                wanted
            ));
            return Outcome::Stay;
        }
        let key = (miss.query.clone(), wanted.clone());
        if self.saved.contains(&key) {
            self.message = Some(format!("already added to {}", self.requests_file));
            return Outcome::Stay;
        }
        self.saved.insert(key);
        let request = serde_json::json!({
            "id": format!("miss {} (session {})", self.saved.len(), miss.session),
            "category": format!("traffic: {}", miss.kind.phrase()),
            "query": miss.query,
            "expected": [wanted],
        });
        Outcome::Effects(vec![crate::tui::effect::Effect::AppendLine {
            path: self.requests_file.clone(),
            line: request.to_string(),
            done: format!(
                "added to {} ({} this run): toolsift eval CATALOG {}",
                self.requests_file,
                self.saved.len(),
                self.requests_file
            ),
        }])
    }
}

pub use follow::{follow, start};

/// The screen opens on the traffic followed from the start, or says how
/// to follow something.
pub fn open(_on: &On, screens: &mut Screens) -> Result<Vec<Effect>, Unopened> {
    if screens.get::<LivePane>().is_none() {
        return Err(Unopened::NotFollowing);
    }
    screens.show(Popup::Live);
    Ok(Vec::new())
}

impl Screen for LivePane {
    fn id(&self) -> Popup {
        Popup::Live
    }

    fn context(&self) -> Context {
        match self.filter {
            Some(filter::Filter { typing: true, .. }) => Context::Input,
            _ => Context::Live,
        }
    }

    fn keys(&self) -> &'static [KeyGroup] {
        match self.filter {
            Some(filter::Filter { typing: true, .. }) => FILTER_KEYS,
            _ => KEYS,
        }
    }

    fn type_text(&mut self, text: &str) {
        if let Some(f) = self.filter.as_mut().filter(|f| f.typing) {
            f.input.insert(text);
            let len = self.rows().len();
            self.list.selected = len.saturating_sub(1);
            self.at_newest = true;
        }
    }

    fn handle(&mut self, action: Action, on: &On) -> Outcome {
        let rows = draw::list_rows(on.layout.body, self);
        LivePane::handle(self, action, rows)
    }

    fn draw(&self, f: &mut Frame, on: &On, theme: &Theme) {
        draw::draw(f, on.layout.body, self, theme);
    }

    fn tell(&mut self, message: String, _failed: bool) -> Told {
        self.message = Some(message);
        Told::Shown
    }

    /// Its list would otherwise look as if the key were lost.
    fn unbound(&mut self, key: &str, on: &On) -> bool {
        let help = on
            .keymap
            .first(Action::Help)
            .map_or_else(|| "help".to_string(), |k| k.to_string());
        self.message = Some(format!(
            "{key}: not a key of the live screen ({help} lists them)"
        ));
        true
    }

    fn follows(&self) -> Option<&Source> {
        Some(&self.source)
    }

    fn followed(&mut self, note: Note, on: &On) {
        let rows = draw::list_rows(on.layout.body, self);
        self.receive(note, rows);
    }

    /// Judged by a catalog, the misses are judged again by the one in
    /// view; judged by none, only by the followed gateway's own.
    fn catalog_in_view(&mut self, catalog: &Catalog, followed: bool) {
        if followed || self.judged() {
            let ended = self.source.recorded().is_some();
            self.judge_by(follow::judge(catalog, ended), follow::said(catalog));
        }
    }

    /// The traffic is kept from the start, whether the screen is open or
    /// not.
    fn kept(&self) -> bool {
        true
    }
}
