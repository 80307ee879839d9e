//! API keys: `authorization: Bearer KEY` (the scheme in any case) must match
//! one, compared in constant time. Keys never appear in logs or debug output.

use subtle::ConstantTimeEq;

/// The keys a server accepts; none means no auth (loopback only, unless
/// told otherwise).
#[derive(Clone, Default)]
pub struct ApiKeys {
    keys: Vec<String>,
}

impl std::fmt::Debug for ApiKeys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ApiKeys({} keys)", self.keys.len())
    }
}

/// Why the keys could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeyError {
    #[error("--api-key-env {0}: the environment variable is not set")]
    Unset(String),
    #[error("--api-key-env {0}: the environment variable is empty")]
    Empty(String),
    #[error("--api-key-env {0}: the key has white space or control characters")]
    Invalid(String),
}

impl ApiKeys {
    /// The keys held by the environment variables `names`.
    pub fn from_env(
        names: &[String],
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<ApiKeys, KeyError> {
        let mut keys = Vec::new();
        for name in names {
            let key = env(name).ok_or_else(|| KeyError::Unset(name.clone()))?;
            if key.is_empty() {
                return Err(KeyError::Empty(name.clone()));
            }
            if key.chars().any(|c| c.is_whitespace() || c.is_control()) {
                return Err(KeyError::Invalid(name.clone()));
            }
            keys.push(key);
        }
        Ok(ApiKeys { keys })
    }

    /// Keys given directly (tests, embedding).
    pub fn new(keys: Vec<String>) -> ApiKeys {
        ApiKeys { keys }
    }

    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// The key an `authorization` header value proves, if any. With no keys
    /// configured every request passes, unscoped (`Some("")`).
    pub fn check(&self, authorization: Option<&[u8]>) -> Option<&str> {
        if self.keys.is_empty() {
            return Some("");
        }
        let presented = bearer_token(authorization?)?;
        // Compare against every key, without stopping at a match.
        let mut found = None;
        for key in &self.keys {
            if bool::from(key.as_bytes().ct_eq(presented)) {
                found = Some(key.as_str());
            }
        }
        found
    }
}

/// The token of `Bearer TOKEN`: the scheme in any case (RFC 9110 §11.1),
/// one or more spaces, then the token.
fn bearer_token(value: &[u8]) -> Option<&[u8]> {
    let (scheme, rest) = value.split_at_checked(6)?;
    if !scheme.eq_ignore_ascii_case(b"bearer") || !rest.starts_with(b" ") {
        return None;
    }
    let start = rest.iter().position(|b| *b != b' ')?;
    Some(&rest[start..])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_from_env_and_checks() {
        let env = |n: &str| match n {
            "A" => Some("alpha-key".to_string()),
            "B" => Some("beta".to_string()),
            "E" => Some(String::new()),
            "W" => Some("has space".to_string()),
            _ => None,
        };
        let keys = ApiKeys::from_env(&["A".into(), "B".into()], &env).unwrap();
        assert_eq!(keys.check(Some(b"Bearer alpha-key")), Some("alpha-key"));
        assert_eq!(keys.check(Some(b"Bearer beta")), Some("beta"));
        assert_eq!(keys.check(Some(b"Bearer bet")), None);
        assert_eq!(keys.check(Some(b"bearer beta")), Some("beta"));
        assert_eq!(keys.check(Some(b"BEARER  beta")), Some("beta"));
        assert_eq!(keys.check(Some(b"Bearerbeta")), None);
        assert_eq!(keys.check(Some(b"Basic beta")), None);
        assert_eq!(keys.check(Some(b"Bearer ")), None);
        assert_eq!(keys.check(Some(b"beta")), None);
        assert_eq!(keys.check(None), None);
        assert!(!format!("{keys:?}").contains("alpha"));
        assert_eq!(
            ApiKeys::from_env(&["X".into()], &env).unwrap_err(),
            KeyError::Unset("X".into())
        );
        assert_eq!(
            ApiKeys::from_env(&["E".into()], &env).unwrap_err(),
            KeyError::Empty("E".into())
        );
        assert_eq!(
            ApiKeys::from_env(&["W".into()], &env).unwrap_err(),
            KeyError::Invalid("W".into())
        );
        assert_eq!(ApiKeys::default().check(None), Some(""));
    }
}
