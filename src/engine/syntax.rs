//! What a request's text asks for, beyond its words, in the syntax agent
//! hosts' tool searches use:
//!
//! - `select:NAME[,NAME...]` loads exactly the named tools (names as agents
//!   write them, namespaced or not);
//! - names as agents write them, under their server's namespace
//!   (`mcp__github__create_issue`, `github.create_issue`), read the same way
//!   here and in a request's words ([`namespace_tails`]);
//! - `+term` marks a word every returned tool must contain (`+github`,
//!   `+pull_request` for both words); the word still ranks as any other.

use super::analyzer::{for_each_word, name_key};

/// A request's text, read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Request {
    /// `select:a,b`: the names, in order, without blanks or repeats.
    Select(Vec<String>),
    /// A search; `required` are the words (lower case) of its `+term`s.
    Search { required: Vec<String> },
}

/// The prefix of a selection.
pub const SELECT: &str = "select:";

/// Reads `query`.
pub fn parse(query: &str) -> Request {
    let trimmed = query.trim_start();
    if let Some(rest) = trimmed
        .get(..SELECT.len())
        .filter(|p| p.eq_ignore_ascii_case(SELECT))
        .map(|_| &trimmed[SELECT.len()..])
    {
        let mut names: Vec<String> = Vec::new();
        for name in rest.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            if !names.iter().any(|n| n == name) {
                names.push(name.to_string());
            }
        }
        return Request::Select(names);
    }
    let mut required: Vec<String> = Vec::new();
    let mut buf = String::new();
    for token in query.split_whitespace() {
        let Some(term) = token.strip_prefix('+') else {
            continue;
        };
        for_each_word(term, &mut buf, |w| {
            if !required.iter().any(|r| r == w) {
                required.push(w.to_string());
            }
        });
    }
    Request::Search { required }
}

/// A catalog's tool names, ready to resolve names as agents write them
/// ([`Names::resolve`]); built once per request.
#[derive(Debug)]
pub struct Names<'a> {
    names: &'a [&'a str],
    /// Each name's words joined (`name_key`).
    keys: Vec<String>,
}

impl<'a> Names<'a> {
    pub fn new(names: &'a [&'a str]) -> Names<'a> {
        Names {
            names,
            keys: names.iter().map(|n| name_key(n)).collect(),
        }
    }

    /// The tool (an index into the names) an agent means by `written`: the
    /// exact name, else the same words (`GetMe` for `get_me`), else the name
    /// without its namespace (`mcp__github__get_me`, `github.get_me`,
    /// `github/get_me` for `get_me` or `github__get_me`), else the one tool
    /// whose name is `written` under a namespace (`get_me` for
    /// `github__get_me`, when no other server has a `get_me`). Namespaces
    /// are read as in a request ([`namespace_tails`]).
    pub fn resolve(&self, written: &str) -> Option<usize> {
        let written = written.trim();
        if let Some(i) = self.names.iter().position(|n| *n == written) {
            return Some(i);
        }
        let candidates = std::iter::once(written).chain(namespace_tails(written).map(|(t, _)| t));
        for candidate in candidates {
            let key = name_key(candidate);
            if !key.is_empty()
                && let Some(i) = self.keys.iter().position(|k| *k == key)
            {
                return Some(i);
            }
        }
        let key = name_key(written);
        if key.is_empty() {
            return None;
        }
        let mut under = self
            .names
            .iter()
            .enumerate()
            .filter(|(_, n)| namespace_tails(n).any(|(tail, _)| name_key(tail) == key));
        match (under.next(), under.next()) {
            (Some((i, _)), None) => Some(i),
            _ => None,
        }
    }
}

/// At most this many namespace parts of one token are looked up (the last
/// ones), so a hostile `a.a.a.a…` costs a bounded number of lookups.
pub(crate) const MAX_TAILS: usize = 8;

