//! Explorer benchmarks: `cargo bench --bench tui`.
//!
//! 1. The start, in process, in a fresh process each (the vocabularies
//!    load once per process): from `App::new` to the first frame drawn and
//!    to the first search's answer, with the start's effects run side by
//!    side on threads as the loop runs them, and the CPU time spent; then a
//!    second search. On the demo catalog and the synthetic one.
//! 2. Keystroke to updated frame, in process: the App with a synthetic
//!    10,000-tool catalog, each key run through `App::update`, its search,
//!    and a full draw into a 120x35 TestBackend.
//! 3. The real binary in a pseudo-terminal on the same catalog: time to the
//!    first frame, CPU and bytes drawn while idle, resident memory.
//!
//! `--json FILE` also writes the figures as JSON.

use std::io::{Read, Write};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyEventState, KeyModifiers};
use portable_pty::{CommandBuilder, PtySize, native_pty_system};
use ratatui::Terminal;
use ratatui::backend::TestBackend;

use toolsift::catalog::synthetic;
use toolsift::search::Searcher;
use toolsift::tui::Setup;
use toolsift::tui::action::Action;
use toolsift::tui::app::App;
use toolsift::tui::effect::{Effect, Msg, run_effect};
use toolsift::tui::ui;

const TOOLS: usize = 10_000;

fn percentile(sorted: &[f64], p: f64) -> f64 {
    let i = ((sorted.len() - 1) as f64 * p / 100.0).round() as usize;
    sorted[i]
}

fn key(code: KeyCode, modifiers: KeyModifiers) -> Msg {
    Msg::Key(KeyEvent {
        code,
        modifiers,
        kind: KeyEventKind::Press,
        state: KeyEventState::NONE,
    })
}

/// The start of the explorer on one catalog, in milliseconds.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
struct Start {
    first_frame_ms: f64,
    /// From the start to the first search's answer.
    first_answer_ms: f64,
    /// The first search itself (its answer's own latency).
    first_search_ms: f64,
    /// A second search, typed.
    second_search_ms: f64,
    /// CPU time of the process (every thread) until the first answer.
    cpu_ms: f64,
}

/// CPU time of this process so far (user + system), in milliseconds.
fn process_cpu_ms() -> f64 {
    cpu_seconds(std::process::id()).unwrap_or(0.0) * 1000.0
}

/// The start on `which` (`demo` or `synthetic`), as the loop runs it.
fn start(which: &str) -> Start {
    let catalog = Arc::new(match which {
        "demo" => toolsift::catalog::load(&toolsift::catalog::CatalogSource::demo()).expect("demo"),
        _ => synthetic::generate(TOOLS, 42),
    });
    let mut terminal = Terminal::new(TestBackend::new(120, 35)).expect("terminal");
    let cpu0 = process_cpu_ms();
    let started = Instant::now();
    let searcher = Searcher::embedded();
    let (mut app, initial) = App::new(Setup::new(catalog, searcher.clone())).expect("app");
    let (tx, rx) = std::sync::mpsc::channel::<Msg>();
    let spawn = |effect: Effect| {
        let (searcher, tx) = (searcher.clone(), tx.clone());
        std::thread::spawn(move || {
            let _ = tx.send(run_effect(&searcher, effect));
        });
    };
    app.update(Msg::Resize(120, 35));
    initial.into_iter().for_each(spawn);
    terminal.draw(|f| ui::draw(f, &app)).expect("draw");
    let first_frame_ms = started.elapsed().as_secs_f64() * 1000.0;
    let (first_answer_ms, first_search_ms) = loop {
        let msg = rx.recv().expect("an answer");
        let latency = match &msg {
            Msg::SearchDone(a) => Some(a.elapsed.as_secs_f64() * 1000.0),
            _ => None,
        };
        app.update(msg).into_iter().for_each(spawn);
        if let Some(latency) = latency {
            break (started.elapsed().as_secs_f64() * 1000.0, latency);
        }
    };
    let cpu_ms = process_cpu_ms() - cpu0;
    app.update(Msg::Action(Action::FocusQuery));
    let mut second_search_ms = f64::NAN;
    for effect in app.update(Msg::Type("rotate the secret key".into())) {
        if let Msg::SearchDone(a) = run_effect(&searcher, effect) {
            second_search_ms = a.elapsed.as_secs_f64() * 1000.0;
        }
    }
    Start {
        first_frame_ms,
        first_answer_ms,
        first_search_ms,
        second_search_ms,
        cpu_ms,
    }
}

