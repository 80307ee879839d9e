//! The three counts a person sets, each its own type, parsed once where it
//! enters (a flag, a config file's key, a request's JSON) and carried down
//! as that type, so no layer below checks it again:
//!
//! - [`MaxTools`]: a cap on the tools an answer holds, at least 1. Both
//!   `max_tools` and `max_loaded_tools` are caps of this kind (a search
//!   sends `max_loaded_tools` as its `max_tools` when none is given); each
//!   is refused with the SDK's message for its own name.
//! - [`InitialToolCount`]: how many tools beside the always-load ones the
//!   deferred initial set holds, 0 or more.
//!
//! [`LIMITS`] names every bound on them with its reason.

use std::fmt;
use std::num::NonZeroU64;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

use super::SelectError;

/// A cap on the tools an answer holds (`max_tools`, `max_loaded_tools`):
/// a whole number, at least 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(transparent)]
pub struct MaxTools(NonZeroU64);

/// The initial set's count beside the always-load tools
/// (`initial_tool_count`): a whole number, 0 or more.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default, Serialize)]
#[serde(transparent)]
pub struct InitialToolCount(u64);

/// `max_tools` when a request gives none (docs/wire.md §4: server default
/// 8), for every front end: the service, the gateway's `search_tools`, the
/// explorer and the CLI.
pub const DEFAULT_MAX_TOOLS: MaxTools = MaxTools::of(8);

/// The largest `max_tools` the gateway takes.
pub const GATEWAY_MAX_TOOLS: MaxTools = MaxTools::of(64);

/// The SDK's default `initial_tool_count`.
pub const DEFAULT_INITIAL_TOOL_COUNT: InitialToolCount = InitialToolCount(8);

/// A bound on a count, named, with why it is what it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limit {
    pub name: &'static str,
    pub value: u64,
    pub reason: &'static str,
}

/// Every bound on the counts, in one table.
pub const LIMITS: [Limit; 4] = [
    Limit {
        name: "DEFAULT_MAX_TOOLS",
        value: DEFAULT_MAX_TOOLS.get(),
        reason: "the service's max_tools when a request gives none (the contract's server default 8), for every front end",
    },
    Limit {
        name: "GATEWAY_MAX_TOOLS",
        value: GATEWAY_MAX_TOOLS.get(),
        reason: "the most tools the gateway's search_tools answers with: every answer's schemas go into the host's context",
    },
    Limit {
        name: "DEFAULT_INITIAL_TOOL_COUNT",
        value: DEFAULT_INITIAL_TOOL_COUNT.get(),
        reason: "the SDK's initial_tool_count: tools of the deferred initial set beside the always-load ones",
    },
    Limit {
        name: "MIN_MAX_TOOLS",
        value: 1,
        reason: "a cap of 0 answers nothing; the SDK refuses it (max_tools must be a positive integer)",
    },
];

impl MaxTools {
    /// The least cap.
    pub const MIN: MaxTools = MaxTools::of(1);

    /// A cap known to be positive, for a constant (0 fails the build).
    pub const fn of(n: u64) -> MaxTools {
        match NonZeroU64::new(n) {
            Some(n) => MaxTools(n),
            None => panic!("a cap is at least 1"),
        }
    }

    /// `n`, if it is a cap (at least 1).
    pub const fn new(n: u64) -> Option<MaxTools> {
        match NonZeroU64::new(n) {
            Some(n) => Some(MaxTools(n)),
            None => None,
        }
    }

    pub const fn get(self) -> u64 {
        self.0.get()
    }

    /// The cap as a count of tools in memory.
    pub fn to_usize(self) -> usize {
        usize::try_from(self.get()).unwrap_or(usize::MAX)
    }

    /// The least cap with room for `n` tools: `n`, or 1 when `n` is 0 (a
    /// cap is at least 1).
    pub fn covering(n: usize) -> MaxTools {
        MaxTools::new(u64::try_from(n).unwrap_or(u64::MAX)).unwrap_or(MaxTools::MIN)
    }

