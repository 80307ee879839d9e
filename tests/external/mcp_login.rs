//! Logins to a hosted MCP server that asks for OAuth, against the MCP
//! Python SDK's authorization server (tests/fixtures/mcp/oauth_server.py:
//! metadata, registration, PKCE, `resource`, refresh): the gateway over
//! HTTP waits for the login without holding its host up, `toolsift login`
//! makes it (the page opened by tests/interop/browser.py as `$BROWSER`),
//! the server's tools join, an expired token is refreshed, a refused
//! refresh is said as a login to make again, `toolsift logout` forgets it;
//! and no token the server issued shows in the gateway's log, its trace,
//! its `/events` stream, its `/metrics` or any command's output.

use crate::gateway::{HttpGateway, get, host, toolsift};
use crate::mcp_support::*;
use crate::oauth_fixture::{OAuthServer, browser, run_env};

use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

#[test]
fn a_hosted_server_waits_for_a_login_joins_after_it_refreshes_and_no_token_is_ever_said() {
    let dir = TempDir::new("login");
    let refuse = dir.path("refuse-refresh");
    let server = OAuthServer::start(&dir, 6, &refuse);
    let servers = mcp_json(&dir, json!({"hosted": {"type": "http", "url": server.url}}));
    let cfg = dir.path("config");
    let trace = dir.path("trace.jsonl");
    let browser = browser();
    let env: Vec<(&str, &str)> = vec![
        ("XDG_CONFIG_HOME", &cfg),
        ("TOOLSIFT_TOKEN_STORE", "file"),
        ("BROWSER", &browser),
        ("GW_LOGIN_KEY", "k3y"),
    ];
    // The gateway starts no login of its own here (no browser), so the
    // wait is seen; it answers its host at once all the same.
    let mut gw_env = env.clone();
    gw_env.push(("TOOLSIFT_NO_BROWSER", "1"));
    let gw = HttpGateway::start(
        &[
            "--mcp".into(),
            servers.clone(),
            "--always-load".into(),
            "hosted/*".into(),
            "--api-key-env".into(),
            "GW_LOGIN_KEY".into(),
            "--log-calls".into(),
            "--trace".into(),
            trace.clone(),
            "--start-wait".into(),
            "5".into(),
            // A call refused for the login, called again, is no loop.
            "--breaker-threshold-read-only".into(),
            "1".into(),
        ],
        &gw_env,
    );
    // Its /events stream, read all along.
    let events_file = dir.path("events.txt");
    let mut events = Command::new("curl")
        .args([
            "-sN",
            "--max-time",
            "120",
            "-H",
            "Authorization: Bearer k3y",
        ])
        .arg(format!("{}/events", gw.base()))
        .stdout(std::fs::File::create(&events_file).unwrap())
        .spawn()
        .expect("curl reads the gateway's events");
    let header = "Authorization: Bearer k3y";
    let first = host(
        &["--url", &gw.url, "--header", header],
        "legacy",
        &json!([{"op": "call", "name": "search_tools", "arguments": {"query": "who am I"}}]),
        1,
    );
    let answer = first.to_string();
    assert!(
        answer.contains("servers_waiting_for_login"),
        "{answer}\n{}",
        gw.stderr()
    );
    // The hint is the command that works: with the servers file.
    let command = format!("toolsift login hosted --mcp {servers}");
    assert!(answer.contains(&command), "{answer}");
    assert!(
        first["instructions"]
            .as_str()
            .unwrap_or("")
            .contains(&format!("hosted (waiting for login: no browser was opened (TOOLSIFT_NO_BROWSER is set): open the login page whose address the log gives, or log in with `{command}`)")),
        "{first}"
    );
    // No browser is opened under TOOLSIFT_NO_BROWSER, and nothing says
    // one was: the page's address is said instead.
    let log = gw.stderr();
    assert!(
        log.contains(
            "hosted needs a login: no browser was opened (TOOLSIFT_NO_BROWSER is set): open http"
        ),
        "{log}"
    );
    assert!(!log.contains("was opened in the browser"), "{log}");
    assert!(!log.contains("a login page was opened"), "{log}");
    assert!(answer.contains("no browser was opened"), "{answer}");

    // `check --gateway` says the same, and how to log in.
    let (ok, said) = run_env(&["check", "--gateway", "--mcp", &servers], &env);
    assert!(!ok, "{said}");
    assert!(
        said.contains(&format!("hosted waits for a login (`{command}` makes it)")),
        "{said}"
    );

    // The login, made once in a terminal.
    let (ok, said) = run_env(
        &["login", "hosted", "--mcp", &servers, "--wait", "60"],
        &env,
    );
    assert!(ok, "{said}");
    assert!(said.contains("logged in to hosted"), "{said}");
    let kept = format!("{cfg}/toolsift/logins/hosted.json");
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(&kept).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600, "{kept}");

    // The gateway notices it and the server's tool joins.
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let (status, body) = get(&format!("{}/catalog", gw.base()), Some("k3y"));
        if status == 200 && body.contains("whoami") {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "whoami never joined: {body}\n{}",
            gw.stderr()
        );
        std::thread::sleep(Duration::from_millis(300));
    }
    let call = json!([{"op": "call", "name": "whoami", "arguments": {}}]);
    let called = host(&["--url", &gw.url, "--header", header], "legacy", &call, 1);
    assert!(
        called.to_string().contains("called with a login"),
        "{called}"
    );

    // Past the token's life: refreshed before it is sent, the call goes
    // (this host on its own default revision, the first on the handshake's).
    std::thread::sleep(Duration::from_secs(7));
    let called = host(&["--url", &gw.url, "--header", header], "auto", &call, 1);
    assert!(
        called.to_string().contains("called with a login"),
        "{called}\n{}",
        gw.stderr()
    );
    assert!(server.said().contains("refreshed"), "{}", server.said());

    // A refresh refused: the login is to make again, and said so.
    std::fs::write(&refuse, "").unwrap();
    std::thread::sleep(Duration::from_secs(7));
    let (ok, said) = run_env(&["check", "--gateway", "--mcp", &servers], &env);
    assert!(!ok, "{said}");
    assert!(
        said.contains(&format!("its login expired or was revoked and could not be renewed: log in again with `{command}`")),
        "{said}"
    );

    // A call the server now refuses gets a login; with no browser to open
    // its page, the call says where the page is at once, and the login
    // goes on: the page opened, the next call goes. Called again at once
    // (threshold 1), it is refused for the login again, not as a loop,
    // and no second page is made.
    let twice = json!([
        {"op": "call", "name": "whoami", "arguments": {}},
        {"op": "call", "name": "whoami", "arguments": {}},
        {"op": "call", "name": "search_tools", "arguments": {"query": "who am I"}}
    ]);
    let refused = host(&["--url", &gw.url, "--header", header], "legacy", &twice, 1).to_string();
    assert!(!refused.contains("stopped this call"), "{refused}");
    assert_eq!(refused.matches("then try again").count(), 2, "{refused}");
    assert!(
        refused.contains(&format!("log in with `{command}` and call again")),
        "{refused}"
    );
    let log = gw.stderr();
    let pages: Vec<&str> = log
        .lines()
        .filter(|l| l.contains("hosted needs a login"))
        .collect();
    assert_eq!(
        pages.len(),
        2,
        "one page at the start, one for the call: {pages:?}"
    );
    // Every state shown says it waits for a login: the search's answer,
    // /healthz.
    assert!(refused.contains("servers_waiting_for_login"), "{refused}");
    let (_, health) = get(&format!("{}/healthz", gw.base()), None);
    assert!(
        health.contains(r#"{"name":"hosted","state":"waiting for login"}"#),
        "{health}"
    );
    let at = refused
        .find("open http://127.0.0.1")
        .unwrap_or_else(|| panic!("{refused}\n{}", gw.stderr()));
    let page: String = refused[at + "open ".len()..]
        .chars()
        .take_while(|c| !c.is_whitespace() && *c != '"' && *c != '\\')
        .collect();
    assert!(refused.contains("then try again"), "{refused}");
    let opened = Command::new(python())
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/interop/browser.py"
        ))
        .arg(&page)
        .status()
        .unwrap();
    assert!(opened.success());
    let deadline = Instant::now() + Duration::from_secs(20);
    let again = loop {
        let got = host(&["--url", &gw.url, "--header", header], "legacy", &call, 1);
        if got.to_string().contains("called with a login") {
            break got;
        }
        assert!(Instant::now() < deadline, "{got}\n{}", gw.stderr());
        std::thread::sleep(Duration::from_millis(500));
    };
    let (_, health) = get(&format!("{}/healthz", gw.base()), None);
    assert!(
        health.contains(r#"{"name":"hosted","state":"loaded","tools":1}"#),
        "{health}"
    );

    // Logout forgets it.
    let (ok, said) = run_env(&["logout", "hosted"], &env);
    assert!(ok && said.contains("forgot the login of hosted"), "{said}");
    assert!(!std::path::Path::new(&kept).exists());
    let (_, said_again) = run_env(&["logout", "hosted"], &env);
    assert!(
        said_again.contains("no login was kept for hosted"),
        "{said_again}"
    );

    // Not one token in anything toolsift wrote or served.
    let (_, metrics) = get(&format!("{}/metrics", gw.base()), Some("k3y"));
    let _ = events.kill();
    let _ = events.wait();
    let tokens = server.tokens();
    assert!(tokens.len() >= 2, "{}", server.said());
    let written = [
        ("the gateway's log", gw.stderr()),
        (
            "its trace",
            std::fs::read_to_string(&trace).unwrap_or_default(),
        ),
        (
            "its /events",
            std::fs::read_to_string(&events_file).unwrap_or_default(),
        ),
        ("its /metrics", metrics),
        ("the commands' output", format!("{said}{said_again}")),
        (
            "the host's answers",
            format!("{first}{called}{refused}{again}"),
        ),
    ];
    assert!(!written[2].1.is_empty(), "the events stream said nothing");
    for token in &tokens {
        for (what, text) in &written {
            assert!(!text.contains(token.as_str()), "a token is in {what}");
        }
    }
    let _: Value = first;
}

