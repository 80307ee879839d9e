//! A toolsift killed outright (SIGKILL, the OOM killer) runs no exit
//! guard, so its servers' processes, and the daemons they started (which
//! left their process group and session, `setsid`), would outlive it. The
//! warden is the one that outlives it instead: toolsift started again as
//! a child of its own ([`WARDEN_VAR`] names the process it watches), which
//! looks at that process's descendants every [`LOOK_EVERY`] and, once the
//! process is gone, kills every one it last saw (each checked by its start
//! time, so a process that took a number freed since is spared), then
//! exits. The orphans a server leaves are the watched process's children
//! (it is their subreaper, `reaper.rs`), so they are seen too. Linux only
//! (`/proc`); a daemon started in the last [`LOOK_EVERY`] before the kill
//! can be missed.

use std::time::Duration;

/// Set in the warden's environment to the process id it watches.
pub const WARDEN_VAR: &str = "TOOLSIFT_WARDEN_OF";

/// How often the warden looks at the watched process's descendants.
pub const LOOK_EVERY: Duration = Duration::from_millis(100);

/// Starts the warden of this process: this executable again, with
/// [`WARDEN_VAR`]; once per process (a second call does nothing). Only
/// the toolsift binary may call it: its `main` runs [`run_if_warden`]
/// first.
pub fn start_warden() -> std::io::Result<()> {
    // It lives as long as this process, kept here, never waited for.
    static WARDEN: std::sync::Mutex<Option<std::process::Child>> = std::sync::Mutex::new(None);
    let mut warden = WARDEN.lock().unwrap_or_else(|p| p.into_inner());
    if warden.is_some() || !cfg!(target_os = "linux") {
        return Ok(());
    }
    let me = std::env::current_exe()?;
    *warden = Some(
        std::process::Command::new(me)
            .env(WARDEN_VAR, std::process::id().to_string())
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()?,
    );
    Ok(())
}

/// In the warden ([`WARDEN_VAR`] set): watches, kills, and exits; never
/// returns. Anywhere else, returns at once.
pub fn run_if_warden() {
    let Some(watched) = std::env::var(WARDEN_VAR)
        .ok()
        .and_then(|v| v.parse::<i32>().ok())
    else {
        return;
    };
    // SAFETY: signal only sets this process's disposition of the signals
    // the terminal or a stop sends the whole group: the warden must
    // outlive the process it watches, and it exits on its own once that
    // one is gone.
    unsafe {
        for sig in [libc::SIGINT, libc::SIGHUP, libc::SIGTERM, libc::SIGPIPE] {
            libc::signal(sig, libc::SIG_IGN);
        }
    }
    // SAFETY: getpid and getppid only read this process's ids.
    let me = unsafe { libc::getpid() };
    let mut seen: Vec<(i32, u64)> = Vec::new();
    loop {
        // SAFETY: as above.
        if unsafe { libc::getppid() } != watched {
            kill_seen(&seen);
            std::process::exit(0);
        }
        seen = subtree(watched)
            .unwrap_or_else(|| super::reaper::descendants(watched))
            .into_iter()
            .filter(|&pid| pid != me)
            .filter_map(|pid| Some((pid, start_time(pid)?)))
            .collect();
        std::thread::sleep(LOOK_EVERY);
    }
}

/// The processes descended from `root`, through each thread's
/// `/proc/PID/task/TID/children` (a walk of the tree, not of every
/// process); `None` where the kernel has no such file.
fn subtree(root: i32) -> Option<Vec<i32>> {
    let mut out = Vec::new();
    let mut frontier = vec![root];
    while let Some(parent) = frontier.pop() {
        let Ok(tasks) = std::fs::read_dir(format!("/proc/{parent}/task")) else {
            continue;
        };
        for task in tasks.flatten() {
            let children = match std::fs::read_to_string(task.path().join("children")) {
                Ok(c) => c,
                Err(_) if parent == root => return None,
                Err(_) => continue,
            };
            for pid in children.split_whitespace().filter_map(|p| p.parse().ok()) {
                if !out.contains(&pid) {
                    out.push(pid);
                    frontier.push(pid);
                }
            }
        }
    }
    Some(out)
}

/// Kills each process of `seen` that is still the one seen (its start
/// time unchanged).
fn kill_seen(seen: &[(i32, u64)]) {
    for &(pid, started) in seen {
        if start_time(pid) == Some(started) {
            // SAFETY: kill only sends a signal, to a process descended
            // from the watched one (its start time checked).
            unsafe {
                libc::kill(pid, libc::SIGKILL);
            }
        }
    }
}

/// When `pid` started (clock ticks after boot, `/proc/PID/stat`'s 22nd
/// field), which tells it from a later process given the same number.
fn start_time(pid: i32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // "PID (COMM) STATE PPID ...": COMM may hold spaces and parentheses;
    // the start time is the 20th field after it.
    stat.rsplit_once(')')?
        .1
        .split_whitespace()
        .nth(19)?
        .parse()
        .ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_process_is_told_from_another_by_its_start_time() {
        let me = std::process::id() as i32;
        let started = start_time(me).unwrap();
        assert_eq!(start_time(me), Some(started));
        assert_eq!(start_time(i32::MAX), None);
        // A process seen with another start time is not this one: spared.
        kill_seen(&[(me, started + 1)]);
    }

    #[test]
    fn the_tree_is_walked_through_each_threads_children() {
        let mut child = std::process::Command::new("sleep").arg("5").spawn().unwrap();
        let me = std::process::id() as i32;
        let tree = subtree(me).unwrap_or_else(|| crate::sources::mcp::reaper::descendants(me));
        let _ = child.kill();
        let _ = child.wait();
        assert!(tree.contains(&(child.id() as i32)), "{tree:?}");
    }
}
