//! Untrusted text made safe to print on a terminal.
//!
//! A catalog is untrusted input: an MCP server or a downloaded file can put
//! escape sequences in tool names, descriptions and schemas (OSC 52
//! `ESC ] 52 ; c ; <base64> BEL` writes the user's clipboard, CSI `ESC [ 2 J`
//! clears the screen), and text a person never sees but a model reads. Every
//! human-readable output of the CLI passes the text it did not write itself
//! through [`escape`], which replaces each such character with a visible,
//! unambiguous escape made of printable ASCII:
//!
//! - C0 controls and DEL: `\n`, `\r`, `\t`, else `\u{1b}`, `\u{7}`,
//!   `\u{7f}`, ... (as Rust's `{:?}` writes them, so that every message
//!   shows a character one way);
//! - C1 controls (U+0080 to U+009F): `\u{9b}`, ...;
//! - the line and paragraph separators U+2028, U+2029: `\u{2028}`, ...;
//! - the characters of [`Hidden`], which a person cannot see or which change
//!   what the eye sees: bidirectional controls (`\u{202e}`), zero-width and
//!   other invisible format characters (`\u{200b}`), variation selectors
//!   (`\u{fe0f}`) and tag characters (`\u{e0069}`).
//!
//! Everything else, printable ASCII and Unicode text included, is unchanged,
//! so a table column can be measured on the escaped text. [`escape_layout`]
//! does the same but keeps newlines and tabs: for a whole text whose lines
//! the program laid out itself (a report, an error message), as a safety net
//! behind the per-field escaping; [`escape_lines`] shows untrusted text of
//! several lines as lines. [`escape_prose`] is for a description:
//! it keeps the joiners and emoji variation selectors that are part of
//! visible text (see [`prose_chars`]). [`json_for_terminal`] keeps JSON exact
//! while writing the same characters as `\uXXXX` escapes.

use std::borrow::Cow;
use std::fmt::Write as _;

/// A character a person does not see as itself, though a model reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Hidden {
    /// U+E0000 to U+E007F: invisible copies of ASCII that can spell a whole
    /// sentence (U+E0020 to U+E007E are ASCII plus U+E0000).
    Tag,
    /// Reorder what the eye sees: U+061C, U+200E, U+200F, U+202A to U+202E,
    /// U+2066 to U+2069.
    Bidi,
    /// Zero-width and other invisible format characters: U+200B to U+200D,
    /// U+2060 to U+2064, U+FEFF, U+180E, U+00AD, U+034F, the Hangul fillers,
    /// the interlinear annotation controls, ...
    Invisible,
    /// Select a glyph's variant (U+FE00 to U+FE0F, U+E0100 to U+E01EF,
    /// U+180B to U+180D, U+180F); runs of them can carry any bytes.
    VariationSelector,
    /// C0 and C1 control characters and DEL (an ANSI escape sequence
    /// starts with one): a terminal acts on them, a reader never sees them.
    /// Not a [`hidden`] class (those are escaped as every unsafe character
    /// is); a catalog's lint and the gateway look for them apart.
    Control,
}

impl Hidden {
    /// What the characters are called, plural, for a sentence.
    pub fn label(self) -> &'static str {
        match self {
            Hidden::Tag => "tag characters",
            Hidden::Bidi => "bidirectional controls",
            Hidden::Invisible => "zero-width or invisible characters",
            Hidden::VariationSelector => "variation selectors",
            Hidden::Control => "control characters",
        }
    }
}

/// The class of a character a person cannot see, if `c` is one.
pub fn hidden(c: char) -> Option<Hidden> {
    match c {
        '\u{e0000}'..='\u{e007f}' => Some(Hidden::Tag),
        '\u{61c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' => {
            Some(Hidden::Bidi)
        }
        '\u{180b}'..='\u{180d}'
        | '\u{180f}'
        | '\u{fe00}'..='\u{fe0f}'
        | '\u{e0100}'..='\u{e01ef}' => Some(Hidden::VariationSelector),
        '\u{ad}'
        | '\u{34f}'
        | '\u{115f}'
        | '\u{1160}'
        | '\u{17b4}'
        | '\u{17b5}'
        | '\u{180e}'
        | '\u{200b}'..='\u{200d}'
        | '\u{2060}'..='\u{2065}'
        | '\u{206a}'..='\u{206f}'
        | '\u{3164}'
        | '\u{feff}'
        | '\u{ffa0}'
        | '\u{fff0}'..='\u{fffb}'
        | '\u{1bca0}'..='\u{1bca3}'
        | '\u{1d173}'..='\u{1d17a}'
        | '\u{e0080}'..='\u{e00ff}'
        | '\u{e01f0}'..='\u{e0fff}' => Some(Hidden::Invisible),
        _ => None,
    }
}

