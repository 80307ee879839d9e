//! An OpenAI-compatible embeddings endpoint (`POST /v1/embeddings`) of the
//! test's own: a vector made from each text's bytes, and a count of how
//! often each text was embedded (the provider's counter, not a timing).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use axum::Json;
use axum::extract::State;
use serde_json::{Value, json};

/// Floats per vector.
pub const DIM: usize = 8;

pub struct FakeEmbedder {
    /// `http://127.0.0.1:PORT/v1/embeddings`
    pub url: String,
    seen: Arc<Mutex<HashMap<String, usize>>>,
}

/// A vector of `text` (never all zero).
fn vector(text: &str) -> Vec<f32> {
    let mut v = vec![0.1f32; DIM];
    for (i, b) in text.bytes().enumerate() {
        v[(i + b as usize) % DIM] += f32::from(b) / 255.0;
    }
    v
}

async fn embed(
    State(seen): State<Arc<Mutex<HashMap<String, usize>>>>,
    Json(body): Json<Value>,
) -> Json<Value> {
    let texts: Vec<String> = match &body["input"] {
        Value::String(s) => vec![s.clone()],
        Value::Array(items) => items
            .iter()
            .map(|t| t.as_str().unwrap_or_default().to_string())
            .collect(),
        _ => Vec::new(),
    };
    {
        let mut seen = seen.lock().unwrap();
        for t in &texts {
            *seen.entry(t.clone()).or_default() += 1;
        }
    }
    let data: Vec<Value> = texts
        .iter()
        .enumerate()
        .map(|(i, t)| json!({"object": "embedding", "index": i, "embedding": vector(t)}))
        .collect();
    Json(json!({"object": "list", "data": data, "model": body["model"]}))
}

impl FakeEmbedder {
    pub fn start() -> FakeEmbedder {
        let seen: Arc<Mutex<HashMap<String, usize>>> = Arc::default();
        let state = seen.clone();
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("a runtime for the fake embedder");
            runtime.block_on(async move {
                let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
                    .await
                    .expect("bind the fake embedder");
                tx.send(listener.local_addr().unwrap()).unwrap();
                let app = axum::Router::new()
                    .route("/v1/embeddings", axum::routing::post(embed))
                    .with_state(state);
                let _ = axum::serve(listener, app).await;
            });
        });
        let addr = rx.recv().expect("the fake embedder's address");
        FakeEmbedder {
            url: format!("http://{addr}/v1/embeddings"),
            seen,
        }
    }

    /// How many times each text was embedded.
    pub fn seen(&self) -> HashMap<String, usize> {
        self.seen.lock().unwrap().clone()
    }
}
