//! The drawing kit every screen and pane uses: the theme, a pane's block,
//! a highlighted row, a popup, a key line, where a scrolled text is, the
//! find box, and JSON coloured. Nothing here knows the app: screens and
//! panes draw with it.

use ratatui::Frame;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Borders, Clear, Paragraph};

use super::text;
use crate::terminal_text::json_for_terminal;

/// One pair of a key line: the keys, what they do, a shorter word for
/// narrow terminals, and how soon it gives way (0: never; higher goes
/// first).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyHint {
    pub keys: String,
    pub what: &'static str,
    pub short: &'static str,
    pub drop: u8,
}

/// Styles; with `NO_COLOR` only bold, reverse and underline carry meaning.
pub struct Theme {
    pub title: Style,
    pub border: Style,
    pub border_focused: Style,
    pub highlight: Style,
    pub always: Style,
    pub selected: Style,
    pub initial: Style,
    pub dim: Style,
    pub matched: Style,
    pub error: Style,
    pub key: Style,
    pub json_key: Style,
    pub json_string: Style,
    pub json_number: Style,
    pub json_literal: Style,
    pub gauge: Style,
}

impl Theme {
    pub fn new(no_color: bool) -> Theme {
        let plain = Style::default();
        let bold = plain.add_modifier(Modifier::BOLD);
        if no_color {
            return Theme {
                title: bold,
                border: plain,
                border_focused: bold,
                highlight: plain.add_modifier(Modifier::REVERSED),
                always: bold,
                selected: bold,
                initial: plain,
                dim: plain,
                matched: plain.add_modifier(Modifier::UNDERLINED),
                error: bold,
                key: bold,
                json_key: plain,
                json_string: plain,
                json_number: plain,
                json_literal: plain,
                gauge: plain,
            };
        }
        Theme {
            title: bold.fg(Color::Cyan),
            border: plain.fg(Color::DarkGray),
            border_focused: plain.fg(Color::Cyan),
            highlight: plain
                .bg(Color::Rgb(40, 60, 90))
                .add_modifier(Modifier::BOLD),
            always: plain.fg(Color::Yellow),
            selected: bold.fg(Color::Green),
            initial: plain.fg(Color::Blue),
            dim: plain.fg(Color::DarkGray),
            matched: bold.fg(Color::Green),
            error: bold.fg(Color::Red),
            key: bold.fg(Color::Cyan),
            json_key: plain.fg(Color::Cyan),
            json_string: plain.fg(Color::Green),
            json_number: plain.fg(Color::Yellow),
            json_literal: plain.fg(Color::Magenta),
            gauge: plain.fg(Color::Green).bg(Color::DarkGray),
        }
    }
}

/// A list row, highlighted as the current row of the focused pane.
pub(crate) fn row<'a>(
    spans: Vec<ratatui::text::Span<'a>>,
    highlighted: bool,
    theme: &Theme,
) -> Line<'a> {
    if highlighted {
        Line::from(
            spans
                .into_iter()
                .map(|s| s.patch_style(theme.highlight))
                .collect::<Vec<_>>(),
        )
    } else {
        Line::from(spans)
    }
}

/// A bordered block, highlighted when its pane has the focus.
/// Where a scrolled text is, for its pane's bottom border: ` 12-40 of 96 `
/// (lines shown, from 1), when it does not fit; `None` when it does.
pub(crate) fn position(scroll: usize, height: usize, lines: usize) -> Option<Line<'static>> {
    (lines > height && height > 0).then(|| {
        let last = (scroll + height).min(lines);
        Line::from(format!(" {}-{last} of {lines} ", scroll + 1)).right_aligned()
    })
}

/// [`position`] drawn on the bottom border of `area` (a popup whose block
/// is drawn already), right-aligned.
pub(crate) fn draw_position(f: &mut Frame, area: ratatui::layout::Rect, at: Option<Line<'static>>) {
    let Some(at) = at else { return };
    if area.height < 2 || area.width < 4 {
        return;
    }
    let row = ratatui::layout::Rect::new(area.x + 1, area.bottom() - 1, area.width - 2, 1);
    f.render_widget(Paragraph::new(at), row);
}

