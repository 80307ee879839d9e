//! The terminal explorer: one [`App`](app::App), one message channel, pure
//! drawing. The loop is generic over the ratatui backend, so tests drive it
//! with `TestBackend`.

pub mod action;
pub mod app;
pub mod breaker;
pub mod keymap;
pub mod ui;

use std::sync::Arc;

use crossterm::event::{Event, EventStream};
use futures_util::StreamExt;
use ratatui::Terminal;
use ratatui::backend::Backend;
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender, unbounded_channel};

use app::{App, Effect, Msg, Settings, run_effect};
use keymap::Keymap;

use crate::catalog::Catalog;
use crate::search::Searcher;

/// Everything the explorer starts from, checked before the terminal opens.
pub struct Setup {
    pub catalog: Arc<Catalog>,
    pub sources: String,
    pub settings: Settings,
    pub keymap: Keymap,
    pub no_color: bool,
}

/// Runs an effect off the UI thread; its answer comes back on `tx`.
fn spawn_effect(searcher: &Searcher, effect: Effect, tx: &UnboundedSender<Msg>) {
    let searcher = searcher.clone();
    let tx = tx.clone();
    tokio::task::spawn_blocking(move || {
        let _ = tx.send(run_effect(&searcher, effect));
    });
}

/// Terminal events into messages, until the terminal closes; then the
/// explorer quits rather than waiting for keys that cannot come.
async fn read_events(tx: UnboundedSender<Msg>) {
    let mut events = EventStream::new();
    while let Some(event) = events.next().await {
        let msg = match event {
            Ok(Event::Key(key)) => Msg::Key(key),
            Ok(Event::Resize(w, h)) => Msg::Resize(w, h),
            Ok(_) => continue,
            Err(_) => break,
        };
        if tx.send(msg).is_err() {
            return;
        }
    }
    let _ = tx.send(Msg::InputClosed);
}

/// The loop: draw, wait for a message, update, run effects, draw again. It
/// draws only after something happened, so an idle explorer does nothing.
pub async fn run_loop<B: Backend>(
    terminal: &mut Terminal<B>,
    app: &mut App,
    initial: Vec<Effect>,
    tx: UnboundedSender<Msg>,
    mut rx: UnboundedReceiver<Msg>,
) -> Result<(), B::Error> {
    for effect in initial {
        spawn_effect(&app.searcher, effect, &tx);
    }
    terminal.draw(|f| ui::draw(f, app))?;
    while let Some(msg) = rx.recv().await {
        let mut effects = app.update(msg);
        // Take whatever else is waiting before drawing once.
        while let Ok(more) = rx.try_recv() {
            effects.extend(app.update(more));
        }
        if app.should_quit {
            break;
        }
        for effect in effects {
            spawn_effect(&app.searcher, effect, &tx);
        }
        terminal.draw(|f| ui::draw(f, app))?;
    }
    Ok(())
}

/// Restores the terminal on every way out of [`run`], panics included
/// (ratatui's own panic hook covers those).
struct Restore;

impl Drop for Restore {
    fn drop(&mut self) {
        ratatui::restore();
    }
}

/// Opens the explorer in this terminal and runs it until the user quits.
pub fn run(setup: Setup) -> std::io::Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let searcher = Searcher::embedded();
    let (mut app, initial) = App::new(
        setup.catalog,
        setup.sources,
        searcher,
        setup.keymap,
        setup.settings,
    )
    .map_err(|e| std::io::Error::other(e.to_string()))?;
    app.no_color = setup.no_color;
    runtime.block_on(async {
        let mut terminal = ratatui::init();
        let _restore = Restore;
        if let Ok(size) = terminal.size() {
            app.size = (size.width, size.height);
        }
        let (tx, rx) = unbounded_channel();
        tokio::spawn(read_events(tx.clone()));
        run_loop(&mut terminal, &mut app, initial, tx, rx).await
    })?;
    runtime.shutdown_background();
    Ok(())
}
