//! The gateway over stdio: what Claude Desktop, Cursor and Claude Code
//! start. One process is one session; it ends when the host closes stdin.

use std::sync::Arc;

use rmcp::ServiceExt;

use super::{Gateway, GatewaySession};

/// Serves one session on stdin and stdout until the host closes it.
pub async fn serve_stdio(gateway: Arc<Gateway>) -> Result<(), String> {
    let session = GatewaySession::new(gateway, "stdio");
    let running = session
        .serve(rmcp::transport::stdio())
        .await
        .map_err(|e| format!("the host's handshake failed: {e}"))?;
    running
        .waiting()
        .await
        .map_err(|e| format!("the session ended abnormally: {e}"))?;
    Ok(())
}
