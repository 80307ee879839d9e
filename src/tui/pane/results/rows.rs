//! The results pane's rows for a search's answer, as they are laid: the
//! loaded tools (mark, place, name, score, the words that matched), then
//! the nearest tools the relevance gate held back, or the tools just below
//! the cap.

use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use crate::search::{Reason, SearchHit, SearchResult};
use crate::terminal_text::escape;
use crate::tui::action::Action;
use crate::tui::paint::{Theme, row};
use crate::tui::pane::view::PaneView;
use crate::tui::text::{fit_words, pad, wrap_words};

/// A search's answer being laid out in the pane: the lines so far and
/// what every part of it reads.
pub(super) struct Rows<'v, 'a> {
    pub view: &'v PaneView<'a>,
    pub result: &'v SearchResult,
    pub theme: &'v Theme,
    pub lines: Vec<Line<'static>>,
    /// The pane's inside.
    pub width: usize,
    pub height: usize,
    /// The loaded tools' name column.
    pub name_width: usize,
    /// Under strategy all every tool is sent: the ranking shown is what
    /// deferred would load, and the pane says so.
    pub all: bool,
}

/// A row's cells after its name, each put only where it fits in the room
/// left.
struct Cells {
    spans: Vec<Span<'static>>,
    room: usize,
}

impl Cells {
    /// `text` in `style`, when it fits in the room left.
    fn push(&mut self, text: String, style: Style) {
        let n = text.chars().count();
        if n <= self.room {
            self.room -= n;
            self.spans.push(Span::styled(text, style));
        }
    }

    /// The score, or what stands for it: one word for an always-load tool
    /// that matched nothing (the ★ says it too), a space for a tool a
    /// `select:` named (no score to show; a name as wide as the column
    /// would run into "exact name").
    fn score(&mut self, hit: &SearchHit, theme: &Theme) {
        match (hit.reason, hit.score) {
            (Some(Reason::AlwaysLoad), _) if hit.explanation.matches.is_empty() => {
                if let Some(label) = ["  always-load", " always"]
                    .into_iter()
                    .find(|l| l.len() <= self.room)
                {
                    self.push(label.into(), theme.always);
                }
            }
            (Some(Reason::ExactName), Some(score))
                if score == 0.0 && hit.explanation.matches.is_empty() =>
            {
                self.push(" ".into(), Style::default());
            }
            (_, Some(score)) => self.push(format!(" {score:>6.2} "), Style::default()),
            _ => {}
        }
    }

    /// The words that matched ("exact name" first when a `select:` named
    /// it), shortened to fit: whole words, then "…", never cut mid-word by
    /// the pane's edge (but the first word's start when not even it fits).
    fn words(&mut self, hit: &SearchHit, theme: &Theme) {
        let mut words: Vec<(String, Style)> = Vec::new();
        if hit.reason == Some(Reason::ExactName) {
            words.push(("exact name".into(), theme.matched));
        }
        words.extend(
            hit.explanation
                .matches
                .iter()
                .map(|m| (escape(&m.shown()).into_owned(), theme.matched)),
        );
        let count = words.len();
        for (i, (word, style)) in words.into_iter().enumerate() {
            let sep = if i == 0 { "" } else { ", " };
            // Keep room for "…" unless this is the last word.
            let reserve = if i + 1 < count { 1 } else { 0 };
            let need = sep.chars().count() + word.chars().count() + reserve;
            if need > self.room {
                if i == 0 && self.room >= 3 {
                    let start = pad(&word, self.room);
                    self.push(start, style);
                } else {
                    self.push("…".into(), theme.dim);
                }
                break;
            }
            if !sep.is_empty() {
                self.push(sep.into(), Style::default());
            }
            self.push(word, style);
        }
    }
}

impl<'v, 'a> Rows<'v, 'a> {
    /// No rows yet, for an answer drawn `inner`.
    pub fn new(
        view: &'v PaneView<'a>,
        result: &'v SearchResult,
        theme: &'v Theme,
        inner: Rect,
    ) -> Self {
        let height = usize::from(inner.height);
        let width = usize::from(inner.width);
        let name_width = result
            .tools
            .iter()
            .map(|h| escape(&view.tool(h.index).name).chars().count())
            .max()
            .unwrap_or(4)
            // Names first: room for the rank and a score, the words after.
            .min(width.saturating_sub(4 + 8).max(8));
        Rows {
            view,
            result,
            theme,
            lines: Vec::with_capacity(height),
            width,
            height,
            name_width,
            all: view.handle.strategy() == crate::tools_handle::Strategy::All,
        }
    }

