//! What a login never does, against the OAuth fixture
//! (tests/fixtures/mcp/oauth_server.py): open a login page that is not
//! https (or http on this machine), read a login file that is not the
//! user's own, register a client per login, or open a page after page
//! for a server that keeps asking for more scopes.

use crate::gateway::{HttpGateway, get, host};
use crate::mcp_support::*;
use crate::oauth_fixture::{OAuthServer, run_env};

use std::os::unix::fs::PermissionsExt;
use std::time::{Duration, Instant};

use serde_json::json;

/// A `$BROWSER` that writes each address it is given to `pages`, then
/// opens it as tests/interop/browser.py does (or not, with `open` off).
fn counting_browser(dir: &TempDir, pages: &str, open: bool) -> String {
    let opens = if open {
        format!(
            "exec {} {} \"$1\"",
            python(),
            concat!(env!("CARGO_MANIFEST_DIR"), "/tests/interop/browser.py")
        )
    } else {
        String::new()
    };
    let script = dir.write(
        "browser.sh",
        &format!("#!/bin/sh\necho \"$1\" >> {pages}\n{opens}\n"),
    );
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    script
}

fn lines(path: &str) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(str::to_string)
        .collect()
}

#[test]
fn a_login_page_that_is_not_https_is_never_opened_and_the_server_is_refused() {
    let dir = TempDir::new("unsafe-page");
    let server = OAuthServer::start_with(
        &dir,
        60,
        &dir.path("never"),
        &["--authorization-endpoint", "file:///etc/passwd"],
    );
    let servers = mcp_json(&dir, json!({"hosted": {"type": "http", "url": server.url}}));
    let pages = dir.path("pages.txt");
    let browser = counting_browser(&dir, &pages, false);
    let cfg = dir.path("config");
    let env: Vec<(&str, &str)> = vec![
        ("XDG_CONFIG_HOME", &cfg),
        ("TOOLSIFT_TOKEN_STORE", "file"),
        ("BROWSER", &browser),
    ];
    // The gateway starts a login by itself: refused, with a warning.
    let gw = HttpGateway::start(
        &[
            "--mcp".into(),
            servers.clone(),
            "--start-wait".into(),
            "5".into(),
        ],
        &env,
    );
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let (_, health) = get(&format!("{}/healthz", gw.base()), None);
        if health.contains(r#""state":"failed""#) {
            assert!(health.contains("file:///etc/passwd"), "{health}");
            break;
        }
        assert!(Instant::now() < deadline, "{health}\n{}", gw.stderr());
        std::thread::sleep(Duration::from_millis(300));
    }
    let log = gw.stderr();
    assert!(
        log.contains("toolsift: warning: MCP server hosted: its authorization server's login page \"file:///etc/passwd\" is refused"),
        "{log}"
    );
    // So does `toolsift login`.
    let (ok, said) = run_env(&["login", "hosted", "--mcp", &servers, "--wait", "5"], &env);
    assert!(!ok, "{said}");
    assert!(said.contains("\"file:///etc/passwd\" is refused"), "{said}");
    assert!(!said.contains("needs a login: "), "{said}");
    // Nothing was put before the browser, nor registered.
    assert_eq!(lines(&pages), Vec::<String>::new());
    assert!(!server.said().contains("registered"), "{}", server.said());
}

#[test]
fn a_server_that_keeps_asking_for_scopes_gets_one_page_a_call_and_one_client() {
    let dir = TempDir::new("step-up");
    let server = OAuthServer::start_with(&dir, 60, &dir.path("never"), &["--step-up"]);
    let servers = mcp_json(&dir, json!({"hosted": {"type": "http", "url": server.url}}));
    let pages = dir.path("pages.txt");
    let browser = counting_browser(&dir, &pages, true);
    let cfg = dir.path("config");
    let env: Vec<(&str, &str)> = vec![
        ("XDG_CONFIG_HOME", &cfg),
        ("TOOLSIFT_TOKEN_STORE", "file"),
        ("BROWSER", &browser),
    ];
    let (ok, said) = run_env(
        &["login", "hosted", "--mcp", &servers, "--wait", "60"],
        &env,
    );
    assert!(ok, "{said}\n{}", server.said());
    let gw = HttpGateway::start(&["--mcp".into(), servers.clone()], &env);
    let (_, catalog) = get(&format!("{}/catalog", gw.base()), None);
    assert!(catalog.contains("whoami"), "{catalog}\n{}", gw.stderr());
    // Three calls, each refused for more scopes: each gets one login (a
    // page, the same client), then says how to log in.
    let call = json!({"op": "call", "name": "whoami", "arguments": {}});
    let answers = host(&["--url", &gw.url], "legacy", &json!([call, call, call]), 1).to_string();
    assert_eq!(
        answers
            .matches("it still refuses the call after a login")
            .count(),
        3,
        "{answers}\n{}",
        gw.stderr()
    );
    assert_eq!(
        lines(&pages).len(),
        4,
        "the login's page and one a call: {:?}",
        lines(&pages)
    );
    let registered = server.said().matches("registered ").count();
    assert_eq!(registered, 1, "{}", server.said());
}

