//! The retry-loop breaker (docs/wire.md §5): stops an agent that repeats the
//! identical tool call. Threshold 3 allows three identical consecutive calls
//! and blocks the fourth, before its callback runs.

use serde_json::Value;

/// The SDK's default threshold.
pub const DEFAULT_THRESHOLD: u32 = 3;

/// The thresholds a breaker takes: every whole number from 0. This is the
/// SDK's rule: its `RetryLoopBreaker(threshold = 3)` (docs/wire.md §5; the
/// TypeScript SDK's `constructor(readonly threshold = 3)`) checks nothing
/// and blocks a call when `repeats > threshold`, so every count means
/// something, 0 included (0 blocks every call, even the first; 1 blocks the
/// second identical call in a row). A negative number or a fraction would
/// only repeat one of these, and is refused.
pub const THRESHOLDS: std::ops::RangeInclusive<u32> = 0..=u32::MAX;

/// A threshold given as text (a flag) that is not one of [`THRESHOLDS`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{flag} must be a whole number from {} to {} (0 blocks every call), not {value:?}",
    THRESHOLDS.start(),
    crate::numbers::thousands(u64::from(*THRESHOLDS.end()))
)]
pub struct BadThreshold {
    /// Where it was given (`--threshold`).
    pub flag: String,
    pub value: String,
}

/// `text` as a threshold, or the error naming `flag`, the value and the
/// accepted range.
pub fn parse_threshold(flag: &str, text: &str) -> Result<u32, BadThreshold> {
    text.trim()
        .parse::<u32>()
        .ok()
        .filter(|t| THRESHOLDS.contains(t))
        .ok_or_else(|| BadThreshold {
            flag: flag.to_string(),
            value: text.to_string(),
        })
}

/// A blocked call: the `threshold + 1`-th (or later) identical consecutive call.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "retry loop interrupted: tool call {} repeated {repeats} times (threshold {threshold})",
    json_string(signature)
)]
pub struct RetryLoopError {
    pub signature: String,
    pub repeats: u64,
    pub threshold: u32,
}

/// The signature quoted as a JSON string, as the TypeScript SDK prints it.
fn json_string(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| format!("{s:?}"))
}

/// Writes `value` as canonical JSON: object keys sorted by code point (which
/// is UTF-8 byte order), compact separators. Sorted here, explicitly, so the
/// signature does not depend on how `serde_json` stores maps.
pub fn canonical_json(value: &Value) -> String {
    let mut out = String::new();
    write_canonical(value, &mut out);
    out
}

fn write_canonical(value: &Value, out: &mut String) {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
            out.push('{');
            for (i, (key, item)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&json_string(key));
                out.push(':');
                write_canonical(item, out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_canonical(item, out);
            }
            out.push(']');
        }
        Value::Number(n) => match n.as_f64() {
            // JSON.stringify writes an integral float without a fraction (1.0 -> 1).
            Some(f) if n.is_f64() && f.fract() == 0.0 && f.abs() < 1e21 => {
                out.push_str(&format!("{f:.0}"))
            }
            _ => out.push_str(&n.to_string()),
        },
        scalar => out.push_str(&scalar.to_string()),
    }
}

/// `name + "(" + canonical JSON of args + ")"`.
pub fn signature(name: &str, args: &Value) -> String {
    format!("{name}({})", canonical_json(args))
}

/// What [`RetryLoopBreaker::record`] decided about one call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallRecord {
    pub signature: String,
    /// Consecutive identical calls including this one.
    pub repeats: u64,
}

/// Counts consecutive identical tool calls and blocks the one past the threshold.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RetryLoopBreaker {
    threshold: u32,
    last_signature: Option<String>,
    repeats: u64,
}

impl Default for RetryLoopBreaker {
    fn default() -> Self {
        Self::new(DEFAULT_THRESHOLD)
    }
}

impl RetryLoopBreaker {
    pub fn new(threshold: u32) -> Self {
        RetryLoopBreaker {
            threshold,
            last_signature: None,
            repeats: 0,
        }
    }

    pub fn threshold(&self) -> u32 {
        self.threshold
    }

    /// Changes the threshold and keeps the current streak, as changing the
    /// SDK object's `threshold` field would.
    pub fn set_threshold(&mut self, threshold: u32) {
        self.threshold = threshold;
    }

    /// The signature of the current streak, if any.
    pub fn last_signature(&self) -> Option<&str> {
        self.last_signature.as_deref()
    }

    /// Consecutive identical calls in the current streak (0 after a reset).
    pub fn repeats(&self) -> u64 {
        self.repeats
    }

