//! A stdio server's messages read before rmcp reads them. rmcp drops, and
//! only logs, a line it cannot read: longer than its 16 MiB, not JSON, or
//! JSON nested deeper than serde_json's 128 levels. The request that line
//! answered then waits out its whole time limit and is reported as not
//! answered. Here each line the server writes is looked at first: one that
//! cannot be read and answers a request (a top-level `"id"` beside a
//! `"result"` or an `"error"`, found without holding the line) is replaced
//! by an error answer to that request saying what was wrong, so it fails
//! at once; any other unreadable line (a log line on stdout) is dropped,
//! as rmcp would, and kept as the server's last unreadable message.

use std::sync::{Arc, Mutex};

use rmcp::RoleClient;
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::transport::async_rw::{AsyncRwTransport, DEFAULT_MAX_LINE_LENGTH};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStderr, ChildStdin};

use super::frame_scan::{MAX_DEPTH, Scan};

/// The longest line passed on, its newline apart: rmcp's own bound.
pub(super) const MAX_LINE: usize = DEFAULT_MAX_LINE_LENGTH - 2;

/// The server's last unreadable message that answered nothing, a sentence.
pub(super) type LastUnreadable = Arc<Mutex<Option<String>>>;

/// A stdio server's process and its connection, its output screened.
pub(super) struct ScreenedChild {
    child: Child,
    transport: AsyncRwTransport<RoleClient, tokio::io::DuplexStream, ChildStdin>,
}

impl ScreenedChild {
    /// Starts `cmd` (stdin, stdout and stderr piped) with its output
    /// screened; its stderr, and where its last unreadable message goes.
    pub(super) fn spawn(
        mut cmd: tokio::process::Command,
    ) -> std::io::Result<(ScreenedChild, Option<ChildStderr>, LastUnreadable)> {
        cmd.stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped());
        let mut child = cmd.spawn()?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            return Err(std::io::Error::other("the server's stdin or stdout was not piped"));
        };
        let stderr = child.stderr.take();
        let (to_rmcp, from_screen) = tokio::io::duplex(64 * 1024);
        let last = LastUnreadable::default();
        tokio::spawn(screen(stdout, to_rmcp, last.clone(), MAX_LINE));
        let transport = AsyncRwTransport::new_client(from_screen, stdin);
        Ok((ScreenedChild { child, transport }, stderr, last))
    }

    /// The process's id (its group's, as it leads one).
    pub(super) fn id(&self) -> Option<u32> {
        self.child.id()
    }
}

impl Transport<RoleClient> for ScreenedChild {
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.transport.send(item)
    }

    fn receive(&mut self) -> impl Future<Output = Option<RxJsonRpcMessage<RoleClient>>> + Send {
        self.transport.receive()
    }

    /// Closes its input, as the MCP stdio shutdown begins, gives it a
    /// moment to exit, then kills it (its group is the reaper's).
    async fn close(&mut self) -> Result<(), Self::Error> {
        self.transport.close().await?;
        let grace = std::time::Duration::from_secs(2);
        if tokio::time::timeout(grace, self.child.wait()).await.is_err() {
            let _ = self.child.start_kill();
        }
        Ok(())
    }
}

