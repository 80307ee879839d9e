//! Exact-name matching: tools the query names verbatim (`get_weather`,
//! `getWeather`, `github.create_issue`, or a one-word name in backticks) rank
//! first.
//!
//! Agents often write the name they were shown, with a namespace in front:
//! `server__tool`, `mcp__server__tool`, `server.tool`, `server/tool`. What
//! follows a namespace separator (`__`, `.` or `/`) names a tool when it is the
//! whole of that tool's name: `mcp__github__create_issue` finds `create_issue`
//! and `github__create_issue`, never `issue` (one `_` joins the words of a
//! name; it is not a namespace). The longest part that names a tool wins.

use super::Index;
use crate::engine::analyzer::{for_each_word, name_key};
use crate::engine::syntax::namespace_tails;

impl Index {
    /// The server whose name (as a name key: lower case, words joined by
    /// `_`) is `text`, if a tool of this catalog comes from it.
    fn server_named(&self, text: &str) -> Option<u32> {
        if self.server_keys.is_empty() {
            return None;
        }
        self.server_keys.get(name_key(text).as_str()).copied()
    }

    /// Tools the query names exactly, in the order it names them. A one-word
    /// name counts only when it is the whole query or quoted in backticks; a
    /// name of several words counts wherever it stands as one token.
    pub(super) fn exact_names(&self, query: &str) -> Vec<usize> {
        let mut found = Found::default();
        // Most requests name no tool: skip them with one pass over the bytes.
        let maybe_name = may_name_a_tool(query.as_bytes())
            || !query.trim().contains(char::is_whitespace)
            || !query.is_ascii();
        if !maybe_name {
            return found.tools;
        }
        let trimmed = query.trim();
        let whole = trimmed.trim_matches(punct);
        if !whole.is_empty() && !whole.contains(char::is_whitespace) {
            self.consider(whole, true, &mut found);
            return found.tools;
        }
        for raw in trimmed.split_ascii_whitespace() {
            if raw.is_ascii() && !may_name_a_tool(raw.as_bytes()) {
                continue;
            }
            let quoted = raw.starts_with('`')
                && raw
                    .trim_end_matches(['.', ',', ';', ':', '?', '!'])
                    .ends_with('`');
            let token = raw.trim_matches(punct);
            // A name is an identifier: it has a separator or a case change.
            let identifier = token
                .bytes()
                .any(|b| matches!(b, b'_' | b'.' | b'-' | b'/'))
                || token.chars().skip(1).any(char::is_uppercase);
            if !token.is_empty() && (identifier || quoted) {
                self.consider(token, quoted, &mut found);
            }
        }
        found.tools
    }

    /// Adds the tools `token` names: the whole token, then what follows
    /// each namespace separator, longest first; the first part that names a
    /// tool wins. A one-word part counts where a one-word name would
    /// (`single_ok`), or after `__` (a namespace only tools are written
    /// with; `.` and `/` also join file names and paths). `server/tool`
    /// (any separator) names that server's tool, one word or several: only
    /// its tools of that name count.
    fn consider(&self, token: &str, single_ok: bool, found: &mut Found) {
        let tails = namespace_tails(token).map(|(tail, sep)| {
            let head = token[..token.len() - tail.len()].trim_end_matches(['_', '.', '/']);
            let server = self.server_named(last_namespace(head));
            (tail, single_ok || sep == "__" || server.is_some(), server)
        });
        for (part, single_ok, server) in std::iter::once((token, single_ok, None)).chain(tails) {
            if self.add_named(part, single_ok, server, found) {
                return;
            }
        }
    }

    /// Adds the tools `part` is the name of (of `server` only, when given);
    /// whether it named any.
    fn add_named(
        &self,
        part: &str,
        single_ok: bool,
        server: Option<u32>,
        found: &mut Found,
    ) -> bool {
        let key = &mut found.key;
        key.clear();
        for_each_word(part, &mut found.buf, |w| {
            key.push_str(w);
            key.push('_');
        });
        key.pop();
        let Some((docs, words)) = self.names.get(key.as_str()) else {
            return false;
        };
        if *words <= 1 && !single_ok {
            return false;
        }
        let of_server = |d: &&u32| server.is_none_or(|s| self.servers[**d as usize] == s);
        let mut any = false;
        for &d in docs.iter().filter(of_server) {
            any = true;
            if !found.tools.contains(&(d as usize)) {
                found.tools.push(d as usize);
            }
        }
        any
    }
}

/// The tools a query names, found so far, and room for a name's key.
#[derive(Default)]
struct Found {
    tools: Vec<usize>,
    key: String,
    buf: String,
}

