//! The comparison screen: the request in the query box searched two ways
//! side by side, the settings in force on the left and another way on the
//! right (another ranker that can run, the other strategy, the relevance
//! gate turned over), with what each sends, what each found that the other
//! did not, and the tokens between them. Its keys step the right side
//! through the other ways, scroll both lists together, and put the right
//! side's way in force.
//!
//! Each side is a search of its own ([`SearchSide`]), a preview: the
//! session is neither sent nor changed. An answer for a side shown before
//! is dropped.

pub mod actions;
pub mod draw;
mod screen;
mod side;
pub use screen::open;
pub use side::{SearchSide, SideFound};

use crate::tui::action::KeyGroup;

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use super::job::ScreenJob;
use super::{Outcome, Popup, Unopened};
use crate::catalog::Catalog;
use crate::engine::Ranker;
use crate::search::{Reason, SearchRequest, SearchResult, Searcher, Standing};
use crate::settings::Settings;
use crate::tools_handle::{Strategy, ToolsHandle};
use crate::tui::action::Action;
use crate::tui::effect::{Effect, SearchRun};
use crate::tui::pane::results::REFRESH_WHILE_EMBEDDING;

/// A way to search: its settings and what the screen calls it.
/// The key line's own keys (help and quit follow).
pub const KEYS: &[KeyGroup] = &[
    (
        &[Action::CompareNext, Action::ComparePrev],
        "other way",
        "way",
        1,
    ),
    (
        &[Action::CompareDown, Action::CompareUp],
        "scroll",
        "scroll",
        2,
    ),
    (&[Action::CompareApply], "put in force", "apply", 3),
    (&[Action::CompareClose], "back", "back", 0),
];

#[derive(Debug, Clone)]
pub struct Way {
    /// `ranker hybrid`, `strategy all`, `gate off`; the left side's is
    /// `in force`.
    pub label: String,
    pub settings: Settings,
    handle: ToolsHandle,
}

/// What came back for a side.
#[derive(Debug, Clone)]
pub enum Answer {
    Waiting,
    Found {
        result: Box<SearchResult>,
        elapsed: Duration,
        /// The query's vector was in memory: no embedding in `elapsed`.
        query_cached: bool,
        /// Where each tool stood (its place, as the results pane gives
        /// it), when it could be computed.
        standing: Option<Standing>,
    },
    /// The search failed: its code and message.
    Failed(String),
}

/// One side: its way, its answer, and the generation it waits for.
#[derive(Debug, Clone)]
pub struct Side {
    pub way: Way,
    pub answer: Answer,
    generation: u64,
}

/// What a side sends, for the comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sent {
    pub tools: usize,
    pub tokens: u64,
    pub full: u64,
}

impl Side {
    /// Strategy `all` sends every tool whatever the search found.
    pub fn sends_all(&self) -> bool {
        self.way.handle.strategy() == Strategy::All
    }

    /// The tools the search loaded, best first (under `all`, those a
    /// deferred search would have sent: every other tool is sent too).
    pub fn found(&self) -> &[crate::search::SearchHit] {
        match &self.answer {
            Answer::Found { result, .. } => &result.tools,
            _ => &[],
        }
    }

    /// Tools and tokens sent, against the full catalog's tokens; none
    /// until the answer is in.
    pub fn sent(&self, catalog_len: usize) -> Option<Sent> {
        let Answer::Found { result, .. } = &self.answer else {
            return None;
        };
        let s = result.savings;
        Some(if self.sends_all() {
            Sent {
                tools: catalog_len,
                tokens: s.full_schema_tokens,
                full: s.full_schema_tokens,
            }
        } else {
            Sent {
                tools: result.tools.len(),
                tokens: s.sent_schema_tokens,
                full: s.full_schema_tokens,
            }
        })
    }

    /// Each found tool's place, as the results pane numbers it: always-load
    /// tools none (they show ★), the others their place among the searched
    /// tools in the ranking, else the answer's order.
    pub fn places(&self) -> Vec<Option<usize>> {
        let Answer::Found {
            result, standing, ..
        } = &self.answer
        else {
            return Vec::new();
        };
        let mut rank = 0;
        result
            .tools
            .iter()
            .map(|hit| {
                if hit.reason == Some(Reason::AlwaysLoad) {
                    return None;
                }
                rank += 1;
                Some(
                    standing
                        .as_ref()
                        .and_then(|s| s.place(hit.index))
                        .unwrap_or(rank),
                )
            })
            .collect()
    }

