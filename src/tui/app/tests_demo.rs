//! The demo tour's captions, each checked against the screen it is shown
//! over: what a caption says, the figures on screen support.

use super::tests::settle;
use super::tests_finish::draw;
use crate::tui::demo::{DEFAULT_SCRIPT, parse_script};
use crate::tui::event::{ScriptStep, expand};

/// Plays the default tour at `width`x`height` and gives each caption with
/// the screen at the end of its time (what the viewer looks at longest).
fn play(width: u16, height: u16) -> Vec<(String, Vec<String>)> {
    let catalog =
        std::sync::Arc::new(crate::catalog::load(&crate::catalog::CatalogSource::demo()).unwrap());
    let (mut app, effects) = super::App::new(crate::tui::Setup::demo(catalog)).unwrap();
    settle(&mut app, effects);
    app.update(super::Msg::Resize(width, height));
    let steps = parse_script(DEFAULT_SCRIPT, "assets/demo.toml").unwrap();
    let mut shown = Vec::new();
    let mut caption: Option<String> = None;
    // The screen the caption is read over: the last before a screen it
    // speaks of is closed.
    let mut screen = draw(&app);
    let mut closed = false;
    for step in expand(steps, std::time::Duration::ZERO) {
        if let ScriptStep::Caption(next) = &step {
            if let Some(c) = caption.take() {
                shown.push((c, screen.clone()));
            }
            caption = next.clone();
            closed = false;
        }
        let closes = matches!(&step, ScriptStep::Action(a)
            if a.name().ends_with("_close") || a.name() == "input_cancel");
        closed |= closes && caption.is_some();
        if let Some(msg) = step.into_msg() {
            let effects = app.update(msg);
            settle(&mut app, effects);
        }
        if !closed {
            screen = draw(&app);
        }
    }
    if let Some(c) = caption {
        shown.push((c, screen));
    }
    shown
}

/// A figure of the Tune screen's line that starts with `mark` ("█ now",
/// "• recommended"): its cap, share of requests all loaded, tokens sent.
fn tune_line(rows: &[String], mark: &str) -> (u64, f64, u64) {
    let line = rows
        .iter()
        .find_map(|r| r.find(mark).map(|at| &r[at..]))
        .unwrap_or_else(|| panic!("no {mark:?} line:\n{}", rows.join("\n")));
    let number = |after: &str| -> String {
        let at = line
            .find(after)
            .unwrap_or_else(|| panic!("{after:?} in {line}"))
            + after.len();
        line[at..]
            .chars()
            .take_while(|c| c.is_ascii_digit() || *c == '.' || *c == ',')
            .filter(|c| *c != ',')
            .collect()
    };
    let share = line
        .split(" · ")
        .map(|p| p.trim_end_matches(['┃', ' ']))
        .find(|p| p.ends_with("% all loaded"))
        .and_then(|p| p.trim_end_matches("% all loaded").parse().ok())
        .unwrap_or_else(|| panic!("no share in {line}"));
    let tokens = line
        .split(" · ")
        .map(|p| p.trim_end_matches(['┃', ' ']))
        .find(|p| p.ends_with(" tokens sent"))
        .and_then(|p| {
            p.trim_end_matches(" tokens sent")
                .replace(',', "")
                .parse()
                .ok()
        })
        .unwrap_or(0);
    (number("cap ").parse().unwrap(), share, tokens)
}

/// The names of the Results pane's numbered rows (the searched tools, the
/// always-load ones left out), best first.
fn searched(rows: &[String]) -> Vec<String> {
    rows.iter()
        .filter_map(|r| {
            r.split('│').find_map(|cell| {
                let mut words = cell.trim_start_matches(['›', ' ']).split_whitespace();
                words.next()?.parse::<usize>().ok()?;
                words.next().map(str::to_string)
            })
        })
        .collect()
}

#[test]
fn every_caption_of_the_tour_is_true_of_its_screen_at_three_sizes() {
    for (w, h) in [(80, 24), (120, 35), (200, 60)] {
        captions_hold(w, h);
    }
}

