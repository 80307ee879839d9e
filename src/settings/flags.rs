//! The settings' flags read as the SDK reads its options: each flag's text
//! becomes the setting's own type, or is refused with the SDK's message
//! for that setting (`initial_tool_count must be a non-negative integer`).
//! The ranges are the SDK's to check, with the catalog, in its order
//! ([`super::Settings::validate`]); here only the kind of value is.

use crate::engine::Ranker;
use crate::tokens::{TokenBasis, UnknownBasis};
use crate::tools_handle::{SelectError, Strategy};

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

/// A whole number as the SDK's `isinstance(x, int)` would see it; anything
/// else (text, fractions, out of range) is `None`.
pub fn whole_number(text: &str) -> Option<i64> {
    text.trim().parse::<i64>().ok()
}

/// `--strategy`.
pub fn strategy(text: &str) -> Result<Strategy, SelectError> {
    text.parse()
}

/// `--initial-tool-count`: a whole number (the SDK checks its range).
pub fn initial_tool_count(text: &str) -> Result<i64, SelectError> {
    whole_number(text).ok_or(SelectError::InitialToolCount)
}

/// `--max-loaded-tools`: a whole number (the SDK checks its range).
pub fn max_loaded_tools(text: &str) -> Result<i64, SelectError> {
    whole_number(text).ok_or(SelectError::MaxLoadedTools)
}

/// `--max-tools`: a whole number (the service checks its range).
pub fn max_tools(text: &str) -> Result<i64, SelectError> {
    whole_number(text).ok_or(SelectError::MaxTools)
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
        assert_eq!(initial_tool_count(" 3 "), Ok(3));
        assert_eq!(initial_tool_count("-1"), Ok(-1), "the SDK checks the range");
        assert_eq!(
            initial_tool_count("2.5").unwrap_err().to_string(),
            "initial_tool_count must be a non-negative integer"
        );
        assert_eq!(
            max_loaded_tools("x").unwrap_err().to_string(),
            "max_loaded_tools must be a positive integer"
        );
        assert_eq!(
            max_tools("five").unwrap_err().to_string(),
            "max_tools must be a positive integer"
        );
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
