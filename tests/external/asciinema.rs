//! `toolsift demo --record`: the recorded tour played back by the real
//! asciinema player (the Debian package's `asciinema cat`), its replayed
//! output read by a terminal emulator (pyte), every caption on screen.

use std::path::Path;
use std::process::Command;

use super::common::bin;
use toolsift::tui::demo::{DEFAULT_SCRIPT, length, parse_script};
use toolsift::tui::event::ScriptStep;

/// Fast enough for a test, slow enough that every caption is drawn.
const SPEED: f64 = 8.0;

/// The interpreter with pyte and asciinema's own (Debian: python3-pyte).
fn python() -> String {
    std::env::var("TOOLSIFT_CAST_PYTHON").unwrap_or_else(|_| "/usr/bin/python3".into())
}

fn record(path: &Path, size: &str) {
    let out = bin()
        .args([
            "demo",
            "--speed",
            &SPEED.to_string(),
            "--size",
            size,
            "--record",
        ])
        .arg(path)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(out.stdout.is_empty(), "stdout stays free");
    assert!(stderr.contains("asciinema play"), "{stderr}");
}

/// Every line after the header is an output event, in time order, ending
/// about when the tour does.
fn check_events(text: &str, cols: u64, rows: u64) {
    let mut lines = text.lines();
    let header: serde_json::Value = serde_json::from_str(lines.next().unwrap()).unwrap();
    assert_eq!(header["version"], 2, "{header}");
    assert_eq!(header["width"], cols, "{header}");
    assert_eq!(header["height"], rows, "{header}");
    assert!(header["timestamp"].as_u64().is_some(), "{header}");
    assert!(header["title"].is_string(), "{header}");
    let mut last = 0.0;
    let mut count = 0;
    for line in lines {
        let (time, kind, data): (f64, String, String) =
            serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}"));
        assert!(time >= last, "time runs back at {line}");
        assert_eq!(kind, "o", "{line}");
        assert!(!data.is_empty(), "{line}");
        last = time;
        count += 1;
    }
    assert!(count > 50, "{count} events");
    let steps = parse_script(DEFAULT_SCRIPT, "built-in").unwrap();
    let tour = length(&steps, SPEED).as_secs_f64();
    assert!(
        last >= tour * 0.9 && last <= tour * 1.5 + 5.0,
        "the recording ends at {last} s, the tour takes {tour} s"
    );
}

fn plays_back(size: &str) {
    let (cols, rows) = size.split_once('x').unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tour.cast");
    record(&path, size);
    let text = std::fs::read_to_string(&path).unwrap();
    check_events(&text, cols.parse().unwrap(), rows.parse().unwrap());

    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/interop/cast_captions.py");
    let out = Command::new(python())
        .arg(&script)
        .arg(&path)
        .output()
        .unwrap_or_else(|e| {
            panic!(
                "{}: {e}; scripts/setup-test-deps.sh installs asciinema and python3-pyte",
                python()
            )
        });
    assert!(
        out.status.success(),
        "the player did not replay the recording (scripts/setup-test-deps.sh installs asciinema and python3-pyte): {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let seen: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let captions: Vec<&str> = seen["captions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap())
        .collect();
    let wanted: Vec<String> = parse_script(DEFAULT_SCRIPT, "built-in")
        .unwrap()
        .into_iter()
        .filter_map(|s| match s {
            ScriptStep::Caption(Some(c)) if !c.is_empty() => Some(c),
            _ => None,
        })
        .collect();
    assert_eq!(captions, wanted, "at {size}");
}

#[test]
fn a_recorded_tour_plays_back_in_asciinema_with_every_caption_at_80x24() {
    plays_back("80x24");
}

#[test]
fn a_recorded_tour_plays_back_in_asciinema_with_every_caption_at_200x60() {
    plays_back("200x60");
}

#[test]
fn a_recording_below_the_smallest_screen_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tour.cast");
    let out = bin()
        .args(["demo", "--size", "60x20", "--record"])
        .arg(&path)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("80x24"), "{stderr}");
    assert!(!path.exists());
    let out = bin().args(["demo", "--size", "wide"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
}
