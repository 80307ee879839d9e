//! The settings' flags read as the SDK reads its options: each flag's text
//! becomes the setting's own type, or is refused with the SDK's message
//! for that setting (`initial_tool_count must be a non-negative integer`).
//! A count is checked here, once ([`crate::tools_handle::limits`]); what
//! needs the catalog (the always-load tools against a cap) is
//! [`super::Settings::validate`]'s.

use crate::engine::Ranker;
use crate::tokens::{TokenBasis, UnknownBasis};
use crate::tools_handle::{InitialToolCount, MaxTools, SelectError, Strategy};

/// `a | b`: the values a flag takes.
pub fn choices<T: std::fmt::Display>(all: &[T]) -> String {
    all.iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(" | ")
}

/// The token bases a flag takes: the six, and the model forms.
pub fn basis_choices() -> String {
    format!(
        "{} | openai:MODEL | anthropic:MODEL (:any after an Anthropic basis: tool_choice any or tool)",
        choices(&TokenBasis::ALL)
    )
}

/// A flag's help when its default comes from the config file, whose
/// built-in values are the explorer's defaults.
pub fn from_config(text: &str, default: impl std::fmt::Display) -> String {
    format!("{text} (default: the config file's, else {default})")
}

pub use crate::tools_handle::limits::whole_number;

/// `--strategy`.
pub fn strategy(text: &str) -> Result<Strategy, SelectError> {
    text.parse()
}

/// `--initial-tool-count`: a whole number, 0 or more.
pub fn initial_tool_count(text: &str) -> Result<InitialToolCount, SelectError> {
    text.parse()
}

/// `--max-loaded-tools`: a whole number, at least 1.
pub fn max_loaded_tools(text: &str) -> Result<MaxTools, SelectError> {
    MaxTools::checked(whole_number(text), SelectError::MaxLoadedTools)
}

/// `--max-tools`: a whole number, at least 1.
pub fn max_tools(text: &str) -> Result<MaxTools, SelectError> {
    text.parse()
}

/// `--max-tools`, declared once for every command that takes it (`explore`,
/// `search`, `eval`): each flattens it and gives its own help
/// (`mut_arg("max_tools", ..)`). A config file's `max_tools` is read into it
/// by [`max_tools_key`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::Args)]
pub struct MaxToolsFlag {
    #[arg(long, value_name = "N", allow_hyphen_values = true, value_parser = max_tools)]
    pub max_tools: Option<MaxTools>,
}

impl MaxToolsFlag {
    /// This layer's cap, else `below`'s.
    pub fn or(self, below: MaxToolsFlag) -> MaxToolsFlag {
        MaxToolsFlag {
            max_tools: self.max_tools.or(below.max_tools),
        }
    }
}

/// A config file's `max_tools`: a positive integer
/// ([`crate::file_value::positive`]).
pub fn max_tools_key<'de, D: serde::Deserializer<'de>>(d: D) -> Result<MaxToolsFlag, D::Error> {
    crate::file_value::positive(d).map(|max_tools| MaxToolsFlag { max_tools })
}

/// `--token-basis`.
pub fn token_basis(text: &str) -> Result<TokenBasis, UnknownBasis> {
    text.parse()
}

/// `--gate`: on or off.
pub fn on_off(text: &str) -> Result<bool, NotOnOff> {
    match text {
        "on" => Ok(true),
        "off" => Ok(false),
        _ => Err(NotOnOff(text.to_string())),
    }
}

/// A switch's flag that is neither on nor off.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("expected on or off, not {0:?}")]
pub struct NotOnOff(pub String);

/// The explorer's `--ranker`: one of words (regex is a mode of its query
/// box).
pub fn word_ranker(text: &str) -> Result<Ranker, NotAWordRanker> {
    match text.parse::<Ranker>() {
        Ok(r) if Ranker::WORDS.contains(&r) => Ok(r),
        Ok(r) => Err(NotAWordRanker::Regex(r)),
        Err(_) => Err(NotAWordRanker::Unknown),
    }
}

/// A ranker the explorer's setting does not take.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NotAWordRanker {
    #[error(
        "{0} is not a ranker setting of the explorer (expected {words}): its query box switches between words and a regex",
        words = choices(&Ranker::WORDS)
    )]
    Regex(Ranker),
    #[error("expected {}", choices(&Ranker::WORDS))]
    Unknown,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_flag_is_its_settings_type_or_the_sdks_message() {
        assert_eq!(strategy("deferred"), Ok(Strategy::Deferred));
        assert_eq!(
            strategy("lazy").unwrap_err().to_string(),
            "strategy must be all or deferred"
        );
        assert_eq!(initial_tool_count(" 3 "), Ok(InitialToolCount::new(3)));
        for bad in ["-1", "2.5"] {
            assert_eq!(
                initial_tool_count(bad).unwrap_err().to_string(),
                "initial_tool_count must be a non-negative integer"
            );
        }
        for bad in ["x", "0"] {
            assert_eq!(
                max_loaded_tools(bad).unwrap_err().to_string(),
                "max_loaded_tools must be a positive integer"
            );
            assert_eq!(
                max_tools(bad).unwrap_err().to_string(),
                "max_tools must be a positive integer"
            );
        }
        assert_eq!(on_off("off"), Ok(false));
        assert!(
            on_off("maybe")
                .unwrap_err()
                .to_string()
                .contains("\"maybe\"")
        );
        assert_eq!(word_ranker("hybrid"), Ok(Ranker::Hybrid));
        assert!(
            word_ranker("regex")
                .unwrap_err()
                .to_string()
                .contains("its query box switches")
        );
    }
}
