//! `serve --sessions-wait-replicas 1` against a real Redis primary: with no
//! replica its session writes are not waited on (each would wait the whole
//! 500 ms and hold the store's connection), counted and said in the log;
//! with a replica online they wait again and the replica holds them. And a
//! session the store lost (or never saved) says so when it is continued.

use crate::common;

use std::time::Duration;

use common::Server;
use common::redis::Redis;
use serde_json::{Value, json};

/// A search for tool `i`, in session `id` when given: the status, the
/// `x-toolsift-tool-session` header and the body.
fn search(srv: &Server, i: usize, id: Option<&str>) -> (u16, Option<String>, Value) {
    srv.word_search(None, 8, i, id)
}

#[test]
fn a_primary_without_its_replica_is_not_waited_on_and_the_log_and_metrics_say_so() {
    let primary = Redis::start();
    let url = primary.url();
    let srv = Server::start(&["--sessions", &url, "--sessions-wait-replicas", "1"], &[]);
    for i in 0..20 {
        let (status, _, v) = search(&srv, i % 8, None);
        assert_eq!(status, 200, "{v}");
    }
    let skipped = "toolsift_session_replica_waits_skipped_total";
    let unreplicated = "toolsift_session_writes_unreplicated_total";
    assert_eq!(srv.metric(None, skipped), 20.0);
    assert_eq!(srv.metric(None, unreplicated), 20.0);
    let log = srv.log();
    assert!(
        log.contains("a primary has 0 of the 1 replicas --sessions-wait-replicas asks for"),
        "{log}"
    );
    assert_eq!(
        log.matches("answered without waiting, not replicated")
            .count(),
        1,
        "one line a minute at most: {log}"
    );

    // A replica joins: writes wait for it again, and it holds them.
    let replica = Redis::replica_of(&primary);
    common::wait_until("the replica online", Duration::from_secs(30), || {
        primary.replicas_online() == 1
    });
    // After a quiet spell the log says the replicas are back.
    std::thread::sleep(Duration::from_millis(10_200));
    let (status, _, v) = search(&srv, 3, None);
    assert_eq!(status, 200, "{v}");
    let id = v["session_id"].as_str().unwrap().to_string();
    for i in 0..9 {
        let (status, _, v) = search(&srv, i % 8, Some(&id));
        assert_eq!(status, 200, "{v}");
    }
    assert_eq!(srv.metric(None, skipped), 20.0);
    assert_eq!(srv.metric(None, unreplicated), 20.0);
    let held = replica.cli(&["keys", "toolsift:session:*"]);
    assert_eq!(held.lines().count(), 21, "{held}");
    let log = srv.log();
    assert!(
        log.contains("session writes wait for 1 replicas again (20 were answered without waiting)"),
        "{log}"
    );
}

#[test]
fn a_session_the_store_did_not_hold_is_answered_new_and_an_unsaved_one_says_so() {
    let mut redis = Redis::start();
    let srv = Server::start(&["--sessions", &redis.url()], &[]);
    let (_, state, first) = search(&srv, 1, None);
    assert_eq!(state, None, "{first}");
    assert!(first.get("session_note").is_none(), "{first}");
    let id = first["session_id"].as_str().unwrap().to_string();
    // Redis gone: a new session is answered, unsaved, and says what
    // continuing it will do.
    redis.stop();
    let (status, state, unsaved) = search(&srv, 2, None);
    assert_eq!(status, 200, "{unsaved}");
    assert_eq!(state.as_deref(), Some("not-saved"));
    let note = unsaved["session_note"].as_str().unwrap_or_default();
    assert!(
        note.contains("could not be saved") && note.contains("will start a new session"),
        "{unsaved}"
    );
    // Redis back, empty (no persistence, as after losing a primary that
    // had not replicated): continuing the first session starts it again,
    // and the answer says so.
    redis.restart();
    let mut answer = None;
    common::wait_until("the store back", Duration::from_secs(30), || {
        let a = search(&srv, 3, Some(&id));
        let ok = a.0 == 200;
        answer = Some(a);
        ok
    });
    let (_, state, again) = answer.unwrap();
    assert_eq!(state.as_deref(), Some("new"), "{again}");
    assert_eq!(again["session_tools"], json!(["tool_03"]));
    let note = again["session_note"].as_str().unwrap_or_default();
    assert!(note.contains("a new session starts under it"), "{again}");
    // From then on it is held.
    let (_, state, later) = search(&srv, 4, Some(&id));
    assert_eq!(state, None, "{later}");
    assert_eq!(later["session_tools"], json!(["tool_03", "tool_04"]));
}
