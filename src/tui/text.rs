//! Text made to fit the screen: lines wrapped at word boundaries with a
//! hanging indent, words kept whole (the one before an ellipsis aside),
//! numbers shortened as numbers, never cut, and counts with their noun.
//! Every width here is in terminal columns.

use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

use crate::numbers::thousands;

mod wrap;
pub use wrap::{wrap, wrap_hanging};

/// Columns `text` takes.
pub fn width(text: &str) -> usize {
    UnicodeWidthStr::width(text)
}

/// `n` and its noun: `1 tool`, `2 tools`.
pub fn count(n: impl Into<u64>, one: &str, many: &str) -> String {
    let n = n.into();
    format!("{} {}", thousands(n), if n == 1 { one } else { many })
}

/// `n` as a person reads it in `max` columns: `10,445`, else `10.4k`,
/// `1.48M`, `3.2G`: shortened, never cut.
pub fn number(n: u64, max: usize) -> String {
    let full = thousands(n);
    if full.len() <= max {
        return full;
    }
    short_number(n)
}

/// `n` in at most five columns (three significant digits): `999`, `10.4k`,
/// `1.48M`.
pub fn short_number(n: u64) -> String {
    if n < 1_000 {
        return n.to_string();
    }
    let units = [("k", 1e3), ("M", 1e6), ("G", 1e9), ("T", 1e12), ("P", 1e15)];
    let x = n as f64;
    for (i, (unit, scale)) in units.iter().enumerate() {
        let v = x / scale;
        // Rounding may carry into the next unit (999.9k is 1.00M).
        let text = if v < 9.995 {
            format!("{v:.2}")
        } else if v < 99.95 {
            format!("{v:.1}")
        } else {
            format!("{v:.0}")
        };
        if text.len() <= 4 && (v < 999.5 || i == units.len() - 1) {
            return format!("{text}{unit}");
        }
    }
    format!("{:.0}E", x / 1e18)
}

/// `text` in at most `max` columns, cut at a word boundary with an
/// ellipsis (a single word longer than the room is cut before the
/// ellipsis). Whole when it fits.
pub fn fit_words(text: &str, max: usize) -> String {
    if width(text) <= max {
        return text.to_string();
    }
    if max == 0 {
        return String::new();
    }
    let mut out = String::new();
    for word in text.split(' ') {
        let sep = usize::from(!out.is_empty());
        if width(&out) + sep + width(word) + 1 > max {
            break;
        }
        if sep == 1 {
            out.push(' ');
        }
        out.push_str(word);
    }
    if out.is_empty() {
        return cut(text, max);
    }
    let trimmed = out.trim_end_matches([',', ';', ':', '·', ' ']).to_string();
    format!("{trimmed}…")
}

/// Segments joined with " · ", leaving out whole segments from the end
/// until the line fits `width` (a line shortens, never cut mid-word).
pub fn fit_segments(segments: &[String], width: usize) -> String {
    let mut n = segments.len();
    loop {
        let line = segments[..n].join(" · ");
        if line.chars().count() <= width {
            return line;
        }
        if n <= 1 {
            // One segment wider than the line: cut at a word, with "…".
            return fit_words(&line, width);
        }
        n -= 1;
    }
}

/// `text` cut to at most `max` columns with an ellipsis (names: the cut is
/// marked, and the whole name is in the detail).
pub fn cut(text: &str, max: usize) -> String {
    if width(text) <= max {
        return text.to_string();
    }
    let mut out = String::new();
    let mut w = 0;
    for c in text.chars() {
        let cw = c.width().unwrap_or(0);
        if w + cw + 1 > max {
            break;
        }
        w += cw;
        out.push(c);
    }
    if max > 0 {
        out.push('…');
    }
    out
}

