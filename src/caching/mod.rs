//! What a session costs with the provider's prompt caching, for each way
//! of sending tools. Providers cache a prompt's prefix: tools first, then
//! the system prompt, then the messages. A request that starts with the
//! same tokens as the last one reads them from the cache at a fraction of
//! the input price; what follows is written to the cache (Anthropic charges
//! more for that; OpenAI before GPT-5.6 charges nothing extra); a change in
//! the tool list changes the prefix's start, so nothing is read.
//!
//! Three ways of sending tools are compared over the same session:
//! - [`Way::AllUpFront`]: every tool in the tool list on every turn (the
//!   list never changes: it is cached once and read after);
//! - [`Way::DeferredInConversation`]: the initial set in the tool list, and
//!   the tools a search finds put in the conversation (the gateway's
//!   `search_tools` result, Anthropic's tool references): the prefix never
//!   changes;
//! - [`Way::DeferredAddedToList`]: the initial set, and the tools found
//!   added to the tool list: the turn they are added reads nothing from the
//!   cache and writes the whole prompt again.
//!
//! Costs are in input-token units: a token at the provider's uncached input
//! price is 1. Every turn is assumed within the cache's lifetime (Anthropic:
//! 5 minutes, refreshed on each read; OpenAI: 5 to 10 minutes idle). The
//! price ratios and their source are in [`Pricing`] and docs/caching.md.

#[cfg(test)]
mod tests;

use serde::Serialize;

/// A provider's caching rules, as ratios of its uncached input price.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Pricing {
    /// As named on the command line (`anthropic`, `openai`, ...).
    pub name: &'static str,
    /// What the name stands for.
    pub label: &'static str,
    /// A token written to the cache (1.0: no surcharge).
    pub write: f64,
    /// A token read from the cache.
    pub read: f64,
    /// A prompt shorter than this is not cached at all.
    pub min_cached: u64,
    /// Cached tokens are counted in steps of this many (rounded down).
    pub step: u64,
}

/// Anthropic, 5-minute cache: writes 1.25x, reads 0.1x; 1,024 tokens at
/// least (Sonnet 4 to 5, Opus 4.1 and 4.8; some models need more).
pub const ANTHROPIC: Pricing = Pricing {
    name: "anthropic",
    label: "Anthropic, 5-minute cache (write 1.25x, read 0.1x)",
    write: 1.25,
    read: 0.10,
    min_cached: 1024,
    step: 1,
};

/// Anthropic, 1-hour cache: writes 2x, reads 0.1x.
pub const ANTHROPIC_1H: Pricing = Pricing {
    name: "anthropic-1h",
    label: "Anthropic, 1-hour cache (write 2x, read 0.1x)",
    write: 2.0,
    ..ANTHROPIC
};

/// OpenAI's GPT-5 family before GPT-5.6: no write surcharge, cached input
/// at 0.1x, in steps of 128 tokens, from 1,024 tokens.
pub const OPENAI: Pricing = Pricing {
    name: "openai",
    label: "OpenAI GPT-5 (cached input 0.1x, no write surcharge, 128-token steps)",
    write: 1.0,
    read: 0.10,
    min_cached: 1024,
    step: 128,
};

/// OpenAI's GPT-4.1 family: cached input at 0.25x.
pub const OPENAI_4_1: Pricing = Pricing {
    name: "openai-gpt-4.1",
    label: "OpenAI GPT-4.1 (cached input 0.25x, no write surcharge, 128-token steps)",
    read: 0.25,
    ..OPENAI
};

/// OpenAI's GPT-4o family: cached input at 0.5x.
pub const OPENAI_4O: Pricing = Pricing {
    name: "openai-gpt-4o",
    label: "OpenAI GPT-4o (cached input 0.5x, no write surcharge, 128-token steps)",
    read: 0.50,
    ..OPENAI
};

/// OpenAI from GPT-5.6: writes 1.25x, reads 0.1x, exact counts.
pub const OPENAI_5_6: Pricing = Pricing {
    name: "openai-gpt-5.6",
    label: "OpenAI GPT-5.6 and later (write 1.25x, read 0.1x, exact counts)",
    write: 1.25,
    read: 0.10,
    min_cached: 1024,
    step: 1,
};

/// Every provider's rules, the default first.
pub const PRICINGS: [Pricing; 6] = [
    ANTHROPIC,
    OPENAI,
    ANTHROPIC_1H,
    OPENAI_4_1,
    OPENAI_4O,
    OPENAI_5_6,
];

impl Pricing {
    /// The rules called `name`.
    pub fn named(name: &str) -> Result<Pricing, UnknownPricing> {
        PRICINGS
            .iter()
            .find(|p| p.name.eq_ignore_ascii_case(name.trim()))
            .copied()
            .ok_or_else(|| UnknownPricing(name.to_string()))
    }
}

/// A provider whose caching prices toolsift does not know.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown provider {0:?}: one of {known}", known = known_pricings())]
pub struct UnknownPricing(pub String);

fn known_pricings() -> String {
    let names: Vec<&str> = PRICINGS.iter().map(|p| p.name).collect();
    names.join(", ")
}

/// A way of sending the tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Way {
    AllUpFront,
    DeferredInConversation,
    DeferredAddedToList,
}

impl Way {
    pub const ALL: [Way; 3] = [
        Way::AllUpFront,
        Way::DeferredInConversation,
        Way::DeferredAddedToList,
    ];

    pub fn label(self) -> &'static str {
        match self {
            Way::AllUpFront => "all tools up front",
            Way::DeferredInConversation => "deferred, found tools in the conversation",
            Way::DeferredAddedToList => "deferred, found tools added to the tool list",
        }
    }

    pub fn short(self) -> &'static str {
        match self {
            Way::AllUpFront => "all",
            Way::DeferredInConversation => "in conversation",
            Way::DeferredAddedToList => "added to list",
        }
    }
}

