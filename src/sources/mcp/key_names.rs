//! What the host knows of a gateway's named keys, for the servers whose
//! keys each log in (`"login": "per-user"`): how a call's key is named,
//! whether a server unwritten is per-user, and which keys have a login of
//! their own kept for which server (as last looked).

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

/// The name of the key a call was made with, from the identity the
/// gateway gives the call (none: a key with no name).
pub type NameOf = Arc<dyn Fn(&str) -> Option<String> + Send + Sync>;

/// A gateway's named keys, as the host's logins need them.
#[derive(Clone)]
pub struct KeyLogins {
    /// Every key's name, in the config's order.
    pub names: Vec<String>,
    /// A call's key, named.
    pub name_of: NameOf,
    /// A server reached by url with no `"login"` is `per-user` (an HTTP
    /// gateway with more than one key).
    pub per_user_default: bool,
}

impl std::fmt::Debug for KeyLogins {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KeyLogins")
            .field("names", &self.names)
            .field("per_user_default", &self.per_user_default)
            .finish()
    }
}

/// The host's side: the keys (none: no gateway keys named, every server
/// shared), and the (server, key) pairs whose own login was last found.
#[derive(Default)]
pub(super) struct KeyNames {
    pub(super) keys: Mutex<Option<KeyLogins>>,
    pub(super) kept: Mutex<HashSet<(String, String)>>,
}
