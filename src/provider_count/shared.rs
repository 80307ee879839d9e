//! One [`Counter`] shared by the threads that ask for counts (the
//! explorer's), made on first use, one count at a time: a provider is
//! asked sequentially, never in a burst.

use std::sync::Mutex;

use super::{CountConfig, CountError, Counter};
use crate::catalog::Tool;

pub struct SharedCounter {
    config: CountConfig,
    counter: Mutex<Option<Counter>>,
}

/// The provider and model, never the key.
impl std::fmt::Debug for SharedCounter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SharedCounter")
            .field("counts", &self.config.label())
            .finish_non_exhaustive()
    }
}

impl SharedCounter {
    pub fn new(config: CountConfig) -> SharedCounter {
        SharedCounter {
            config,
            counter: Mutex::new(None),
        }
    }

    pub fn config(&self) -> &CountConfig {
        &self.config
    }

    /// What `tools` add to a request ([`Counter::tools_cost`]).
    pub fn tools_cost(&self, tools: &[&Tool]) -> Result<u64, CountError> {
        let mut guard = self.counter.lock().unwrap_or_else(|p| p.into_inner());
        if guard.is_none() {
            *guard = Some(Counter::new(self.config.clone())?);
        }
        guard.as_mut().expect("made above").tools_cost(tools)
    }
}
