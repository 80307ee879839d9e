//! Approvals through `toolsift gateway`, driven by the official Python SDK
//! as the host (tests/interop/gateway_host.py) in front of the real
//! mcp-server-git: the read-only dispatcher and the other one as the host
//! sees them, and the per-tool rules (allow, deny, ask) with a host that
//! says yes, one that says no, and one that cannot ask.

use serde_json::{Value, json};

use crate::gateway::{gateway_cmd, host, names, text};
use crate::mcp_support::*;

/// git behind the gateway (its servers' file), `git_reset` denied and
/// `git_add` asked (the user's config file), and a new file in the
/// repository to stage.
fn setup(dir: &TempDir) -> (String, String, String) {
    let repo = git_repo(dir);
    std::fs::write(std::path::Path::new(&repo).join("notes.txt"), "new\n").unwrap();
    let servers = dir.write(
        "mcp.toml",
        &format!(
            "[mcp.servers.git]\ncommand = {git:?}\nargs = [\"--repository\", {repo:?}]\n",
            git = git_bin(),
        ),
    );
    let config = dir.write(
        "config.toml",
        "[gateway.tools]\n\"git/git_reset\" = \"deny\"\n\"git_add\" = \"ask\"\n\"git/git_lo*\" = \"allow\"\n",
    );
    (servers, config, repo)
}

fn call(dispatcher: &str, name: &str, arguments: Value) -> Value {
    json!({"op": "call", "name": dispatcher, "arguments": {"name": name, "arguments": arguments}})
}

