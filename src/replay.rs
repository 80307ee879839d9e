//! Traces of tool calls run through the retry-loop breaker: would it have
//! stopped this loop, and where?
//!
//! A trace is JSON lines of `{"name": "...", "arguments": {...}}`. Blank lines
//! are skipped, and so are a gateway trace's other events (a line whose
//! `kind` is not `call`: its searches). `arguments` may be left out (no arguments) or be a string
//! holding JSON, as OpenAI's tool calls carry it; it is then parsed.

use serde::Serialize;
use serde_json::Value;

use crate::breaker::{RetryLoopBreaker, RetryLoopError};

/// The example trace shipped with toolsift (`@example`): an agent that
/// alternates two tools, then gets stuck on one.
pub const EXAMPLE_TRACE: &str = include_str!("../assets/traces/stuck-agent.jsonl");

/// One call of a trace.
#[derive(Debug, Clone, PartialEq)]
pub struct TraceCall {
    pub name: String,
    pub arguments: Value,
    /// 1-based line in the trace file.
    pub line: usize,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TraceError {
    #[error("{origin}: cannot read: {message}")]
    Io { origin: String, message: String },
    #[error("{origin}:{line}: {message}")]
    Line {
        origin: String,
        line: usize,
        message: String,
    },
    #[error("{origin}: the trace has no calls")]
    Empty { origin: String },
}

/// Reads a trace from a path, or the example for `@example`.
pub fn load_trace(path: &str) -> Result<Vec<TraceCall>, TraceError> {
    if path == "@example" {
        return parse_trace(EXAMPLE_TRACE, "@example");
    }
    let text = std::fs::read_to_string(path).map_err(|e| TraceError::Io {
        origin: path.to_string(),
        message: e.to_string(),
    })?;
    parse_trace(&text, path)
}

/// Parses a trace; a malformed line is an error naming its number.
pub fn parse_trace(text: &str, origin: &str) -> Result<Vec<TraceCall>, TraceError> {
    let mut calls = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let err = |message: String| TraceError::Line {
            origin: origin.to_string(),
            line: i + 1,
            message,
        };
        let value: Value =
            serde_json::from_str(line).map_err(|e| err(format!("invalid JSON: {e}")))?;
        let Value::Object(mut object) = value else {
            return Err(err("expected an object with `name` and `arguments`".into()));
        };
        if object
            .get("kind")
            .is_some_and(|k| k.as_str() != Some("call"))
        {
            continue;
        }
        let name = match object.remove("name") {
            Some(Value::String(n)) if !n.trim().is_empty() => n,
            Some(Value::String(_)) => return Err(err("`name` is empty".into())),
            Some(_) => return Err(err("`name` must be a string".into())),
            None => return Err(err("missing `name`".into())),
        };
        let arguments = match object.remove("arguments") {
            None | Some(Value::Null) => Value::Object(Default::default()),
            Some(Value::String(s)) => serde_json::from_str::<Value>(&s)
                .ok()
                .filter(|v| v.is_object() || v.is_array())
                .ok_or_else(|| err("`arguments` is a string that is not JSON arguments".into()))?,
            Some(v) => v,
        };
        calls.push(TraceCall {
            name,
            arguments,
            line: i + 1,
        });
    }
    if calls.is_empty() {
        return Err(TraceError::Empty {
            origin: origin.to_string(),
        });
    }
    Ok(calls)
}

/// One call as the breaker saw it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReplayedCall {
    /// 0-based, in the trace's order.
    pub index: usize,
    /// 1-based line in the trace file.
    pub line: usize,
    pub name: String,
    pub signature: String,
    pub ran: bool,
    pub repeats: u64,
}

/// The verdict on a trace.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReplayReport {
    pub calls: Vec<ReplayedCall>,
    /// 0-based index of the first blocked call, -1 when none.
    pub fired_at_call: i64,
    /// Repeats of the first blocked call (0 when none).
    pub repeats: u64,
    pub threshold: u32,
    /// The first blocked call's error message.
    #[serde(skip)]
    pub error: Option<RetryLoopError>,
}

/// A trace replayed a call at a time through a breaker that may also see
/// other calls between them (the explorer's simulator steps through a
/// trace this way); [`replay`] runs one whole.
#[derive(Debug, Clone, PartialEq)]
pub struct Replay {
    pub calls: Vec<TraceCall>,
    /// What the breaker saw of each call run so far, in order.
    pub replayed: Vec<ReplayedCall>,
    /// The first blocked call: its index and the breaker's error.
    pub first_blocked: Option<(usize, RetryLoopError)>,
}

