//! What the loop does to the terminal besides drawing, between two frames:
//! a clipboard sequence written ([`super::osc52`]), and the terminal lent
//! to another program (a pager) and taken back as it was.
//!
//! Lending takes three things: the input source lets go of the terminal's
//! input (crossterm's reader would otherwise take the program's keys), the
//! explorer's modes are left (mouse reports, raw mode, the alternate
//! screen), and after the program they come back and everything is drawn
//! again. [`Lending`] is the handshake with the source: the terminal's
//! events ([`events`]) drop their reader when asked and make a new one when
//! the terminal is given back.

use std::sync::OnceLock;
use std::time::Duration;

use crossterm::event::{Event, EventStream};
use futures_util::{Stream, StreamExt, stream};
use tokio::sync::watch;

use ratatui::Terminal;
use ratatui::backend::Backend;

use super::effect::{Effect, Msg};
use super::{osc52, pager};

/// Who reads the terminal's input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hold {
    /// The input source.
    Reading,
    /// The loop asked the source to let go.
    Asked,
    /// Nobody: the source let go.
    Released,
}

/// The handshake between the loop and the terminal's input source.
#[derive(Debug)]
pub struct Lending {
    hold: watch::Sender<Hold>,
}

impl Default for Lending {
    fn default() -> Self {
        Lending {
            hold: watch::Sender::new(Hold::Reading),
        }
    }
}

impl Lending {
    /// The one of this process's terminal.
    pub fn terminal() -> &'static Lending {
        static ONE: OnceLock<Lending> = OnceLock::new();
        ONE.get_or_init(Lending::default)
    }

    /// Asks the source to let go of the input; true once it has (false
    /// after `wait`: no source reads the terminal, or it is stuck).
    pub async fn take(&self, wait: Duration) -> bool {
        let mut hold = self.hold.subscribe();
        self.hold.send_replace(Hold::Asked);
        tokio::time::timeout(wait, hold.wait_for(|h| *h == Hold::Released))
            .await
            .is_ok_and(|r| r.is_ok())
    }

    /// The source may read again.
    pub fn give_back(&self) {
        self.hold.send_replace(Hold::Reading);
    }

    /// The source's side, once it has let go of the input: says so, and
    /// waits until the terminal is given back (or asked for again, which
    /// it answers the same way). None: the loop is gone.
    async fn released(&self, hold: &mut watch::Receiver<Hold>) -> Option<()> {
        self.hold.send_if_modified(|h| {
            let asked = *h == Hold::Asked;
            if asked {
                *h = Hold::Released;
            }
            asked
        });
        hold.wait_for(|h| *h != Hold::Released).await.ok()?;
        Some(())
    }
}

fn to_msg(event: Event) -> Option<Msg> {
    match event {
        Event::Key(key) => Some(Msg::Key(key)),
        Event::Resize(w, h) => Some(Msg::Resize(w, h)),
        Event::Mouse(m) => Some(Msg::Mouse(m)),
        _ => None,
    }
}

