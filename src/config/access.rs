//! `[gateway.keys.NAME]` and `[gateway.groups.NAME]`: API keys with a
//! name, and what each may reach over HTTP.
//!
//! ```toml
//! [gateway.groups.dev]
//! servers = ["time", "everything"]   # the servers it may reach (patterns); absent: all
//! tools = { "everything/*" = "ask" } # its own rules, as [gateway.tools]
//!
//! [gateway.keys.alice]
//! env = "ALICE_KEY"                  # the variable holding the key
//! group = "dev"                      # optional
//! tools = { "everything/echo" = "allow" }  # the key's own, over its group's
//! ```
//!
//! A key's `servers` replaces its group's; its `tools` join its group's
//! (a pattern both write is the key's). Read here into an [`AccessPlan`],
//! each part with the place it was written (`file:line`), so a mistake
//! found now or once the servers are known names the key and the line.

use std::collections::BTreeMap;

use serde::Deserialize;

use super::{ConfigError, ToolRule};

/// One `[gateway.keys.NAME]` as written.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KeyEntry {
    /// The environment variable that holds the key.
    pub env: String,
    #[serde(default)]
    pub group: Option<String>,
    #[serde(default)]
    pub servers: Option<Vec<String>>,
    #[serde(default)]
    pub tools: BTreeMap<String, ToolRule>,
}

/// One `[gateway.groups.NAME]` as written.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GroupEntry {
    #[serde(default)]
    pub servers: Option<Vec<String>>,
    #[serde(default)]
    pub tools: BTreeMap<String, ToolRule>,
}

/// A pattern and where it was written (`file:line: [gateway.keys.alice]
/// servers`), for a warning about it once the servers are known.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Written<T> {
    pub value: T,
    pub at: String,
}

/// One named key, its group's parts and its own laid together.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyPlan {
    /// Its name: shown in the log, the trace and `/events`.
    pub name: String,
    pub env: String,
    /// Where it was declared (`file:line: [gateway.keys.NAME]`).
    pub at: String,
    /// The server patterns it may reach (none given: every server).
    pub servers: Option<Vec<Written<String>>>,
    /// Its rules: the group's, then its own (a pattern both write is its own).
    pub tools: Vec<Written<(String, ToolRule)>>,
}

/// Every named key, by name.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct AccessPlan {
    pub keys: Vec<KeyPlan>,
}

impl AccessPlan {
    /// The variables of the named keys (withheld from every server).
    pub fn envs(&self) -> impl Iterator<Item = &str> {
        self.keys.iter().map(|k| k.env.as_str())
    }
}

/// Where `path` (`gateway`, `keys`, `alice`, `group`) was written in
/// `doc`: the line and column of its key (of an array's item, its
/// index), or of the deepest part found.
fn place(doc: &toml_edit::Document<&str>, text: &str, path: &[&str]) -> (usize, usize) {
    let mut item = doc.as_item();
    let mut at = 0;
    for step in path {
        let next = match (item.as_table_like(), step.parse::<usize>(), item.as_array()) {
            (_, Ok(i), Some(array)) => array.get(i).map(|v| (v.span(), None)),
            (Some(table), _, _) => table.get_key_value(step).map(|(k, v)| (k.span(), Some(v))),
            _ => None,
        };
        let Some((span, inner)) = next else { break };
        if let Some(span) = span {
            at = span.start;
        }
        match inner {
            Some(inner) => item = inner,
            None => break,
        }
    }
    crate::catalog::line_col(text, at)
}

/// A file's text and its parsed document: where each part was written.
struct Places<'a> {
    doc: toml_edit::Document<&'a str>,
    text: &'a str,
    origin: &'a str,
}

impl Places<'_> {
    /// A refusal of the part at `path` (below `[gateway]`), with its line.
    fn refuse(&self, path: &[&str], message: String) -> ConfigError {
        let (line, column) = place(&self.doc, self.text, &path_in(path));
        ConfigError::Syntax {
            origin: self.origin.to_string(),
            line,
            column,
            message,
        }
    }

    /// `file:line: what`, of the part at `path`.
    fn written(&self, path: &[&str], what: &str) -> String {
        let (line, _) = place(&self.doc, self.text, &path_in(path));
        format!("{}:{line}: {what}", self.origin)
    }

    /// The server patterns of `owner` (`["keys", "alice"]`), each with
    /// where it was written.
    fn servers(&self, owner: [&str; 2], list: &[String]) -> Vec<Written<String>> {
        let head = format!("[gateway.{}.{}] servers", owner[0], owner[1]);
        list.iter()
            .enumerate()
            .map(|(i, s)| Written {
                value: s.trim().to_string(),
                at: self.written(&[owner[0], owner[1], "servers", &i.to_string()], &head),
            })
            .collect()
    }

    /// The rules of `owner` added to `tools` (a pattern written again
    /// replaces the one before).
    fn rules(
        &self,
        owner: [&str; 2],
        rules: &BTreeMap<String, ToolRule>,
        tools: &mut Vec<Written<(String, ToolRule)>>,
    ) {
        for (pattern, rule) in rules {
            let head = format!("[gateway.{}.{}] tools {pattern:?}", owner[0], owner[1]);
            let at = self.written(&[owner[0], owner[1], "tools", pattern], &head);
            let pattern = pattern.trim().to_string();
            tools.retain(|w| w.value.0 != pattern);
            tools.push(Written {
                value: (pattern, *rule),
                at,
            });
        }
    }

    /// Key `name` with its group's parts laid under its own.
    fn key(&self, name: &str, key: &KeyEntry, groups: &BTreeMap<String, GroupEntry>) -> KeyPlan {
        let group = key
            .group
            .as_deref()
            .and_then(|g| groups.get(g).map(|e| (g, e)));
        let servers = match (&key.servers, group) {
            (Some(list), _) => Some(self.servers(["keys", name], list)),
            (None, Some((g, entry))) => entry
                .servers
                .as_ref()
                .map(|l| self.servers(["groups", g], l)),
            (None, None) => None,
        };
        let mut tools = Vec::new();
        if let Some((g, entry)) = group {
            self.rules(["groups", g], &entry.tools, &mut tools);
        }
        self.rules(["keys", name], &key.tools, &mut tools);
        KeyPlan {
            name: name.to_string(),
            env: key.env.clone(),
            at: self.written(&["keys", name], &format!("[gateway.keys.{name}]")),
            servers,
            tools,
        }
    }
}