/// Punctuation around a token that names a tool (quotes, backticks,
/// brackets, a sentence's marks).
fn punct(c: char) -> bool {
    matches!(
        c,
        '`' | '\''
            | '"'
            | '.'
            | ','
            | ';'
            | ':'
            | '!'
            | '?'
            | '('
            | ')'
            | '['
            | ']'
            | '{'
            | '}'
            | '<'
            | '>'
    )
}

/// The namespace right before the tool: `mcp__github__x`'s `github` (given
/// `mcp__github`).
fn last_namespace(head: &str) -> &str {
    [
        head.rfind('/'),
        head.rfind('.'),
        head.rfind("__").map(|i| i + 1),
    ]
    .into_iter()
    .flatten()
    .max()
    .map_or(head, |i| &head[i + 1..])
}

/// Byte classes for [`may_name_a_tool`].
const LOWER: u8 = 1;
const UPPER: u8 = 2;
const DIGIT: u8 = 4;
const SEP: u8 = 8;
const TICK: u8 = 16;
static BYTE_CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut i = 0;
    while i < 256 {
        let c = i as u8;
        t[i] = if c.is_ascii_lowercase() {
            LOWER
        } else if c.is_ascii_uppercase() {
            UPPER
        } else if c.is_ascii_digit() {
            DIGIT
        } else if matches!(c, b'_' | b'.' | b'-' | b'/') {
            SEP
        } else if c == b'`' {
            TICK
        } else {
            0
        };
        i += 1;
    }
    t
};

/// Whether an ASCII text may contain a tool name: a backtick, a case change
/// inside a word (`getUser`), or a separator (or a run of them) inside a word
/// with a letter on one side (`get_user`, `github.issue`, `server__tool`, but
/// not `3.5` or `2024-01-02`). One table lookup per byte: most bytes are
/// letters, digits or spaces and pass at once.
fn may_name_a_tool(b: &[u8]) -> bool {
    const ALNUM: u8 = LOWER | UPPER | DIGIT;
    let mut prev = 0u8;
    let mut i = 0;
    while i < b.len() {
        let c = BYTE_CLASS[b[i] as usize];
        if c == TICK || (c == UPPER && prev == LOWER) {
            return true;
        }
        if c == SEP && prev & ALNUM != 0 {
            // A run of separators, then what follows it.
            let mut j = i + 1;
            while j < b.len() && BYTE_CLASS[b[j] as usize] == SEP {
                j += 1;
            }
            let next = b.get(j).map_or(0, |&n| BYTE_CLASS[n as usize]);
            if next & ALNUM != 0 && (prev | next) & (LOWER | UPPER) != 0 {
                return true;
            }
            // The run's last separator is the next byte's neighbour.
            prev = SEP;
            i = j;
            continue;
        }
        prev = c;
        i += 1;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The rule as first written: every byte looks at its neighbours.
    fn by_the_book(b: &[u8]) -> bool {
        let class = |i: usize| b.get(i).map_or(0, |&c| BYTE_CLASS[c as usize]);
        for i in 0..b.len() {
            let c = BYTE_CLASS[b[i] as usize];
            match c {
                TICK => return true,
                LOWER if class(i + 1) == UPPER => return true,
                SEP => {
                    let alnum = LOWER | UPPER | DIGIT;
                    let prev = if i > 0 { class(i - 1) } else { 0 };
                    if prev & alnum == 0 {
                        continue;
                    }
                    let mut j = i + 1;
                    while class(j) == SEP {
                        j += 1;
                    }
                    let next = class(j);
                    if next & alnum != 0 && (prev | next) & (LOWER | UPPER) != 0 {
                        return true;
                    }
                }
                _ => {}
            }
        }
        false
    }

    #[test]
    fn names_are_suspected_and_numbers_are_not() {
        for yes in [
            "get_user",
            "getUser",
            "a `x`",
            "github.issue",
            "server__tool",
            "x-y",
            "a_.b",
        ] {
            assert!(may_name_a_tool(yes.as_bytes()), "{yes}");
        }
        for no in [
            "3.5 kg",
            "2024-01-02",
            "plain words here",
            "A. B",
            "_x",
            "x_ 1",
            "",
        ] {
            assert!(!may_name_a_tool(no.as_bytes()), "{no}");
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 4096, ..ProptestConfig::default() })]

        #[test]
        fn one_lookup_per_byte_decides_as_the_rule_does(text in "[aZ9_./` -]{0,24}") {
            prop_assert_eq!(may_name_a_tool(text.as_bytes()), by_the_book(text.as_bytes()));
        }
    }
}
