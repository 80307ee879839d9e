//! The Tune screen's measurement, off the UI thread: the caps measured on
//! a request file, the answer back to the screen.

use std::sync::Arc;

use super::TunePane;
use crate::catalog::Catalog;
use crate::search::Searcher;
use crate::tui::screen::Popup;
use crate::tui::screen::job::{Answer, Job};
use crate::tune::{TuneError, TuneOptions, TuneReport};

/// Measure the caps on the request file `queries`.
#[derive(Debug, Clone)]
pub struct Measure {
    pub generation: u64,
    pub catalog: Arc<Catalog>,
    pub queries: String,
    pub options: TuneOptions,
}

/// Measurement `generation`'s report, or why there is none.
#[derive(Debug)]
pub struct MeasureDone {
    pub generation: u64,
    pub result: Result<TuneReport, TuneError>,
}

impl Job for Measure {
    fn run(&self, searcher: &Searcher) -> Answer {
        let result =
            crate::tune::tune_source(searcher, &self.catalog, &self.queries, &self.options);
        Answer::new(
            Popup::Tune,
            MeasureDone {
                generation: self.generation,
                result,
            },
        )
    }
}

impl TunePane {
    /// Takes a measurement's answer, if it is the newest.
    pub(super) fn measured(&mut self, answer: &Answer) {
        if let Some(m) = answer.get::<MeasureDone>() {
            self.receive(m.generation, m.result.as_ref().map(TuneReport::clone));
        }
    }
}
