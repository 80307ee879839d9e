//! The Rust client against a real `toolsift serve` (the same answers as the
//! embedded searcher) and against a recording server written here (the exact
//! wire: method, path, headers, body; redirects, errors and bad answers).

use crate::common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};

use proptest::prelude::*;
use serde_json::{Value, json};
use toolsift::catalog::{Catalog, Tool};
use toolsift::client::{Client, ClientConfig, ClientSettings, RemoteFailure};
use toolsift::search::{SearchError, SearchRequest, Searcher};
use toolsift::wire::ResponseError;

fn client(base: &str, key: Option<&str>) -> Client {
    let settings = ClientSettings {
        service: Some(base.to_string()),
        api_key: key.map(str::to_string),
        workflow: Some("interop".into()),
        user_hash: Some("user-7".into()),
        ..Default::default()
    };
    let none = |_: &str| None;
    Client::new(ClientConfig::resolve(&settings, &none).unwrap().unwrap()).unwrap()
}

/// One recorded request.
#[derive(Debug, Clone)]
struct Recorded {
    method: String,
    path: String,
    headers: Vec<(String, String)>,
    body: Value,
}

/// A server that records each request and answers with `reply` (status,
/// extra headers, body), one connection per request.
fn recording_server(
    reply: (u16, Vec<(&'static str, &'static str)>, String),
) -> (String, Arc<Mutex<Vec<Recorded>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = seen.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming().take(8) {
            let Ok(mut stream) = stream else { break };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut line = String::new();
            reader.read_line(&mut line).unwrap();
            let mut parts = line.split_whitespace();
            let method = parts.next().unwrap_or("").to_string();
            let path = parts.next().unwrap_or("").to_string();
            let mut headers = Vec::new();
            let mut length = 0;
            loop {
                let mut h = String::new();
                reader.read_line(&mut h).unwrap();
                let h = h.trim_end();
                if h.is_empty() {
                    break;
                }
                let (k, v) = h.split_once(':').unwrap();
                let (k, v) = (k.trim().to_ascii_lowercase(), v.trim().to_string());
                if k == "content-length" {
                    length = v.parse().unwrap();
                }
                headers.push((k, v));
            }
            let mut body = vec![0; length];
            reader.read_exact(&mut body).unwrap();
            sink.lock().unwrap().push(Recorded {
                method,
                path,
                headers,
                body: serde_json::from_slice(&body).unwrap_or(Value::Null),
            });
            let (status, extra, text) = &reply;
            let mut out = format!(
                "HTTP/1.1 {status} X\r\ncontent-length: {}\r\nconnection: close\r\n",
                text.len()
            );
            for (k, v) in extra {
                out.push_str(&format!("{k}: {v}\r\n"));
            }
            out.push_str("\r\n");
            out.push_str(text);
            let _ = stream.write_all(out.as_bytes());
        }
    });
    (url, seen)
}

fn small_catalog() -> Catalog {
    let mut tools = vec![
        Tool::new("lookup_status", "Look up the current service status"),
        Tool::new("send_invoice", "Send an invoice"),
    ];
    tools[1].always_load = true;
    Catalog::new("t", tools).unwrap()
}

