//! Nothing of the gateway's reaches the servers behind it: a stdio server
//! gets the safe set of variables the official SDKs pass, plus its own
//! `env`, `envFile` and what its `inheritEnv` names; never the gateway's
//! API keys.

use crate::gateway::{gateway_cmd, host_in_env};
use crate::mcp_support::*;

use serde_json::{Value, json};

fn env_server(tool: &str, extra: Value) -> Value {
    let mut entry = json!({
        "command": python(),
        "args": [mcp_fixture("fake_server.py"), "env", "--env-tool", tool],
        "alwaysLoad": true,
    });
    if let (Some(e), Some(x)) = (entry.as_object_mut(), extra.as_object()) {
        e.extend(x.clone());
    }
    entry
}

#[test]
fn no_gateway_variable_reaches_a_server_but_its_own_and_what_it_inherits() {
    let dir = TempDir::new("sealed");
    let env_file = dir.write(".env", "FROM_ENV_FILE=yes\n");
    let config = mcp_json(
        &dir,
        json!({
            "sealed": env_server("sealed_env", json!({"env": {"OWN_SETTING": "mine"}, "envFile": env_file})),
            "open": env_server("open_env", json!({"inheritEnv": ["CANARY_SHARED_*"]})),
            "all": env_server("all_env", json!({"inheritEnv": true})),
        }),
    );
    let args = vec!["--mcp".to_string(), config];
    let steps = json!([
        {"op": "call", "name": "sealed_env", "arguments": {}},
        {"op": "call", "name": "open_env", "arguments": {}},
        {"op": "call", "name": "all_env", "arguments": {}},
    ]);
    let secrets = [
        ("TOOLSIFT_API_KEY", "canary-toolsift-key"),
        ("OPENAI_API_KEY", "canary-openai-key"),
        ("ANTHROPIC_API_KEY", "canary-anthropic-key"),
        ("CANARY_SHARED_REGION", "eu-canary-1"),
    ];
    let (doc, stderr) = host_in_env(
        &["--stdio", &gateway_cmd(&args)],
        "legacy",
        &steps,
        1,
        &secrets,
    );
    let r = doc["sessions"][0].as_array().unwrap().clone();
    let env_of = |i: usize| -> Value {
        assert_eq!(r[i]["isError"], false, "{}\n{stderr}", r[i]);
        r[i]["structuredContent"].clone()
    };
    let sealed = env_of(0);
    for (name, _) in &secrets {
        assert!(sealed.get(name).is_none(), "{name} leaked: {sealed}");
    }
    assert_eq!(sealed["OWN_SETTING"], "mine", "{sealed}");
    assert_eq!(sealed["FROM_ENV_FILE"], "yes", "{sealed}");
    assert!(sealed.get("PATH").is_some(), "PATH passes: {sealed}");
    let extra: Vec<&String> = sealed
        .as_object()
        .unwrap()
        .keys()
        .filter(|k| {
            !toolsift::sources::mcp::SAFE_VARS.contains(&k.as_str())
                && !matches!(k.as_str(), "OWN_SETTING" | "FROM_ENV_FILE")
                // The gateway's own mark, that stops a gateway in front of itself.
                && k.as_str() != toolsift::sources::mcp::PARENT_VAR
                // Set by the interpreter itself at start-up.
                && !matches!(k.as_str(), "LC_CTYPE" | "PYTHONIOENCODING")
        })
        .collect();
    assert!(extra.is_empty(), "more than the safe set: {extra:?}");

    let open = env_of(1);
    assert_eq!(open["CANARY_SHARED_REGION"], "eu-canary-1", "{open}");
    assert!(open.get("TOOLSIFT_API_KEY").is_none(), "{open}");

    let all = env_of(2);
    assert_eq!(all["OPENAI_API_KEY"], "canary-openai-key", "{all}");
}
