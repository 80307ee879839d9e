//! The detail of one tool drawn, from the app's [`PaneView`] as the main screen reads it
//! (in its pane, or in the popup that stands for it on narrow terminals):
//! description, flags, cost, schema, and why it ranked.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use crate::catalog::lint_tool;
use crate::numbers::thousands;
use crate::search::SearchHit;
use crate::terminal_text::{escape, escape_prose};
use crate::tui::action::Action;
use crate::tui::paint::{Theme, draw_find, json_lines_folded, pane, position};
use crate::tui::pane::view::PaneView;
use crate::tui::text::wrap;

/// Where a tool from an MCP server came from: its server, its name there
/// (and why the catalog prefixed it), its MCP title, the server's summary,
/// and how the breaker calls it.
fn origin_lines<'a>(view: &PaneView, index: usize, theme: &Theme) -> Vec<Line<'a>> {
    let t = view.tool(index);
    let Some(o) = &t.mcp else {
        return Vec::new();
    };
    let server = escape(&o.server).into_owned();
    let mut lines = Vec::new();
    if let Some(title) = o.title.as_deref().filter(|t| !t.trim().is_empty()) {
        lines.push(Line::from(vec![
            Span::styled("title: ", theme.key),
            Span::raw(escape(title.trim()).into_owned()),
        ]));
    }
    let mut origin = vec![Span::styled("server: ", theme.key)];
    if t.name == o.name {
        origin.push(Span::raw(server.clone()));
    } else {
        // The other servers with a tool of the same name.
        let mut others: Vec<String> = Vec::new();
        for other in view.catalog.tools() {
            if let Some(oo) = &other.mcp
                && oo.name == o.name
                && oo.server != o.server
            {
                let name = escape(&oo.server).into_owned();
                if !others.contains(&name) {
                    others.push(name);
                }
            }
        }
        let why = match others.as_slice() {
            [] => "another tool has the same name".to_string(),
            [one] => format!("server {one} has the same name"),
            many => format!("servers {} have the same name", many.join(", ")),
        };
        origin.push(Span::raw(format!(
            "named {} on server {server}; prefixed because {why}",
            escape(&o.name)
        )));
    }
    lines.push(Line::from(origin));
    if let Some(status) = view.servers.iter().find(|s| *s.name == *o.server) {
        lines.push(Line::from(Span::styled(
            escape(&status.summary()).into_owned(),
            theme.dim,
        )));
    }
    if view.mcp_live {
        let how = if t.read_only {
            "read-only: called at once"
        } else {
            "may write: asks before every call"
        };
        lines.push(Line::from(Span::styled(
            format!(
                "{} calls it for real ({how})",
                view.keymap.label(Action::Breaker)
            ),
            theme.dim,
        )));
    }
    lines
}

/// Where the tool stood in the current search: loaded or not, and why
/// (its rank against the cap, the request's words it matched and those
/// it did not).
/// Whether the tool is found from its own words (`toolsift check
/// --findability`): the verdict, and where each request put it.
fn findability_lines<'a>(view: &PaneView, index: usize, theme: &Theme) -> Vec<Line<'a>> {
    let Some(audit) = view.findability_of(index) else {
        return Vec::new();
    };
    if view.tool(index).always_load {
        return Vec::new();
    }
    let k = crate::findability::DEFAULT_K;
    let hard = view.hard_to_find(index);
    let mut lines = vec![Line::from(vec![
        Span::styled("findability: ", theme.key),
        Span::styled(
            escape(&audit.verdict(k)).into_owned(),
            if hard { theme.error } else { theme.dim },
        ),
    ])];
    // A tool its own words find needs no more than the verdict.
    if audit.well_found(k) {
        return lines;
    }
    for p in &audit.probes {
        let first = p
            .first
            .as_deref()
            .filter(|_| p.rank != Some(1))
            .map(|f| format!(" (first: {})", escape(f)))
            .unwrap_or_default();
        lines.push(Line::from(vec![
            Span::styled(format!("  {}: ", p.source.label()), theme.dim),
            Span::raw(format!("{} \"{}\"{first}", p.place(), escape(&p.query))),
        ]));
    }
    lines
}

