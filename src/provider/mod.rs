//! The model providers toolsift knows by name, OpenAI and Anthropic: each
//! one's facts, said once here and asked by every other part.
//!
//! - This file: the name flags and files use, the API's address, the
//!   variable that holds a key, the token-counting endpoint, the path under
//!   which `serve` passes calls through, and the APIs whose requests carry
//!   tools ([`ProviderApi`]) with the tool shape each writes.
//! - [`PayloadFormat`] and [`payload_tool`] (`shape.rs`): a tool as each
//!   API's request carries it (and as MCP and Caveman write one), which the
//!   token counter, the pass-through and the exports send or write.
//! - [`openai`], [`anthropic`]: a tool list as each provider's models see
//!   it, the text [`crate::tokens`] counts for that provider's bases.

pub mod anthropic;
pub mod openai;
mod shape;

pub use shape::{PayloadFormat, payload_tool};

/// A model provider.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Provider {
    Openai,
    Anthropic,
}

impl Provider {
    pub const ALL: [Provider; 2] = [Provider::Openai, Provider::Anthropic];

    /// The name flags and files use: `openai`, `anthropic`.
    pub fn name(self) -> &'static str {
        match self {
            Provider::Openai => "openai",
            Provider::Anthropic => "anthropic",
        }
    }

    /// The API's scheme and host.
    pub fn api_origin(self) -> &'static str {
        match self {
            Provider::Openai => "https://api.openai.com",
            Provider::Anthropic => "https://api.anthropic.com",
        }
    }

    /// The base URL its SDKs call (the default upstream of a pass-through).
    pub fn api_base(self) -> &'static str {
        match self {
            Provider::Openai => "https://api.openai.com/v1",
            Provider::Anthropic => "https://api.anthropic.com",
        }
    }

    /// The environment variable its SDKs read the key from.
    pub fn key_env(self) -> &'static str {
        match self {
            Provider::Openai => "OPENAI_API_KEY",
            Provider::Anthropic => "ANTHROPIC_API_KEY",
        }
    }

    /// The model whose tokens are counted unless one is named.
    pub fn count_model(self) -> &'static str {
        match self {
            Provider::Openai => "gpt-4o",
            Provider::Anthropic => "claude-sonnet-4-5",
        }
    }

    /// The token-counting endpoint, below [`Provider::api_origin`].
    pub fn count_path(self) -> &'static str {
        match self {
            Provider::Openai => "/v1/responses/input_tokens",
            Provider::Anthropic => "/v1/messages/count_tokens",
        }
    }

    /// The API whose request its counting endpoint takes, and so the tool
    /// shape a count sends.
    pub fn count_api(self) -> ProviderApi {
        match self {
            Provider::Openai => ProviderApi::OpenaiResponses,
            Provider::Anthropic => ProviderApi::AnthropicMessages,
        }
    }

    /// The path prefix the Caveman SDKs put before the provider's own path
    /// when they call through a service (docs/wire.md §6).
    pub fn passthrough_prefix(self) -> &'static str {
        match self {
            Provider::Openai => "/openai/v1",
            Provider::Anthropic => "/anthropic",
        }
    }
}

/// A provider request that carries a tool list, the body shape `serve`
/// adds a session's tools to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProviderApi {
    /// OpenAI `POST /responses`.
    OpenaiResponses,
    /// OpenAI `POST /chat/completions`.
    OpenaiChat,
    /// Anthropic `POST /v1/messages`.
    AnthropicMessages,
}

impl ProviderApi {
    /// The API a call to `rest` (the path below the provider's
    /// [`Provider::passthrough_prefix`]) is, when it carries tools.
    pub fn of_path(provider: Provider, rest: &str) -> Option<ProviderApi> {
        match (provider, rest) {
            (Provider::Openai, "/responses") => Some(ProviderApi::OpenaiResponses),
            (Provider::Openai, "/chat/completions") => Some(ProviderApi::OpenaiChat),
            (Provider::Anthropic, "/v1/messages") => Some(ProviderApi::AnthropicMessages),
            _ => None,
        }
    }

    /// How this API writes a tool definition.
    pub fn tool_format(self) -> PayloadFormat {
        match self {
            ProviderApi::OpenaiResponses => PayloadFormat::OpenaiResponses,
            ProviderApi::OpenaiChat => PayloadFormat::OpenaiChat,
            ProviderApi::AnthropicMessages => PayloadFormat::Anthropic,
        }
    }
}

impl std::fmt::Display for Provider {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A provider name toolsift does not know.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown provider {0:?}: give openai or anthropic")]
pub struct UnknownProvider(pub String);

impl std::str::FromStr for Provider {
    type Err = UnknownProvider;
    fn from_str(s: &str) -> Result<Self, UnknownProvider> {
        Provider::ALL
            .into_iter()
            .find(|p| p.name() == s)
            .ok_or_else(|| UnknownProvider(s.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_read_back_and_an_unknown_one_says_the_choices() {
        for p in Provider::ALL {
            assert_eq!(p.name().parse::<Provider>(), Ok(p));
            assert!(p.api_base().starts_with(p.api_origin()));
        }
        let e = "gemini".parse::<Provider>().unwrap_err();
        assert_eq!(
            e.to_string(),
            "unknown provider \"gemini\": give openai or anthropic"
        );
    }
}
