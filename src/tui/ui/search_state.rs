//! The search's state as the header says it, whatever its width: the
//! ranker, the model it ranks with or why there is none (keyword-only,
//! offline, the model off), a fetch's percent or its stall, a failed
//! fetch; in a long form, a short one and a tiny one.

use crate::engine::Ranker;
use crate::terminal_text::escape;
use crate::tui::app::{App, ModelFetch};

/// The search's state in three lengths; `alarm` when something failed or
/// stalled (the error style).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchStateText {
    pub long: String,
    pub short: String,
    pub tiny: String,
    pub alarm: bool,
}

/// What the state is told from.
pub struct StateOf<'a> {
    pub ranker: Ranker,
    /// A dense ranker's vectors are still being computed.
    pub pending: bool,
    pub fetch: Option<&'a ModelFetch>,
    /// Why BM25F ranks alone (no model could be had).
    pub plain: Option<&'a str>,
    /// The model dense rankers embed with.
    pub model: Option<String>,
    /// The retry key's label (`r`).
    pub retry: String,
}

impl<'a> StateOf<'a> {
    pub fn of(app: &'a App) -> StateOf<'a> {
        StateOf {
            ranker: app.query_ranker(),
            pending: app.vectors_pending(),
            fetch: app.model_fetch(),
            plain: app.searcher().plain_because(),
            model: app.searcher().model(),
            retry: app
                .keymap()
                .first(crate::tui::action::Action::RetrySearch)
                .map_or_else(|| "retry".to_string(), |k| k.to_string()),
        }
    }
}

/// Why there is no model, in a word or two (`offline`, `model off`), read
/// off the reason the start gave.
fn why_none(plain: &str) -> Option<&'static str> {
    if plain.contains("TOOLSIFT_MODEL=off") {
        Some("model off")
    } else if plain.contains("fetching is off") {
        Some("offline")
    } else {
        None
    }
}

fn text(long: String, short: String, tiny: String, alarm: bool) -> SearchStateText {
    SearchStateText {
        long,
        short,
        tiny,
        alarm,
    }
}

/// The state's text.
pub fn describe(s: &StateOf) -> SearchStateText {
    let r = s.ranker;
    let retry = &s.retry;
    if s.pending {
        return text(
            format!("{r} (embedding; bm25 until ready)"),
            format!("{r} (bm25 until ready)"),
            "bm25 for now".into(),
            false,
        );
    }
    match s.fetch {
        Some(ModelFetch::Under {
            done,
            total,
            stalled,
        }) => {
            let pct = (done * 100).checked_div(*total).unwrap_or(0);
            return match stalled {
                None => text(
                    format!("bm25 (fetching search model {pct}%)"),
                    format!("bm25 · model {pct}%"),
                    format!("model {pct}%"),
                    false,
                ),
                Some(secs) => text(
                    format!(
                        "bm25 (search model stalled at {pct}%, nothing for {secs} s: {retry} retries)"
                    ),
                    format!("bm25 · model stalled ({retry} retries)"),
                    "model stalled".into(),
                    true,
                ),
            };
        }
        Some(ModelFetch::Failed(_)) => {
            return text(
                format!("bm25 keyword-only (search model fetch failed: {retry} retries)"),
                format!("bm25 keyword-only ({retry} retries)"),
                "keyword-only".into(),
                true,
            );
        }
        None => {}
    }
    if r == Ranker::Bm25
        && let Some(plain) = s.plain
    {
        return match why_none(plain) {
            Some(why) => text(
                format!("bm25 keyword-only ({why}: no search model)"),
                format!("bm25 keyword-only, {why}"),
                "keyword-only".into(),
                false,
            ),
            None => text(
                "bm25 keyword-only (no search model)".into(),
                "bm25 keyword-only".into(),
                "keyword-only".into(),
                false,
            ),
        };
    }
    let word = r.to_string();
    match (&s.model, r.needs_embeddings()) {
        (Some(model), true) => text(
            format!("{word} · {}", crate::tui::text::cut(&escape(model), 32)),
            word.clone(),
            word,
            false,
        ),
        _ => text(word.clone(), word.clone(), word, false),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state(ranker: Ranker) -> StateOf<'static> {
        StateOf {
            ranker,
            pending: false,
            fetch: None,
            plain: None,
            model: None,
            retry: "r".into(),
        }
    }

    #[test]
    fn each_state_has_its_words_in_every_form() {
        let stalled = ModelFetch::Under {
            done: 20,
            total: 100,
            stalled: Some(12),
        };
        let failed = ModelFetch::Failed("no hub".into());
        let cases: Vec<(StateOf, &str)> = vec![
            (
                StateOf {
                    plain: Some("the search model is off (TOOLSIFT_MODEL=off)"),
                    ..state(Ranker::Bm25)
                },
                "keyword-only",
            ),
            (
                StateOf {
                    plain: Some("x is not in the hub cache and fetching is off (--offline)"),
                    ..state(Ranker::Bm25)
                },
                "keyword-only",
            ),
            (
                StateOf {
                    fetch: Some(&stalled),
                    ..state(Ranker::Bm25)
                },
                "stalled",
            ),
            (
                StateOf {
                    fetch: Some(&failed),
                    ..state(Ranker::Bm25)
                },
                "keyword-only",
            ),
        ];
        for (s, word) in &cases {
            let t = describe(s);
            for form in [&t.long, &t.short, &t.tiny] {
                assert!(form.contains(word), "{word:?} in {t:?}");
            }
        }
        let offline = describe(&cases[1].0);
        assert!(offline.short.contains("offline"), "{offline:?}");
        assert!(describe(&cases[2].0).long.contains("12 s: r retries"));
        assert!(describe(&cases[2].0).alarm && describe(&cases[3].0).alarm);
        let built_in = describe(&StateOf {
            model: Some("built-in model".into()),
            ..state(Ranker::Hybrid)
        });
        assert_eq!(built_in.long, "hybrid · built-in model");
        assert_eq!(built_in.tiny, "hybrid");
        let evil = describe(&StateOf {
            model: Some("m\x1b[2J".into()),
            ..state(Ranker::Embeddings)
        });
        assert!(!evil.long.chars().any(crate::terminal_text::is_unsafe));
    }
}
