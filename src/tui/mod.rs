//! The terminal explorer: one [`App`](app::App), one message channel, pure
//! drawing. The loop ([`run_with`]) is generic over the ratatui backend and
//! over the source of its messages, so tests and scripts drive it with
//! `TestBackend` and a [`Script`](event::Script).
//!
//! Below the loop: [`app`] (the state and its one update function), the
//! main screen's panes ([`pane`], a folder each: the state with its keys,
//! and its drawing), the frame around them ([`ui`]: header, status line,
//! gauges, and the panes' places), the screens over them ([`screen`], a
//! folder each as well), [`effect`] (messages, effects and the code that
//! runs them).

pub mod action;
pub mod app;
pub mod between_frames;
pub mod cmdline;
pub mod demo;
pub mod effect;
pub mod event;
mod fetch;
pub mod find;
pub mod help;
pub mod keymap;
pub mod layout;
pub mod line_input;
pub mod list;
pub mod osc52;
pub mod pager;
pub mod paint;
pub mod pane;
pub mod record;
pub mod screen;
pub mod servers;
pub mod session;
mod setup;
pub mod text;
pub mod ui;
pub mod watch;

use std::sync::Arc;

use futures_util::{Stream, StreamExt};
use ratatui::Terminal;
use ratatui::backend::Backend;
use tokio::sync::mpsc::{UnboundedSender, unbounded_channel};
use tokio::task::AbortHandle;

use app::App;
use effect::{Effect, Lane, Msg};
pub use setup::{Follow, Setup};

/// True while the explorer owns the terminal (raw mode, alternate screen):
/// a signal handler then restores it before exiting.
static TERMINAL_IN_USE: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

pub fn terminal_in_use() -> bool {
    TERMINAL_IN_USE.load(std::sync::atomic::Ordering::SeqCst)
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
/// pauses on its clock). No terminal is behind `terminal` here: a copy or
/// a pager says so ([`between_frames::Detached`]).
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
    run_on(
        terminal,
        &mut between_frames::Detached,
        app,
        initial,
        source,
    )
    .await
}

/// [`run_with`] with `host`, what is behind the terminal: the clipboard
/// and the terminal lent to a pager ([`between_frames::Host`]).
pub async fn run_on<B, H, S>(
    terminal: &mut Terminal<B>,
    host: &mut H,
    app: &mut App,
    initial: Vec<Effect>,
    source: S,
) -> Result<(), B::Error>
where
    B: Backend,
    H: between_frames::Host,
    S: Stream<Item = Msg> + Unpin + Send + 'static,
{
    let (tx, mut rx) = unbounded_channel();
    let lane = Arc::new(Lane::default());
    let size = terminal.size()?;
    app.update(Msg::Resize(size.width, size.height));
    for effect in initial {
        effect::spawn(app.searcher(), effect, &tx, &lane);
    }
    // Stamped before the first frame: an edit made once the catalog shows
    // is seen, however late the watcher's task first runs.
    let stamps = watch::stamps(app.watched_files());
    terminal.draw(|f| ui::draw(f, app))?;
    let mut beside = Beside::start(app, source, stamps, &tx);
    let result = async {
        while let Some(msg) = rx.recv().await {
            let mut effects = app.update(msg);
            // Take whatever else is waiting before drawing once.
            while let Ok(more) = rx.try_recv() {
                effects.extend(app.update(more));
            }
            if app.should_quit() {
                break;
            }
            for effect in effects {
                if let Effect::Follow(source) = effect {
                    // What was followed stops; the new source's notes come.
                    beside.follow(source);
                } else if between_frames::needs_terminal(&effect) {
                    // Between frames, on this thread: nothing draws meanwhile.
                    for msg in between_frames::carry_out(terminal, host, effect).await? {
                        let _ = tx.send(msg);
                    }
                } else {
                    effect::spawn(app.searcher(), effect, &tx, &lane);
                }
            }
            // `r` may have asked for the search model again.
            fetch::start_if_asked(app, &tx);
            terminal.draw(|f| ui::draw(f, app))?;
        }
        Ok(())
    }
    .await;
    beside.stop();
    result
}

/// The tasks running beside the loop, each sending its messages into the
/// loop's channel: the message source read, the watched files, the MCP
/// servers still starting, and the traffic followed. All stop with the
/// loop.
struct Beside {
    tx: UnboundedSender<Msg>,
    /// The source's reader, the watcher and the servers' follower.
    tasks: Vec<AbortHandle>,
    /// The traffic followed (`explore --follow`, `:follow`), if any.
    follower: Option<AbortHandle>,
}

