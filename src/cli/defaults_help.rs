//! The defaults `--help` shows for `serve` and `gateway`: read off the
//! settings' own defaults ([`ServeConfig::defaults_shown`],
//! [`GatewayConfig::defaults_shown`]) when the command line is built, so a
//! default is stated once and the help cannot drift from it.

use clap::{Command, CommandFactory};
#[cfg(feature = "mcp")]
use toolsift::gateway::GatewayConfig;
use toolsift::server::ServeConfig;

use super::args::Cli;

/// The command line, its help carrying the defaults.
pub fn command() -> Command {
    let command =
        Cli::command().mut_subcommand("serve", |c| with_defaults(c, ServeConfig::defaults_shown()));
    #[cfg(feature = "mcp")]
    let command = command.mut_subcommand("gateway", |c| {
        with_defaults(c, GatewayConfig::defaults_shown())
    });
    command
}

/// Each flag named by a key of `defaults` with ` (default VALUE)` after its
/// help.
fn with_defaults(mut command: Command, defaults: Vec<(&'static str, String)>) -> Command {
    for (key, value) in defaults {
        command = command.mut_arg(key, |arg| {
            let help = arg.get_help().map(ToString::to_string).unwrap_or_default();
            arg.help(format!("{help} (default {value})"))
        });
    }
    command
}

#[cfg(all(test, feature = "mcp"))]
mod tests {
    use super::*;

    fn help_of(command: &str, flag: &str) -> String {
        let mut cli = super::command();
        let sub = cli.find_subcommand_mut(command).unwrap();
        sub.get_arguments()
            .find(|a| a.get_long() == Some(flag))
            .and_then(|a| a.get_help())
            .map(ToString::to_string)
            .unwrap_or_default()
    }

    #[test]
    fn the_help_shows_the_defaults_the_settings_have() {
        let d = ServeConfig::default();
        assert!(
            help_of("serve", "addr").ends_with(&format!("(default {})", d.addr)),
            "{}",
            help_of("serve", "addr")
        );
        assert!(help_of("serve", "max-body-bytes").ends_with("(default 16,777,216)"));
        assert!(help_of("serve", "gate").ends_with("(default off)"));
        let g = GatewayConfig::default();
        assert!(help_of("gateway", "max-tools").ends_with(&format!("(default {})", g.max_tools)));
        assert!(help_of("gateway", "call-timeout").ends_with("(default 60)"));
        assert!(help_of("gateway", "gate").ends_with("(default on)"));
        // The rankers each flag takes, from the ranker's own list.
        assert!(help_of("serve", "default-ranker").contains("| regex"));
        assert!(!help_of("gateway", "ranker").contains("regex"));
        // Said once: the flag's own text carries no number of its own.
        assert_eq!(
            help_of("serve", "max-body-bytes")
                .matches("default")
                .count(),
            1
        );
    }

    #[test]
    fn the_command_line_is_well_formed() {
        super::command().debug_assert();
    }
}
