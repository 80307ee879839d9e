//! The regex ranker's query, checked before a search: a pattern that is too
//! long, wrong or too large once compiled is the request's fault (400
//! `invalid_regex`, saying where and what), not a ranker's failure.

use super::ServiceError;
use crate::engine::{Ranker, regex};

/// Why a regex search found nothing (the response's note).
pub(super) const NO_MATCH: &str =
    "the pattern matches no tool's name, description, parameter name or parameter description";

/// `query` checked as the pattern of `ranker`, when that is the regex ranker.
pub(super) fn check(ranker: Ranker, query: &str) -> Result<(), ServiceError> {
    if !ranker.is_regex() {
        return Ok(());
    }
    regex::check(query).map_err(|e| ServiceError::bad_request("invalid_regex", e.to_string()))
}
