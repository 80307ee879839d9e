//! What a command line says: an action of the panes by its keymap name,
//! or one of the few settings, read into a [`Command`] or refused with a
//! message that names the bad word; and the words Tab completes.

use crate::engine::Ranker;
use crate::settings::flags;
use crate::tokens::TokenBasis;
use crate::tools_handle::{InitialToolCount, MaxTools, SelectError, Strategy};
use crate::tui::action::{Action, Context};
use crate::tui::pane::catalog::Sort;

/// A command read from the line.
#[derive(Debug, Clone, PartialEq)]
pub enum Command {
    /// An action of the panes (or of every screen), as its key does it.
    Act(Action),
    /// `:cap N` (`none`: no cap).
    Cap(Option<MaxTools>),
    /// `:initial N`.
    Initial(InitialToolCount),
    Ranker(Ranker),
    Strategy(Strategy),
    Gate(bool),
    Basis(TokenBasis),
    /// `:sort COLUMN [reverse]`.
    Sort(Sort, bool),
    /// `:open FILE`: the catalog read from FILE.
    Open(String),
    /// `:follow URL`.
    Follow(String),
    /// `:search WORDS`: the words searched and committed.
    Search(String),
}

/// The commands beyond the actions' names: `(name, argument, what)`, in
/// the order help lists them.
pub const SETTINGS: &[(&str, &str, &str)] = &[
    (
        "cap",
        "N|none",
        "the search cap (max_loaded_tools, or max_tools when set), as the settings popup sets it",
    ),
    (
        "initial",
        "N",
        "the initial set's size (initial_tool_count)",
    ),
    ("ranker", "bm25|embeddings|hybrid", "the ranker"),
    ("strategy", "deferred|all", "the loading strategy"),
    ("gate", "on|off", "the relevance gate"),
    (
        "basis",
        "BASIS",
        "the token basis (toolsift explore --help lists them)",
    ),
    (
        "sort",
        "COLUMN [reverse]",
        "sort the catalog by catalog, name, tokens, flags or server; reverse runs it the other way",
    ),
    (
        "search",
        "WORDS",
        "search these words, as Enter in the query box does",
    ),
    (
        "open",
        "FILE",
        "read the catalog from FILE (JSON, JSONL or @name), as explore FILE does",
    ),
    (
        "follow",
        "URL [KEY_ENV]",
        "follow a running gateway's or service's traffic (or a trace file) from now on, its key in the variable KEY_ENV (as explore --follow URL --follow-key-env KEY_ENV)",
    ),
    ("q", "", "quit (also :quit, :q!)"),
];

/// The actions a command line runs: the panes' and every screen's.
fn runnable(action: Action) -> bool {
    matches!(action.context(), Context::Main | Context::Global)
}

/// Every first word the line takes, sorted.
pub fn names() -> Vec<&'static str> {
    let mut names: Vec<&'static str> = Action::ALL
        .iter()
        .copied()
        .filter(|a| runnable(*a) && *a != Action::CommandLine)
        .map(Action::name)
        .chain(SETTINGS.iter().map(|(n, _, _)| *n))
        .chain(["quit"])
        .collect();
    names.sort_unstable();
    names.dedup();
    names
}

/// Whether the command `name` takes an argument (Tab adds a space after it).
pub fn takes_argument(name: &str) -> bool {
    SETTINGS
        .iter()
        .any(|(n, arg, _)| *n == name && !arg.is_empty())
}

/// The values Tab offers for the argument of `name`.
fn values(name: &str) -> Vec<String> {
    let words = |all: &[&str]| all.iter().map(|s| s.to_string()).collect();
    match name {
        "ranker" => Ranker::WORDS
            .iter()
            .map(|r| r.as_str().to_string())
            .collect(),
        "strategy" => Strategy::ALL.iter().map(ToString::to_string).collect(),
        "gate" => words(&["on", "off"]),
        "basis" => TokenBasis::ALL.iter().map(ToString::to_string).collect(),
        "sort" => Sort::ALL.iter().map(|s| s.word().to_string()).collect(),
        "cap" => words(&["none"]),
        _ => Vec::new(),
    }
}

/// What Tab may put for the word being typed at the end of `text`: the
/// text before that word, and the candidates (sorted).
pub fn candidates(text: &str) -> (String, Vec<String>) {
    let trimmed = text.trim_start();
    match trimmed.split_once(char::is_whitespace) {
        None => (
            String::new(),
            names()
                .into_iter()
                .filter(|n| n.starts_with(trimmed))
                .map(String::from)
                .collect(),
        ),
        Some((name, rest)) => {
            let rest = rest.trim_start();
            // Only the first argument is completed.
            if rest.contains(char::is_whitespace) {
                return (text.to_string(), Vec::new());
            }
            let head = format!("{name} ");
            let found = values(name)
                .into_iter()
                .filter(|v| v.starts_with(rest))
                .collect();
            (head, found)
        }
    }
}

