//! The explorer in-process, as a test tells a session: an explorer at a
//! size, keys in, the screen out as text (ratatui's `TestBackend`), in the
//! manner of csvlens's tests. Every search and comparison is timed at
//! [`LATENCY`], so the screens do not change from run to run.

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Duration;

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyEventState, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;

use toolsift::catalog::{CatalogSource, load};
use toolsift::search::Searcher;
use toolsift::tui::Setup;
use toolsift::tui::app::App;
use toolsift::tui::effect::{Effect, Msg, run_effect};
use toolsift::tui::screen::compare::SideFound;
use toolsift::tui::screen::job::Answer;
use toolsift::tui::ui;

/// How long every search and comparison takes here.
pub const LATENCY: Duration = Duration::from_micros(210);

/// The setup of `source` (a catalog file, or `@demo`), named as given.
/// The demo catalog is read once for every test that opens it.
pub fn setup_of(source: &str) -> Setup {
    static DEMO: std::sync::OnceLock<Arc<toolsift::catalog::Catalog>> = std::sync::OnceLock::new();
    let catalog = if source == "@demo" {
        DEMO.get_or_init(|| Arc::new(load(&CatalogSource::demo()).unwrap()))
            .clone()
    } else {
        Arc::new(load(&CatalogSource::parse(source)).unwrap())
    };
    let name = if source == "@demo" { "demo" } else { source };
    Setup {
        sources: name.into(),
        ..Setup::new(catalog, Searcher::embedded())
    }
}

/// The explorer of `setup` at `width` x `height`, its first effects run.
pub fn open(setup: Setup, width: u16, height: u16) -> App {
    let (mut app, effects) = App::new(setup).unwrap();
    app.update(Msg::Resize(width, height));
    settle(&mut app, effects);
    app
}

/// The demo explorer at `width` x `height`.
pub fn demo(width: u16, height: u16) -> App {
    open(setup_of("@demo"), width, height)
}

/// The demo explorer at `width` x `height`, as `change` sets it up.
pub fn demo_with(width: u16, height: u16, change: impl FnOnce(&mut Setup)) -> App {
    let mut setup = setup_of("@demo");
    change(&mut setup);
    open(setup, width, height)
}

/// `msg`'s answer, timed at [`LATENCY`].
fn timed(msg: Msg) -> Msg {
    match msg {
        Msg::SearchDone(mut answer) => {
            answer.elapsed = LATENCY;
            Msg::SearchDone(answer)
        }
        Msg::Screen(answer) if answer.get::<SideFound>().is_some() => {
            let mut side = answer.get::<SideFound>().unwrap().clone();
            side.run.elapsed = LATENCY;
            Msg::Screen(Answer::new(answer.screen, side))
        }
        other => other,
    }
}

/// Runs `effects` and what their answers cause, but those `hold` keeps
/// back, which are returned.
pub fn settle_holding(
    app: &mut App,
    effects: Vec<Effect>,
    hold: impl Fn(&Effect) -> bool,
) -> Vec<Effect> {
    let searcher = app.searcher().clone();
    settle_by(&searcher, app, effects, hold)
}

/// [`settle_holding`] with `searcher` answering, not the app's own.
pub fn settle_by(
    searcher: &Searcher,
    app: &mut App,
    effects: Vec<Effect>,
    hold: impl Fn(&Effect) -> bool,
) -> Vec<Effect> {
    let mut queue = VecDeque::from(effects);
    let mut held = Vec::new();
    while let Some(effect) = queue.pop_front() {
        if hold(&effect) {
            held.push(effect);
            continue;
        }
        let msg = timed(run_effect(searcher, effect));
        queue.extend(app.update(msg));
    }
    held
}

/// Runs `effects` and what their answers cause.
pub fn settle(app: &mut App, effects: Vec<Effect>) {
    settle_holding(app, effects, |_| false);
}

/// `msg` told to the app, and what it causes run.
pub fn tell(app: &mut App, msg: Msg) {
    let effects = app.update(msg);
    settle(app, effects);
}

/// One key pressed (no modifier).
pub fn press(app: &mut App, code: KeyCode) {
    press_with(app, code, KeyModifiers::NONE);
}

/// One key pressed with `modifiers`.
pub fn press_with(app: &mut App, code: KeyCode, modifiers: KeyModifiers) {
    tell(
        app,
        Msg::Key(KeyEvent {
            code,
            modifiers,
            kind: KeyEventKind::Press,
            state: KeyEventState::NONE,
        }),
    );
}

/// Keys pressed in order.
pub fn keys(app: &mut App, codes: &[KeyCode]) {
    for &code in codes {
        press(app, code);
    }
}

/// `text` typed, a key per character.
pub fn type_text(app: &mut App, text: &str) {
    for c in text.chars() {
        press(app, KeyCode::Char(c));
    }
}

/// `name` highlighted in the catalog pane (`j` pressed down to its row).
pub fn highlight(app: &mut App, name: &str) {
    let index = app.catalog().index_of(name).unwrap();
    let row = app
        .catalog_view()
        .rows
        .iter()
        .position(|&i| i == index)
        .unwrap_or_else(|| panic!("{name} is not in the catalog pane"));
    keys(app, &vec![KeyCode::Char('j'); row]);
}

/// The screen drawn at the app's size.
pub fn drawn(app: &App) -> Buffer {
    let (w, h) = app.size();
    let mut terminal = Terminal::new(TestBackend::new(w, h)).unwrap();
    terminal.draw(|f| ui::draw(f, app)).unwrap();
    terminal.backend().buffer().clone()
}

/// The screen as text, as insta's snapshots hold it.
pub fn screen(app: &App) -> String {
    let (w, h) = app.size();
    let mut terminal = Terminal::new(TestBackend::new(w, h)).unwrap();
    terminal.draw(|f| ui::draw(f, app)).unwrap();
    format!("{}", terminal.backend())
}

/// The screen's rows, as text.
pub fn rows(app: &App) -> Vec<String> {
    let buffer = drawn(app);
    let area = buffer.area;
    (area.y..area.bottom())
        .map(|y| {
            (area.x..area.right())
                .map(|x| buffer[(x, y)].symbol())
                .collect()
        })
        .collect()
}

/// The words of `rows`, in order.
pub fn words(rows: &[String]) -> Vec<String> {
    rows.iter()
        .flat_map(|r| r.split_whitespace().map(String::from).collect::<Vec<_>>())
        .collect()
}
