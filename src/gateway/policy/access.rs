//! What each API key may reach over HTTP (`[gateway.keys.NAME]`,
//! `[gateway.groups.NAME]`): the servers its patterns name and the tools
//! its rules do not deny. A key's rules and the global ones
//! (`[gateway.tools]`, the flags) combine: where both have a pattern that
//! matches a tool, the stricter rule holds (deny, then ask, then allow,
//! then read); where one has, that one. What a key cannot reach it is
//! never told of: it is answered as a name no tool has. A key with no
//! name (`api_key_env`, an operator's), and stdio, reach everything.

use std::collections::HashMap;
use std::sync::Arc;

use super::rules::{ToolRule, ToolRules, server_matches};
use crate::catalog::Tool;
use crate::config::{AccessPlan, KeyPlan};
use crate::http::keys::digest;

/// What one key may reach.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Reach {
    /// What the views, routes and caches of a reach are kept by: keys
    /// that reach alike share them; "" for everything.
    profile: String,
    /// The server patterns (none: every server).
    servers: Option<Vec<String>>,
    /// The key's own rules (its group's and its own).
    rules: ToolRules,
}

impl Reach {
    pub fn new(servers: Option<Vec<String>>, rules: ToolRules) -> Reach {
        let profile = if servers.is_none() && rules.is_empty() {
            String::new()
        } else {
            let rules: Vec<(&str, ToolRule)> = rules.iter().collect();
            format!("{servers:?} {rules:?}")
        };
        Reach {
            profile,
            servers,
            rules,
        }
    }

    /// Whether this reach is everything (no server pattern, no rule of its own).
    pub fn is_everything(&self) -> bool {
        self.profile.is_empty()
    }

    /// The key of this reach's views and routes.
    pub fn profile(&self) -> &str {
        &self.profile
    }

    /// Whether the key's server patterns name `server` (all do when it
    /// has none), whatever the rules say of it.
    pub fn names_server(&self, server: &str) -> bool {
        self.servers
            .as_ref()
            .is_none_or(|list| list.iter().any(|p| server_matches(p, server)))
    }

    /// Whether the key may reach server `name` (its prompts, resources,
    /// completions): its patterns name it and no rule, its own or a
    /// global one, denies it whole.
    pub fn server(&self, name: &str, global: &ToolRules) -> bool {
        self.names_server(name) && !global.denies_server(name) && !self.rules.denies_server(name)
    }

    /// The rule of `tool` for this key (see the module's words).
    pub fn rule(&self, tool: &Tool, global: &ToolRules) -> ToolRule {
        match (global.matching(tool), self.rules.matching(tool)) {
            (Some(g), Some(own)) => g.max(own),
            (Some(one), None) | (None, Some(one)) => one,
            (None, None) => ToolRule::Allow,
        }
    }

    /// Whether the key may see and call `tool`: its server is reached (a
    /// catalog file's tool: when the key names no servers, or `*`) and
    /// its rule is not deny.
    pub fn tool(&self, tool: &Tool, global: &ToolRules) -> bool {
        let reached = match &tool.mcp {
            Some(m) => self.names_server(&m.server),
            None => self
                .servers
                .as_ref()
                .is_none_or(|list| list.iter().any(|p| p.trim() == "*")),
        };
        reached && self.rule(tool, global) != ToolRule::Deny
    }
}

/// A pattern of a named key to check once the servers are known.
#[derive(Debug, Clone, PartialEq)]
enum Check {
    Server { pattern: String, at: String },
    Tool { pattern: String, at: String },
}

/// The named keys: each key's name and reach, by the key's digest.
#[derive(Clone, Default)]
pub struct Access {
    by_digest: HashMap<String, (String, Arc<Reach>)>,
    everything: Arc<Reach>,
    checks: Vec<Check>,
}

impl std::fmt::Debug for Access {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Access({} named keys)", self.by_digest.len())
    }
}

/// Why a named key could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AccessError {
    #[error("{at}: env {env}: the environment variable is not set")]
    Unset { at: String, env: String },
    #[error("{at}: env {env}: the environment variable is empty")]
    Empty { at: String, env: String },
    #[error("{at}: env {env}: the key has white space or control characters")]
    Invalid { at: String, env: String },
    #[error("{at}: env {env}: the same key as {other}'s: each named key must be its own")]
    Shared {
        at: String,
        env: String,
        other: String,
    },
    #[error("{at}: {message}")]
    Rule { at: String, message: String },
}

