//! The servers files read as users write them: each format, variables,
//! and one bad server a warning while the others are read.

use std::path::Path;
use std::time::Duration;

use super::child_env::InheritEnv;
use super::config::*;
use super::vars::{Vars, workspace_of};

fn env(name: &str) -> Option<String> {
    match name {
        "TOKEN" => Some("s3cret".into()),
        "HOME" => Some("/home/u".into()),
        _ => None,
    }
}

#[test]
fn json_mcp_servers() {
    let text = r#"{"mcpServers": {
        "time": {"command": "uvx", "args": ["mcp-server-time", "--local-timezone=${HOME}"], "env": {"A": "b"}},
        "remote": {"type": "http", "url": "https://x.example/mcp", "headers": {"Authorization": "Bearer ${TOKEN}"}},
        "off": {"command": "nope", "disabled": true}
    }}"#;
    let c = parse(text, "mcp.json", &env).unwrap();
    assert_eq!(c.servers.len(), 2);
    assert_eq!(c.servers[0].name, "remote");
    assert_eq!(
        c.servers[0].transport,
        Transport::Http {
            url: "https://x.example/mcp".into(),
            headers: [("Authorization".to_string(), "Bearer s3cret".to_string())].into(),
            oauth: Default::default(),
        }
    );
    let Transport::Stdio { args, env: e, .. } = &c.servers[1].transport else {
        panic!()
    };
    assert_eq!(args[1], "--local-timezone=/home/u");
    assert_eq!(e["A"], "b");
    assert_eq!(c.timeout, DEFAULT_TIMEOUT);
}

#[test]
fn toml_mcp_section() {
    let text = "[explorer]\nstrategy = \"all\"\n[mcp]\ntimeout_secs = 5\nalways_load = [\"time/*\"]\n[mcp.servers.time]\ncommand = \"uvx\"\nargs = [\"mcp-server-time\"]\nalways_load = true\n";
    let c = parse(text, "c.toml", &env).unwrap();
    assert_eq!(c.timeout, Duration::from_secs(5));
    assert_eq!(c.always_load, ["time/*"]);
    assert!(c.servers[0].always_load);
}

#[test]
fn a_bad_server_is_a_warning_naming_it_and_the_others_are_read() {
    let text = "{\"mcpServers\": {\n\"a\": {\"url\": \"https://x/${NOPE}\"},\n\"b\": {\"type\": \"sse\", \"url\": \"https://x\"},\n\"c\": {\"args\": []},\n\"d\": {\"comand\": \"x\", \"command\": \"ok\"},\n\"e\": {\"command\": 3},\n\"good\": {\"command\": \"srv\", \"args\": [\"${NOPE:-fallback}\"]}}}";
    let c = parse(text, "m.json", &env).unwrap();
    let names: Vec<&str> = c.servers.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["d", "good"]);
    let Transport::Stdio { args, .. } = &c.servers[1].transport else {
        panic!()
    };
    assert_eq!(args, &["fallback"]);
    let w = c.warnings.join("\n");
    assert!(
        w.contains("m.json:2:6: server \"a\": environment variable NOPE is not set"),
        "{w}"
    );
    assert!(
        w.contains("m.json:3:6: server \"b\": \"type\": \"sse\""),
        "{w}"
    );
    assert!(w.contains("server \"c\": needs `command`"), "{w}");
    assert!(
        w.contains("m.json:5:6: server \"d\": unknown key `comand` ignored"),
        "{w}"
    );
    assert!(w.contains("m.json:6:"), "{w}");
    assert!(w.contains("server \"e\": invalid type"), "{w}");
    assert!(w.contains("this server is skipped"), "{w}");
    // The file's own syntax is still an error, with where.
    let e = parse(
        "{\"mcpServers\": {\n\"a\": {\"command\": }}}",
        "m.json",
        &env,
    )
    .unwrap_err();
    assert!(e.to_string().starts_with("m.json:2:"), "{e}");
    let c = parse(
        "[mcp.servers.a]\ncommand = 3\n[mcp.servers.b]\ncommand = \"ok\"\n",
        "c.toml",
        &env,
    )
    .unwrap();
    assert_eq!(c.servers.len(), 1);
    assert!(c.warnings[0].starts_with("c.toml:1:"), "{:?}", c.warnings);
    let e = parse("[explorer]\n", "c.toml", &env).unwrap_err();
    assert!(e.to_string().contains("no MCP servers"), "{e}");
    let e = parse("{\"other\": 1}", "x.json", &env).unwrap_err();
    assert!(e.to_string().contains("no MCP servers"), "{e}");
}