/// Reads the named keys of `[gateway]` (`keys`, `groups`) of a file's
/// `text` (named `origin`): a group that does not exist, a name that is
/// not one, a variable two keys share, or a pattern of the wrong shape
/// is refused with its line.
pub fn plan(
    keys: &BTreeMap<String, KeyEntry>,
    groups: &BTreeMap<String, GroupEntry>,
    text: &str,
    origin: &str,
) -> Result<AccessPlan, ConfigError> {
    if keys.is_empty() && groups.is_empty() {
        return Ok(AccessPlan::default());
    }
    let doc = toml_edit::Document::parse(text).map_err(|e| ConfigError::Invalid {
        origin: origin.to_string(),
        message: e.to_string(),
    })?;
    let places = Places { doc, text, origin };
    let below = |table: &'static str, name: &str, (path, m): Wrong| {
        let mut full = vec![table, name];
        full.extend(path.iter().map(String::as_str));
        places.refuse(&full, m)
    };
    for (name, group) in groups {
        check_name(name, "groups").map_err(|w| below("groups", name, w))?;
        check_group(name, group).map_err(|w| below("groups", name, w))?;
    }
    let mut out = AccessPlan::default();
    let mut envs: BTreeMap<&str, &str> = BTreeMap::new();
    for (name, key) in keys {
        check_name(name, "keys").map_err(|w| below("keys", name, w))?;
        check_key(name, key, groups, &mut envs).map_err(|w| below("keys", name, w))?;
        out.keys.push(places.key(name, key, groups));
    }
    Ok(out)
}

/// `gateway` and `path` after it.
fn path_in<'a>(path: &[&'a str]) -> Vec<&'a str> {
    let mut full = vec!["gateway"];
    full.extend_from_slice(path);
    full
}

/// A name as the log and `/events` show it: letters, digits, `-`, `_`,
/// `.`; at most 64; never `key-…` (the way an unnamed key is shown).
fn check_name(name: &str, table: &str) -> Result<(), Wrong> {
    let fine = !name.is_empty()
        && name.len() <= 64
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        && !name.starts_with("key-");
    if fine {
        return Ok(());
    }
    Err((
        Vec::new(),
        format!(
            "[gateway.{table}.{}]: a name is 1 to 64 letters, digits, '-', '_' or '.', and does not start with \"key-\" (how a key with no name is shown)",
            crate::terminal_text::escape(&format!("{name:?}"))
        ),
    ))
}

/// What is wrong with a place of an entry: the path below the entry and
/// the message.
type Wrong = (Vec<String>, String);

fn check_group(name: &str, group: &GroupEntry) -> Result<(), Wrong> {
    let head = format!("[gateway.groups.{name}]");
    check_patterns(&head, group.servers.as_deref(), &group.tools)
}

fn check_key<'a>(
    name: &'a str,
    key: &'a KeyEntry,
    groups: &BTreeMap<String, GroupEntry>,
    envs: &mut BTreeMap<&'a str, &'a str>,
) -> Result<(), Wrong> {
    let head = format!("[gateway.keys.{name}]");
    let env = key.env.trim();
    if env.is_empty() || env.contains(['=', '\0']) {
        return Err((
            vec!["env".into()],
            format!(
                "{head} env must name an environment variable, not {:?}",
                key.env
            ),
        ));
    }
    if let Some(other) = envs.insert(env, name) {
        return Err((
            vec!["env".into()],
            format!(
                "{head} env {env:?} is [gateway.keys.{other}]'s too: each key has its own variable"
            ),
        ));
    }
    if let Some(group) = &key.group
        && !groups.contains_key(group)
    {
        let known: Vec<&str> = groups.keys().map(String::as_str).collect();
        return Err((
            vec!["group".into()],
            format!(
                "{head} group {:?} does not exist (the groups: {})",
                crate::terminal_text::escape(group),
                if known.is_empty() {
                    "none".to_string()
                } else {
                    known.join(", ")
                }
            ),
        ));
    }
    check_patterns(&head, key.servers.as_deref(), &key.tools)
}

/// A server pattern has no `/`; a tool pattern at most one; neither is empty.
fn check_patterns(
    head: &str,
    servers: Option<&[String]>,
    tools: &BTreeMap<String, ToolRule>,
) -> Result<(), Wrong> {
    for (i, s) in servers.unwrap_or_default().iter().enumerate() {
        if s.trim().is_empty() || s.contains('/') {
            return Err((
                vec!["servers".into(), i.to_string()],
                format!(
                    "{head} servers: {s:?} is not a server pattern (a server's name, `*` for any run of characters)"
                ),
            ));
        }
    }
    for pattern in tools.keys() {
        let p = pattern.trim();
        if p.is_empty() || p == "/" || p.matches('/').count() > 1 {
            return Err((
                vec!["tools".into(), pattern.clone()],
                format!(
                    "{head} tools: {pattern:?} is not a tool pattern (`server/tool`, `server/*` or a tool's name)"
                ),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
#[path = "access_tests.rs"]
mod tests;