/// `text` cut in its middle to `max` columns: its start and its end
/// around "…" (`add_pull_req…_comment`).
pub fn cut_middle(text: &str, max: usize) -> String {
    if width(text) <= max || max < 3 {
        return cut(text, max);
    }
    let room = max - 1;
    let (head_room, tail_room) = (room.div_ceil(2), room / 2);
    let mut head = String::new();
    let mut w = 0;
    for c in text.chars() {
        let cw = c.width().unwrap_or(0);
        if w + cw > head_room {
            break;
        }
        w += cw;
        head.push(c);
    }
    let mut tail: Vec<char> = Vec::new();
    let mut w = 0;
    for c in text.chars().rev() {
        let cw = c.width().unwrap_or(0);
        if w + cw > tail_room {
            break;
        }
        w += cw;
        tail.push(c);
    }
    head.push('…');
    head.extend(tail.into_iter().rev());
    head
}

/// `names` cut to `max` columns and kept apart: a name whose end-cut
/// reads like another's is cut in its middle instead ([`cut_middle`]), so
/// two tools shown together never read the same.
pub fn cut_apart(names: &[String], max: usize) -> Vec<String> {
    let ends: Vec<String> = names.iter().map(|n| cut(n, max)).collect();
    ends.iter()
        .enumerate()
        .map(|(i, e)| {
            let clash = ends
                .iter()
                .enumerate()
                .any(|(j, other)| j != i && other == e && names[j] != names[i]);
            if clash {
                cut_middle(&names[i], max)
            } else {
                e.clone()
            }
        })
        .collect()
}

/// A search's time as the explorer shows it: `18.14 ms`, or `1.25 ms
/// (query cached)` when a dense ranker found the query's vector in memory
/// (the same query, embedded once, is that much quicker the second time).
pub fn search_time(elapsed: std::time::Duration, query_cached: bool) -> String {
    let ms = format!("{:.2} ms", elapsed.as_secs_f64() * 1000.0);
    if query_cached {
        format!("{ms} (query cached)")
    } else {
        ms
    }
}

/// `text` cut (as [`cut`]) and padded to exactly `max` columns.
pub fn pad(text: &str, max: usize) -> String {
    let mut out = cut(text, max);
    let w = width(&out);
    out.extend(std::iter::repeat_n(' ', max.saturating_sub(w)));
    out
}

/// `text` in lines of at most `width` characters, broken between words (a
/// word longer than a line is cut), at most `max_lines` of them; when text
/// is left over, the last line ends with an ellipsis.
/// The words of `text`, a lone separator (`·`) put with the word after
/// it: a wrapped line never ends in one.
fn glue_separators(text: &str) -> Vec<String> {
    let mut words: Vec<String> = Vec::new();
    let mut dot = false;
    for word in text.split_whitespace() {
        if word == "·" {
            dot = true;
            continue;
        }
        words.push(if std::mem::take(&mut dot) {
            format!("· {word}")
        } else {
            word.to_string()
        });
    }
    if dot {
        words.push("·".into());
    }
    words
}

