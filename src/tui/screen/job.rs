//! Work a screen asks for off the UI thread, and its answer, which comes
//! back to that screen: a [`Job`] the screen defines in its folder, run by
//! the loop as [`Effect::Screen`](crate::tui::effect::Effect::Screen), its
//! [`Answer`] handed to [`Screen::receive`](super::Screen::receive). The
//! app and the loop carry both without knowing what is inside.

use std::any::Any;
use std::fmt;
use std::sync::Arc;

use super::Popup;
use crate::search::Searcher;

/// A screen's work: what it does off the UI thread, and the answer it
/// brings back (the screen's own type, read with [`Answer::get`]).
pub trait Job: Any + Send + Sync + fmt::Debug {
    /// Does the work (it may block): the answer for the screen.
    fn run(&self, searcher: &Searcher) -> Answer;
}

/// A screen's job, for the loop to run.
#[derive(Clone)]
pub struct ScreenJob {
    /// The screen that asked.
    pub screen: Popup,
    job: Arc<dyn Job>,
}

impl ScreenJob {
    /// `job`, asked by `screen`.
    pub fn new(screen: Popup, job: impl Job) -> ScreenJob {
        ScreenJob {
            screen,
            job: Arc::new(job),
        }
    }

    /// Runs the job where it stands.
    pub fn run(&self, searcher: &Searcher) -> Answer {
        self.job.run(searcher)
    }

    /// The job, when it is a `T` (tests read what was asked).
    pub fn get<T: Job>(&self) -> Option<&T> {
        (self.job.as_ref() as &dyn Any).downcast_ref::<T>()
    }
}

impl fmt::Debug for ScreenJob {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}: {:?}", self.screen, self.job)
    }
}

/// A job's answer, for the screen that asked.
#[derive(Clone)]
pub struct Answer {
    /// The screen it goes to (when it is still held).
    pub screen: Popup,
    answer: Arc<dyn Any + Send + Sync>,
}

impl Answer {
    /// `answer`, for `screen`.
    pub fn new<T: Any + Send + Sync>(screen: Popup, answer: T) -> Answer {
        Answer {
            screen,
            answer: Arc::new(answer),
        }
    }

    /// The answer, when it is a `T`.
    pub fn get<T: Any>(&self) -> Option<&T> {
        self.answer.downcast_ref::<T>()
    }
}

impl fmt::Debug for Answer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "an answer for {:?}", self.screen)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug)]
    struct Twice(u32);

    impl Job for Twice {
        fn run(&self, _searcher: &Searcher) -> Answer {
            Answer::new(Popup::Tune, self.0 * 2)
        }
    }

    #[test]
    fn a_job_runs_and_its_answer_is_read_by_its_type() {
        let job = ScreenJob::new(Popup::Tune, Twice(21));
        assert_eq!(job.get::<Twice>().map(|t| t.0), Some(21));
        let answer = job.run(&Searcher::embedded());
        assert_eq!(answer.screen, Popup::Tune);
        assert_eq!(answer.get::<u32>(), Some(&42));
        assert_eq!(answer.get::<String>(), None);
    }
}
