//! Sessions shared by two `toolsift serve` instances through a real
//! `redis-server` (started by each test on a free loopback port, no
//! persistence): either instance continues the other's session, concurrent
//! appends from both lose nothing and keep each caller's first-load order,
//! and a Redis that goes away gives 503 naming the store for requests with
//! a session (the others still work) until it comes back.

use crate::common;

use std::collections::HashSet;
use std::time::{Duration, Instant};

use common::fake_upstream::FakeUpstream;
use common::redis::Redis;
use common::{Server, names};
use serde_json::{Value, json};

const KEY: &str = "k-shared";
const TOOLS: usize = 48;

fn serve(redis: &Redis, up: Option<&FakeUpstream>) -> Server {
    let upstream = up.map(|u| format!("openai={}/v1", u.url));
    match &upstream {
        Some(u) => Server::with_sessions(&redis.url(), KEY, &["--upstream", u]),
        None => Server::with_sessions(&redis.url(), KEY, &[]),
    }
}

/// A search for tool `i` (alone) in session `id`: status and body.
fn search(srv: &Server, i: usize, id: Option<&str>) -> (u16, Value) {
    let (status, _, body) = srv.word_search(Some(KEY), TOOLS, i, id);
    (status, body)
}

fn get(srv: &Server, path: &str) -> String {
    common::http_client()
        .get(format!("{}{path}", srv.url))
        .send()
        .unwrap()
        .text()
        .unwrap()
}

