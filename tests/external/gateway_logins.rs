//! Each person's own login to a hosted server, over the gateway's HTTP
//! address: three named keys in front of the OAuth fixture (a real MCP
//! Python SDK authorization and resource server,
//! tests/fixtures/mcp/oauth_server.py). Alice and Bob each log in with
//! `toolsift login hosted --as KEY` as a different person (the fixture's
//! browser signed in as that person), and each call carries its own key's
//! token: the server's log names the token and the person of every call.
//! Carol, with no login, is told so with `--as carol` in her first view,
//! her search's note and her call's error, and her call never reaches the
//! server. A server marked `"login": "shared"` keeps one login for all.
//! Hosts: the official MCP Python SDK, on both protocol revisions.

use serde_json::{Value, json};

use crate::gateway::{HttpGateway, host, text};
use crate::mcp_support::*;
use crate::oauth_fixture::{OAuthServer, browser, run_env};

use std::time::{Duration, Instant};

const KEYS: [(&str, &str); 3] = [
    ("ALICE_KEY", "alice-secret"),
    ("BOB_KEY", "bob-secret"),
    ("CAROL_KEY", "carol-secret"),
];

const CONFIG: &str = "[gateway.keys.alice]\nenv = \"ALICE_KEY\"\n\n[gateway.keys.bob]\nenv = \"BOB_KEY\"\n\n[gateway.keys.carol]\nenv = \"CAROL_KEY\"\n";

const MODES: [&str; 2] = ["legacy", "2026-07-28"];

/// What the logins and the gateway share: the config folder the logins
/// are kept in, the browser, the keys.
struct Place {
    dir: TempDir,
    cfg: String,
    browser: String,
}

impl Place {
    fn new(name: &str) -> Place {
        let dir = TempDir::new(name);
        let cfg = dir.path("xdg");
        Place {
            dir,
            cfg,
            browser: browser(),
        }
    }

    /// The environment of a command, its browser signed in as `person`.
    fn env<'a>(&'a self, person: &'a str) -> Vec<(&'a str, &'a str)> {
        let mut env = vec![
            ("XDG_CONFIG_HOME", self.cfg.as_str()),
            ("TOOLSIFT_TOKEN_STORE", "file"),
            ("BROWSER", self.browser.as_str()),
            ("TOOLSIFT_TEST_BROWSER_USER", person),
        ];
        env.extend(KEYS);
        env
    }

    /// `toolsift login hosted` (as `key`, when given) with the fixture's
    /// browser signed in as `person`.
    fn log_in(&self, servers: &str, config: &str, key: Option<&str>, person: &str) -> String {
        let mut args = vec![
            "login", "hosted", "--mcp", servers, "--config", config, "--wait", "60",
        ];
        if let Some(key) = key {
            args.extend(["--as", key]);
        }
        let (ok, said) = run_env(&args, &self.env(person));
        assert!(ok, "{said}");
        said
    }

    fn gateway(&self, servers: &str, config: &str) -> HttpGateway {
        let env = self.env("nobody-at-the-gateway");
        let mut gw_env = env.clone();
        gw_env.push(("TOOLSIFT_NO_BROWSER", "1"));
        HttpGateway::start(
            &[
                "--config".into(),
                config.into(),
                "--mcp".into(),
                servers.into(),
                "--always-load".into(),
                "hosted/*".into(),
                "--log-calls".into(),
                "--breaker-threshold-read-only".into(),
                "50".into(),
            ],
            &gw_env,
        )
    }
}

/// One host session with `key`: its whole answer (instructions and each
/// step's result).
fn session_as(gw: &HttpGateway, mode: &str, key: &str, steps: &Value) -> Value {
    let header = format!("Authorization: Bearer {key}");
    host(&["--url", &gw.url, "--header", &header], mode, steps, 1)
}

/// The first view (tools/list), a search, a call.
fn view_search_call() -> Value {
    json!([
        {"op": "list"},
        {"op": "call", "name": "search_tools", "arguments": {"query": "who am I"}},
        {"op": "call", "name": "whoami", "arguments": {}},
    ])
}