/// What follows each namespace separator of `token`, longest first, with the
/// separator: `__` (two or more `_`), `.` or `/`, with a letter or digit on
/// both sides. `mcp__github__create_issue` gives `github__create_issue` and
/// `create_issue`; `create_issue` and `__init__` give nothing.
pub(crate) fn namespace_tails(token: &str) -> impl Iterator<Item = (&str, &'static str)> {
    let b = token.as_bytes();
    let word = |c: u8| c.is_ascii_alphanumeric() || !c.is_ascii();
    let Some(last_word) = b.iter().rposition(|&c| word(c)) else {
        return Vec::new().into_iter();
    };
    let mut tails = Vec::new();
    let mut seen_word = false;
    let mut i = 0;
    while i < b.len() {
        if !matches!(b[i], b'_' | b'.' | b'/') {
            seen_word |= word(b[i]);
            i += 1;
            continue;
        }
        let start = i;
        while i < b.len() && matches!(b[i], b'_' | b'.' | b'/') {
            i += 1;
        }
        let run = &token[start..i];
        let sep = if run.contains('/') {
            "/"
        } else if run.contains('.') {
            "."
        } else if run.len() >= 2 {
            "__"
        } else {
            continue;
        };
        if seen_word && last_word >= i {
            tails.push((&token[i..], sep));
        }
    }
    let skip = tails.len().saturating_sub(MAX_TAILS);
    tails.drain(..skip);
    tails.into_iter()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resolve(written: &str, names: &[&str]) -> Option<usize> {
        Names::new(names).resolve(written)
    }

    #[test]
    fn a_hostile_name_costs_a_bounded_number_of_lookups() {
        // 100,000 namespaces: only the last few are tried.
        let hostile = format!("{}create_issue", "a.".repeat(100_000));
        assert_eq!(resolve(&hostile, &["create_issue", "list"]), Some(0));
        assert_eq!(resolve(&"a.".repeat(100_000), &["create_issue"]), None);
    }

    #[test]
    fn a_bare_name_under_two_namespaces_is_not_guessed() {
        let names = ["github__get_me", "gitlab__get_me"];
        assert_eq!(resolve("get_me", &names), None);
        assert_eq!(resolve("mcp__gitlab__get_me", &names), Some(1));
    }

    #[test]
    fn names_resolve_as_agents_write_them() {
        let names = ["create_issue", "github__get_me", "list.files"];
        for (written, want) in [
            ("create_issue", Some(0)),
            ("CreateIssue", Some(0)),
            ("github__create_issue", Some(0)),
            ("mcp__github__create_issue", Some(0)),
            ("github.create_issue", Some(0)),
            ("github/create_issue", Some(0)),
            ("mcp__github__get_me", Some(1)),
            ("get_me", Some(1)),
            ("list.files", Some(2)),
            ("fs/list.files", Some(2)),
            ("issue", None),
            ("create", None),
            ("", None),
        ] {
            assert_eq!(resolve(written, &names), want, "{written}");
        }
    }

    #[test]
    fn a_selection_lists_its_names_once_each() {
        assert_eq!(
            parse("select:create_issue, github__get_me,,create_issue"),
            Request::Select(vec!["create_issue".into(), "github__get_me".into()])
        );
        assert_eq!(parse("  SELECT:a"), Request::Select(vec!["a".into()]));
        assert_eq!(parse("select:"), Request::Select(Vec::new()));
        // Not at the start: words like any other.
        assert_eq!(
            parse("please select: a tool"),
            Request::Search {
                required: Vec::new()
            }
        );
    }

    #[test]
    fn plus_terms_are_required_words() {
        assert_eq!(
            parse("open an issue +github +Pull_Request 1+1"),
            Request::Search {
                required: vec!["github".into(), "pull".into(), "request".into()]
            }
        );
        assert_eq!(
            parse("+ alone +++"),
            Request::Search {
                required: Vec::new()
            }
        );
    }
}
