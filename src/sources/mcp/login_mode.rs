//! Whose login a hosted server's calls carry when an HTTP gateway serves
//! several keys: each key's own (`"login": "per-user"`), or one login for
//! every key (`"login": "shared"`, a service account).
//!
//! Unwritten, it is `per-user` when the gateway runs over HTTP with more
//! than one key, else `shared` (one user: today's single login).

use serde::Deserialize;

/// How the keys of a gateway log in to one server reached by url.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LoginMode {
    /// Each key its own login, kept per key and server; a key with none
    /// waits for it and never uses another's.
    #[serde(alias = "per_user")]
    PerUser,
    /// One login for every key.
    Shared,
}

impl LoginMode {
    /// The mode of a server whose entry says `written`, for a gateway
    /// over HTTP (`http`) with `keys` API keys.
    pub fn resolve(written: Option<LoginMode>, http: bool, keys: usize) -> LoginMode {
        match written {
            Some(mode) => mode,
            None if http && keys > 1 => LoginMode::PerUser,
            None => LoginMode::Shared,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::LoginMode::{self, PerUser, Shared};

    #[test]
    fn unwritten_it_is_per_user_over_http_with_several_keys_else_shared() {
        assert_eq!(LoginMode::resolve(None, true, 2), PerUser);
        assert_eq!(LoginMode::resolve(None, true, 1), Shared);
        assert_eq!(LoginMode::resolve(None, true, 0), Shared);
        assert_eq!(
            LoginMode::resolve(None, false, 3),
            Shared,
            "stdio: one user"
        );
        assert_eq!(LoginMode::resolve(Some(Shared), true, 5), Shared);
        assert_eq!(LoginMode::resolve(Some(PerUser), true, 1), PerUser);
    }

    #[test]
    fn it_is_written_as_isolation_is_and_the_underscore_is_taken_too() {
        let read = |s: &str| serde_json::from_str::<LoginMode>(s);
        assert_eq!(read(r#""per-user""#).unwrap(), PerUser);
        assert_eq!(read(r#""per_user""#).unwrap(), PerUser);
        assert_eq!(read(r#""shared""#).unwrap(), Shared);
        assert!(read(r#""each""#).is_err());
    }
}