#[test]
fn a_login_file_that_is_not_the_user_s_own_is_not_read() {
    let dir = TempDir::new("planted");
    let server = OAuthServer::start(&dir, 60, &dir.path("never"));
    let servers = mcp_json(&dir, json!({"hosted": {"type": "http", "url": server.url}}));
    let cfg = dir.path("config");
    let folder = format!("{cfg}/toolsift/logins");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::set_permissions(&folder, std::fs::Permissions::from_mode(0o700)).unwrap();
    // A login planted by someone else: a 0666 file behind a link.
    let planted = dir.write(
        "planted.json",
        &json!({"url": server.url, "credentials": {"client_id": "c",
            "token_response": {"access_token": "tok-planted", "token_type": "bearer"},
            "granted_scopes": []}})
        .to_string(),
    );
    std::fs::set_permissions(&planted, std::fs::Permissions::from_mode(0o666)).unwrap();
    let kept = format!("{folder}/hosted.json");
    std::os::unix::fs::symlink(&planted, &kept).unwrap();
    let env: Vec<(&str, &str)> = vec![("XDG_CONFIG_HOME", &cfg), ("TOOLSIFT_TOKEN_STORE", "file")];
    let (ok, said) = run_env(&["check", "--gateway", "--mcp", &servers], &env);
    assert!(!ok, "{said}");
    assert!(
        said.contains(&format!(
            "toolsift: warning: MCP server hosted: {kept} is not used: it is a symbolic link"
        )),
        "{said}"
    );
    assert!(said.contains("its kept login is not used"), "{said}");

    // A logins folder anyone may write: not used either.
    std::fs::remove_file(&kept).unwrap();
    std::fs::write(&kept, std::fs::read(&planted).unwrap()).unwrap();
    std::fs::set_permissions(&kept, std::fs::Permissions::from_mode(0o600)).unwrap();
    std::fs::set_permissions(&folder, std::fs::Permissions::from_mode(0o777)).unwrap();
    let (ok, said) = run_env(&["check", "--gateway", "--mcp", &servers], &env);
    assert!(!ok, "{said}");
    assert!(
        said.contains(&format!("{folder} is not used: the folder's mode is 777")),
        "{said}"
    );
}

#[test]
fn a_login_whose_client_the_authorization_server_forgot_waits_for_a_login() {
    let dir = TempDir::new("forgot");
    let mut server = OAuthServer::start(&dir, 60, &dir.path("never"));
    let servers = mcp_json(&dir, json!({"hosted": {"type": "http", "url": server.url}}));
    let cfg = dir.path("config");
    let browser = crate::oauth_fixture::browser();
    let env: Vec<(&str, &str)> = vec![
        ("XDG_CONFIG_HOME", &cfg),
        ("TOOLSIFT_TOKEN_STORE", "file"),
        ("BROWSER", &browser),
    ];
    let (ok, said) = run_env(
        &["login", "hosted", "--mcp", &servers, "--wait", "60"],
        &env,
    );
    assert!(ok, "{said}");
    // Its authorization server forgets every client and token.
    server.restart();
    let (ok, said) = run_env(&["check", "--gateway", "--mcp", &servers], &env);
    assert!(!ok, "{said}");
    assert!(
        said.contains("hosted: waiting for login (its authorization server no longer knows the client its login was made with: log in again with `toolsift login hosted --mcp"),
        "{said}\n{}",
        server.said()
    );
    assert!(!said.contains("hosted: failed"), "{said}");
    // The login made again registers a new client, and the server's
    // tool is back.
    let (ok, said) = run_env(
        &["login", "hosted", "--mcp", &servers, "--wait", "60"],
        &env,
    );
    assert!(ok, "{said}");
    assert_eq!(
        server.said().matches("registered ").count(),
        2,
        "{}",
        server.said()
    );
    let (ok, said) = run_env(&["check", "--gateway", "--mcp", &servers, "--json"], &env);
    assert!(ok && said.contains("whoami"), "{said}");
}