/// A session: what every turn adds to the conversation, and the tools
/// found on it (tokens each, by the tool's catalog place).
#[derive(Debug, Clone, PartialEq)]
pub struct Session {
    /// The system prompt's tokens.
    pub system: u64,
    pub turns: Vec<Turn>,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct Turn {
    /// Message tokens this turn adds (the user's words, the model's last
    /// answer, a tool's result).
    pub messages: u64,
    /// Tools a search found on this turn, by catalog place.
    pub found: Vec<usize>,
}

/// What the tools cost: each tool's tokens by catalog place, and which
/// tools deferred loading sends from the start.
#[derive(Debug, Clone, Copy)]
pub struct Tools<'a> {
    pub costs: &'a [u64],
    /// The initial set (always-load tools included), by catalog place.
    pub initial: &'a [usize],
}

/// One turn's request as the provider bills it.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize)]
pub struct Billed {
    /// The prompt's tokens.
    pub prompt: u64,
    pub read: u64,
    pub written: u64,
    pub uncached: u64,
    /// In input-token units.
    pub cost: f64,
}

/// A way's cost over the session.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WayCost {
    pub way: Way,
    /// Prompt tokens sent over every turn.
    pub sent: u64,
    /// What they cost, in input-token units.
    pub cost: f64,
    /// The turns on which the cache was read from nothing (the first, and
    /// every turn the tool list changed), 1-based.
    pub cold_turns: Vec<usize>,
    pub turns: Vec<Billed>,
}

/// The three ways' costs of `session` under `pricing`.
pub fn costs(pricing: &Pricing, tools: Tools<'_>, session: &Session) -> Vec<WayCost> {
    Way::ALL
        .iter()
        .map(|&way| way_cost(pricing, tools, session, way))
        .collect()
}

fn tokens_of(tools: Tools<'_>, set: impl IntoIterator<Item = usize>) -> u64 {
    set.into_iter()
        .map(|i| tools.costs.get(i).copied().unwrap_or(0))
        .sum()
}

/// The tool list and the conversation of each turn, for `way`: a tool
/// found once is sent from then on (in the list or in the conversation),
/// never twice.
fn prompts(tools: Tools<'_>, session: &Session, way: Way) -> Vec<(Vec<usize>, u64)> {
    let mut list: Vec<usize> = match way {
        Way::AllUpFront => (0..tools.costs.len()).collect(),
        _ => tools.initial.to_vec(),
    };
    let mut sent: std::collections::HashSet<usize> = list.iter().copied().collect();
    let mut conversation = 0u64;
    let mut out = Vec::with_capacity(session.turns.len());
    for turn in &session.turns {
        conversation += turn.messages;
        let new: Vec<usize> = turn
            .found
            .iter()
            .copied()
            .filter(|&i| i < tools.costs.len() && sent.insert(i))
            .collect();
        match way {
            Way::AllUpFront => {}
            Way::DeferredInConversation => conversation += tokens_of(tools, new),
            Way::DeferredAddedToList => list.extend(new),
        }
        out.push((list.clone(), conversation));
    }
    out
}

fn way_cost(pricing: &Pricing, tools: Tools<'_>, session: &Session, way: Way) -> WayCost {
    let mut turns = Vec::with_capacity(session.turns.len());
    let mut cold_turns = Vec::new();
    // The last request's tool list and the prefix it left in the cache.
    let mut last: Option<(Vec<usize>, u64)> = None;
    for (n, (list, conversation)) in prompts(tools, session, way).into_iter().enumerate() {
        let prompt = tokens_of(tools, list.iter().copied()) + session.system + conversation;
        let cached = match &last {
            Some((last_list, left)) if *last_list == list => *left,
            _ => 0,
        };
        if cached == 0 {
            cold_turns.push(n + 1);
        }
        let billed = bill(pricing, prompt, cached);
        last = Some((
            list,
            if prompt >= pricing.min_cached {
                prompt
            } else {
                0
            },
        ));
        turns.push(billed);
    }
    WayCost {
        way,
        sent: turns.iter().map(|t| t.prompt).sum(),
        cost: turns.iter().map(|t| t.cost).sum(),
        cold_turns,
        turns,
    }
}

/// One request of `prompt` tokens whose first `cached` are in the cache.
pub fn bill(pricing: &Pricing, prompt: u64, cached: u64) -> Billed {
    if prompt < pricing.min_cached {
        return Billed {
            prompt,
            read: 0,
            written: 0,
            uncached: prompt,
            cost: prompt as f64,
        };
    }
    let step = pricing.step.max(1);
    let read = (cached.min(prompt) / step) * step;
    let rest = prompt - read;
    // With no write surcharge, the rest is billed as plain input (it is
    // cached all the same).
    let (written, uncached) = if pricing.write == 1.0 {
        (0, rest)
    } else {
        (rest, 0)
    };
    Billed {
        prompt,
        read,
        written,
        uncached,
        cost: read as f64 * pricing.read + written as f64 * pricing.write + uncached as f64,
    }
}

/// A session of `turns` turns, each adding `per_turn` message tokens, the
/// tools `found` found on turn `found_on` (1-based).
pub fn simulated(
    system: u64,
    turns: usize,
    per_turn: u64,
    found_on: usize,
    found: &[usize],
) -> Session {
    Session {
        system,
        turns: (1..=turns)
            .map(|t| Turn {
                messages: per_turn,
                found: if t == found_on {
                    found.to_vec()
                } else {
                    Vec::new()
                },
            })
            .collect(),
    }
}
