//! A gateway's trace as requests with known answers: each search answered
//! by the tool the session then called ([`crate::traffic::requests`]).

use super::{EvalError, EvalQuery};

/// A trace's searches with the tool called after each, as requests.
pub fn queries_from_traffic(text: &str, origin: &str) -> Result<Vec<EvalQuery>, EvalError> {
    let events = crate::traffic::parse(text, origin).map_err(|e| EvalError::Line {
        path: e.origin,
        line: e.line,
        message: e.message,
    })?;
    let queries: Vec<EvalQuery> = crate::traffic::requests::requests(&events)
        .into_iter()
        .enumerate()
        .map(|(n, r)| EvalQuery {
            id: format!("search {} (session {})", n + 1, r.session),
            category: "traffic".into(),
            query: r.query,
            expected: vec![r.called.clone()],
            equivalents: vec![vec![r.called]],
        })
        .collect();
    if queries.is_empty() {
        return Err(EvalError::Line {
            path: origin.to_string(),
            line: 1,
            message: "a trace with no search followed by a call that ran: nothing to measure"
                .into(),
        });
    }
    Ok(queries)
}
