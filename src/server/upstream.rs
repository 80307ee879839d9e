//! The providers a call can be passed through to, and where each one's
//! calls go.

pub use crate::provider::Provider;

/// One provider's upstream: a base URL and, optionally, the key to send.
#[derive(Clone, PartialEq, Eq)]
pub struct Upstream {
    /// Without a trailing slash.
    pub base: String,
    pub key: Option<String>,
}

impl std::fmt::Debug for Upstream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Upstream")
            .field("base", &self.base)
            .field("key", &self.key.as_ref().map(|_| "***"))
            .finish()
    }
}

/// An upstream URL the pass-through cannot use, and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{url:?}: {why}")]
pub struct UpstreamError {
    pub url: String,
    pub why: String,
}

impl Upstream {
    /// An upstream at `url` (http or https, no query or fragment).
    pub fn new(url: &str, key: Option<String>) -> Result<Upstream, UpstreamError> {
        let refused = |why| UpstreamError {
            url: url.to_string(),
            why,
        };
        let parsed = reqwest::Url::parse(url).map_err(|e| refused(e.to_string()))?;
        if !matches!(parsed.scheme(), "http" | "https") {
            return Err(refused("the upstream must be an http or https URL".into()));
        }
        if parsed.query().is_some() || parsed.fragment().is_some() {
            return Err(refused(
                "the upstream is a base URL, without a query or fragment".into(),
            ));
        }
        if !parsed.username().is_empty() || parsed.password().is_some() {
            return Err(refused(
                "put no credentials in the upstream URL; use --upstream-key-env".into(),
            ));
        }
        Ok(Upstream {
            base: url.trim_end_matches('/').to_string(),
            key,
        })
    }
}

/// The upstream of each provider; `None` is one not configured (501).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Upstreams {
    pub openai: Option<Upstream>,
    pub anthropic: Option<Upstream>,
}

impl Default for Upstreams {
    fn default() -> Self {
        let public = |p: Provider| {
            Some(Upstream {
                base: p.api_base().to_string(),
                key: None,
            })
        };
        Upstreams {
            openai: public(Provider::Openai),
            anthropic: public(Provider::Anthropic),
        }
    }
}

impl Upstreams {
    pub fn get(&self, p: Provider) -> Option<&Upstream> {
        match p {
            Provider::Openai => self.openai.as_ref(),
            Provider::Anthropic => self.anthropic.as_ref(),
        }
    }

    pub fn get_mut(&mut self, p: Provider) -> &mut Option<Upstream> {
        match p {
            Provider::Openai => &mut self.openai,
            Provider::Anthropic => &mut self.anthropic,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn upstream_urls() {
        assert_eq!(
            Upstream::new("http://h:1/v1/", None).unwrap().base,
            "http://h:1/v1"
        );
        assert!(Upstream::new("ftp://h", None).is_err());
        assert!(Upstream::new("http://u:p@h", None).is_err());
        assert!(Upstream::new("http://h?x=1", None).is_err());
        assert!(Upstream::new("not a url", None).is_err());
        let d = format!(
            "{:?}",
            Upstream::new("http://h", Some("secret".into())).unwrap()
        );
        assert!(!d.contains("secret"), "{d}");
    }
}