/// The server's log of calls: each call's token and person.
pub(crate) fn calls(server: &OAuthServer) -> Vec<(String, String)> {
    server
        .said()
        .lines()
        .filter_map(|l| l.strip_prefix("call whoami "))
        .map(|l| {
            let (token, user) = l.split_once(' ').unwrap();
            (token.to_string(), user.to_string())
        })
        .collect()
}

/// The person each access token was issued to, by the server's log.
pub(crate) fn person_of(server: &OAuthServer, token: &str) -> Option<String> {
    server.said().lines().find_map(|l| {
        let rest = l.strip_prefix("login ")?;
        let (user, issued) = rest.split_once(' ')?;
        (issued == token).then(|| user.to_string())
    })
}

/// Waits until `key`'s call goes through (the gateway noticed its login).
fn until_called(gw: &HttpGateway, key: &str, person: &str) {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let doc = session_as(
            gw,
            "legacy",
            key,
            &json!([{"op": "call", "name": "whoami", "arguments": {}}]),
        );
        if doc
            .to_string()
            .contains(&format!("called with a login of {person}"))
        {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "{key}'s login never noticed: {doc}\n{}",
            gw.stderr()
        );
        std::thread::sleep(Duration::from_millis(500));
    }
}

#[test]
fn each_key_calls_with_its_own_login_and_a_key_without_one_is_told_how_to_make_it() {
    let place = Place::new("key-logins");
    let server = OAuthServer::start(&place.dir, 600, &place.dir.path("never"));
    let servers = mcp_json(
        &place.dir,
        json!({"hosted": {"type": "http", "url": server.url}}),
    );
    let config = place.dir.write("config.toml", CONFIG);

    // A name the config does not have is refused, naming the file and the
    // names it has.
    let (ok, said) = run_env(
        &[
            "login", "hosted", "--mcp", &servers, "--config", &config, "--as", "mallory",
        ],
        &place.env("mallory"),
    );
    assert!(!ok, "{said}");
    assert!(
        said.contains(&format!("--as mallory: no key of that name in [gateway.keys] of {config} (the keys there: alice, bob, carol)")),
        "{said}"
    );

    // Alice logs in before the gateway starts: her own login, in a file
    // of her own.
    let said = place.log_in(&servers, &config, Some("alice"), "person-a");
    assert!(said.contains("logged in to hosted as key alice"), "{said}");
    assert!(
        std::path::Path::new(&format!("{}/toolsift/logins/hosted@alice.json", place.cfg)).exists()
    );
    assert!(!std::path::Path::new(&format!("{}/toolsift/logins/hosted.json", place.cfg)).exists());

    let gw = place.gateway(&servers, &config);
    let command = format!("toolsift login hosted --mcp {servers} --config {config}");
    for mode in MODES {
        // Alice: her tool, her call as person A.
        let alice = session_as(&gw, mode, "alice-secret", &view_search_call());
        let said = alice.to_string();
        assert!(
            said.contains("called with a login of person-a"),
            "{mode}: {said}\n{}",
            gw.stderr()
        );
        assert!(!said.contains("waiting for login"), "{mode}: {said}");
        if let Some(instructions) = alice["instructions"].as_str() {
            assert!(
                instructions.contains("hosted (1 tool)"),
                "{mode}: {instructions}"
            );
        }

        // Carol: no login of her own, told so everywhere with `--as carol`;
        // her call is refused, not sent with Alice's token.
        let carol = session_as(&gw, mode, "carol-secret", &view_search_call());
        let hint = format!("log in with `{command} --as carol`");
        // The first view: the handshake's instructions (where the
        // revision has a handshake) and search_tools' description.
        if let Some(instructions) = carol["instructions"].as_str() {
            assert!(
                instructions.contains("hosted (waiting for login:"),
                "{mode}: {carol}"
            );
            assert!(instructions.contains(&hint), "{mode}: {instructions}");
        }
        let listed = carol["sessions"][0][0].as_array().unwrap();
        let search = listed.iter().find(|t| t["name"] == "search_tools").unwrap();
        let described = search["description"].as_str().unwrap();
        assert!(
            described.contains("waiting for login"),
            "{mode}: {described}"
        );
        assert!(described.contains("--as carol"), "{mode}: {described}");
        let found = &carol["sessions"][0][1];
        assert!(
            found.to_string().contains("servers_waiting_for_login"),
            "{mode}: {found}"
        );
        assert!(text(found).contains(&hint), "{mode}: {found}");
        let called = &carol["sessions"][0][2];
        assert_eq!(called["isError"], true, "{mode}: {called}");
        assert!(
            text(called).contains("waiting for login"),
            "{mode}: {called}"
        );
        assert!(text(called).contains(&hint), "{mode}: {called}");
        assert!(
            !carol.to_string().contains("called with a login"),
            "{mode}: {carol}"
        );
    }

    // Bob logs in while the gateway runs, as person B: noticed, his calls
    // carry his own token.
    let bob_before = session_as(&gw, "legacy", "bob-secret", &view_search_call());
    assert!(bob_before.to_string().contains("--as bob"), "{bob_before}");
    place.log_in(&servers, &config, Some("bob"), "person-b");
    until_called(&gw, "bob-secret", "person-b");
    for mode in MODES {
        let bob = session_as(&gw, mode, "bob-secret", &view_search_call()).to_string();
        assert!(
            bob.contains("called with a login of person-b"),
            "{mode}: {bob}"
        );
        let alice = session_as(&gw, mode, "alice-secret", &view_search_call()).to_string();
        assert!(
            alice.contains("called with a login of person-a"),
            "{mode}: {alice}"
        );
    }

    // The server's log: every call carried the token of its key's person,
    // Alice's and Bob's tokens differ, and no call came as anyone else.
    // Alice twice, Bob once as his login is noticed, then each twice
    // more: Carol's calls, and Bob's before his login, never reached it.
    let made = calls(&server);
    assert_eq!(made.len(), 7, "{made:?}");
    for (token, user) in &made {
        assert!(user == "person-a" || user == "person-b", "{made:?}");
        assert_eq!(
            person_of(&server, token).as_deref(),
            Some(user.as_str()),
            "{token}"
        );
    }
    let tokens = |who: &str| -> std::collections::BTreeSet<&String> {
        made.iter()
            .filter(|(_, u)| u == who)
            .map(|(t, _)| t)
            .collect()
    };
    assert!(
        tokens("person-a").is_disjoint(&tokens("person-b")),
        "{made:?}"
    );
    // No token shows in what the gateway said.
    let log = gw.stderr();
    for token in server.tokens() {
        assert!(!log.contains(&token), "a token in the gateway's log");
    }
}

#[test]
fn a_shared_server_keeps_one_login_for_every_key() {
    let place = Place::new("shared-login");
    let server = OAuthServer::start(&place.dir, 600, &place.dir.path("never"));
    let servers = mcp_json(
        &place.dir,
        json!({"hosted": {"type": "http", "url": server.url, "login": "shared"}}),
    );
    let config = place.dir.write("config.toml", CONFIG);
    // A key's own login is not what a shared server's calls carry.
    place.log_in(&servers, &config, Some("alice"), "person-a");
    place.log_in(&servers, &config, None, "service-account");
    let gw = place.gateway(&servers, &config);
    for mode in MODES {
        for key in ["alice-secret", "bob-secret", "carol-secret"] {
            let said = session_as(&gw, mode, key, &view_search_call()).to_string();
            assert!(
                said.contains("called with a login of service-account"),
                "{mode} {key}: {said}\n{}",
                gw.stderr()
            );
            assert!(!said.contains("--as"), "{mode} {key}: {said}");
        }
    }
    let made = calls(&server);
    assert_eq!(made.len(), 6, "{made:?}");
    assert!(made.iter().all(|(_, u)| u == "service-account"), "{made:?}");
}
