//! Servers in a sandbox: a real MCP server (the Python SDK's, in
//! tests/fixtures/mcp/reach_server.py) behind the gateway, driven by the
//! Python SDK host on both revisions. Sandboxed, it reads the folder its
//! entry grants and gets the OS's "Permission denied" for `~/.ssh` (a home
//! folder of the test's own) and for a URL on a loopback HTTP server the
//! test runs; the same server unsandboxed reads and fetches both (so the
//! test can fail). server-everything (node) runs under the default grant.
//! The gateway's start-up lines say what each server may touch.

use crate::gateway::{gateway_cmd, host_with_stderr, text};
use crate::mcp_support::*;

use std::io::{Read, Write};

use serde_json::{Value, json};

/// A loopback HTTP server answering every request with `body`; its port.
fn loopback_http(body: &'static str) -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for mut stream in listener.incoming().flatten() {
            let mut buf = [0u8; 4096];
            let _ = stream.read(&mut buf);
            let _ = write!(
                stream,
                "HTTP/1.0 200 OK\r\nContent-Length: {}\r\n\r\n{body}",
                body.len()
            );
        }
    });
    port
}

/// The reach server's entry with HOME set to `home` and `extra` keys.
fn reach(home: &str, extra: Value) -> Value {
    let mut entry = json!({
        "command": python(),
        "args": [mcp_fixture("reach_server.py")],
        "env": {"HOME": home},
        "alwaysLoad": true,
    });
    if let (Some(e), Some(x)) = (entry.as_object_mut(), extra.as_object()) {
        e.extend(x.clone());
    }
    entry
}

#[test]
fn a_sandboxed_server_is_refused_outside_its_grant_while_its_own_work_succeeds() {
    let dir = TempDir::new("sandbox");
    for sub in ["home/.ssh", "data", "out", "srv"] {
        std::fs::create_dir_all(dir.path(sub)).unwrap();
    }
    let key = dir.write("home/.ssh/id_rsa", "canary-private-key\n");
    let notes = dir.write("data/notes.txt", "granted notes\n");
    let port = loopback_http("canary-loopback-body");
    let url = format!("http://127.0.0.1:{port}/");
    let home = dir.path("home");
    let out = dir.path("out");
    let config = mcp_json(
        &dir,
        json!({
            "boxed": reach(&home, json!({"sandbox": {"read": [dir.path("data")], "write": [&out], "net": false}})),
            "open": reach(&home, json!({})),
            "everything": {"command": everything_bin(), "sandbox": true, "alwaysLoad": true},
        }),
    );
    let call = |server: &str, tool: &str, arguments: Value| json!({"op": "call", "name": format!("{server}__{tool}"), "arguments": arguments});
    let steps = json!([
        call("boxed", "read_file", json!({"path": notes})),
        call("boxed", "read_file", json!({"path": key})),
        call("boxed", "fetch", json!({"url": url})),
        call("boxed", "write_file", json!({"path": format!("{out}/made.txt"), "text": "made"})),
        call("boxed", "write_file", json!({"path": dir.path("data/not.txt"), "text": "no"})),
        call("open", "read_file", json!({"path": key})),
        call("open", "fetch", json!({"url": url})),
        {"op": "call", "name": "echo", "arguments": {"message": "from the sandbox"}},
    ]);
    let args = vec!["--mcp".to_string(), config];
    for mode in ["legacy", "2026-07-28"] {
        let _ = std::fs::remove_file(format!("{out}/made.txt"));
        let (doc, stderr) = host_with_stderr(&["--stdio", &gateway_cmd(&args)], mode, &steps, 1);
        let r = doc["sessions"][0].as_array().unwrap().clone();
        let ok = |i: usize| {
            assert_eq!(
                r[i]["isError"], false,
                "{mode} step {i}: {}\n{stderr}",
                r[i]
            );
            text(&r[i])
        };
        let denied = |i: usize| {
            assert_eq!(r[i]["isError"], true, "{mode} step {i}: {}\n{stderr}", r[i]);
            let text = text(&r[i]);
            assert!(
                text.contains("Permission denied"),
                "{mode} step {i}: {text}"
            );
            text
        };
        // Its own work: the granted folder read, the granted one written.
        assert_eq!(ok(0), "granted notes\n", "{mode}");
        assert_eq!(ok(3), "written", "{mode}");
        assert_eq!(
            std::fs::read_to_string(format!("{out}/made.txt")).unwrap(),
            "made"
        );
        // Outside its grant: the OS's own error, nothing of the file.
        assert!(!denied(1).contains("canary-private-key"), "{mode}");
        assert!(!denied(2).contains("canary-loopback-body"), "{mode}");
        denied(4);
        assert!(!std::path::Path::new(&dir.path("data/not.txt")).exists());
        // The same server unsandboxed reaches both: the test can fail.
        assert_eq!(ok(5), "canary-private-key\n", "{mode}");
        assert_eq!(ok(6), "canary-loopback-body", "{mode}");
        // A node server under the default grant does its work.
        assert!(ok(7).contains("from the sandbox"), "{mode}");
        // The start-up lines say what each may touch.
        let line = |server: &str| {
            stderr
                .lines()
                .find(|l| l.starts_with(&format!("toolsift: MCP server \"{server}\": ")))
                .unwrap_or_else(|| panic!("no start-up line for {server}:\n{stderr}"))
                .to_string()
        };
        let boxed = line("boxed");
        assert!(boxed.contains("sandboxed (Landlock ABI"), "{boxed}");
        assert!(
            boxed.contains(&format!("its entry ({} {out})", dir.path("data")))
                || boxed.contains(&dir.path("data")),
            "{boxed}"
        );
        assert!(boxed.contains("net: none"), "{boxed}");
        assert!(
            !boxed.contains(&format!("{home} ")),
            "the home folder is not granted: {boxed}"
        );
        assert!(line("open").contains("not sandboxed"), "{}", line("open"));
        assert!(
            line("everything").contains("net: any"),
            "{}",
            line("everything")
        );
    }
}
