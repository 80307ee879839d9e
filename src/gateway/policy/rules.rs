//! Per-tool rules of the gateway (`[gateway.tools]`, `--allow`, `--deny`,
//! `--ask`): `allow` (the default), `deny` (never listed, never found,
//! never called) and `ask` (each call needs the user's yes: asked through
//! the host when it supports MCP elicitation, refused otherwise with a
//! message telling the model to ask the user).
//!
//! A pattern is `server/tool`, `server/*`, or a tool's name (the server's
//! or the catalog's), and `*` stands for any run of characters anywhere
//! (`filesystem/write_*`, `*delete*`). A pattern matches a name in every
//! spelling a call's name resolves by: any case, and any joining of its
//! words (`*delete*` matches `Delete_Repo` and `deleteRepo`, since a call
//! of `delete_repo` runs them). The most specific pattern that matches
//! decides: more literal characters first; on a tie the stricter rule
//! (deny, then ask, then allow). A name matches as it reads, too: every
//! name, ASCII or not, is also taken in its look-alike form (NFKC, then
//! its UTS #39 skeleton: `deIete_repo` with a capital I, `de1ete_repo`,
//! `ᵈelete_repo` and `dеlete_repo` with a Cyrillic е all read as
//! `delete_repo`), and a rule that matches that form holds for the name.

use crate::catalog::Tool;
use crate::catalog::pattern::glob;
pub use crate::config::ToolRule;
use crate::engine::analyzer::name_key;
use crate::gateway::GatewayError;

/// The rules, in the order given (the order decides nothing: the most
/// specific pattern does).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ToolRules {
    rules: Vec<(String, ToolRule)>,
}

impl ToolRules {
    /// Sets `pattern` → `rule`, in place of a rule of the same pattern (a
    /// flag's over the file's); an empty pattern is refused with a message.
    pub fn add(&mut self, pattern: &str, rule: ToolRule) -> Result<(), GatewayError> {
        let pattern = pattern.trim();
        if pattern.is_empty() || pattern == "/" {
            return Err(GatewayError::EmptyRule);
        }
        if pattern.matches('/').count() > 1 {
            return Err(GatewayError::RuleShape {
                pattern: pattern.to_string(),
            });
        }
        match self.rules.iter_mut().find(|(p, _)| p == pattern) {
            Some(slot) => slot.1 = rule,
            None => self.rules.push((pattern.to_string(), rule)),
        }
        Ok(())
    }

    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }

    /// The rules as given.
    pub fn iter(&self) -> impl Iterator<Item = (&str, ToolRule)> {
        self.rules.iter().map(|(p, r)| (p.as_str(), *r))
    }

    /// The rule of `tool` (allow when no pattern matches).
    pub fn rule_for(&self, tool: &Tool) -> ToolRule {
        self.matching(tool).unwrap_or(ToolRule::Allow)
    }

    /// The rule of the most specific pattern that matches `tool`, if one does.
    pub fn matching(&self, tool: &Tool) -> Option<ToolRule> {
        self.rules
            .iter()
            .filter(|(p, _)| matches(p, tool))
            .max_by_key(|(p, r)| (specificity(p), *r))
            .map(|(_, r)| *r)
    }

    /// Whether `server` is denied whole: a `server/*` deny matches it and
    /// no rule naming that server and more specific loosens it. Its
    /// prompts, completions and resources are denied with its tools.
    pub fn denies_server(&self, server: &str) -> bool {
        let on_server = |p: &str| {
            p.split_once('/')
                .map(|(s, t)| (spelled(s, server), t == "*"))
        };
        let Some(whole) = self
            .rules
            .iter()
            .filter(|(p, r)| *r == ToolRule::Deny && on_server(p) == Some((true, true)))
            .map(|(p, _)| specificity(p))
            .max()
        else {
            return false;
        };
        !self.rules.iter().any(|(p, r)| {
            *r != ToolRule::Deny
                && specificity(p) > whole
                && on_server(p).is_some_and(|(named, _)| named)
        })
    }

    /// Each pattern and the tools of `tools` it matches only in another
    /// spelling than the tool's (`*delete*` and `Delete_Repo`): the rule
    /// applies to them, and the user should know.
    pub fn respelled<'a>(&'a self, tools: &'a [Tool]) -> Vec<(&'a str, &'a str)> {
        let mut out = Vec::new();
        for (p, _) in &self.rules {
            for t in tools {
                if matches(p, t) && !matches_literally(p, t) {
                    out.push((p.as_str(), t.name.as_str()));
                }
            }
        }
        out
    }

    /// Patterns that match none of `tools` (a typo the user should hear of).
    pub fn unmatched<'a>(&'a self, tools: &[Tool]) -> Vec<&'a str> {
        self.rules
            .iter()
            .filter(|(p, _)| !tools.iter().any(|t| matches(p, t)))
            .map(|(p, _)| p.as_str())
            .collect()
    }
}

