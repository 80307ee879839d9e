//! `toolsift replay TRACE.jsonl`: a trace of tool calls through the
//! retry-loop breaker.

use super::args::ReplayArgs;
use super::error::CliError;
use super::output::emit;

pub fn run(args: &ReplayArgs) -> Result<(), CliError> {
    let threshold = toolsift::breaker::parse_threshold("--threshold", &args.threshold)
        .map_err(|e| CliError::Usage(e.to_string()))?;
    let calls = toolsift::replay::load_trace(&args.trace)?;
    let report = toolsift::replay::replay(&calls, threshold);
    emit(args.json, &report, || report.render_text())
}
