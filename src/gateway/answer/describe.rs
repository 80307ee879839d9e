//! The description of `search_tools`, made from the catalog: which servers
//! the gateway reaches, how many tools each has and what they cover (the
//! words their tool names share most), so the model knows what to search
//! with. A session keeps the first one it listed (`tools/list` is the same
//! for the whole connection).

use std::collections::BTreeMap;

use crate::catalog::Catalog;
use crate::engine::analyzer::name_words;
use crate::engine::gate::is_generic;
use crate::terminal_text::escape;

/// Servers named before "and N more".
const SERVERS: usize = 12;
/// Words said of each server.
const WORDS: usize = 5;

const HOW: &str = "Describe what you want to do in plain words; you get the best matching tools with their input schemas, or a plain answer that none fits. Then call one with call_read_tool or call_tool, as each found tool says. `select:name1,name2` fetches tools by exact name; `+word` requires a word.";

/// The servers not up, by name: still starting (or being tried again),
/// down, and waiting for a login.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct NotUp {
    pub(crate) starting: Vec<String>,
    pub(crate) down: Vec<String>,
    pub(crate) login: Vec<String>,
    /// For each server waiting for a login, `NAME: how it gets one` (the
    /// command that makes it).
    pub(crate) login_how: Vec<String>,
}

/// The description of `search_tools` over `catalog`, the servers still
/// starting, those down and those waiting for a login named (every
/// configured server is).
pub(crate) fn search_description(catalog: &Catalog, not_up: &NotUp) -> String {
    let (starting, down, login) = (&not_up.starting, &not_up.down, &not_up.login);
    // Server → (tool count, word → how many of its tools' names hold it).
    let mut servers: BTreeMap<String, (usize, BTreeMap<String, usize>)> = BTreeMap::new();
    for tool in catalog.tools() {
        let (server, name) = match &tool.mcp {
            Some(m) => (m.server.to_string(), m.name.as_str()),
            None => (String::new(), tool.name.as_str()),
        };
        let entry = servers.entry(server.clone()).or_default();
        entry.0 += 1;
        let server_words = name_words(&server);
        let mut seen: Vec<String> = Vec::new();
        for w in name_words(name) {
            if w.len() < 3
                || is_generic(&w)
                || server_words.contains(&w)
                || w.chars().all(|c| c.is_ascii_digit())
                || seen.contains(&w)
            {
                continue;
            }
            *entry.1.entry(w.clone()).or_default() += 1;
            seen.push(w);
        }
    }
    let mut parts: Vec<String> = Vec::new();
    for (server, (count, words)) in servers.iter().take(SERVERS) {
        let mut ranked: Vec<(&String, &usize)> = words.iter().collect();
        ranked.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
        let covers: Vec<&str> = ranked.iter().take(WORDS).map(|(w, _)| w.as_str()).collect();
        let who = if server.is_empty() {
            "catalog files".to_string()
        } else {
            escape(server).into_owned()
        };
        let tools = if *count == 1 { "tool" } else { "tools" };
        parts.push(if covers.is_empty() {
            format!("{who} ({count} {tools})")
        } else {
            format!("{who} ({count} {tools}: {})", covers.join(", "))
        });
    }
    if servers.len() > SERVERS {
        parts.push(format!("and {} more servers", servers.len() - SERVERS));
    }
    let named = |names: &[String]| {
        names
            .iter()
            .map(|s| escape(s).into_owned())
            .collect::<Vec<_>>()
            .join(", ")
    };
    if !starting.is_empty() {
        // Said so it stays true for a host that reads the list once.
        parts.push(format!(
            "starting when this list was made: {} (a search waits for them, and its answer says which are still not up)",
            named(starting)
        ));
    }
    if !down.is_empty() {
        parts.push(format!(
            "down when this list was made: {} (tried again in the background; a search's answer says which are still down)",
            named(down)
        ));
    }
    if !login.is_empty() {
        parts.push(format!(
            "waiting for login when this list was made: {} (their tools join once the user logs in; a search's answer says which still wait)",
            named(login)
        ));
    }
    format!(
        "Find the tools for a task among the {} this gateway reaches (only a few are listed): {}. {HOW}",
        crate::numbers::counted(catalog.len(), "tool"),
        parts.join("; ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::{McpOrigin, Tool};

    fn tool(server: &str, name: &str) -> Tool {
        let mut t = Tool::new(name, "d");
        t.mcp = Some(McpOrigin::new(server, name));
        t
    }

    #[test]
    fn servers_their_counts_and_shared_name_words() {
        let catalog = Catalog::new(
            "mcp",
            vec![
                tool("git", "git_commit"),
                tool("git", "git_log"),
                tool("git", "git_diff_staged"),
                tool("git", "git_diff_unstaged"),
                tool("time", "get_current_time"),
                tool("time", "convert_time"),
            ],
        )
        .unwrap();
        let d = search_description(
            &catalog,
            &NotUp {
                down: vec!["fetch".into()],
                ..NotUp::default()
            },
        );
        assert!(
            d.starts_with("Find the tools for a task among the 6 tools this gateway reaches (only a few are listed): git (4 tools: diff, commit, log, staged, unstaged); time (2 tools: convert); down when this list was made: fetch"),
            "{d}"
        );
        assert!(d.contains("call_read_tool"), "{d}");
        assert!(
            d.contains("; down when this list was made: fetch (tried again in the background; a search's answer says which are still down)."),
            "{d}"
        );
    }

    #[test]
    fn a_hostile_server_name_is_escaped_and_many_servers_are_counted() {
        let mut tools: Vec<Tool> = (0..14)
            .map(|i| tool(&format!("s{i:02}"), &format!("t{i}")))
            .collect();
        tools.push(tool("evil\u{1b}[2J", "wipe_disk"));
        let d = search_description(
            &Catalog::new("mcp", tools).unwrap(),
            &NotUp {
                starting: vec!["slow\u{1b}".into()],
                login: vec!["hosted".into()],
                ..NotUp::default()
            },
        );
        assert!(
            d.contains("waiting for login when this list was made: hosted"),
            "{d}"
        );
        assert!(d.contains("starting when this list was made: slow"), "{d}");
        assert!(!d.contains('\u{1b}'), "{d}");
        assert!(d.contains("and 3 more servers"), "{d}");
    }
}