/// Literal characters of a pattern: the more, the more specific.
fn specificity(pattern: &str) -> usize {
    pattern.chars().filter(|&c| c != '*').count()
}

/// Whether `pattern` matches `tool` (see the module's rules), in any of
/// the spellings a call's name resolves by.
fn matches(pattern: &str, tool: &Tool) -> bool {
    matches_by(pattern, tool, spelled)
}

/// Whether `pattern` matches `tool` as written, letter for letter.
fn matches_literally(pattern: &str, tool: &Tool) -> bool {
    matches_by(pattern, tool, glob)
}

fn matches_by(pattern: &str, tool: &Tool, like: fn(&str, &str) -> bool) -> bool {
    let (server, original) = match &tool.mcp {
        Some(m) => (Some(m.server.as_ref()), m.name.as_str()),
        None => (None, tool.name.as_str()),
    };
    let names = |p: &str| like(p, original) || like(p, &tool.name);
    match pattern.split_once('/') {
        Some((s, t)) => server.is_some_and(|server| like(s, server)) && names(t),
        None => names(pattern),
    }
}

/// Whether server pattern `pattern` (`time`, `git*`) matches `server`, in
/// any case and any joining of its words, as a rule's server part does.
pub(crate) fn server_matches(pattern: &str, server: &str) -> bool {
    spelled(pattern, server)
}

/// [`glob`] over every spelling a name resolves by: any case (`Delete_Repo`
/// is `delete_repo`), and the name's words whatever joins them
/// (`DeleteRepo`, `delete-repo`: [`name_key`]).
fn spelled(pattern: &str, text: &str) -> bool {
    glob(pattern, text)
        || glob(&pattern.to_lowercase(), &text.to_lowercase())
        || glob(&pattern_key(pattern), &name_key(text))
        || ((reads_otherwise(text) || reads_otherwise(pattern))
            && glob(
                &pattern_key(&look_alike(pattern)),
                &name_key(&look_alike(text)),
            ))
}

/// What `text` looks like, `*` kept: its compatibility form (NFKC: `ᵈ` is
/// `d`, `ｄ` is `d`), then its UTS #39 skeleton (a Cyrillic `е` is `e`,
/// a capital `I` and a `1` are `l`, a `0` is `O`). `dеlete_repo` and
/// `deIete_repo` look like `delete_repo`, and a rule for one holds for
/// the others.
pub(crate) fn look_alike(text: &str) -> String {
    use unicode_normalization::UnicodeNormalization;
    text.split('*')
        .map(|part| {
            let compatible: String = part.nfkc().collect();
            unicode_security::confusable_detection::skeleton(&compatible).collect::<String>()
        })
        .collect::<Vec<_>>()
        .join("*")
}

/// Whether `text` may look like another text: it has a character that
/// is not plain ASCII, or an ASCII one with a look-alike (`I`, `1`, `0`,
/// `m`, ...). Plain text is its own look-alike, and is not worked out.
fn reads_otherwise(text: &str) -> bool {
    static CHANGED: std::sync::OnceLock<[bool; 128]> = std::sync::OnceLock::new();
    let changed = CHANGED.get_or_init(|| {
        let mut t = [false; 128];
        for (b, slot) in t.iter_mut().enumerate() {
            let c = char::from(b as u8);
            *slot = look_alike(&c.to_string()) != c.to_string();
        }
        t
    });
    text.bytes().any(|b| b >= 128 || changed[usize::from(b)])
}

