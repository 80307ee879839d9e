//! What a request's text asks for, beyond its words, in the syntax agent
//! hosts' tool searches use:
//!
//! - `select:NAME[,NAME...]` loads exactly the named tools (names as agents
//!   write them, namespaced or not);
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

/// The tool (an index into `names`) an agent means by `written`: the exact
/// name, else the same words (`GetMe` for `get_me`), else the name without
/// its namespace (`mcp__github__get_me`, `github.get_me`, `github/get_me`
/// for `get_me` or `github__get_me`), else the one tool whose name is
/// `written` under a namespace (`get_me` for `github__get_me`, when no
/// other server has a `get_me`).
pub fn resolve(written: &str, names: &[&str]) -> Option<usize> {
    let written = written.trim();
    if let Some(i) = names.iter().position(|n| *n == written) {
        return Some(i);
    }
    let keys: Vec<String> = names.iter().map(|n| name_key(n)).collect();
    for candidate in namespaces_dropped(written) {
        let key = name_key(candidate);
        if !key.is_empty()
            && let Some(i) = keys.iter().position(|k| *k == key)
        {
            return Some(i);
        }
    }
    let key = name_key(written);
    let mut under = names
        .iter()
        .enumerate()
        .filter(|(_, n)| namespaces_dropped(n).skip(1).any(|c| name_key(c) == key));
    match (under.next(), under.next()) {
        (Some((i, _)), None) if !key.is_empty() => Some(i),
        _ => None,
    }
}

/// `name`, then `name` without its first namespace, and so on
/// (`a__b.c`, `b.c`, `c`).
fn namespaces_dropped(name: &str) -> impl Iterator<Item = &str> {
    let mut next = Some(name);
    std::iter::from_fn(move || {
        let current = next?;
        next = ["__", ".", "/"]
            .iter()
            .filter_map(|sep| current.find(sep).map(|at| &current[at + sep.len()..]))
            .min_by_key(|rest| std::cmp::Reverse(rest.len()));
        Some(current)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

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
