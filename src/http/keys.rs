//! API keys: `authorization: Bearer KEY` (the scheme in any case) must match
//! one, compared in constant time. Keys never appear in logs or debug output.

use subtle::ConstantTimeEq;

/// The keys a server accepts; none means no auth (loopback only, unless
/// told otherwise).
#[derive(Clone, Default)]
pub struct ApiKeys {
    keys: Vec<String>,
    /// Keys that also follow every key's traffic on `/events`
    /// (`--operator-key-env`); accepted wherever a key is.
    operators: Vec<String>,
}

impl std::fmt::Debug for ApiKeys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "ApiKeys({} keys, {} operator)",
            self.keys.len(),
            self.operators.len()
        )
    }
}

/// How a key is named where it may be seen (logs, traces, the learn file,
/// followers): `key-` and the first 8 bytes of its SHA-256, never the key.
/// `None` for the empty scope of a server without keys.
pub fn digest(key: &str) -> Option<String> {
    if key.is_empty() {
        return None;
    }
    use sha2::Digest;
    let d = sha2::Sha256::digest(key.as_bytes());
    Some(format!(
        "key-{}",
        d[..8]
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect::<String>()
    ))
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
        Ok(ApiKeys {
            keys,
            operators: Vec::new(),
        })
    }

    /// Keys given directly (tests, embedding).
    pub fn new(keys: Vec<String>) -> ApiKeys {
        ApiKeys {
            keys,
            operators: Vec::new(),
        }
    }

    /// These keys and `more` (the gateway's named keys).
    pub fn with_keys(mut self, more: Vec<String>) -> ApiKeys {
        self.keys.extend(more);
        self
    }

    /// These keys and `operators`, which also follow every key's traffic.
    pub fn with_operators(mut self, operators: ApiKeys) -> ApiKeys {
        self.operators.extend(operators.keys);
        self
    }

    pub fn is_empty(&self) -> bool {
        self.keys.is_empty() && self.operators.is_empty()
    }

    /// Whether `key` (as [`ApiKeys::check`] returned it) is an operator's.
    pub fn is_operator(&self, key: &str) -> bool {
        let mut found = false;
        for op in &self.operators {
            found |= bool::from(op.as_bytes().ct_eq(key.as_bytes()));
        }
        found
    }

    /// The key an `authorization` header value proves, if any. With no keys
    /// configured every request passes, unscoped (`Some("")`).
    pub fn check(&self, authorization: Option<&[u8]>) -> Option<&str> {
        if self.is_empty() {
            return Some("");
        }
        let presented = bearer_token(authorization?)?;
        // Compare against every key, without stopping at a match.
        let mut found = None;
        for key in self.keys.iter().chain(&self.operators) {
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
        // An operator's key is accepted, and known as one.
        let both = keys.with_operators(ApiKeys::new(vec!["op-key".into()]));
        assert_eq!(both.check(Some(b"Bearer op-key")), Some("op-key"));
        assert!(both.is_operator("op-key") && !both.is_operator("beta"));
        assert_eq!(digest(""), None);
        let d = digest("alpha-key").unwrap();
        assert!(d.starts_with("key-") && d.len() == 20 && !d.contains("alpha"));
    }
}