/// The terminal's keys, resizes and mouse, read only while `lending` lets
/// the source read (its reader dropped while the terminal is lent). The
/// stream ends when the input does (closed or broken).
pub fn events(lending: &'static Lending) -> impl Stream<Item = Msg> + Unpin + Send + 'static {
    let start = (None::<EventStream>, lending.hold.subscribe());
    Box::pin(stream::unfold(
        start,
        move |(mut reader, mut hold)| async move {
            loop {
                if *hold.borrow_and_update() != Hold::Reading {
                    // Dropping the reader stops its thread reading the terminal.
                    drop(reader.take());
                    lending.released(&mut hold).await?;
                    continue;
                }
                let events = reader.get_or_insert_with(EventStream::new);
                tokio::select! {
                    changed = hold.changed() => changed.ok()?,
                    event = events.next() => {
                        if let Some(msg) = to_msg(event?.ok()?) {
                            return Some((msg, (reader, hold)));
                        }
                    }
                }
            }
        },
    ))
}

/// The terminal as the loop sees it besides drawing.
pub trait Host {
    /// Writes `bytes` (a clipboard sequence) to the terminal, or says why
    /// not.
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<()>;
    /// Whether sequences reach a real terminal (see [`super::osc52::Target`]).
    fn target<R>(&self, see: impl FnOnce(super::osc52::Target<'_>) -> R) -> R;
    /// Leaves the explorer's modes, runs `run` with the terminal, comes
    /// back; None when there is no terminal to lend.
    fn lend(&mut self, run: &mut dyn FnMut() -> String) -> Option<String>;
    /// Inside tmux: puts `text` in tmux's paste buffer too (`tmux
    /// load-buffer -w -`), which works whatever tmux's `set-clipboard`
    /// says; `Err` says why not.
    fn tmux_buffer(&mut self, _text: &str) -> Result<(), super::osc52::NotBuffered> {
        Err(super::osc52::NotBuffered::NotInTmux)
    }
}

/// No terminal (tests drawing into a `TestBackend`): nothing is written or
/// lent.
pub struct Detached;

impl Host for Detached {
    fn write(&mut self, _: &[u8]) -> std::io::Result<()> {
        Ok(())
    }

    fn target<R>(&self, see: impl FnOnce(super::osc52::Target<'_>) -> R) -> R {
        see(super::osc52::Target {
            tty: false,
            term: None,
            tmux: false,
        })
    }

    fn lend(&mut self, _: &mut dyn FnMut() -> String) -> Option<String> {
        None
    }
}

/// This process's terminal (standard output), in the explorer's modes.
pub struct Attached;

impl Host for Attached {
    fn tmux_buffer(&mut self, text: &str) -> Result<(), super::osc52::NotBuffered> {
        super::osc52::tmux_load_buffer(text)
    }

    fn write(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        use std::io::Write;
        let mut out = std::io::stdout().lock();
        out.write_all(bytes)?;
        out.flush()
    }

    fn target<R>(&self, see: impl FnOnce(super::osc52::Target<'_>) -> R) -> R {
        super::osc52::Target::with_env(see)
    }

    fn lend(&mut self, run: &mut dyn FnMut() -> String) -> Option<String> {
        use crossterm::{cursor, event, execute, terminal};
        let mut out = std::io::stdout();
        let _ = execute!(out, event::DisableMouseCapture, cursor::Show);
        let _ = terminal::disable_raw_mode();
        let _ = execute!(out, terminal::LeaveAlternateScreen);
        let said = run();
        let _ = terminal::enable_raw_mode();
        let _ = execute!(
            out,
            terminal::EnterAlternateScreen,
            event::EnableMouseCapture,
            cursor::Hide
        );
        Some(said)
    }
}

/// The effect needs the terminal: the loop carries it out itself.
pub fn needs_terminal(effect: &Effect) -> bool {
    matches!(
        effect,
        Effect::Copy { .. } | Effect::Page { .. } | Effect::Suspend
    )
}

/// Carries out an effect that needs the terminal ([`Effect::Copy`],
/// [`Effect::Page`]) between two frames: the messages it answers with.
/// After a pager everything is drawn again, at the size the terminal has
/// now.
pub async fn carry_out<B: Backend, H: Host>(
    terminal: &mut Terminal<B>,
    host: &mut H,
    effect: Effect,
) -> Result<Vec<Msg>, B::Error> {
    let said = match effect {
        Effect::Copy {
            text,
            what,
            instead,
        } => match host
            .target(|t| osc52::copy(&text, t).map(|b| (b, osc52::copied(&what, text.len(), t))))
        {
            Ok((bytes, done)) => match host.write(&bytes) {
                // Inside tmux the text goes to tmux's paste buffer too: the
                // clipboard sequence needs `set-clipboard on`, the buffer
                // does not.
                Ok(()) if host.target(|t| t.tmux) => match host.tmux_buffer(&text) {
                    Ok(()) => format!(
                        "copied {what} to tmux's paste buffer (prefix ] pastes; {} bytes), and sent it as OSC 52 for the clipboard",
                        crate::numbers::thousands(text.len() as u64)
                    ),
                    Err(why) => format!("{done}; not in tmux's paste buffer: {why}"),
                },
                Ok(()) => done,
                Err(e) => format!("{what} not copied: {e}"),
            },
            Err(why) => format!("{what} {why}; {instead}"),
        },
        Effect::Page { text, what } => {
            if !host.target(|t| t.tty) {
                return Ok(vec![Msg::Status(format!("{what} not opened: no terminal"))]);
            }
            let program = match pager::from_env() {
                Ok(p) => p,
                Err(why) => return Ok(vec![Msg::Status(why.to_string())]),
            };
            let lending = Lending::terminal();
            lending.take(Duration::from_secs(2)).await;
            let said = host.lend(&mut || pager::show(&program, &text, &what));
            lending.give_back();
            // Everything drawn again, at the size the terminal has now
            // (`Terminal::clear` would ask the terminal where its cursor is).
            let size = terminal.size()?;
            terminal.resize(ratatui::layout::Rect::new(0, 0, size.width, size.height))?;
            let said = said.unwrap_or_else(|| format!("{what} not opened: no terminal"));
            return Ok(vec![
                Msg::Resize(size.width, size.height),
                Msg::Status(said),
            ]);
        }
        Effect::Suspend => {
            let lending = Lending::terminal();
            lending.take(Duration::from_secs(2)).await;
            let said = host.lend(&mut || {
                // Stopped here until the shell's `fg` continues it.
                #[cfg(unix)]
                // SAFETY: raise() only sends this process a signal.
                unsafe {
                    libc::raise(libc::SIGTSTP);
                }
                "back from the shell".to_string()
            });
            lending.give_back();
            let size = terminal.size()?;
            terminal.resize(ratatui::layout::Rect::new(0, 0, size.width, size.height))?;
            let said = said.unwrap_or_else(|| "not suspended: no terminal".into());
            return Ok(vec![
                Msg::Resize(size.width, size.height),
                Msg::Status(said),
            ]);
        }
        // The others run off the UI thread (`super::effect::spawn`).
        _ => return Ok(Vec::new()),
    };
    Ok(vec![Msg::Status(said)])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_source_lets_go_when_asked_and_reads_again_when_given_back() {
        let lending: &'static Lending = Box::leak(Box::default());
        // No source: the loop stops waiting.
        assert!(!lending.take(Duration::from_millis(20)).await);
        lending.give_back();
        let mut hold = lending.hold.subscribe();
        let source = tokio::spawn(async move {
            loop {
                // As `events` does, with no reader to drop.
                if *hold.borrow_and_update() != Hold::Reading {
                    if lending.released(&mut hold).await.is_none() {
                        return;
                    }
                    continue;
                }
                if hold.changed().await.is_err() {
                    return;
                }
            }
        });
        assert!(lending.take(Duration::from_secs(10)).await);
        assert_eq!(*lending.hold.borrow(), Hold::Released);
        // Given back and asked for again before the source looked.
        lending.give_back();
        assert_eq!(*lending.hold.borrow(), Hold::Reading);
        assert!(lending.take(Duration::from_secs(10)).await);
        lending.give_back();
        tokio::task::yield_now().await;
        assert!(lending.take(Duration::from_secs(10)).await);
        source.abort();
    }
}