#[test]
fn vscode_servers_and_inputs() {
    let text = r#"{
      "inputs": [
        {"type": "promptString", "id": "region", "description": "Region", "default": "eu"},
        {"type": "promptString", "id": "key", "description": "API key", "password": true}
      ],
      "servers": {
        "git": {"type": "stdio", "command": "uvx", "args": ["mcp-server-git", "--repository", "${workspaceFolder}"], "env": {"R": "${input:region}", "H": "${env:HOME}"}},
        "remote": {"type": "http", "url": "https://x.example/mcp", "headers": {"Authorization": "Bearer ${input:key}"}},
        "old": {"type": "sse", "url": "https://y.example/sse"}
      }
    }"#;
    let mut vars = Vars::env(&env);
    vars.workspace = Some("/work/proj".into());
    let c = parse_with(text, ".vscode/mcp.json", vars, None).unwrap();
    assert_eq!(c.servers.len(), 1, "{:?}", c.warnings);
    let Transport::Stdio { args, env: e, .. } = &c.servers[0].transport else {
        panic!()
    };
    assert_eq!(args[2], "/work/proj");
    assert_eq!((e["R"].as_str(), e["H"].as_str()), ("eu", "/home/u"));
    let w = c.warnings.join("\n");
    assert!(
        w.contains("server \"remote\": ${input:key} (\"API key\")"),
        "{w}"
    );
    assert!(w.contains("server \"old\""), "{w}");
}

#[test]
fn claude_json_user_and_project_servers() {
    let text = r#"{"numStartups": 3, "mcpServers": {"time": {"command": "uvx", "args": ["mcp-server-time"]}, "git": {"command": "user-git"}},
      "projects": {"/home/u/app": {"allowedTools": [], "mcpServers": {"git": {"type": "stdio", "command": "project-git"}, "db": {"command": "db-mcp"}}},
                   "/home/u/other": {"mcpServers": {}}}}"#;
    let c = parse_with(
        text,
        "~/.claude.json",
        Vars::env(&env),
        Some(Path::new("/home/u/app/")),
    )
    .unwrap();
    let names: Vec<&str> = c.servers.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["time", "db", "git"]);
    let Transport::Stdio { command, .. } = &c.servers[2].transport else {
        panic!()
    };
    assert_eq!(command, "project-git", "the project's overrides the user's");
    assert!(
        c.notes[0].contains("project \"/home/u/app\""),
        "{:?}",
        c.notes
    );
    let e = parse_with(
        text,
        "~/.claude.json",
        Vars::env(&env),
        Some(Path::new("/nope")),
    )
    .unwrap_err();
    assert!(e.to_string().contains("/home/u/app, /home/u/other"), "{e}");
    let e = parse_with(
        "{\"mcpServers\": {}}",
        "m.json",
        Vars::env(&env),
        Some(Path::new("/x")),
    )
    .unwrap_err();
    assert!(e.to_string().contains("no \"projects\""), "{e}");
}

#[test]
fn claude_json_project_found_from_a_subdirectory() {
    let text = r#"{"projects": {"/home/u/app": {"mcpServers": {"db": {"command": "db-mcp"}}}}}"#;
    let c = parse_with(
        text,
        "~/.claude.json",
        Vars::env(&env),
        Some(Path::new("/home/u/app/src/deep")),
    )
    .unwrap();
    assert_eq!(c.servers[0].name, "db");
    assert!(c.notes[0].contains("\"/home/u/app\""), "{:?}", c.notes);
}

