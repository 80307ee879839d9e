//! The start: the first search waits for the token counts and the BM25F
//! index, so both are built off the UI thread as the explorer opens (in
//! parallel, while the first frame is drawn), and the first search is sent
//! once they are in: it finds them cached and answers as fast as the next.
//! The findability audit follows the ranker, off the UI thread too. The
//! search model fetched on a first run is `model_fetch.rs`.

use super::App;
use crate::tui::effect::Effect;

/// What the start still waits for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(super) struct Warming {
    costs: bool,
    ranker: bool,
}

/// A part of the start that came in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Warmed {
    Costs,
    Ranker,
}

impl Warming {
    /// Waiting for both.
    pub(super) fn start() -> Warming {
        Warming {
            costs: true,
            ranker: true,
        }
    }
}

impl App {
    /// The effects the explorer starts with: the token counts and the
    /// ranker, built side by side.
    pub(super) fn start_effects(&self) -> Vec<Effect> {
        vec![
            self.costs_effect(),
            Effect::Warm {
                catalog: self.catalog.clone(),
            },
        ]
    }

    /// The ranker is built and the tools linted (off the UI thread: 10,000
    /// tools take a few hundred ms): the first search if the counts are in
    /// too, and the findability audit.
    pub(super) fn ranker_warmed(&mut self, lints: Vec<u16>) -> Vec<Effect> {
        if lints.len() == self.catalog.len() {
            self.lints = lints;
        }
        let mut effects = self.warmed(Warmed::Ranker);
        if !self.catalog.is_empty() {
            effects.push(Effect::Audit {
                catalog: self.catalog.clone(),
            });
        }
        effects
    }

    /// The findability audit came in (none: its searches failed, and no
    /// tool is marked).
    pub(super) fn audited(&mut self, audit: Option<std::sync::Arc<crate::findability::Audit>>) {
        if let Some(audit) = audit {
            self.findability = audit.by_index(self.catalog.len());
        }
    }

    /// `part` came in: once both have, the first search (of the empty
    /// query), unless a search was sent meanwhile.
    pub(super) fn warmed(&mut self, part: Warmed) -> Vec<Effect> {
        let was_waiting = self.warming != Warming::default();
        match part {
            Warmed::Costs => self.warming.costs = false,
            Warmed::Ranker => self.warming.ranker = false,
        }
        if was_waiting && self.warming == Warming::default() && self.search.last_request.is_none() {
            vec![self.search_effect(true)]
        } else {
            Vec::new()
        }
    }
}