#[test]
fn the_exact_wire() {
    let answer = json!({"tools": [{"name": "send_invoice"}, {"name": "lookup_status"}],
        "sent_schema_tokens": 10, "full_schema_tokens": 40, "deferred_count": 0,
        "method": "bm25", "token_basis": "o200k_base", "session_id": "s-1"});
    let (url, seen) = recording_server((
        200,
        vec![("content-type", "application/json")],
        answer.to_string(),
    ));
    let catalog = small_catalog();
    let c = client(&format!("{url}/"), Some("k-1"));
    let request = SearchRequest {
        query: "status".into(),
        max_tools: toolsift::tools_handle::MaxTools::new(2),
        session_id: Some("s-1".into()),
        ..Default::default()
    };
    let r = Searcher::remote(c).search(&catalog, &request).unwrap();
    assert_eq!(r.tools.iter().map(|h| h.index).collect::<Vec<_>>(), [1, 0]);
    assert_eq!(
        (r.savings.saved_tokens, r.savings.reduction_pct),
        (30, 75.0)
    );
    assert_eq!(r.session_id.as_deref(), Some("s-1"));
    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 1);
    let req = &seen[0];
    assert_eq!(
        (req.method.as_str(), req.path.as_str()),
        ("POST", "/sdk/v1/tool-search")
    );
    let header = |k: &str| {
        req.headers
            .iter()
            .find(|(n, _)| n == k)
            .map(|(_, v)| v.as_str())
    };
    assert_eq!(header("content-type"), Some("application/json"));
    assert_eq!(header("authorization"), Some("Bearer k-1"));
    assert_eq!(header("x-cave-agent"), Some("toolsift"));
    assert_eq!(header("x-cave-workflow"), Some("interop"));
    assert_eq!(header("x-cave-retention"), Some("metadata"));
    assert_eq!(header("x-cave-user-hash"), Some("user-7"));
    let cave: Vec<&str> = req
        .headers
        .iter()
        .map(|(k, _)| k.as_str())
        .filter(|k| k.starts_with("x-cave-"))
        .collect();
    assert_eq!(
        cave,
        [
            "x-cave-agent",
            "x-cave-workflow",
            "x-cave-retention",
            "x-cave-user-hash"
        ]
    );
    assert_eq!(
        req.body,
        json!({"tools": [
            {"name": "lookup_status", "description": "Look up the current service status", "input_schema": {"type": "object", "properties": {}}, "read_only": false, "idempotent": false, "always_load": false},
            {"name": "send_invoice", "description": "Send an invoice", "input_schema": {"type": "object", "properties": {}}, "read_only": false, "idempotent": false, "always_load": true}
        ], "query": "status", "max_tools": 2, "session_id": "s-1"})
    );
}

/// One search for "x" over the small catalog at `url`.
fn search_x(url: &str) -> Result<toolsift::search::SearchResult, SearchError> {
    Searcher::remote(client(url, None)).search(
        &small_catalog(),
        &SearchRequest {
            query: "x".into(),
            ..Default::default()
        },
    )
}

fn remote_error(reply: (u16, Vec<(&'static str, &'static str)>, String)) -> (SearchError, usize) {
    let (url, seen) = recording_server(reply);
    let err = search_x(&url).unwrap_err();
    let n = seen.lock().unwrap().len();
    (err, n)
}

#[test]
fn redirects_errors_and_bad_answers() {
    let (e, n) = remote_error((
        302,
        vec![("location", "http://127.0.0.1:9/elsewhere")],
        String::new(),
    ));
    assert_eq!(n, 1, "a redirect is never followed");
    assert!(
        matches!(&e, SearchError::Remote(r) if r.failure == RemoteFailure::Redirect(302)),
        "{e:?}"
    );
    assert_eq!(e.code(), "cave_redirect_not_allowed");
    let body = json!({"error": {"code": "boom", "message": "the index melted"}}).to_string();
    let (e, n) = remote_error((500, vec![], body));
    assert_eq!(n, 1, "no retry");
    let text = e.to_string();
    assert!(
        text.contains("tool search failed with HTTP 500")
            && text.contains("the index melted")
            && text.contains("127.0.0.1"),
        "{text}"
    );
    assert_eq!(e.code(), "boom");
    let (e, _) = remote_error((200, vec![], "<html>hello</html>".into()));
    assert_eq!(e.code(), "response_not_json", "{e}");
    let (e, _) = remote_error((200, vec![], json!({"tools": {}}).to_string()));
    assert_eq!(e, SearchError::Response(ResponseError::NotAnArray));
    let (e, _) = remote_error((
        200,
        vec![],
        json!({"tools": [{"name": "nope"}]}).to_string(),
    ));
    assert_eq!(e, SearchError::Response(ResponseError::UnknownOrDuplicate));
    let (e, _) = remote_error((
        200,
        vec![],
        json!({"tools": [{"name": "send_invoice"}, {"name": "send_invoice"}]}).to_string(),
    ));
    assert_eq!(e, SearchError::Response(ResponseError::UnknownOrDuplicate));
    // Impossible counts: both become 0; a missing method and basis are named.
    let (url, _) = recording_server((200, vec![], json!({"tools": [{"name": "send_invoice"}], "sent_schema_tokens": 50, "full_schema_tokens": 10, "deferred_count": "x"}).to_string()));
    let r = search_x(&url).unwrap();
    assert_eq!(
        (
            r.savings.full_schema_tokens,
            r.savings.sent_schema_tokens,
            r.deferred_count
        ),
        (0, 0, 0)
    );
    assert_eq!(
        (r.method.as_str(), r.token_basis.as_str(), r.basis),
        ("unknown", "unavailable", "inferred")
    );
    // Nothing listening.
    let free = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let e = search_x(&format!("http://{free}")).unwrap_err();
    assert_eq!(e.code(), "cave_unreachable");
    assert!(e.to_string().contains(&free.to_string()), "{e}");
}

