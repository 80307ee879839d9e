//! Searches that failed the agent, found in its traffic:
//! - a tool called that no search of the session had returned (the agent
//!   guessed its name, or knew it from elsewhere),
//! - the same need searched again at once (no call between two searches),
//! - "nothing fits", then a call anyway,
//! - tools found and none of them called before the next search or the
//!   session's end.
//!
//! Each miss names the search it blames and, when the traffic shows it,
//! the tool the agent wanted (the one it called next).
//!
//! Judged by the catalog the agent searched ([`Judge`]), a call of an
//! always-load tool is never a miss (the agent had it all along), and a
//! call of a name the catalog lacks is its own kind: the agent guessed.

use std::collections::HashMap;

use serde::Serialize;

use super::{Event, Outcome};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MissKind {
    /// A tool called that no search of the session returned.
    CalledUnreturned,
    /// Searched again with no call between.
    SearchedAgain,
    /// The answer said nothing fits, and the agent called a tool anyway.
    NothingFitsThenCall,
    /// Tools found, none called.
    FoundNeverCalled,
    /// A tool called that the catalog does not have: the agent guessed a
    /// name (no search could have given it).
    UnknownTool,
}

impl MissKind {
    /// A short phrase for lists.
    pub fn phrase(self) -> &'static str {
        match self {
            MissKind::CalledUnreturned => "called a tool search did not return",
            MissKind::SearchedAgain => "searched again at once",
            MissKind::NothingFitsThenCall => "nothing fits, then called",
            MissKind::FoundNeverCalled => "found tools, none called",
            MissKind::UnknownTool => "called a tool the catalog lacks",
        }
    }
}

/// One search that failed the agent.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Miss {
    pub kind: MissKind,
    pub session: String,
    /// The search blamed: its query and what it returned.
    pub query: String,
    pub returned: Vec<String>,
    /// The tool the agent wanted, when a later call shows it.
    pub wanted: Option<String>,
    /// Index in the events of the search blamed.
    pub search: usize,
    /// Index of the event that showed the miss (the call, or the second
    /// search; for a search no call followed, the search itself).
    pub shown_by: usize,
}

/// What misses are judged by: the catalog the agent searched, when known,
/// and whether the traffic is whole.
#[derive(Debug, Clone, Default)]
pub struct Judge {
    /// Each tool's name as the far side calls it, and whether it is always
    /// loaded; `None`: no catalog known (every name counts as searchable).
    names: Option<HashMap<String, bool>>,
    /// The traffic is whole (a recorded session): each session's last
    /// search is judged too. While traffic still comes, a search whose
    /// tools went uncalled is told when its session searches again (its
    /// call may be on its way).
    pub ended: bool,
}

/// A called name, as the catalog sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Standing {
    /// Sent with every request: no search needed to give it.
    AlwaysLoad,
    /// Deferred: a search gives it.
    Searchable,
    /// Not in the catalog.
    Unknown,
}

impl Judge {
    /// Judged by a catalog: `(name, always_load)` for each way the far
    /// side may call a tool.
    pub fn by(names: impl IntoIterator<Item = (String, bool)>, ended: bool) -> Judge {
        Judge {
            names: Some(names.into_iter().collect()),
            ended,
        }
    }

    /// No catalog known.
    pub fn blind(ended: bool) -> Judge {
        Judge { names: None, ended }
    }

    /// Whether a catalog is known.
    pub fn knows_names(&self) -> bool {
        self.names.is_some()
    }

    pub fn standing(&self, name: &str) -> Standing {
        match &self.names {
            None => Standing::Searchable,
            Some(names) => match names.get(name) {
                Some(true) => Standing::AlwaysLoad,
                Some(false) => Standing::Searchable,
                None => Standing::Unknown,
            },
        }
    }
}

#[derive(Default)]
struct SessionState {
    /// The last search: its event index.
    last: Option<usize>,
    /// A call (that ran or was refused) came after the last search.
    called_since: bool,
    /// One of the last search's tools was called.
    used: bool,
    /// Every tool any search of the session returned.
    returned: std::collections::HashSet<String>,
    /// Misses of this session still waiting for the tool wanted.
    waiting: Vec<usize>,
}

