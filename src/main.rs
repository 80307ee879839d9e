//! The `toolsift` command line: parse, run the command, map its error to an
//! exit code. Everything else is in `cli/`.

use std::process::ExitCode;

use clap::FromArgMatches;

mod cli;

fn main() -> ExitCode {
    // Started as the warden of a toolsift that runs MCP servers: watch it,
    // and never come back here.
    #[cfg(feature = "mcp")]
    toolsift::sources::mcp::run_if_warden();
    // Colour in a panic's report only for a terminal that wants it.
    let plain = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty())
        || !std::io::IsTerminal::is_terminal(&std::io::stderr());
    let hook = color_eyre::config::HookBuilder::default();
    let hook = if plain {
        hook.theme(color_eyre::config::Theme::new())
    } else {
        hook
    };
    let _ = hook.install();
    let matches = cli::defaults_help::command().get_matches();
    let parsed = cli::args::Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    let command = match parsed.into_command() {
        Ok(command) => command,
        Err(e) => {
            eprintln!("{}", cli::output::error_line(&e));
            return ExitCode::from(e.exit_code());
        }
    };
    match cli::run(command.as_ref()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{}", cli::output::error_line(&e));
            ExitCode::from(e.exit_code())
        }
    }
}