/// One call as a replay step ran it.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    pub call: TraceCall,
    pub seen: ReplayedCall,
    /// The breaker's error, when it blocked the call.
    pub blocked: Option<RetryLoopError>,
}

impl Replay {
    pub fn new(calls: Vec<TraceCall>) -> Replay {
        Replay {
            calls,
            replayed: Vec::new(),
            first_blocked: None,
        }
    }

    /// The index of the next call (the number of calls at the end).
    pub fn next(&self) -> usize {
        self.replayed.len()
    }

    /// Whether call `index` ran (`None`: not yet replayed).
    pub fn ran(&self, index: usize) -> Option<bool> {
        self.replayed.get(index).map(|c| c.ran)
    }

    /// The index of the first blocked call, once it happened.
    pub fn tripped_at(&self) -> Option<usize> {
        self.first_blocked.as_ref().map(|(i, _)| *i)
    }

    /// Runs the next call through `breaker`; `None` at the end. A blocked
    /// call is recorded and the replay goes on (the breaker does not reset
    /// on firing).
    pub fn step(&mut self, breaker: &mut RetryLoopBreaker) -> Option<Step> {
        let index = self.next();
        let call = self.calls.get(index)?.clone();
        let (signature, ran, repeats, blocked) = match breaker.record(&call.name, &call.arguments) {
            Ok(r) => (r.signature, true, r.repeats, None),
            Err(e) => {
                self.first_blocked.get_or_insert((index, e.clone()));
                (e.signature.clone(), false, e.repeats, Some(e))
            }
        };
        let seen = ReplayedCall {
            index,
            line: call.line,
            name: call.name.clone(),
            signature,
            ran,
            repeats,
        };
        self.replayed.push(seen.clone());
        Some(Step {
            call,
            seen,
            blocked,
        })
    }

    /// The verdict on the calls replayed so far, for a breaker of
    /// `threshold`.
    pub fn report(self, threshold: u32) -> ReplayReport {
        ReplayReport {
            calls: self.replayed,
            fired_at_call: self.first_blocked.as_ref().map_or(-1, |(i, _)| *i as i64),
            repeats: self.first_blocked.as_ref().map_or(0, |(_, e)| e.repeats),
            threshold,
            error: self.first_blocked.map(|(_, e)| e),
        }
    }
}

/// Runs every call through one breaker; a blocked call is recorded and the
/// replay goes on (the breaker does not reset on firing).
pub fn replay(calls: &[TraceCall], threshold: u32) -> ReplayReport {
    let mut breaker = RetryLoopBreaker::new(threshold);
    let mut replay = Replay::new(calls.to_vec());
    while replay.step(&mut breaker).is_some() {}
    replay.report(threshold)
}

