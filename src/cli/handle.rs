//! The tools-handle flags as settings (each read as its setting's type,
//! with the SDK's message, by [`toolsift::settings::flags`]).

use toolsift::settings::Settings;
use toolsift::tools_handle::{DEFAULT_INITIAL_TOOL_COUNT, SelectError};

use super::args::HandleArgs;

impl HandleArgs {
    /// The flags as settings (the SDK's default for each left out), their
    /// counts checked as the SDK checks them, in its order (the
    /// always-load check comes with the catalog).
    pub fn settings(&self) -> Result<Settings, SelectError> {
        let settings = Settings {
            strategy: self.strategy.unwrap_or_default(),
            initial_tool_count: self
                .initial_tool_count
                .unwrap_or(DEFAULT_INITIAL_TOOL_COUNT),
            max_loaded_tools: self.max_loaded_tools,
            max_tools: None,
            ranker: Default::default(),
            token_basis: self.token_basis,
            gate: toolsift::service::GATE_IN_PROCESS,
        };
        settings.handle_options().counts()?;
        Ok(settings)
    }

    /// Whether `--strategy` was given (else the SDK's default is in force).
    pub fn strategy_chosen(&self) -> bool {
        self.strategy.is_some()
    }
}