/// [`start`] in a fresh process of this benchmark, `runs` times.
fn starts(which: &str, runs: usize) -> Vec<Start> {
    (0..runs)
        .filter_map(|_| {
            let out = std::process::Command::new(std::env::current_exe().ok()?)
                .args(["--start", which])
                .output()
                .ok()?;
            serde_json::from_slice(&out.stdout).ok()
        })
        .collect()
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values.get(values.len() / 2).copied().unwrap_or(f64::NAN)
}

/// Keystroke to frame, in process.
fn keystrokes() -> (Vec<f64>, Vec<f64>) {
    let catalog = Arc::new(synthetic::generate(TOOLS, 42));
    let (mut app, effects) = App::new(Setup {
        sources: "synthetic".into(),
        ..Setup::new(catalog, Searcher::embedded())
    })
    .expect("app");
    app.update(Msg::Resize(120, 35));
    app.settle(effects);
    let mut terminal = Terminal::new(TestBackend::new(120, 35)).expect("terminal");
    terminal.draw(|f| ui::draw(f, &app)).expect("draw");
    let mut typing = Vec::new();
    let mut moving = Vec::new();
    let queries = [
        "list pending invoices for a customer",
        "rotate the secret key of the cluster",
        "search recent incidents by priority",
        "schedule a meeting with the team",
        "refund the last payment",
    ];
    for _round in 0..4 {
        for q in queries {
            app.update(Msg::Action(Action::FocusQuery));
            app.update(Msg::Action(Action::InputClear));
            for c in q.chars() {
                let t = Instant::now();
                let effects = app.update(key(KeyCode::Char(c), KeyModifiers::NONE));
                app.settle(effects);
                terminal.draw(|f| ui::draw(f, &app)).expect("draw");
                typing.push(t.elapsed().as_secs_f64() * 1000.0);
            }
            app.update(Msg::Action(Action::InputCancel));
            for (code, m) in [
                (KeyCode::Char('j'), KeyModifiers::NONE),
                (KeyCode::Char('d'), KeyModifiers::CONTROL),
                (KeyCode::Char('G'), KeyModifiers::NONE),
                (KeyCode::Char('g'), KeyModifiers::NONE),
                (KeyCode::Char('o'), KeyModifiers::NONE),
                (KeyCode::Char('f'), KeyModifiers::NONE),
                (KeyCode::Tab, KeyModifiers::NONE),
                (KeyCode::Char('j'), KeyModifiers::NONE),
                (KeyCode::BackTab, KeyModifiers::NONE),
            ] {
                let t = Instant::now();
                let effects = app.update(key(code, m));
                app.settle(effects);
                terminal.draw(|f| ui::draw(f, &app)).expect("draw");
                moving.push(t.elapsed().as_secs_f64() * 1000.0);
            }
        }
    }
    typing.sort_by(f64::total_cmp);
    moving.sort_by(f64::total_cmp);
    (typing, moving)
}

struct RealRun {
    first_frame_ms: f64,
    first_answer_ms: f64,
    /// The first search's latency as the results pane's title shows it.
    first_search_shown: String,
    ready_ms: f64,
    idle_cpu_pct: f64,
    idle_bytes: usize,
    rss_mb: f64,
    peak_rss_mb: f64,
}

fn proc_field(pid: u32, file: &str, key: &str) -> Option<f64> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/{file}")).ok()?;
    let line = text.lines().find(|l| l.starts_with(key))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn cpu_seconds(pid: u32) -> Option<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let after = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = after.split_whitespace().collect();
    let ticks: f64 = fields.get(11)?.parse::<f64>().ok()? + fields.get(12)?.parse::<f64>().ok()?;
    Some(ticks / 100.0)
}

