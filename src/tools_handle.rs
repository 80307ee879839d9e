//! The tools handle (docs/wire.md §2): strategy `all` or `deferred`, the initial
//! set, and the default search cap, with the SDK's checks in the SDK's order
//! and with its exact messages.

use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

use serde::{Deserialize, Deserializer, Serialize};

use crate::catalog::{Catalog, Tool};

/// The SDK's default `initial_tool_count`.
pub const DEFAULT_INITIAL_TOOL_COUNT: i64 = 8;

/// `max_tools` when a request gives none (docs/wire.md §4: server default 8),
/// for every front end: the service, the gateway's `search_tools`, the
/// explorer and the CLI.
pub const DEFAULT_MAX_TOOLS: u64 = 8;

/// `all` sends the whole catalog; `deferred` sends the always-load tools plus
/// a few others and searches for the rest.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Strategy {
    #[default]
    All,
    Deferred,
}

impl Strategy {
    /// Every strategy, in the SDK's order.
    pub const ALL: [Strategy; 2] = [Strategy::All, Strategy::Deferred];

    pub fn as_str(self) -> &'static str {
        match self {
            Strategy::All => "all",
            Strategy::Deferred => "deferred",
        }
    }

    pub fn toggled(self) -> Self {
        match self {
            Strategy::All => Strategy::Deferred,
            Strategy::Deferred => Strategy::All,
        }
    }
}

/// A config file names a strategy.
impl crate::file_value::Named for Strategy {
    const ALL: &'static [Self] = &Strategy::ALL;
}

impl fmt::Display for Strategy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Strategy {
    type Err = SelectError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "all" => Ok(Strategy::All),
            "deferred" => Ok(Strategy::Deferred),
            _ => Err(SelectError::Strategy),
        }
    }
}

/// From its name, with the SDK's message for any other value.
impl<'de> Deserialize<'de> for Strategy {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = String::deserialize(deserializer)?;
        name.parse().map_err(serde::de::Error::custom)
    }
}

/// The SDK's validation errors, with its exact messages (Python spelling).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum SelectError {
    #[error("strategy must be all or deferred")]
    Strategy,
    #[error("initial_tool_count must be a non-negative integer")]
    InitialToolCount,
    #[error("max_loaded_tools must be a positive integer")]
    MaxLoadedTools,
    #[error("max_loaded_tools must be at least the always_load tool count")]
    MaxLoadedBelowAlwaysLoad,
    #[error("max_tools must be a positive integer")]
    MaxTools,
    /// The service's rule (every search would fail with
    /// `max_tools_below_always_load`).
    #[error(
        "max_tools is {max_tools} but the catalog has {always} always-load tools, which are always loaded; max_tools must be at least {always}"
    )]
    MaxToolsBelowAlwaysLoad { max_tools: u64, always: u64 },
    /// The same rule, reached through `max_loaded_tools`, which a search
    /// sends as its cap when `max_tools` is not set.
    #[error(
        "max_loaded_tools is {max_loaded} and every search sends it as max_tools, but the catalog has {always} always-load tools, which are always loaded; it must be at least {always}"
    )]
    CapBelowAlwaysLoad { max_loaded: u64, always: u64 },
}

/// The options of a handle before validation, as a user states them. Integers
/// are signed so that a negative value reaches the SDK's check and message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HandleOptions {
    pub strategy: Strategy,
    pub initial_tool_count: i64,
    pub max_loaded_tools: Option<i64>,
}

impl HandleOptions {
    /// The SDK's checks of the counts alone, in its order (the always-load
    /// check needs the catalog): `initial_tool_count` and
    /// `max_loaded_tools` as counts.
    pub fn counts(&self) -> Result<(u64, Option<u64>), SelectError> {
        let initial =
            u64::try_from(self.initial_tool_count).map_err(|_| SelectError::InitialToolCount)?;
        let max = match self.max_loaded_tools {
            None => None,
            Some(m) if m >= 1 => Some(m as u64),
            Some(_) => return Err(SelectError::MaxLoadedTools),
        };
        Ok((initial, max))
    }
}

impl Default for HandleOptions {
    fn default() -> Self {
        HandleOptions {
            strategy: Strategy::All,
            initial_tool_count: DEFAULT_INITIAL_TOOL_COUNT,
            max_loaded_tools: None,
        }
    }
}

