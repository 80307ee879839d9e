//! A key's reach: its servers, its rules against the global ones, its
//! name, and the warnings of its patterns.

use super::*;
use crate::catalog::McpOrigin;
use crate::config::Written;

fn tool(server: &str, name: &str) -> Tool {
    let mut t = Tool::new(format!("{server}__{name}"), "d");
    t.mcp = Some(McpOrigin::new(server, name));
    t
}

fn rules(list: &[(&str, ToolRule)]) -> ToolRules {
    let mut r = ToolRules::default();
    for (p, rule) in list {
        r.add(p, *rule).unwrap();
    }
    r
}

#[test]
fn the_stricter_rule_holds_where_both_speak_else_the_one_that_does() {
    let global = rules(&[("fetch/fetch", ToolRule::Read), ("*delete*", ToolRule::Ask)]);
    let own = rules(&[
        ("fetch/fetch", ToolRule::Allow),
        ("*delete*", ToolRule::Allow),
        ("everything/*", ToolRule::Ask),
        ("time/*", ToolRule::Read),
    ]);
    let reach = Reach::new(None, own);
    // Both speak: the stricter (allow over read, ask over allow).
    assert_eq!(
        reach.rule(&tool("fetch", "fetch"), &global),
        ToolRule::Allow
    );
    assert_eq!(
        reach.rule(&tool("git", "delete_branch"), &global),
        ToolRule::Ask
    );
    // One speaks: that one.
    assert_eq!(
        reach.rule(&tool("everything", "echo"), &global),
        ToolRule::Ask
    );
    assert_eq!(
        reach.rule(&tool("time", "get_time"), &global),
        ToolRule::Read
    );
    assert_eq!(
        reach.rule(&tool("git", "git_log"), &global),
        ToolRule::Allow
    );
}

#[test]
fn a_key_reaches_the_servers_it_names_and_the_tools_it_does_not_deny() {
    let global = rules(&[("git/*", ToolRule::Deny)]);
    let own = rules(&[
        ("everything/*Env*", ToolRule::Deny),
        ("every*/*", ToolRule::Allow),
    ]);
    let reach = Reach::new(
        Some(vec!["time".into(), "every*".into(), "git".into()]),
        own,
    );
    assert!(!reach.is_everything());
    assert!(reach.server("time", &global) && reach.server("Everything", &global));
    assert!(!reach.server("fetch", &global), "not named");
    assert!(
        !reach.server("git", &global),
        "denied whole by the global rules"
    );
    assert!(reach.tool(&tool("everything", "echo"), &global));
    assert!(!reach.tool(&tool("everything", "printEnv"), &global));
    assert!(!reach.tool(&tool("fetch", "fetch"), &global));
    // A catalog file's tool: only for a key of every server, or `*`.
    assert!(!reach.tool(&Tool::new("local", "d"), &global));
    let star = Reach::new(Some(vec!["*".into()]), ToolRules::default());
    assert!(star.tool(&Tool::new("local", "d"), &global));
    // A group denied whole by the key's rules: its prompts too.
    let whole = Reach::new(None, rules(&[("everything/*", ToolRule::Deny)]));
    assert!(!whole.server("everything", &global) && whole.server("time", &global));
    // No pattern and no rule: everything, one profile.
    assert!(Reach::new(None, ToolRules::default()).is_everything());
    assert_eq!(Reach::new(None, ToolRules::default()).profile(), "");
    assert_ne!(reach.profile(), star.profile());
}

fn plan(name: &str, env: &str, servers: Option<&[&str]>, tools: &[(&str, ToolRule)]) -> KeyPlan {
    let at = |what: &str| Written {
        value: what.to_string(),
        at: format!("c.toml:1: [gateway.keys.{name}] {what}"),
    };
    KeyPlan {
        name: name.into(),
        env: env.into(),
        at: format!("c.toml:1: [gateway.keys.{name}]"),
        servers: servers.map(|l| l.iter().map(|s| at(s)).collect()),
        tools: tools
            .iter()
            .map(|(p, r)| Written {
                value: (p.to_string(), *r),
                at: format!("c.toml:2: [gateway.keys.{name}] tools {p:?}"),
            })
            .collect(),
    }
}

#[test]
fn named_keys_are_read_labelled_and_their_patterns_checked() {
    let env = |n: &str| match n {
        "A" => Some("alpha-key".to_string()),
        "B" => Some("beta-key".to_string()),
        "SAME" => Some("alpha-key".to_string()),
        "E" => Some(String::new()),
        _ => None,
    };
    let access_plan = AccessPlan {
        keys: vec![
            plan(
                "alice",
                "A",
                Some(&["time", "tiem"]),
                &[("time/nothing_*", ToolRule::Deny)],
            ),
            plan("bob", "B", None, &[]),
        ],
    };
    let (access, values) = Access::from_plan(&access_plan, &env).unwrap();
    assert_eq!(values, ["alpha-key", "beta-key"]);
    assert_eq!(access.label("alpha-key").as_deref(), Some("alice"));
    assert!(access.label("other").unwrap().starts_with("key-"));
    assert_eq!(access.label(""), None);
    assert!(!access.of("alpha-key").is_everything());
    assert!(access.of("beta-key").is_everything());
    assert!(access.of("unnamed").is_everything());
    assert!(!format!("{access:?}").contains("alpha"));
    let warnings = access.unmatched(&["time".into()], &[tool("time", "get_time")]);
    assert_eq!(warnings.len(), 2, "{warnings:?}");
    assert!(
        warnings[0].starts_with(
            "c.toml:1: [gateway.keys.alice] tiem: \"tiem\" names none of the servers (time)"
        ),
        "{warnings:?}"
    );
    assert!(
        warnings[1].starts_with(
            "c.toml:2: [gateway.keys.alice] tools \"time/nothing_*\": matches none of the 1 tool"
        ),
        "{warnings:?}"
    );
    // A variable unset, empty, or the same key as another's: named.
    let unset = AccessPlan {
        keys: vec![plan("carol", "C", None, &[])],
    };
    let e = Access::from_plan(&unset, &env).unwrap_err().to_string();
    assert_eq!(
        e,
        "c.toml:1: [gateway.keys.carol]: env C: the environment variable is not set"
    );
    let empty = AccessPlan {
        keys: vec![plan("carol", "E", None, &[])],
    };
    assert!(
        Access::from_plan(&empty, &env)
            .unwrap_err()
            .to_string()
            .contains("is empty")
    );
    let shared = AccessPlan {
        keys: vec![
            plan("alice", "A", None, &[]),
            plan("dup", "SAME", None, &[]),
        ],
    };
    let e = Access::from_plan(&shared, &env).unwrap_err().to_string();
    assert!(
        e.contains("[gateway.keys.dup]: env SAME: the same key as alice's"),
        "{e}"
    );
}
