//! The bounds and the counters of what a shared store shares (catalogs and
//! vectors): plain figures, known to a build without Redis too.

use std::time::Duration;

/// The bounds of what is shared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SharedLimits {
    /// Bytes the fleet's shared catalogs and vectors may take in the store
    /// (keys, values and about 96 bytes of the store's own each); 0 shares nothing.
    pub bytes: u64,
    /// An entry not written or renewed this long is gone.
    pub ttl: Duration,
}

impl Default for SharedLimits {
    fn default() -> Self {
        SharedLimits {
            bytes: 256 << 20,
            ttl: Duration::from_secs(30 * 60),
        }
    }
}

/// What the shared catalogs and vectors have done.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SharedStats {
    /// Catalogs written (or renewed) by this instance.
    pub catalogs_written: u64,
    /// Catalogs this instance read from the store (it had not seen them).
    pub catalogs_fetched: u64,
    /// Vectors this instance found in the store.
    pub vectors_found: u64,
    /// Vectors this instance wrote.
    pub vectors_written: u64,
    /// Writes not made: the budget was taken.
    pub over_budget: u64,
    /// Store calls that failed.
    pub errors: u64,
}
