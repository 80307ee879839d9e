//! Where logins are kept, as [`STORE_VAR`] says: the keyring, the file, or
//! either.

/// The variable that picks where logins are kept: `file` or `keyring`.
pub const STORE_VAR: &str = "TOOLSIFT_TOKEN_STORE";

/// Where logins go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Choice {
    /// The keyring, else the file when there is no keyring.
    Either,
    Keyring,
    File,
}

/// A value of [`STORE_VAR`] that names no store.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{STORE_VAR}={0:?}: expected \"keyring\" or \"file\"")]
pub struct UnknownStore(pub String);

/// Where [`STORE_VAR`] says logins go.
pub(super) fn choice() -> Result<Choice, UnknownStore> {
    match std::env::var(STORE_VAR).as_deref() {
        Err(_) | Ok("") => Ok(Choice::Either),
        Ok("keyring") => Ok(Choice::Keyring),
        Ok("file") => Ok(Choice::File),
        Ok(other) => Err(UnknownStore(other.to_string())),
    }
}
