//! A fake token-counting provider for `check --count-with`: plain HTTP/1.1
//! on a loopback port, on a thread of its own. It records every request
//! (path, headers, body) and answers the scripted responses first (a
//! status, a body, a delay), then `{"input_tokens": N}` with N computed
//! from the body: 11, plus 100 per tool, plus the bytes of the tools' names.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;

/// One request as the fake got it.
#[derive(Debug, Clone)]
pub struct Seen {
    pub path: String,
    /// Header names lower-case.
    pub headers: Vec<(String, String)>,
    pub body: Value,
}

impl Seen {
    pub fn header(&self, name: &str) -> Option<&str> {
        super::header(&self.headers, name)
    }
}

/// One scripted answer.
#[derive(Debug, Clone)]
pub struct Scripted {
    pub status: u16,
    pub body: String,
    pub delay: Duration,
}

pub struct FakeCounter {
    /// `http://127.0.0.1:PORT`
    pub url: String,
    seen: Arc<Mutex<Vec<Seen>>>,
}

/// What the fake answers for `body` when nothing is scripted.
pub fn count_of(body: &Value) -> u64 {
    let tools = body["tools"].as_array().cloned().unwrap_or_default();
    let names: usize = tools
        .iter()
        .filter_map(|t| t["name"].as_str())
        .map(str::len)
        .sum();
    11 + 100 * tools.len() as u64 + names as u64
}

impl FakeCounter {
    pub fn start(script: Vec<Scripted>) -> FakeCounter {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let seen = Arc::new(Mutex::new(Vec::new()));
        let record = seen.clone();
        let script = Arc::new(Mutex::new(script));
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let record = record.clone();
                let script = script.clone();
                std::thread::spawn(move || {
                    let mut reader = BufReader::new(stream.try_clone().unwrap());
                    let mut line = String::new();
                    if reader.read_line(&mut line).is_err() {
                        return;
                    }
                    let path = line.split_whitespace().nth(1).unwrap_or("").to_string();
                    let mut headers = Vec::new();
                    let mut length = 0;
                    loop {
                        let mut h = String::new();
                        if reader.read_line(&mut h).is_err() || h.trim().is_empty() {
                            break;
                        }
                        if let Some((n, v)) = h.trim_end().split_once(':') {
                            let (n, v) = (n.trim().to_lowercase(), v.trim().to_string());
                            if n == "content-length" {
                                length = v.parse().unwrap_or(0);
                            }
                            headers.push((n, v));
                        }
                    }
                    let mut body = vec![0; length];
                    let _ = reader.read_exact(&mut body);
                    let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
                    let next = {
                        let mut s = script.lock().unwrap();
                        (!s.is_empty()).then(|| s.remove(0))
                    };
                    let (status, text, delay) = match next {
                        Some(s) => (s.status, s.body, s.delay),
                        None => (
                            200,
                            format!("{{\"input_tokens\": {}}}", count_of(&body)),
                            Duration::ZERO,
                        ),
                    };
                    record.lock().unwrap().push(Seen {
                        path,
                        headers,
                        body,
                    });
                    std::thread::sleep(delay);
                    let mut stream = stream;
                    let _ = write!(
                        stream,
                        "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\nretry-after: 0\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{text}",
                        text.len()
                    );
                });
            }
        });
        FakeCounter { url, seen }
    }

    pub fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }
}
