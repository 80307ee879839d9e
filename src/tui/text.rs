//! Text made to fit the screen: lines wrapped at word boundaries with a
//! hanging indent, words kept whole (the one before an ellipsis aside),
//! numbers shortened as numbers, never cut, and counts with their noun.
//! Every width here is in terminal columns.

use ratatui::style::Style;
use ratatui::text::{Line, Span};
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

use crate::numbers::thousands;

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

/// `lines` wrapped to `max` columns: breaks at spaces, a word longer than a
/// line is split over lines (nothing is lost), and a line that starts with
/// spaces continues under its text, two columns in (JSON and lists read
/// as indented blocks).
pub fn wrap(lines: Vec<Line<'_>>, max: usize) -> Vec<Line<'static>> {
    let max = max.max(1);
    let mut out = Vec::with_capacity(lines.len());
    for line in lines {
        wrap_line(&line, max, None, &mut out);
    }
    out
}

/// `line` wrapped to `max` columns, its later lines indented `hang`
/// columns (a help row continues under its description).
pub fn wrap_hanging(line: Line<'_>, max: usize, hang: usize) -> Vec<Line<'static>> {
    let max = max.max(1);
    let mut out = Vec::new();
    wrap_line(&line, max, Some(hang.min(max / 2)), &mut out);
    out
}

/// One styled character.
type Cell = (char, Style);

/// The columns a deeply indented line keeps for its text.
const MIN_TEXT: usize = 24;

fn wrap_line(line: &Line<'_>, max: usize, hang: Option<usize>, out: &mut Vec<Line<'static>>) {
    let cells: Vec<Cell> = line
        .spans
        .iter()
        .flat_map(|s| {
            let style = line.style.patch(s.style);
            s.content.chars().map(move |c| (c, style))
        })
        .collect();
    if line.width() <= max {
        out.push(to_line(&cells));
        return;
    }
    // A line indented so deep that little room is left (a nested schema in
    // a narrow pane) keeps [`MIN_TEXT`] columns for its text: the indent
    // shrinks rather than the text go to lines of a word each (or a line
    // of spaces alone).
    let lead = cells.iter().take_while(|(c, _)| *c == ' ').count();
    // Its first word whole too, when the pane holds it (an enum string).
    let first_word: usize = cells[lead..]
        .iter()
        .take_while(|(c, _)| *c != ' ')
        .map(|(c, _)| c.width().unwrap_or(0))
        .sum();
    // A first word longer than the pane is split anyway: its indent stays.
    let room = MIN_TEXT.min(max * 2 / 3);
    let room = if first_word <= max {
        room.max(first_word)
    } else {
        room
    };
    let keep = lead.min(max.saturating_sub(room));
    let cells = if keep < lead {
        cells[lead - keep..].to_vec()
    } else {
        cells
    };
    let lead = keep;
    if cells
        .iter()
        .map(|(c, _)| c.width().unwrap_or(0))
        .sum::<usize>()
        <= max
    {
        out.push(to_line(&cells));
        return;
    }
    let hang = hang.unwrap_or(if lead > 0 { (lead + 2).min(max / 2) } else { 0 });
    let mut current: Vec<Cell> = Vec::new();
    let mut w = 0;
    let mut i = 0;
    while i < cells.len() {
        // The next run: spaces, or a word.
        let space = cells[i].0 == ' ';
        let end = cells[i..]
            .iter()
            .position(|(c, _)| (*c == ' ') != space)
            .map_or(cells.len(), |p| i + p);
        let run = &cells[i..end];
        let run_w: usize = run.iter().map(|(c, _)| c.width().unwrap_or(0)).sum();
        i = end;
        if space {
            if w + run_w <= max {
                current.extend_from_slice(run);
                w += run_w;
            } else {
                // Spaces at a break are dropped.
                push_line(out, &mut current, &mut w, hang);
            }
            continue;
        }
        if w + run_w <= max {
            current.extend_from_slice(run);
            w += run_w;
            continue;
        }
        if run_w <= max - hang && w > hang {
            push_line(out, &mut current, &mut w, hang);
            current.extend_from_slice(run);
            w += run_w;
            continue;
        }
        // A word longer than a line: split it over as many as it takes.
        let breaks = word_breaks(run, w, max, hang);
        for (k, &cell) in run.iter().enumerate() {
            if breaks.contains(&k) {
                push_line(out, &mut current, &mut w, hang);
            }
            current.push(cell);
            w += cell.0.width().unwrap_or(0);
        }
    }
    if !current.is_empty() {
        out.push(to_line(trim_end(&current)));
    }
}

/// Where a word too long for a line is split (indices into `run`), the
/// line it starts on already `w` wide: as late as each line allows, but the
/// last piece never closing punctuation alone (a JSON value's `",`).
fn word_breaks(run: &[Cell], mut w: usize, max: usize, hang: usize) -> Vec<usize> {
    let mut breaks: Vec<usize> = Vec::new();
    for (k, (c, _)) in run.iter().enumerate() {
        let cw = c.width().unwrap_or(0);
        if w + cw > max && w > hang {
            breaks.push(k);
            w = hang;
        }
        w += cw;
    }
    let closing = |c: char| matches!(c, ',' | ';' | ':' | '"' | '\'' | ')' | ']' | '}');
    // The last piece takes letters from the one before, never all of them.
    let floor = 1 + breaks.len().checked_sub(2).map_or(0, |i| breaks[i]);
    if let Some(last) = breaks.last_mut() {
        while *last > floor && run[*last..].iter().all(|(c, _)| closing(*c)) {
            *last -= 1;
        }
    }
    breaks
}

/// Ends the line being built and starts the next at the hanging indent.
fn push_line(out: &mut Vec<Line<'static>>, current: &mut Vec<Cell>, w: &mut usize, hang: usize) {
    out.push(to_line(trim_end(current)));
    current.clear();
    current.extend(std::iter::repeat_n((' ', Style::default()), hang));
    *w = hang;
}

fn trim_end(cells: &[Cell]) -> &[Cell] {
    let end = cells
        .iter()
        .rposition(|(c, _)| *c != ' ')
        .map_or(0, |p| p + 1);
    &cells[..end]
}

fn to_line(cells: &[Cell]) -> Line<'static> {
    let mut spans: Vec<Span<'static>> = Vec::new();
    let mut text = String::new();
    let mut style = None;
    for &(c, s) in cells {
        if style.is_some_and(|st| st != s) {
            spans.push(Span::styled(
                std::mem::take(&mut text),
                style.unwrap_or_default(),
            ));
        }
        style = Some(s);
        text.push(c);
    }
    if !text.is_empty() {
        spans.push(Span::styled(text, style.unwrap_or_default()));
    }
    Line::from(spans)
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

    fn texts(lines: &[Line]) -> Vec<String> {
        lines.iter().map(|l| l.to_string()).collect()
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
    fn wrapping_breaks_at_words_and_hangs_indented_lines() {
        let lines = wrap(vec![Line::from("the quick brown fox jumps")], 10);
        assert_eq!(texts(&lines), ["the quick", "brown fox", "jumps"]);
        let lines = wrap(vec![Line::from("  \"k\": \"one two three\"")], 12);
        assert_eq!(texts(&lines), ["  \"k\": \"one", "    two", "    three\""]);
        // A word longer than the line is split, nothing lost.
        let lines = wrap(vec![Line::from("abcdefghijkl")], 5);
        assert_eq!(texts(&lines).concat(), "abcdefghijkl");
        assert!(lines.iter().all(|l| l.width() <= 5));
    }

    #[test]
    fn a_line_indented_deeper_than_the_pane_keeps_room_for_its_text() {
        let deep = format!("{}\"description\": \"Level 3 object\",", " ".repeat(40));
        let out: Vec<String> = wrap(vec![Line::from(deep)], 32)
            .iter()
            .map(|l| l.to_string())
            .collect();
        assert!(out.iter().all(|l| !l.trim().is_empty()), "{out:?}");
        assert!(out.iter().all(|l| l.chars().count() <= 32), "{out:?}");
        // Every word whole on some line: none is split mid-word.
        for word in ["\"description\":", "\"Level", "3", "object\","] {
            assert!(
                out.iter().any(|l| l.split_whitespace().any(|w| w == word)),
                "{word}: {out:?}"
            );
        }
        // An enum string fits whole on its line.
        let value = format!("{}\"gamma_value_three_is_long\"", " ".repeat(44));
        let out = wrap(vec![Line::from(value)], 32);
        assert_eq!(out.len(), 1);
        assert!(out[0].to_string().trim() == "\"gamma_value_three_is_long\"");
    }

    #[test]
    fn an_enum_value_longer_than_the_pane_keeps_its_indent_and_its_comma() {
        // 6 columns of indent, a 29-column value with its comma, 28 columns.
        let value = format!("{}\"abcdefghijklmnopqrstuvwxyz\",", " ".repeat(6));
        let out = texts(&wrap(vec![Line::from(value)], 28));
        assert!(out.iter().all(|l| l.chars().count() <= 28), "{out:?}");
        assert!(out[0].starts_with("      \"abc"), "indent kept: {out:?}");
        let last = out.last().unwrap().trim();
        assert!(
            last.chars().any(char::is_alphanumeric),
            "the comma never wraps alone: {out:?}"
        );
        let joined: String = out.iter().map(|l| l.trim()).collect();
        assert_eq!(joined, "\"abcdefghijklmnopqrstuvwxyz\",");
    }

    #[test]
    fn a_search_time_says_when_no_embedding_is_in_it() {
        let t = std::time::Duration::from_micros(18_140);
        assert_eq!(super::search_time(t, false), "18.14 ms");
        assert_eq!(super::search_time(t, true), "18.14 ms (query cached)");
    }

    #[test]
    fn wrapping_keeps_styles() {
        let bold = Style::default().add_modifier(ratatui::style::Modifier::BOLD);
        let line = Line::from(vec![Span::styled("key: ", bold), Span::raw("a b c d e f")]);
        let lines = wrap(vec![line], 8);
        assert_eq!(lines[0].spans[0].style, bold);
        assert_eq!(lines[0].spans[0].content, "key: ");
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
