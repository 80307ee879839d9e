//! The processes the bench starts and reads: a service (its address, its
//! log drained), a Redis, and what /proc says of a process and the machine.
//! `serve_memory` uses it too.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// /proc/PID/stat counts CPU time in these (USER_HZ, 100 on Linux).
const TICKS_PER_SECOND: f64 = 100.0;

/// The binary under test: `TOOLSIFT_BIN`, or the one cargo builds for the
/// bench.
pub fn toolsift_bin() -> PathBuf {
    std::env::var_os("TOOLSIFT_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_toolsift")))
}

pub fn rss_kb(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// User + system CPU seconds of a process (`self` or a pid).
pub fn cpu_seconds(who: &str) -> Option<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{who}/stat")).ok()?;
    let after = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = after.split_whitespace().collect();
    // Fields 14 and 15 of stat(5); `after` starts at field 3.
    let utime: f64 = fields.get(11)?.parse().ok()?;
    let stime: f64 = fields.get(12)?.parse().ok()?;
    Some((utime + stime) / TICKS_PER_SECOND)
}

pub fn mb(kb: u64) -> f64 {
    kb as f64 / 1024.0
}

/// A service process: started, its `listening on` line read, its stderr
/// drained in the background (toolsift writes one access-log line per
/// request), killed on drop.
pub struct Proc {
    child: Child,
    pub url: String,
    pub log_lines: Arc<Mutex<(u64, VecDeque<String>)>>,
}

impl Proc {
    pub fn start(mut cmd: Command) -> Result<Proc, String> {
        let mut child = cmd
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot start {cmd:?}: {e}"))?;
        let log_lines = Arc::new(Mutex::new((0u64, VecDeque::new())));
        let stderr = child.stderr.take().ok_or("no stderr")?;
        let sink = log_lines.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                let mut s = sink.lock().unwrap_or_else(|p| p.into_inner());
                s.0 += 1;
                s.1.push_back(line);
                if s.1.len() > 8 {
                    s.1.pop_front();
                }
            }
        });
        let stdout = child.stdout.take().ok_or("no stdout")?;
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            let mut line = String::new();
            let _ = reader.read_line(&mut line);
            let _ = tx.send(line);
            // Keep draining whatever else it prints.
            let mut sink = Vec::new();
            let _ = reader.read_to_end(&mut sink);
        });
        let mut proc = Proc {
            child,
            url: String::new(),
            log_lines,
        };
        let line = rx.recv_timeout(Duration::from_secs(60)).unwrap_or_default();
        match line.trim().strip_prefix("listening on ") {
            Some(url) if url.starts_with("http://127.0.0.1:") => {
                proc.url = url.to_string();
                Ok(proc)
            }
            _ => {
                std::thread::sleep(Duration::from_millis(200));
                Err(format!(
                    "no `listening on http://127.0.0.1:...` line (got {line:?}); stderr: {}",
                    proc.log_tail()
                ))
            }
        }
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    pub fn log_tail(&self) -> String {
        let s = self.log_lines.lock().unwrap_or_else(|p| p.into_inner());
        s.1.iter().cloned().collect::<Vec<_>>().join(" | ")
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn machine() -> (String, usize) {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, v)| v.trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".into());
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    (cpu, cores)
}

/// Today's UTC date, YYYY-MM-DD.
pub fn today() -> String {
    let days = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() / 86_400) as i64;
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}

/// A `redis-server` for the bench on a free loopback port, no persistence.
pub struct BenchRedis {
    child: Child,
    pub port: u16,
    dir: PathBuf,
}

impl BenchRedis {
    pub fn start() -> Result<BenchRedis, String> {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map_err(|e| e.to_string())?
            .port();
        let dir = std::env::temp_dir().join(format!("toolsift-bench-redis-{}", std::process::id()));
        std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
        let child = Command::new("redis-server")
            .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
            .args(["--save", "", "--appendonly", "no"])
            .arg("--dir")
            .arg(&dir)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| {
                format!("cannot start redis-server ({e}); scripts/setup-test-deps.sh installs it")
            })?;
        let r = BenchRedis { child, port, dir };
        let deadline = Instant::now() + Duration::from_secs(20);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            if Instant::now() > deadline {
                return Err("redis-server did not start".into());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        Ok(r)
    }
}

impl Drop for BenchRedis {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
