//! The terminal explorer: one [`App`](app::App), one message channel, pure
//! drawing. The loop ([`run_with`]) is generic over the ratatui backend and
//! over the source of its messages, so tests and scripts drive it with
//! `TestBackend` and a [`Script`](event::Script).

pub mod action;
pub mod app;
pub mod breaker;
pub mod demo;
pub mod event;
pub mod help;
pub mod keymap;
pub mod layout;
pub mod line_input;
pub mod tune;
pub mod ui;

use std::sync::Arc;

use futures_util::{Stream, StreamExt};
use ratatui::Terminal;
use ratatui::backend::Backend;
use tokio::sync::mpsc::{UnboundedSender, unbounded_channel};

use app::{App, Effect, Msg, run_effect};
use keymap::Keymap;

use crate::catalog::Catalog;
use crate::search::Searcher;
use crate::settings::Settings;

/// Everything the explorer starts from, checked before the terminal opens.
pub struct Setup {
    pub catalog: Arc<Catalog>,
    pub sources: String,
    pub settings: Settings,
    pub keymap: Keymap,
    pub no_color: bool,
    /// Live MCP servers the catalog came from, if any.
    pub mcp: Option<Arc<crate::sources::mcp::McpHost>>,
    pub mcp_servers: Vec<crate::sources::mcp::ServerStatus>,
    /// Where searches go: the embedded service or a remote one.
    pub searcher: Searcher,
    /// The Tune screen's request file (JSONL or `@demo`), if any.
    pub queries: Option<String>,
    /// Where the settings are saved.
    pub config_path: Option<std::path::PathBuf>,
    /// Tokens the context can spend on tools (the full-catalog fallback).
    pub context_budget: Option<u64>,
}

/// True while the explorer owns the terminal (raw mode, alternate screen):
/// a signal handler then restores it before exiting.
static TERMINAL_IN_USE: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

pub fn terminal_in_use() -> bool {
    TERMINAL_IN_USE.load(std::sync::atomic::Ordering::SeqCst)
}

/// Runs an effect off the UI thread; its answer comes back on `tx`. A
/// dense ranker's search as you type goes through `lane`.
fn spawn_effect(searcher: &Searcher, effect: Effect, tx: &UnboundedSender<Msg>, lane: &Arc<Lane>) {
    let searcher = searcher.clone();
    let tx = tx.clone();
    let dense_preview = matches!(&effect, Effect::Search { request, interim: false, .. }
        if request.preview && request.ranker.is_some_and(|r| r.needs_embeddings()));
    if dense_preview {
        lane.submit(effect, move |e| {
            let _ = tx.send(run_effect(&searcher, e));
        });
        return;
    }
    tokio::task::spawn_blocking(move || {
        let _ = tx.send(run_effect(&searcher, effect));
    });
}

/// Effects run one at a time, newest first: one submitted while another
/// runs waits, and replaces any still waiting, whose work is dropped
/// unstarted. Dense searches as you type go here, so a burst of keystrokes
/// embeds the query being run and the latest one, not every prefix.
#[derive(Default)]
pub struct Lane {
    /// The effect waiting, and whether a worker runs.
    state: std::sync::Mutex<(Option<Effect>, bool)>,
}

impl Lane {
    /// Queues `effect` in place of the one waiting; a worker thread runs
    /// `run` on each in turn until none waits.
    pub fn submit(self: &Arc<Self>, effect: Effect, run: impl Fn(Effect) + Send + 'static) {
        {
            let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
            state.0 = Some(effect);
            if state.1 {
                return;
            }
            state.1 = true;
        }
        let lane = self.clone();
        std::thread::spawn(move || {
            loop {
                let next = {
                    let mut state = lane.state.lock().unwrap_or_else(|p| p.into_inner());
                    match state.0.take() {
                        Some(e) => e,
                        None => {
                            state.1 = false;
                            return;
                        }
                    }
                };
                run(next);
            }
        });
    }
}

/// Forwards `source` into the loop's channel, then the end of input.
async fn forward<S>(mut source: S, tx: UnboundedSender<Msg>)
where
    S: Stream<Item = Msg> + Unpin,
{
    while let Some(msg) = source.next().await {
        if tx.send(msg).is_err() {
            return;
        }
    }
    let _ = tx.send(Msg::InputClosed);
}

/// The loop: draw, wait for a message (from `source`, or an effect's
/// answer), update, run effects, draw again. It draws only after something
/// happened, so an idle explorer does nothing. It returns when the app
/// quits; the end of `source` quits it. Needs a tokio runtime (`source` is
/// read by a task of its own, effects run on the blocking pool, script
/// pauses on its clock).
pub async fn run_with<B, S>(
    terminal: &mut Terminal<B>,
    app: &mut App,
    initial: Vec<Effect>,
    source: S,
) -> Result<(), B::Error>
where
    B: Backend,
    S: Stream<Item = Msg> + Unpin + Send + 'static,
{
    let (tx, mut rx) = unbounded_channel();
    let lane = Arc::new(Lane::default());
    let size = terminal.size()?;
    app.update(Msg::Resize(size.width, size.height));
    for effect in initial {
        spawn_effect(&app.searcher, effect, &tx, &lane);
    }
    terminal.draw(|f| ui::draw(f, app))?;
    let reader = tokio::spawn(forward(source, tx.clone()));
    let result = async {
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
                spawn_effect(&app.searcher, effect, &tx, &lane);
            }
            terminal.draw(|f| ui::draw(f, app))?;
        }
        Ok(())
    }
    .await;
    reader.abort();
    result
}

