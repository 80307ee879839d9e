//! The SDKs' base-URL rules (docs/wire.md §2): what a service URL may be.

/// A service URL the SDKs would refuse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("service URL {value:?}: {why}")]
pub struct BaseUrlError {
    pub value: String,
    pub why: &'static str,
}

/// No surrounding white space, absolute http(s) with a host, no credentials,
/// query or fragment; trailing `/` stripped.
pub fn normalize_base_url(value: &str) -> Result<String, BaseUrlError> {
    let err = |why| BaseUrlError {
        value: value.to_string(),
        why,
    };
    if value.trim() != value {
        return Err(err("must not have surrounding white space"));
    }
    let url = url::Url::parse(value).map_err(|_| err("must be an absolute http(s) URL"))?;
    if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none_or(str::is_empty) {
        return Err(err("must be an absolute http(s) URL"));
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(err("must not contain credentials"));
    }
    if url.query().is_some() || url.fragment().is_some() {
        return Err(err("must not contain a query or fragment"));
    }
    Ok(value.trim_end_matches('/').to_string())
}
