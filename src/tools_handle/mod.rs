//! The tools handle (docs/wire.md §2): strategy `all` or `deferred`, the initial
//! set, and the default search cap, with the SDK's checks in the SDK's order
//! and with its exact messages.

use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

use serde::{Deserialize, Deserializer, Serialize};

use crate::catalog::{Catalog, Tool};

pub mod limits;

pub use limits::{
    DEFAULT_INITIAL_TOOL_COUNT, DEFAULT_MAX_TOOLS, GATEWAY_MAX_TOOLS, InitialToolCount, LIMITS,
    Limit, MaxTools,
};

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
    MaxToolsBelowAlwaysLoad { max_tools: MaxTools, always: u64 },
    /// The same rule, reached through `max_loaded_tools`, which a search
    /// sends as its cap when `max_tools` is not set.
    #[error(
        "max_loaded_tools is {max_loaded} and every search sends it as max_tools, but the catalog has {always} always-load tools, which are always loaded; it must be at least {always}"
    )]
    CapBelowAlwaysLoad { max_loaded: MaxTools, always: u64 },
}

/// The options of a handle, each count already its own type (checked
/// where it entered, [`limits`]); the always-load check needs the catalog
/// and is [`ToolsHandle::new`]'s.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HandleOptions {
    pub strategy: Strategy,
    pub initial_tool_count: InitialToolCount,
    pub max_loaded_tools: Option<MaxTools>,
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
    initial_tool_count: InitialToolCount,
    max_loaded_tools: Option<MaxTools>,
    initial: Vec<usize>,
}

