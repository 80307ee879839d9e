//! The start: the first search waits for the token counts and the BM25F
//! index, so both are built off the UI thread as the explorer opens (in
//! parallel, while the first frame is drawn), and the first search is sent
//! once they are in: it finds them cached and answers as fast as the next.

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
