//! TOML text safe on a terminal: every character a terminal acts on or a
//! person cannot see ([`is_unsafe`]) is written as a `\uXXXX` or
//! `\UXXXXXXXX` escape inside a basic string, so `cat catalog.toml` shows
//! it and the file still loads to the same text. The `toml` writer escapes
//! C0 controls and DEL itself (`\t`, `\u001B`, ...) but writes C1 controls,
//! bidirectional controls and invisible characters raw, and may choose a
//! literal string (`'...'`, no escapes possible) for any text: such a
//! string becomes the basic string of the same text.
//!
//! The newlines of a multi-line string are the only unsafe characters left
//! as they are: they are its layout, as in any text file.
//!
//! This reads TOML as the `toml` crate writes it: strings and quoted keys
//! between structure that holds no comment.

use std::fmt::Write as _;

use crate::terminal_text::is_unsafe;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Quote {
    Basic,
    MlBasic,
    Literal,
    MlLiteral,
}

impl Quote {
    fn delimiter(self) -> &'static str {
        match self {
            Quote::Basic => "\"",
            Quote::MlBasic => "\"\"\"",
            Quote::Literal => "'",
            Quote::MlLiteral => "'''",
        }
    }

    fn multi_line(self) -> bool {
        matches!(self, Quote::MlBasic | Quote::MlLiteral)
    }
}

/// `text` (TOML from the `toml` writer) with every unsafe character in its
/// strings and keys escaped.
pub fn escape_strings(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    let mut rest = text;
    while let Some(open) = rest.find(['"', '\'']) {
        out.push_str(&rest[..open]);
        rest = &rest[open..];
        let quote = match (
            rest.starts_with('"'),
            rest.starts_with("\"\"\"") || rest.starts_with("'''"),
        ) {
            (true, true) => Quote::MlBasic,
            (true, false) => Quote::Basic,
            (false, true) => Quote::MlLiteral,
            (false, false) => Quote::Literal,
        };
        rest = &rest[quote.delimiter().len()..];
        let end = content_end(rest, quote);
        write_string(&mut out, &rest[..end], quote);
        rest = &rest[end + quote.delimiter().len()..];
    }
    out.push_str(rest);
    out
}

/// Where the content of a string opened by `quote` ends in `s` (the text
/// after the opening delimiter): the closing delimiter's index, or the end
/// of `s` for a string left open.
fn content_end(s: &str, quote: Quote) -> usize {
    let close = quote.delimiter().as_bytes()[0];
    let escapes = matches!(quote, Quote::Basic | Quote::MlBasic);
    let bytes = s.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if escapes && b == b'\\' {
            // The escaped character is ASCII (or a newline): skip it.
            i += 2;
            continue;
        }
        if b == close {
            if !quote.multi_line() {
                return i;
            }
            // A run of 3 to 5 closing quotes: the last three close the
            // string, those before belong to it.
            let run = bytes[i..].iter().take_while(|&&c| c == close).count();
            if run >= 3 {
                return i + run - 3;
            }
            i += run;
            continue;
        }
        i += 1;
    }
    s.len()
}

/// Writes a string of `content` as written between `quote`s: as it is when
/// nothing in it is unsafe, else as a basic string (multi-line when it was)
/// with the unsafe characters escaped.
fn write_string(out: &mut String, content: &str, quote: Quote) {
    let layout = |c: char| c == '\n' && quote.multi_line();
    let unsafe_char = |c: char| is_unsafe(c) && !layout(c);
    if !content.contains(unsafe_char) {
        out.push_str(quote.delimiter());
        out.push_str(content);
        out.push_str(quote.delimiter());
        return;
    }
    let literal = matches!(quote, Quote::Literal | Quote::MlLiteral);
    let basic = if quote.multi_line() {
        Quote::MlBasic
    } else {
        Quote::Basic
    };
    out.push_str(basic.delimiter());
    for c in content.chars() {
        match c {
            // A literal string's text, spelled in a basic string.
            '\\' if literal => out.push_str("\\\\"),
            '"' if literal => out.push_str("\\\""),
            c if unsafe_char(c) => push_escape(out, c),
            c => out.push(c),
        }
    }
    out.push_str(basic.delimiter());
}

fn push_escape(out: &mut String, c: char) {
    let _ = if u32::from(c) <= 0xffff {
        write!(out, "\\u{:04X}", u32::from(c))
    } else {
        write!(out, "\\U{:08X}", u32::from(c))
    };
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn value(toml_text: &str) -> toml::Table {
        toml::from_str(toml_text).unwrap_or_else(|e| panic!("{e}\n{toml_text}"))
    }

    #[test]
    fn every_kind_of_string_is_escaped() {
        let cases = [
            // A basic string, a literal one (a backslash), a multi-line one,
            // a multi-line literal one (a backslash and a newline), a quoted
            // key, a quote run at a multi-line string's end.
            "a = \"x\u{9b}y\u{202e}\"\n",
            "a = 'C:\\dir\u{85}\u{200b}'\n",
            "a = \"\"\"\nline\u{9d}\none \"\"\"\"\n",
            "a = '''\nC:\\\u{e0069}\nb\"'''\n",
            "[t]\n\"k\u{2066}y\" = 1\n'l\u{feff}\\' = 2\n",
            "a = [\"\u{9b}\", 'x\u{200d}\\', \"\\\"\u{85}\\\\\"]\n",
        ];
        for raw in cases {
            let safe = escape_strings(raw);
            assert!(
                !safe.contains(|c: char| c != '\n' && is_unsafe(c)),
                "{safe:?}"
            );
            assert_eq!(value(&safe), value(raw), "{raw:?} -> {safe:?}");
        }
        assert_eq!(escape_strings("a = \"x\u{9b}\"\n"), "a = \"x\\u009B\"\n");
        assert_eq!(
            escape_strings("a = 'C:\\d\u{e0069}'\n"),
            "a = \"C:\\\\d\\U000E0069\"\n"
        );
        // Nothing to escape: unchanged, literal strings included.
        let clean = "[catalog]\nname = 'a \"b\" \\c'\nx = \"\"\"\nq\"\"\"\n";
        assert_eq!(escape_strings(clean), clean);
    }

    proptest! {
        #[test]
        fn any_text_round_trips_escaped(text in any::<String>(), key in any::<String>()) {
            let table: toml::Table = [
                ("s".to_string(), toml::Value::String(text.clone())),
                (key.clone(), toml::Value::Array(vec![toml::Value::String(text.clone())])),
            ].into_iter().collect();
            let raw = toml::to_string(&table).unwrap();
            let safe = escape_strings(&raw);
            prop_assert!(!safe.contains(|c: char| c != '\n' && is_unsafe(c)), "{:?}", safe);
            let back: toml::Table = toml::from_str(&safe).unwrap();
            prop_assert_eq!(back, table);
        }
    }
}
