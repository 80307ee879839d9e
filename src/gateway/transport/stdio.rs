//! The gateway over stdio: what Claude Desktop, Cursor and Claude Code
//! start. One process is one session; it ends when the host closes stdin.
//! Each line the host writes is checked as a posted message is
//! ([`super::http_wire::judge`]): one rmcp would skip or misanswer (not
//! JSON, a batch, a nameless call, a second initialize) is answered with
//! its JSON-RPC error here, the others go to rmcp.

use std::sync::Arc;

use rmcp::ServiceExt;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

use super::http_wire::judge;
use crate::gateway::{Gateway, GatewayError, GatewaySession};

/// Room in the pipes between the host's lines and rmcp.
const PIPE: usize = 1 << 16;

/// Serves one session on stdin and stdout until the host closes it.
pub async fn serve_stdio(gateway: Arc<Gateway>) -> Result<(), GatewayError> {
    serve_lines(gateway, tokio::io::stdin(), tokio::io::stdout()).await
}

/// Serves one session on `input` and `output`, newline-delimited JSON-RPC.
pub(crate) async fn serve_lines(
    gateway: Arc<Gateway>,
    input: impl tokio::io::AsyncRead + Unpin + Send + 'static,
    output: impl tokio::io::AsyncWrite + Unpin + Send + 'static,
) -> Result<(), GatewayError> {
    let (to_rmcp, rmcp_in) = tokio::io::duplex(PIPE);
    let (rmcp_out, from_rmcp) = tokio::io::duplex(PIPE);
    let (lines, outbox) = mpsc::unbounded_channel::<String>();
    let writer = tokio::spawn(write_lines(output, outbox));
    tokio::spawn(relay_rmcp(from_rmcp, lines.clone()));
    tokio::spawn(check_host(input, to_rmcp, lines));
    let session = GatewaySession::new(gateway, "stdio");
    let running = session
        .serve((rmcp_in, rmcp_out))
        .await
        .map_err(|e| GatewayError::Handshake(e.to_string()))?;
    let ended = running.waiting().await;
    // What rmcp and the checks wrote reaches the host before the end (the
    // checks' side ends with stdin, which a host may keep open).
    let _ = tokio::time::timeout(std::time::Duration::from_secs(1), writer).await;
    ended.map_err(|e| GatewayError::SessionEnded(e.to_string()))?;
    Ok(())
}

/// The host's lines, checked: a fault answered, the rest passed to rmcp;
/// rmcp sees the end when the host closes its side.
async fn check_host(
    input: impl tokio::io::AsyncRead + Unpin,
    mut to_rmcp: tokio::io::DuplexStream,
    answers: mpsc::UnboundedSender<String>,
) {
    let mut input = BufReader::new(input).lines();
    let mut live = false;
    while let Ok(Some(line)) = input.next_line().await {
        if line.trim().is_empty() {
            continue;
        }
        match judge(line.as_bytes(), live) {
            Ok(initialize) => {
                live |= initialize;
                let sent = async {
                    to_rmcp.write_all(line.as_bytes()).await?;
                    to_rmcp.write_all(b"\n").await
                };
                if sent.await.is_err() {
                    break;
                }
            }
            Err((_, error)) => {
                if answers.send(error.to_string()).is_err() {
                    break;
                }
            }
        }
    }
    let _ = to_rmcp.shutdown().await;
}

/// rmcp's lines, on to the host.
async fn relay_rmcp(from_rmcp: tokio::io::DuplexStream, out: mpsc::UnboundedSender<String>) {
    let mut lines = BufReader::new(from_rmcp).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        if out.send(line).is_err() {
            break;
        }
    }
}

/// Writes each line whole, flushed, until every sender is gone.
async fn write_lines(
    mut output: impl tokio::io::AsyncWrite + Unpin,
    mut lines: mpsc::UnboundedReceiver<String>,
) {
    while let Some(line) = lines.recv().await {
        let written = async {
            output.write_all(line.as_bytes()).await?;
            output.write_all(b"\n").await?;
            output.flush().await
        };
        if written.await.is_err() {
            break;
        }
    }
}
