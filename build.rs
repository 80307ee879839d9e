//! Sets TOOLSIFT_VERSION: the package version, and the commit and its date
//! when built from a git checkout (`cargo install --path .` included).

use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    if !out.status.success() {
        return None;
    }
    let text = String::from_utf8(out.stdout).ok()?.trim().to_string();
    (!text.is_empty()).then_some(text)
}

fn main() {
    let version = env!("CARGO_PKG_VERSION");
    let full = match (
        git(&["rev-parse", "--short=9", "HEAD"]),
        git(&["log", "-1", "--format=%cs"]),
    ) {
        (Some(commit), Some(date)) => format!("{version} ({commit} {date})"),
        (Some(commit), None) => format!("{version} ({commit})"),
        _ => version.to_string(),
    };
    println!("cargo:rustc-env=TOOLSIFT_VERSION={full}");
    // A new commit changes HEAD (or the branch it points to).
    if let Some(dir) = git(&["rev-parse", "--git-dir"]) {
        println!("cargo:rerun-if-changed={dir}/HEAD");
        if let Some(head) = git(&["symbolic-ref", "-q", "HEAD"]) {
            println!("cargo:rerun-if-changed={dir}/{head}");
        }
        // Watched only when it exists: cargo takes a missing file as changed
        // and would build the crate again every time.
        if std::path::Path::new(&format!("{dir}/packed-refs")).exists() {
            println!("cargo:rerun-if-changed={dir}/packed-refs");
        }
    }
    println!("cargo:rerun-if-changed=build.rs");
}