/// Copies `from` to `to` a line at a time, each unreadable line answered
/// or dropped (see the module); lines of up to `max` bytes pass.
pub(super) async fn screen(
    from: impl AsyncRead + Unpin,
    mut to: impl AsyncWrite + Unpin,
    last: LastUnreadable,
    max: usize,
) {
    let mut from = BufReader::with_capacity(64 * 1024, from);
    let mut line: Vec<u8> = Vec::new();
    let mut scan = Scan::default();
    let mut len: usize = 0;
    loop {
        let (used, ends) = {
            let Ok(chunk) = from.fill_buf().await else { break };
            if chunk.is_empty() {
                break;
            }
            let (part, ends) = match memchr::memchr(b'\n', chunk) {
                Some(at) => (&chunk[..at], Some(at + 1)),
                None => (chunk, None),
            };
            scan.feed(part);
            len += part.len();
            if len <= max {
                line.extend_from_slice(part);
            } else {
                line = Vec::new();
            }
            (ends.unwrap_or(chunk.len()), ends.is_some())
        };
        from.consume(used);
        if !ends {
            continue;
        }
        let whole = std::mem::take(&mut scan);
        let out = if len > max {
            unreadable(
                &whole,
                &format!(
                    "a message of {}, more than the {} one may be",
                    crate::numbers::bytes(len as u64),
                    crate::numbers::bytes(max as u64 + 2)
                ),
                &last,
            )
        } else if whole.too_deep() {
            unreadable(
                &whole,
                &format!(
                    "JSON nested {MAX_DEPTH} levels deep or deeper, more than a message may be"
                ),
                &last,
            )
        } else {
            let text = line.strip_suffix(b"\r").unwrap_or(&line);
            // rmcp reads past a byte order mark too.
            let text = text.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(text);
            match serde_json::from_slice::<serde::de::IgnoredAny>(text) {
                Ok(_) => Some(std::mem::take(&mut line)),
                Err(_) if text.iter().all(u8::is_ascii_whitespace) => None,
                Err(e) => unreadable(&whole, &format!("not JSON ({e})"), &last),
            }
        };
        line.clear();
        len = 0;
        if let Some(mut out) = out {
            out.push(b'\n');
            if to.write_all(&out).await.is_err() {
                return;
            }
        }
    }
    let _ = to.shutdown().await;
}

/// The error answer that replaces an unreadable answer to a request;
/// `None` (the line dropped, `why` kept in `last`) for anything else.
fn unreadable(scan: &Scan, why: &str, last: &LastUnreadable) -> Option<Vec<u8>> {
    let Some(id) = scan.answer_id() else {
        *last.lock().unwrap_or_else(|p| p.into_inner()) =
            Some(format!("a message it wrote could not be read: {why}"));
        return None;
    };
    let answer = serde_json::json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": {
            "code": -32603,
            "message": format!("its answer could not be read: {why}"),
        },
    });
    serde_json::to_vec(&answer).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `input` through [`screen`] with lines of up to `max` bytes: what
    /// comes out, and the last unreadable message.
    fn screened(input: &[u8], max: usize) -> (String, Option<String>) {
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let last = LastUnreadable::default();
        let mut out = Vec::new();
        rt.block_on(screen(input, &mut out, last.clone(), max));
        let last = last.lock().unwrap().clone();
        (String::from_utf8(out).unwrap(), last)
    }

    #[test]
    fn readable_lines_pass_as_they_are() {
        let input = b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\r\n\n{\"jsonrpc\":\"2.0\",\"method\":\"x\"}\n";
        let (out, last) = screened(input, 1000);
        assert_eq!(
            out,
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\r\n{\"jsonrpc\":\"2.0\",\"method\":\"x\"}\n"
        );
        assert_eq!(last, None);
    }

    #[test]
    fn an_answer_too_long_becomes_an_error_answer_to_its_request() {
        // The id after the result, as the TypeScript SDK writes it.
        let long = format!(
            "{{\"result\":{{\"tools\":[\"{}\"]}},\"jsonrpc\":\"2.0\",\"id\":7}}\n",
            "x".repeat(5000)
        );
        let (out, _) = screened(long.as_bytes(), 1000);
        let answer: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
        assert_eq!(answer["id"], 7);
        let message = answer["error"]["message"].as_str().unwrap();
        assert!(
            message.starts_with("its answer could not be read: a message of 5")
                && message.contains("kB, more than the 1.0 kB one may be"),
            "{message}"
        );
    }

    #[test]
    fn an_answer_nested_too_deep_becomes_an_error_answer_and_noise_is_dropped() {
        let deep = format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"result\":{}1{}}}\nStarting server...\n",
            "[".repeat(200),
            "]".repeat(200)
        );
        let (out, last) = screened(deep.as_bytes(), 100_000);
        let answer: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
        assert_eq!(answer["id"], "a");
        assert!(
            answer["error"]["message"]
                .as_str()
                .unwrap()
                .contains("nested 128 levels deep or deeper"),
            "{answer}"
        );
        assert!(last.unwrap().contains("not JSON"));
    }
}
