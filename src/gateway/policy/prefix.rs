//! A call's name that puts another server's name in front of a tool
//! (`evil__git_add` for git's `git_add`): the name resolves, since agents
//! write namespaces of their own (`mcp__git__git_add`), but a namespace
//! that names another server of this gateway is a claim the tool does not
//! back, and the call is refused rather than run on the wrong server's
//! word.

use crate::engine::analyzer::name_key;

/// The server of this gateway that `written` names in front of a tool of
/// `own` (its server's name), when it names one and not `own`: the call is
/// refused. `servers` are the gateway's server names; `tool` is the tool's
/// name as the gateway lists it (a name the catalog holds as written names
/// no namespace of its own).
pub(crate) fn foreign_server<'a>(
    written: &str,
    tool: &str,
    own: &str,
    servers: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    if written == tool || name_key(written) == name_key(tool) {
        return None;
    }
    let parts = namespace_parts(written);
    if parts.len() < 2 {
        return None;
    }
    // The namespaces: every part but the last (the tool's own name).
    let keys: Vec<String> = parts[..parts.len() - 1]
        .iter()
        .map(|p| name_key(p))
        .collect();
    if keys.contains(&name_key(own)) {
        return None;
    }
    servers
        .into_iter()
        .find(|s| *s != own && keys.contains(&name_key(s)))
}

/// `written` split at its namespace separators: a run of two or more `_`,
/// or any run holding `.` or `/` (`mcp__git__git_add` is `mcp`, `git`,
/// `git_add`; `git.git_add` is `git`, `git_add`).
fn namespace_parts(written: &str) -> Vec<&str> {
    let b = written.as_bytes();
    let mut parts = Vec::new();
    let (mut start, mut i) = (0, 0);
    while i < b.len() {
        if !matches!(b[i], b'_' | b'.' | b'/') {
            i += 1;
            continue;
        }
        let run = i;
        while i < b.len() && matches!(b[i], b'_' | b'.' | b'/') {
            i += 1;
        }
        let sep = &written[run..i];
        if (sep.len() >= 2 || sep.contains(['.', '/'])) && run > start && i < b.len() {
            parts.push(&written[start..run]);
            start = i;
        }
    }
    if start < b.len() {
        parts.push(&written[start..]);
    }
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    const SERVERS: [&str; 4] = ["git", "evil", "sequential-thinking", "fs"];

    fn foreign(written: &str, tool: &str, own: &str) -> Option<&'static str> {
        foreign_server(written, tool, own, SERVERS)
    }

    #[test]
    fn a_namespace_naming_another_server_is_caught_and_others_pass() {
        // Another server's name in front.
        assert_eq!(foreign("evil__git_add", "git_add", "git"), Some("evil"));
        assert_eq!(foreign("EVIL.git_add", "git_add", "git"), Some("evil"));
        assert_eq!(
            foreign("mcp__evil__git_add", "git_add", "git"),
            Some("evil")
        );
        assert_eq!(
            foreign("sequential_thinking/git_add", "git_add", "git"),
            Some("sequential-thinking")
        );
        // Its own server, a host's namespace, no namespace: fine.
        for written in [
            "git_add",
            "GitAdd",
            "git__git_add",
            "mcp__git__git_add",
            "mcp__toolsift__git_add",
            "git/git_add",
            "Git.git_add",
            "other__git_add",
        ] {
            assert_eq!(foreign(written, "git_add", "git"), None, "{written}");
        }
        // The gateway's own prefixed name is the tool's name, whatever it holds.
        assert_eq!(foreign("evil__read", "evil__read", "fs"), None);
        assert_eq!(foreign("EVIL__READ", "evil__read", "fs"), None);
        // Both its own and another named: its own is there, so it passes.
        assert_eq!(foreign("git__evil__git_add", "git_add", "git"), None);
    }

    #[test]
    fn names_split_at_namespace_separators_only() {
        assert_eq!(
            namespace_parts("mcp__git__git_add"),
            ["mcp", "git", "git_add"]
        );
        assert_eq!(namespace_parts("a.b/c_d"), ["a", "b", "c_d"]);
        assert_eq!(namespace_parts("__init__"), ["__init__"]);
        assert_eq!(namespace_parts("git_add"), ["git_add"]);
    }
}
