//! The SDK's error texts as a user reads them: rmcp names a failing
//! transport by its Rust type (`Transport [rmcp::transport::worker::
//! WorkerTransport<…reqwest…>] error: …`); the type says nothing to a user
//! and is taken out, the error itself kept.

/// `text` without the Rust type names the SDK puts in its messages.
pub fn plain(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find('[') {
        let Some(close) = matching(&rest[open..], '[', ']') else {
            break;
        };
        let inner = &rest[open + 1..open + close];
        out.push_str(&rest[..open]);
        if !is_type_name(inner) {
            out.push_str(&rest[open..=open + close]);
        }
        rest = &rest[open + close + 1..];
    }
    out.push_str(rest);
    // "Transport  error:" once the type is gone.
    out.replace("Transport  error: ", "transport error: ")
        .replace("expected struct ", "expected ")
}

/// Where the bracket that closes the one `text` starts with is.
fn matching(text: &str, open: char, close: char) -> Option<usize> {
    let mut depth = 0usize;
    for (at, c) in text.char_indices() {
        if c == open {
            depth += 1;
        } else if c == close {
            depth -= 1;
            if depth == 0 {
                return Some(at);
            }
        }
    }
    None
}

/// A Rust path: words joined by `::`, maybe with generics.
fn is_type_name(text: &str) -> bool {
    text.contains("::")
        && !text.contains(' ')
        && text
            .chars()
            .all(|c| c.is_alphanumeric() || "_:<>,&'".contains(c))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn type_names_go_and_the_error_stays() {
        let e = "Transport [rmcp::transport::worker::WorkerTransport<rmcp::transport::streamable_http_client::StreamableHttpClientWorker<reqwest::async_impl::client::Client>>] error: Client error: error sending request for url (http://127.0.0.1:9/mcp)";
        assert_eq!(
            plain(e),
            "transport error: Client error: error sending request for url (http://127.0.0.1:9/mcp)"
        );
        assert_eq!(plain("a [note] stays [x::y z]"), "a [note] stays [x::y z]");
        assert_eq!(
            plain("invalid type: string \"x\", expected struct ServerEntry"),
            "invalid type: string \"x\", expected ServerEntry"
        );
    }
}
