//! Why a source cannot be followed, or its catalog not read: typed, each
//! with the address or flag it is about, said here once.

use std::sync::Arc;

use crate::catalog::CatalogError;

#[derive(Debug, Clone, thiserror::Error)]
pub enum FollowError {
    /// `--follow` given nothing.
    #[error("--follow needs an address or a trace file")]
    Nothing,
    /// `--follow` given an `http(s)://` text that is not an address.
    #[error("--follow {given:?}: not an address: {why}")]
    NotAnAddress { given: String, why: String },
    /// An events stream's address that is not one.
    #[error("{url}: not an address: {why}")]
    BadEventsUrl { url: String, why: String },
    /// No HTTP client could be made (the TLS roots, say).
    #[error("cannot make an HTTP client: {0}")]
    Client(String),
    /// The catalog's address could not be reached, or its answer read.
    #[error("{url}: {why}")]
    Unreachable { url: String, why: String },
    /// 401: the gateway wants its key.
    #[error("{url}: 401 unauthorized: give the gateway's API key (--follow-key-env NAME)")]
    Unauthorized { url: String },
    /// 404: the far side serves no catalog.
    #[error(
        "{url}: 404: the far side serves no catalog (a toolsift service holds none of its own; an older gateway)"
    )]
    NoCatalog { url: String },
    /// Any other status.
    #[error("{url}: HTTP {status}")]
    Status { url: String, status: String },
    /// An answer over the bytes a catalog may take.
    #[error("{url}: the answer is over {most} bytes")]
    TooLarge { url: String, most: usize },
    /// An answer that is not JSON.
    #[error("{origin}: not JSON: {why}")]
    NotJson { origin: String, why: String },
    /// An answer that is not a valid catalog.
    #[error(transparent)]
    Catalog(Arc<CatalogError>),
}

impl From<CatalogError> for FollowError {
    fn from(e: CatalogError) -> FollowError {
        FollowError::Catalog(Arc::new(e))
    }
}
