//! Styled lines wrapped to a width: at spaces, a word longer than a line
//! split over lines, an indented line continued under its text (or at a
//! hanging indent), a deep indent made shallower, styles kept.

use ratatui::style::Style;
use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthChar;

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

/// `line` wrapped to `max` columns into `out`: whole when it fits, else
/// its indent made shallower where deep, then filled run by run (its later
/// lines indented `hang` columns, or under its text).
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
    let (cells, lead) = shallower(cells, max);
    if cells_width(&cells) <= max {
        out.push(to_line(&cells));
        return;
    }
    let hang = hang.unwrap_or(if lead > 0 { (lead + 2).min(max / 2) } else { 0 });
    let mut fill = Filling {
        out,
        current: Vec::new(),
        w: 0,
        max,
        hang,
    };
    let mut i = 0;
    while i < cells.len() {
        // The next run: spaces, or a word.
        let space = cells[i].0 == ' ';
        let end = cells[i..]
            .iter()
            .position(|(c, _)| (*c == ' ') != space)
            .map_or(cells.len(), |p| i + p);
        if space {
            fill.spaces(&cells[i..end]);
        } else {
            fill.word(&cells[i..end]);
        }
        i = end;
    }
    fill.finish();
}

/// The columns `cells` take.
fn cells_width(cells: &[Cell]) -> usize {
    cells.iter().map(|(c, _)| c.width().unwrap_or(0)).sum()
}

/// A line indented so deep that little room is left (a nested schema in
/// a narrow pane) keeps [`MIN_TEXT`] columns for its text, and its first
/// word whole when the pane holds it (an enum string): the indent shrinks
/// rather than the text go to lines of a word each (or a line of spaces
/// alone). A first word longer than the pane is split anyway: its indent
/// stays. The cells and the indent kept.
fn shallower(cells: Vec<Cell>, max: usize) -> (Vec<Cell>, usize) {
    let lead = cells.iter().take_while(|(c, _)| *c == ' ').count();
    let first_word: usize = cells[lead..]
        .iter()
        .take_while(|(c, _)| *c != ' ')
        .map(|(c, _)| c.width().unwrap_or(0))
        .sum();
    let room = MIN_TEXT.min(max * 2 / 3);
    let room = if first_word <= max {
        room.max(first_word)
    } else {
        room
    };
    let keep = lead.min(max.saturating_sub(room));
    if keep < lead {
        (cells[lead - keep..].to_vec(), keep)
    } else {
        (cells, keep)
    }
}

/// A line being wrapped: the lines made so far (`out`), the one being
/// filled and its width, the room and the later lines' indent.
struct Filling<'o> {
    out: &'o mut Vec<Line<'static>>,
    current: Vec<Cell>,
    w: usize,
    max: usize,
    hang: usize,
}

impl Filling<'_> {
    /// The line filled so far ends; the next starts indented.
    fn push(&mut self) {
        push_line(self.out, &mut self.current, &mut self.w, self.hang);
    }

    /// `run` onto the line filled.
    fn extend(&mut self, run: &[Cell]) {
        self.current.extend_from_slice(run);
        self.w += cells_width(run);
    }

    /// Spaces: kept where they fit, dropped at a break.
    fn spaces(&mut self, run: &[Cell]) {
        if self.w + cells_width(run) <= self.max {
            self.extend(run);
        } else {
            self.push();
        }
    }

    /// A word: on this line where it fits, else on the next, else (longer
    /// than a line) split over as many as it takes.
    fn word(&mut self, run: &[Cell]) {
        let run_w = cells_width(run);
        if self.w + run_w <= self.max {
            self.extend(run);
            return;
        }
        if run_w <= self.max - self.hang && self.w > self.hang {
            self.push();
            self.extend(run);
            return;
        }
        let breaks = word_breaks(run, self.w, self.max, self.hang);
        for (k, &cell) in run.iter().enumerate() {
            if breaks.contains(&k) {
                self.push();
            }
            self.current.push(cell);
            self.w += cell.0.width().unwrap_or(0);
        }
    }

    /// The last line, its trailing spaces dropped.
    fn finish(self) {
        if !self.current.is_empty() {
            self.out.push(to_line(trim_end(&self.current)));
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(lines: &[Line]) -> Vec<String> {
        lines.iter().map(|l| l.to_string()).collect()
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
    fn wrapping_keeps_styles() {
        let bold = Style::default().add_modifier(ratatui::style::Modifier::BOLD);
        let line = Line::from(vec![Span::styled("key: ", bold), Span::raw("a b c d e f")]);
        let lines = wrap(vec![line], 8);
        assert_eq!(lines[0].spans[0].style, bold);
        assert_eq!(lines[0].spans[0].content, "key: ");
    }
}
