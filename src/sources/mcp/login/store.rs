//! Where a server's login is kept: the OS keyring where there is one (the
//! macOS Keychain, the Windows Credential Manager, the Secret Service),
//! else a file readable by its owner only (0600, in a 0700 folder) under
//! the user's config directory (`~/.config/toolsift/logins/`).
//! `TOOLSIFT_TOKEN_STORE=file` or `keyring` picks one.
//!
//! A login is kept per server name and URL: a name that now names another
//! URL has no login. A server whose keys each log in (`"login":
//! "per-user"`) keeps one login per key and server, the record naming its
//! key: one key's record is never another's, nor the server's shared one. Nothing here prints or logs a token; the record's
//! `Debug` says only what it holds.
//!
//! A login file is read only when it is the user's own: a symbolic link, a
//! file of another owner or one that group or others may read or write is
//! refused, as is a folder that group or others may write (anyone could
//! put a file there); each refusal names the path and why, and no token of
//! it is sent.

pub use super::choice::{STORE_VAR, UnknownStore};
use super::choice::{Choice, choice};
use std::path::{Path, PathBuf};
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use rmcp::transport::auth::{AuthError, CredentialStore, StoredCredentials};

use super::keyring::{keyring_delete, keyring_get, keyring_set};
use super::private::{StoreError, check_folder, read_kept, write_private};
use serde::{Deserialize, Serialize};


/// What is kept for one server.
#[derive(Clone, Default, Serialize, Deserialize)]
pub(super) struct Record {
    pub(super) url: String,
    /// The gateway key whose own login this is (none: the server's one
    /// login, for every key).
    #[serde(default)]
    pub(super) key: Option<String>,
    /// The client's secret (a pre-registered or registered confidential
    /// client), for refreshing the token.
    #[serde(default)]
    pub(super) client_secret: Option<String>,
    #[serde(default)]
    pub(super) credentials: Option<StoredCredentials>,
    /// The client toolsift registered with the server's authorization
    /// server: reused by every later login (none: none registered).
    #[serde(default)]
    pub(super) registered: Option<Registered>,
}

/// A client registered for one server: its id, its secret, and the
/// redirect URI it was registered with (its loopback port is taken again).
#[derive(Clone, Serialize, Deserialize)]
pub(super) struct Registered {
    pub(super) client_id: String,
    #[serde(default)]
    pub(super) client_secret: Option<String>,
    pub(super) redirect_uri: String,
}

impl std::fmt::Debug for Record {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Record")
            .field("url", &self.url)
            .field("key", &self.key)
            .field("client_secret", &self.client_secret.as_ref().map(|_| "[kept]"))
            .field("credentials", &self.credentials.as_ref().map(|_| "[kept]"))
            .finish()
    }
}

/// How long a connection reuses the record it last read: a request does
/// not ask the keyring (or the disk) each time, and a login kept by
/// another process is seen within this.
const FRESH: Duration = Duration::from_secs(1);

/// A record read (none: no login kept), and when.
type LastRead = (Instant, Option<Record>);

/// A store's place in [`LAST`]: server name, URL, and key (none: the
/// shared login).
type Place = (String, String, Option<String>);

/// The record each server's store last read or wrote, by server name,
/// URL and key, for every store of the process: a login kept by one (a
/// step-up in a call) is what the others read next.
static LAST: std::sync::LazyLock<Mutex<HashMap<Place, LastRead>>> =
    std::sync::LazyLock::new(Mutex::default);

/// One server's login store: its one login, or one key's own.
#[derive(Debug, Clone)]
pub struct TokenStore {
    server: String,
    url: String,
    /// The gateway key whose own login this is (none: the shared login).
    as_key: Option<String>,
}

impl TokenStore {
    /// The server's one login, for every key.
    pub fn new(server: &str, url: &str) -> TokenStore {
        TokenStore::for_key(server, url, None)
    }

    /// The login of `as_key` (a key's name in the gateway's config) to
    /// `server`; none: the server's shared one.
    pub fn for_key(server: &str, url: &str, as_key: Option<&str>) -> TokenStore {
        TokenStore {
            server: server.to_string(),
            url: url.to_string(),
            as_key: as_key.map(str::to_string),
        }
    }

    /// The key whose own login this is (none: the shared one).
    pub fn as_key(&self) -> Option<&str> {
        self.as_key.as_deref()
    }