/// True for a character a terminal may act on rather than show, or that a
/// person cannot see ([`hidden`]).
pub fn is_unsafe(c: char) -> bool {
    matches!(c, '\u{0}'..='\u{1f}' | '\u{7f}'..='\u{9f}' | '\u{2028}' | '\u{2029}')
        || hidden(c).is_some()
}

/// Each character of `text` with whether a description shows it escaped.
///
/// A description (prose, unlike a name or a schema key) keeps the few
/// invisible characters that are part of visible text:
///
/// - a joiner (U+200D ZWJ, U+200C ZWNJ) between two visible non-ASCII
///   characters: emoji sequences (`👩‍💻`, `❤️‍🔥`) and the joined letters of
///   Persian or Devanagari text. A joiner next to ASCII, a space, the
///   text's edge or another invisible character hides nothing a reader
///   needs, but it is what an attacker would use, so it is escaped;
/// - one emoji variation selector (U+FE0E, U+FE0F) right after a visible
///   character (`⚠️`, `1️⃣`). A second one in a row, or one after an
///   invisible character, is escaped: runs of variation selectors can carry
///   any bytes.
///
/// Every other unsafe character is escaped, tag characters too (even in the
/// subdivision flags, whose tags then show as what they spell). A name or
/// a key has no such exception: [`escape`] escapes every joiner.
pub fn prose_chars(text: &str) -> impl Iterator<Item = (char, bool)> + '_ {
    let visible = |c: char| !c.is_whitespace() && !is_unsafe(c);
    let mut chars = text.chars().peekable();
    // The character before, when it is shown as written.
    let mut shown: Option<char> = None;
    // Tag characters left of an emoji flag's tag sequence (🏴 and a
    // subdivision such as "gbsct", then the cancel tag): they draw the flag.
    let mut flag_left = 0usize;
    std::iter::from_fn(move || {
        let c = chars.next()?;
        if flag_left > 0 {
            flag_left -= 1;
            shown = Some(c);
            return Some((c, false));
        }
        if c == '\u{1f3f4}' {
            flag_left = flag_tags(chars.clone());
        }
        let keep = match c {
            '\u{200c}' | '\u{200d}' => {
                shown.is_some_and(|p| {
                    !p.is_ascii() && (visible(p) || matches!(p, '\u{fe0e}' | '\u{fe0f}'))
                }) && chars.peek().is_some_and(|&n| !n.is_ascii() && visible(n))
            }
            '\u{fe0e}' | '\u{fe0f}' => shown.is_some_and(visible),
            _ => !is_unsafe(c),
        };
        shown = keep.then_some(c);
        Some((c, !keep))
    })
}

/// How many characters after a black flag (U+1F3F4) form its emoji tag
/// sequence: two to six tag letters or digits and the cancel tag; 0 when
/// they do not (tags that spell something else stay hidden text).
fn flag_tags(mut after: impl Iterator<Item = char>) -> usize {
    let mut n = 0;
    loop {
        match after.next() {
            Some('\u{e007f}') if (2..=6).contains(&n) => return n + 1,
            Some('\u{e0030}'..='\u{e0039}' | '\u{e0061}'..='\u{e007a}') if n < 6 => n += 1,
            _ => return 0,
        }
    }
}

/// `text` with every unsafe character (newlines and tabs included) written
/// as a visible escape. Borrows when there is nothing to escape.
pub fn escape(text: &str) -> Cow<'_, str> {
    escape_where(text, is_unsafe)
}

/// Like [`escape`] but keeps `\n` and `\t`: for text laid out by the program
/// whose fields were already escaped.
pub fn escape_layout(text: &str) -> Cow<'_, str> {
    escape_where(text, |c| c != '\n' && c != '\t' && is_unsafe(c))
}

/// Untrusted text of several lines (a server's answer) to show as lines:
/// `\r\n` ends a line as `\n` does, a tab is four spaces, and every other
/// unsafe character is escaped ([`escape`]), a lone `\r` included.
pub fn escape_lines(text: &str) -> String {
    let text = text.replace("\r\n", "\n").replace('\t', "    ");
    escape_layout(&text).into_owned()
}

