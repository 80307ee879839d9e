//! What the host keeps of logins: a server's wait for one, and whether
//! one starts by itself and who is told its page.

use std::collections::HashSet;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};

use super::Shown;

/// Told the login page's address: the server's name, the address, and
/// whether a browser opened it.
pub type Notice = Arc<dyn Fn(&str, &str, Shown) + Send + Sync>;

/// What a server waiting for a login is waiting with.
#[derive(Debug, Clone)]
pub(crate) struct Waiting {
    /// A sentence for the user: how it gets its login.
    pub(crate) how: String,
    /// The server's challenge, for the login.
    pub(crate) challenge: String,
}

impl Waiting {
    /// Waiting with no login page opened for it.
    pub(crate) fn new(server: &str, challenge: String, had_login: bool) -> Waiting {
        Waiting::with(server, challenge, had_login, false)
    }

    /// `had_login`: a login was kept and could not be renewed; `opened`:
    /// a login page was opened for it already.
    pub(crate) fn with(server: &str, challenge: String, had_login: bool, opened: bool) -> Waiting {
        let expired = if had_login {
            "its login expired or was revoked and could not be renewed: "
        } else {
            ""
        };
        let how = match (opened, had_login) {
            (true, _) => format!("{expired}a login page was opened; or log in with `toolsift login {server}`"),
            (false, true) => format!("{expired}log in again with `toolsift login {server}`"),
            (false, false) => format!("log in with `toolsift login {server}`"),
        };
        Waiting { how, challenge }
    }
}

/// The host's logins.
#[derive(Default)]
pub(crate) struct Logins {
    /// A login starts the first time a server needs one (the gateway).
    pub(crate) on_need: AtomicBool,
    pub(crate) notice: Mutex<Option<Notice>>,
    /// The servers whose page was opened already (once per server).
    pub(crate) opened: Mutex<HashSet<String>>,
}

