//! The `toolsift` command line: parse, run the command, map its error to an
//! exit code. Everything else is in `cli/`.

use std::process::ExitCode;

use clap::FromArgMatches;

mod cli;

fn main() -> ExitCode {
    let _ = color_eyre::install();
    let matches = cli::defaults_help::command().get_matches();
    let parsed = cli::args::Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    match cli::run(parsed.command.as_ref()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{}", cli::output::error_line(&e));
            ExitCode::from(e.exit_code())
        }
    }
}
