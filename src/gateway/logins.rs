//! The gateway's named keys as the servers' logins need them: each key's
//! name, known from the key it proves (as its digest, the identity a call
//! carries), and whether a hosted server with no `"login"` is per-user (a
//! gateway over HTTP with more than one key).

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

use crate::config::AccessPlan;
use crate::sources::mcp::{KeyLogins, LoginMode};

/// The named keys of `access` for the host's logins; `api_key_envs` are
/// the other variables whose keys the gateway takes, `over_http` whether
/// it serves HTTP, and `env` reads a variable.
pub fn key_logins(
    access: &AccessPlan,
    api_key_envs: &[String],
    over_http: bool,
    env: &dyn Fn(&str) -> Option<String>,
) -> KeyLogins {
    let variables: BTreeSet<&str> = api_key_envs
        .iter()
        .map(String::as_str)
        .chain(access.envs())
        .collect();
    let by_digest: HashMap<String, String> = access
        .keys
        .iter()
        .filter_map(|k| {
            let digest = crate::http::keys::digest(&env(&k.env)?)?;
            Some((digest, k.name.clone()))
        })
        .collect();
    KeyLogins {
        names: access.keys.iter().map(|k| k.name.clone()).collect(),
        name_of: Arc::new(move |identity: &str| by_digest.get(identity).cloned()),
        per_user_default: LoginMode::resolve(None, over_http, variables.len())
            == LoginMode::PerUser,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::KeyPlan;

    fn plan(names: &[&str]) -> AccessPlan {
        AccessPlan {
            keys: names
                .iter()
                .map(|n| KeyPlan {
                    name: n.to_string(),
                    env: format!("{}_KEY", n.to_uppercase()),
                    at: String::new(),
                    servers: None,
                    tools: Vec::new(),
                })
                .collect(),
        }
    }

    #[test]
    fn a_call_s_key_is_named_from_its_digest_and_per_user_needs_http_and_two_keys() {
        let env = |n: &str| Some(format!("secret-of-{n}"));
        let keys = key_logins(&plan(&["alice", "bob"]), &[], true, &env);
        assert!(keys.per_user_default);
        let digest = crate::http::keys::digest("secret-of-ALICE_KEY").unwrap();
        assert_eq!((keys.name_of)(&digest).as_deref(), Some("alice"));
        assert_eq!((keys.name_of)("key-0000000000000000"), None);
        assert!(!key_logins(&plan(&["alice", "bob"]), &[], false, &env).per_user_default);
        assert!(!key_logins(&plan(&["alice"]), &[], true, &env).per_user_default);
        // The same variable named twice is one key.
        let once = ["ALICE_KEY".to_string()];
        assert!(!key_logins(&plan(&["alice"]), &once, true, &env).per_user_default);
        let other = ["TEAM_KEY".to_string()];
        assert!(key_logins(&plan(&["alice"]), &other, true, &env).per_user_default);
    }
}