#[test]
fn vscode_jsonc_with_comments_and_trailing_commas() {
    // As VS Code's own documentation writes .vscode/mcp.json.
    let text = "{\n  // 💡 Inputs are prompted on first server start\n  \"inputs\": [],\n  \"servers\": {\n    /* the time server */\n    \"time\": {\n      \"command\": \"uvx\",\n      \"args\": [\"mcp-server-time\",],\n    },\n    \"bad\": {\"command\": 3},\n  },\n}\n";
    let c = parse(text, ".vscode/mcp.json", &env).unwrap();
    assert_eq!(c.servers.len(), 1);
    assert_eq!(c.servers[0].name, "time");
    // A warning still names the file's own line.
    assert!(
        c.warnings[0].contains(".vscode/mcp.json:10:"),
        "{:?}",
        c.warnings
    );
}

#[test]
fn workspace_folder_as_each_host_resolves_it() {
    let home = Path::new("/home/u");
    let cwd = Path::new("/home/u/proj");
    let w = |d: &str| workspace_of(Path::new(d), Some(home), Some(cwd)).unwrap();
    assert_eq!(w("/home/u/app/.vscode"), Path::new("/home/u/app"));
    assert_eq!(w("/home/u/app/.cursor"), Path::new("/home/u/app"));
    // Cursor's user-wide file: the project is where the host started us.
    assert_eq!(w("/home/u/.cursor"), cwd);
    assert_eq!(w("/home/u/app"), Path::new("/home/u/app"));
}

#[test]
fn a_relative_env_file_is_the_workspaces() {
    let dir = std::env::temp_dir().join(format!("toolsift-envfile-{}", std::process::id()));
    std::fs::create_dir_all(dir.join(".cursor")).unwrap();
    std::fs::write(dir.join(".env"), "FROM_FILE=1\n").unwrap();
    let path = dir.join(".cursor/mcp.json");
    std::fs::write(
        &path,
        r#"{"mcpServers": {"s": {"command": "x", "envFile": ".env", "args": ["${workspaceFolder}", "${workspaceFolderBasename}"]}}}"#,
    )
    .unwrap();
    let c = load(&path, &env).unwrap();
    assert!(c.warnings.is_empty(), "{:?}", c.warnings);
    let Transport::Stdio { env: e, args, .. } = &c.servers[0].transport else {
        panic!()
    };
    assert_eq!(e["FROM_FILE"], "1");
    let root = dir.canonicalize().unwrap();
    assert_eq!(args[0], root.display().to_string());
    assert_eq!(args[1], root.file_name().unwrap().to_string_lossy());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn inherit_env_is_read_for_stdio_and_refused_for_a_url() {
    let text = r#"{"mcpServers": {
        "a": {"command": "x", "inheritEnv": ["AWS_*"]},
        "b": {"command": "x", "inherit_env": true},
        "c": {"command": "x"},
        "u": {"url": "https://x.example/mcp", "inheritEnv": true}
    }}"#;
    let c = parse(text, "m.json", &env).unwrap();
    let inherit: Vec<InheritEnv> = c
        .servers
        .iter()
        .map(|s| match &s.transport {
            Transport::Stdio { inherit_env, .. } => inherit_env.clone(),
            Transport::Http { .. } => panic!("the url entry is skipped"),
        })
        .collect();
    assert_eq!(
        inherit,
        [
            InheritEnv::Also(vec!["AWS_*".into()]),
            InheritEnv::All,
            InheritEnv::Safe
        ]
    );
    assert!(
        c.warnings[0].contains("server \"u\": inherit_env"),
        "{:?}",
        c.warnings
    );
}

