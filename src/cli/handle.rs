//! The tools-handle flags ([`toolsift::settings::HandleSettings`]) as
//! settings, with the SDK's defaults.

use toolsift::settings::Settings;
use toolsift::tools_handle::DEFAULT_INITIAL_TOOL_COUNT;

use super::args::HandleArgs;

impl HandleArgs {
    /// The flags as settings (the SDK's default for each left out); their
    /// counts were checked as the flags were read (the always-load check
    /// comes with the catalog).
    pub fn settings(&self) -> Settings {
        let flags = &self.settings;
        Settings {
            strategy: flags.strategy.unwrap_or_default(),
            initial_tool_count: flags
                .initial_tool_count
                .unwrap_or(DEFAULT_INITIAL_TOOL_COUNT),
            max_loaded_tools: flags.max_loaded_tools,
            max_tools: None,
            ranker: Default::default(),
            token_basis: flags.token_basis,
            gate: toolsift::service::GATE_IN_PROCESS,
        }
    }

    /// Whether `--strategy` was given (else the SDK's default is in force).
    pub fn strategy_chosen(&self) -> bool {
        self.settings.strategy.is_some()
    }
}