#[test]
fn a_wrong_key_is_a_401_naming_the_service() {
    let server = common::Server::start(&["--api-key-env", "K"], &[("K", "right")]);
    let e = Searcher::remote(client(&server.url, Some("wrong")))
        .search(
            &small_catalog(),
            &SearchRequest {
                query: "x".into(),
                ..Default::default()
            },
        )
        .unwrap_err();
    assert!(
        matches!(&e, SearchError::Remote(r) if r.status() == Some(401)),
        "{e:?}"
    );
    assert!(e.to_string().contains("HTTP 401"), "{e}");
}

fn word() -> impl Strategy<Value = String> {
    prop::sample::select(vec![
        "status", "service", "invoice", "send", "email", "user", "list", "create", "delete",
        "issue", "pull", "request", "repo", "weather", "city", "time", "zone", "file", "read",
    ])
    .prop_map(str::to_string)
}

fn tool_strategy() -> impl Strategy<Value = (Vec<String>, Vec<String>, bool)> {
    (
        prop::collection::vec(word(), 1..4),
        prop::collection::vec(word(), 0..8),
        prop::bool::weighted(0.15),
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, .. ProptestConfig::default() })]

    /// The remote searcher gives the embedded searcher's answer.
    #[test]
    fn remote_equals_embedded(
        tools in prop::collection::vec(tool_strategy(), 1..30),
        query in prop::collection::vec(word(), 0..5),
        max_tools in prop::option::of(1u64..12),
    ) {
        let server = SERVER.with(|s| s.url.clone());
        let mut seen = std::collections::HashSet::new();
        let tools: Vec<Tool> = tools
            .into_iter()
            .enumerate()
            .filter_map(|(i, (name, desc, always))| {
                let name = format!("{}_{i}", name.join("_"));
                seen.insert(name.clone()).then(|| {
                    let mut t = Tool::new(name, desc.join(" "));
                    t.always_load = always;
                    t
                })
            })
            .collect();
        let always = tools.iter().filter(|t| t.always_load).count() as u64;
        let catalog = Catalog::new("p", tools).unwrap();
        let request = SearchRequest {
            query: query.join(" "),
            max_tools: max_tools
                .map(|m| m.max(always.max(1)))
                .and_then(toolsift::tools_handle::MaxTools::new),
            preview: true,
            ..Default::default()
        };
        let embedded = Searcher::embedded().search(&catalog, &request);
        let remote = Searcher::remote(client(&server, None)).search(&catalog, &request);
        match (embedded, remote) {
            (Ok(a), Ok(b)) => prop_assert_eq!(a, b),
            (Err(a), Err(b)) => prop_assert_eq!(a.code(), b.code()),
            (a, b) => prop_assert!(false, "embedded {:?} but remote {:?}", a, b),
        }
    }
}

thread_local! {
    static SERVER: common::Server = common::Server::start(&[], &[]);
}