pub fn wrap_words(text: &str, width: usize, max_lines: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut current = String::new();
    for word in glue_separators(text) {
        let word: String = word.chars().take(width).collect();
        let len = current.chars().count();
        if len > 0 && len + 1 + word.chars().count() > width {
            lines.push(std::mem::take(&mut current));
        }
        if !current.is_empty() {
            current.push(' ');
        }
        current.push_str(&word);
    }
    if !current.is_empty() {
        lines.push(current);
    }
    if lines.len() > max_lines {
        lines.truncate(max_lines.max(1));
        if let Some(last) = lines.last_mut() {
            // Room for the ellipsis: whole words go first; a lone word is
            // cut.
            while last.chars().count() + 1 > width {
                match last.rfind(' ') {
                    Some(at) if at > 0 => last.truncate(at),
                    _ => {
                        last.pop();
                    }
                }
            }
            last.push('…');
        }
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wrapped_line_never_ends_in_a_separator() {
        let text = "search “list the pull requests” → list_pull_requests · bm25 · 0.6 ms · Enter searches the request again";
        for width in 10..80 {
            for line in wrap_words(text, width, usize::MAX) {
                assert!(!line.ends_with(" ·"), "{width}: {line:?}");
            }
        }
        assert_eq!(wrap_words("a · b", 80, 1), ["a · b"]);
    }

    #[test]
    fn numbers_shorten_as_numbers() {
        assert_eq!(number(10_445, 6), "10,445");
        assert_eq!(number(10_445, 5), "10.4k");
        assert_eq!(number(1_478_123, 8), "1.48M");
        assert_eq!(short_number(999), "999");
        assert_eq!(short_number(1_000), "1.00k");
        assert_eq!(short_number(999_999), "1.00M");
        assert_eq!(short_number(99_960), "100k");
        assert_eq!(short_number(123_456_789), "123M");
        assert!(short_number(u64::MAX).len() <= 5);
    }

    #[test]
    fn counts_agree_with_their_noun() {
        assert_eq!(count(1u64, "tool", "tools"), "1 tool");
        assert_eq!(count(0u64, "tool", "tools"), "0 tools");
        assert_eq!(count(1200u64, "call", "calls"), "1,200 calls");
    }

    #[test]
    fn words_stay_whole_before_the_ellipsis() {
        assert_eq!(fit_words("nothing fits here", 40), "nothing fits here");
        assert_eq!(fit_words("nothing fits here", 14), "nothing fits…");
        assert_eq!(fit_words("nothing fits here", 10), "nothing…");
        assert_eq!(fit_words("extraordinary", 6), "extra…");
        assert_eq!(cut("search_knowledge_base", 10), "search_kn…");
        assert_eq!(pad("ab", 4), "ab  ");
    }

    #[test]
    fn a_search_time_says_when_no_embedding_is_in_it() {
        let t = std::time::Duration::from_micros(18_140);
        assert_eq!(super::search_time(t, false), "18.14 ms");
        assert_eq!(super::search_time(t, true), "18.14 ms (query cached)");
    }

    #[test]
    fn lines_shorten_by_whole_segments() {
        let s: Vec<String> = ["cap 8", "83.3% all loaded", "saves 71.2%"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(
            fit_segments(&s, 80),
            "cap 8 · 83.3% all loaded · saves 71.2%"
        );
        assert_eq!(fit_segments(&s, 30), "cap 8 · 83.3% all loaded");
        assert_eq!(fit_segments(&s, 30), "cap 8 · 83.3% all loaded");
        // One segment too wide is cut at a word, never mid-word unmarked.
        let one = vec!["initial set: asked 8, in force 2".to_string()];
        assert_eq!(fit_segments(&one, 24), "initial set: asked 8…");
    }
}

#[cfg(test)]
mod cut_apart_tests {
    use super::{cut_apart, cut_middle};

    #[test]
    fn names_that_cut_alike_are_cut_in_the_middle() {
        let names = [
            "add_pull_request_review_comment".to_string(),
            "add_pull_request_review_comment_to_pending".to_string(),
            "add_issue_comment".to_string(),
        ];
        let cut = cut_apart(&names, 22);
        assert_eq!(cut[0], "add_pull_re…ew_comment");
        assert_eq!(cut[1], "add_pull_re…to_pending");
        assert_eq!(cut[2], "add_issue_comment");
        assert!(cut.iter().all(|c| super::width(c) <= 22));
        assert_eq!(cut_middle("short", 22), "short");
        // The same name twice is the same tool's: no need to tell apart.
        let same = ["abcdefghij".to_string(), "abcdefghij".to_string()];
        assert_eq!(cut_apart(&same, 5), ["abcd…", "abcd…"]);
    }
}

#[cfg(test)]
mod wrap_words_tests {
    use super::wrap_words;

    #[test]
    fn notes_wrap_between_words() {
        let w = wrap_words(
            "note: hybrid: embedding the catalog (64 of 117 tools)",
            20,
            5,
        );
        assert_eq!(
            w,
            [
                "note: hybrid:",
                "embedding the",
                "catalog (64 of 117",
                "tools)"
            ]
        );
        assert!(w.iter().all(|l| l.chars().count() <= 20));
        let w = wrap_words("one two three four five", 9, 1);
        assert_eq!(w, ["one two…"]);
    }
}