/// The find box of a scrolled text (`/words  2 of 5`) on the bottom
/// border of `area`, at the left, with the cursor while it is typed in;
/// nothing when no words are looked for. `reserve` columns at the right
/// stay free (the scroll position).
pub(crate) fn draw_find(
    f: &mut Frame,
    area: ratatui::layout::Rect,
    find: &crate::tui::find::Find,
    reserve: usize,
    theme: &Theme,
) {
    if !find.typing() && find.words().is_empty() || area.height < 2 || area.width < 8 {
        return;
    }
    let words = crate::terminal_text::escape(find.words()).into_owned();
    let (at, of) = find.count();
    let counted = match (of, words.is_empty()) {
        (_, true) => String::new(),
        (0, false) => "  not found".to_string(),
        (n, false) if at == 0 => format!("  {n} lines"),
        (n, false) => format!("  {at} of {n}"),
    };
    // The words whole, over the scroll position if need be (the box is
    // what the keys act on).
    let needed = 4 + 2 + text::width(&words) + text::width(&counted);
    let reserve = if needed + reserve > usize::from(area.width) {
        0
    } else {
        reserve
    };
    let room = usize::from(area.width).saturating_sub(4 + 2 + reserve + text::width(&counted));
    let shown = text::cut(&words, room);
    let row = ratatui::layout::Rect::new(area.x + 1, area.bottom() - 1, area.width - 2, 1);
    let style = if of == 0 && !words.is_empty() {
        theme.error
    } else {
        theme.key
    };
    let line = Line::from(vec![
        Span::styled(format!(" /{shown}"), theme.key),
        Span::styled(format!("{counted} "), style),
    ]);
    // With no room kept, the box takes the whole row.
    let width = if reserve == 0 {
        row.width
    } else {
        (line.width() as u16).min(row.width)
    };
    f.render_widget(Paragraph::new(line), ratatui::layout::Rect { width, ..row });
    if find.typing() {
        let before: String = find.words().chars().take(find.cursor()).collect();
        let x = row.x + 2 + text::width(&crate::terminal_text::escape(&before)).min(room) as u16;
        f.set_cursor_position((x.min(row.right().saturating_sub(1)), row.y));
    }
}

pub(crate) fn pane<'a>(title: Line<'a>, focused: bool, theme: &Theme) -> Block<'a> {
    Block::default()
        .borders(Borders::ALL)
        .border_type(if focused {
            BorderType::Thick
        } else {
            BorderType::Rounded
        })
        .border_style(if focused {
            theme.border_focused
        } else {
            theme.border
        })
        .title(title)
}

/// A popup's bordered box over what is under it, titled: its inside.
pub(crate) fn popup(
    f: &mut Frame,
    area: ratatui::layout::Rect,
    title: String,
    theme: &Theme,
) -> ratatui::layout::Rect {
    f.render_widget(Clear, area);
    let block = pane(Line::from(Span::styled(title, theme.title)), true, theme);
    let inner = block.inner(area);
    f.render_widget(block, area);
    inner
}

/// A key line in `width` columns: every hint with its words and two
/// spaces between hints if they fit; else the shorter words, one space
/// between hints and `↵` for Enter; else hints give way (highest `drop`
/// first, the later of equals first), so that help and quit always show.
pub(crate) fn key_line<'a>(hints: Vec<KeyHint>, width: usize, theme: &Theme) -> Line<'a> {
    let shown = |h: &KeyHint, short: bool| -> (String, &'static str) {
        if short {
            (h.keys.replace("Enter", "↵"), h.short)
        } else {
            (h.keys.clone(), h.what)
        }
    };
    let line_width = |hints: &[KeyHint], short: bool| -> usize {
        let gap = if short { 1 } else { 2 };
        hints
            .iter()
            .map(|h| {
                let (keys, what) = shown(h, short);
                text::width(&keys) + text::width(what) + 1 + gap
            })
            .sum()
    };
    let mut hints = hints;
    let short = line_width(&hints, false) > width;
    if short {
        while line_width(&hints, true) > width {
            let Some(i) = hints
                .iter()
                .enumerate()
                .filter(|(_, h)| h.drop > 0)
                .max_by_key(|(i, h)| (h.drop, *i))
                .map(|(i, _)| i)
            else {
                break;
            };
            hints.remove(i);
        }
    }
    let gap = if short { " " } else { "  " };
    let mut spans = Vec::new();
    for (i, h) in hints.iter().enumerate() {
        let (keys, what) = shown(h, short);
        let lead = if i == 0 { " " } else { gap };
        spans.push(Span::raw(lead));
        spans.push(Span::styled(keys, theme.key));
        spans.push(Span::raw(format!(" {what}")));
    }
    Line::from(spans)
}

/// Pretty JSON with its keys, strings, numbers and literals coloured, safe
/// on a terminal (unsafe and invisible characters as `\uXXXX` escapes).
pub fn json_lines<'a>(value: &serde_json::Value, theme: &Theme) -> Vec<Line<'a>> {
    json_lines_folded(value, None, theme)
}

