//! `toolsift completions SHELL` and `toolsift man`: what a shell and `man`
//! need, generated from the same clap definitions as the help.

use super::args::CompletionsArgs;
use super::error::CliError;
use super::output::write_stdout;

pub fn completions(args: &CompletionsArgs) -> Result<(), CliError> {
    let mut command = super::defaults_help::command();
    let mut out = Vec::new();
    clap_complete::generate(args.shell, &mut command, "toolsift", &mut out);
    write_stdout(&String::from_utf8_lossy(&out))
}

/// The manual page: the top command's, then one section per command.
pub fn man() -> Result<(), CliError> {
    let command = super::defaults_help::command();
    let mut out = Vec::new();
    let man = clap_mangen::Man::new(command.clone());
    man.render_title(&mut out)?;
    man.render_name_section(&mut out)?;
    man.render_synopsis_section(&mut out)?;
    man.render_description_section(&mut out)?;
    man.render_options_section(&mut out)?;
    for sub in command.get_subcommands().filter(|s| !s.is_hide_set()) {
        let name = format!("toolsift {}", sub.get_name());
        let sub_man = clap_mangen::Man::new(sub.clone().bin_name(name));
        out.extend_from_slice(format!(".SH \"{}\"\n", sub.get_name().to_uppercase()).as_bytes());
        sub_man.render_synopsis_section(&mut out)?;
        sub_man.render_description_section(&mut out)?;
        sub_man.render_options_section(&mut out)?;
    }
    man.render_version_section(&mut out)?;
    write_stdout(&String::from_utf8_lossy(&out))
}