/// A validated selection over a catalog: the SDK's `tools(...)` handle.
#[derive(Debug, Clone)]
pub struct ToolsHandle {
    catalog: Arc<Catalog>,
    strategy: Strategy,
    initial_tool_count: u64,
    max_loaded_tools: Option<u64>,
    initial: Vec<usize>,
}

impl ToolsHandle {
    /// Validates the options (strategy is already typed; then
    /// `initial_tool_count`, `max_loaded_tools`, and for `deferred` the
    /// always-load count against the cap) and computes the initial set.
    pub fn new(catalog: Arc<Catalog>, options: &HandleOptions) -> Result<Self, SelectError> {
        let (initial_tool_count, max_loaded_tools) = options.counts()?;
        let initial = match options.strategy {
            Strategy::All => (0..catalog.len()).collect(),
            Strategy::Deferred => {
                let always: Vec<usize> = (0..catalog.len())
                    .filter(|&i| catalog.tools()[i].always_load)
                    .collect();
                let always_count = always.len() as u64;
                if let Some(max) = max_loaded_tools
                    && always_count > max
                {
                    return Err(SelectError::MaxLoadedBelowAlwaysLoad);
                }
                let lazy_limit = match max_loaded_tools {
                    None => initial_tool_count,
                    Some(max) => initial_tool_count.min(max - always_count),
                };
                let lazy = (0..catalog.len())
                    .filter(|&i| !catalog.tools()[i].always_load)
                    .take(usize::try_from(lazy_limit).unwrap_or(usize::MAX));
                always.into_iter().chain(lazy).collect()
            }
        };
        Ok(ToolsHandle {
            catalog,
            strategy: options.strategy,
            initial_tool_count,
            max_loaded_tools,
            initial,
        })
    }

    pub fn catalog(&self) -> &Arc<Catalog> {
        &self.catalog
    }

    pub fn strategy(&self) -> Strategy {
        self.strategy
    }

    pub fn initial_tool_count(&self) -> u64 {
        self.initial_tool_count
    }

    pub fn max_loaded_tools(&self) -> Option<u64> {
        self.max_loaded_tools
    }

    /// Catalog indices of the initial set, in the SDK's order.
    pub fn initial_indices(&self) -> &[usize] {
        &self.initial
    }

    /// How many tools of the initial set are sent besides the always-load
    /// ones (`initial_tool_count`, or fewer where `max_loaded_tools`
    /// leaves less room; every other tool under strategy `all`).
    pub fn initial_besides_always_load(&self) -> usize {
        self.initial
            .iter()
            .filter(|&&i| !self.catalog.tools()[i].always_load)
            .count()
    }

    /// The initial set, in the SDK's order.
    pub fn initial_tools(&self) -> impl Iterator<Item = &Tool> + '_ {
        self.initial.iter().map(|&i| &self.catalog.tools()[i])
    }

    pub fn initial_names(&self) -> Vec<&str> {
        self.initial_tools().map(|t| t.name.as_str()).collect()
    }

    pub fn is_initial(&self, index: usize) -> bool {
        self.initial.contains(&index)
    }

    /// The cap a search sends: the per-call `max_tools` if given (it must be
    /// positive), else `max_loaded_tools`, else none (the service default).
    pub fn search_cap(&self, max_tools: Option<i64>) -> Result<Option<u64>, SelectError> {
        self.sent_cap(max_tools)
    }

    /// [`ToolsHandle::search_cap`], checked as the service checks it: a cap
    /// below the always-load count fails every search.
    pub fn checked_search_cap(&self, max_tools: Option<i64>) -> Result<Option<u64>, SelectError> {
        let cap = self.sent_cap(max_tools)?;
        let always = self
            .catalog
            .tools()
            .iter()
            .filter(|t| t.always_load)
            .count() as u64;
        match cap {
            Some(c) if max_tools.is_some() => check_max_tools(c, always).map(Some),
            Some(c) if c < always => Err(SelectError::CapBelowAlwaysLoad {
                max_loaded: c,
                always,
            }),
            _ => Ok(cap),
        }
    }

    fn sent_cap(&self, max_tools: Option<i64>) -> Result<Option<u64>, SelectError> {
        match max_tools {
            Some(m) if m >= 1 => Ok(Some(m as u64)),
            Some(_) => Err(SelectError::MaxTools),
            None => Ok(self.max_loaded_tools),
        }
    }
}