    /// Records a call: the same signature as the last call extends the streak,
    /// any other starts a new one. Fails when the streak exceeds the
    /// threshold; the streak is not reset by failing.
    pub fn record(&mut self, name: &str, args: &Value) -> Result<CallRecord, RetryLoopError> {
        let sig = signature(name, args);
        if self.last_signature.as_deref() == Some(sig.as_str()) {
            self.repeats += 1;
        } else {
            self.last_signature = Some(sig.clone());
            self.repeats = 1;
        }
        if self.repeats > u64::from(self.threshold) {
            return Err(RetryLoopError {
                signature: sig,
                repeats: self.repeats,
                threshold: self.threshold,
            });
        }
        Ok(CallRecord {
            signature: sig,
            repeats: self.repeats,
        })
    }

    /// Records the call, then runs `f` only if the call was not blocked.
    pub fn guard<T>(
        &mut self,
        name: &str,
        args: &Value,
        f: impl FnOnce() -> T,
    ) -> Result<T, RetryLoopError> {
        self.record(name, args)?;
        Ok(f())
    }

    /// Takes back the last record of this call when it is the streak's (a
    /// call that was refused before it ran, as for a login the server
    /// needs, is not a repeat: its retry is not a loop).
    pub fn take_back(&mut self, name: &str, args: &Value) {
        if self.repeats == 0
            || self.last_signature.as_deref() != Some(signature(name, args).as_str())
        {
            return;
        }
        self.repeats -= 1;
        if self.repeats == 0 {
            self.last_signature = None;
        }
    }