    /// Rows of its list: the tools found, then a row for the tools the
    /// gate held back and one for every other tool `all` sends.
    pub fn rows(&self) -> usize {
        let held = match &self.answer {
            Answer::Found { result, .. } => !result.held_back.is_empty(),
            _ => false,
        };
        self.found().len() + usize::from(held) + usize::from(self.sends_all())
    }
}

/// What the two sides share: tools both send, tools only one sends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Overlap {
    pub both: usize,
    pub only_left: usize,
    pub only_right: usize,
}

/// What the screen is opened on.
pub struct Compared<'a> {
    pub catalog: &'a Arc<Catalog>,
    pub searcher: &'a Searcher,
    pub settings: &'a Settings,
    pub handle: &'a ToolsHandle,
    /// The query box's text, and whether it reads a pattern.
    pub query: &'a str,
    pub regex: bool,
}

/// The comparison screen's state.
#[derive(Debug, Clone)]
pub struct ComparePane {
    query: String,
    regex: bool,
    catalog: Arc<Catalog>,
    left: Side,
    /// The other ways, in the order the right side steps through them.
    ways: Vec<Way>,
    /// Which of `ways` the right side shows.
    at: usize,
    right: Side,
    next_generation: u64,
    /// The first row both lists show.
    scroll: usize,
}

impl ComparePane {
    /// The screen and its two searches; `Err` says why there is nothing to
    /// compare (no query, no other way that can run).
    pub fn open(on: &Compared) -> Result<(ComparePane, Vec<Effect>), Unopened> {
        let query = on.query.trim();
        if query.is_empty() {
            return Err(Unopened::NoQuery);
        }
        let ways = other_ways(on);
        let Some(first) = ways.first().cloned() else {
            return Err(Unopened::NoOtherWay);
        };
        let left = Way {
            label: "in force".into(),
            settings: on.settings.clone(),
            handle: on.handle.clone(),
        };
        let mut pane = ComparePane {
            query: query.to_string(),
            regex: on.regex,
            catalog: on.catalog.clone(),
            left: Side {
                way: left,
                answer: Answer::Waiting,
                generation: 0,
            },
            ways,
            at: 0,
            right: Side {
                way: first,
                answer: Answer::Waiting,
                generation: 0,
            },
            next_generation: 0,
            scroll: 0,
        };
        let effects = vec![pane.search(false), pane.search(true)];
        Ok((pane, effects))
    }

    /// A search of `right` side's way (a new generation: an older answer
    /// for it is dropped).
    fn search(&mut self, right: bool) -> Effect {
        self.next_generation += 1;
        let generation = self.next_generation;
        let side = if right {
            &mut self.right
        } else {
            &mut self.left
        };
        side.generation = generation;
        side.answer = Answer::Waiting;
        self.effect(right, Duration::ZERO)
    }

    /// The search of a side's way, for the generation it waits for, run
    /// `after` this long.
    fn effect(&self, right: bool, after: Duration) -> Effect {
        let side = if right { &self.right } else { &self.left };
        let s = &side.way.settings;
        let request = SearchRequest {
            ranker: Some(crate::tui::pane::query::ranker(self.regex, s.ranker)),
            preview: true,
            ..SearchRequest::in_force(s, &side.way.handle, &self.query)
        };
        Effect::Screen(ScreenJob::new(
            Popup::Compare,
            SearchSide {
                generation: side.generation,
                right,
                catalog: self.catalog.clone(),
                request,
                after,
            },
        ))
    }

    /// After an answer was taken: a dense ranker's side answered by BM25F
    /// while the catalog's vectors are computed (its note says how far) is
    /// asked again shortly, as the results pane is.
    pub fn again(&self, right: bool) -> Option<Effect> {
        let side = if right { &self.right } else { &self.left };
        let ranker = side.way.settings.ranker;
        match &side.answer {
            Answer::Found { result, .. } if !self.regex && result.stands_in_for(ranker) => {
                Some(self.effect(right, REFRESH_WHILE_EMBEDDING))
            }
            _ => None,
        }
    }