impl Beside {
    /// Starts the source's reader and the files' watcher, the search
    /// model's fetch when asked for, a login's page said in the status
    /// line, the servers still starting and the traffic followed.
    fn start<S>(
        app: &mut App,
        source: S,
        stamps: crate::file_stamps::FileStamps,
        tx: &UnboundedSender<Msg>,
    ) -> Self
    where
        S: Stream<Item = Msg> + Unpin + Send + 'static,
    {
        let mut tasks = vec![
            tokio::spawn(forward(source, tx.clone())).abort_handle(),
            tokio::spawn(watch::watch(stamps, tx.clone())).abort_handle(),
        ];
        // The search model, fetched off the UI thread (the first run).
        fetch::start_if_asked(app, tx);
        say_login_pages(app, tx);
        // The MCP servers still starting: their tools join as they come.
        let start = app.take_mcp_start();
        if let (Some(host), Some(start)) = (app.mcp_host(), start) {
            let servers = servers::follow(host.clone(), start, tx.clone());
            tasks.push(tokio::spawn(servers).abort_handle());
        }
        let mut beside = Beside {
            tx: tx.clone(),
            tasks,
            follower: None,
        };
        if let Some(source) = app.followed_source() {
            beside.follow(source);
        }
        beside
    }

    /// Follows `source`, each note a [`Msg::Followed`], in place of what
    /// was followed.
    fn follow(&mut self, source: crate::follow::Source) {
        let tx = self.tx.clone();
        let task = tokio::spawn(crate::follow::follow(source, move |note| {
            tx.send(Msg::Followed(note)).is_ok()
        }));
        if let Some(old) = self.follower.replace(task.abort_handle()) {
            old.abort();
        }
    }

    /// Stops every task.
    fn stop(self) {
        for task in self.tasks.into_iter().chain(self.follower) {
            task.abort();
        }
    }
}

/// A login's page, said in the status line (the explorer starts a login
/// only when asked: `log_in`).
fn say_login_pages(app: &App, tx: &UnboundedSender<Msg>) {
    if let Some(host) = app.mcp_host() {
        let tx = tx.clone();
        host.log_in_when_needed(
            false,
            Arc::new(move |server, url, shown| {
                let _ = tx.send(Msg::LoginPage {
                    server: server.to_string(),
                    url: url.to_string(),
                    opened: shown == crate::sources::mcp::login::Shown::Browser,
                });
            }),
        );
    }
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
    run_from(setup, || Box::pin(event::terminal_events()))
}

/// Plays a demo tour (`steps`, at `speed`) in this terminal, steered by the
/// viewer's keys; returns at its end or when the viewer quits.
pub fn run_demo(setup: Setup, steps: Vec<event::ScriptStep>, speed: f64) -> std::io::Result<()> {
    let setup = Setup {
        demo: true,
        ..setup
    };
    run_from(setup, move || {
        Box::pin(demo::player(steps, speed, event::terminal_events()))
    })
}

/// What a recording wrote.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Recorded {
    /// The recording's length in seconds.
    pub seconds: f64,
}

/// Plays a demo tour (`steps`, at `speed`) unattended, with no terminal,
/// and writes it to `out` as an asciicast v2 recording of `size` (columns,
/// rows) titled `title`: as long to make as the tour is to watch.
pub fn record_demo<W: std::io::Write>(
    setup: Setup,
    steps: Vec<event::ScriptStep>,
    speed: f64,
    size: (u16, u16),
    title: &str,
    out: W,
) -> std::io::Result<Recorded> {
    let setup = Setup {
        demo: true,
        ..setup
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let (mut app, initial) = App::new(setup).map_err(|e| std::io::Error::other(e.to_string()))?;
    let (width, height) = size;
    let cast = record::Cast::new(out, width, height, title)?;
    let backend = record::Recording::new(cast, ratatui::layout::Size::new(width, height));
    let mut terminal = Terminal::new(backend)?;
    let start = std::time::Instant::now();
    terminal.clear()?;
    runtime.block_on(async {
        // No viewer: the tour plays on its own to its end.
        let source = demo::player(steps, speed, futures_util::stream::pending());
        run_with(&mut terminal, &mut app, initial, source).await
    })?;
    runtime.shutdown_background();
    if app.mcp_host().is_some_and(|h| Arc::strong_count(h) > 1) {
        crate::sources::mcp::kill_all_servers();
    }
    // The last frame stays; the cursor and colours as a terminal expects.
    terminal.backend_mut().write_raw(b"\x1b[0m\x1b[?25h")?;
    Ok(Recorded {
        seconds: start.elapsed().as_secs_f64(),
    })
}

type Source = std::pin::Pin<Box<dyn Stream<Item = Msg> + Send>>;

/// Opens the explorer in this terminal with messages from `source` (made
/// inside the runtime).
fn run_from(setup: Setup, source: impl FnOnce() -> Source) -> std::io::Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let (mut app, initial) = App::new(setup).map_err(|e| std::io::Error::other(e.to_string()))?;
    runtime.block_on(async {
        let source = source();
        let mut terminal = ratatui::init();
        TERMINAL_IN_USE.store(true, std::sync::atomic::Ordering::SeqCst);
        let _restore = Restore;
        // Clicks and the wheel (everything they do, keys do too).
        let _ = crossterm::execute!(std::io::stdout(), crossterm::event::EnableMouseCapture);
        run_on(
            &mut terminal,
            &mut between_frames::Attached,
            &mut app,
            initial,
            source,
        )
        .await
    })?;
    runtime.shutdown_background();
    // A real call still under way holds the MCP host, so dropping the app
    // would not stop the servers: stop them here.
    if app.mcp_host().is_some_and(|h| Arc::strong_count(h) > 1) {
        crate::sources::mcp::kill_all_servers();
    }
    Ok(())
}