/// The longest start every candidate shares.
pub fn common_prefix(candidates: &[String]) -> String {
    let Some(first) = candidates.first() else {
        return String::new();
    };
    let mut end = first.len();
    for c in &candidates[1..] {
        end = first
            .char_indices()
            .zip(c.chars())
            .take_while(|((_, a), b)| a == b)
            .last()
            .map_or(0, |((i, a), _)| i + a.len_utf8())
            .min(end);
    }
    first[..end].to_string()
}

/// Why a command line was not read: the bottom line's words (a word the
/// user typed is quoted and escaped for the terminal).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NotRead {
    #[error("no command: type one, Tab lists them")]
    Empty,
    /// `:name` without the value it needs (`what`, as its usage names it).
    #[error(":{name} needs {what} (:{name} {what})")]
    Needs { name: String, what: &'static str },
    /// `:what` takes `takes`, not the word typed (quoted).
    #[error(":{what} takes {takes}, not {typed}")]
    Takes {
        what: String,
        takes: String,
        typed: String,
    },
    /// The count read, refused by its own check.
    #[error(":{what} refused: {why}")]
    Refused { what: String, why: String },
    /// The value read, not one of the setting's (`what`: the command and
    /// the word typed).
    #[error(":{what}: {why}")]
    Invalid { what: String, why: String },
    /// An action of another screen (its section's title in help).
    #[error(
        ":{name} is a key of another screen ({screen}), not of the panes: open that screen first"
    )]
    OtherScreen { name: String, screen: &'static str },
    /// No column of that name (quoted) to sort by.
    #[error(":sort by {choices}, not {typed}")]
    SortBy { choices: String, typed: String },
    /// No command of that name (quoted).
    #[error("no command {0} (Tab lists them; ? shows them all)")]
    Unknown(String),
}

/// Reads a line (without its `:`).
pub fn parse(line: &str) -> Result<Command, NotRead> {
    let line = line.trim();
    let (name, arg) = match line.split_once(char::is_whitespace) {
        Some((n, a)) => (n, a.trim()),
        None => (line, ""),
    };
    let shown = crate::terminal_text::escape(name);
    let need = |what: &'static str| {
        if arg.is_empty() {
            Err(NotRead::Needs {
                name: name.to_string(),
                what,
            })
        } else {
            Ok(arg)
        }
    };
    match name {
        "" => Err(NotRead::Empty),
        "q" | "quit" | "q!" | "qa" => no_argument(name, arg, Command::Act(Action::QuitNow)),
        "cap" => {
            let value = need("N")?;
            if matches!(value, "none" | "off") {
                return Ok(Command::Cap(None));
            }
            let n = flags::whole_number(value)
                .ok_or_else(|| takes("cap", "a whole number or none", value))?;
            MaxTools::checked(Some(n), SelectError::MaxTools)
                .map(|n| Command::Cap(Some(n)))
                .map_err(|e| refused(format!("cap {n}"), e))
        }
        "initial" => {
            let n = flags::whole_number(need("N")?)
                .ok_or_else(|| takes("initial", "a whole number", arg))?;
            InitialToolCount::checked(Some(n))
                .map(Command::Initial)
                .map_err(|e| refused(format!("initial {n}"), e))
        }
        "ranker" => flags::word_ranker(need("NAME")?)
            .map(Command::Ranker)
            .map_err(|e| invalid(format!("ranker {}", quote(arg)), e)),
        "strategy" => flags::strategy(need("NAME")?)
            .map(Command::Strategy)
            .map_err(|e| invalid(format!("strategy {}", quote(arg)), e)),
        "gate" => flags::on_off(need("on|off")?)
            .map(Command::Gate)
            .map_err(|e| invalid("gate".into(), e)),
        "basis" => flags::token_basis(need("BASIS")?)
            .map(Command::Basis)
            .map_err(|e| invalid(format!("basis {}", quote(arg)), e)),
        "sort" => sort(need("COLUMN")?),
        "search" => Ok(Command::Search(need("WORDS")?.to_string())),
        "open" => Ok(Command::Open(need("FILE")?.to_string())),
        "follow" => Ok(Command::Follow(need("URL")?.to_string())),
        _ => match Action::from_name(name) {
            Some(a) if runnable(a) => no_argument(name, arg, Command::Act(a)),
            Some(a) => Err(NotRead::OtherScreen {
                name: name.to_string(),
                screen: a.context().title(),
            }),
            None => Err(NotRead::Unknown(quote(&shown))),
        },
    }
}

fn no_argument(name: &str, arg: &str, command: Command) -> Result<Command, NotRead> {
    if arg.is_empty() {
        Ok(command)
    } else {
        Err(takes(name, "no argument", arg))
    }
}

/// `:what` takes `takes`, not `typed`.
fn takes(what: &str, takes: &str, typed: &str) -> NotRead {
    NotRead::Takes {
        what: what.to_string(),
        takes: takes.to_string(),
        typed: quote(typed),
    }
}