/// The misses in `events`, in the order of the events that showed them.
pub fn find(events: &[Event], judge: &Judge) -> Vec<Miss> {
    let mut finder = Finder {
        events,
        judge,
        misses: Vec::new(),
        sessions: HashMap::new(),
    };
    for (i, event) in events.iter().enumerate() {
        match event {
            Event::Search(s) => finder.search(i, s),
            Event::Call(c) => finder.call(i, c),
            Event::Dropped { .. } => {}
        }
    }
    if judge.ended {
        finder.session_ends();
    }
    let mut misses = finder.misses;
    misses.sort_by_key(|m| m.shown_by);
    misses
}

/// The traffic read so far: the misses found and each session's state.
struct Finder<'e> {
    events: &'e [Event],
    judge: &'e Judge,
    misses: Vec<Miss>,
    sessions: HashMap<&'e str, SessionState>,
}

impl<'e> Finder<'e> {
    /// A search (event `i`): the session's last one was searched again at
    /// once, or its tools went uncalled.
    fn search(&mut self, i: usize, s: &'e super::Search) {
        let state = self.sessions.entry(&s.session).or_default();
        if let Some(last) = state.last
            && !state.called_since
            && let Event::Search(prev) = &self.events[last]
        {
            self.misses.push(Miss {
                kind: MissKind::SearchedAgain,
                session: s.session.clone(),
                query: prev.query.clone(),
                returned: prev.tools.clone(),
                wanted: None,
                search: last,
                shown_by: i,
            });
            state.waiting.push(self.misses.len() - 1);
        } else if let Some(last) = state.last
            && !state.used
            && let Event::Search(prev) = &self.events[last]
            && !prev.nothing_fits
            && !prev.tools.is_empty()
        {
            self.misses.push(found_never_called(prev, last));
        }
        state.last = Some(i);
        state.called_since = false;
        state.used = false;
        state.returned.extend(s.tools.iter().cloned());
    }

    /// A call (event `i`): names the tool the misses waiting wanted, and
    /// is a miss of the last search when that search did not give it.
    fn call(&mut self, i: usize, c: &'e super::Call) {
        if c.outcome == Outcome::Blocked {
            // The breaker's business, not search's.
            return;
        }
        let state = self.sessions.entry(&c.session).or_default();
        let Some(last) = state.last else {
            // No search yet: a tool the host listed up front.
            return;
        };
        let Event::Search(prev) = &self.events[last] else {
            return;
        };
        let first_since = !state.called_since;
        state.called_since = true;
        let standing = self.judge.standing(&c.name);
        if standing == Standing::AlwaysLoad {
            // The agent had it all along: no search failed it.
            return;
        }
        for at in state.waiting.drain(..) {
            let miss = &mut self.misses[at];
            if !miss.returned.contains(&c.name) {
                miss.wanted = Some(c.name.clone());
            }
        }
        if prev.tools.contains(&c.name) {
            state.used = true;
            return;
        }
        // A miss this call shows, of `kind`, the tool wanted named.
        let shown = |kind| Miss {
            kind,
            session: c.session.clone(),
            query: prev.query.clone(),
            returned: prev.tools.clone(),
            wanted: Some(c.name.clone()),
            search: last,
            shown_by: i,
        };
        if standing == Standing::Unknown {
            self.misses.push(shown(MissKind::UnknownTool));
            state.used |= first_since && prev.nothing_fits;
        } else if first_since && prev.nothing_fits {
            self.misses.push(shown(MissKind::NothingFitsThenCall));
            state.used = true;
        } else if !state.returned.contains(&c.name) {
            self.misses.push(shown(MissKind::CalledUnreturned));
            state.used = true;
        }
    }

    /// The traffic is whole: each session's last search whose tools the
    /// session never called.
    fn session_ends(&mut self) {
        let mut ends: Vec<(usize, &SessionState)> = self
            .sessions
            .values()
            .filter_map(|s| s.last.map(|l| (l, s)))
            .collect();
        ends.sort_by_key(|(l, _)| *l);
        for (last, state) in ends {
            if let Event::Search(s) = &self.events[last]
                && !state.used
                && !s.nothing_fits
                && !s.tools.is_empty()
            {
                self.misses.push(found_never_called(s, last));
            }
        }
    }
}

fn found_never_called(s: &super::Search, at: usize) -> Miss {
    Miss {
        kind: MissKind::FoundNeverCalled,
        session: s.session.clone(),
        query: s.query.clone(),
        returned: s.tools.clone(),
        wanted: None,
        search: at,
        shown_by: at,
    }
}
