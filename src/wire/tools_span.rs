//! Where a request's `tools` value starts, found without a pass over it:
//! only the members before it are stepped over (a query, a session id:
//! a few bytes), so a repeated catalog can be recognised by comparing its
//! bytes with a catalog already parsed, and the rest of the body parsed on
//! its own ([`without_tools`]).
//!
//! Nothing here validates: a body it misreads is simply not recognised,
//! and the full parse, which reports every error, reads it instead.

/// The offset in `body` of the value of the top-level member named
/// exactly `tools` (written without escapes), if the body is an object
/// that has one.
pub fn tools_value_start(body: &[u8]) -> Option<usize> {
    let mut at = skip_ws(body, 0);
    if body.get(at) != Some(&b'{') {
        return None;
    }
    at += 1;
    loop {
        at = skip_ws(body, at);
        if body.get(at) != Some(&b'"') {
            return None;
        }
        let key_end = string_end(body, at + 1)?;
        let key = &body[at + 1..key_end - 1];
        at = skip_ws(body, key_end);
        if body.get(at) != Some(&b':') {
            return None;
        }
        at = skip_ws(body, at + 1);
        if key == b"tools" {
            return Some(at);
        }
        at = skip_ws(body, value_end(body, at)?);
        match body.get(at) {
            Some(b',') => at += 1,
            _ => return None,
        }
    }
}

/// `body` with the `len` bytes of the value at `start` replaced by `[]`.
pub fn without_tools(body: &[u8], start: usize, len: usize) -> Vec<u8> {
    let mut rest = Vec::with_capacity(body.len() - len + 2);
    rest.extend_from_slice(&body[..start]);
    rest.extend_from_slice(b"[]");
    rest.extend_from_slice(&body[start + len..]);
    rest
}

fn skip_ws(body: &[u8], mut at: usize) -> usize {
    while matches!(body.get(at), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        at += 1;
    }
    at
}

/// The offset after the closing quote of the string whose content starts
/// at `at`.
fn string_end(body: &[u8], mut at: usize) -> Option<usize> {
    loop {
        at += memchr::memchr2(b'"', b'\\', body.get(at..)?)?;
        if body[at] == b'\\' {
            at += 2;
        } else {
            return Some(at + 1);
        }
    }
}

/// The offset after the value starting at `at`.
fn value_end(body: &[u8], at: usize) -> Option<usize> {
    match body.get(at)? {
        b'"' => string_end(body, at + 1),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut i = at;
            loop {
                match body.get(i)? {
                    b'"' => {
                        i = string_end(body, i + 1)?;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(i + 1);
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
        }
        _ => {
            let mut i = at;
            while !matches!(
                body.get(i),
                None | Some(b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r')
            ) {
                i += 1;
            }
            (i > at).then_some(i)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn finds_the_tools_after_any_members() {
        let body = br#" { "query" : "a \"tools\": [1]", "n": -1.5e3, "x": {"tools": [[]]}, "ok": true, "tools" :  [{"name":"a"}] , "z": null}"#;
        let at = tools_value_start(body).unwrap();
        assert!(body[at..].starts_with(br#"[{"name":"a"}]"#));
        let rest = without_tools(body, at, br#"[{"name":"a"}]"#.len());
        let v: serde_json::Value = serde_json::from_slice(&rest).unwrap();
        assert_eq!(v["tools"], serde_json::json!([]));
        assert_eq!(v["query"], "a \"tools\": [1]");
    }

    #[test]
    fn what_it_cannot_read_is_not_found() {
        for body in [
            &b"[]"[..],
            b"{}",
            b"{\"query\": \"q\"}",
            b"{\"tool\\u0073\": []}",
            b"{\"query\": \"unterminated",
            b"{\"a\" 1, \"tools\": []}",
            b"{\"a\": [1, \"tools\": []}",
            b"",
        ] {
            assert_eq!(
                tools_value_start(body),
                None,
                "{}",
                String::from_utf8_lossy(body)
            );
        }
    }

    proptest! {
        /// Wherever serde_json finds the member, this finds the same
        /// offset, whatever comes before it.
        #[test]
        fn agrees_with_serde(
            before in proptest::collection::vec(("[a-z\"\\\\ ]{0,6}", any::<i32>(), "[a-z\"\\\\]{0,6}"), 0..4),
            ws in "[ \n\t]{0,2}",
        ) {
            let mut o = serde_json::Map::new();
            for (k, n, s) in &before {
                o.insert(format!("k{k}"), serde_json::json!([n, s, {"tools": s}]));
            }
            let mut body = serde_json::to_string(&o).unwrap();
            body.pop();
            if !o.is_empty() {
                body.push(',');
            }
            let tools = r#"[{"name":"t\"x"}]"#;
            body.push_str(&format!("{ws}\"tools\":{ws}{tools}{ws}}}"));
            let at = tools_value_start(body.as_bytes()).unwrap();
            prop_assert_eq!(&body[at..at + tools.len()], tools);
        }
    }
}