    /// The loaded tools from the list's offset, one row each, as many as
    /// fit. Places count the searched tools from 1, as `toolsift search`
    /// and the detail do (always-load tools show ★): the place the detail
    /// gives once the ranking is known (the one the answer was cut from,
    /// so the same), until then the answer's order.
    pub fn loaded(&mut self) {
        let list = self.view.search.list;
        let always = |h: &SearchHit| h.reason == Some(Reason::AlwaysLoad);
        let mut rank = self
            .result
            .tools
            .iter()
            .take(list.offset)
            .filter(|h| !always(h))
            .count();
        for (i, hit) in self.result.tools.iter().enumerate().skip(list.offset) {
            if self.lines.len() >= self.height {
                break;
            }
            let place = if always(hit) {
                None
            } else {
                rank += 1;
                let standing = self.view.search.standing.as_ref();
                Some(standing.and_then(|s| s.place(hit.index)).unwrap_or(rank))
            };
            let line = self.hit_row(hit, place, i == list.selected);
            self.lines.push(line);
        }
    }

    /// One loaded tool's row: picked (✓) or highlighted (›), its place (★
    /// for always-load), its name, then its score and matched words in
    /// what is left.
    fn hit_row(&self, hit: &SearchHit, place: Option<usize>, current: bool) -> Line<'static> {
        let theme = self.theme;
        let (rank_cell, rank_style) = match place {
            None => (" ★".to_string(), theme.always),
            Some(place) => (format!("{place:>2}"), Style::default()),
        };
        let name = pad(&escape(&self.view.tool(hit.index).name), self.name_width);
        let mark = if self.view.picked.contains(&hit.index) {
            Span::styled("✓", theme.key)
        } else {
            Span::raw(if current { "›" } else { " " })
        };
        let mut cells = Cells {
            room: self.width.saturating_sub(1 + 2 + 1 + name.chars().count()),
            spans: vec![
                mark,
                Span::styled(rank_cell, rank_style),
                Span::raw(" "),
                Span::raw(name),
            ],
        };
        cells.score(hit, theme);
        cells.words(hit, theme);
        row(cells.spans, current && self.view.focused.results, theme)
    }

    /// Whether row `j` below the loaded ones (held back, or below the cap)
    /// is highlighted: their detail says why they were not loaded.
    fn below_highlighted(&self, j: usize) -> bool {
        self.view.search.list.selected == self.result.tools.len() + j
    }

    /// Whether row `j` below the loaded ones is scrolled into view.
    fn below_shown(&self, j: usize) -> bool {
        self.result.tools.len() + j >= self.view.search.list.offset
    }

    /// What just missed: the next few ranked tools below the cap, dimmed,
    /// under a heading of the cap; their places as the rows above and the
    /// detail count them.
    pub fn below_cap(&mut self) {
        let Some(standing) = self.view.search.standing.as_ref() else {
            return;
        };
        let near = self.view.search.near();
        let runners: Vec<(usize, f32)> = standing
            .runners_up(near.len())
            .into_iter()
            .filter(|(i, _)| near.contains(i))
            .collect();
        if runners.is_empty() || self.lines.len() >= self.height {
            return;
        }
        let heading = cap_heading(standing.cap(), standing.always_load(), self.all, self.width);
        self.lines
            .push(Line::from(Span::styled(heading, self.theme.dim)));
        // Names get the room there is: as wide as the longest, loaded or
        // below the cap, before the pane's edge cuts them.
        let runners_width = runners
            .iter()
            .map(|(i, _)| escape(&self.view.tool(*i).name).chars().count())
            .max()
            .unwrap_or(0)
            .max(self.name_width)
            .max(8);
        for (j, (index, score)) in runners.into_iter().enumerate() {
            if !self.below_shown(j) || self.lines.len() >= self.height {
                continue;
            }
            let name = escape(&self.view.tool(index).name).into_owned();
            let rank = standing
                .place(index)
                .map_or_else(|| " -".to_string(), |r| format!("{r:>2}"));
            let score = format!(" {score:>6.2}");
            let name_room = self.width.saturating_sub(4 + score.len());
            // The highlight's mark, as on the loaded rows.
            let mark = if self.below_highlighted(j) {
                "›"
            } else {
                " "
            };
            let text = format!(
                "{mark}{rank} {}{score}",
                pad(&name, name_room.min(runners_width))
            );
            self.lines.push(row(
                vec![Span::styled(text, self.theme.dim)],
                self.below_highlighted(j) && self.view.focused.results,
                self.theme,
            ));
        }
    }

    /// A search the relevance gate emptied: "no tool fits", a heading of
    /// what the figures are, and the nearest tools held back with their
    /// figures.
    pub fn held_back(&mut self) {
        if self.lines.len() >= self.height {
            return;
        }
        if !self.lines.is_empty() {
            self.lines.push(Line::from(""));
        }
        self.lines.push(Line::from(Span::styled(
            fit_words("no tool fits this request", self.width),
            self.theme.error,
        )));
        let head = format!(
            "nearest, held back (fit: how much of the request each matched, of the {} the gate asks; {} settings turn the gate off):",
            crate::engine::Gate::MIN_EVIDENCE,
            self.view.keymap.label(Action::Settings)
        );
        // The heading wraps between words rather than lose its end.
        for l in wrap_words(&head, self.width.max(1), 3) {
            if self.lines.len() < self.height {
                self.lines.push(Line::from(Span::styled(l, self.theme.dim)));
            }
        }
        let names: Vec<String> = self
            .result
            .held_back
            .iter()
            .map(|h| escape(&self.view.tool(h.index).name).into_owned())
            .collect();
        let name_width = names
            .iter()
            .map(|n| n.chars().count())
            .max()
            .unwrap_or(4)
            .max(self.name_width.min(8));
        for (j, (h, name)) in self.result.held_back.iter().zip(&names).enumerate() {
            if self.lines.len() >= self.height {
                break;
            }
            if !self.below_shown(j) {
                continue;
            }
            // Names first: the figures shorten (evidence and score, then
            // the evidence alone) before a name is cut.
            let figures = held_figures(h, |f| 3 + name_width + f.chars().count() <= self.width);
            let room = self.width.saturating_sub(3 + figures.chars().count());
            let name = pad(name, name_width.min(room));
            let highlighted = self.below_highlighted(j);
            let mark = if highlighted { "›" } else { " " };
            self.lines.push(row(
                vec![Span::styled(
                    format!("{mark}  {name}{figures}"),
                    self.theme.dim,
                )],
                highlighted && self.view.focused.results,
                self.theme,
            ));
        }
    }
}

