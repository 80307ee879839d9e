//! The settings' flags (`--strategy`, `--initial-tool-count`,
//! `--max-loaded-tools`, `--max-tools`, `--token-basis`) checked as the SDK
//! checks them, with its messages.

use toolsift::settings::Settings;
use toolsift::tokens::TokenBasis;
use toolsift::tools_handle::{SelectError, Strategy};

use super::args::HandleArgs;
use super::error::CliError;

impl HandleArgs {
    /// The flags as settings, with the SDK's checks in the SDK's order:
    /// strategy, initial_tool_count, max_loaded_tools. (The always-load
    /// check needs the catalog.)
    pub fn settings(&self) -> Result<Settings, CliError> {
        let strategy = match &self.strategy {
            Some(text) => strategy(text)?,
            None => Strategy::default(),
        };
        let initial_tool_count = parse_int(&self.initial_tool_count)
            .filter(|n| *n >= 0)
            .ok_or(SelectError::InitialToolCount)?;
        let max_loaded_tools = match &self.max_loaded_tools {
            None => None,
            Some(text) => Some(
                parse_int(text)
                    .filter(|n| *n >= 1)
                    .ok_or(SelectError::MaxLoadedTools)?,
            ),
        };
        Ok(Settings {
            strategy,
            initial_tool_count,
            max_loaded_tools,
            max_tools: None,
            ranker: Default::default(),
            token_basis: self.token_basis.as_deref().map(basis).transpose()?,
            gate: toolsift::service::GATE_IN_PROCESS,
        })
    }
}

impl HandleArgs {
    /// Whether `--strategy` was given (else the SDK's default is in force).
    pub fn strategy_chosen(&self) -> bool {
        self.strategy.is_some()
    }
}

/// `--strategy`, with the SDK's message for any other value.
pub fn strategy(text: &str) -> Result<Strategy, CliError> {
    Ok(text.parse()?)
}

/// An integer flag; anything but a whole number is `error` (the SDK's
/// message for that flag).
#[cfg_attr(not(feature = "tui"), allow(dead_code))]
pub fn integer(text: &str, error: SelectError) -> Result<i64, CliError> {
    Ok(parse_int(text).ok_or(error)?)
}

/// `--token-basis`.
pub fn basis(text: &str) -> Result<TokenBasis, CliError> {
    Ok(text.parse()?)
}

/// A whole number as the SDK's `isinstance(x, int)` would see it; anything
/// else (text, fractions, out of range) is `None`.
pub fn parse_int(text: &str) -> Option<i64> {
    text.trim().parse::<i64>().ok()
}
