//! Complete answers: how many tools matched the request beyond the ones a
//! search sent, and in which servers, so "8 of 23 matching; 11 more in
//! server github" says what the cap left out.

use crate::catalog::Catalog;
use crate::wire::{WireMatching, WireServerCount};

/// Servers named one by one in the note; the rest are counted together.
const NAMED_SERVERS: usize = 3;

/// The count for a search that sent `sent` (catalog indices) of
/// `matching` (every tool that matches the request's words, catalog
/// order), the always-load tools left out of both sides: `total` is how
/// many tools match, whatever the cap; `sent` how many of them were sent
/// (a tool sent on a cosine alone matches no word and counts in neither).
pub fn count(catalog: &Catalog, matching: &[usize], sent: &[usize]) -> WireMatching {
    let tools = catalog.tools();
    let searched = |&&d: &&usize| !tools[d].always_load;
    let matched: Vec<usize> = matching.iter().filter(searched).copied().collect();
    let sent: Vec<usize> = sent
        .iter()
        .filter(searched)
        .filter(|d| matched.contains(d))
        .copied()
        .collect();
    let mut more: Vec<WireServerCount> = Vec::new();
    let mut total = sent.len() as u64;
    for &d in &matched {
        if sent.contains(&d) {
            continue;
        }
        total += 1;
        let server = tools[d].mcp.as_ref().map(|m| m.server.to_string());
        match more.iter_mut().find(|c| c.server == server) {
            Some(c) => c.count += 1,
            None => more.push(WireServerCount { server, count: 1 }),
        }
    }
    // Most first; ties by name, tools of no server last.
    more.sort_by(|a, b| {
        b.count
            .cmp(&a.count)
            .then_with(|| a.server.is_none().cmp(&b.server.is_none()))
            .then_with(|| a.server.cmp(&b.server))
    });
    WireMatching {
        total,
        sent: sent.len() as u64,
        more,
    }
}

/// "8 of 23 matching; 11 more in server github, 4 in server slack", or
/// "3 of 3 matching (all sent)"; `None` when nothing was searched.
pub fn note(m: &WireMatching) -> Option<String> {
    if m.total == 0 {
        return None;
    }
    if m.total <= m.sent {
        return Some(format!("{} of {} matching (all sent)", m.sent, m.total));
    }
    let left = m.total - m.sent;
    let mut out = format!("{} of {} matching; ", m.sent, m.total);
    let servers: Vec<&WireServerCount> = m.more.iter().filter(|c| c.server.is_some()).collect();
    if servers.is_empty() {
        out.push_str(&format!(
            "{left} more not sent (a larger max_tools or more words finds them)"
        ));
        return Some(out);
    }
    let mut parts = Vec::new();
    for (i, c) in servers.iter().take(NAMED_SERVERS).enumerate() {
        let name = crate::terminal_text::escape(c.server.as_deref().unwrap_or_default());
        parts.push(if i == 0 {
            format!("{} more in server {name}", c.count)
        } else {
            format!("{} in server {name}", c.count)
        });
    }
    let rest: u64 = servers
        .iter()
        .skip(NAMED_SERVERS)
        .map(|c| c.count)
        .sum::<u64>()
        + m.more
            .iter()
            .filter(|c| c.server.is_none())
            .map(|c| c.count)
            .sum::<u64>();
    if rest > 0 {
        parts.push(format!("{rest} elsewhere"));
    }
    out.push_str(&parts.join(", "));
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::{McpOrigin, Tool};

    fn tool(name: &str, server: Option<&str>, always: bool) -> Tool {
        let mut t = Tool::new(name, "A tool.");
        t.always_load = always;
        t.mcp = server.map(|s| McpOrigin::new(s, name));
        t
    }

    #[test]
    fn the_note_counts_what_the_cap_left_out_by_server() {
        let mut tools = vec![tool("pinned", Some("github"), true)];
        for i in 0..6 {
            tools.push(tool(&format!("g{i}"), Some("github"), false));
        }
        for i in 0..2 {
            tools.push(tool(&format!("s{i}"), Some("slack"), false));
        }
        tools.push(tool("loose", None, false));
        let catalog = Catalog::new("test", tools).unwrap();
        let all: Vec<usize> = (0..catalog.len()).collect();
        // Sent: the always-load tool and two of github's.
        let m = count(&catalog, &all, &[0, 1, 2]);
        assert_eq!((m.total, m.sent), (9, 2));
        assert_eq!(
            note(&m).unwrap(),
            "2 of 9 matching; 4 more in server github, 2 in server slack, 1 elsewhere"
        );
        // Everything matching was sent.
        let m = count(&catalog, &[1, 2], &[0, 1, 2]);
        assert_eq!((m.total, m.sent), (2, 2));
        assert_eq!(note(&m).unwrap(), "2 of 2 matching (all sent)");
        // A larger cap sends more tools, none of them matching: the count
        // of the catalog's matches stays what it was.
        let m = count(&catalog, &[1, 2], &[0, 1, 2, 3, 4, 5, 6, 7]);
        assert_eq!((m.total, m.sent), (2, 2));
        let m = count(&catalog, &[1, 2, 3], &[0, 1]);
        assert_eq!((m.total, m.sent), (3, 1));
        assert_eq!(note(&count(&catalog, &[], &[0])), None);
    }

    #[test]
    fn without_servers_the_note_says_how_to_reach_the_rest() {
        let tools = (0..5)
            .map(|i| tool(&format!("t{i}"), None, false))
            .collect();
        let catalog = Catalog::new("test", tools).unwrap();
        let m = count(&catalog, &[0, 1, 2, 3, 4], &[3]);
        assert_eq!(
            note(&m).unwrap(),
            "1 of 5 matching; 4 more not sent (a larger max_tools or more words finds them)"
        );
    }

    #[test]
    fn a_hostile_server_name_is_one_clean_line_in_the_note() {
        let tools = vec![
            tool("a", Some("x\u{1b}[2J\nEVIL"), false),
            tool("b", Some("x\u{1b}[2J\nEVIL"), false),
        ];
        let catalog = Catalog::new("test", tools).unwrap();
        let text = note(&count(&catalog, &[0, 1], &[0])).unwrap();
        assert!(!text.contains('\u{1b}') && !text.contains('\n'), "{text:?}");
    }
}
