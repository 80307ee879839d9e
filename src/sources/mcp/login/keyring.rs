//! The OS keyring's side of the login store: one entry per server, asked
//! off the async runtime and given at most [`KEYRING_WAIT`] to answer.

use std::time::Duration;

/// The keyring's service name for toolsift's logins.
const SERVICE: &str = "toolsift";
/// The longest a keyring gets to answer (a Secret Service that hangs).
const KEYRING_WAIT: Duration = Duration::from_secs(5);

/// Why the OS keyring could not be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeyringError {
    /// The keyring's own error, or its task's.
    #[error("the OS keyring: {0}")]
    Failed(String),
    /// No answer within the wait (seconds).
    #[error("the OS keyring did not answer within {0} s")]
    TimedOut(u64),
}

/// Runs `op` on a blocking thread, at most [`KEYRING_WAIT`].
async fn keyring_op<T: Send + 'static>(
    op: impl FnOnce() -> Result<T, keyring::Error> + Send + 'static,
) -> Result<T, KeyringError> {
    match tokio::time::timeout(KEYRING_WAIT, tokio::task::spawn_blocking(op)).await {
        Ok(Ok(Ok(v))) => Ok(v),
        Ok(Ok(Err(e))) => Err(KeyringError::Failed(e.to_string())),
        Ok(Err(e)) => Err(KeyringError::Failed(e.to_string())),
        Err(_) => Err(KeyringError::TimedOut(KEYRING_WAIT.as_secs())),
    }
}

/// The text kept for `account` (none: nothing kept).
pub(super) async fn keyring_get(account: String) -> Result<Option<String>, KeyringError> {
    keyring_op(move || match keyring::Entry::new(SERVICE, &account)?.get_password() {
        Ok(text) => Ok(Some(text)),
        Err(keyring::Error::NoEntry) => Ok(None),
        Err(e) => Err(e),
    })
    .await
}

/// Keeps `text` for `account`.
pub(super) async fn keyring_set(account: String, text: String) -> Result<(), KeyringError> {
    keyring_op(move || keyring::Entry::new(SERVICE, &account)?.set_password(&text)).await
}

/// Forgets what is kept for `account`; says whether something was.
pub(super) async fn keyring_delete(account: String) -> Result<bool, KeyringError> {
    keyring_op(move || match keyring::Entry::new(SERVICE, &account)?.delete_credential() {
        Ok(()) => Ok(true),
        Err(keyring::Error::NoEntry) => Ok(false),
        Err(e) => Err(e),
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_keyring_that_does_not_answer_says_how_long_it_was_given() {
        assert_eq!(
            KeyringError::TimedOut(KEYRING_WAIT.as_secs()).to_string(),
            "the OS keyring did not answer within 5 s"
        );
    }
}
