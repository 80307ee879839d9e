//! Sets TOOLSIFT_VERSION: the package version, and the commit and its date
//! when built from a git checkout (`cargo install --path .` included); and
//! the cfg `bundled_model` when the search model goes into the binary.

use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    if !out.status.success() {
        return None;
    }
    let text = String::from_utf8(out.stdout).ok()?.trim().to_string();
    (!text.is_empty()).then_some(text)
}

/// The search model built in (`bundled_model`) where the feature asks for
/// it and its files are there: a checkout, a wheel, a release archive. The
/// crate on crates.io leaves the model out (Cargo.toml's `include`: over
/// its 10 MB limit), so a build of it ranks, as one without the feature,
/// with the default model fetched on first use, and says so here.
fn bundled_model() {
    const WEIGHTS: &str = "assets/encoder/model.safetensors";
    println!("cargo::rustc-check-cfg=cfg(bundled_model)");
    if std::env::var_os("CARGO_FEATURE_BUNDLED_MODEL").is_none() {
        return;
    }
    if std::path::Path::new(WEIGHTS).is_file() {
        // Watched only when it exists (a missing file reads as changed).
        println!("cargo:rerun-if-changed={WEIGHTS}");
        println!("cargo:rustc-cfg=bundled_model");
    } else {
        println!(
            "cargo:warning=the search model is not in this package ({WEIGHTS}): toolsift fetches the default model on first use"
        );
    }
}

fn main() {
    bundled_model();
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
