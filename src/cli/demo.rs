//! `toolsift demo`: the explorer's captioned tour, played in this terminal
//! or recorded to an asciicast file (`--record`).

use super::args::DemoArgs;
use super::error::CliError;
use toolsift::tui::event::ScriptStep;

/// The script is read and checked before the terminal is touched; the
/// tour runs on the demo catalog with the built-in settings and keys (what
/// its captions describe), whatever the user's config says.
pub fn run(args: &DemoArgs) -> Result<(), CliError> {
    use std::io::IsTerminal;
    if !(args.speed.is_finite() && args.speed > 0.0 && args.speed <= 100.0) {
        return Err(CliError::Usage(format!(
            "--speed must be above 0 and at most 100, not {}",
            args.speed
        )));
    }
    let steps = script(args)?;
    if let Some(path) = &args.record {
        return record(args, path, steps);
    }
    if !std::io::stdout().is_terminal() || !std::io::stdin().is_terminal() {
        return Err(CliError::Usage(
            "the demo needs a terminal (stdin and stdout are not both a tty); --record FILE writes it to a file instead".into(),
        ));
    }
    toolsift::tui::run_demo(setup()?, steps, args.speed).map_err(CliError::Terminal)
}

/// The tour's steps: `--script`'s, or the built-in tour.
fn script(args: &DemoArgs) -> Result<Vec<ScriptStep>, CliError> {
    Ok(match &args.script {
        Some(path) => {
            let text = std::fs::read_to_string(path).map_err(|source| CliError::Read {
                path: path.display().to_string(),
                source,
            })?;
            toolsift::tui::demo::parse_script(&text, &path.display().to_string())
        }
        None => toolsift::tui::demo::parse_script(
            toolsift::tui::demo::DEFAULT_SCRIPT,
            "built-in demo script",
        ),
    }?)
}

/// The demo catalog, with the built-in settings; `NO_COLOR` honoured.
fn setup() -> Result<toolsift::tui::Setup, CliError> {
    let catalog = std::sync::Arc::new(toolsift::catalog::load(
        &toolsift::catalog::CatalogSource::demo(),
    )?);
    let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    Ok(toolsift::tui::Setup {
        no_color,
        ..toolsift::tui::Setup::demo(catalog)
    })
}

/// `--record FILE`: the tour played unattended into an asciicast v2 file
/// of `--size`; what it does said on stderr (stdout stays free).
fn record(args: &DemoArgs, path: &std::path::Path, steps: Vec<ScriptStep>) -> Result<(), CliError> {
    let (min_cols, min_rows) = toolsift::tui::layout::MIN_SIZE;
    let size = args.size;
    if size.cols < min_cols || size.rows < min_rows {
        return Err(CliError::Usage(format!(
            "--size {}x{} is below the explorer's smallest screen, {min_cols}x{min_rows}",
            size.cols, size.rows
        )));
    }
    let shown = path.display().to_string();
    let file = std::fs::File::create(path).map_err(|source| CliError::Write {
        path: shown.clone(),
        source,
    })?;
    let seconds = toolsift::tui::demo::length(&steps, args.speed).as_secs();
    eprintln!(
        "toolsift demo: recording the tour at {}x{} to {} (about {seconds} s)…",
        size.cols,
        size.rows,
        toolsift::terminal_text::escape(&shown)
    );
    let recorded = toolsift::tui::record_demo(
        setup()?,
        steps,
        args.speed,
        (size.cols, size.rows),
        "toolsift demo",
        std::io::BufWriter::new(file),
    )
    .map_err(|source| CliError::Write {
        path: shown.clone(),
        source,
    })?;
    eprintln!(
        "toolsift demo: {:.0} s recorded to {}; play it with `asciinema play {}`",
        recorded.seconds,
        toolsift::terminal_text::escape(&shown),
        toolsift::terminal_text::escape(&shown)
    );
    Ok(())
}