/// Tool names spelled with letters that look like others (`dеlete_repo`
/// with a Cyrillic `е`), each with the name it looks like: a model, and a
/// person reading a log, would take the one for the other.
pub fn look_alike_names(tools: &[Tool]) -> Vec<(&str, String)> {
    tools
        .iter()
        .filter(|t| !t.name.is_ascii())
        .filter_map(|t| {
            let like = look_alike(&t.name);
            (like != t.name && like.is_ascii()).then_some((t.name.as_str(), like))
        })
        .collect()
}

/// A pattern in the form of [`name_key`], each run between `*` turned into
/// its words joined by `_`; a separator at a run's edge stays one
/// (`delete_*` is `delete_*`, so it still does not match `deleted_items`).
fn pattern_key(pattern: &str) -> String {
    let edge = |c: Option<char>| c.is_some_and(|c| !c.is_alphanumeric());
    pattern
        .split('*')
        .map(|part| {
            let key = name_key(part);
            if key.is_empty() {
                return key;
            }
            let before = if edge(part.chars().next()) { "_" } else { "" };
            let after = if edge(part.chars().last()) { "_" } else { "" };
            format!("{before}{key}{after}")
        })
        .collect::<Vec<_>>()
        .join("*")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::McpOrigin;

    fn tool(server: &str, name: &str) -> Tool {
        let mut t = Tool::new(format!("{server}__{name}"), "d");
        t.mcp = Some(McpOrigin::new(server, name));
        t
    }

    #[test]
    fn a_rule_holds_for_a_name_spelled_with_look_alike_letters() {
        let mut rules = ToolRules::default();
        rules.add("fake/delete_repo", ToolRule::Deny).unwrap();
        rules.add("*push*", ToolRule::Ask).unwrap();
        // A Cyrillic е and a Cyrillic р (U+0435, U+0440).
        assert_eq!(
            rules.rule_for(&tool("fake", "d\u{435}lete_repo")),
            ToolRule::Deny
        );
        assert_eq!(
            rules.rule_for(&tool("fake", "git_\u{440}ush")),
            ToolRule::Ask
        );
        assert_eq!(
            rules.rule_for(&tool("fake", "create_repo")),
            ToolRule::Allow
        );
        // ASCII look-alikes and compatibility forms: a capital I, a 1, a
        // modifier letter ᵈ, a fullwidth ｄ.
        let mut delete = ToolRules::default();
        delete.add("*delete*repo*", ToolRule::Deny).unwrap();
        for name in [
            "deIete_repo",
            "de1ete_repo",
            "\u{1d48}elete_repo",
            "\u{ff44}elete_repo",
            "DELETE_REP0",
            "d\u{435}lete_repo",
        ] {
            assert_eq!(
                delete.rule_for(&tool("fake", name)),
                ToolRule::Deny,
                "{name}"
            );
        }
        assert_eq!(
            delete.rule_for(&tool("fake", "deplete_report")),
            ToolRule::Allow
        );
        let tools = [tool("fake", "d\u{435}lete_repo"), tool("fake", "plain")];
        let flagged = look_alike_names(&tools);
        assert_eq!(flagged.len(), 1);
        assert!(flagged[0].1.ends_with("delete_repo"), "{flagged:?}");
    }

    #[test]
    fn a_server_is_denied_whole_by_its_star_unless_a_rule_of_it_loosens_it() {
        let mut rules = ToolRules::default();
        rules.add("everything/*", ToolRule::Deny).unwrap();
        rules.add("send_email", ToolRule::Ask).unwrap();
        assert!(rules.denies_server("everything"));
        assert!(rules.denies_server("Everything"));
        assert!(!rules.denies_server("git"));
        rules.add("ev*/*", ToolRule::Deny).unwrap();
        assert!(rules.denies_server("evil"));
        // A tool of the server allowed: the server is not denied whole.
        rules.add("everything/echo", ToolRule::Allow).unwrap();
        assert!(!rules.denies_server("everything"));
        assert!(rules.denies_server("evil"));
        // A tool's rule is no server's.
        let mut tools_only = ToolRules::default();
        tools_only.add("everything/echo", ToolRule::Deny).unwrap();
        tools_only.add("*", ToolRule::Deny).unwrap();
        assert!(!tools_only.denies_server("everything"));
    }

    #[test]
    fn the_most_specific_pattern_decides_and_a_tie_goes_to_the_stricter() {
        let mut rules = ToolRules::default();
        rules.add("filesystem/*", ToolRule::Ask).unwrap();
        rules.add("filesystem/read_*", ToolRule::Allow).unwrap();
        rules.add("*delete*", ToolRule::Deny).unwrap();
        rules.add("git_status", ToolRule::Ask).unwrap();
        rules.add("git_*", ToolRule::Allow).unwrap();
        assert_eq!(
            rules.rule_for(&tool("filesystem", "write_file")),
            ToolRule::Ask
        );
        assert_eq!(
            rules.rule_for(&tool("filesystem", "read_file")),
            ToolRule::Allow
        );
        assert_eq!(
            rules.rule_for(&tool("memory", "delete_entities")),
            ToolRule::Deny
        );
        assert_eq!(rules.rule_for(&tool("git", "git_status")), ToolRule::Ask);
        assert_eq!(rules.rule_for(&tool("git", "git_log")), ToolRule::Allow);
        assert_eq!(rules.rule_for(&tool("time", "get_time")), ToolRule::Allow);
        // The catalog's (prefixed) name matches too.
        let mut by_catalog_name = ToolRules::default();
        by_catalog_name
            .add("time__get_time", ToolRule::Deny)
            .unwrap();
        assert_eq!(
            by_catalog_name.rule_for(&tool("time", "get_time")),
            ToolRule::Deny
        );
        // A tie: the stricter rule.
        let mut tie = ToolRules::default();
        tie.add("a*", ToolRule::Allow).unwrap();
        tie.add("*a", ToolRule::Ask).unwrap();
        assert_eq!(tie.rule_for(&Tool::new("aa", "d")), ToolRule::Ask);
        // A server pattern never matches a tool of no server.
        assert_eq!(
            rules.rule_for(&Tool::new("write_file", "d")),
            ToolRule::Allow
        );
    }

    #[test]
    fn bad_patterns_are_refused_and_unmatched_ones_named() {
        let mut rules = ToolRules::default();
        assert!(rules.add(" ", ToolRule::Deny).is_err());
        assert!(rules.add("a/b/c", ToolRule::Deny).is_err());
        rules.add("git/*", ToolRule::Deny).unwrap();
        rules.add("gti/*", ToolRule::Deny).unwrap();
        assert_eq!(rules.unmatched(&[tool("git", "git_log")]), ["gti/*"]);
        // The same pattern again: the later rule stands (a flag over the file).
        rules.add("git/*", ToolRule::Allow).unwrap();
        assert_eq!(rules.rule_for(&tool("git", "git_log")), ToolRule::Allow);
        assert_eq!(rules.iter().count(), 2);
    }

    #[test]
    fn a_rule_matches_every_spelling_a_name_resolves_by() {
        let mut rules = ToolRules::default();
        rules.add("*delete*", ToolRule::Deny).unwrap();
        rules.add("git/git_add", ToolRule::Ask).unwrap();
        rules.add("write_*", ToolRule::Ask).unwrap();
        for name in [
            "delete_repo",
            "Delete_Repo",
            "DELETE_REPO",
            "deleteRepo",
            "DeleteRepo",
            "delete-repo",
            "repo.delete",
            "git_delete_branch",
        ] {
            assert_eq!(rules.rule_for(&tool("gh", name)), ToolRule::Deny, "{name}");
        }
        for name in ["git_add", "GIT_ADD", "gitAdd", "git-add", "GitAdd"] {
            assert_eq!(rules.rule_for(&tool("git", name)), ToolRule::Ask, "{name}");
            assert_eq!(rules.rule_for(&tool("Git", name)), ToolRule::Ask, "{name}");
        }
        for name in ["write_file", "WriteFile", "write-file", "Write_File"] {
            assert_eq!(rules.rule_for(&tool("fs", name)), ToolRule::Ask, "{name}");
        }
        // A separator in the pattern still asks for a word's end.
        assert_eq!(rules.rule_for(&tool("fs", "writer_info")), ToolRule::Allow);
        assert_eq!(rules.rule_for(&tool("fs", "rewrite_file")), ToolRule::Allow);
        // Those matched only in another spelling are named.
        let tools = [tool("gh", "Delete_Repo"), tool("gh", "delete_issue")];
        assert_eq!(rules.respelled(&tools), [("*delete*", "gh__Delete_Repo")]);
    }
}
