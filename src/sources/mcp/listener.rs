//! What a connection hears from its server: `notifications/tools/list_changed`
//! is passed on, by the server's name, to whoever watches the host.

use rmcp::ClientHandler;
use rmcp::model::ClientConfig;
use rmcp::service::{NotificationContext, RoleClient};
use tokio::sync::mpsc::UnboundedSender;

/// The client side of one connection.
#[derive(Clone, Default)]
pub(super) struct Listener {
    server: String,
    changes: Option<UnboundedSender<String>>,
}

impl Listener {
    pub(super) fn new(server: &str, changes: Option<UnboundedSender<String>>) -> Listener {
        Listener {
            server: server.to_string(),
            changes,
        }
    }
}

impl ClientHandler for Listener {
    fn get_info(&self) -> ClientConfig {
        let mut config = ClientConfig::default();
        config.client_info.name = "toolsift".into();
        config.client_info.version = env!("CARGO_PKG_VERSION").into();
        config
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        if let Some(tx) = &self.changes {
            let _ = tx.send(self.server.clone());
        }
    }
}
