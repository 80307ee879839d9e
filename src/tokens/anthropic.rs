//! The Anthropic estimate: Claude's tokenizer is not public, so a tool's
//! cost is its Messages API definition (as [`crate::provider::anthropic`]
//! writes it) counted with cl100k_base and scaled by a measured ratio, and
//! a request with tools adds the tool-use system prompt of the model family
//! and the request's `tool_choice`.

/// Claude's tokens per cl100k_base token on tool definitions: 1.23 (1.18 to
/// 1.26) over 106 MCP definitions from 7 servers, measured against
/// Anthropic's count-tokens endpoint by an independent study.
pub const ANTHROPIC_PER_CL100K: f64 = 1.23;

/// A Claude model family: the families differ in their tool-use prompt.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Family {
    /// The current models (Opus 4 and later, Sonnet 4 and later, Haiku 4.5,
    /// Sonnet 3.7, Sonnet 3.5 of October 2024).
    Current,
    Opus3,
    Sonnet3,
    Haiku3,
}

/// What a Claude basis assumes of the request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Claude {
    pub family: Family,
    /// `tool_choice` `any` or `tool` (a tool must be called), rather than
    /// `auto` or `none`.
    pub forced: bool,
}

impl Claude {
    /// The current models, `tool_choice` auto.
    pub const CURRENT: Claude = Claude {
        family: Family::Current,
        forced: false,
    };

    /// Every family under both kinds of `tool_choice`.
    pub const EVERY: [Claude; 8] = {
        let f = [
            Family::Current,
            Family::Opus3,
            Family::Sonnet3,
            Family::Haiku3,
        ];
        let mut out = [Claude::CURRENT; 8];
        let mut i = 0;
        while i < 8 {
            out[i] = Claude {
                family: f[i / 2],
                forced: i % 2 == 1,
            };
            i += 1;
        }
        out
    };

    /// Where this family and choice stand in the tables below.
    fn row(self) -> usize {
        let family = match self.family {
            Family::Current => 0,
            Family::Opus3 => 1,
            Family::Sonnet3 => 2,
            Family::Haiku3 => 3,
        };
        family * 2 + usize::from(self.forced)
    }

    /// The tokens of the tool-use system prompt Anthropic adds when tools
    /// are present (the table of Anthropic's tool-use pricing page).
    pub fn tool_prompt(self) -> u64 {
        [346, 313, 530, 281, 159, 235, 264, 340][self.row()]
    }

    /// The basis's wire name: `anthropic`, `anthropic:any`,
    /// `anthropic:claude-3-opus`, `anthropic:claude-3-opus:any`, …
    pub fn name(self) -> &'static str {
        [
            "anthropic",
            "anthropic:any",
            "anthropic:claude-3-opus",
            "anthropic:claude-3-opus:any",
            "anthropic:claude-3-sonnet",
            "anthropic:claude-3-sonnet:any",
            "anthropic:claude-3-haiku",
            "anthropic:claude-3-haiku:any",
        ][self.row()]
    }

    /// The name shown to people, which says it is an estimate.
    pub fn label(self) -> &'static str {
        [
            "anthropic (estimate)",
            "anthropic:any (estimate)",
            "anthropic:claude-3-opus (estimate)",
            "anthropic:claude-3-opus:any (estimate)",
            "anthropic:claude-3-sonnet (estimate)",
            "anthropic:claude-3-sonnet:any (estimate)",
            "anthropic:claude-3-haiku (estimate)",
            "anthropic:claude-3-haiku:any (estimate)",
        ][self.row()]
    }

    /// `anthropic`, `anthropic:MODEL`, either with `:any` (or `:tool`)
    /// after it. A model id names its family: `claude-3-opus-20240229` is
    /// Claude 3 Opus; a Claude 3.5 Haiku counts as Claude 3 Haiku (its
    /// prompt is the same); any other `claude-…` is a current model.
    pub fn parse(name: &str) -> Option<Claude> {
        let rest = name.strip_prefix("anthropic")?;
        let mut parts: Vec<&str> = if rest.is_empty() {
            Vec::new()
        } else {
            rest.strip_prefix(':')?.split(':').collect()
        };
        let forced = match parts.last() {
            Some(&"any") | Some(&"tool") => {
                parts.pop();
                true
            }
            Some(&"auto") | Some(&"none") => {
                parts.pop();
                false
            }
            _ => false,
        };
        let family = match parts.as_slice() {
            [] => Family::Current,
            [model] => family_of(model)?,
            _ => return None,
        };
        Some(Claude { family, forced })
    }
}

fn family_of(model: &str) -> Option<Family> {
    if !model.starts_with("claude-") {
        return None;
    }
    let m = model.strip_prefix("claude-")?;
    Some(if m.starts_with("3-opus") {
        Family::Opus3
    } else if m.starts_with("3-sonnet") || m == "3-5-sonnet-20240620" {
        // Claude 3.5 Sonnet of June 2024 is not in the table; Claude 3
        // Sonnet is its nearest.
        Family::Sonnet3
    } else if m.starts_with("3-haiku") || m.starts_with("3-5-haiku") {
        Family::Haiku3
    } else {
        Family::Current
    })
}

/// A tool's estimate from its cl100k_base count.
pub fn scale(cl100k: u64) -> u64 {
    (cl100k as f64 * ANTHROPIC_PER_CL100K).round() as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse_to_families_and_back() {
        for (i, c) in Claude::EVERY.into_iter().enumerate() {
            assert_eq!(c.row(), i);
            assert_eq!(Claude::parse(c.name()), Some(c), "{}", c.name());
            assert!(c.label().starts_with(c.name()));
            assert!(c.label().ends_with("(estimate)"));
        }
        let p = |s: &str| Claude::parse(s).map(|c| (c.family, c.forced));
        for (name, family, forced) in [
            ("anthropic:claude-sonnet-4-5", Family::Current, false),
            ("anthropic:claude-opus-4-1:tool", Family::Current, true),
            ("anthropic:claude-3-opus-20240229", Family::Opus3, false),
            (
                "anthropic:claude-3-5-haiku-latest:any",
                Family::Haiku3,
                true,
            ),
        ] {
            assert_eq!(p(name), Some((family, forced)), "{name}");
        }
        assert_eq!(p("anthropic:gpt-4o"), None);
        assert_eq!(p("anthropicx"), None);
        assert_eq!(p("anthropic:"), None);
        assert_eq!(p("anthropic:claude-3-opus:any:x"), None);
    }

    #[test]
    fn the_prompt_follows_the_family_and_the_choice() {
        assert_eq!(Claude::CURRENT.tool_prompt(), 346);
        let forced = Claude {
            forced: true,
            ..Claude::CURRENT
        };
        assert_eq!(forced.tool_prompt(), 313);
        let opus3 = Claude::parse("anthropic:claude-3-opus").unwrap();
        assert_eq!(opus3.tool_prompt(), 530);
        assert_eq!(scale(100), 123);
    }
}