fn standing_lines<'a>(view: &PaneView, index: usize, theme: &Theme) -> Vec<Line<'a>> {
    let Some(standing) = view.search.standing.as_ref() else {
        return Vec::new();
    };
    if view.search.query.trim().is_empty() {
        return Vec::new();
    }
    let why = standing.why(index);
    // Under strategy all every tool is sent; the standing is deferred's.
    let all = view.handle.strategy() == crate::tools_handle::Strategy::All;
    let (sentence, style) = if all {
        (
            format!(
                "sent: strategy all sends every tool (deferred: {})",
                why.sentence()
            ),
            theme.selected,
        )
    } else if why.verdict.loaded() {
        (why.sentence(), theme.selected)
    } else {
        (why.sentence(), theme.error)
    };
    let mut lines = vec![Line::from("")];
    if let Some(gateway) = view.gateway_standing.clone() {
        // A followed search: what the gateway answered is the standing;
        // the explorer's own search of the request is a comparison.
        let style = if gateway.starts_with("returned") {
            theme.selected
        } else {
            theme.error
        };
        lines.push(Line::from(vec![
            Span::styled("standing at the gateway: ", theme.key),
            Span::styled(escape(&gateway).into_owned(), style),
        ]));
        lines.push(Line::from(vec![
            Span::styled("toolsift here, for comparison: ", theme.key),
            Span::styled(escape(&sentence).into_owned(), theme.dim),
        ]));
    } else {
        lines.push(Line::from(vec![
            Span::styled("standing: ", theme.key),
            Span::styled(escape(&sentence).into_owned(), style),
        ]));
    }
    if let Some(score) = why.score.filter(|_| !why.verdict.loaded()) {
        lines.push(Line::from(Span::raw(format!("  score {score:.2}"))));
    }
    if why.explained {
        if !why.matched.is_empty() {
            lines.push(Line::from(vec![
                Span::raw("  matched: "),
                Span::styled(escape(&why.matched.join(", ")).into_owned(), theme.matched),
            ]));
        }
        // (A tool that matched nothing has its words in the sentence.)
        if !why.unmatched.is_empty() && why.verdict != crate::search::Verdict::MatchedNothing {
            lines.push(Line::from(vec![
                Span::raw("  not matched: "),
                Span::styled(escape(&why.unmatched.join(", ")).into_owned(), theme.dim),
            ]));
        }
    }
    lines
}

pub fn draw_pane(f: &mut Frame, area: Rect, view: &PaneView, theme: &Theme) {
    let focused = view.focused.detail;
    // The pane's number, where it is a pane.
    let number = if view.detail_popup {
        String::new()
    } else {
        crate::tui::pane::number(view.keymap, Action::FocusDetail)
    };
    let Some((index, hit)) = view.current else {
        let block = pane(
            Line::from(Span::styled(format!(" {number}Detail "), theme.title)),
            focused,
            theme,
        );
        f.render_widget(Paragraph::new("no tool").block(block), area);
        return;
    };
    // A name too long for the title ends in "…" there, and shows whole as
    // the detail's first line.
    let name = escape(&view.tool(index).name);
    let room = usize::from(area.width).saturating_sub(4 + crate::tui::text::width(&number));
    let title = crate::tui::text::cut(&name, room);
    let block = pane(
        Line::from(Span::styled(format!(" {number}{title} "), theme.title)),
        focused,
        theme,
    );
    let mut lines: Vec<Line> = Vec::new();
    if title != name {
        lines.push(Line::from(vec![
            Span::styled("name: ", theme.key),
            Span::raw(name.into_owned()),
        ]));
    }
    lines.extend(body(view, index, hit, theme));
    render(f, area, block, lines, view, theme);
}

/// The tool's detail under its name: description, flags and cost, where
/// it came from, its warnings, findability, standing, why it ranked, and
/// its schema (folded as the detail says).
fn body<'a>(
    view: &PaneView,
    index: usize,
    hit: Option<&SearchHit>,
    theme: &Theme,
) -> Vec<Line<'a>> {
    let t = view.tool(index);
    let mut lines: Vec<Line> = Vec::new();
    if t.description.trim().is_empty() {
        lines.push(Line::from(Span::styled("(no description)", theme.dim)));
    } else {
        // Its own lines, each escaped as prose: emoji and joined letters
        // show, hidden characters as escapes.
        for line in t.description.trim().lines() {
            lines.push(Line::from(escape_prose(line).into_owned()));
        }
    }
    lines.push(Line::from(""));
    lines.push(meta_line(view, index, theme));
    lines.extend(origin_lines(view, index, theme));
    // The tool's lints, hidden text first: what `toolsift check` warns about.
    let mut lints = lint_tool(t);
    lints.sort_by_key(|l| !l.hidden_text);
    for lint in lints {
        lines.push(Line::from(vec![
            Span::styled("warning: ", theme.error),
            Span::raw(escape(&lint.message).into_owned()),
        ]));
    }
    lines.extend(findability_lines(view, index, theme));
    lines.extend(standing_lines(view, index, theme));
    if let Some(hit) = hit {
        lines.extend(why_lines(hit, theme));
    }
    lines.push(Line::from(""));
    lines.extend(json_lines_folded(&t.input_schema, view.detail.fold, theme));
    lines
}

/// The tool's flags (or that it writes), its tokens under the basis (a
/// tool's share of a request whose overhead is paid once, on the provider
/// bases), the provider's exact count when asked for, and whether it is in
/// the initial set.
fn meta_line<'a>(view: &PaneView, index: usize, theme: &Theme) -> Line<'a> {
    let t = view.tool(index);
    let mut flags = Vec::new();
    if t.always_load {
        flags.push("always-load");
    }
    if t.read_only {
        flags.push("read-only");
    }
    if t.idempotent {
        flags.push("idempotent");
    }
    if flags.is_empty() {
        flags.push("writes, not idempotent");
    }
    let tokens = view
        .tokens_of(index)
        .map_or_else(|| "… tk".to_string(), |n| format!("{} tk", thousands(n)));
    let mut meta = vec![
        Span::styled(flags.join(" · "), theme.always),
        Span::raw(" · "),
    ];
    let basis = view.settings.basis();
    let share = if basis.request_overhead() > 0 {
        ", its share"
    } else {
        ""
    };
    meta.push(Span::raw(format!("{tokens} ({}{share})", basis.label())));
    if let Some(exact) = exact_span(view, index, theme) {
        meta.push(Span::raw(" · "));
        meta.push(exact);
    }
    if view.handle.is_initial(index) {
        meta.push(Span::styled(" · in the initial set", theme.initial));
    }
    Line::from(meta)
}