/// The cap's rule, said once for the handle and the service: a
/// `max_tools` given is positive and at least `always`, the always-load
/// tools every answer carries.
pub fn check_max_tools(max_tools: u64, always: u64) -> Result<u64, SelectError> {
    if max_tools == 0 {
        Err(SelectError::MaxTools)
    } else if max_tools < always {
        Err(SelectError::MaxToolsBelowAlwaysLoad { max_tools, always })
    } else {
        Ok(max_tools)
    }
}

impl SelectError {
    /// The wire's error code for a cap a request gives
    /// ([`check_max_tools`]); `invalid_request` for the others, which a
    /// request cannot carry.
    pub fn code(self) -> &'static str {
        match self {
            SelectError::MaxTools => "invalid_max_tools",
            SelectError::MaxToolsBelowAlwaysLoad { .. } => "max_tools_below_always_load",
            SelectError::Strategy
            | SelectError::InitialToolCount
            | SelectError::MaxLoadedTools
            | SelectError::MaxLoadedBelowAlwaysLoad
            | SelectError::CapBelowAlwaysLoad { .. } => "invalid_request",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::{any, prop_assert, prop_assert_eq, proptest};

    fn tool(name: &str, always: bool) -> Tool {
        let mut t = Tool::new(name, name);
        t.always_load = always;
        t
    }

    fn catalog(tools: Vec<Tool>) -> Arc<Catalog> {
        Arc::new(Catalog::new("t", tools).unwrap())
    }

    fn opts(strategy: Strategy, initial: i64, max: Option<i64>) -> HandleOptions {
        HandleOptions {
            strategy,
            initial_tool_count: initial,
            max_loaded_tools: max,
        }
    }

    #[test]
    fn sdk_deferred_counts_and_mandatory_tools() {
        // SDK: [always, lazy1, lazy2], initial 8, max 2 -> [always, lazy1].
        let c = catalog(vec![
            tool("always", true),
            tool("lazy1", false),
            tool("lazy2", false),
        ]);
        let h = ToolsHandle::new(c.clone(), &opts(Strategy::Deferred, 8, Some(2))).unwrap();
        assert_eq!(h.initial_names(), ["always", "lazy1"]);
        assert_eq!("unknown".parse::<Strategy>(), Err(SelectError::Strategy));
        assert_eq!(
            ToolsHandle::new(c.clone(), &opts(Strategy::All, -1, None)).unwrap_err(),
            SelectError::InitialToolCount
        );
        assert_eq!(h.search_cap(Some(0)), Err(SelectError::MaxTools));
        let two = catalog(vec![tool("always", true), tool("always2", true)]);
        assert_eq!(
            ToolsHandle::new(two, &opts(Strategy::Deferred, 8, Some(1))).unwrap_err(),
            SelectError::MaxLoadedBelowAlwaysLoad
        );
    }

    #[test]
    fn sdk_default_cap_and_override() {
        let c = catalog(vec![tool("safe", false)]);
        let h = ToolsHandle::new(c.clone(), &opts(Strategy::Deferred, 8, Some(2))).unwrap();
        assert_eq!(h.search_cap(None), Ok(Some(2)));
        assert_eq!(h.search_cap(Some(1)), Ok(Some(1)));
        assert_eq!(
            ToolsHandle::new(c.clone(), &opts(Strategy::All, 8, Some(0))).unwrap_err(),
            SelectError::MaxLoadedTools
        );
        let uncapped = ToolsHandle::new(c, &HandleOptions::default()).unwrap();
        assert_eq!(uncapped.search_cap(None), Ok(None));
    }

    #[test]
    fn messages_are_the_sdks() {
        assert_eq!(
            SelectError::Strategy.to_string(),
            "strategy must be all or deferred"
        );
        assert_eq!(
            SelectError::InitialToolCount.to_string(),
            "initial_tool_count must be a non-negative integer"
        );
        assert_eq!(
            SelectError::MaxLoadedTools.to_string(),
            "max_loaded_tools must be a positive integer"
        );
        assert_eq!(
            SelectError::MaxLoadedBelowAlwaysLoad.to_string(),
            "max_loaded_tools must be at least the always_load tool count"
        );
        assert_eq!(
            SelectError::MaxTools.to_string(),
            "max_tools must be a positive integer"
        );
    }

    #[test]
    fn always_load_comes_first() {
        // docs/wire.md §2: [lazy1, always] gives [always, lazy1].
        let c = catalog(vec![tool("lazy1", false), tool("always", true)]);
        let h = ToolsHandle::new(c, &opts(Strategy::Deferred, 8, None)).unwrap();
        assert_eq!(h.initial_names(), ["always", "lazy1"]);
        assert_eq!(h.initial_indices(), [1, 0]);
        assert!(h.is_initial(0) && h.is_initial(1));
    }

    #[test]
    fn strategy_all_is_whole_catalog_uncapped() {
        let c = catalog((0..20).map(|i| tool(&format!("t{i}"), i == 7)).collect());
        let h = ToolsHandle::new(c, &opts(Strategy::All, 2, Some(3))).unwrap();
        assert_eq!(h.initial_indices().len(), 20);
        assert_eq!(h.initial_indices(), (0..20).collect::<Vec<_>>());
    }

    #[test]
    fn checks_run_in_sdk_order() {
        // Both initial_tool_count and max_loaded_tools are bad: the first check wins.
        let c = catalog(vec![tool("a", true), tool("b", true)]);
        assert_eq!(
            ToolsHandle::new(c.clone(), &opts(Strategy::Deferred, -1, Some(0))).unwrap_err(),
            SelectError::InitialToolCount
        );
        // max 0 is reported as not positive before the always-load comparison.
        assert_eq!(
            ToolsHandle::new(c.clone(), &opts(Strategy::Deferred, 0, Some(0))).unwrap_err(),
            SelectError::MaxLoadedTools
        );
        // Strategy all never compares the cap with the always-load count.
        assert!(ToolsHandle::new(c, &opts(Strategy::All, 0, Some(1))).is_ok());
    }

    #[test]
    fn the_initial_set_besides_always_load_is_what_the_cap_leaves() {
        let c = catalog(vec![
            tool("always", true),
            tool("lazy1", false),
            tool("lazy2", false),
            tool("lazy3", false),
        ]);
        let capped = ToolsHandle::new(c.clone(), &opts(Strategy::Deferred, 8, Some(3))).unwrap();
        assert_eq!(capped.initial_besides_always_load(), 2, "the cap leaves 2");
        let counted = ToolsHandle::new(c.clone(), &opts(Strategy::Deferred, 1, None)).unwrap();
        assert_eq!(counted.initial_besides_always_load(), 1);
        let all = ToolsHandle::new(c, &opts(Strategy::All, 0, None)).unwrap();
        assert_eq!(
            all.initial_besides_always_load(),
            3,
            "strategy all sends them all"
        );
    }

    #[test]
    fn initial_zero_keeps_only_always_load() {
        let c = catalog(vec![tool("a", false), tool("b", true), tool("c", false)]);
        let h = ToolsHandle::new(c, &opts(Strategy::Deferred, 0, None)).unwrap();
        assert_eq!(h.initial_names(), ["b"]);
    }

    proptest! {
        #[test]
        fn deferred_invariants(
            flags in proptest::collection::vec(any::<bool>(), 1..60),
            initial in 0i64..20,
            max in proptest::option::of(1i64..30),
        ) {
            let c = catalog(flags.iter().enumerate().map(|(i, &a)| tool(&format!("t{i}"), a)).collect());
            let always: Vec<usize> = flags.iter().enumerate().filter(|(_, a)| **a).map(|(i, _)| i).collect();
            match ToolsHandle::new(c.clone(), &opts(Strategy::Deferred, initial, max)) {
                Err(e) => {
                    prop_assert_eq!(e, SelectError::MaxLoadedBelowAlwaysLoad);
                    prop_assert!(always.len() as i64 > max.unwrap());
                }
                Ok(h) => {
                    let set = h.initial_indices();
                    // Every always-load tool is there, first, in catalog order.
                    prop_assert_eq!(&set[..always.len()], &always[..]);
                    // The rest are the first non-always tools in catalog order.
                    let lazy: Vec<usize> = (0..flags.len()).filter(|&i| !flags[i]).collect();
                    let rest = &set[always.len()..];
                    prop_assert_eq!(rest, &lazy[..rest.len()]);
                    // Never over the cap, never over always + initial.
                    if let Some(m) = max { prop_assert!(set.len() as i64 <= m); }
                    prop_assert!(rest.len() as i64 <= initial);
                    // As many as allowed.
                    let allowed = match max { Some(m) => initial.min(m - always.len() as i64), None => initial };
                    prop_assert_eq!(rest.len(), (allowed as usize).min(lazy.len()));
                    // No duplicates.
                    let mut sorted = set.to_vec(); sorted.sort(); sorted.dedup();
                    prop_assert_eq!(sorted.len(), set.len());
                }
            }
        }
    }
}