/// A description's text (prose) with every unsafe character escaped but the
/// joiners and variation selectors that belong to visible text
/// ([`prose_chars`]). Borrows when there is nothing to escape.
pub fn escape_prose(text: &str) -> Cow<'_, str> {
    if !prose_chars(text).any(|(_, escaped)| escaped) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for (c, escaped) in prose_chars(text) {
        if escaped {
            push_escape(&mut out, c);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

fn escape_where(text: &str, unsafe_char: impl Fn(char) -> bool) -> Cow<'_, str> {
    let Some(first) = text.find(&unsafe_char) else {
        return Cow::Borrowed(text);
    };
    let mut out = String::with_capacity(text.len() + 8);
    out.push_str(&text[..first]);
    for c in text[first..].chars() {
        if unsafe_char(c) {
            push_escape(&mut out, c);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// The visible escape of `c`: `\n`, `\u{1b}`, `\u{200b}`, ...
fn push_escape(out: &mut String, c: char) {
    match c {
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        _ => {
            let _ = write!(out, "\\u{{{:x}}}", c as u32);
        }
    }
}

/// Escapes every item and joins them with `sep` (a list of names on one line).
pub fn escape_join<S: AsRef<str>>(items: &[S], sep: &str) -> String {
    items
        .iter()
        .map(|s| escape(s.as_ref()))
        .collect::<Vec<_>>()
        .join(sep)
}

/// Pretty JSON of `value` that is safe on a terminal and parses back to
/// exactly `value`: serde_json already writes C0 controls as escapes; the
/// other unsafe characters (DEL, C1, bidirectional controls, invisible
/// characters), which it writes raw, become `\uXXXX` (a pair of them for a
/// character beyond U+FFFF, as JSON spells it). They can only occur inside
/// JSON strings, where that escape means the same character.
pub fn json_for_terminal<T: serde::Serialize + ?Sized>(
    value: &T,
) -> Result<String, serde_json::Error> {
    // The C0 controls left in the text are the layout's own newlines.
    let raw = |c: char| c >= '\u{7f}' && is_unsafe(c);
    let text = serde_json::to_string_pretty(value)?;
    if !text.contains(raw) {
        return Ok(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if raw(c) {
            for unit in c.encode_utf16(&mut [0; 2]) {
                let _ = write!(out, "\\u{:04x}", unit);
            }
        } else {
            out.push(c);
        }
    }
    Ok(out)
}

/// The width of a column holding `cells` (escaped text), at least `min`.
pub fn column_width<S: AsRef<str>>(cells: &[S], min: usize) -> usize {
    cells
        .iter()
        .map(|c| c.as_ref().chars().count())
        .max()
        .unwrap_or(min)
        .clamp(min, MAX_COLUMN.max(min))
}

/// The widest a padded column grows: a longer cell is written whole and
/// pushes its row's later columns right, so one hostile name of 60,000
/// characters neither pads every row to its length nor overflows the
/// formatter's width (which panics past 65,535).
pub const MAX_COLUMN: usize = 80;

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn a_column_is_as_wide_as_its_widest_cell_up_to_a_limit() {
        assert_eq!(column_width(&["ab", "abcdef"], 4), 6);
        assert_eq!(column_width::<&str>(&[], 4), 4);
        let long = "x".repeat(70_000);
        assert_eq!(column_width(&[long.as_str(), "a"], 4), MAX_COLUMN);
        // Formatting with it does not panic, and the long cell is whole.
        let row = format!("{:<w$}|", long, w = column_width(&[long.as_str()], 4));
        assert_eq!(row.len(), 70_001);
    }

    #[test]
    fn lines_stay_lines_and_the_rest_is_escaped() {
        assert_eq!(
            escape_lines("ok\u{1b}[2J\r\n\u{202e}evil\tend\rx"),
            "ok\\u{1b}[2J\n\\u{202e}evil    end\\rx"
        );
        assert_eq!(escape_lines("plain\ntext"), "plain\ntext");
    }

    #[test]
    fn attacks_become_visible() {
        assert_eq!(
            escape("a\u{1b}]52;c;aGk=\u{7}b"),
            "a\\u{1b}]52;c;aGk=\\u{7}b"
        );
        assert_eq!(escape("\u{1b}[2J"), "\\u{1b}[2J");
        assert_eq!(escape("x\u{9b}2J"), "x\\u{9b}2J");
        assert_eq!(escape("a\nb\tc\r"), "a\\nb\\tc\\r");
        assert_eq!(escape("\u{7f}\u{0}"), "\\u{7f}\\u{0}");
        assert_eq!(escape("abc\u{202e}txt.exe"), "abc\\u{202e}txt.exe");
        assert_eq!(escape("\u{2066}\u{2069}"), "\\u{2066}\\u{2069}");
        assert_eq!(escape_layout("a\nb\u{1b}\tc"), "a\nb\\u{1b}\tc");
    }

    #[test]
    fn clean_text_is_borrowed() {
        assert!(matches!(escape("get_weather"), Cow::Borrowed(_)));
        assert!(matches!(escape_layout("a\nb\n"), Cow::Borrowed(_)));
        assert_eq!(
            escape("Wetter für München — 天気 ✓"),
            "Wetter für München — 天気 ✓"
        );
    }

    #[test]
    fn hidden_characters_become_visible() {
        // Zero-width and other invisible format characters.
        assert_eq!(escape("read\u{200b}_file"), "read\\u{200b}_file");
        assert_eq!(
            escape("\u{feff}a\u{2060}b\u{180e}c\u{ad}d\u{200c}e"),
            "\\u{feff}a\\u{2060}b\\u{180e}c\\u{ad}d\\u{200c}e"
        );
        assert_eq!(escape("\u{3164}\u{fff9}x"), "\\u{3164}\\u{fff9}x");
        // Tag characters: "hi" spelled in tags.
        assert_eq!(escape("a\u{e0068}\u{e0069}"), "a\\u{e0068}\\u{e0069}");
        // Variation selectors, standard and supplementary.
        assert_eq!(escape("x\u{fe00}\u{e0100}"), "x\\u{fe00}\\u{e0100}");
        // Bidi controls, old and new.
        assert_eq!(
            escape("\u{61c}\u{200f}\u{2067}"),
            "\\u{61c}\\u{200f}\\u{2067}"
        );
        for c in [
            '\u{200b}',
            '\u{200d}',
            '\u{e0041}',
            '\u{fe0f}',
            '\u{202e}',
            '\u{2069}',
        ] {
            assert!(is_unsafe(c) && hidden(c).is_some(), "{c:?}");
        }
        assert_eq!(hidden('\u{e0001}'), Some(Hidden::Tag));
        assert_eq!(hidden('\u{202d}'), Some(Hidden::Bidi));
        assert_eq!(hidden('\u{2063}'), Some(Hidden::Invisible));
        assert_eq!(hidden('\u{e01ef}'), Some(Hidden::VariationSelector));
        assert_eq!(hidden('\u{1b}'), None);
    }

    #[test]
    fn ordinary_text_is_untouched() {
        for text in [
            "Wetter für München — 天気 ✓",
            "東京の天気を調べる。서울 날씨. Погода в Москве",
            // Combining marks: e + U+0301, Vietnamese, Devanagari vowel signs.
            "cafe\u{301} Tiếng Việt हिन्दी में",
            "مرحبا بالعالم שלום",
            "emoji 🌦 🚀 ✅ 👍🏽 🇫🇷 ©®™",
        ] {
            assert!(matches!(escape(text), Cow::Borrowed(_)), "{text}");
            assert!(matches!(escape_prose(text), Cow::Borrowed(_)), "{text}");
        }
    }

    #[test]
    fn joiners_and_emoji_selectors_stay_in_prose_only() {
        // ZWJ emoji sequences, emoji presentation, a keycap, Persian ZWNJ.
        for text in [
            "pair with 👩\u{200d}💻 now",
            "👩🏽\u{200d}🚀 and ❤\u{fe0f}\u{200d}🔥",
            "⚠\u{fe0f} deletes files; press 1\u{fe0f}\u{20e3}",
            "می\u{200c}خواهم",
            "क्\u{200d}ष",
        ] {
            assert_eq!(escape_prose(text), text);
            // A name or a key escapes every joiner and selector.
            assert_ne!(escape(text), text, "{text}");
        }
        assert_eq!(escape("👩\u{200d}💻"), "👩\\u{200d}💻");
        // A joiner next to ASCII, a space, an edge or another hidden
        // character, a second selector in a row, or one after a space.
        for (text, shown) in [
            ("ig\u{200d}nore", "ig\\u{200d}nore"),
            ("👩\u{200d} x", "👩\\u{200d} x"),
            ("\u{200d}👩", "\\u{200d}👩"),
            ("👩\u{200d}", "👩\\u{200d}"),
            ("👩\u{200b}\u{200d}💻", "👩\\u{200b}\\u{200d}💻"),
            ("⚠\u{fe0f}\u{fe0f}", "⚠\u{fe0f}\\u{fe0f}"),
            (" \u{fe0f}", " \\u{fe0f}"),
            ("a\u{fe01}", "a\\u{fe01}"),
            ("x\u{e0069}\u{e0067}", "x\\u{e0069}\\u{e0067}"),
            ("a\u{202e}b\u{1b}", "a\\u{202e}b\\u{1b}"),
        ] {
            assert_eq!(escape_prose(text), shown, "{text:?}");
        }
    }

    #[test]
    fn joins_escape_each_item() {
        assert_eq!(escape_join(&["a\nb", "c"], ", "), "a\\nb, c");
    }

    #[test]
    fn json_stays_exact() {
        let name = "n\u{1b}]52;c;aGk=\u{7}\u{9b}2J\u{7f}\u{202e}\n";
        let text = json_for_terminal(&serde_json::json!({ "name": name })).unwrap();
        assert!(
            !text.contains(|c: char| c != '\n' && is_unsafe(c)),
            "{text}"
        );
        assert!(text.contains("\\u009b"), "{text}");
        let back: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(back["name"], name);
        // Beyond U+FFFF: a tag character as a surrogate pair.
        let hidden = "a\u{e0069}\u{200b}👩\u{200d}💻";
        let text = json_for_terminal(&hidden).unwrap();
        assert_eq!(text, "\"a\\udb40\\udc69\\u200b👩\\u200d💻\"");
        assert_eq!(serde_json::from_str::<String>(&text).unwrap(), hidden);
    }

    proptest! {
        #[test]
        fn output_has_no_unsafe_char(text in any::<String>()) {
            let e = escape(&text);
            prop_assert!(!e.contains(is_unsafe), "{:?}", e);
            let l = escape_layout(&text);
            prop_assert!(!l.contains(|c: char| c != '\n' && c != '\t' && is_unsafe(c)));
        }

        #[test]
        fn safe_text_is_unchanged(
            text in "[ -~\u{a0}-\u{ac}\u{ae}-\u{34e}\u{350}-\u{61b}\u{61d}-\u{115e}\u{1161}-\u{17b3}\u{17b6}-\u{180a}\u{1810}-\u{1fff}\u{3000}-\u{3163}\u{3165}-\u{9fff}\u{1f300}-\u{1f64f}]*"
        ) {
            prop_assert_eq!(escape(&text), text.as_str());
            prop_assert_eq!(escape_prose(&text), text.as_str());
        }

        #[test]
        fn prose_keeps_only_joiners_and_emoji_selectors(text in any::<String>()) {
            let e = escape_prose(&text);
            prop_assert!(
                !e.contains(|c| is_unsafe(c) && !matches!(c, '\u{200c}' | '\u{200d}' | '\u{fe0e}' | '\u{fe0f}')),
                "{:?}", e
            );
            // Without those, prose is escaped like a name.
            let plain: String = text.chars().filter(|c| !matches!(c, '\u{200c}' | '\u{200d}' | '\u{fe0e}' | '\u{fe0f}')).collect();
            prop_assert_eq!(escape_prose(&plain), escape(&plain));
        }

        #[test]
        fn json_round_trips(text in any::<String>()) {
            let json = json_for_terminal(&text).unwrap();
            prop_assert!(!json.contains(is_unsafe));
            let back: String = serde_json::from_str(&json).unwrap();
            prop_assert_eq!(back, text);
        }
    }
}

#[cfg(test)]
mod flag_tests {
    use super::*;

    #[test]
    fn an_emoji_flags_tags_are_text_other_tags_are_hidden() {
        let scotland = "\u{1F3F4}\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}";
        assert!(prose_chars(scotland).all(|(_, escaped)| !escaped));
        // Tags that spell a sentence after a flag are not a flag.
        let sneaky: String = std::iter::once('\u{1F3F4}')
            .chain(
                "ignore all"
                    .chars()
                    .map(|c| char::from_u32(0xE0000 + c as u32).unwrap()),
            )
            .chain(std::iter::once('\u{E007F}'))
            .collect();
        assert!(prose_chars(&sneaky).skip(1).all(|(_, escaped)| escaped));
        // No cancel tag: hidden.
        assert!(
            prose_chars("\u{1F3F4}\u{E0067}\u{E0062}")
                .skip(1)
                .all(|(_, e)| e)
        );
    }
}