    fn key(&self) -> Place {
        (self.server.clone(), self.url.clone(), self.as_key.clone())
    }

    fn remember(&self, record: Option<Record>) {
        crate::lock::lock(&LAST).insert(self.key(), (Instant::now(), record));
    }

    /// The record, as last read if that was under [`FRESH`] ago.
    async fn recent(&self) -> Result<Option<Record>, StoreError> {
        if let Some((at, record)) = crate::lock::lock(&LAST).get(&self.key())
            && at.elapsed() < FRESH
        {
            return Ok(record.clone());
        }
        let record = self.load().await?;
        self.remember(record.clone());
        Ok(record)
    }

    /// The folder of login files: `$XDG_CONFIG_HOME/toolsift/logins`, else
    /// the platform's config directory.
    pub fn folder() -> Option<PathBuf> {
        std::env::var_os("XDG_CONFIG_HOME")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
            .or_else(dirs::config_dir)
            .map(|d| d.join("toolsift").join("logins"))
    }

    /// This server's login file (of its key, for a key's own).
    pub fn file(&self) -> Option<PathBuf> {
        let name = match &self.as_key {
            None => file_name(&self.server),
            Some(key) => file_name_as(&self.server, key),
        };
        Self::folder().map(|d| d.join(name))
    }

    /// The keyring's account: `mcp-login:SERVER`, or for a key's own
    /// login `mcp-login-as:KEY:SERVER` (a key's name has no `:`).
    fn account(&self) -> String {
        match &self.as_key {
            None => format!("mcp-login:{}", self.server),
            Some(key) => format!("mcp-login-as:{key}:{}", self.server),
        }
    }

    /// The record kept for this server's name and URL.
    pub(super) async fn load(&self) -> Result<Option<Record>, StoreError> {
        let choice = choice()?;
        if choice != Choice::File {
            match keyring_get(self.account()).await {
                Ok(Some(text)) => return Ok(self.matching(&text)),
                Ok(None) => {}
                Err(why) if choice == Choice::Keyring => return Err(why.into()),
                Err(_) => {}
            }
            if choice == Choice::Keyring {
                return Ok(None);
            }
        }
        let Some(file) = self.file() else {
            return Ok(None);
        };
        Ok(read_kept(&file)?.and_then(|text| self.matching(&text)))
    }

    /// Why the kept login is not used, when it is refused (a file or
    /// folder that is not the user's own).
    pub async fn refused(&self) -> Option<StoreError> {
        match self.load().await {
            Err(e @ StoreError::Refused { .. }) => Some(e),
            _ => None,
        }
    }

    /// Forgets the tokens and the client registered for this server (its
    /// authorization server no longer knows the client): the next login
    /// registers anew.
    pub async fn forget_client(&self) -> Result<(), StoreError> {
        let Some(mut record) = self.load().await? else {
            return Ok(());
        };
        record.credentials = None;
        record.registered = None;
        record.client_secret = None;
        self.save(&record).await.map(|_| ())
    }

    /// Where a kept login is: the OS keyring, or the file's path.
    pub fn kept_where(&self) -> String {
        match self.file() {
            Some(f) if f.exists() => f.display().to_string(),
            _ => "the OS keyring".into(),
        }
    }

    fn matching(&self, text: &str) -> Option<Record> {
        serde_json::from_str::<Record>(text)
            .ok()
            .filter(|r| r.url == self.url && r.key == self.as_key)
    }

    /// Keeps `record`; says where.
    pub(super) async fn save(&self, record: &Record) -> Result<String, StoreError> {
        let kept = self.save_whole(record).await?;
        self.remember(Some(record.clone()));
        Ok(kept)
    }

    /// [`TokenStore::save`], the cache aside.
    async fn save_whole(&self, record: &Record) -> Result<String, StoreError> {
        let text =
            serde_json::to_string(record).map_err(|e| StoreError::Encode(e.to_string()))?;
        let choice = choice()?;
        if choice != Choice::File {
            match keyring_set(self.account(), text.clone()).await {
                Ok(()) => {
                    // One place only: an older file copy goes.
                    if let Some(file) = self.file() {
                        let _ = std::fs::remove_file(file);
                    }
                    return Ok("the OS keyring".into());
                }
                Err(why) if choice == Choice::Keyring => return Err(why.into()),
                Err(_) => {}
            }
        }
        let file = self.file().ok_or(StoreError::NoFolder)?;
        if let Some(dir) = file.parent() {
            check_folder(dir)?;
        }
        write_private(&file, text.as_bytes()).map_err(|e| StoreError::Write {
            path: file.clone(),
            message: e.to_string(),
        })?;
        Ok(file.display().to_string())
    }

