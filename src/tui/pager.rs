//! A text shown in the user's pager: `$PAGER`, else `$EDITOR`, else `less`,
//! run on a file of its own with the terminal (the loop lends it, see
//! [`super::lend`]). Whatever becomes of the program (not found, killed,
//! a non-zero exit) is a sentence for the status line, never a panic.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::terminal_text::escape;

/// The program and its arguments (the variable's value split at spaces),
/// and where they came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Program {
    pub argv: Vec<String>,
    /// `$PAGER`, `$EDITOR` or `less`.
    pub from: &'static str,
}

/// The program to show a file with: `pager` ($PAGER), else `editor`
/// ($EDITOR), else `less` when `less_found`; none: a sentence saying so.
pub fn choose(
    pager: Option<&str>,
    editor: Option<&str>,
    less_found: bool,
) -> Result<Program, NoPager> {
    let split = |v: &str| -> Vec<String> { v.split_whitespace().map(String::from).collect() };
    for (value, from) in [(pager, "$PAGER"), (editor, "$EDITOR")] {
        if let Some(v) = value.filter(|v| !v.trim().is_empty()) {
            return Ok(Program {
                argv: split(v),
                from,
            });
        }
    }
    if less_found {
        return Ok(Program {
            argv: vec!["less".into()],
            from: "less",
        });
    }
    Err(NoPager)
}

/// Neither `$PAGER` nor `$EDITOR` is set, and less is not installed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("not opened: no pager (set $PAGER or $EDITOR; less is not installed)")]
pub struct NoPager;

/// The program this process's environment names.
pub fn from_env() -> Result<Program, NoPager> {
    let var = |name: &str| std::env::var(name).ok();
    choose(
        var("PAGER").as_deref(),
        var("EDITOR").as_deref(),
        on_path("less"),
    )
}

/// `name` is an executable file in a directory of `$PATH`.
fn on_path(name: &str) -> bool {
    std::env::var_os("PATH").is_some_and(|path| {
        std::env::split_paths(&path).any(|dir| {
            let file = dir.join(name);
            file.is_file() && executable(&file)
        })
    })
}

#[cfg(unix)]
fn executable(file: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    file.metadata()
        .is_ok_and(|m| m.permissions().mode() & 0o111 != 0)
}

#[cfg(not(unix))]
fn executable(_: &Path) -> bool {
    true
}

/// A file of `text` in the temporary directory, removed when dropped.
struct TempFile(PathBuf);

impl TempFile {
    fn new(text: &str) -> std::io::Result<TempFile> {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let path =
            std::env::temp_dir().join(format!("toolsift-{}-{n}-{nanos}.json", std::process::id()));
        // A new file only (never one someone put there), readable by us.
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        let mut file = options.open(&path)?;
        // Removed again if the write fails.
        let temp = TempFile(path);
        file.write_all(text.as_bytes())?;
        Ok(temp)
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// Shows `text` (`what` in messages) with `program`, which has the
/// terminal until it exits: the sentence to show afterwards.
pub fn show(program: &Program, text: &str, what: &str) -> String {
    // The program's file name: a status line has no room for its path.
    let name = Path::new(&program.argv[0]).file_name().map_or_else(
        || program.argv[0].clone(),
        |n| n.to_string_lossy().into_owned(),
    );
    let name = escape(&name).into_owned();
    let file = match TempFile::new(text) {
        Ok(f) => f,
        Err(e) => return format!("not opened: a temporary file could not be written: {e}"),
    };
    let status = {
        let _quiet = signals::Deferred::new();
        Command::new(&program.argv[0])
            .args(&program.argv[1..])
            .arg(&file.0)
            .status()
    };
    match status {
        Ok(s) if s.success() => format!("back from {name}: {what}"),
        Ok(s) => format!("{name} ({}) ended with {s}: {what}", program.from),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => format!(
            "not opened: {name} ({}) was not found; set $PAGER to a program that shows a file",
            program.from
        ),
        Err(e) => format!("not opened: {name} ({}) could not start: {e}", program.from),
    }
}

/// Ctrl-C and Ctrl-\ in the program reach this process too (the terminal
/// sends them to the whole foreground group): while it runs they are
/// caught and ignored here, so the program decides what they do. A caught
/// signal is reset for the child on exec (an ignored one would not be).
mod signals {
    #[cfg(unix)]
    pub struct Deferred {
        saved: Vec<(libc::c_int, libc::sigaction)>,
    }

    #[cfg(unix)]
    extern "C" fn nothing(_: libc::c_int) {}

    #[cfg(unix)]
    impl Deferred {
        pub fn new() -> Deferred {
            let mut saved = Vec::new();
            for signal in [libc::SIGINT, libc::SIGQUIT] {
                // SAFETY: a handler that does nothing is async-signal-safe;
                // the previous action is kept and put back on drop.
                unsafe {
                    let mut action: libc::sigaction = std::mem::zeroed();
                    action.sa_sigaction = nothing as extern "C" fn(libc::c_int) as usize;
                    libc::sigemptyset(&mut action.sa_mask);
                    let mut old: libc::sigaction = std::mem::zeroed();
                    if libc::sigaction(signal, &action, &mut old) == 0 {
                        saved.push((signal, old));
                    }
                }
            }
            Deferred { saved }
        }
    }

    #[cfg(unix)]
    impl Drop for Deferred {
        fn drop(&mut self) {
            for (signal, old) in &self.saved {
                // SAFETY: the action saved by `new`, put back as it was.
                unsafe {
                    libc::sigaction(*signal, old, std::ptr::null_mut());
                }
            }
        }
    }

    #[cfg(not(unix))]
    pub struct Deferred;

    #[cfg(not(unix))]
    impl Deferred {
        pub fn new() -> Deferred {
            Deferred
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pager_then_editor_then_less_then_a_sentence() {
        let p = choose(Some("less -R"), Some("vi"), true).unwrap();
        assert_eq!(
            (p.argv, p.from),
            (vec!["less".into(), "-R".into()], "$PAGER")
        );
        let e = choose(Some("  "), Some("nano"), true).unwrap();
        assert_eq!((e.argv, e.from), (vec!["nano".to_string()], "$EDITOR"));
        let l = choose(None, None, true).unwrap();
        assert_eq!((l.argv, l.from), (vec!["less".to_string()], "less"));
        let none = choose(None, Some(""), false).unwrap_err().to_string();
        assert!(none.contains("set $PAGER or $EDITOR"), "{none}");
    }

    #[cfg(unix)]
    #[test]
    fn a_missing_or_failing_program_is_a_sentence_and_the_file_goes() {
        let missing = Program {
            argv: vec!["/nonexistent/toolsift-pager".into()],
            from: "$PAGER",
        };
        let said = show(&missing, "{}", "tool a");
        assert!(said.contains("was not found"), "{said}");
        let failing = Program {
            argv: vec!["false".into()],
            from: "$PAGER",
        };
        let said = show(&failing, "{}", "tool a");
        assert!(said.contains("ended with exit status: 1"), "{said}");
        let fine = Program {
            argv: vec!["true".into()],
            from: "$EDITOR",
        };
        assert_eq!(show(&fine, "{}", "tool a"), "back from true: tool a");
        let left = std::fs::read_dir(std::env::temp_dir())
            .unwrap()
            .filter_map(Result::ok)
            .any(|e| {
                e.file_name()
                    .to_string_lossy()
                    .starts_with(&format!("toolsift-{}-", std::process::id()))
            });
        assert!(!left, "a temporary file was left behind");
    }
}