/// Gives the terminal back as it was: mouse reports off, raw mode off, the
/// main screen back.
pub fn restore_terminal() {
    let _ = crossterm::execute!(std::io::stdout(), crossterm::event::DisableMouseCapture);
    ratatui::restore();
}

/// Restores the terminal on every way out of [`run`], panics included
/// (ratatui's own panic hook covers those).
struct Restore;

impl Drop for Restore {
    fn drop(&mut self) {
        TERMINAL_IN_USE.store(false, std::sync::atomic::Ordering::SeqCst);
        restore_terminal();
    }
}

/// Opens the explorer in this terminal and runs it until the user quits.
pub fn run(setup: Setup) -> std::io::Result<()> {
    run_from(setup, |_| Box::pin(event::terminal_events()))
}

/// Plays a demo tour (`steps`, at `speed`) in this terminal, steered by the
/// viewer's keys; returns at its end or when the viewer quits.
pub fn run_demo(setup: Setup, steps: Vec<event::ScriptStep>, speed: f64) -> std::io::Result<()> {
    run_from(setup, move |app| {
        app.demo = Some(false);
        Box::pin(demo::player(steps, speed, event::terminal_events()))
    })
}

type Source = std::pin::Pin<Box<dyn Stream<Item = Msg> + Send>>;

/// Opens the explorer in this terminal with messages from `source` (made
/// once the app exists, inside the runtime).
fn run_from(setup: Setup, source: impl FnOnce(&mut App) -> Source) -> std::io::Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let (mut app, initial) = App::new(
        setup.catalog,
        setup.sources,
        setup.searcher,
        setup.keymap,
        setup.settings,
    )
    .map_err(|e| std::io::Error::other(e.to_string()))?;
    app.no_color = setup.no_color;
    app.mcp = setup.mcp;
    app.mcp_servers = setup.mcp_servers;
    app.tune = tune::TunePane::new(setup.queries);
    app.config_path = setup.config_path;
    app.context_budget = setup.context_budget;
    runtime.block_on(async {
        let source = source(&mut app);
        let mut terminal = ratatui::init();
        TERMINAL_IN_USE.store(true, std::sync::atomic::Ordering::SeqCst);
        let _restore = Restore;
        // Clicks and the wheel (everything they do, keys do too).
        let _ = crossterm::execute!(std::io::stdout(), crossterm::event::EnableMouseCapture);
        run_with(&mut terminal, &mut app, initial, source).await
    })?;
    runtime.shutdown_background();
    // A real call still under way holds the MCP host, so dropping the app
    // would not stop the servers: stop them here.
    if app.mcp.as_ref().is_some_and(|h| Arc::strong_count(h) > 1) {
        crate::sources::mcp::kill_all_servers();
    }
    Ok(())
}

#[cfg(test)]
mod lane_tests {
    use super::*;
    use std::sync::Mutex;
    use std::time::Duration;

    fn refresh(generation: u64) -> Effect {
        Effect::Refresh {
            after: Duration::ZERO,
            generation,
        }
    }

    #[test]
    fn a_lane_runs_the_first_and_the_newest_and_drops_those_between() {
        let lane = Arc::new(Lane::default());
        let ran = Arc::new(Mutex::new(Vec::new()));
        let (started_tx, started_rx) = std::sync::mpsc::channel();
        let (go_tx, go_rx) = std::sync::mpsc::channel::<()>();
        let go_rx = Arc::new(Mutex::new(go_rx));
        let run = |ran: Arc<Mutex<Vec<u64>>>,
                   started: std::sync::mpsc::Sender<u64>,
                   go: Arc<Mutex<std::sync::mpsc::Receiver<()>>>| {
            move |e: Effect| {
                let Effect::Refresh { generation, .. } = e else {
                    unreachable!()
                };
                let _ = started.send(generation);
                // The first waits until the test has queued the others.
                if generation == 1 {
                    let _ = go.lock().unwrap().recv();
                }
                ran.lock().unwrap().push(generation);
            }
        };
        lane.submit(
            refresh(1),
            run(ran.clone(), started_tx.clone(), go_rx.clone()),
        );
        assert_eq!(started_rx.recv_timeout(Duration::from_secs(10)), Ok(1));
        for g in 2..=5 {
            lane.submit(
                refresh(g),
                run(ran.clone(), started_tx.clone(), go_rx.clone()),
            );
        }
        go_tx.send(()).unwrap();
        assert_eq!(started_rx.recv_timeout(Duration::from_secs(10)), Ok(5));
        // The worker ends once nothing waits; a new effect starts another.
        for _ in 0..1000 {
            if !lane.state.lock().unwrap().1 {
                break;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        assert_eq!(*ran.lock().unwrap(), vec![1, 5]);
        lane.submit(
            refresh(6),
            run(ran.clone(), started_tx.clone(), go_rx.clone()),
        );
        assert_eq!(started_rx.recv_timeout(Duration::from_secs(10)), Ok(6));
    }
}