/// `:what` refused by the count's own check.
fn refused(what: String, why: impl std::fmt::Display) -> NotRead {
    NotRead::Refused {
        what,
        why: why.to_string(),
    }
}

/// `:what` is not one of the setting's values.
fn invalid(what: String, why: impl std::fmt::Display) -> NotRead {
    NotRead::Invalid {
        what,
        why: why.to_string(),
    }
}

fn sort(arg: &str) -> Result<Command, NotRead> {
    let mut words = arg.split_whitespace();
    let column = words.next().unwrap_or("");
    let reverse = match words.next() {
        None => false,
        Some("reverse" | "rev" | "desc" | "-r") => true,
        Some(other) => {
            return Err(takes(
                &format!("sort {column}"),
                "reverse or nothing after it",
                other,
            ));
        }
    };
    let choices = Sort::ALL.map(Sort::word).join(", ");
    Sort::named(column)
        .map(|s| Command::Sort(s, reverse))
        .ok_or_else(|| NotRead::SortBy {
            choices,
            typed: quote(column),
        })
}

/// A word the user typed, quoted and escaped for the status line.
fn quote(text: &str) -> String {
    format!("\"{}\"", crate::terminal_text::escape(text))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn actions_and_settings_read_and_bad_values_are_named() {
        assert_eq!(parse("tune"), Ok(Command::Act(Action::Tune)));
        assert_eq!(parse(" q "), Ok(Command::Act(Action::QuitNow)));
        assert_eq!(parse("cap 8"), Ok(Command::Cap(MaxTools::new(8))));
        assert_eq!(parse("cap none"), Ok(Command::Cap(None)));
        assert_eq!(parse("ranker hybrid"), Ok(Command::Ranker(Ranker::Hybrid)));
        assert_eq!(parse("strategy all"), Ok(Command::Strategy(Strategy::All)));
        assert_eq!(
            parse("sort tokens reverse"),
            Ok(Command::Sort(Sort::Tokens, true))
        );
        assert_eq!(parse("gate off"), Ok(Command::Gate(false)));
        let err = parse("cap eight").unwrap_err().to_string();
        assert!(err.contains("\"eight\""), "{err}");
        let err = parse("ranker fast").unwrap_err().to_string();
        assert!(err.contains("\"fast\"") && err.contains("bm25"), "{err}");
        let err = parse("strategy most").unwrap_err().to_string();
        assert!(err.contains("\"most\""), "{err}");
        let err = parse("sort colour").unwrap_err().to_string();
        assert!(
            err.contains("\"colour\"") && err.contains("tokens"),
            "{err}"
        );
        let err = parse("frobnicate").unwrap_err().to_string();
        assert!(err.contains("\"frobnicate\""), "{err}");
        let err = parse("cap").unwrap_err().to_string();
        assert!(err.contains(":cap N"), "{err}");
        let err = parse("tune now").unwrap_err().to_string();
        assert!(err.contains("no argument"), "{err}");
        // Another screen's action says where it belongs.
        let err = parse("tune_apply").unwrap_err().to_string();
        assert!(err.contains("Tune"), "{err}");
        // Untrusted bytes never reach the terminal raw.
        let err = parse("\u{1b}[2J").unwrap_err().to_string();
        assert!(!err.contains('\u{1b}'), "{err}");
    }

    #[test]
    fn a_line_not_read_says_so_in_the_same_words() {
        let said = |line: &str| parse(line).unwrap_err().to_string();
        assert_eq!(said(""), "no command: type one, Tab lists them");
        assert_eq!(said("cap"), ":cap needs N (:cap N)");
        assert_eq!(
            said("initial x"),
            ":initial takes a whole number, not \"x\""
        );
        assert_eq!(said("q now"), ":q takes no argument, not \"now\"");
        assert_eq!(
            said("sort name up"),
            ":sort name takes reverse or nothing after it, not \"up\""
        );
        assert!(said("cap 0").starts_with(":cap 0 refused: "));
        assert!(said("gate maybe").starts_with(":gate: "));
        let sort = said("sort colour");
        assert!(
            sort.starts_with(":sort by ") && sort.ends_with(", not \"colour\""),
            "{sort}"
        );
    }

    #[test]
    fn tab_offers_names_then_values() {
        let (head, found) = candidates("co");
        assert_eq!(head, "");
        assert_eq!(found, ["compare", "copy_tool"]);
        assert_eq!(common_prefix(&found), "co");
        let (head, found) = candidates("ranker h");
        assert_eq!(
            (head.as_str(), found),
            ("ranker ", vec!["hybrid".to_string()])
        );
        let (_, found) = candidates("sort ");
        assert!(found.contains(&"flags".to_string()), "{found:?}");
        assert_eq!(
            common_prefix(&["focus_catalog".into(), "focus_query".into()]),
            "focus_"
        );
        assert!(names().contains(&"quit_now") && names().contains(&"cap"));
        assert!(!names().contains(&"command_line") && !names().contains(&"tune_apply"));
    }
}
