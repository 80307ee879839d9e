//! The load's HTTP clients, one connection kept alive per client thread:
//! by default a plain socket speaking HTTP/1.1, the request's bytes
//! written as they are, so the client's own work stays small beside the
//! server's on the same cores; or reqwest's blocking client
//! (`--client reqwest`, the client of earlier figures). Either way each
//! answer is checked the same.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::MAX_TOOLS;

/// Which client the load uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClientKind {
    Raw,
    Reqwest,
}

impl ClientKind {
    pub fn parse(s: &str) -> Option<ClientKind> {
        match s {
            "raw" => Some(ClientKind::Raw),
            "reqwest" => Some(ClientKind::Reqwest),
            _ => None,
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            ClientKind::Raw => "raw HTTP/1.1 socket",
            ClientKind::Reqwest => "reqwest blocking",
        }
    }
}

/// One client: its connection, opened on first use and again after an
/// error or a `connection: close`.
pub enum Client {
    Raw {
        conn: Option<BufReader<TcpStream>>,
        timeout: Duration,
    },
    Reqwest(reqwest::blocking::Client),
}

impl Client {
    pub fn new(kind: ClientKind, timeout: Duration) -> Result<Client, String> {
        Ok(match kind {
            ClientKind::Raw => Client::Raw {
                conn: None,
                timeout,
            },
            ClientKind::Reqwest => Client::Reqwest(
                reqwest::blocking::Client::builder()
                    .timeout(timeout)
                    .build()
                    .map_err(|e| format!("cannot build the HTTP client: {e}"))?,
            ),
        })
    }

    /// POSTs a JSON body, the concatenation of `parts`, to `url`
    /// (`http://HOST:PORT/PATH`): the status and the answer's bytes. The
    /// plain socket writes the parts as they are, without joining them.
    fn post(&mut self, url: &str, parts: &[&[u8]]) -> Result<(u16, Vec<u8>), String> {
        match self {
            Client::Reqwest(http) => {
                let response = http
                    .post(url)
                    .header("content-type", "application/json")
                    .body(parts.concat())
                    .send()
                    .map_err(|e| format!("transport: {e}"))?;
                let status = response.status().as_u16();
                let bytes = response.bytes().map_err(|e| format!("reading: {e}"))?;
                Ok((status, bytes.to_vec()))
            }
            Client::Raw { conn, timeout } => {
                let (addr, path) = url
                    .strip_prefix("http://")
                    .and_then(|rest| rest.find('/').map(|i| rest.split_at(i)))
                    .ok_or_else(|| format!("not an http://HOST:PORT/PATH address: {url}"))?;
                if conn.is_none() {
                    *conn = Some(connect(addr, *timeout).map_err(|e| format!("connect: {e}"))?);
                }
                let reader = conn.as_mut().ok_or("no connection")?;
                let answer = exchange(reader, addr, path, parts);
                if !matches!(answer, Ok((_, _, true))) {
                    *conn = None;
                }
                answer.map(|(status, bytes, _)| (status, bytes))
            }
        }
    }
}

fn connect(addr: &str, timeout: Duration) -> std::io::Result<BufReader<TcpStream>> {
    let stream = TcpStream::connect(addr)?;
    stream.set_nodelay(true)?;
    stream.set_read_timeout(Some(timeout))?;
    stream.set_write_timeout(Some(timeout))?;
    Ok(BufReader::with_capacity(64 << 10, stream))
}

/// One request and its answer on an open connection: the status, the
/// body, and whether the connection may be used again.
fn exchange(
    reader: &mut BufReader<TcpStream>,
    addr: &str,
    path: &str,
    parts: &[&[u8]],
) -> Result<(u16, Vec<u8>, bool), String> {
    let head = format!(
        "POST {path} HTTP/1.1\r\nhost: {addr}\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n",
        parts.iter().map(|p| p.len()).sum::<usize>()
    );
    let stream = reader.get_mut();
    std::iter::once(head.as_bytes())
        .chain(parts.iter().copied())
        .try_for_each(|part| stream.write_all(part))
        .map_err(|e| format!("transport: {e}"))?;
    let mut line = String::new();
    let read_line = |reader: &mut BufReader<TcpStream>, line: &mut String| {
        line.clear();
        match reader.read_line(line) {
            Ok(0) => Err("transport: the server closed the connection".to_string()),
            Ok(_) => Ok(()),
            Err(e) => Err(format!("reading: {e}")),
        }
    };
    read_line(reader, &mut line)?;
    let status: u16 = line
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| format!("bad status line {:?}", line.trim_end()))?;
    let (mut length, mut reuse) = (None, true);
    loop {
        read_line(reader, &mut line)?;
        let header = line.trim_end();
        if header.is_empty() {
            break;
        }
        let Some((name, value)) = header.split_once(':') else {
            return Err(format!("bad header line {header:?}"));
        };
        let value = value.trim();
        if name.eq_ignore_ascii_case("content-length") {
            length = Some(
                value
                    .parse::<usize>()
                    .map_err(|_| format!("bad content-length {value:?}"))?,
            );
        } else if name.eq_ignore_ascii_case("connection") && value.eq_ignore_ascii_case("close") {
            reuse = false;
        }
    }
    let length = length.ok_or("an answer without content-length")?;
    let mut bytes = vec![0; length];
    reader
        .read_exact(&mut bytes)
        .map_err(|e| format!("reading: {e}"))?;
    Ok((status, bytes, reuse))
}

/// Sends one request and checks its answer: the latency in ms, or what
/// went wrong.
pub fn request(
    client: &mut Client,
    url: &str,
    parts: &[&[u8]],
    session: Option<&str>,
) -> Result<f64, String> {
    let t = Instant::now();
    let (status, bytes) = client.post(url, parts)?;
    let ms = t.elapsed().as_secs_f64() * 1000.0;
    if !(200..300).contains(&status) {
        let text = String::from_utf8_lossy(&bytes);
        return Err(format!(
            "HTTP {status}: {}",
            text.chars().take(200).collect::<String>()
        ));
    }
    let v: Value = serde_json::from_slice(&bytes).map_err(|e| format!("bad JSON answer: {e}"))?;
    let tools_ok = v["tools"]
        .as_array()
        .is_some_and(|t| t.len() as u64 <= MAX_TOOLS && t.iter().all(|x| x["name"].is_string()));
    let sid = v["session_id"].as_str();
    let session_ok = match session {
        Some(s) => sid == Some(s),
        None => sid.is_some_and(|s| !s.is_empty()),
    };
    if !tools_ok || !session_ok {
        return Err(format!(
            "bad answer: {}",
            String::from_utf8_lossy(&bytes)
                .chars()
                .take(200)
                .collect::<String>()
        ));
    }
    Ok(ms)
}
