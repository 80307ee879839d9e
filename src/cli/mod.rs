//! The command line: clap definitions in [`args`], one file per command,
//! the shared flag groups ([`embed`], [`mcp`], [`service`], [`handle`]), the
//! error type and exit codes ([`error`]) and what goes on stdout
//! ([`output`]).

pub mod args;
pub mod check;
pub mod completions;
pub mod count;
pub mod defaults_help;
#[cfg(feature = "tui")]
pub mod demo;
pub mod embed;
pub mod error;
pub mod eval;
mod eval_args;
#[cfg(feature = "tui")]
pub mod explore;
pub mod export;
#[cfg(feature = "mcp")]
pub mod gateway;
pub mod handle;
pub mod load;
pub mod login;
pub mod mcp;
pub mod mcp_error;
#[cfg(feature = "mcp")]
pub mod mcp_live;
pub mod model;
#[cfg(bundled_model)]
mod model_status;
pub mod output;
pub mod replay;
pub mod search;
pub mod serve;
pub mod service;
pub mod tune;

use args::Command;
#[cfg(feature = "tui")]
use args::ExploreArgs;
use error::CliError;

/// `--version`: the package's, and the commit it was built from when built
/// from a git checkout (`0.1.0 (1a2b3c4d5 2026-12-01)`).
pub const VERSION: &str = env!("TOOLSIFT_VERSION");

/// Runs one command (the explorer when none is given).
pub fn run(command: Option<&Command>) -> Result<(), CliError> {
    ranking_model()?;
    match command {
        Some(Command::Check(args)) => check::run(args),
        Some(Command::Replay(args)) => replay::run(args),
        Some(Command::Eval(args)) => eval::run(args),
        Some(Command::Search(args)) => search::run(args),
        #[cfg(feature = "tui")]
        Some(Command::Explore(args)) => explore::run_explore(args),
        Some(Command::Serve(args)) => serve::run(args),
        #[cfg(feature = "mcp")]
        Some(Command::Gateway(args)) => gateway::run(args),
        #[cfg(not(feature = "mcp"))]
        Some(Command::Gateway(_)) => Err(CliError::Usage(mcp_error::WITHOUT_MCP.into())),
        Some(Command::ExportCatalog(args)) => export::run(args),
        Some(Command::Tune(args)) => tune::run(args),
        Some(Command::Model(args)) => model::run(args),
        Some(Command::Login(args)) => login::login(args),
        Some(Command::Logout(args)) => login::logout(args),
        #[cfg(feature = "tui")]
        Some(Command::Demo(args)) => demo::run(args),
        Some(Command::Completions(args)) => completions::completions(args),
        Some(Command::Man) => completions::man(),
        #[cfg(feature = "tui")]
        None => explore::run_explore(&ExploreArgs::default()),
        #[cfg(not(feature = "tui"))]
        Some(Command::Explore(_) | Command::Demo(_)) | None => Err(CliError::Usage(
            "this toolsift was built without the tui feature, so it has no explorer: its commands are check, search, eval, tune, replay, export-catalog, serve and gateway (toolsift --help); install toolsift with its default features for the explorer".into(),
        )),
    }
}

/// `TOOLSIFT_RANKING_MODEL`: a model file of `scripts/train-ranker.py` that
/// `hybrid` ranks with instead of the packaged one, or `off` for none (the
/// fused order and the hand-set gate): to measure a model before it is
/// packaged (docs/development.md).
fn ranking_model() -> Result<(), CliError> {
    let Some(value) = std::env::var_os("TOOLSIFT_RANKING_MODEL").filter(|v| !v.is_empty()) else {
        return Ok(());
    };
    let model = if value == "off" {
        None
    } else {
        let text = std::fs::read_to_string(&value).map_err(|e| CliError::Read {
            path: value.to_string_lossy().into_owned(),
            source: e,
        })?;
        Some(toolsift::engine::learned::Model::parse(&text).map_err(|e| {
            CliError::Usage(format!(
                "TOOLSIFT_RANKING_MODEL {}: {e}",
                toolsift::terminal_text::escape(&value.to_string_lossy())
            ))
        })?)
    };
    toolsift::engine::learned::Model::choose(model);
    Ok(())
}
