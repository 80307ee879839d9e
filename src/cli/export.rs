//! `toolsift export-catalog`: a catalog (files and/or MCP servers) in one
//! format on stdout.

use super::args::ExportArgs;
use super::error::CliError;
use super::output::write_stdout;

pub fn run(args: &ExportArgs) -> Result<(), CliError> {
    if args.catalogs.is_empty() && !args.mcp.any() {
        return Err(CliError::Usage(
            "nothing to export: give CATALOG files, --mcp CONFIG, --mcp-stdio or --mcp-url".into(),
        ));
    }
    let loaded = super::load::catalogs(&args.catalogs, None, &args.mcp)?;
    let text = toolsift::export::export(&loaded.catalog, args.format)?;
    // The payload is data, exact: JSON escapes control characters itself;
    // TOML strings do too (basic strings escape controls).
    write_stdout(&text)
}
