//! What the host keeps of logins: a server's wait for one, whether one
//! starts by itself, who is told its page, the command that makes one
//! (`toolsift login` with the servers file the host was started with),
//! and each server's login page, one at a time.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};

use super::Shown;

/// Told the login page's address: the server's name, the address, and
/// whether a browser opened it.
pub type Notice = Arc<dyn Fn(&str, &str, Shown) + Send + Sync>;

/// Told what went wrong with a server's login that the user should hear
/// (a kept login refused, a login page not opened): the server's name and
/// a sentence (neither escaped).
pub type Warn = Arc<dyn Fn(&str, &str) + Send + Sync>;

/// The command that logs in to a server, given its name: `toolsift login
/// NAME` with the flags that name the servers file it is in.
pub type LoginCommand = Arc<dyn Fn(&str) -> String + Send + Sync>;

/// What became of the login kept for a server before it needed one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Before {
    /// None was kept.
    Nothing,
    /// It expired or was revoked, and its refresh was refused.
    Expired,
    /// Its authorization server no longer knows the client it was made by.
    UnknownClient,
    /// The kept login is not used: why (its file and what is wrong).
    Refused(String),
}

/// What a server waiting for a login is waiting with.
#[derive(Debug, Clone)]
pub(crate) struct Waiting {
    /// A sentence for the user: how it gets its login.
    pub(crate) how: String,
    /// The server's challenge, for the login.
    pub(crate) challenge: String,
}

impl Waiting {
    /// Waiting with no login started for it; `command` logs in to it.
    pub(crate) fn new(command: &str, challenge: String, before: &Before) -> Waiting {
        Waiting::with(command, challenge, before, None)
    }

    /// `started`: a login was started for it, its page opened in the
    /// browser (`Some(true)`) or not (`Some(false)`: `TOOLSIFT_NO_BROWSER`
    /// is set, its address is in the log).
    pub(crate) fn with(
        command: &str,
        challenge: String,
        before: &Before,
        started: Option<bool>,
    ) -> Waiting {
        let lost = match before {
            Before::Nothing => String::new(),
            Before::Expired => {
                "its login expired or was revoked and could not be renewed: ".to_string()
            }
            Before::UnknownClient => {
                "its authorization server no longer knows the client its login was made with: "
                    .to_string()
            }
            Before::Refused(why) => format!("its kept login is not used ({why}): "),
        };
        let again = if *before == Before::Nothing { "" } else { " again" };
        let how = match started {
            Some(true) => format!(
                "{lost}a login page was opened in the browser; or log in{again} with `{command}`"
            ),
            Some(false) => format!(
                "{lost}no browser was opened (TOOLSIFT_NO_BROWSER is set): open the login page whose address the log gives, or log in{again} with `{command}`"
            ),
            None => format!("{lost}log in{again} with `{command}`"),
        };
        Waiting { how, challenge }
    }
}

/// One server's login page: one at a time; while a page that no browser
/// opened waits for its answer, its address.
#[derive(Default)]
pub(crate) struct Page {
    pub(crate) turn: Arc<tokio::sync::Mutex<()>>,
    pub(crate) printed: Mutex<Option<String>>,
}

/// A server's turn at its login page, held until its login ends.
pub(crate) struct Turn {
    _held: tokio::sync::OwnedMutexGuard<()>,
    page: Arc<Page>,
}

impl Turn {
    pub(crate) fn new(held: tokio::sync::OwnedMutexGuard<()>, page: Arc<Page>) -> Turn {
        Turn { _held: held, page }
    }
}

impl Drop for Turn {
    fn drop(&mut self) {
        *crate::lock::lock(&self.page.printed) = None;
    }
}

/// The host's logins.
#[derive(Default)]
pub(crate) struct Logins {
    /// A login starts the first time a server needs one (the gateway).
    pub(crate) on_need: AtomicBool,
    pub(crate) notice: Mutex<Option<Notice>>,
    pub(crate) warn: Mutex<Option<Warn>>,
    pub(crate) command: Mutex<Option<LoginCommand>>,
    /// The servers whose page was opened already (once per server).
    pub(crate) opened: Mutex<HashSet<String>>,
    /// Each server's login page.
    pub(crate) pages: Mutex<HashMap<String, Arc<Page>>>,
    /// The servers whose kept login is watched for (one watcher each).
    pub(crate) watched: Mutex<HashSet<String>>,
    /// What was last warned of each server (said once).
    pub(crate) warned: Mutex<HashMap<String, String>>,
}

impl Logins {
    /// The command that logs in to `server`.
    pub(crate) fn command_for(&self, server: &str) -> String {
        match crate::lock::lock(&self.command).as_ref() {
            Some(command) => command(server),
            None => format!("toolsift login {server}"),
        }
    }

    /// `server`'s login page.
    pub(crate) fn page(&self, server: &str) -> Arc<Page> {
        crate::lock::lock(&self.pages)
            .entry(server.to_string())
            .or_default()
            .clone()
    }

    /// Tells the user `what` of `server`, once for the same words.
    pub(crate) fn warn(&self, server: &str, what: &str) {
        let said = crate::lock::lock(&self.warned).insert(server.to_string(), what.to_string());
        if said.as_deref() == Some(what) {
            return;
        }
        if let Some(warn) = crate::lock::lock(&self.warn).clone() {
            warn(server, what);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hint_names_the_command_it_is_given_and_says_when_no_page_opened() {
        let cmd = "toolsift login tracker --mcp /home/me/servers.json";
        let w = Waiting::new(cmd, String::new(), &Before::Nothing);
        assert_eq!(w.how, format!("log in with `{cmd}`"));
        let w = Waiting::with(cmd, String::new(), &Before::Expired, Some(false));
        assert!(w.how.contains("no browser was opened"), "{}", w.how);
        assert!(!w.how.contains("was opened in the browser"), "{}", w.how);
        assert!(w.how.ends_with(&format!("log in again with `{cmd}`")), "{}", w.how);
        let w = Waiting::new(cmd, String::new(), &Before::UnknownClient);
        assert!(w.how.contains("no longer knows the client"), "{}", w.how);
    }

    #[tokio::test]
    async fn a_server_s_page_is_one_at_a_time_and_its_address_goes_with_its_turn() {
        let logins = Logins::default();
        let page = logins.page("tracker");
        let first = Turn::new(page.turn.clone().try_lock_owned().unwrap(), page.clone());
        *crate::lock::lock(&page.printed) = Some("http://127.0.0.1:1/authorize".into());
        let again = logins.page("tracker");
        assert!(again.turn.clone().try_lock_owned().is_err(), "a second page while one is open");
        assert!(crate::lock::lock(&again.printed).is_some());
        drop(first);
        assert!(crate::lock::lock(&again.printed).is_none());
        assert!(again.turn.clone().try_lock_owned().is_ok());
    }
}