/// A held-back tool's figures, each named, in the longest form that
/// `fits`, else the shortest: the fit against what the gate asks, the
/// cosine, the score.
fn held_figures(h: &crate::search::HeldBack, fits: impl Fn(&String) -> bool) -> String {
    let asked = crate::engine::Gate::MIN_EVIDENCE;
    let fit = format!("{:.1}/{asked}", h.evidence);
    let mut choices = Vec::new();
    if let Some(c) = h.cosine {
        choices.push(format!("  fit {fit}  cosine {c:.2}  score {:.2}", h.score));
        choices.push(format!("  fit {fit} cos {c:.2} {:.2}", h.score));
    }
    choices.push(format!("  fit {fit}  score {:.2}", h.score));
    choices.push(format!("  fit {fit} {:.2}", h.score));
    choices.push(format!("  fit {fit}"));
    choices.push(format!("  {fit}"));
    choices
        .iter()
        .find(|f| fits(f))
        .or(choices.last())
        .cloned()
        .unwrap_or_default()
}

/// The heading over the tools below the cap: how many places the cap has
/// and how many the always-load tools took, in the longest form that fits
/// `width` ("below the cap of 8 (4 always-load + 4 searched), next:"), so
/// a place of 5 below a cap of 8 reads as it is.
pub fn cap_heading(cap: usize, always_load: usize, all: bool, width: usize) -> String {
    let head = if all {
        format!("deferred's cap of {cap} stops here")
    } else {
        format!("below the cap of {cap}")
    };
    let mut forms = Vec::new();
    if always_load > 0 {
        let searched = cap.saturating_sub(always_load);
        forms.push(format!(
            "{head} ({always_load} always-load + {searched} searched), next:"
        ));
        forms.push(format!("{head} ({always_load} always-load), next:"));
        forms.push(format!("{head} ({always_load} ★), next:"));
    }
    forms.push(format!("{head}, next:"));
    forms
        .iter()
        .find(|f| crate::tui::text::width(f) <= width)
        .cloned()
        .unwrap_or_else(|| fit_words(&forms[forms.len() - 1], width))
}
