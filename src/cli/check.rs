//! `toolsift check`: a catalog's tools, flags, token costs, initial set and
//! lints.

use toolsift::check::CheckReport;
use toolsift::tokens::TokenCounter;

use super::args::CheckArgs;
use super::error::CliError;
use super::output::emit;

pub fn run(args: &CheckArgs) -> Result<(), CliError> {
    let settings = args.handle.settings()?;
    let loaded =
        super::mcp::load(&args.catalogs, Some("@demo"), &args.mcp).map_err(CliError::Mcp)?;
    let mut report = CheckReport::new(
        loaded.catalog,
        &settings.handle_options(),
        settings.basis(),
        &TokenCounter::new(),
    )?;
    report.servers = loaded.servers.iter().map(Into::into).collect();
    report.strategy_chosen = args.handle.strategy_chosen();
    emit(args.json, &report, || report.render_text())?;
    match report.strict_error() {
        Some(e) if args.strict => Err(CliError::HiddenText(e)),
        _ => Ok(()),
    }
}