    /// Takes the answer of a side's search if it is the one the side waits
    /// for (and for this catalog). True when taken.
    pub fn receive(
        &mut self,
        generation: u64,
        right: bool,
        catalog: &Arc<Catalog>,
        answer: SearchRun,
    ) -> bool {
        let side = if right {
            &mut self.right
        } else {
            &mut self.left
        };
        if side.generation != generation || !Arc::ptr_eq(&self.catalog, catalog) {
            return false;
        }
        side.answer = match *answer.result {
            Ok(result) => Answer::Found {
                result: Box::new(result),
                elapsed: answer.elapsed,
                query_cached: answer.query_cached,
                standing: answer.standing,
            },
            Err(e) => Answer::Failed(format!("{}: {e}", e.code())),
        };
        true
    }

    /// The screen's keys. `rows` is how many list rows a side shows.
    pub fn handle(&mut self, action: Action, rows: usize) -> Outcome {
        match action {
            Action::CompareNext | Action::ComparePrev => {
                let n = self.ways.len();
                self.at = if action == Action::CompareNext {
                    (self.at + 1) % n
                } else {
                    (self.at + n - 1) % n
                };
                self.right.way = self.ways[self.at].clone();
                self.scroll = 0;
                return Outcome::Effects(vec![self.search(true)]);
            }
            Action::CompareDown => self.scroll = (self.scroll + 1).min(self.last_scroll(rows)),
            Action::CompareUp => self.scroll = self.scroll.saturating_sub(1),
            Action::ComparePageDown => {
                self.scroll = (self.scroll + rows.max(2) / 2).min(self.last_scroll(rows));
            }
            Action::ComparePageUp => self.scroll = self.scroll.saturating_sub(rows.max(2) / 2),
            Action::CompareApply => return Outcome::Apply(self.right.way.settings.clone()),
            Action::CompareClose => return Outcome::Close,
            _ => {}
        }
        Outcome::Stay
    }

    /// The first row of the lists' last page.
    fn last_scroll(&self, rows: usize) -> usize {
        self.rows().saturating_sub(rows)
    }

    /// Rows of the longer list.
    pub fn rows(&self) -> usize {
        self.left.rows().max(self.right.rows())
    }

    pub fn scroll(&self) -> usize {
        self.scroll
    }

    pub fn query(&self) -> &str {
        &self.query
    }

    pub fn left(&self) -> &Side {
        &self.left
    }

    pub fn right(&self) -> &Side {
        &self.right
    }

    /// The right side's place among the other ways, from 1, and how many
    /// there are.
    pub fn way_place(&self) -> (usize, usize) {
        (self.at + 1, self.ways.len())
    }

    /// What the sides share, once both answers are in.
    pub fn overlap(&self) -> Option<Overlap> {
        let (n, l, r) = (self.catalog.len(), &self.left, &self.right);
        l.sent(n)?;
        r.sent(n)?;
        let set = |s: &Side| -> HashSet<usize> {
            if s.sends_all() {
                (0..n).collect()
            } else {
                s.found().iter().map(|h| h.index).collect()
            }
        };
        let (a, b) = (set(l), set(r));
        let both = a.intersection(&b).count();
        Some(Overlap {
            both,
            only_left: a.len() - both,
            only_right: b.len() - both,
        })
    }
}

/// The ways other than the settings in force that can run here: the other
/// rankers (not for a pattern, which only regex reads; a dense ranker only
/// with an embedding model), the other strategy, the gate turned over.
fn other_ways(on: &Compared) -> Vec<Way> {
    let s = on.settings;
    let mut candidates: Vec<(String, Settings)> = Vec::new();
    if !on.regex {
        for ranker in Ranker::WORDS {
            if ranker != s.ranker && on.searcher.ranker_unavailable(ranker).is_none() {
                candidates.push((
                    format!("ranker {ranker}"),
                    Settings {
                        ranker,
                        ..s.clone()
                    },
                ));
            }
        }
    }
    let strategy = match s.strategy {
        Strategy::All => Strategy::Deferred,
        Strategy::Deferred => Strategy::All,
    };
    candidates.push((
        format!("strategy {strategy}"),
        Settings {
            strategy,
            ..s.clone()
        },
    ));
    candidates.push((
        format!("gate {}", if s.gate { "off" } else { "on" }),
        Settings {
            gate: !s.gate,
            ..s.clone()
        },
    ));
    candidates
        .into_iter()
        .filter_map(|(label, settings)| {
            let handle = settings.validate(on.catalog).ok()?;
            Some(Way {
                label,
                settings,
                handle,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests;
