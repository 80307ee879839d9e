//! The retry-loop breaker of a session: identical calls in a row (the
//! same name and arguments) stopped before they reach the tool, with a
//! threshold for read-only tools and one for the others.

use std::sync::Mutex;

use serde_json::Value;

use crate::breaker::RetryLoopBreaker;

/// One session's breaker: the SDK's semantics (identical name and
/// arguments in a row, reset by any other call), with the threshold of the
/// called tool's kind.
#[derive(Debug)]
pub(crate) struct SessionBreaker {
    breaker: Mutex<RetryLoopBreaker>,
    threshold: u32,
    threshold_read_only: u32,
}

impl SessionBreaker {
    pub(crate) fn new(threshold: u32, threshold_read_only: u32) -> SessionBreaker {
        SessionBreaker {
            breaker: Mutex::new(RetryLoopBreaker::new(threshold)),
            threshold,
            threshold_read_only,
        }
    }

    /// Records a call; `Err` with the refusal when it is blocked.
    pub(crate) fn record(
        &self,
        name: &str,
        arguments: &Value,
        read_only: bool,
    ) -> Result<(), Stopped> {
        let mut b = self.breaker.lock().unwrap_or_else(|p| p.into_inner());
        b.set_threshold(if read_only {
            self.threshold_read_only
        } else {
            self.threshold
        });
        b.record(name, arguments)
            .map(|_| ())
            .map_err(|error| Stopped {
                name: name.to_string(),
                read_only,
                error,
            })
    }

    /// Takes back the record of a call that did not run (refused for a
    /// login the server needs): called again once logged in, it is not a
    /// loop.
    pub(crate) fn take_back(&self, name: &str, arguments: &Value) {
        self.breaker
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take_back(name, arguments);
    }

    /// How many times in a row the last call was made.
    pub(crate) fn repeats(&self) -> u64 {
        self.breaker
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .repeats()
    }
}

/// A call the breaker stopped, said to the agent: what it repeated, the
/// limit, and what to do instead.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "toolsift stopped this call before it reached the tool: {name} was called {} times in a row with the same arguments (the limit is {} for {} tools). Do not repeat it: change the arguments, try another tool, or tell the user what is failing. ({error})",
    error.repeats,
    error.threshold,
    if *read_only { "read-only" } else { "these" }
)]
pub(crate) struct Stopped {
    name: String,
    read_only: bool,
    error: crate::breaker::RetryLoopError,
}
