//! The Landlock ruleset of a sandboxed server (Linux): built in toolsift
//! with the `landlock` crate, best effort (what the kernel lacks is
//! left out, and `sandbox.rs` says so at start), and applied by the child
//! between fork and exec.

use std::os::fd::{AsRawFd, OwnedFd};

use landlock::{
    ABI, Access, AccessFs, AccessNet, CompatLevel, Compatible, NetPort, Ruleset, RulesetAttr,
    RulesetCreatedAttr, RulesetError, Scope, path_beneath_rules,
};

use super::sandbox_entry::Net;
use super::sandbox_grant::Granted;

/// The newest ABI whose rights this ruleset asks for: the rights of files
/// (ABI 5 adds device ioctls), TCP ports (4), and the scopes (6: no
/// signal to, nor abstract socket of, a process outside the sandbox).
const ASKED: ABI = ABI::V6;

/// The ruleset of `g`, as a descriptor; `None` when the kernel has no
/// Landlock.
fn ruleset(g: &Granted) -> Result<Option<OwnedFd>, RulesetError> {
    let mut ruleset = Ruleset::default()
        .set_compatibility(CompatLevel::BestEffort)
        .handle_access(AccessFs::from_all(ASKED))?
        .scope(Scope::from_all(ASKED))?;
    if g.net != Net::Any {
        ruleset = ruleset.handle_access(AccessNet::from_all(ASKED))?;
    }
    let read = g.read.iter().map(|(p, _)| p);
    let write = g.write.iter().map(|(p, _)| p);
    let mut created = ruleset
        .create()?
        .add_rules(path_beneath_rules(read, AccessFs::from_read(ASKED)))?
        .add_rules(path_beneath_rules(write, AccessFs::from_all(ASKED)))?;
    if let Net::Ports(ports) = &g.net {
        for (port, _) in ports {
            created = created.add_rule(NetPort::new(*port, AccessNet::ConnectTcp))?;
        }
    }
    Ok(created.into())
}

/// Makes the process `cmd` starts restrict itself to `g` before its exec;
/// nothing where the kernel has no Landlock.
pub(super) fn restrict_on_exec(
    cmd: &mut tokio::process::Command,
    g: &Granted,
) -> std::io::Result<()> {
    let Some(fd) = ruleset(g).map_err(std::io::Error::other)? else {
        return Ok(());
    };
    // SAFETY: the closure runs in the child between fork and exec, and
    // makes two system calls only (prctl, landlock_restrict_self), both
    // async-signal-safe, allocating nothing; its error is the errno. The
    // descriptor is the parent's (close-on-exec), kept open by the
    // closure as long as `cmd`.
    unsafe {
        cmd.pre_exec(move || restrict_self(fd.as_raw_fd()));
    }
    Ok(())
}

/// In the child: no new privileges (a setuid program cannot escape), then
/// the ruleset `fd`.
fn restrict_self(fd: i32) -> std::io::Result<()> {
    // SAFETY: prctl(PR_SET_NO_NEW_PRIVS) only sets this process's flag.
    if unsafe { libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: landlock_restrict_self takes a ruleset descriptor this
    // process holds and no pointer.
    if unsafe { libc::syscall(libc::SYS_landlock_restrict_self, fd, 0u32) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    /// A child of this test restricted by a ruleset of `g` runs `script`
    /// in sh; what it printed.
    fn run_confined(g: &Granted, script: &str) -> String {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async {
            let mut cmd = tokio::process::Command::new("/bin/sh");
            cmd.args(["-c", script]);
            restrict_on_exec(&mut cmd, g).unwrap();
            let out = cmd.output().await.unwrap();
            String::from_utf8_lossy(&out.stdout).into_owned()
                + &String::from_utf8_lossy(&out.stderr)
        })
    }

    #[test]
    fn a_child_reads_its_grant_and_gets_eacces_outside_it() {
        if super::super::sandbox::landlock_abi() < 1 {
            panic!("this kernel has no Landlock: the sandbox cannot be tested here");
        }
        let dir = tempfile::tempdir().unwrap();
        let mine = dir.path().join("mine");
        let secret = dir.path().join("secret");
        std::fs::create_dir_all(&mine).unwrap();
        std::fs::create_dir_all(&secret).unwrap();
        std::fs::write(mine.join("a"), "granted").unwrap();
        std::fs::write(secret.join("b"), "hidden").unwrap();
        let system = ["/usr", "/lib", "/lib64", "/bin", "/etc", "/dev"];
        let g = Granted {
            read: system
                .iter()
                .map(PathBuf::from)
                .chain([mine.clone()])
                .map(|p| (p, super::super::sandbox_grant::Why::System))
                .collect(),
            write: Vec::new(),
            temp: dir.path().join("t"),
            net: Net::Denied,
            notes: Vec::new(),
        };
        let out = run_confined(
            &g,
            &format!(
                "cat {}; cat {}; echo x > {}; cat /proc/{}/environ",
                mine.join("a").display(),
                secret.join("b").display(),
                mine.join("c").display(),
                std::process::id()
            ),
        );
        assert!(out.contains("granted"), "{out}");
        assert!(!out.contains("hidden"), "{out}");
        // Its parent's environment too: /proc is readable, the process
        // outside the sandbox is not.
        assert!(!out.contains("PATH="), "{out}");
        assert_eq!(out.matches("Permission denied").count(), 3, "{out}");
    }
}
