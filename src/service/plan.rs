//! Step one of a search, the one plan every front end asks: which ranker
//! answers, the cap, the always-load tools, the relevance gate and whether
//! the session is recorded. The explorer, `search`, `eval`, `tune`, the
//! HTTP service and the gateway all take these from here, so one request
//! gets one answer whichever door it comes through.

use super::{GateMode, SearchRequest, Service, ServiceError, pattern, sessions};
use crate::catalog::Catalog;
use crate::engine::Ranker;
use crate::tools_handle::MaxTools;

pub use crate::tools_handle::DEFAULT_MAX_TOOLS;

/// The relevance gate in a front end that toolsift owns end to end
/// ([`crate::engine::gate::ON_IN_PROCESS`]).
pub use crate::engine::gate::ON_IN_PROCESS as GATE_IN_PROCESS;

/// What a request asks for, checked.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    pub ranker: Ranker,
    /// At most this many tools in the loaded set.
    pub cap: usize,
    /// The always-load tools, in catalog order (none when the caller lists
    /// them itself).
    pub always: Vec<usize>,
    /// The relevance gate is on, and how it judges the loaded set.
    pub gate: bool,
    pub gate_mode: GateMode,
    /// The search continues or starts a session (a preview records
    /// nothing).
    pub records: bool,
}

/// The cap a search works to: `max_tools` when given, else `default`,
/// never below the always-load count (the default never drops an
/// always-load tool; an explicit cap below it is refused by
/// [`Service::plan`]).
pub fn cap_for(max_tools: Option<MaxTools>, default: MaxTools, always: usize) -> usize {
    match max_tools {
        Some(m) => m.to_usize(),
        None => default.to_usize().max(always),
    }
}

impl Service {
    /// The plan of a search of `catalog` for `params`, or why the request
    /// is refused (its limits, its session id, its cap, its pattern).
    pub fn plan(&self, catalog: &Catalog, params: &SearchRequest) -> Result<Plan, ServiceError> {
        if catalog.len() > self.config.max_catalog_tools {
            return Err(ServiceError::bad_request(
                "too_many_tools",
                format!(
                    "the catalog has {} tools; this service accepts at most {}",
                    catalog.len(),
                    self.config.max_catalog_tools
                ),
            ));
        }
        if let Some(id) = &params.session_id
            && !sessions::valid_session_id(id)
        {
            return Err(ServiceError::bad_request(
                "invalid_session_id",
                "session_id must be 1 to 128 characters of letters, digits, '-', '_', '.' or ':'",
            ));
        }
        // Always-load tools the caller lists itself are left out of the
        // answer (and of the cap).
        let always = if params.omit_always_load {
            Vec::new()
        } else {
            catalog.always_load_indices().to_vec()
        };
        if let Some(m) = params.max_tools {
            m.room_for(always.len() as u64)
                .map_err(|e| ServiceError::bad_request(e.code(), e.to_string()))?;
        }
        let cap = cap_for(
            params.max_tools,
            self.config.default_max_tools,
            always.len(),
        );
        let ranker = params.ranker.unwrap_or(self.config.default_ranker);
        pattern::check(ranker, &params.query)?;
        Ok(Plan {
            ranker,
            cap,
            always,
            gate: params.gate.unwrap_or(self.config.gate),
            gate_mode: params.gate_mode,
            records: !params.preview && !params.unrecorded,
        })
    }
}