#[test]
fn two_instances_continue_one_session() {
    let redis = Redis::start();
    let up = FakeUpstream::start();
    let a = serve(&redis, Some(&up));
    let b = serve(&redis, Some(&up));
    let (status, first) = search(&a, 3, None);
    assert_eq!(status, 200, "{first}");
    let id = first["session_id"].as_str().unwrap().to_string();
    assert_eq!(names(&first["session_tools"]), ["tool_03"]);
    let (status, second) = search(&b, 7, Some(&id));
    assert_eq!(status, 200, "{second}");
    assert_eq!(second["session_id"], id.as_str());
    assert_eq!(names(&second["session_tools"]), ["tool_03", "tool_07"]);
    let (_, third) = search(&a, 1, Some(&id));
    assert_eq!(
        names(&third["session_tools"]),
        ["tool_03", "tool_07", "tool_01"]
    );
    // A provider call through the instance that made neither search still
    // gets the session's tools, in first-load order.
    let r = common::http_client()
        .post(format!("{}/openai/v1/responses", b.url))
        .bearer_auth(KEY)
        .header("content-type", "application/json")
        .header("x-cave-tool-session", &id)
        .body(r#"{"model":"m","input":"hi"}"#)
        .send()
        .unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(
        r.headers()["x-toolsift-injected-tools"].to_str().unwrap(),
        "tool_03,tool_07,tool_01"
    );
    assert_eq!(up.only().tool_names(), ["tool_03", "tool_07", "tool_01"]);
    let health: Value = serde_json::from_str(&get(&a, "/healthz")).unwrap();
    assert_eq!(health["status"], "ok", "{health}");
    assert_eq!(health["session_store"]["state"], "ok", "{health}");
    assert_eq!(health["session_store"]["kind"], redis.url(), "{health}");
}

#[test]
fn concurrent_appends_from_both_instances_lose_nothing() {
    let redis = Redis::start();
    let a = serve(&redis, None);
    let b = serve(&redis, None);
    let (_, first) = search(&a, 0, None);
    let id = first["session_id"].as_str().unwrap().to_string();
    // 6 callers, each loading its own 7 tools one after another, half
    // through each instance, all at once.
    let callers = 6;
    let per = (TOOLS - 1) / callers;
    std::thread::scope(|s| {
        for c in 0..callers {
            let srv = if c % 2 == 0 { &a } else { &b };
            let id = &id;
            s.spawn(move || {
                for k in 0..per {
                    let i = 1 + c * per + k;
                    let (status, v) = search(srv, i, Some(id));
                    assert_eq!(status, 200, "{v}");
                    assert_eq!(names(&v["tools"]), [format!("tool_{i:02}")]);
                }
            });
        }
    });
    let (_, last) = search(&b, 0, Some(&id));
    let loaded = names(&last["session_tools"]);
    // Every tool once.
    assert_eq!(loaded.len(), 1 + callers * per, "{loaded:?}");
    assert_eq!(
        loaded.iter().collect::<HashSet<_>>().len(),
        loaded.len(),
        "{loaded:?}"
    );
    assert_eq!(loaded[0], "tool_00");
    // Each caller's tools in the order it loaded them.
    for c in 0..callers {
        let mine: Vec<&String> = loaded
            .iter()
            .filter(|n| {
                let i: usize = n[5..].parse().unwrap();
                (1 + c * per..1 + (c + 1) * per).contains(&i)
            })
            .collect();
        let expected: Vec<String> = (0..per)
            .map(|k| format!("tool_{:02}", 1 + c * per + k))
            .collect();
        assert_eq!(
            mine,
            expected.iter().collect::<Vec<_>>(),
            "caller {c}: {loaded:?}"
        );
    }
}

/// Retries `f` until it gives 200 (Redis reconnecting), within a minute.
fn until_ok(mut f: impl FnMut() -> (u16, Value)) -> Value {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let (status, v) = f();
        if status == 200 {
            return v;
        }
        assert!(Instant::now() < deadline, "still {status}: {v}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn redis_down_is_503_naming_the_store_and_service_resumes_when_it_returns() {
    let mut redis = Redis::start();
    let up = FakeUpstream::start();
    let srv = serve(&redis, Some(&up));
    let (status, first) = search(&srv, 2, None);
    assert_eq!(status, 200);
    let id = first["session_id"].as_str().unwrap().to_string();
    redis.stop();
    // With a session: 503 naming the store.
    let (status, v) = search(&srv, 4, Some(&id));
    assert_eq!(status, 503, "{v}");
    assert_eq!(v["error"]["code"], "session_store_unavailable");
    let message = v["error"]["message"].as_str().unwrap();
    assert!(message.contains(&redis.url()), "{message}");
    let provider = |session: Option<&str>| {
        let mut r = common::http_client()
            .post(format!("{}/openai/v1/responses", srv.url))
            .bearer_auth(KEY)
            .header("content-type", "application/json")
            .body(r#"{"model":"m"}"#);
        if let Some(id) = session {
            r = r.header("x-cave-tool-session", id);
        }
        let r = r.send().unwrap();
        let status = r.status().as_u16();
        let headers = r.headers().clone();
        (status, r.json::<Value>().unwrap(), headers)
    };
    let (status, v, _) = provider(Some(&id));
    assert_eq!(status, 503, "{v}");
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains(&redis.url())
    );
    // Without a session: the provider call goes through, and a search is
    // answered (its new session could not be saved, and says so).
    let (status, v, _) = provider(None);
    assert_eq!(status, 200, "{v}");
    let r = common::http_client()
        .post(format!("{}/sdk/v1/tool-search", srv.url))
        .bearer_auth(KEY)
        .json(&json!({"tools": common::word_catalog(TOOLS), "query": "word05", "max_tools": 1}))
        .send()
        .unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(r.headers()["x-toolsift-tool-session"], "not-saved");
    let v: Value = r.json().unwrap();
    assert_eq!(names(&v["tools"]), ["tool_05"]);
    let health: Value = serde_json::from_str(&get(&srv, "/healthz")).unwrap();
    assert_eq!(health["status"], "degraded", "{health}");
    assert_eq!(health["session_store"]["state"], "unavailable", "{health}");
    let metrics = get(&srv, "/metrics");
    let errors = metrics
        .lines()
        .find_map(|l| l.strip_prefix("toolsift_session_store_errors_total "))
        .unwrap_or_else(|| panic!("{metrics}"));
    assert!(errors.trim().parse::<f64>().unwrap() >= 2.0, "{metrics}");
    // Redis back (empty: no persistence): the same serve resumes by itself.
    redis.restart();
    let v = until_ok(|| search(&srv, 6, Some(&id)));
    assert_eq!(names(&v["session_tools"]), ["tool_06"]);
    let (_, v) = search(&srv, 8, Some(&id));
    assert_eq!(names(&v["session_tools"]), ["tool_06", "tool_08"]);
    let (status, _, headers) = provider(Some(&id));
    assert_eq!(status, 200);
    assert_eq!(headers["x-toolsift-injected-tools"], "tool_06,tool_08");
    let health: Value = serde_json::from_str(&get(&srv, "/healthz")).unwrap();
    assert_eq!(health["status"], "ok", "{health}");
}

/// `toolsift_session_store_errors_total` of `srv`.
fn store_errors(srv: &Server) -> f64 {
    let metrics = get(srv, "/metrics");
    metrics
        .lines()
        .find_map(|l| l.strip_prefix("toolsift_session_store_errors_total "))
        .map_or(0.0, |v| v.trim().parse().unwrap())
}

#[test]
fn ids_holding_separators_are_sessions_of_their_own_not_a_store_outage() {
    let redis = Redis::start();
    let up = FakeUpstream::start();
    let srv = serve(&redis, Some(&up));
    let (status, v) = search(&srv, 3, Some("S"));
    assert_eq!(status, 200, "{v}");
    let (_, v) = search(&srv, 4, Some("S"));
    assert_eq!(names(&v["session_tools"]), ["tool_03", "tool_04"]);
    let errors = store_errors(&srv);
    let ids = [
        "S:order",
        "S:order:order",
        "S:",
        ":order",
        ":",
        "S.order",
        "S-order",
        "S_order",
        "S:t:tool_03",
        "S:fp",
    ];
    let provider = |id: &str| {
        let r = common::http_client()
            .post(format!("{}/openai/v1/responses", srv.url))
            .bearer_auth(KEY)
            .header("content-type", "application/json")
            .header("x-cave-tool-session", id)
            .body(r#"{"model":"m","input":"hi"}"#)
            .send()
            .unwrap();
        let header = |name: &str| {
            r.headers()
                .get(name)
                .map(|h| h.to_str().unwrap().to_string())
        };
        let session = header("x-toolsift-tool-session");
        let injected = header("x-toolsift-injected-tools");
        (r.status().as_u16(), session, injected)
    };
    let answer = |session: &str, injected: Option<&str>| {
        (200, Some(session.to_string()), injected.map(str::to_string))
    };
    for id in ids {
        // Unknown to the pass-through: forwarded as sent.
        assert_eq!(
            provider(id),
            answer("unknown", None),
            "pass-through with {id:?}"
        );
        // A search: a new session holding this search's tool alone.
        let (status, v) = search(&srv, 9, Some(id));
        assert_eq!(status, 200, "{id:?}: {v}");
        assert_eq!(v["session_id"], id);
        assert_eq!(names(&v["session_tools"]), ["tool_09"], "{id:?}");
        assert_eq!(
            provider(id),
            answer("applied", Some("tool_09")),
            "pass-through with {id:?}"
        );
    }
    // `S` is as it was, and its next search continues it.
    assert_eq!(provider("S"), answer("applied", Some("tool_03,tool_04")));
    let (_, v) = search(&srv, 5, Some("S"));
    assert_eq!(
        names(&v["session_tools"]),
        ["tool_03", "tool_04", "tool_05"]
    );
    assert_eq!(store_errors(&srv), errors);
    let health: Value = serde_json::from_str(&get(&srv, "/healthz")).unwrap();
    assert_eq!(health["status"], "ok", "{health}");
}