/// Where there is an OS keyring (here a real Secret Service: GNOME
/// Keyring's daemon on a D-Bus session bus of the test's own), the login
/// is kept there and nowhere on disk; `check --gateway` reads it back,
/// and `logout` takes it out.
#[test]
fn a_login_is_kept_in_the_os_keyring_when_there_is_one() {
    let bus = need(
        "/usr/bin/dbus-run-session".into(),
        "dbus-run-session (the dbus Debian package)",
    );
    need(
        "/usr/bin/gnome-keyring-daemon".into(),
        "gnome-keyring-daemon (the gnome-keyring Debian package)",
    );
    let dir = TempDir::new("keyring");
    let server = OAuthServer::start(&dir, 60, &dir.path("never"));
    let servers = mcp_json(&dir, json!({"hosted": {"type": "http", "url": server.url}}));
    let script = dir.write(
        "session.sh",
        &format!(
            r#"set -e
export HOME="{home}" XDG_CONFIG_HOME="{home}/config"
echo -n pw | gnome-keyring-daemon --unlock --components=secrets >/dev/null
"{bin}" login hosted --mcp "{servers}" --wait 60
test ! -e "$XDG_CONFIG_HOME/toolsift/logins/hosted.json" || {{ echo "a login file was written"; exit 9; }}
"{bin}" check --gateway --mcp "{servers}" --json > "{home}/check.json"
"{bin}" logout hosted
"{bin}" logout hosted
"#,
            home = dir.0.display(),
            bin = toolsift(),
            servers = servers,
        ),
    );
    let out = Command::new(bus)
        .args(["--", "bash", &script])
        .env("BROWSER", browser())
        .env_remove("TOOLSIFT_TOKEN_STORE")
        .output()
        .unwrap();
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{said}");
    assert!(
        said.contains("the tokens are kept in the OS keyring"),
        "{said}"
    );
    let check = std::fs::read_to_string(dir.path("check.json")).unwrap();
    assert!(check.contains("whoami"), "{check}");
    assert!(said.contains("forgot the login of hosted"), "{said}");
    assert!(said.contains("no login was kept for hosted"), "{said}");
    for token in server.tokens() {
        assert!(!said.contains(&token) && !check.contains(&token));
    }
}