    /// The one check of a cap as a number: whole and at least 1, else
    /// `refused` (the SDK's message for the setting that carries it:
    /// [`SelectError::MaxTools`] or [`SelectError::MaxLoadedTools`]).
    pub fn checked(n: Option<i64>, refused: SelectError) -> Result<MaxTools, SelectError> {
        n.and_then(|n| u64::try_from(n).ok())
            .and_then(MaxTools::new)
            .ok_or(refused)
    }

    /// `max_tools` as a request's JSON carries it: a whole number at least
    /// 1 (`3`, not `"3"` nor `1.5`).
    pub fn from_json(value: &Value) -> Result<MaxTools, SelectError> {
        value
            .as_u64()
            .and_then(MaxTools::new)
            .ok_or(SelectError::MaxTools)
    }

    /// The cap's rule against a catalog: at least `always`, the always-load
    /// tools every answer carries.
    pub fn room_for(self, always: u64) -> Result<MaxTools, SelectError> {
        if self.get() < always {
            Err(SelectError::MaxToolsBelowAlwaysLoad {
                max_tools: self,
                always,
            })
        } else {
            Ok(self)
        }
    }

    /// At most `most` (a front end's own bound, e.g. [`GATEWAY_MAX_TOOLS`]),
    /// else the cap asked.
    pub fn at_most(self, most: MaxTools) -> Result<MaxTools, u64> {
        if self <= most {
            Ok(self)
        } else {
            Err(self.get())
        }
    }

    /// The cap one step up or down (`step` may be negative), never below 1.
    pub fn stepped(self, step: i64) -> MaxTools {
        let n = i128::from(self.get()) + i128::from(step);
        MaxTools::new(u64::try_from(n.max(1)).unwrap_or(u64::MAX)).unwrap_or(self)
    }
}

impl InitialToolCount {
    pub const fn new(n: u64) -> InitialToolCount {
        InitialToolCount(n)
    }

    pub const fn get(self) -> u64 {
        self.0
    }

    pub fn to_usize(self) -> usize {
        usize::try_from(self.0).unwrap_or(usize::MAX)
    }

    /// The one check: a whole number, 0 or more, else the SDK's message.
    pub fn checked(n: Option<i64>) -> Result<InitialToolCount, SelectError> {
        n.and_then(|n| u64::try_from(n).ok())
            .map(InitialToolCount)
            .ok_or(SelectError::InitialToolCount)
    }

    /// The count one step up or down (`step` may be negative), never below 0.
    pub fn stepped(self, step: i64) -> InitialToolCount {
        let n = i128::from(self.0) + i128::from(step);
        InitialToolCount(u64::try_from(n.max(0)).unwrap_or(u64::MAX))
    }
}

/// A whole number as the SDK's `isinstance(x, int)` would see it; anything
/// else (text, fractions, out of range) is `None`.
pub fn whole_number(text: &str) -> Option<i64> {
    text.trim().parse::<i64>().ok()
}

/// A flag's `max_tools`.
impl FromStr for MaxTools {
    type Err = SelectError;
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        MaxTools::checked(whole_number(text), SelectError::MaxTools)
    }
}

/// A flag's `initial_tool_count`.
impl FromStr for InitialToolCount {
    type Err = SelectError;
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        InitialToolCount::checked(whole_number(text))
    }
}

/// A config file's whole number ([`crate::file_value::positive`] says what
/// it must be when it is not).
impl TryFrom<i128> for MaxTools {
    type Error = ();
    fn try_from(n: i128) -> Result<Self, ()> {
        u64::try_from(n).ok().and_then(MaxTools::new).ok_or(())
    }
}