/// The real binary in a pty.
fn real_binary() -> Option<RealRun> {
    let pair = native_pty_system()
        .openpty(PtySize {
            rows: 35,
            cols: 120,
            pixel_width: 0,
            pixel_height: 0,
        })
        .ok()?;
    let mut cmd = CommandBuilder::new(env!("CARGO_BIN_EXE_toolsift"));
    cmd.args(["explore", &format!("@synthetic-{TOOLS}")]);
    cmd.env("TERM", "xterm-256color");
    cmd.env("XDG_CONFIG_HOME", "/nonexistent");
    let started = Instant::now();
    let mut child = pair.slave.spawn_command(cmd).ok()?;
    drop(pair.slave);
    let pid = child.process_id()?;
    let mut reader = pair.master.try_clone_reader().ok()?;
    let mut writer = pair.master.take_writer().ok()?;
    let screen = Arc::new(Mutex::new(vt100::Parser::new(
        std::num::NonZeroU16::new(35)?,
        std::num::NonZeroU16::new(120)?,
        0,
    )));
    let bytes = Arc::new(Mutex::new(0usize));
    let (s, b) = (screen.clone(), bytes.clone());
    std::thread::spawn(move || {
        let mut buf = [0u8; 16384];
        while let Ok(n) = reader.read(&mut buf) {
            if n == 0 {
                break;
            }
            s.lock().unwrap().process(&buf[..n]);
            *b.lock().unwrap() += n;
        }
    });
    let wait = |needle: &str| -> Option<f64> {
        let deadline = Instant::now() + Duration::from_secs(30);
        while Instant::now() < deadline {
            if screen.lock().unwrap().screen().contents().contains(needle) {
                return Some(started.elapsed().as_secs_f64() * 1000.0);
            }
            std::thread::sleep(Duration::from_millis(1));
        }
        None
    };
    let first_frame_ms = wait(&format!("Catalog {TOOLS}"))?;
    // Ready: the first search is back and every tool is counted.
    let first_answer_ms = wait(&format!("of {TOOLS}"))?;
    let first_search_shown = {
        let contents = screen.lock().unwrap().screen().contents();
        let needle = format!("of {TOOLS} ·");
        let line = contents.lines().find(|l| l.contains(&needle))?;
        let after = &line[line.find(&needle)? + needle.len()..];
        after.split('─').next()?.trim().to_string()
    };
    let ready_ms = wait("first turn saves")?;
    writer.write_all(b"/rotate the secret key").ok()?;
    writer.flush().ok()?;
    wait("rotate the secret key")?;
    std::thread::sleep(Duration::from_millis(500));
    let (cpu0, bytes0) = (cpu_seconds(pid)?, *bytes.lock().unwrap());
    let idle = Duration::from_secs(3);
    std::thread::sleep(idle);
    let (cpu1, bytes1) = (cpu_seconds(pid)?, *bytes.lock().unwrap());
    let rss_mb = proc_field(pid, "status", "VmRSS:")? / 1024.0;
    let peak_rss_mb = proc_field(pid, "status", "VmHWM:")? / 1024.0;
    writer.write_all(b"\x03").ok()?;
    writer.flush().ok()?;
    let deadline = Instant::now() + Duration::from_secs(10);
    while Instant::now() < deadline {
        if child.try_wait().ok()?.is_some() {
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let _ = child.kill();
    Some(RealRun {
        first_frame_ms,
        first_answer_ms,
        first_search_shown,
        ready_ms,
        idle_cpu_pct: 100.0 * (cpu1 - cpu0) / idle.as_secs_f64(),
        idle_bytes: bytes1 - bytes0,
        rss_mb,
        peak_rss_mb,
    })
}

fn main() {
    if let Some(which) = std::env::args().skip_while(|a| a != "--start").nth(1) {
        println!("{}", serde_json::to_string(&start(&which)).expect("json"));
        return;
    }
    let json_out = std::env::args().skip_while(|a| a != "--json").nth(1);
    let mut start_json = serde_json::Map::new();
    for (which, tools) in [("demo", 64), ("synthetic", TOOLS)] {
        let runs = starts(which, 5);
        if runs.is_empty() {
            println!("the start on the {which} catalog could not be measured");
            continue;
        }
        let m = |f: fn(&Start) -> f64| median(runs.iter().map(f).collect());
        let figures = serde_json::json!({
            "first_frame_ms": m(|s| s.first_frame_ms),
            "first_answer_ms": m(|s| s.first_answer_ms),
            "first_search_ms": m(|s| s.first_search_ms),
            "second_search_ms": m(|s| s.second_search_ms),
            "cpu_ms": m(|s| s.cpu_ms),
        });
        println!(
            "start, {which} catalog ({tools} tools), in process, median of {} fresh processes:",
            runs.len()
        );
        println!(
            "  first frame {:.1} ms; first search answered at {:.1} ms (the search itself {:.2} ms); a second search {:.2} ms; CPU {:.0} ms until the first answer",
            m(|s| s.first_frame_ms),
            m(|s| s.first_answer_ms),
            m(|s| s.first_search_ms),
            m(|s| s.second_search_ms),
            m(|s| s.cpu_ms)
        );
        start_json.insert(which.into(), figures);
    }
    let (typing, moving) = keystrokes();
    println!(
        "explorer, synthetic catalog of {TOOLS} tools, 120x35, keystroke to updated frame (update + search + draw):"
    );
    println!(
        "  typing a query: p50 {:.2} ms, p95 {:.2} ms, max {:.2} ms ({} keys)",
        percentile(&typing, 50.0),
        percentile(&typing, 95.0),
        typing[typing.len() - 1],
        typing.len()
    );
    println!(
        "  moving, sorting, filtering: p50 {:.2} ms, p95 {:.2} ms, max {:.2} ms ({} keys)",
        percentile(&moving, 50.0),
        percentile(&moving, 95.0),
        moving[moving.len() - 1],
        moving.len()
    );
    let real = real_binary();
    match &real {
        Some(r) => {
            println!("the real binary in a pseudo-terminal, same catalog:");
            println!(
                "  first frame {:.0} ms after spawn; first search shown at {:.0} ms (its latency: {}); all token counts at {:.0} ms",
                r.first_frame_ms, r.first_answer_ms, r.first_search_shown, r.ready_ms
            );
            println!(
                "  idle for 3 s: {:.2} % CPU, {} bytes drawn",
                r.idle_cpu_pct, r.idle_bytes
            );
            println!(
                "  memory: RSS {:.0} MB, peak {:.0} MB",
                r.rss_mb, r.peak_rss_mb
            );
        }
        None => println!("the real binary could not be run in a pseudo-terminal here"),
    }
    if let Some(path) = json_out {
        let v = serde_json::json!({
            "tools": TOOLS,
            "start": start_json,
            "typing_ms_p50": percentile(&typing, 50.0),
            "typing_ms_p95": percentile(&typing, 95.0),
            "moving_ms_p95": percentile(&moving, 95.0),
            "first_frame_ms": real.as_ref().map(|r| r.first_frame_ms),
            "first_answer_ms": real.as_ref().map(|r| r.first_answer_ms),
            "first_search_shown": real.as_ref().map(|r| r.first_search_shown.clone()),
            "ready_ms": real.as_ref().map(|r| r.ready_ms),
            "idle_cpu_pct": real.as_ref().map(|r| r.idle_cpu_pct),
            "idle_bytes": real.as_ref().map(|r| r.idle_bytes),
            "rss_mb": real.as_ref().map(|r| r.rss_mb),
            "peak_rss_mb": real.as_ref().map(|r| r.peak_rss_mb),
        });
        std::fs::write(&path, serde_json::to_string_pretty(&v).unwrap_or_default())
            .expect("write json");
    }
}