#[test]
fn an_entry_of_the_wrong_shape_is_named_in_words_not_rust_types() {
    let c = parse(
        r#"{"mcpServers": {"s": "uvx mcp-server-time"}}"#,
        "m.json",
        &env,
    )
    .unwrap();
    let w = c.warnings.join("\n");
    assert!(
        w.contains("expected a server: an object with \"command\" (stdio) or \"url\" (HTTP)"),
        "{w}"
    );
    assert!(!w.contains("struct") && !w.contains("ServerEntry"), "{w}");
}

#[test]
fn a_leading_tilde_is_home() {
    let h = Some("/home/u");
    assert_eq!(
        home_path(Path::new("~/.cursor/mcp.json"), h),
        Path::new("/home/u/.cursor/mcp.json")
    );
    assert_eq!(home_path(Path::new("~"), h), Path::new("/home/u"));
    assert_eq!(home_path(Path::new("~bob/x"), h), Path::new("~bob/x"));
    assert_eq!(home_path(Path::new("a/~/x"), h), Path::new("a/~/x"));
    assert_eq!(home_path(Path::new("~/x"), None), Path::new("~/x"));
    // And a file named so is read.
    let dir = std::env::temp_dir().join(format!("toolsift-tilde-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("m.json"),
        r#"{"mcpServers": {"s": {"command": "x"}}}"#,
    )
    .unwrap();
    let home = dir.display().to_string();
    let env = move |n: &str| (n == "HOME").then(|| home.clone());
    let c = load(Path::new("~/m.json"), &env).unwrap();
    assert_eq!(c.servers[0].name, "s");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn command_lines() {
    let s = stdio_server("uvx mcp-server-time --local-timezone 'Europe/Paris'").unwrap();
    assert_eq!(s.name, "mcp-server-time");
    let s = stdio_server("npx -y @modelcontextprotocol/server-everything").unwrap();
    assert_eq!(s.name, "server-everything");
    let Transport::Stdio { command, args, .. } = &s.transport else {
        panic!()
    };
    assert_eq!((command.as_str(), args.len()), ("npx", 2));
    let s = stdio_server("/usr/bin/my-server \"a b\" c\\ d").unwrap();
    assert_eq!(s.name, "my-server");
    let Transport::Stdio { args, .. } = &s.transport else {
        panic!()
    };
    assert_eq!(args, &["a b", "c d"]);
    assert!(stdio_server("  ").is_err());
    assert!(stdio_server("x 'open").is_err());
    assert_eq!(
        http_server("http://127.0.0.1:9/mcp").unwrap().name,
        "127.0.0.1:9"
    );
    assert!(http_server("ftp://x").is_err());
}

#[test]
fn an_oauth_entry_is_read_in_toolsifts_words_and_claude_codes_and_checked() {
    let text = r#"{"mcpServers": {
        "a": {"url": "https://a.example/mcp", "oauth": {"client_id": "toolsift-${HOME}", "client_secret": "${TOKEN}", "scopes": "read write", "callback_port": 8976}},
        "b": {"type": "http", "url": "https://b.example/mcp", "oauth": {"clientId": "cc", "callbackPort": 9000, "clientMetadataUrl": "https://me.example/client.json"}},
        "c": {"url": "https://c.example/mcp", "oauth": {"client_secret": "s"}},
        "d": {"url": "https://d.example/mcp", "oauth": {"client_metadata_url": "http://me.example/c.json"}},
        "e": {"url": "https://e.example/mcp", "oauth": {"scopes": ["ok", "not one"]}},
        "f": {"command": "x", "oauth": {"client_id": "x"}},
        "g": {"url": "https://g.example/mcp", "oauth": {"clientid": "typo"}}
    }}"#;
    let c = parse(text, "m.json", &env).unwrap();
    let oauth = |name: &str| match &c.servers.iter().find(|s| s.name == name).unwrap().transport {
        Transport::Http { oauth, .. } => oauth.clone(),
        Transport::Stdio { .. } => panic!(),
    };
    let a = oauth("a");
    assert_eq!(a.client_id.as_deref(), Some("toolsift-/home/u"));
    assert_eq!(a.client_secret.as_deref(), Some("s3cret"));
    assert_eq!(a.scopes, ["read", "write"]);
    assert_eq!(a.callback_port, Some(8976));
    let b = oauth("b");
    assert_eq!(b.client_id.as_deref(), Some("cc"));
    assert_eq!(b.callback_port, Some(9000));
    assert_eq!(
        b.client_metadata_url.as_deref(),
        Some("https://me.example/client.json")
    );
    // Each bad entry is skipped, its server and the reason named.
    assert_eq!(c.servers.len(), 2, "{:?}", c.warnings);
    let said = c.warnings.join("\n");
    for (server, why) in [
        ("c", "oauth.client_secret needs oauth.client_id"),
        ("d", "must be an https URL with a path"),
        ("e", "\"not one\" is not a scope"),
        ("f", "oauth is for servers reached by `url`"),
        ("g", "clientid"),
    ] {
        assert!(
            said.lines()
                .any(|l| l.contains(&format!("\"{server}\"")) && l.contains(why)),
            "{server}: {said}"
        );
    }
}

