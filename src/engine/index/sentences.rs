//! How a request's text is cut before its words are looked up: into
//! sentences (each ranked with its own terms when there are enough), and
//! the URLs and file names in them, which stand for tool words no request
//! spells ("url", "file").

/// How many sentences `text` has, as BM25F splits a message.
pub fn sentence_count(text: &str) -> usize {
    split_sentences(text)
        .filter(|s| !s.trim().is_empty())
        .count()
}

/// Sentences of a message: split after `.`, `?`, `!` or `;` followed by white
/// space, and at line breaks. (`3.5` and `v1.2` stay whole.)
pub(super) fn split_sentences(text: &str) -> impl Iterator<Item = &str> {
    let bytes = text.as_bytes();
    let mut start = 0;
    let mut i = 0;
    std::iter::from_fn(move || {
        while i < bytes.len() {
            let b = bytes[i];
            i += 1;
            let end_mark = matches!(b, b'.' | b'?' | b'!' | b';')
                && bytes.get(i).is_none_or(|c| c.is_ascii_whitespace());
            if end_mark || b == b'\n' {
                let piece = &text[start..i];
                start = i;
                return Some(piece);
            }
        }
        if start < bytes.len() {
            let piece = &text[start..];
            start = bytes.len();
            return Some(piece);
        }
        None
    })
    .filter(|s| !s.trim().is_empty())
}

/// The words a sentence's URLs and file names stand for: each such token
/// (cut at white space, without the punctuation around it) with the tool
/// words to look for.
pub(super) fn shapes(sentence: &str) -> impl Iterator<Item = (&str, &'static [&'static str])> {
    const URL: &[&str] = &["url", "link", "web"];
    const FILE: &[&str] = &["file", "path"];
    sentence.split_whitespace().filter_map(|raw| {
        let token = raw.trim_matches(|c: char| !c.is_alphanumeric() && c != '/');
        let lower = token.to_ascii_lowercase();
        if lower.starts_with("http://")
            || lower.starts_with("https://")
            || lower.starts_with("www.")
        {
            return Some((token, URL));
        }
        // name.ext: an extension of two to five letters (and digits after
        // one), a name that is not only digits (3.5 is a number, e.g. an
        // abbreviation).
        let (name, ext) = token.rsplit_once('.')?;
        let ext_ok = (2..=5).contains(&ext.len())
            && ext.bytes().next().is_some_and(|b| b.is_ascii_alphabetic())
            && ext.bytes().all(|b| b.is_ascii_alphanumeric());
        let name_ok = !name.is_empty() && !name.bytes().all(|b| b.is_ascii_digit() || b == b'.');
        (ext_ok && name_ok).then_some((token, FILE))
    })
}

#[cfg(test)]
mod tests {
    use super::shapes;

    #[test]
    fn urls_and_file_names_stand_for_their_tool_words() {
        let found: Vec<(&str, &str)> = shapes(
            "fetch https://example.com/a, then save to todo.md and (notes.txt). Not 3.5 or v1.2 or e.g.",
        )
        .map(|(t, k)| (t, k[0]))
        .collect();
        assert_eq!(
            found,
            [
                ("https://example.com/a", "url"),
                ("todo.md", "file"),
                ("notes.txt", "file"),
            ]
        );
        assert_eq!(shapes("www.rust-lang.org").count(), 1);
        assert_eq!(shapes("no shapes here").count(), 0);
    }
}