    /// Clears the streak.
    pub fn reset(&mut self) {
        self.last_signature = None;
        self.repeats = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    #[test]
    fn sdk_interrupts_after_threshold() {
        let mut b = RetryLoopBreaker::new(3);
        let args = json!({"id": 42});
        for i in 1..=3 {
            assert_eq!(b.record("fetch_order", &args).unwrap().repeats, i);
        }
        let err = b.record("fetch_order", &args).unwrap_err();
        assert_eq!(err.repeats, 4);
        assert_eq!(err.threshold, 3);
        assert_eq!(err.signature, r#"fetch_order({"id":42})"#);
        assert_eq!(
            err.to_string(),
            r#"retry loop interrupted: tool call "fetch_order({\"id\":42})" repeated 4 times (threshold 3)"#
        );
        // It does not reset on firing.
        assert_eq!(b.record("fetch_order", &args).unwrap_err().repeats, 5);
    }

    #[test]
    fn sdk_default_fires_once_in_ten() {
        let mut b = RetryLoopBreaker::default();
        let mut fired = 0;
        for _ in 0..10 {
            if b.record("loop_tool", &json!({"same": true})).is_err() {
                fired += 1;
                break;
            }
        }
        assert_eq!(fired, 1);
        assert_eq!(b.repeats(), 4);
    }

    #[test]
    fn sdk_different_calls_reset_and_key_order_ignored() {
        let mut b = RetryLoopBreaker::new(2);
        b.record("a", &json!({"x": 1})).unwrap();
        b.record("a", &json!({"x": 1})).unwrap();
        b.record("a", &json!({"x": 2})).unwrap();
        b.record("a", &json!({"x": 2})).unwrap();
        b.reset();
        assert_eq!(b.repeats(), 0);
        assert_eq!(b.last_signature(), None);
        b.record("a", &json!({"x": 1, "y": 2})).unwrap();
        b.record("a", &json!({"y": 2, "x": 1})).unwrap();
        assert!(b.record("a", &json!({"x": 1, "y": 2})).is_err());
    }

    #[test]
    fn sdk_guard_does_not_run_blocked_callback() {
        let mut b = RetryLoopBreaker::new(1);
        let mut calls = 0;
        assert_eq!(
            b.guard("t", &json!({"a": 1}), || {
                calls += 1;
                "ok"
            }),
            Ok("ok")
        );
        assert!(
            b.guard("t", &json!({"a": 1}), || {
                calls += 1;
                "ok"
            })
            .is_err()
        );
        assert_eq!(calls, 1);
    }

    #[test]
    fn a_call_taken_back_is_not_a_repeat() {
        let mut b = RetryLoopBreaker::new(1);
        let args = json!({"id": 1});
        b.record("t", &args).unwrap();
        b.take_back("t", &args);
        assert_eq!((b.repeats(), b.last_signature()), (0, None));
        b.record("t", &args).unwrap();
        // Another call's take-back leaves the streak as it is.
        b.take_back("u", &args);
        assert!(b.record("t", &args).is_err());
    }

    #[test]
    fn thresholds_are_the_sdks_every_whole_number_from_zero() {
        assert_eq!(parse_threshold("--threshold", "0"), Ok(0));
        assert_eq!(parse_threshold("--threshold", " 3 "), Ok(3));
        assert_eq!(parse_threshold("--threshold", "4294967295"), Ok(u32::MAX));
        for bad in ["-1", "2.5", "three", "", "4294967296"] {
            let e = parse_threshold("--threshold", bad).unwrap_err();
            assert_eq!(
                e.to_string(),
                format!(
                    "--threshold must be a whole number from 0 to 4,294,967,295 (0 blocks every call), not {bad:?}"
                )
            );
        }
        // Threshold 0, as the SDK has it: the first call is blocked.
        let mut b = RetryLoopBreaker::new(0);
        let e = b.record("x", &serde_json::json!({})).unwrap_err();
        assert_eq!((e.repeats, e.threshold), (1, 0));
    }

    #[test]
    fn threshold_change_keeps_streak() {
        let mut b = RetryLoopBreaker::new(5);
        for _ in 0..3 {
            b.record("t", &json!({})).unwrap();
        }
        b.set_threshold(2);
        assert_eq!(b.repeats(), 3);
        assert_eq!(b.record("t", &json!({})).unwrap_err().repeats, 4);
    }

    #[test]
    fn canonical_json_sorts_nested_keys_by_code_point() {
        let v = json!({"b": [{"z": 1, "a": null}], "a": "é", "B": true, "é": 1.5});
        assert_eq!(
            canonical_json(&v),
            r#"{"B":true,"a":"é","b":[{"a":null,"z":1}],"é":1.5}"#
        );
        assert_eq!(signature("t", &json!(null)), "t(null)");
        assert_eq!(
            signature("t", &json!({"n": 1.0, "m": -2.0})),
            r#"t({"m":-2,"n":1})"#
        );
        assert_eq!(signature("t", &json!("x\"y")), r#"t("x\"y")"#);
    }

    fn arb_json() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            "[a-zé\"\\\\]{0,6}".prop_map(Value::String),
        ];
        leaf.prop_recursive(3, 24, 4, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                proptest::collection::btree_map("[a-cé]{1,3}", inner, 0..4)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    /// The same object with its keys inserted in reverse order, recursively.
    fn reversed(v: &Value) -> Value {
        match v {
            Value::Object(m) => {
                let mut out = serde_json::Map::new();
                for (k, x) in m.iter().rev() {
                    out.insert(k.clone(), reversed(x));
                }
                Value::Object(out)
            }
            Value::Array(a) => Value::Array(a.iter().map(reversed).collect()),
            other => other.clone(),
        }
    }

    proptest! {
        #[test]
        fn key_order_never_matters(v in arb_json()) {
            prop_assert_eq!(signature("t", &v), signature("t", &reversed(&v)));
            // Canonical JSON is valid JSON of the same value.
            let back: Value = serde_json::from_str(&canonical_json(&v)).unwrap();
            prop_assert_eq!(back, v);
        }

        #[test]
        fn first_failure_is_call_threshold_plus_one(threshold in 0u32..12, v in arb_json()) {
            let mut b = RetryLoopBreaker::new(threshold);
            let mut ran = 0u32;
            let mut first_fail = None;
            for call in 1..=threshold + 3 {
                match b.guard("tool", &v, || ran += 1) {
                    Ok(()) => prop_assert!(first_fail.is_none(), "passed after failing"),
                    Err(e) => {
                        prop_assert_eq!(e.repeats, u64::from(call));
                        prop_assert_eq!(e.threshold, threshold);
                        first_fail.get_or_insert(call);
                    }
                }
            }
            prop_assert_eq!(first_fail, Some(threshold + 1));
            prop_assert_eq!(ran, threshold, "guard never runs a blocked call");
        }

        #[test]
        fn any_different_call_resets(threshold in 1u32..6, calls in proptest::collection::vec(0u8..3, 1..40)) {
            // Calls alternate among three distinct signatures; a streak is the run
            // of equal consecutive calls, and only a run longer than the
            // threshold fails.
            let mut b = RetryLoopBreaker::new(threshold);
            let mut run = 0u64;
            let mut prev = None;
            for c in calls {
                run = if prev == Some(c) { run + 1 } else { 1 };
                prev = Some(c);
                let r = b.record("t", &json!({"c": c}));
                prop_assert_eq!(r.is_err(), run > u64::from(threshold));
                prop_assert_eq!(b.repeats(), run);
            }
        }
    }
}
