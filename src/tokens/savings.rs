//! The savings arithmetic of docs/wire.md §3, as the clients compute it.

use serde::Serialize;

/// The client's view of a search's token figures (docs/wire.md §3): invalid
/// counts (sent > full) become 0/0; saved = full - sent; the reduction is a
/// percentage rounded half-up to one decimal, computed in integers.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Savings {
    pub full_schema_tokens: u64,
    pub sent_schema_tokens: u64,
    pub saved_tokens: u64,
    pub reduction_pct: f64,
}

impl Savings {
    pub fn new(full: u64, sent: u64) -> Self {
        let (full, sent) = if sent > full { (0, 0) } else { (full, sent) };
        Savings {
            full_schema_tokens: full,
            sent_schema_tokens: sent,
            saved_tokens: saved_tokens(full, sent),
            reduction_pct: reduction_pct(full, sent),
        }
    }
}

/// `full - sent`, or 0 when the counts are inconsistent (sent > full).
pub fn saved_tokens(full: u64, sent: u64) -> u64 {
    full.saturating_sub(sent)
}

/// `100 * saved / full` rounded half-up to one decimal; 0 when full is 0 or
/// sent > full. Integer arithmetic (u128, so no overflow for any u64 input).
pub fn reduction_pct(full: u64, sent: u64) -> f64 {
    if full == 0 || sent > full {
        return 0.0;
    }
    let saved = u128::from(full - sent);
    let full = u128::from(full);
    let tenths = (saved * 2000 + full) / (2 * full);
    tenths as f64 / 10.0
}
