//! `explore --follow`'s reader against a REAL gateway over streamable HTTP,
//! driven by the official MCP Python SDK (on the revision it negotiates
//! and on the handshake revision), in front of real mcp-server-time,
//! mcp-server-git and server-everything: every search and call arrives
//! with its figures, the misses are found in them, the key is required,
//! and a gateway that restarts is followed again.

use serde_json::json;
use toolsift::follow::{Note, Source};
use toolsift::traffic::{Event, Outcome, misses};

use crate::common::follower::{Follower, events};

use crate::gateway::{HttpGateway, call, host, real_config, search};
use crate::mcp_support::TempDir;

fn connected(notes: &[Note]) -> usize {
    notes
        .iter()
        .filter(|n| matches!(n, Note::Connected))
        .count()
}

#[test]
fn a_follower_sees_every_search_and_call_of_a_real_host_and_the_misses_in_them() {
    let dir = TempDir::new("gw-follow");
    let counter = dir.path("calls.jsonl");
    let config = real_config(&dir, &counter);
    let gw = HttpGateway::start(
        &[
            "--mcp".into(),
            config.clone(),
            "--api-key-env".into(),
            "GW_FOLLOW_KEY".into(),
            // Followers see queries where the log has them.
            "--log-calls".into(),
        ],
        &[("GW_FOLLOW_KEY", "k3y")],
    );
    // Without the key the stream is refused, and the follower says how to
    // give it.
    let refused = Follower::start(Source::parse(&gw.url, None).unwrap());
    refused.wait("the refusal", |n| {
        n.iter().any(
            |n| matches!(n, Note::Lost(w) if w.contains("401") && w.contains("--follow-key-env")),
        )
    });
    drop(refused);
    let follower = Follower::start(Source::parse(&gw.url, Some("k3y".into())).unwrap());
    follower.wait("connected", |n| connected(n) == 1);
    let steps = json!([
        search("what time is it in Tokyo"),
        call("get_current_time", json!({"timezone": "Asia/Tokyo"})),
        call("get_current_time", json!({"timezone": "Asia/Tokyo"})),
        call("get_current_time", json!({"timezone": "Asia/Tokyo"})),
        call("get_current_time", json!({"timezone": "Asia/Tokyo"})),
        // Never returned by a search: the agent guessed it.
        call(
            "git_log",
            json!({"repo_path": "/nonexistent", "max_count": 1})
        ),
    ]);
    for mode in ["auto", "legacy"] {
        host(
            &["--url", &gw.url, "--header", "Authorization: Bearer k3y"],
            mode,
            &steps,
            1,
        );
    }
    follower.wait("twelve events", |n| events(n).len() >= 12);
    let seen = follower.events();
    assert_eq!(seen.len(), 12, "{seen:#?}");
    for session in seen.chunks(6) {
        let Event::Search(s) = &session[0] else {
            panic!("{session:#?}")
        };
        assert_eq!(s.query, "what time is it in Tokyo");
        assert!(!s.ranker.is_empty());
        assert!(s.tools.iter().any(|t| t == "get_current_time"), "{s:?}");
        assert!(s.at.is_some() && s.ms >= 0.0);
        let outcomes: Vec<(Outcome, Option<u64>)> = session[1..]
            .iter()
            .map(|e| match e {
                Event::Call(c) => {
                    assert_eq!(c.session, s.session);
                    (c.outcome, c.in_a_row)
                }
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(
            &outcomes[..4],
            [
                (Outcome::Ok, Some(1)),
                (Outcome::Ok, Some(2)),
                (Outcome::Ok, Some(3)),
                (Outcome::Blocked, Some(4)),
            ]
        );
        assert!(
            matches!(&session[5], Event::Call(c) if c.name == "git_log" && c.server.as_deref() == Some("git"))
        );
    }
    // Two sessions (one per host run), each with the guessed call.
    let found = misses::find(&seen, &misses::Judge::blind(false));
    let guessed: Vec<&str> = found
        .iter()
        .filter(|m| m.kind == misses::MissKind::CalledUnreturned)
        .filter_map(|m| m.wanted.as_deref())
        .collect();
    assert_eq!(guessed, ["git_log", "git_log"], "{found:#?}");

    // The catalog the explorer judges by: the gateway's own, behind the
    // same key, each tool with its server.
    let events_url = match Source::parse(&gw.url, None).unwrap() {
        Source::Url { url, .. } => url,
        other => panic!("{other:?}"),
    };
    let refused = toolsift::follow::catalog::fetch(&events_url, None).unwrap_err();
    assert!(
        matches!(refused, toolsift::follow::FollowError::Unauthorized { .. }),
        "{refused}"
    );
    assert!(
        refused.to_string().contains("401 unauthorized"),
        "{refused}"
    );
    let catalog = toolsift::follow::catalog::fetch(&events_url, Some("k3y")).unwrap();
    let log = catalog
        .tools()
        .iter()
        .find(|t| t.mcp.as_ref().is_some_and(|m| m.name == "git_log"))
        .unwrap_or_else(|| panic!("no git_log in {:?}", catalog.name()));
    assert_eq!(log.mcp.as_ref().unwrap().server.as_ref(), "git");
    let judge = misses::Judge::by(
        catalog.tools().iter().flat_map(|t| {
            let on_server = t.mcp.as_ref().map(|m| (m.name.clone(), t.always_load));
            [(t.name.clone(), t.always_load)]
                .into_iter()
                .chain(on_server)
        }),
        false,
    );
    // Judged by it, git_log is a tool search could have given; a name no
    // server has is the agent's guess.
    assert_eq!(judge.standing("git_log"), misses::Standing::Searchable);
    assert_eq!(judge.standing("no_such_tool"), misses::Standing::Unknown);

    // The gateway restarts on the same address: the follower is told it
    // was lost, comes back, and follows the new one.
    let port = gw
        .url
        .rsplit(':')
        .next()
        .unwrap()
        .trim_end_matches("/mcp")
        .to_string();
    let url = gw.url.clone();
    drop(gw);
    follower.wait("lost", |n| matches!(n.last(), Some(Note::Lost(_))));
    let again = HttpGateway::start(
        &[
            "--mcp".into(),
            config,
            "--api-key-env".into(),
            "GW_FOLLOW_KEY".into(),
            // Followers see queries where the log has them.
            "--log-calls".into(),
            "--http".into(),
            format!("127.0.0.1:{port}"),
        ],
        &[("GW_FOLLOW_KEY", "k3y")],
    );
    assert_eq!(again.url, url);
    follower.wait("connected again", |n| connected(n) == 2);
    host(
        &["--url", &again.url, "--header", "Authorization: Bearer k3y"],
        "auto",
        &json!([search("show the git status of the repository")]),
        1,
    );
    follower.wait("the new gateway's search", |n| events(n).len() == 13);
    assert!(
        matches!(follower.events().last(), Some(Event::Search(s)) if s.query.contains("git status"))
    );
    let dropped: u64 = follower
        .notes
        .lock()
        .unwrap()
        .iter()
        .map(|n| match n {
            Note::Events { dropped, .. } => *dropped,
            _ => 0,
        })
        .sum();
    assert_eq!(dropped, 0);
}