fn captions_hold(w: u16, h: u16) {
    let tour = play(w, h);
    let screen = |i: usize| tour[i].1.join("\n");
    let at = |start: &str| {
        tour.iter()
            .position(|(c, _)| c.starts_with(start))
            .unwrap_or_else(|| panic!("no caption starting {start:?}"))
    };
    let has = |i: usize, needles: &[&str]| {
        for n in needles {
            assert!(
                screen(i).contains(n),
                "{w}x{h}: {:?} wants {n:?}:\n{}",
                tour[i].0,
                screen(i)
            );
        }
    };
    has(
        at("Strategy all sends every tool"),
        &["this turn sends all 10,445 tk (strategy all)"],
    );
    has(at("Deferred sends only"), &["8 + 4 always-load)", "●"]);
    has(
        at("Then each request"),
        &["this search sends", "refund_payment"],
    );
    let second = at("A second request");
    assert_eq!(
        searched(&tour[second].1).first().map(String::as_str),
        Some("get_oncall_schedule"),
        "{}",
        screen(second)
    );
    has(
        at("A third"),
        &["★ search_knowledge_base", "★ get_current_user"],
    );
    has(at("A request no tool fits"), &["no tool fits this request"]);
    has(
        at("Compare: the same request"),
        &["strategy all (1/2)", "Compare ·"],
    );
    // The second way sends what the first did not: the gate's answer
    // turned over, found by the engine on the tour's request.
    let other = at("→ steps the right side");
    has(other, &["gate off (2/2)", "held back"]);
    assert!(!screen(other).contains("same tools"), "{}", screen(other));
    let only: usize = screen(other)
        .split("only gate off ")
        .nth(1)
        .and_then(|t| t.split(|c: char| !c.is_ascii_digit()).next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{w}x{h}: no count:\n{}", screen(other)));
    assert!(only > 0, "{w}x{h}:\n{}", screen(other));
    let tune = at("Tune: each cap");
    has(tune, &["all loaded %", "mean tokens sent"]);
    // Raising the cap: the mark moves, more tokens, no fewer served.
    let (cap0, share0, tokens0) = tune_line(&tour[tune].1, "█ now");
    let (cap1, share1, tokens1) = tune_line(&tour[at("Raise the cap")].1, "█ now");
    assert!(
        cap1 > cap0 && tokens1 > tokens0 && share1 >= share0,
        "{cap0} {cap1}"
    );
    // Applying: the cap in force is the recommended one, which meets the
    // target the screen gives.
    let apply = at("One key applies");
    let (now, _, _) = tune_line(&tour[apply].1, "█ now");
    let (rec, share, _) = tune_line(&tour[apply].1, "• recommended");
    assert_eq!(now, rec, "{}", screen(apply));
    // (The target, as the Tune screen gave it before.)
    let target: f64 = screen(tune)
        .split("target ")
        .nth(1)
        .and_then(|t| t.split('%').next())
        .and_then(|t| t.parse().ok())
        .unwrap_or_else(|| panic!("no target: {}", screen(tune)));
    assert!(share >= target, "{share} < {target}");
    has(at("An agent stuck"), &["Breaker simulator"]);
    has(at("...and the retry-loop breaker"), &["BLOCKED"]);
    has(
        at("Live: a recorded gateway session"),
        &["Live ·", "3 misses", "! search"],
    );
    has(
        at("m lists the misses"),
        &[
            "called a tool search did not return",
            "wanted read_channel_history",
        ],
    );
    // The detail (a popup where no pane fits) says what the gateway
    // answered, with the request in the query box or its words in the
    // detail.
    let why = at("Enter on the miss");
    has(why, &["read_channel_history", "standing at the gateway"]);
    assert!(
        screen(why).contains("find tickets about SSO login failures")
            || screen(why).contains("tickets, about, sso, login"),
        "{w}x{h}:\n{}",
        screen(why)
    );
    // The caching line: in the conversation costs less than added to the
    // list, which costs less than all up front.
    let whole = screen(at("$ prices 10 turns"));
    let caching = whole
        .lines()
        .find(|l| l.contains("in conversation "))
        .unwrap_or_else(|| panic!("{w}x{h}: no caching line:\n{whole}"))
        .replace("all up front ", "all ");
    let figure = |after: &str| -> f64 {
        let at = caching
            .find(after)
            .unwrap_or_else(|| panic!("{after:?} in:\n{caching}"))
            + after.len();
        let text: String = caching[at..]
            .chars()
            .take_while(|c| c.is_ascii_digit() || *c == '.' || *c == 'k')
            .collect();
        match text.strip_suffix('k') {
            Some(n) => n.parse::<f64>().unwrap() * 1000.0,
            None => text.parse().unwrap(),
        }
    };
    let (all, conv, list) = (
        figure("all "),
        figure("in conversation "),
        figure("added to list "),
    );
    assert!(conv < list && list < all, "{conv} {list} {all}:\n{caching}");
}

#[test]
fn every_caption_fits_on_two_lines_with_no_word_cut_and_hides_no_message_at_three_sizes() {
    for (caption, rows) in [(80, 24), (120, 35), (200, 60)]
        .into_iter()
        .flat_map(|(w, h)| play(w, h))
    {
        let screen = rows.join("\n");
        // Each word of the caption is on screen, whole.
        for word in caption.split_whitespace() {
            assert!(
                screen.contains(word),
                "{caption:?}: {word:?} is cut:\n{screen}"
            );
        }
        assert!(!screen.contains("…║"), "{screen}");
        // Help and quit, as the demo takes them: its own keys.
        let last = rows.last().unwrap();
        assert!(
            last.contains("q quit") && last.contains("? help"),
            "{screen}"
        );
        // A message on the bottom line starts on screen: its first words
        // are not under the caption's box.
        if rows.iter().any(|r| r.contains("L: back to live")) {
            assert!(
                screen.contains("read_channel_history: the detail says"),
                "{caption:?}: the message's start is hidden:\n{screen}"
            );
        }
    }
}

/// The rows right above the caption's box, trimmed, joined by spaces, and
/// the bottom line.
fn above_caption(rows: &[String]) -> (String, &str) {
    let top = rows
        .iter()
        .position(|r| r.starts_with('╔'))
        .unwrap_or_else(|| panic!("no caption:\n{}", rows.join("\n")));
    let above: Vec<&str> = rows[..top].iter().map(|r| r.trim()).collect();
    (above.join(" "), rows.last().unwrap())
}

#[test]
fn a_long_message_reads_in_one_piece_above_the_caption_at_80x24() {
    // The tour's detail step: its message whole right above the box, the
    // keys alone on the bottom line.
    let tour = play(80, 24);
    let (_, rows) = tour
        .iter()
        .find(|(c, _)| c.starts_with("Enter on the miss"))
        .unwrap();
    let message = "read_channel_history: the detail says the gateway's answer beside toolsift's (Esc: the catalog; L: back to live)";
    let (above, bottom) = above_caption(rows);
    assert!(
        above.ends_with(message),
        "{message:?} not in one piece over the caption:\n{}",
        rows.join("\n")
    );
    assert!(!bottom.contains("back to live"), "{}", rows.join("\n"));
    assert!(
        bottom.contains("? help") && bottom.contains("q quit"),
        "{bottom}"
    );

    // `?` pauses and says the keys: the same, whole above the box.
    let catalog =
        std::sync::Arc::new(crate::catalog::load(&crate::catalog::CatalogSource::demo()).unwrap());
    let (mut app, effects) = super::App::new(crate::tui::Setup::demo(catalog)).unwrap();
    settle(&mut app, effects);
    app.update(super::Msg::Resize(80, 24));
    for msg in [
        super::Msg::Caption(Some("toolsift: what a tool catalog costs".into())),
        super::Msg::DemoPaused(true),
        super::Msg::Status(crate::tui::demo::HELP.into()),
    ] {
        let effects = app.update(msg);
        settle(&mut app, effects);
    }
    let rows = draw(&app);
    let (above, bottom) = above_caption(&rows);
    assert!(
        above.ends_with(crate::tui::demo::HELP),
        "the pause's text not in one piece over the caption:\n{}",
        rows.join("\n")
    );
    assert!(!bottom.contains("explore"), "{}", rows.join("\n"));
    assert!(bottom.contains("Space resume"), "{bottom}");
}
