//! What the loop does to the terminal besides drawing, between two frames:
//! a clipboard sequence written ([`super::osc52`]).

use ratatui::Terminal;
use ratatui::backend::Backend;

use super::effect::{Effect, Msg};
use super::osc52;

/// The terminal as the loop sees it besides drawing.
pub trait Host {
    /// Writes `bytes` (a clipboard sequence) to the terminal, or says why
    /// not.
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<()>;
    /// Whether sequences reach a real terminal (see [`super::osc52::Target`]).
    fn target<R>(&self, see: impl FnOnce(super::osc52::Target<'_>) -> R) -> R;
}

/// No terminal (tests drawing into a `TestBackend`): nothing is written.
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
}

/// This process's terminal (standard output), in the explorer's modes.
pub struct Attached;

impl Host for Attached {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        use std::io::Write;
        let mut out = std::io::stdout().lock();
        out.write_all(bytes)?;
        out.flush()
    }

    fn target<R>(&self, see: impl FnOnce(super::osc52::Target<'_>) -> R) -> R {
        super::osc52::Target::with_env(see)
    }
}

/// The effect needs the terminal: the loop carries it out itself.
pub fn needs_terminal(effect: &Effect) -> bool {
    matches!(effect, Effect::Copy { .. })
}

/// Carries out an effect that needs the terminal ([`Effect::Copy`])
/// between two frames: the messages it answers with.
pub async fn carry_out<B: Backend, H: Host>(
    _terminal: &mut Terminal<B>,
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
                Ok(()) => done,
                Err(e) => format!("{what} not copied: {e}"),
            },
            Err(why) => format!("{what} {why}; {instead}"),
        },
        // The others run off the UI thread (`super::effect::spawn`).
        _ => return Ok(Vec::new()),
    };
    Ok(vec![Msg::Status(said)])
}
