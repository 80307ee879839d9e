//! Text to the clipboard through the terminal: OSC 52 (`ESC ] 52 ; c ;
//! <base64> BEL`), which the terminal carries out wherever it runs, so it
//! works over SSH. Inside tmux the same sequence goes to tmux, which sets
//! its own buffer and the outer terminal's clipboard when its
//! `set-clipboard` option is `on` (tmux's passthrough, `ESC P tmux; …`, is
//! off by default since tmux 3.3, and `set-clipboard` is the way tmux
//! documents); the text also goes to tmux's paste buffer
//! ([`tmux_load_buffer`]), which needs no option. The sequence is base64,
//! so no byte of the text reaches the terminal as itself.

use base64::Engine as _;

/// The longest sequence written: some terminals drop longer ones (hterm
/// and others stop near 100 KB), so a larger copy is refused with a word
/// instead of failing silently.
pub const MAX_SEQUENCE_BYTES: usize = 100_000;

/// Where the sequence would go, as far as the explorer can tell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Target<'a> {
    /// Standard output is a terminal.
    pub tty: bool,
    /// `$TERM`.
    pub term: Option<&'a str>,
    /// `$TMUX` is set.
    pub tmux: bool,
}

impl Target<'_> {
    /// This process's terminal, from its environment.
    pub fn with_env<R>(run: impl FnOnce(Target<'_>) -> R) -> R {
        use std::io::IsTerminal;
        let term = std::env::var("TERM").ok();
        run(Target {
            tty: std::io::stdout().is_terminal(),
            term: term.as_deref(),
            tmux: std::env::var_os("TMUX").is_some_and(|v| !v.is_empty()),
        })
    }
}

/// The OSC 52 sequence that puts `text` on the clipboard.
pub fn sequence(text: &str) -> Vec<u8> {
    let encoded = base64::engine::general_purpose::STANDARD.encode(text.as_bytes());
    let mut out = Vec::with_capacity(encoded.len() + 8);
    out.extend_from_slice(b"\x1b]52;c;");
    out.extend_from_slice(encoded.as_bytes());
    out.push(0x07);
    out
}

/// Why a text is not copied (said on the status line).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NotCopied {
    #[error("not copied: standard output is not a terminal")]
    NoTerminal,
    #[error("not copied: TERM=dumb, the terminal takes no clipboard sequences")]
    DumbTerminal,
    /// The text's bytes, more than terminals take.
    #[error(
        "not copied: {} bytes is more than terminals take through OSC 52 (about {} KB)",
        crate::numbers::thousands(*.0 as u64),
        MAX_SEQUENCE_BYTES / 4 * 3 / 1000
    )]
    TooLong(usize),
}

/// The sequence for `text` to `target`, or why it is not written.
pub fn copy(text: &str, target: Target) -> Result<Vec<u8>, NotCopied> {
    if !target.tty {
        return Err(NotCopied::NoTerminal);
    }
    if matches!(target.term, Some("dumb")) {
        return Err(NotCopied::DumbTerminal);
    }
    let bytes = sequence(text);
    if bytes.len() > MAX_SEQUENCE_BYTES {
        return Err(NotCopied::TooLong(text.len()));
    }
    Ok(bytes)
}

/// Why tmux's paste buffer did not take a text.
#[derive(Debug, thiserror::Error)]
pub enum NotBuffered {
    #[error("not inside tmux")]
    NotInTmux,
    #[error("cannot run tmux: {0}")]
    NoTmux(std::io::Error),
    #[error("tmux load-buffer: {0}")]
    Io(std::io::Error),
    /// tmux's own words, escaped.
    #[error("tmux load-buffer failed: {0}")]
    Refused(String),
}

/// `text` into tmux's paste buffer (`tmux load-buffer -w -`: `-w` sends it
/// on to the outer terminal's clipboard where tmux can), for a tmux whose
/// `set-clipboard` is off or `external`.
pub fn tmux_load_buffer(text: &str) -> Result<(), NotBuffered> {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let mut child = Command::new("tmux")
        .args(["load-buffer", "-w", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(NotBuffered::NoTmux)?;
    if let Some(mut stdin) = child.stdin.take() {
        stdin.write_all(text.as_bytes()).map_err(NotBuffered::Io)?;
    }
    let out = child.wait_with_output().map_err(NotBuffered::Io)?;
    if out.status.success() {
        Ok(())
    } else {
        let why = String::from_utf8_lossy(&out.stderr);
        Err(NotBuffered::Refused(
            crate::terminal_text::escape(why.trim()).into_owned(),
        ))
    }
}

/// What the status line says after `bytes` of `what` went to the terminal.
pub fn copied(what: &str, bytes: usize, target: Target) -> String {
    // Whether the terminal honours OSC 52 cannot be known from here: say
    // what was done, and what it takes.
    format!(
        "sent {what} to the terminal as OSC 52 ({} bytes): on the clipboard where the terminal allows it{}",
        crate::numbers::thousands(bytes as u64),
        if target.tmux {
            " (tmux: set-clipboard on)"
        } else {
            ""
        }
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const TTY: Target = Target {
        tty: true,
        term: Some("xterm-256color"),
        tmux: false,
    };

    #[test]
    fn the_sequence_is_osc_52_of_the_text_in_base64() {
        assert_eq!(sequence("hi"), b"\x1b]52;c;aGk=\x07".to_vec());
        // Controls in the text never reach the terminal as themselves.
        let bytes = sequence("a\x1b]0;x\x07\u{9b}");
        assert_eq!(bytes, b"\x1b]52;c;YRtdMDt4B8Kb\x07".to_vec());
        assert_eq!(bytes.iter().filter(|&&b| b == 0x1b).count(), 1);
        assert_eq!(copy("hi", TTY), Ok(sequence("hi")));
    }

    #[test]
    fn inside_tmux_the_plain_sequence_goes_to_tmux() {
        let tmux = Target { tmux: true, ..TTY };
        assert_eq!(copy("{}", tmux), Ok(b"\x1b]52;c;e30=\x07".to_vec()));
        assert_eq!(
            copied("a", 1234, tmux),
            "sent a to the terminal as OSC 52 (1,234 bytes): on the clipboard where the terminal allows it (tmux: set-clipboard on)"
        );
    }

    #[test]
    fn no_terminal_a_dumb_one_or_too_much_is_refused_plainly() {
        let no_tty = Target { tty: false, ..TTY };
        assert!(
            copy("x", no_tty)
                .unwrap_err()
                .to_string()
                .contains("not a terminal")
        );
        let dumb = Target {
            term: Some("dumb"),
            ..TTY
        };
        assert!(
            copy("x", dumb)
                .unwrap_err()
                .to_string()
                .contains("TERM=dumb")
        );
        let most = "a".repeat((MAX_SEQUENCE_BYTES - 8) / 4 * 3);
        assert_eq!(copy(&most, TTY).map(|b| b.len()), Ok(MAX_SEQUENCE_BYTES));
        let big = format!("{most}aaa");
        let why = copy(&big, TTY).unwrap_err().to_string();
        assert!(
            why.contains("74,997 bytes is more than terminals take"),
            "{why}"
        );
    }
}