/// The provider's count of the tool (`--count-with`), or that it is being
/// counted, or why it could not be: the whole reason here, where it wraps
/// (the status line shows it once, cut to its width).
fn exact_span<'a>(view: &PaneView, index: usize, theme: &Theme) -> Option<Span<'a>> {
    let exact = view.exact?;
    let model = crate::terminal_text::escape(&exact.model()).into_owned();
    Some(match view.exact_tool(index) {
        Some(n) => Span::styled(
            format!("{} tk exact ({model}, its share)", thousands(n)),
            theme.initial,
        ),
        None if let Some(e) = exact.failed() => Span::styled(
            format!(
                "{model} could not count ({}); the estimates stand",
                crate::terminal_text::escape(e)
            ),
            theme.error,
        ),
        None => Span::styled(format!("{model} counting…"), theme.dim),
    })
}

/// Why the search found the tool: the query names it, always-load, or its
/// score, then each word that matched, its score and the fields it was in.
fn why_lines<'a>(hit: &SearchHit, theme: &Theme) -> Vec<Line<'a>> {
    let mut why = vec![Span::styled("why: ", theme.key)];
    if hit.explanation.exact_name {
        why.push(Span::styled("the query names it", theme.matched));
    } else if hit.explanation.matches.is_empty() {
        why.push(Span::raw("always-load (no query word matched)"));
    } else if let Some(score) = hit.score {
        why.push(Span::raw(format!("score {score:.2}")));
    }
    let mut lines = vec![Line::from(""), Line::from(why)];
    for m in &hit.explanation.matches {
        let fields: Vec<&str> = m.fields.iter().map(|f| f.label()).collect();
        lines.push(Line::from(vec![
            Span::raw("  "),
            Span::styled(escape(&m.shown()).into_owned(), theme.matched),
            Span::raw(format!(" {:.2} → {}", m.score, fields.join(", "))),
        ]));
    }
    lines
}

/// The detail's lines in `block`: wrapped to the pane, or (`w`) run past
/// its edge and scrolled sideways (the columns shown on the border); the
/// words found marked, scrolled as far as they go (the position on the
/// border), and the find box while the detail has the keys.
fn render(
    f: &mut Frame,
    area: Rect,
    block: ratatui::widgets::Block<'_>,
    lines: Vec<Line<'_>>,
    view: &PaneView,
    theme: &Theme,
) {
    let inner = block.inner(area);
    let width = usize::from(inner.width);
    let d = view.detail;
    let (lines, side) = if d.unwrapped {
        let longest = lines.iter().map(|l| l.width()).max().unwrap_or(0);
        (lines, d.side.set_limit(longest, width))
    } else {
        (wrap(lines, width), 0)
    };
    d.find.record(&lines);
    let lines = d.find.mark(lines, theme.highlight);
    let scroll = d.scroll.set_limit(lines.len(), usize::from(inner.height));
    let at = position(scroll, usize::from(inner.height), lines.len());
    let reserve = at.as_ref().map_or(0, |l| l.width());
    let block = match at {
        Some(at) => block.title_bottom(at),
        None => block,
    };
    let longest = lines.iter().map(|l| l.width()).max().unwrap_or(0);
    let block = if d.unwrapped && longest > width {
        let last = (side + width).min(longest);
        block.title_top(
            Line::from(format!(" cols {}-{last} of {longest} ", side + 1)).right_aligned(),
        )
    } else {
        block
    };
    f.render_widget(block, area);
    f.render_widget(
        Paragraph::new(lines).scroll((
            u16::try_from(scroll).unwrap_or(u16::MAX),
            u16::try_from(side).unwrap_or(u16::MAX),
        )),
        inner,
    );
    if view.focused.detail {
        draw_find(f, area, &d.find, reserve, theme);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::paint::json_lines;

    #[test]
    fn json_is_split_into_styled_parts() {
        let theme = Theme::new(false);
        let v = serde_json::json!({"a \"q\"": "x", "n": 3, "b": true, "o": {"k": null}});
        let lines = json_lines(&v, &theme);
        let text: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
        assert_eq!(text.join("\n"), serde_json::to_string_pretty(&v).unwrap());
        let key_line = lines
            .iter()
            .find(|l| l.to_string().contains("\"n\""))
            .unwrap();
        assert!(
            key_line
                .spans
                .iter()
                .any(|s| s.content == "3" && s.style == theme.json_number)
        );
    }
}