#[test]
fn a_sandbox_is_read_from_json_and_toml_and_a_bad_one_names_server_line_field_and_value() {
    use super::sandbox_entry::{Net, Sandbox};
    let text = r#"{"mcpServers": {
        "plain": {"command": "x"},
        "boxed": {"command": "x", "cwd": "/p", "sandbox": {"read": ["~/data"], "net": ["api.example.com:443"]}},
        "typo": {"command": "x", "sandbox": {"net": ["example.com"]}},
        "u": {"url": "https://x.example/mcp", "sandbox": true}
    }}"#;
    let c = parse(text, "m.json", &env).unwrap();
    let sandboxes: Vec<(&str, &Sandbox)> = c
        .servers
        .iter()
        .map(|s| match &s.transport {
            Transport::Stdio { sandbox, .. } => (s.name.as_str(), sandbox),
            Transport::Http { .. } => panic!("the url entry is skipped"),
        })
        .collect();
    assert_eq!(sandboxes.len(), 2, "{sandboxes:?}");
    assert_eq!(sandboxes[0], ("boxed", sandboxes[0].1));
    let Sandbox::On(grant) = sandboxes[0].1 else {
        panic!("{sandboxes:?}")
    };
    assert_eq!(grant.read, [Path::new("/home/u/data")]);
    assert_eq!(grant.project.as_deref(), Some(Path::new("/p")));
    assert_eq!(
        grant.net,
        Net::Ports(vec![(443, "api.example.com:443".into())])
    );
    assert_eq!(sandboxes[1], ("plain", &Sandbox::Off));
    assert_eq!(c.warnings.len(), 2, "{:?}", c.warnings);
    assert!(
        c.warnings[0].starts_with("m.json:4:")
            && c.warnings[0]
                .contains("server \"typo\": sandbox.net[0]: \"example.com\" is not a TCP port"),
        "{:?}",
        c.warnings
    );
    assert!(
        c.warnings[1].contains("server \"u\": sandbox is for servers started with `command`"),
        "{:?}",
        c.warnings
    );

    let toml = "[mcp.servers.t]\ncommand = \"x\"\nsandbox = { write = [\"/out\"], net = false }\n\n[mcp.servers.bad]\ncommand = \"x\"\nsandbox = { read = [1] }\n";
    let c = parse(toml, "c.toml", &env).unwrap();
    let Transport::Stdio {
        sandbox: Sandbox::On(grant),
        ..
    } = &c.servers[0].transport
    else {
        panic!("{:?}", c.servers)
    };
    assert_eq!(
        (grant.write.as_slice(), &grant.net),
        ([Path::new("/out").to_path_buf()].as_slice(), &Net::Denied)
    );
    assert!(
        c.warnings[0].starts_with("c.toml:5:")
            && c.warnings[0].contains("server \"bad\": sandbox.read[0]: expected a path, not 1"),
        "{:?}",
        c.warnings
    );
}