impl ToolsHandle {
    /// Checks, for `deferred`, the always-load count against the cap (the
    /// counts are typed already) and computes the initial set.
    pub fn new(catalog: Arc<Catalog>, options: &HandleOptions) -> Result<Self, SelectError> {
        let HandleOptions {
            initial_tool_count,
            max_loaded_tools,
            ..
        } = *options;
        let initial = match options.strategy {
            Strategy::All => (0..catalog.len()).collect(),
            Strategy::Deferred => {
                let always: Vec<usize> = (0..catalog.len())
                    .filter(|&i| catalog.tools()[i].always_load)
                    .collect();
                let always_count = always.len() as u64;
                if let Some(max) = max_loaded_tools
                    && always_count > max.get()
                {
                    return Err(SelectError::MaxLoadedBelowAlwaysLoad);
                }
                let lazy_limit = match max_loaded_tools {
                    None => initial_tool_count.get(),
                    Some(max) => initial_tool_count.get().min(max.get() - always_count),
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

    pub fn initial_tool_count(&self) -> InitialToolCount {
        self.initial_tool_count
    }

    pub fn max_loaded_tools(&self) -> Option<MaxTools> {
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

    /// The cap a search sends: the per-call `max_tools` if given, else
    /// `max_loaded_tools`, else none (the service default).
    pub fn sent_cap(&self, max_tools: Option<MaxTools>) -> Option<MaxTools> {
        max_tools.or(self.max_loaded_tools)
    }

    /// [`ToolsHandle::sent_cap`], checked as the service checks it: a cap
    /// below the always-load count fails every search.
    pub fn checked_sent_cap(
        &self,
        max_tools: Option<MaxTools>,
    ) -> Result<Option<MaxTools>, SelectError> {
        let always = self
            .catalog
            .tools()
            .iter()
            .filter(|t| t.always_load)
            .count() as u64;
        match (max_tools, self.max_loaded_tools) {
            (Some(m), _) => m.room_for(always).map(Some),
            (None, Some(c)) if c.get() < always => Err(SelectError::CapBelowAlwaysLoad {
                max_loaded: c,
                always,
            }),
            (None, cap) => Ok(cap),
        }
    }
}

impl SelectError {
    /// The wire's error code for a cap a request gives
    /// ([`MaxTools::from_json`], [`MaxTools::room_for`]); `invalid_request` for the others, which a
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

    /// The SDK's `tools(catalog, strategy, initial, max)`: the counts
    /// checked as numbers by the one check of each, in the SDK's order
    /// (`initial_tool_count`, then `max_loaded_tools` when given), then
    /// the handle.
    fn handle(
        catalog: Arc<Catalog>,
        (strategy, initial, max): (Strategy, i64, Option<i64>),
    ) -> Result<ToolsHandle, SelectError> {
        let options = HandleOptions {
            strategy,
            initial_tool_count: InitialToolCount::checked(Some(initial))?,
            max_loaded_tools: max
                .map(|m| MaxTools::checked(Some(m), SelectError::MaxLoadedTools))
                .transpose()?,
        };
        ToolsHandle::new(catalog, &options)
    }

    fn opts(strategy: Strategy, initial: i64, max: Option<i64>) -> (Strategy, i64, Option<i64>) {
        (strategy, initial, max)
    }

    fn cap(h: &ToolsHandle, max_tools: Option<u64>) -> Option<u64> {
        h.sent_cap(max_tools.and_then(MaxTools::new))
            .map(MaxTools::get)
    }

    #[test]
    fn sdk_deferred_counts_and_mandatory_tools() {
        // SDK: [always, lazy1, lazy2], initial 8, max 2 -> [always, lazy1].
        let c = catalog(vec![
            tool("always", true),
            tool("lazy1", false),
            tool("lazy2", false),
        ]);
        let h = handle(c.clone(), opts(Strategy::Deferred, 8, Some(2))).unwrap();
        assert_eq!(h.initial_names(), ["always", "lazy1"]);
        assert_eq!("unknown".parse::<Strategy>(), Err(SelectError::Strategy));
        assert_eq!(
            handle(c.clone(), opts(Strategy::All, -1, None)).unwrap_err(),
            SelectError::InitialToolCount
        );
        assert_eq!("0".parse::<MaxTools>(), Err(SelectError::MaxTools));
        let two = catalog(vec![tool("always", true), tool("always2", true)]);
        assert_eq!(
            handle(two, opts(Strategy::Deferred, 8, Some(1))).unwrap_err(),
            SelectError::MaxLoadedBelowAlwaysLoad
        );
    }

    #[test]
    fn sdk_default_cap_and_override() {
        let c = catalog(vec![tool("safe", false)]);
        let h = handle(c.clone(), opts(Strategy::Deferred, 8, Some(2))).unwrap();
        assert_eq!(cap(&h, None), Some(2));
        assert_eq!(cap(&h, Some(1)), Some(1));
        assert_eq!(
            handle(c.clone(), opts(Strategy::All, 8, Some(0))).unwrap_err(),
            SelectError::MaxLoadedTools
        );
        let uncapped = ToolsHandle::new(c, &HandleOptions::default()).unwrap();
        assert_eq!(cap(&uncapped, None), None);
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
        let h = handle(c, opts(Strategy::Deferred, 8, None)).unwrap();
        assert_eq!(h.initial_names(), ["always", "lazy1"]);
        assert_eq!(h.initial_indices(), [1, 0]);
        assert!(h.is_initial(0) && h.is_initial(1));
    }

    #[test]
    fn strategy_all_is_whole_catalog_uncapped() {
        let c = catalog((0..20).map(|i| tool(&format!("t{i}"), i == 7)).collect());
        let h = handle(c, opts(Strategy::All, 2, Some(3))).unwrap();
        assert_eq!(h.initial_indices().len(), 20);
        assert_eq!(h.initial_indices(), (0..20).collect::<Vec<_>>());
    }

    #[test]
    fn checks_run_in_sdk_order() {
        // Both initial_tool_count and max_loaded_tools are bad: the first check wins.
        let c = catalog(vec![tool("a", true), tool("b", true)]);
        assert_eq!(
            handle(c.clone(), opts(Strategy::Deferred, -1, Some(0))).unwrap_err(),
            SelectError::InitialToolCount
        );
        // max 0 is reported as not positive before the always-load comparison.
        assert_eq!(
            handle(c.clone(), opts(Strategy::Deferred, 0, Some(0))).unwrap_err(),
            SelectError::MaxLoadedTools
        );
        // Strategy all never compares the cap with the always-load count.
        assert!(handle(c, opts(Strategy::All, 0, Some(1))).is_ok());
    }

    #[test]
    fn the_initial_set_besides_always_load_is_what_the_cap_leaves() {
        let c = catalog(vec![
            tool("always", true),
            tool("lazy1", false),
            tool("lazy2", false),
            tool("lazy3", false),
        ]);
        let capped = handle(c.clone(), opts(Strategy::Deferred, 8, Some(3))).unwrap();
        assert_eq!(capped.initial_besides_always_load(), 2, "the cap leaves 2");
        let counted = handle(c.clone(), opts(Strategy::Deferred, 1, None)).unwrap();
        assert_eq!(counted.initial_besides_always_load(), 1);
        let all = handle(c, opts(Strategy::All, 0, None)).unwrap();
        assert_eq!(
            all.initial_besides_always_load(),
            3,
            "strategy all sends them all"
        );
    }

    #[test]
    fn initial_zero_keeps_only_always_load() {
        let c = catalog(vec![tool("a", false), tool("b", true), tool("c", false)]);
        let h = handle(c, opts(Strategy::Deferred, 0, None)).unwrap();
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
            match handle(c.clone(), opts(Strategy::Deferred, initial, max)) {
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
