//! Child processes never outlive toolsift: every server's process group is
//! registered here and killed when its host drops it, on a panic, and on
//! SIGINT, SIGTERM or SIGHUP.

use std::sync::Mutex;

/// Process groups of every server started, for the exit guards.
static GROUPS: Mutex<Vec<i32>> = Mutex::new(Vec::new());

pub(super) fn register_group(pgid: i32) {
    if let Ok(mut g) = GROUPS.lock() {
        g.push(pgid);
    }
}

pub(super) fn kill_group(pgid: i32) {
    if pgid > 1 {
        // SAFETY: killpg only sends a signal to the process group we created.
        unsafe {
            libc::killpg(pgid, libc::SIGKILL);
        }
    }
}

/// Kills every MCP server process group still registered.
pub fn kill_all_servers() {
    let groups = GROUPS
        .lock()
        .map(|mut g| std::mem::take(&mut *g))
        .unwrap_or_default();
    for pgid in groups {
        kill_group(pgid);
    }
}

/// Kills the servers on a panic and on SIGINT, SIGTERM or SIGHUP (then runs
/// `on_signal`, e.g. to restore the terminal, and exits 128 + signal).
pub fn install_exit_guards(on_signal: fn()) {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
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
                    kill_all_servers();
                    on_signal();
                    std::process::exit(code);
                });
            });
    });
}