    /// Forgets this server's login wherever it is; says whether one was
    /// kept.
    pub async fn forget(&self) -> Result<bool, super::LoginError> {
        use super::LoginError::Forget;
        crate::lock::lock(&LAST)
            .retain(|(server, _, key), _| *server != self.server || *key != self.as_key);
        let choice = choice().map_err(|e| Forget(e.into()))?;
        // A refused folder: nothing in it is touched.
        if let Some(dir) = self.file().as_deref().and_then(Path::parent) {
            check_folder(dir).map_err(Forget)?;
        }
        let mut had = false;
        if choice != Choice::File {
            match keyring_delete(self.account()).await {
                Ok(found) => had |= found,
                Err(why) if choice == Choice::Keyring => return Err(Forget(why.into())),
                Err(_) => {}
            }
        }
        if let Some(file) = self.file() {
            match std::fs::remove_file(&file) {
                Ok(()) => had = true,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => {
                    return Err(Forget(StoreError::Remove {
                        path: file,
                        message: e.to_string(),
                    }));
                }
            }
        }
        Ok(had)
    }

    /// Whether a token is kept for this server.
    pub async fn has_token(&self) -> bool {
        matches!(self.load().await, Ok(Some(r)) if r.credentials.as_ref().is_some_and(|c| c.token_response.is_some()))
    }

    /// When the kept token was received (none: no token kept): a login
    /// made by another process shows as a new stamp.
    pub async fn stamp(&self) -> Option<u64> {
        let record = self.load().await.ok()??;
        let c = record.credentials?;
        c.token_response.as_ref()?;
        Some(c.token_received_at.unwrap_or(1))
    }
}

/// The rmcp side: the tokens of the record, the rest kept as it was.
#[async_trait::async_trait]
impl CredentialStore for TokenStore {
    async fn load(&self) -> Result<Option<StoredCredentials>, AuthError> {
        match self.recent().await {
            Ok(r) => Ok(r.and_then(|r| r.credentials)),
            // A login file that is not the user's own: no token of it is
            // sent (the server's challenge then asks for a login).
            Err(StoreError::Refused { .. }) => Ok(None),
            Err(e) => Err(AuthError::CredentialStoreError(e.to_string())),
        }
    }

    async fn save(&self, credentials: StoredCredentials) -> Result<(), AuthError> {
        let mut record = TokenStore::load(self)
            .await
            .ok()
            .flatten()
            .unwrap_or_default();
        record.url = self.url.clone();
        record.key = self.as_key.clone();
        record.credentials = Some(credentials);
        TokenStore::save(self, &record)
            .await
            .map(|_| ())
            .map_err(|e| AuthError::CredentialStoreError(e.to_string()))
    }

    async fn clear(&self) -> Result<(), AuthError> {
        let Some(mut record) = TokenStore::load(self)
            .await
            .map_err(|e| AuthError::CredentialStoreError(e.to_string()))?
        else {
            return Ok(());
        };
        record.credentials = None;
        TokenStore::save(self, &record)
            .await
            .map(|_| ())
            .map_err(|e| AuthError::CredentialStoreError(e.to_string()))
    }
}

/// A file name for one key's own login to a server: the server's file
/// name with `@KEY` before `.json` (`@` is in no server's file name, and
/// a key's name not plain gets a hash), so it is never the shared login's
/// file nor another key's.
fn file_name_as(server: &str, key: &str) -> String {
    let stem = file_name(server);
    let stem = stem.trim_end_matches(".json");
    let plain = key
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    if plain && !key.is_empty() && !key.starts_with('.') {
        format!("{stem}@{key}.json")
    } else {
        let hash = xxhash_rust::xxh3::xxh3_64(key.as_bytes());
        format!("{stem}@_-{hash:016x}.json")
    }
}

