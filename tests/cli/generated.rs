//! What is generated from the clap definitions: `--version` with the commit,
//! shell completions, the man page.

use crate::common;

fn stdout(args: &[&str]) -> String {
    let out = common::run(args);
    assert!(out.status.success(), "{args:?}: {out:?}");
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn version_names_the_package_and_the_commit_when_built_from_git() {
    let v = stdout(&["--version"]);
    assert!(
        v.starts_with(&format!("toolsift {}", env!("CARGO_PKG_VERSION"))),
        "{v}"
    );
    let in_git = std::process::Command::new("git")
        .args(["rev-parse", "--short=9", "HEAD"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .ok()
        .filter(|o| o.status.success());
    if let Some(out) = in_git {
        // Built from this checkout: the commit is in the version (the build
        // reruns when HEAD moves, so it is this checkout's, or an ancestor's
        // when the test binary was built before the last commit).
        let commit = String::from_utf8_lossy(&out.stdout).trim().to_string();
        let shown = v
            .split('(')
            .nth(1)
            .and_then(|r| r.split(' ').next())
            .unwrap_or("");
        assert_eq!(shown.len(), commit.len(), "{v}");
    }
}

#[test]
fn completions_for_each_shell_name_every_command() {
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let text = stdout(&["completions", shell]);
        for command in [
            "check",
            "search",
            "eval",
            "tune",
            "replay",
            "export-catalog",
            "serve",
            "demo",
        ] {
            assert!(text.contains(command), "{shell}: no {command}");
        }
    }
    let out = common::run(&["completions", "tcsh"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("tcsh"));
}

#[test]
fn the_man_page_is_roff_with_a_section_per_command() {
    let page = stdout(&["man"]);
    assert!(
        page.contains(".TH toolsift 1"),
        "{}",
        &page[..200.min(page.len())]
    );
    for section in [
        ".SH NAME",
        ".SH SYNOPSIS",
        ".SH \"CHECK\"",
        ".SH \"SERVE\"",
        ".SH VERSION",
    ] {
        assert!(page.contains(section), "no {section}");
    }
    assert!(
        page.contains("head\\-timeout\\-ms"),
        "serve's flags are listed"
    );
}
