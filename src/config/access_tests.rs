//! Named keys and groups: laid together, and each mistake named by its
//! key or group and its line.

use super::*;
use crate::config::Config;

fn load(text: &str) -> Result<Config, ConfigError> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config.toml");
    std::fs::write(&path, text).unwrap();
    Config::load_with(Some(&path), &|_| None)
}

fn error(text: &str) -> String {
    load(text).unwrap_err().to_string()
}

#[test]
fn a_key_takes_its_groups_servers_and_rules_and_its_own_win() {
    let c = load(
        "[gateway]\napi_key_env = [\"OLD\"]\n\n\
         [gateway.groups.dev]\nservers = [\"time\", \"everything\"]\n\
         tools = { \"everything/*\" = \"ask\", \"everything/echo\" = \"deny\" }\n\n\
         [gateway.keys.alice]\nenv = \"ALICE_KEY\"\ngroup = \"dev\"\n\
         tools = { \"everything/echo\" = \"allow\" }\n\n\
         [gateway.keys.carol]\nenv = \"CAROL_KEY\"\ngroup = \"dev\"\nservers = [\"time\"]\n\n\
         [gateway.keys.ops]\nenv = \"OPS_KEY\"\n",
    )
    .unwrap();
    let keys = &c.access.keys;
    assert_eq!(
        keys.iter().map(|k| k.name.as_str()).collect::<Vec<_>>(),
        ["alice", "carol", "ops"]
    );
    let alice = &keys[0];
    let servers: Vec<&str> = alice
        .servers
        .as_ref()
        .unwrap()
        .iter()
        .map(|w| w.value.as_str())
        .collect();
    assert_eq!(servers, ["time", "everything"]);
    // The group's servers are said where the group wrote them.
    assert!(
        alice.servers.as_ref().unwrap()[0]
            .at
            .ends_with("config.toml:5: [gateway.groups.dev] servers"),
        "{:?}",
        alice.servers
    );
    let rules: Vec<(&str, ToolRule)> = alice
        .tools
        .iter()
        .map(|w| (w.value.0.as_str(), w.value.1))
        .collect();
    assert_eq!(
        rules,
        [
            ("everything/*", ToolRule::Ask),
            ("everything/echo", ToolRule::Allow)
        ]
    );
    assert!(
        alice.tools[1]
            .at
            .ends_with(":11: [gateway.keys.alice] tools \"everything/echo\""),
        "{:?}",
        alice.tools
    );
    assert!(
        alice.at.ends_with("config.toml:8: [gateway.keys.alice]"),
        "{}",
        alice.at
    );
    // A key's own servers replace its group's.
    let carol: Vec<&str> = keys[1]
        .servers
        .as_ref()
        .unwrap()
        .iter()
        .map(|w| w.value.as_str())
        .collect();
    assert_eq!(carol, ["time"]);
    // A key of no group reaches everything, with the global rules alone.
    assert_eq!((keys[2].servers.clone(), keys[2].tools.len()), (None, 0));
    assert_eq!(
        c.access.envs().collect::<Vec<_>>(),
        ["ALICE_KEY", "CAROL_KEY", "OPS_KEY"]
    );
}

#[test]
fn no_named_key_is_todays_gateway() {
    let c = load("[gateway]\napi_key_env = [\"K\"]\n").unwrap();
    assert_eq!(c.access, AccessPlan::default());
}

#[test]
fn a_group_that_does_not_exist_is_named_with_its_key_and_line() {
    let e = error(
        "[gateway.groups.dev]\nservers = [\"time\"]\n\n[gateway.keys.bob]\nenv = \"BOB_KEY\"\ngroup = \"ops\"\n",
    );
    assert!(e.contains("config.toml:6:"), "{e}");
    assert!(
        e.contains("[gateway.keys.bob] group \"ops\" does not exist (the groups: dev)"),
        "{e}"
    );
}

#[test]
fn bad_names_variables_and_patterns_are_refused_with_their_line() {
    let e = error("[gateway.keys.\"a b\"]\nenv = \"X\"\n");
    assert!(
        e.contains("config.toml:1:") && e.contains("a name is 1 to 64"),
        "{e}"
    );
    let e = error("[gateway.keys.key-1]\nenv = \"X\"\n");
    assert!(
        e.contains("does not start with \\\"key-\\\"") || e.contains("\"key-\""),
        "{e}"
    );
    let e = error("[gateway.keys.a]\nenv = \"SAME\"\n\n[gateway.keys.b]\nenv = \"SAME\"\n");
    assert!(
        e.contains("config.toml:5:")
            && e.contains("[gateway.keys.b] env \"SAME\" is [gateway.keys.a]'s too"),
        "{e}"
    );
    let e = error("[gateway.keys.a]\nenv = \"\"\n");
    assert!(
        e.contains("config.toml:2:") && e.contains("must name an environment variable"),
        "{e}"
    );
    let e = error("[gateway.groups.dev]\nservers = [\"time\",\n  \"a/b\"]\n");
    assert!(
        e.contains("config.toml:3:")
            && e.contains("[gateway.groups.dev] servers: \"a/b\" is not a server pattern"),
        "{e}"
    );
    let e =
        error("[gateway.keys.a]\nenv = \"A\"\n\n[gateway.keys.a.tools]\n\"x/y/z\" = \"deny\"\n");
    assert!(
        e.contains("config.toml:5:") && e.contains("[gateway.keys.a] tools: \"x/y/z\""),
        "{e}"
    );
    // An unknown field and a bad rule word: the parser's own line.
    let e = error("[gateway.keys.a]\nenv = \"A\"\nserver = [\"time\"]\n");
    assert!(
        e.contains("config.toml:3:") && e.contains("unknown field `server`"),
        "{e}"
    );
    let e = error("[gateway.groups.g]\ntools = { \"*\" = \"maybe\" }\n");
    assert!(
        e.contains("config.toml:2:") && e.contains("read, allow, ask or deny"),
        "{e}"
    );
}

#[test]
fn the_manuals_config_reads_as_written() {
    let page = include_str!("../../docs/gateway.md");
    let section = page
        .split("## Keys, groups and what each may reach")
        .nth(1)
        .unwrap();
    let block = section.split("```toml\n").nth(1).unwrap();
    let block = block.split("```").next().unwrap();
    let c = load(block).unwrap();
    let names: Vec<&str> = c.access.keys.iter().map(|k| k.name.as_str()).collect();
    assert_eq!(names, ["alice", "bob", "carol"]);
    let servers = |k: &KeyPlan| -> Vec<String> {
        k.servers
            .iter()
            .flatten()
            .map(|w| w.value.clone())
            .collect()
    };
    assert_eq!(servers(&c.access.keys[0]), ["time", "everything"]);
    assert_eq!(servers(&c.access.keys[1]), ["time"]);
    assert_eq!(servers(&c.access.keys[2]), ["everything"]);
    assert_eq!(c.access.keys[0].tools.len(), 3);
    assert_eq!(c.gateway.tools.len(), 1);
}
