//! A fake provider for the pass-through tests: it records every request
//! (method, path, headers, body) and answers
//!
//! - `"stream": true` bodies with server-sent events: the first event at
//!   once, the last only after [`FakeUpstream::release`] (so a test proves
//!   the first arrived before the upstream sent the last);
//! - a request with `x-fake-status: N` with status N and an error body;
//! - a request with `x-fake-hang: 1` never (until released);
//! - anything else with JSON naming the tools it received.
//!
//! It runs on a thread of its own with its own tokio runtime, so the tests
//! stay synchronous.

use std::sync::{Arc, Mutex};

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};
use tokio::sync::Notify;

/// One request as the upstream got it.
#[derive(Debug, Clone)]
pub struct Recorded {
    pub method: String,
    /// Path and query.
    pub path: String,
    /// Header names lower-case, in arrival order.
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Recorded {
    pub fn header(&self, name: &str) -> Option<&str> {
        // Not the one in tests/common: benches/soak.rs takes this file alone.
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).expect("the upstream got JSON")
    }

    /// The names of the tools in the body, whatever the provider's shape.
    pub fn tool_names(&self) -> Vec<String> {
        tool_names(&self.json())
    }
}

/// Names of a body's `tools`: `name` or `function.name`.
pub fn tool_names(body: &Value) -> Vec<String> {
    body["tools"]
        .as_array()
        .map(|tools| {
            tools
                .iter()
                .filter_map(|t| t.get("name").or_else(|| t.pointer("/function/name")))
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

pub const FIRST_EVENT: &str = "event: first\ndata: {\"n\":1}\n\n";
pub const LAST_EVENT: &str = "event: last\ndata: [DONE]\n\n";

struct Shared {
    seen: Mutex<Vec<Recorded>>,
    release: Notify,
}

pub struct FakeUpstream {
    /// `http://127.0.0.1:PORT`
    pub url: String,
    shared: Arc<Shared>,
}

impl FakeUpstream {
    pub fn start() -> FakeUpstream {
        let shared = Arc::new(Shared {
            seen: Mutex::new(Vec::new()),
            release: Notify::new(),
        });
        let (tx, rx) = std::sync::mpsc::channel();
        let state = shared.clone();
        std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("a runtime for the fake upstream");
            runtime.block_on(async move {
                let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
                    .await
                    .expect("bind the fake upstream");
                tx.send(listener.local_addr().unwrap()).unwrap();
                let app = axum::Router::new().fallback(answer).with_state(state);
                let _ = axum::serve(listener, app).await;
            });
        });
        let addr = rx.recv().expect("the fake upstream's address");
        FakeUpstream {
            url: format!("http://{addr}"),
            shared,
        }
    }

    /// Every request so far.
    pub fn seen(&self) -> Vec<Recorded> {
        self.shared.seen.lock().unwrap().clone()
    }

    /// The one request so far.
    pub fn only(&self) -> Recorded {
        let seen = self.seen();
        assert_eq!(seen.len(), 1, "{seen:#?}");
        seen.into_iter().next().unwrap()
    }

    /// Lets a held stream send its last event (or a hanging request end).
    pub fn release(&self) {
        self.shared.release.notify_one();
    }
}

async fn answer(State(st): State<Arc<Shared>>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    let body = axum::body::to_bytes(body, usize::MAX)
        .await
        .map(|b| b.to_vec())
        .unwrap_or_default();
    let recorded = Recorded {
        method: parts.method.to_string(),
        path: parts
            .uri
            .path_and_query()
            .map_or_else(String::new, |p| p.to_string()),
        headers: parts
            .headers
            .iter()
            .map(|(n, v)| {
                (
                    n.as_str().to_string(),
                    String::from_utf8_lossy(v.as_bytes()).into_owned(),
                )
            })
            .collect(),
        body,
    };
    st.seen.lock().unwrap().push(recorded.clone());
    if let Some(code) = recorded.header("x-fake-status") {
        let status = StatusCode::from_u16(code.parse().unwrap()).unwrap();
        return (
            status,
            [
                ("content-type", "application/json"),
                ("x-upstream-said", "no"),
            ],
            r#"{"error":{"type":"rate_limit","message":"slow down"}}"#,
        )
            .into_response();
    }
    if recorded.header("x-fake-hang").is_some() {
        st.release.notified().await;
        return (StatusCode::OK, "late").into_response();
    }
    let request: Value = serde_json::from_slice(&recorded.body).unwrap_or(Value::Null);
    if request["stream"] == json!(true) {
        let stream = async_stream(st.clone());
        return Response::builder()
            .status(StatusCode::OK)
            .header("content-type", "text/event-stream")
            .body(Body::from_stream(stream))
            .unwrap();
    }
    (
        StatusCode::OK,
        [("x-upstream-request-id", "req_123")],
        axum::Json(json!({
            "id": "resp_fake",
            "object": "response",
            "tools_seen": tool_names(&request),
            "authorization": recorded.header("authorization"),
        })),
    )
        .into_response()
}

/// The first event now, the last after a release.
fn async_stream(
    st: Arc<Shared>,
) -> impl futures_util::Stream<Item = Result<axum::body::Bytes, std::io::Error>> {
    futures_util::stream::unfold(0u8, move |step| {
        let st = st.clone();
        async move {
            match step {
                0 => Some((
                    Ok(axum::body::Bytes::from_static(FIRST_EVENT.as_bytes())),
                    1,
                )),
                1 => {
                    st.release.notified().await;
                    Some((Ok(axum::body::Bytes::from_static(LAST_EVENT.as_bytes())), 2))
                }
                _ => None,
            }
        }
    })
}
