//! A request's catalog as the service parsed it, beside its exact text:
//! what the parsed-catalog cache holds, and what a body arriving is
//! recognised against ([`super::recognise`]) before it is read whole
//! ([`super::json`]).

use std::sync::Arc;

use crate::catalog::Catalog;

/// A request catalog as parsed, and its exact text.
#[derive(Clone)]
pub(crate) struct Parsed {
    text: Arc<[u8]>,
    catalog: Arc<Catalog>,
}

impl Parsed {
    /// `catalog`, parsed from `text`.
    pub(crate) fn new(text: &str, catalog: Arc<Catalog>) -> Parsed {
        Parsed {
            text: Arc::from(text.as_bytes()),
            catalog,
        }
    }

    /// The catalog's exact JSON text.
    pub(crate) fn text(&self) -> &[u8] {
        &self.text
    }

    pub(crate) fn catalog(&self) -> &Arc<Catalog> {
        &self.catalog
    }

    /// Which catalog this is (both catalog caches may hold it).
    pub(crate) fn catalog_ptr(&self) -> *const Catalog {
        Arc::as_ptr(&self.catalog)
    }
}
