//! A stdio server confined by Landlock, on Linux: what its entry grants
//! (`sandbox_grant.rs`) is made into a ruleset before the fork, and the
//! child, between fork and exec, only sets `no_new_privs` and restricts
//! itself with it (two system calls, async-signal-safe, nothing
//! allocated); a child that cannot is not started. Files outside the grant
//! answer the server with the OS's own error (EACCES); TCP connections and
//! listening ports, where the kernel has Landlock's network rules (ABI 4),
//! likewise. Where the kernel lacks a part, or the system is not Linux,
//! the server runs without it, and [`sandbox_report`] says so at start:
//! a sandbox is never claimed that is not there.

use std::collections::BTreeMap;
use std::path::Path;

use super::sandbox_entry::{Net, Sandbox, SandboxGrant};
use super::sandbox_grant::{Granted, granted};
use super::{McpServer, Transport};

/// What one server may touch, as the gateway says at start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SandboxReport {
    /// `sandboxed (Landlock ABI 7): read ...; write ...; net: none`, or
    /// `not sandboxed: ...`.
    pub line: String,
    /// What its entry asks for that is not enforced here.
    pub warnings: Vec<String>,
}

/// The Landlock ABI this kernel has: 0 for none (not built in, or not
/// enabled). Always 0 elsewhere than Linux.
pub fn landlock_abi() -> i32 {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: landlock_create_ruleset with no attributes and the
        // VERSION flag only asks the kernel its ABI; nothing is created.
        let v = unsafe {
            libc::syscall(
                libc::SYS_landlock_create_ruleset,
                std::ptr::null::<libc::c_void>(),
                0usize,
                1u32,
            )
        };
        i32::try_from(v).unwrap_or(0).max(0)
    }
    #[cfg(not(target_os = "linux"))]
    {
        0
    }
}

/// What server `server` may touch, or `None` for one reached by url.
pub fn sandbox_report(server: &McpServer) -> Option<SandboxReport> {
    let Transport::Stdio {
        command,
        args,
        env,
        cwd,
        sandbox,
        ..
    } = &server.transport
    else {
        return None;
    };
    let Sandbox::On(grant) = sandbox else {
        return Some(SandboxReport {
            line: "not sandboxed: it may read and write what you can and reach any address (\"sandbox\": true in its entry confines it)".into(),
            warnings: Vec::new(),
        });
    };
    let own_env = |n: &str| std::env::var(n).ok();
    let g = granted(
        &server.name,
        (command, args),
        env,
        cwd.as_deref(),
        grant,
        &own_env,
    );
    Some(report(&g, landlock_abi()))
}

/// The report of `g` on a kernel of Landlock `abi`.
fn report(g: &Granted, abi: i32) -> SandboxReport {
    let not_here = if cfg!(target_os = "linux") {
        "this kernel has no Landlock (or it is not enabled: `landlock` missing from the lsm= boot parameter)"
    } else {
        "toolsift's sandbox is Landlock, on Linux only"
    };
    if abi < 1 {
        return SandboxReport {
            line: "not sandboxed: it may read and write what you can and reach any address".into(),
            warnings: vec![format!(
                "its entry asks for a sandbox, and {not_here}: it runs NOT sandboxed, with your rights"
            )],
        };
    }
    let mut warnings = Vec::new();
    let mut line = format!("sandboxed (Landlock ABI {abi}): {}", g.describe());
    if abi < 4 && g.net != Net::Any {
        line.push_str(" (not enforced)");
        warnings.push(format!(
            "Landlock ABI {abi} on this kernel has no network rules (they need ABI 4, Linux 6.7): its \"net\" is NOT enforced, it may reach any address"
        ));
    }
    if abi < 3 {
        warnings.push(format!(
            "Landlock ABI {abi} on this kernel does not limit truncating files (that needs ABI 3, Linux 6.2): it may empty a file it cannot write"
        ));
    }
    if !g.notes.is_empty() {
        line.push_str(&format!("; not granted: {}", g.notes.join("; ")));
    }
    SandboxReport { line, warnings }
}