impl ReplayReport {
    /// The human-readable report of `toolsift replay`. Signatures (a tool
    /// name and its arguments, from an untrusted trace) are escaped for the
    /// terminal.
    pub fn render_text(&self) -> String {
        use crate::terminal_text::escape;
        use std::fmt::Write as _;
        let mut out = String::new();
        for c in &self.calls {
            let _ = writeln!(
                out,
                "{:>4}  {:<7}  repeats {:>2}  {}",
                c.index + 1,
                if c.ran { "ran" } else { "BLOCKED" },
                c.repeats,
                escape(&c.signature)
            );
        }
        out.push('\n');
        match &self.error {
            Some(e) => {
                let _ = writeln!(
                    out,
                    "verdict: the breaker (threshold {}) trips at call {} of {}{}: {}",
                    self.threshold,
                    self.fired_at_call + 1,
                    self.calls.len(),
                    // Counted from 1, as the explorer counts them.
                    usize::try_from(self.fired_at_call)
                        .ok()
                        .and_then(|i| self.calls.get(i))
                        .map_or_else(String::new, |c| format!(" (trace line {})", c.line)),
                    escape(&e.to_string())
                );
            }
            None => {
                let _ = writeln!(
                    out,
                    "verdict: the breaker (threshold {}) never fires on these {} calls",
                    self.threshold,
                    self.calls.len()
                );
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn trace(lines: &[Value]) -> Vec<TraceCall> {
        let text: Vec<String> = lines.iter().map(|v| v.to_string()).collect();
        parse_trace(&text.join("\n"), "t.jsonl").unwrap()
    }

    #[test]
    fn sdk_case_threshold_2_three_identical_calls() {
        let calls = trace(&[
            json!({"name": "a", "arguments": {"x": 1, "y": 2}}),
            json!({"name": "a", "arguments": {"y": 2, "x": 1}}),
            json!({"name": "a", "arguments": {"x": 1, "y": 2}}),
        ]);
        let r = replay(&calls, 2);
        assert_eq!(r.fired_at_call, 2);
        assert_eq!(r.repeats, 3);
        assert_eq!(r.threshold, 2);
        assert_eq!(
            r.calls.iter().map(|c| c.ran).collect::<Vec<_>>(),
            [true, true, false]
        );
        assert!(r.calls.iter().all(|c| c.signature == r#"a({"x":1,"y":2})"#));
        assert_eq!(
            r.calls.iter().map(|c| c.repeats).collect::<Vec<_>>(),
            [1, 2, 3]
        );
    }

    #[test]
    fn a_different_call_resets_the_streak() {
        let calls = trace(&[
            json!({"name": "a", "arguments": {}}),
            json!({"name": "a", "arguments": {}}),
            json!({"name": "b", "arguments": {}}),
            json!({"name": "a", "arguments": {}}),
            json!({"name": "a", "arguments": {}}),
        ]);
        let r = replay(&calls, 2);
        assert_eq!(r.fired_at_call, -1);
        assert_eq!(r.repeats, 0);
        assert!(r.error.is_none());
        assert!(r.render_text().contains("never fires"));
    }

    #[test]
    fn a_replay_a_call_at_a_time_sees_what_the_breaker_saw_between() {
        let calls = load_trace("@example").unwrap();
        let mut breaker = RetryLoopBreaker::new(3);
        let mut stepped = Replay::new(calls.clone());
        while stepped.step(&mut breaker).is_some() {}
        assert_eq!(stepped.report(3), replay(&calls, 3));
        // Another call between two of the trace's starts a new streak.
        let mut breaker = RetryLoopBreaker::new(3);
        let mut stepped = Replay::new(calls);
        for _ in 0..9 {
            stepped.step(&mut breaker);
        }
        breaker.record("other", &json!({})).unwrap();
        let step = stepped.step(&mut breaker).unwrap();
        assert!(step.seen.ran && step.blocked.is_none());
        assert_eq!((step.seen.index, step.seen.repeats), (9, 1));
        assert_eq!(stepped.tripped_at(), None);
        assert_eq!(stepped.ran(9), Some(true));
        assert_eq!(stepped.ran(10), None);
    }

    #[test]
    fn the_example_trips_at_the_fourth_identical_call() {
        let calls = load_trace("@example").unwrap();
        let r = replay(&calls, 3);
        assert_eq!(r.fired_at_call, 9);
        assert_eq!(r.repeats, 4);
        assert!(
            r.render_text()
                .contains("trips at call 10 of 11 (trace line 10)")
        );
        // The alternating start never trips, even at threshold 1.
        assert_eq!(replay(&calls[..6], 1).fired_at_call, -1);
    }

    #[test]
    fn argument_forms() {
        let calls = parse_trace(
            "{\"name\":\"a\"}\n\n{\"name\":\"a\",\"arguments\":\"{}\"}\n{\"name\":\"a\",\"arguments\":null}\n",
            "t",
        )
        .unwrap();
        assert_eq!(calls.len(), 3);
        assert!(calls.iter().all(|c| c.arguments == json!({})));
        assert_eq!(calls[1].line, 3);
        assert_eq!(replay(&calls, 2).fired_at_call, 2);
    }

    #[test]
    fn a_gateway_trace_s_searches_are_passed_over() {
        let text = concat!(
            r#"{"kind":"search","session":"s","query":"tickets","tools":["get_ticket"]}"#,
            "\n",
            r#"{"kind":"call","session":"s","name":"get_ticket","arguments":{"id":1}}"#,
        );
        let calls = parse_trace(text, "t").unwrap();
        assert_eq!(calls.len(), 1);
        assert_eq!((calls[0].name.as_str(), calls[0].line), ("get_ticket", 2));
    }

    #[test]
    fn malformed_lines_name_their_number() {
        let cases = [
            ("{\"name\":\"a\"}\n{oops", "t:2: invalid JSON"),
            ("[1]", "t:1: expected an object"),
            ("{\"arguments\":{}}", "t:1: missing `name`"),
            ("{\"name\":3}", "t:1: `name` must be a string"),
            ("{\"name\":\" \"}", "t:1: `name` is empty"),
            (
                "{\"name\":\"a\",\"arguments\":\"nope\"}",
                "t:1: `arguments` is a string",
            ),
        ];
        for (text, needle) in cases {
            let e = parse_trace(text, "t").unwrap_err().to_string();
            assert!(e.starts_with(needle), "{e}");
        }
        assert_eq!(
            parse_trace("\n \n", "t").unwrap_err(),
            TraceError::Empty { origin: "t".into() }
        );
        assert!(
            load_trace("/no/such/trace.jsonl")
                .unwrap_err()
                .to_string()
                .contains("cannot read")
        );
    }
}