/// The files git has staged in `repo`.
fn staged(repo: &str) -> String {
    let out = std::process::Command::new("git")
        .args(["-C", repo, "diff", "--cached", "--name-only"])
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

fn run(servers: &str, config: &str, elicit: Option<&str>, steps: &Value, mode: &str) -> Vec<Value> {
    let cmd = gateway_cmd(&[
        "--config".into(),
        config.into(),
        "--mcp".into(),
        servers.into(),
    ]);
    let mut target = vec!["--stdio", cmd.as_str()];
    if let Some(answer) = elicit {
        target.extend(["--elicit", answer]);
    }
    let doc = host(&target, mode, steps, 1);
    if mode == "auto" {
        assert_eq!(doc["protocol_version"], "2026-07-28", "{doc}");
    }
    doc["sessions"][0].as_array().unwrap().clone()
}

/// On the handshake revision the gateway asks with an elicitation request.
#[test]
fn reads_and_writes_go_through_their_own_dispatchers_and_rules_hold() {
    dispatchers_and_rules("legacy");
}

/// On 2026-07-28 (the SDK's default, `auto`) it asks with the
/// input-required retry: the host asks the user and calls again.
#[test]
fn asked_tools_are_asked_through_the_input_required_retry_on_2026_07_28() {
    dispatchers_and_rules("auto");
}

fn dispatchers_and_rules(mode: &str) {
    let dir = TempDir::new("gw-approvals");
    let (servers, config, repo) = setup(&dir);
    let r#in = json!({"repo_path": repo});
    let steps = json!([
        {"op": "list"},
        call("call_read_tool", "git_log", json!({"repo_path": repo, "max_count": 1})),
        call("call_read_tool", "git_add", json!({"repo_path": repo, "files": ["notes.txt"]})),
        {"op": "call", "name": "search_tools", "arguments": {"query": "reset the repository to a commit"}},
        call("call_tool", "git_reset", r#in.clone()),
        call("call_tool", "git_add", json!({"repo_path": repo, "files": ["notes.txt"]})),
        {"op": "elicitations"},
    ]);
    // A host that cannot ask: the asked tool is refused and never runs.
    let r = run(&servers, &config, None, &steps, mode);
    assert_eq!(
        names(&r[0]),
        ["search_tools", "call_read_tool", "call_tool"],
        "{}",
        r[0]
    );
    let annotations = |name: &str| {
        r[0].as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == name)
            .unwrap()["annotations"]
            .clone()
    };
    assert_eq!(annotations("call_read_tool")["readOnlyHint"], true);
    assert_eq!(annotations("call_tool")["readOnlyHint"], false);
    assert_eq!(annotations("call_tool")["destructiveHint"], true);
    // The read-only tool runs through call_read_tool, and the result names
    // it with its server's annotations.
    assert_eq!(r[1]["isError"], false, "{}", r[1]);
    assert!(text(&r[1]).contains("first"), "{}", r[1]);
    let ran = &r[1]["_meta"]["io.toolsift/tool"];
    assert_eq!(ran["name"], "git_log", "{}", r[1]);
    assert_eq!(ran["server"], "git");
    assert_eq!(ran["annotations"]["readOnlyHint"], true, "{}", r[1]);
    // A tool that writes does not run through call_read_tool.
    assert_eq!(r[2]["isError"], true);
    assert!(text(&r[2]).contains("not marked read-only"), "{}", r[2]);
    // The denied tool is neither found nor called.
    let found: Vec<String> = names(&r[3]["structuredContent"]["tools"]);
    assert!(!found.contains(&"git_reset".to_string()), "{found:?}");
    assert!(
        text(&r[4]).contains("no tool named \"git_reset\" is available"),
        "{}",
        r[4]
    );
    assert!(!text(&r[4]).contains("closest"), "{}", r[4]);
    assert!(
        text(&r[5]).contains("needs the user's approval"),
        "{}",
        r[5]
    );
    assert_eq!(r[6], json!([]));
    assert_eq!(staged(&repo), "", "nothing was staged");

    // A host that asks the user, who says no: refused, nothing staged.
    let r = run(&servers, &config, Some("decline"), &steps, mode);
    assert_eq!(r[5]["isError"], true);
    assert!(text(&r[5]).contains("the user declined"), "{}", r[5]);
    let asked = r[6].as_array().unwrap();
    assert_eq!(asked.len(), 1, "{}", r[6]);
    assert!(asked[0].as_str().unwrap().contains("git_add"), "{}", r[6]);
    assert!(asked[0].as_str().unwrap().contains("notes.txt"), "{}", r[6]);
    assert_eq!(staged(&repo), "");

    // The user says yes: the call goes through and the file is staged.
    let r = run(&servers, &config, Some("accept"), &steps, mode);
    assert_eq!(r[5]["isError"], false, "{}", r[5]);
    assert_eq!(r[5]["_meta"]["io.toolsift/tool"]["name"], "git_add");
    assert_eq!(staged(&repo), "notes.txt");
    // Only the asked tool was asked about.
    assert_eq!(r[6].as_array().unwrap().len(), 1, "{}", r[6]);
}

#[test]
fn a_rule_that_matches_nothing_is_warned_of_and_rules_that_deny_all_are_an_error() {
    let dir = TempDir::new("gw-rules");
    let (servers, _, _) = setup(&dir);
    // `gateway --mcp SERVERS --dry-run` with `extra`: its exit code and stderr.
    let dry_run = |extra: &[&str]| {
        let mut args = vec![
            "gateway",
            "--offline",
            "--mcp",
            servers.as_str(),
            "--mcp-timeout",
            "60",
        ];
        args.extend(extra);
        args.push("--dry-run");
        let out = crate::common::run(&args);
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (code, stderr) = dry_run(&["--deny", "gti/*", "--ask", "git_add"]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        stderr.contains("tool rule \"gti/*\" matches none of the"),
        "{stderr}"
    );
    assert!(!stderr.contains("git_add\" matches"), "{stderr}");
    let (code, stderr) = dry_run(&["--deny", "git/*"]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("denied by the tool rules"), "{stderr}");
    // An always-load pattern that matches nothing is warned of too.
    let (code, stderr) = dry_run(&["--always-load", "gti/*"]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        stderr.contains("always-load pattern \"gti/*\" matches no tool"),
        "{stderr}"
    );
    // A value out of range in the file is named as the file's key.
    let big = dir.write("big.toml", "[gateway]\nmax_tools = 100\n");
    let (code, stderr) = dry_run(&["--config", &big]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("big.toml: [gateway] max_tools must be from 1 to 64, not 100"),
        "{stderr}"
    );
    let (_, stderr) = dry_run(&["--deny", "a/b/c"]);
    assert!(
        stderr.contains("--deny: tool rule \"a/b/c\": a pattern is server/tool, server/* or tool"),
        "{stderr}"
    );
}

/// A name that puts another server in front of a tool is refused: git's
/// `git_status` is not run as `evil__git_status` (evil is another server
/// here), while the host's and git's own namespaces still reach it.
#[test]
fn a_namespace_naming_another_server_is_refused() {
    let dir = TempDir::new("gw-foreign");
    let repo = git_repo(&dir);
    let servers = dir.write(
        "mcp.toml",
        &format!(
            "[mcp.servers.git]\ncommand = {git:?}\nargs = [\"--repository\", {repo:?}]\n\n[mcp.servers.evil]\ncommand = {time:?}\nargs = [\"--local-timezone\", \"Etc/UTC\"]\n",
            git = git_bin(),
            time = time_bin(),
        ),
    );
    let config = dir.write("config.toml", "");
    let status = |name: &str| call("call_read_tool", name, json!({"repo_path": repo}));
    let steps = json!([
        status("evil__git_status"),
        status("EVIL.git_status"),
        status("git__git_status"),
        status("mcp__git__git_status"),
        status("git_status"),
    ]);
    for mode in ["legacy", "auto"] {
        let r = run(&servers, &config, None, &steps, mode);
        for refused in &r[..2] {
            assert_eq!(refused["isError"], true, "{mode}: {refused}");
            assert!(
                text(refused).contains("names server evil, but git_status is a tool of server git"),
                "{mode}: {refused}"
            );
        }
        for ran in &r[2..] {
            assert_eq!(ran["isError"], false, "{mode}: {ran}");
            assert!(text(ran).contains("branch"), "{mode}: {ran}");
        }
    }
}

#[test]
fn a_rule_of_a_server_still_starting_is_not_said_to_match_nothing() {
    let dir = TempDir::new("gw-rules-slow");
    // A server that takes 4 s to start, past the gateway's start wait.
    let servers = dir.write(
        "mcp.toml",
        &format!(
            "[mcp.servers.slow]\ncommand = \"sh\"\nargs = [\"-c\", {:?}]\n",
            format!("sleep 4; exec {} --local-timezone Etc/UTC", time_bin())
        ),
    );
    let cmd = crate::gateway::command_line(&[
        crate::gateway::toolsift().to_string(),
        "gateway".into(),
        "--offline".into(),
        "--mcp-timeout".into(),
        "60".into(),
        "--start-wait".into(),
        "0.5".into(),
        "--mcp".into(),
        servers,
        "--ask".into(),
        "slow/get_current_time".into(),
        "--deny".into(),
        "gti/*".into(),
    ]);
    let steps = json!([{"op": "sleep", "seconds": 7}, {"op": "list"}]);
    let (_, stderr) = crate::gateway::host_with_stderr(&["--stdio", &cmd], "legacy", &steps, 1);
    assert!(
        !stderr.contains("\"slow/get_current_time\" matches none"),
        "{stderr}"
    );
    // Said once the server has answered: the rule that matches nothing.
    assert!(
        stderr.contains("tool rule \"gti/*\" matches none of the 2 tools"),
        "{stderr}"
    );
}