/// A config file's whole number ([`crate::file_value::count`]).
impl TryFrom<i128> for InitialToolCount {
    type Error = ();
    fn try_from(n: i128) -> Result<Self, ()> {
        u64::try_from(n).map(InitialToolCount).map_err(|_| ())
    }
}

impl<'de> Deserialize<'de> for MaxTools {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let n = u64::deserialize(d)?;
        MaxTools::new(n).ok_or_else(|| serde::de::Error::custom(SelectError::MaxTools))
    }
}

impl<'de> Deserialize<'de> for InitialToolCount {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        u64::deserialize(d).map(InitialToolCount)
    }
}

impl fmt::Display for MaxTools {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl fmt::Display for InitialToolCount {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn one_parser_from_a_flag_a_number_and_the_wire() {
        assert_eq!("3".parse::<MaxTools>().map(MaxTools::get), Ok(3));
        assert_eq!(" 3 ".parse::<MaxTools>().map(MaxTools::get), Ok(3));
        for bad in ["0", "-1", "2.5", "five", ""] {
            assert_eq!(
                bad.parse::<MaxTools>().unwrap_err().to_string(),
                "max_tools must be a positive integer",
                "{bad:?}"
            );
        }
        assert_eq!(
            MaxTools::checked(Some(0), SelectError::MaxLoadedTools)
                .unwrap_err()
                .to_string(),
            "max_loaded_tools must be a positive integer"
        );
        assert_eq!(MaxTools::from_json(&json!(2)).map(MaxTools::get), Ok(2));
        for bad in [json!(0), json!(-1), json!("3"), json!(1.5), json!(null)] {
            assert_eq!(
                MaxTools::from_json(&bad),
                Err(SelectError::MaxTools),
                "{bad}"
            );
        }
        assert_eq!("0".parse::<InitialToolCount>().map(|c| c.get()), Ok(0));
        assert_eq!(
            "-1".parse::<InitialToolCount>().unwrap_err().to_string(),
            "initial_tool_count must be a non-negative integer"
        );
        assert_eq!(MaxTools::try_from(0i128), Err(()));
        assert_eq!(InitialToolCount::try_from(-1i128), Err(()));
    }

    #[test]
    fn one_check_against_the_always_load_tools_and_a_front_ends_bound() {
        let two = MaxTools::new(2).unwrap();
        assert_eq!(two.room_for(2), Ok(two));
        assert_eq!(
            two.room_for(3),
            Err(SelectError::MaxToolsBelowAlwaysLoad {
                max_tools: two,
                always: 3
            })
        );
        assert_eq!(
            GATEWAY_MAX_TOOLS.at_most(GATEWAY_MAX_TOOLS),
            Ok(GATEWAY_MAX_TOOLS)
        );
        assert_eq!(
            MaxTools::new(65).unwrap().at_most(GATEWAY_MAX_TOOLS),
            Err(65)
        );
        assert_eq!(two.stepped(-5).get(), 1);
        assert_eq!(two.stepped(1).get(), 3);
        assert_eq!(MaxTools::covering(0), MaxTools::MIN);
        assert_eq!(MaxTools::covering(2), two);
        assert_eq!(two.to_usize(), 2);
        assert_eq!(InitialToolCount::new(1).stepped(-3).get(), 0);
    }

    #[test]
    fn the_table_names_every_limit_with_its_value() {
        let value = |name: &str| LIMITS.iter().find(|l| l.name == name).map(|l| l.value);
        assert_eq!(value("DEFAULT_MAX_TOOLS"), Some(8));
        assert_eq!(value("GATEWAY_MAX_TOOLS"), Some(64));
        assert_eq!(value("DEFAULT_INITIAL_TOOL_COUNT"), Some(8));
        assert_eq!(value("MIN_MAX_TOOLS"), Some(1));
        assert!(LIMITS.iter().all(|l| !l.reason.is_empty()));
        assert!(DEFAULT_MAX_TOOLS <= GATEWAY_MAX_TOOLS);
    }
}
