//! What a command prints on stdout: its text report or, with `--json`, one
//! JSON value; both safe on a terminal.

use std::io::Write;

use toolsift::terminal_text;

use super::error::CliError;

/// Prints `value` as pretty JSON with `--json`, else the text report. Both
/// are safe on a terminal: the JSON escapes every control character (and
/// still parses to the exact strings), each report escapes the untrusted
/// text it shows, and any control character left (none should be) is escaped
/// here, newlines and tabs of the layout aside.
pub fn emit<T: serde::Serialize>(
    json: bool,
    value: &T,
    text: impl FnOnce() -> String,
) -> Result<(), CliError> {
    if json {
        let mut out = terminal_text::json_for_terminal(value)?;
        out.push('\n');
        write_stdout(&out)
    } else {
        write_stdout(&terminal_text::escape_layout(&text()))
    }
}

/// Writes to stdout; a closed pipe (`| head`) is not an error worth a message.
pub fn write_stdout(text: &str) -> Result<(), CliError> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|_| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(e.into()),
        _ => Ok(()),
    }
}

/// A line of an error for stderr: messages quote catalogs, configs and
/// traces, so what a terminal would act on is escaped (the messages' own
/// newlines stay).
pub fn error_line(e: &CliError) -> String {
    format!("toolsift: {}", terminal_text::escape_layout(&e.to_string()))
}
