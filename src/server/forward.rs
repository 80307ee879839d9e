//! Where a passed-through call goes: the path after the provider's prefix,
//! kept under the upstream's base.
//!
//! The upstream's base URL may carry a path (`https://gw/tenant-a/openai`),
//! and the operator's key goes with every call, so a forwarded path must not
//! climb out of it: a dot segment (`..`, `.`, in any spelling `%2e`, `%2E`,
//! `.%2e`), an encoded slash or backslash (`%2F`, `%5C`, which a proxy may
//! read as a separator), a backslash, an encoded control character or a
//! broken percent-escape refuses the request (400) before anything is sent.
//! With those refused, the path the router chose the provider by is the
//! normalised one. The URL built is checked once more against the base.

use super::Upstream;

/// Why `rest` (the path after the provider's prefix) cannot be forwarded.
pub(crate) fn check_path(rest: &str) -> Result<(), &'static str> {
    if rest.contains('\\') {
        return Err("a backslash");
    }
    for segment in rest.split('/') {
        let decoded = percent_decode(segment).ok_or("a broken percent-escape")?;
        if decoded.contains(&b'/') {
            return Err("an encoded slash (%2F)");
        }
        if decoded.contains(&b'\\') {
            return Err("an encoded backslash (%5C)");
        }
        if decoded.iter().any(|b| *b < 0x20 || *b == 0x7f) {
            return Err("an encoded control character");
        }
        if decoded == b"." || decoded == b".." {
            return Err("a dot segment (. or ..)");
        }
    }
    Ok(())
}

/// The upstream URL of `rest` (checked by [`check_path`]) and `query`; None
/// when the URL would not stay under the upstream's base.
pub(crate) fn upstream_url(upstream: &Upstream, rest: &str, query: Option<&str>) -> Option<String> {
    let mut url = format!("{}{rest}", upstream.base);
    if let Some(q) = query {
        url.push('?');
        url.push_str(q);
    }
    let base = reqwest::Url::parse(&upstream.base).ok()?;
    let built = reqwest::Url::parse(&url).ok()?;
    let base_path = base.path().trim_end_matches('/');
    let path = built.path();
    let under = path == base_path
        || path
            .strip_prefix(base_path)
            .is_some_and(|r| r.starts_with('/'))
        || (base_path.is_empty() && path == "/");
    let same_origin = built.scheme() == base.scheme()
        && built.host_str() == base.host_str()
        && built.port_or_known_default() == base.port_or_known_default();
    (under && same_origin && built.fragment().is_none()).then_some(url)
}

/// `text` with its percent-escapes decoded; None for a broken one.
fn percent_decode(text: &str) -> Option<Vec<u8>> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = text.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn climbing_paths_are_refused_in_every_spelling() {
        for bad in [
            "/..",
            "/../admin",
            "/%2e%2e/%2e%2e/admin",
            "/%2E%2E/admin",
            "/.%2e/admin",
            "/%2e./admin",
            "/./models",
            "/%2e/models",
            "/..\\..\\admin",
            "/models%2f..%2f..%2fadmin",
            "/models%2F..",
            "/models%5c..",
            "/models%00",
            "/models%0a",
            "/models%zz",
            "/models%2",
        ] {
            assert!(check_path(bad).is_err(), "{bad}");
        }
        for good in [
            "",
            "/",
            "/models",
            "/chat/completions",
            "/files/file-abc/content",
            "/v1/messages",
            "/models/gpt-4o%20mini",
            "/a..b/c.d/...",
            "/x%41y",
        ] {
            assert_eq!(check_path(good), Ok(()), "{good}");
        }
    }

    #[test]
    fn urls_stay_under_the_base() {
        let up = Upstream::new("http://127.0.0.1:9/tenant-a/openai/v1", None).unwrap();
        assert_eq!(
            upstream_url(&up, "/models", Some("a=1")).as_deref(),
            Some("http://127.0.0.1:9/tenant-a/openai/v1/models?a=1")
        );
        assert_eq!(
            upstream_url(&up, "", None).as_deref(),
            Some("http://127.0.0.1:9/tenant-a/openai/v1")
        );
        // What check_path refuses never gets this far; the URL check holds
        // even so.
        assert_eq!(upstream_url(&up, "/../../admin", None), None);
        assert_eq!(upstream_url(&up, "/%2e%2e/%2e%2e/admin", None), None);
        let root = Upstream::new("http://127.0.0.1:9", None).unwrap();
        assert!(upstream_url(&root, "/v1/messages", None).is_some());
        // Another host is never reached, whatever follows the base.
        assert_eq!(upstream_url(&root, "@evil.example/x", None), None);
        assert_eq!(upstream_url(&root, ".evil.example/x", None), None);
    }
}