/// A file name for a server name: its letters, digits, `-`, `_` and `.`
/// kept, any other character (and a leading dot) as `_` plus a hash of the
/// whole name, so two names never share a file.
fn file_name(server: &str) -> String {
    let plain: String = server
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                c
            } else {
                '_'
            }
        })
        .collect();
    if plain == server && !server.starts_with('.') {
        format!("{plain}.json")
    } else {
        let hash = xxhash_rust::xxh3::xxh3_64(server.as_bytes());
        format!("_{}-{hash:016x}.json", plain.trim_start_matches('.'))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_store_var_naming_no_store_says_what_it_takes() {
        assert_eq!(
            StoreError::from(UnknownStore("disk".into())).to_string(),
            "TOOLSIFT_TOKEN_STORE=\"disk\": expected \"keyring\" or \"file\""
        );
    }

    #[test]
    fn names_that_are_not_plain_get_a_hash_and_never_share_a_file() {
        assert_eq!(file_name("github"), "github.json");
        assert_ne!(file_name("a/b"), file_name("a_b"));
        assert!(file_name("../x").starts_with('_'));
        assert!(!file_name("../x").contains('/'));
        assert!(file_name(".hidden").starts_with('_'));
    }

    #[test]
    fn a_record_s_debug_never_shows_what_it_keeps() {
        let record = Record {
            url: "https://x.example/mcp".into(),
            key: None,
            client_secret: Some("s3cret-value".into()),
            credentials: None,
            registered: None,
        };
        let shown = format!("{record:?}");
        assert!(!shown.contains("s3cret-value"), "{shown}");
        assert!(shown.contains("[kept]"));
    }

    #[tokio::test]
    async fn a_file_login_is_0600_in_a_0700_folder_and_keyed_by_url() {
        let dir = std::env::temp_dir().join(format!("toolsift-store-{}", std::process::id()));
        let file = dir.join("logins").join(file_name("srv"));
        write_private(&file, br#"{"url":"https://a.example/mcp"}"#).unwrap();
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&file).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        let dmode = std::fs::metadata(file.parent().unwrap()).unwrap().permissions().mode() & 0o777;
        assert_eq!(dmode, 0o700);
        let store = TokenStore::new("srv", "https://b.example/mcp");
        let text = std::fs::read_to_string(&file).unwrap();
        assert!(store.matching(&text).is_none(), "another URL's login is not this one's");
        let same = TokenStore::new("srv", "https://a.example/mcp");
        assert!(same.matching(&text).is_some());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_key_s_own_login_has_its_own_file_and_account_never_another_s() {
        let shared = TokenStore::new("hosted", "https://h.example/mcp");
        let alice = TokenStore::for_key("hosted", "https://h.example/mcp", Some("alice"));
        let bob = TokenStore::for_key("hosted", "https://h.example/mcp", Some("bob"));
        assert_eq!(file_name_as("hosted", "alice"), "hosted@alice.json");
        assert_ne!(file_name_as("hosted", "a/b"), file_name_as("hosted", "a_b"));
        assert!(!file_name_as("hosted", "../x").contains('/'));
        let names = [shared.file(), alice.file(), bob.file()];
        assert!(names[0] != names[1] && names[1] != names[2] && names[0] != names[2]);
        assert_eq!(alice.account(), "mcp-login-as:alice:hosted");
        assert_eq!(shared.account(), "mcp-login:hosted");
        // A server named like a key's file is not that key's.
        assert_ne!(file_name("hosted@alice"), file_name_as("hosted", "alice"));
    }

    #[test]
    fn a_record_names_its_key_and_is_read_by_that_key_alone() {
        let url = "https://h.example/mcp";
        let alice = TokenStore::for_key("hosted", url, Some("alice"));
        let text = serde_json::to_string(&Record {
            url: url.into(),
            key: Some("alice".into()),
            ..Record::default()
        })
        .unwrap();
        assert!(text.contains(r#""key":"alice""#), "{text}");
        assert!(alice.matching(&text).is_some());
        let bob = TokenStore::for_key("hosted", url, Some("bob"));
        assert!(bob.matching(&text).is_none(), "bob never reads alice's login");
        let shared = TokenStore::new("hosted", url);
        assert!(shared.matching(&text).is_none(), "nor the shared login is hers");
        // A shared record (written before keys had logins) is no key's.
        let old = format!(r#"{{"url":"{url}"}}"#);
        assert!(shared.matching(&old).is_some());
        assert!(alice.matching(&old).is_none());
    }
}