/// Confines the server `name` that `cmd` starts (`command args`, with
/// `env`, in `cwd`) to what `grant` gives it: its temp folder made and
/// set as its `TMPDIR` (unless its entry sets one), and, on a Linux with
/// Landlock, the ruleset it restricts itself to before its exec.
pub(super) fn confine(
    name: &str,
    cmd: &mut tokio::process::Command,
    (command, args): (&str, &[String]),
    (env, cwd): (&BTreeMap<String, String>, Option<&Path>),
    grant: &SandboxGrant,
) -> std::io::Result<()> {
    let own_env = |n: &str| std::env::var(n).ok();
    let g = granted(name, (command, args), env, cwd, grant, &own_env);
    make_private_folder(&g.temp)?;
    for var in ["TMPDIR", "TMP", "TEMP"] {
        if !env.contains_key(var) {
            cmd.env(var, &g.temp);
        }
    }
    #[cfg(target_os = "linux")]
    super::sandbox_landlock::restrict_on_exec(cmd, &g)?;
    Ok(())
}

/// Makes `folder` and its parent, each readable by this user alone; an
/// existing parent must be a folder of this user's that no one else can
/// enter (not a link someone else left in the temp folder).
fn make_private_folder(folder: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::{DirBuilderExt, MetadataExt};
    let mut builder = std::fs::DirBuilder::new();
    builder.mode(0o700);
    for dir in [folder.parent(), Some(folder)].into_iter().flatten() {
        match builder.create(dir) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                let meta = std::fs::symlink_metadata(dir)?;
                // SAFETY: getuid only reads this process's user id.
                let me = unsafe { libc::getuid() };
                if !meta.is_dir() || meta.uid() != me || meta.mode() & 0o077 != 0 {
                    return Err(std::io::Error::other(format!(
                        "{} is not a private folder of this user's",
                        dir.display()
                    )));
                }
            }
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// Removes the temp folders of this process's sandboxed servers (at exit,
/// once they are killed).
pub(super) fn remove_temp_folders() {
    let root = std::env::temp_dir().join(format!("toolsift-sandbox-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(root);
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn granted_of(net: Net) -> Granted {
        Granted {
            read: Vec::new(),
            write: Vec::new(),
            temp: PathBuf::from("/tmp/t"),
            net,
            notes: vec!["/home/u (the project) is or holds the home folder: not granted".into()],
        }
    }

    #[test]
    fn a_kernel_without_a_part_is_warned_of_and_none_is_never_called_a_sandbox() {
        let none = report(&granted_of(Net::Denied), 0);
        assert!(none.line.starts_with("not sandboxed"), "{}", none.line);
        assert!(none.warnings[0].contains("NOT sandboxed"), "{:?}", none.warnings);
        let old = report(&granted_of(Net::Denied), 3);
        assert!(old.line.starts_with("sandboxed (Landlock ABI 3)"), "{}", old.line);
        assert!(old.line.contains("net: none (not enforced)"), "{}", old.line);
        assert!(old.warnings[0].contains("\"net\" is NOT enforced"), "{:?}", old.warnings);
        let any = report(&granted_of(Net::Any), 3);
        assert!(any.warnings.is_empty(), "{:?}", any.warnings);
        let new = report(&granted_of(Net::Denied), 7);
        assert!(new.warnings.is_empty(), "{:?}", new.warnings);
        assert!(new.line.ends_with("not granted: /home/u (the project) is or holds the home folder: not granted"), "{}", new.line);
    }

    #[test]
    fn a_temp_folder_is_private_and_one_left_by_another_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().join("root/server");
        make_private_folder(&folder).unwrap();
        make_private_folder(&folder).unwrap();
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&folder).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o700);
        let open = dir.path().join("open");
        std::fs::create_dir(&open).unwrap();
        std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o777)).unwrap();
        let err = make_private_folder(&open.join("s")).unwrap_err();
        assert!(err.to_string().contains("not a private folder"), "{err}");
    }
}
