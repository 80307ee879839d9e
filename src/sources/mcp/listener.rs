//! What a connection hears from its server: `notifications/tools/list_changed`
//! is passed on, by the server's name, to whoever watches the host; a
//! `notifications/progress` of a call in flight goes to that call's
//! [`ProgressSink`].

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use rmcp::ClientHandler;
use rmcp::model::{ClientConfig, ProgressNotificationParam, ProgressToken};
use rmcp::service::{NotificationContext, RoleClient};
use tokio::sync::mpsc::UnboundedSender;

/// Where the progress a server reports of one call goes (the gateway hands
/// it on to its host, under the host's own token).
pub type ProgressSink = UnboundedSender<ProgressNotificationParam>;

/// The client side of one connection.
#[derive(Clone, Default)]
pub(super) struct Listener {
    server: String,
    changes: Option<UnboundedSender<String>>,
    /// The calls in flight that want their progress, by the token this
    /// connection sent with each.
    progress: Arc<Mutex<HashMap<ProgressToken, ProgressSink>>>,
}

impl Listener {
    pub(super) fn new(server: &str, changes: Option<UnboundedSender<String>>) -> Listener {
        Listener {
            server: server.to_string(),
            changes,
            progress: Arc::default(),
        }
    }

    /// Sends the progress reported under `token` to `sink` until
    /// [`Listener::forget_progress`].
    pub(super) fn follow_progress(&self, token: ProgressToken, sink: ProgressSink) {
        crate::lock::lock(&self.progress).insert(token, sink);
    }

    pub(super) fn forget_progress(&self, token: &ProgressToken) {
        crate::lock::lock(&self.progress).remove(token);
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

    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        // Progress under a token no call follows (late, or never asked
        // for) is dropped.
        let sink = crate::lock::lock(&self.progress)
            .get(&params.progress_token)
            .cloned();
        if let Some(sink) = sink {
            let _ = sink.send(params);
        }
    }
}
