//! Child processes never outlive toolsift: every server's process group is
//! registered here and killed when its host drops it, on a panic, and on
//! SIGINT, SIGTERM or SIGHUP, with the processes that left the group
//! (`setsid()`) found by their parents; toolsift adopts the orphans its
//! servers leave (a subreaper), and kills them at its exit.

use std::sync::Mutex;

/// Process groups of every server started, for the exit guards; `None`
/// once they were killed for the exit (no server starts after that).
static GROUPS: Mutex<Option<Vec<i32>>> = Mutex::new(Some(Vec::new()));

/// Starts a server's process with `spawn` and registers its group
/// (`pgid_of`) in one step, so a signal that kills every server while a
/// server starts cannot miss it; once the servers are killed for the
/// exit, none starts.
pub(super) fn spawn_registered<T>(
    spawn: impl FnOnce() -> std::io::Result<T>,
    pgid_of: impl Fn(&T) -> Option<i32>,
) -> std::io::Result<T> {
    let mut groups = GROUPS.lock().unwrap_or_else(|e| e.into_inner());
    let Some(groups) = groups.as_mut() else {
        return Err(std::io::Error::other("toolsift is exiting"));
    };
    let spawned = spawn()?;
    if let Some(p) = pgid_of(&spawned) {
        groups.push(p);
    }
    Ok(spawned)
}

/// Kills a server: its process group, and every process descended from
/// its first one that left the group (`setsid()`, `setpgid()`), found by
/// their parents before any is killed.
pub(super) fn kill_group(pgid: i32) {
    if pgid > 1 {
        let tree = descendants(pgid);
        // SAFETY: killpg and kill only send a signal, to the group we
        // created and to processes descended from its leader.
        unsafe {
            libc::killpg(pgid, libc::SIGKILL);
            for pid in tree {
                libc::kill(pid, libc::SIGKILL);
            }
        }
    }
}

/// The processes descended from `root`, by the parent each names in
/// `/proc/PID/stat` (none where there is no `/proc`).
pub(super) fn descendants(root: i32) -> Vec<i32> {
    let parents = parents();
    let mut out = Vec::new();
    let mut frontier = vec![root];
    while let Some(parent) = frontier.pop() {
        for (&pid, &ppid) in &parents {
            if ppid == parent && pid != root && !out.contains(&pid) {
                out.push(pid);
                frontier.push(pid);
            }
        }
    }
    out
}

/// Each process's parent, from `/proc`.
fn parents() -> std::collections::HashMap<i32, i32> {
    let mut out = std::collections::HashMap::new();
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return out;
    };
    for entry in dir.flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|n| n.parse::<i32>().ok()) else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        // "PID (COMM) STATE PPID ...": COMM may hold spaces and parentheses.
        if let Some(ppid) = stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().nth(1))
            .and_then(|p| p.parse::<i32>().ok())
        {
            out.insert(pid, ppid);
        }
    }
    out
}

/// Makes toolsift the parent of any orphan its servers leave (a server's
/// process whose parent exited is handed to toolsift rather than to init),
/// so the exit can kill those too ([`kill_all_servers`]).
fn adopt_orphans() {
    // SAFETY: prctl with PR_SET_CHILD_SUBREAPER only sets a flag of this
    // process.
    unsafe {
        libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
    }
}

/// Whether the server process `pid` (a child of toolsift) has exited: it
/// is a zombie not yet reaped (looked at without reaping it), or already
/// reaped (no such child any more).
pub(super) fn has_exited(pid: i32) -> bool {
    if pid <= 1 {
        return false;
    }
    // SAFETY: waitid with WNOWAIT only reads the child's state; the info
    // struct is zeroed and written by the call.
    unsafe {
        let mut info: libc::siginfo_t = std::mem::zeroed();
        let r = libc::waitid(
            libc::P_PID,
            pid as libc::id_t,
            &mut info,
            libc::WEXITED | libc::WNOHANG | libc::WNOWAIT,
        );
        if r == -1 {
            return std::io::Error::last_os_error().raw_os_error() == Some(libc::ECHILD);
        }
        info.si_pid() == pid
    }
}

/// Kills every MCP server process group still registered, for the exit:
/// no server starts after it.
pub fn kill_all_servers() {
    let mut groups = GROUPS.lock().unwrap_or_else(|e| e.into_inner());
    let Some(taken) = groups.take() else {
        return;
    };
    for pgid in &taken {
        kill_group(*pgid);
    }
    super::sandbox::remove_temp_folders();
    // Orphans the servers left, handed to toolsift ([`adopt_orphans`]):
    // processes descended from toolsift but in none of its own groups.
    if !taken.is_empty() {
        // SAFETY: getpgrp only reads this process's group.
        let own_group = unsafe { libc::getpgrp() };
        for pid in descendants(std::process::id() as i32) {
            // SAFETY: getpgid and kill act on a process descended from
            // toolsift, outside its own group.
            unsafe {
                if libc::getpgid(pid) != own_group {
                    libc::kill(pid, libc::SIGKILL);
                }
            }
        }
    }
}

/// What a signal runs before the servers are killed (the gateway lets its
/// calls in flight finish).
static BEFORE_EXIT: std::sync::OnceLock<Box<dyn Fn() + Send + Sync>> = std::sync::OnceLock::new();

/// Runs `f` on SIGINT, SIGTERM or SIGHUP before the servers are killed
/// (once: a second call is ignored). `f` may block; a second signal while
/// it runs ends the process at once.
pub fn before_exit(f: impl Fn() + Send + Sync + 'static) {
    let _ = BEFORE_EXIT.set(Box::new(f));
}

/// Kills the servers on a panic and on SIGINT, SIGTERM or SIGHUP (after
/// [`before_exit`]'s hook; then runs `on_signal`, e.g. to restore the
/// terminal, and exits 128 + signal).
pub fn install_exit_guards(on_signal: fn()) {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        adopt_orphans();
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            kill_all_servers();
            previous(info);
        }));
        let _ = std::thread::Builder::new()
            .name("toolsift-signals".into())
            .spawn(move || {
                let Ok(rt) = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                else {
                    return;
                };
                rt.block_on(async {
                    use tokio::signal::unix::{SignalKind, signal};
                    let (Ok(mut int), Ok(mut term), Ok(mut hup)) = (
                        signal(SignalKind::interrupt()),
                        signal(SignalKind::terminate()),
                        signal(SignalKind::hangup()),
                    ) else {
                        return;
                    };
                    let code = tokio::select! {
                        _ = int.recv() => 130,
                        _ = term.recv() => 143,
                        _ = hup.recv() => 129,
                    };
                    if let Some(hook) = BEFORE_EXIT.get() {
                        // A second signal does not wait for the hook.
                        let again = tokio::spawn(async move {
                            tokio::select! {
                                _ = int.recv() => {}
                                _ = term.recv() => {}
                                _ = hup.recv() => {}
                            }
                        });
                        let hook = tokio::task::spawn_blocking(hook);
                        tokio::select! {
                            _ = hook => {}
                            _ = again => {}
                        }
                    }
                    kill_all_servers();
                    on_signal();
                    std::process::exit(code);
                });
            });
    });
}