impl Access {
    /// The keys of `plan`, each read from its variable through `env`;
    /// and the keys' values, for the HTTP layer to accept.
    pub fn from_plan(
        plan: &AccessPlan,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<(Access, Vec<String>), AccessError> {
        let mut access = Access::default();
        let mut values = Vec::new();
        for key in &plan.keys {
            let value = read_key(key, env)?;
            let reach = reach_of(key)?;
            if let Some((other, _)) = digest(&value).and_then(|d| access.by_digest.get(&d)) {
                return Err(AccessError::Shared {
                    at: key.at.clone(),
                    env: key.env.clone(),
                    other: other.clone(),
                });
            }
            for w in key.servers.iter().flatten() {
                access.checks.push(Check::Server {
                    pattern: w.value.clone(),
                    at: w.at.clone(),
                });
            }
            for w in &key.tools {
                access.checks.push(Check::Tool {
                    pattern: w.value.0.clone(),
                    at: w.at.clone(),
                });
            }
            access.add(&value, &key.name, reach);
            values.push(value);
        }
        access.checks.dedup();
        Ok((access, values))
    }

    /// Names `key` `name`, reaching `reach`.
    pub fn add(&mut self, key: &str, name: &str, reach: Reach) {
        if let Some(d) = digest(key) {
            self.by_digest
                .insert(d, (name.to_string(), Arc::new(reach)));
        }
    }

    pub fn is_empty(&self) -> bool {
        self.by_digest.is_empty()
    }

    /// What `key` (as the HTTP layer proved it; "" for none) may reach.
    pub fn of(&self, key: &str) -> Arc<Reach> {
        digest(key)
            .and_then(|d| self.by_digest.get(&d))
            .map_or_else(|| self.everything.clone(), |(_, r)| r.clone())
    }

    /// How the log, the trace, `/events` and the learned use name `key`:
    /// its name, else its digest; `None` for no key.
    pub fn label(&self, key: &str) -> Option<String> {
        let d = digest(key)?;
        Some(match self.by_digest.get(&d) {
            Some((name, _)) => name.clone(),
            None => d,
        })
    }

    /// The warnings of the named keys' patterns: a server pattern that
    /// names none of `servers`, a tool pattern that matches none of
    /// `tools` (each said with where it was written).
    pub fn unmatched(&self, servers: &[String], tools: &[Tool]) -> Vec<String> {
        let mut out = Vec::new();
        for check in &self.checks {
            match check {
                Check::Server { pattern, at }
                    if !servers.iter().any(|s| server_matches(pattern, s)) =>
                {
                    out.push(format!(
                        "{at}: {} names none of the servers ({})",
                        crate::terminal_text::escape(&format!("{pattern:?}")),
                        crate::terminal_text::escape(&servers.join(", "))
                    ));
                }
                Check::Tool { pattern, at } => {
                    let mut one = ToolRules::default();
                    if one.add(pattern, ToolRule::Deny).is_ok() && !one.unmatched(tools).is_empty()
                    {
                        out.push(format!(
                            "{at}: matches none of the {}",
                            crate::numbers::counted(tools.len(), "tool")
                        ));
                    }
                }
                Check::Server { .. } => {}
            }
        }
        out
    }

    pub fn has_checks(&self) -> bool {
        !self.checks.is_empty()
    }
}

fn read_key(key: &KeyPlan, env: &dyn Fn(&str) -> Option<String>) -> Result<String, AccessError> {
    let (at, name) = (key.at.clone(), key.env.clone());
    let value = env(&key.env).ok_or_else(|| AccessError::Unset {
        at: at.clone(),
        env: name.clone(),
    })?;
    if value.is_empty() {
        return Err(AccessError::Empty { at, env: name });
    }
    if value.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(AccessError::Invalid { at, env: name });
    }
    Ok(value)
}

fn reach_of(key: &KeyPlan) -> Result<Reach, AccessError> {
    let mut rules = ToolRules::default();
    for w in &key.tools {
        rules
            .add(&w.value.0, w.value.1)
            .map_err(|e| AccessError::Rule {
                at: w.at.clone(),
                message: e.to_string(),
            })?;
    }
    let servers = key
        .servers
        .as_ref()
        .map(|list| list.iter().map(|w| w.value.clone()).collect());
    Ok(Reach::new(servers, rules))
}

#[cfg(test)]
#[path = "access_tests.rs"]
mod tests;
