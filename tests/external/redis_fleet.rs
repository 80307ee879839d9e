//! A fleet: two `toolsift serve` instances behind a round-robin of the
//! test's own, one real `redis-server`. The catalogs sessions were loaded
//! from and the tools' vectors are shared through it: the instance that
//! never saw a catalog adds the tools a session's history calls, and a
//! catalog is embedded once for the fleet (counted by the provider).

use crate::common;

use std::time::Duration;

use common::Server;
use common::fake_embedder::FakeEmbedder;
use common::fake_upstream::FakeUpstream;
use common::redis::Redis;
use common::round_robin::RoundRobin;
use serde_json::{Value, json};

const KEY: &str = "k-fleet";
const TOOLS: usize = 24;

fn catalog() -> Value {
    common::word_catalog(TOOLS)
}

fn post(url: &str, path: &str, body: &Value, session: Option<&str>) -> (u16, Value, String) {
    let mut r = common::http_client()
        .post(format!("{url}{path}"))
        .bearer_auth(KEY)
        .json(body);
    if let Some(id) = session {
        r = r.header("x-cave-tool-session", id);
    }
    let r = r.send().unwrap();
    let status = r.status().as_u16();
    let injected = r
        .headers()
        .get("x-toolsift-injected-tools")
        .map(|v| v.to_str().unwrap().to_string())
        .unwrap_or_default();
    (status, r.json().unwrap_or(Value::Null), injected)
}

fn serve(redis: &Redis, extra: &[&str]) -> Server {
    Server::with_sessions(&redis.url(), KEY, extra)
}

#[test]
fn the_instance_that_never_saw_a_catalog_adds_the_tools_its_history_calls() {
    let redis = Redis::start();
    let up = FakeUpstream::start();
    let upstream = format!("openai={}/v1", up.url);
    let a = serve(&redis, &["--upstream", &upstream]);
    let b = serve(&redis, &["--upstream", &upstream]);
    let lb = RoundRobin::start(&[&a.url, &b.url]);
    // The search (through the balancer, to a) loads tool_03.
    let search = json!({"tools": catalog(), "query": "word03", "max_tools": 1});
    let (status, first, _) = post(&lb.url, "/sdk/v1/tool-search", &search, None);
    assert_eq!(status, 200, "{first}");
    assert_eq!(lb.sent(), [1, 0]);
    let id = first["session_id"].as_str().unwrap().to_string();
    common::wait_until("a shares the catalog", Duration::from_secs(30), || {
        a.metric(
            None,
            "toolsift_shared_total{kind=\"catalog\",outcome=\"written\"}",
        ) == 1.0
    });
    // The provider call (to b, which has seen no catalog) calls tool_20 in
    // its history: b reads the catalog from the store to define it.
    let call = json!({"model": "m", "input": [
        {"type": "function_call", "name": "tool_20", "call_id": "c1", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "c1", "output": "done"},
    ]});
    let (status, answer, injected) = post(&lb.url, "/openai/v1/responses", &call, Some(&id));
    assert_eq!(status, 200, "{answer}");
    assert_eq!(lb.sent(), [1, 1]);
    assert_eq!(injected, "tool_03,tool_20");
    assert_eq!(up.only().tool_names(), ["tool_03", "tool_20"]);
    assert_eq!(
        b.metric(
            None,
            "toolsift_shared_total{kind=\"catalog\",outcome=\"fetched\"}"
        ),
        1.0
    );
    assert_eq!(b.metric(None, "toolsift_catalog_parses_total"), 0.0);
}

#[test]
fn a_catalog_is_embedded_once_for_the_fleet() {
    let redis = Redis::start();
    let embedder = FakeEmbedder::start();
    let flags = [
        "--embeddings-url",
        &embedder.url,
        "--embeddings-model",
        "fake",
        "--no-embeddings-cache",
    ];
    let a = serve(&redis, &flags);
    let b = serve(&redis, &flags);
    let lb = RoundRobin::start(&[&a.url, &b.url]);
    let search = |query: &str| {
        let body =
            json!({"tools": catalog(), "query": query, "max_tools": 3, "ranker": "embeddings"});
        let (status, v, _) = post(&lb.url, "/sdk/v1/tool-search", &body, None);
        assert_eq!(status, 200, "{v}");
        assert_eq!(v["method"], "embeddings", "{v}");
        v
    };
    search("first query");
    common::wait_until("a shares the vectors", Duration::from_secs(30), || {
        a.metric(
            None,
            "toolsift_shared_total{kind=\"vector\",outcome=\"written\"}",
        ) == TOOLS as f64
    });
    search("second query");
    assert_eq!(lb.sent(), [1, 1]);
    let seen = embedder.seen();
    let tool_texts: Vec<(&String, &usize)> =
        seen.iter().filter(|(t, _)| t.contains("word")).collect();
    // Every tool embedded once, by a; b found them all in the store; each
    // instance embedded its own query.
    assert_eq!(tool_texts.len(), TOOLS, "{seen:?}");
    assert!(tool_texts.iter().all(|(_, n)| **n == 1), "{seen:?}");
    assert_eq!(seen.get("first query"), Some(&1), "{seen:?}");
    assert_eq!(seen.get("second query"), Some(&1), "{seen:?}");
    assert_eq!(
        b.metric(
            None,
            "toolsift_shared_total{kind=\"vector\",outcome=\"found\"}"
        ),
        TOOLS as f64
    );
}

#[test]
fn what_is_shared_stays_within_its_budget_and_expires() {
    let redis = Redis::start();
    // A budget of 1 MiB: half of it per period, so a catalog of about
    // 0.6 MB is refused and a small one is written, with an expiry.
    let a = serve(
        &redis,
        &["--shared-cache-mb", "1", "--shared-cache-ttl-secs", "60"],
    );
    let big: Value = Value::Array(
        (0..600)
            .map(|i| json!({"name": format!("big_{i}"), "description": "x".repeat(1000)}))
            .collect(),
    );
    for tools in [big, catalog()] {
        let body = json!({"tools": tools, "query": "word01", "max_tools": 1});
        let (status, v, _) = post(&a.url, "/sdk/v1/tool-search", &body, None);
        assert_eq!(status, 200, "{v}");
    }
    common::wait_until(
        "one written, one over budget",
        Duration::from_secs(30),
        || {
            a.metric(None, "toolsift_shared_over_budget_total") == 1.0
                && a.metric(
                    None,
                    "toolsift_shared_total{kind=\"catalog\",outcome=\"written\"}",
                ) == 1.0
        },
    );
    let keys = redis.cli(&["--scan", "--pattern", "toolsift:catalog:*"]);
    let keys: Vec<&str> = keys.lines().collect();
    assert_eq!(keys.len(), 1, "{keys:?}");
    let ttl: i64 = redis.cli(&["PTTL", keys[0]]).trim().parse().unwrap();
    assert!((1..=60_000).contains(&ttl), "{ttl}");
    let budget = redis.cli(&["--scan", "--pattern", "toolsift:budget:*"]);
    let taken: u64 = redis.cli(&["GET", budget.trim()]).trim().parse().unwrap();
    assert!(taken > 0 && taken <= 512 * 1024, "{taken}");
}
