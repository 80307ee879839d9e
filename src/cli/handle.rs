//! The tools-handle flags (`--strategy`, `--initial-tool-count`,
//! `--max-loaded-tools`, `--token-basis`) checked as the SDK checks them.

use toolsift::select::{HandleOptions, SelectError, Strategy};
use toolsift::tokens::TokenBasis;

use super::args::HandleArgs;
use super::error::CliError;

impl HandleArgs {
    /// The SDK's checks in the SDK's order: strategy, initial_tool_count,
    /// max_loaded_tools. (The always-load check needs the catalog.)
    pub fn options(&self) -> Result<(HandleOptions, TokenBasis), CliError> {
        let strategy: Strategy = self.strategy.parse()?;
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
        let basis: TokenBasis = self.token_basis.parse()?;
        Ok((
            HandleOptions {
                strategy,
                initial_tool_count,
                max_loaded_tools,
            },
            basis,
        ))
    }
}

/// A whole number as the SDK's `isinstance(x, int)` would see it; anything
/// else (text, fractions, out of range) is `None`.
pub fn parse_int(text: &str) -> Option<i64> {
    text.trim().parse::<i64>().ok()
}