/// [`json_lines`] with every object or array nested `fold` levels deep
/// shown closed, with what it holds: `"customer": {…3 keys},`.
pub fn json_lines_folded<'a>(
    value: &serde_json::Value,
    fold: Option<usize>,
    theme: &Theme,
) -> Vec<Line<'a>> {
    let text = json_for_terminal(value).unwrap_or_default();
    let lines = match fold {
        Some(depth) => folded(&text, depth),
        None => text.lines().map(str::to_string).collect(),
    };
    lines
        .iter()
        .map(|line| {
            let indent = line.len() - line.trim_start().len();
            let body = line.trim_start();
            let mut spans = vec![Span::raw(" ".repeat(indent))];
            // "key": value  |  value. `end` is the byte index of an ASCII
            // quote, so `end + 1` (in `b`) and `end + 2` (in `body`, one quote
            // longer) are char boundaries whatever the text.
            let (key, rest) = match body.strip_prefix('"').and_then(|b| {
                let end = closing_quote(b)?;
                let after = b[end + 1..].strip_prefix(": ")?;
                Some((&body[..end + 2], after))
            }) {
                Some((k, rest)) => (Some(k), rest),
                None => (None, body),
            };
            if let Some(k) = key {
                spans.push(Span::styled(k.to_string(), theme.json_key));
                spans.push(Span::raw(": "));
            }
            let (value, tail) = match rest.strip_suffix(',') {
                Some(v) => (v, ","),
                None => (rest, ""),
            };
            let style = if value.starts_with('"') {
                theme.json_string
            } else if value == "true" || value == "false" || value == "null" {
                theme.json_literal
            } else if value.starts_with(|c: char| c == '-' || c.is_ascii_digit()) {
                theme.json_number
            } else {
                Default::default()
            };
            spans.push(Span::styled(value.to_string(), style));
            spans.push(Span::raw(tail));
            Line::from(spans)
        })
        .collect()
}

/// Pretty JSON's lines (two spaces a level) with each object or array whose
/// members would be deeper than `depth` closed on its opening line.
pub fn folded(text: &str, depth: usize) -> Vec<String> {
    let level = |l: &str| (l.len() - l.trim_start().len()) / 2;
    let closes = |l: &str| l.trim_start().starts_with(['}', ']']);
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        let at = level(line);
        if line.ends_with(['{', '[']) && at + 1 > depth {
            let mut j = i + 1;
            let mut members = 0;
            while j < lines.len() && !(level(lines[j]) == at && closes(lines[j])) {
                if level(lines[j]) == at + 1 && !closes(lines[j]) {
                    members += 1;
                }
                j += 1;
            }
            let close = lines.get(j).map_or("", |l| l.trim_start());
            let noun = match (line.ends_with('{'), members == 1) {
                (true, true) => "key",
                (true, false) => "keys",
                (false, true) => "item",
                (false, false) => "items",
            };
            out.push(format!("{line}…{members} {noun}{close}"));
            i = j + 1;
        } else {
            out.push(line.to_string());
            i += 1;
        }
    }
    out
}

/// Index of the quote that closes a JSON string whose opening quote was
/// just before `s`.
fn closing_quote(s: &str) -> Option<usize> {
    let mut escaped = false;
    for (i, c) in s.char_indices() {
        match c {
            '\\' if !escaped => escaped = true,
            '"' if !escaped => return Some(i),
            _ => escaped = false,
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::folded;

    #[test]
    fn folding_closes_what_is_nested_deeper_and_counts_it() {
        let v = serde_json::json!({
            "type": "object",
            "properties": {
                "to": {"type": "string", "enum": ["a", "b"]},
                "cc": {"type": "array", "items": {"type": "string"}}
            },
            "required": ["to"]
        });
        let text = serde_json::to_string_pretty(&v).unwrap();
        let names_only = folded(&text, 2);
        assert!(
            names_only.contains(&"    \"cc\": {…2 keys},".to_string()),
            "{names_only:#?}"
        );
        assert!(
            names_only.contains(&"    \"to\": {…2 keys}".to_string()),
            "{names_only:#?}"
        );
        assert!(
            names_only.contains(&"  \"required\": [".to_string()),
            "{names_only:#?}"
        );
        let one_more = folded(&text, 3);
        assert!(
            one_more.contains(&"      \"enum\": […2 items],".to_string()),
            "{one_more:#?}"
        );
        assert!(
            one_more.contains(&"      \"items\": {…1 key},".to_string()),
            "{one_more:#?}"
        );
        // Deep enough, nothing folds.
        assert_eq!(folded(&text, 9), text.lines().collect::<Vec<_>>());
    }
}
