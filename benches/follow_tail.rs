//! `explore --follow TRACE` reading a large append: the follower over a
//! trace file of 4, 16 and 64 MB written at once, the CPU time (user +
//! system, this process) until its last event is told, and the time per MB
//! (flat when the reading is linear).
//!
//!     cargo bench --bench follow_tail

use std::sync::{Arc, Mutex};
use std::time::Duration;

use toolsift::follow::{Note, Source, follow};

fn cpu_seconds() -> f64 {
    // SAFETY: rusage is plain data; all zeroes is a valid value.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: getrusage fills the struct it is given, which outlives it.
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) };
    let t = |v: libc::timeval| v.tv_sec as f64 + v.tv_usec as f64 / 1e6;
    t(usage.ru_utime) + t(usage.ru_stime)
}

fn line(n: usize) -> String {
    format!(
        "{{\"kind\":\"call\",\"session\":\"s\",\"name\":\"get_ticket_{n}\",\"outcome\":\"ok\",\"ms\":1.0,\"in_a_row\":1,\"arguments\":{{\"ticket_id\":\"T-{n}\",\"include_comments\":true}}}}\n"
    )
}

fn main() {
    let dir = std::env::temp_dir().join(format!("toolsift-bench-tail-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    println!("| trace | lines | CPU s | CPU ms per MB |");
    println!("|---|---|---|---|");
    for mb in [4usize, 16, 64] {
        let path = dir.join(format!("trace-{mb}.jsonl"));
        let mut text = String::new();
        let mut n = 0;
        while text.len() < mb << 20 {
            text.push_str(&line(n));
            n += 1;
        }
        let last = format!("get_ticket_{}", n - 1);
        std::fs::write(&path, &text).unwrap();
        let seen = Arc::new(Mutex::new(false));
        let kept = seen.clone();
        let before = cpu_seconds();
        let task = runtime.spawn(follow(Source::File(path.clone()), move |note| {
            if let Note::Events { events, .. } = &note
                && events
                    .iter()
                    .any(|e| matches!(e, toolsift::traffic::Event::Call(c) if c.name == last))
            {
                *kept.lock().unwrap() = true;
                return false;
            }
            true
        }));
        while !*seen.lock().unwrap() {
            std::thread::sleep(Duration::from_millis(5));
        }
        let cpu = cpu_seconds() - before;
        task.abort();
        println!(
            "| {mb} MB | {n} | {cpu:.2} | {:.0} |",
            cpu * 1000.0 / mb as f64
        );
        let _ = std::fs::remove_file(&path);
    }
    let _ = std::fs::remove_dir_all(&dir);
}
