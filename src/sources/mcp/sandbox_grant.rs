//! What a sandboxed stdio server may touch, worked out from its entry:
//! the base every one gets (the system's folders read; `/dev/null` and
//! the terminals written; its own package, found from its command, read;
//! the project folder read; a temp folder of its own written), the caches
//! of the runner that starts it (`npx`'s, `uvx`'s) written, then what its
//! `sandbox` adds. Never the home folder itself, nor a folder that holds
//! it, unless the entry names one.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::sandbox_entry::{Net, SandboxGrant};

/// The system's folders every sandboxed server may read (those present).
const SYSTEM_READ: &[&str] = &[
    "/usr",
    "/lib",
    "/lib32",
    "/lib64",
    "/libx32",
    "/bin",
    "/sbin",
    "/etc",
    "/opt",
    "/nix/store",
    "/sys",
    "/dev",
    "/run/systemd/resolve",
];

/// The devices every sandboxed server may write.
const SYSTEM_WRITE: &[&str] = &[
    "/dev/null",
    "/dev/zero",
    "/dev/full",
    "/dev/tty",
    "/dev/ptmx",
    "/dev/pts",
    "/dev/shm",
];

/// Folders a package's own files sit in, below the package's folder.
const PACKAGE_SUBFOLDERS: &[&str] = &["bin", "dist", "build", "lib", "src", "scripts", "Scripts"];

/// Why a path is granted, for the start-up statement.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Why {
    /// The system's folders and devices.
    System,
    /// The server's own package: its command, interpreter and script.
    Own,
    /// The cache of the runner that starts it.
    Cache,
    /// The project folder.
    Project,
    /// Its own temp folder.
    Temp,
    /// Named in its entry's `sandbox`.
    Entry,
}

impl Why {
    fn label(self) -> &'static str {
        match self {
            Why::System => "the system",
            Why::Own => "its own package",
            Why::Cache => "its runner's cache",
            Why::Project => "the project",
            Why::Temp => "its temp folder",
            Why::Entry => "its entry",
        }
    }
}

/// Everything one sandboxed server may touch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Granted {
    pub read: Vec<(PathBuf, Why)>,
    /// Read and written.
    pub write: Vec<(PathBuf, Why)>,
    /// Its own temp folder (also in `write`), its `TMPDIR`.
    pub temp: PathBuf,
    pub net: Net,
    /// What was left out, and why.
    pub notes: Vec<String>,
}

/// What the server `name`, started as `command args` with `env` in `cwd`,
/// may touch under `grant`; `own_env` is toolsift's environment (the
/// server's `PATH` and `HOME` when its entry sets none).
pub fn granted(
    name: &str,
    (command, args): (&str, &[String]),
    env: &BTreeMap<String, String>,
    cwd: Option<&Path>,
    grant: &SandboxGrant,
    own_env: &dyn Fn(&str) -> Option<String>,
) -> Granted {
    let var = |n: &str| env.get(n).cloned().or_else(|| own_env(n));
    let home = var("HOME").filter(|h| !h.is_empty()).map(PathBuf::from);
    let mut g = Granted {
        read: present(SYSTEM_READ, Why::System),
        write: present(SYSTEM_WRITE, Why::System),
        temp: temp_folder(name),
        net: grant.net.clone(),
        notes: Vec::new(),
    };
    let resolved = which(command, var("PATH").as_deref(), cwd);
    let mut own: Vec<PathBuf> = Vec::new();
    if let Some(path) = &resolved {
        own.extend(packages_of(path, home.as_deref()));
        if let Some(interpreter) = interpreter_of(path, var("PATH").as_deref()) {
            own.extend(packages_of(&interpreter, home.as_deref()));
        }
    }
    for arg in args {
        let path = match cwd {
            Some(dir) => dir.join(arg),
            None => PathBuf::from(arg),
        };
        if path.is_file() {
            own.extend(packages_of(&path, home.as_deref()));
        }
    }
    for path in own {
        g.add_read(path, Why::Own, home.as_deref());
    }
    let runners = [Some(command), resolved.as_deref().and_then(|p| p.to_str())];
    for path in runner_caches(runners.iter().flatten().copied(), &var, home.as_deref()) {
        g.add_write(path, Why::Cache);
    }
    if let Some(project) = &grant.project {
        g.add_read(project.clone(), Why::Project, home.as_deref());
    }
    g.add_write(g.temp.clone(), Why::Temp);
    for path in &grant.read {
        g.add_read(path.clone(), Why::Entry, None);
    }
    for path in &grant.write {
        g.add_write(path.clone(), Why::Entry);
    }
    g
}

impl Granted {
    /// Adds `path` to what it may read, unless already there, or, found
    /// by toolsift rather than named by the user (`home` given), it is
    /// the home folder or holds it.
    fn add_read(&mut self, path: PathBuf, why: Why, home: Option<&Path>) {
        if let Some(home) = home
            && home.starts_with(&path)
        {
            self.notes.push(format!(
                "{} ({}) is or holds the home folder: not granted",
                path.display(),
                why.label()
            ));
            return;
        }
        if !self.read.iter().any(|(p, _)| *p == path) && (why == Why::Entry || path.exists()) {
            self.read.push((path, why));
        }
    }

    fn add_write(&mut self, path: PathBuf, why: Why) {
        if !self.write.iter().any(|(p, _)| *p == path) {
            self.write.push((path, why));
        }
    }

    /// What it may read, write and reach, in a line: each path with why.
    pub fn describe(&self) -> String {
        let list = |paths: &[(PathBuf, Why)]| {
            let mut groups: Vec<(Why, Vec<String>)> = Vec::new();
            for (path, why) in paths {
                match groups.iter_mut().find(|(w, _)| w == why) {
                    Some((_, shown)) => shown.push(path.display().to_string()),
                    None => groups.push((*why, vec![path.display().to_string()])),
                }
            }
            groups
                .iter()
                .map(|(why, shown)| format!("{} ({})", why.label(), shown.join(" ")))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let net = match &self.net {
            Net::Any => "any".to_string(),
            Net::Denied => "none".to_string(),
            Net::Ports(ports) => format!(
                "TCP to port{} {} (any host: Landlock filters ports)",
                if ports.len() == 1 { "" } else { "s" },
                ports
                    .iter()
                    .map(|(p, _)| p.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        format!(
            "read {}; write {}; net: {net}",
            list(&self.read),
            list(&self.write)
        )
    }
}

/// The paths of `paths` that exist, each for `why`.
fn present(paths: &[&str], why: Why) -> Vec<(PathBuf, Why)> {
    paths
        .iter()
        .map(PathBuf::from)
        .filter(|p| p.exists())
        .map(|p| (p, why))
        .collect()
}

/// The server's own temp folder: beside toolsift's others, named after
/// this process and the server (made when it starts, `sandbox.rs`).
fn temp_folder(name: &str) -> PathBuf {
    let safe: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '_'
            }
        })
        .take(40)
        .collect();
    std::env::temp_dir()
        .join(format!("toolsift-sandbox-{}", std::process::id()))
        .join(safe)
}

/// `command` as the system finds it: a path as written (against `cwd`),
/// a bare name on `path`.
fn which(command: &str, path: Option<&str>, cwd: Option<&Path>) -> Option<PathBuf> {
    if command.contains('/') {
        let p = match cwd {
            Some(dir) => dir.join(command),
            None => PathBuf::from(command),
        };
        return p.is_file().then_some(p);
    }
    std::env::split_paths(path?)
        .map(|dir| dir.join(command))
        .find(|p| p.is_file())
}

/// The packages `path` belongs to, as written and with its links
/// followed: within `node_modules`, the outermost `node_modules` (a
/// package's own dependencies are beside it); else the folder holding it,
/// or that folder's parent when it is a package's `bin`, `dist` or the
/// like, unless that parent is `/` or holds `home`.
fn packages_of(path: &Path, home: Option<&Path>) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::new();
    for p in [Some(path.to_path_buf()), path.canonicalize().ok()]
        .into_iter()
        .flatten()
    {
        let (package, folder) = package_of(&p);
        let too_wide = package.parent().is_none() || home.is_some_and(|h| h.starts_with(&package));
        let chosen = if too_wide { folder } else { package };
        if !out.contains(&chosen) {
            out.push(chosen);
        }
    }
    out
}

/// The package of a file, and the folder holding it.
fn package_of(path: &Path) -> (PathBuf, PathBuf) {
    let dir = path.parent().unwrap_or(path).to_path_buf();
    let mut prefix = PathBuf::new();
    for part in path.components() {
        prefix.push(part);
        if part.as_os_str() == "node_modules" {
            return (prefix, dir);
        }
    }
    match dir.file_name().and_then(|n| n.to_str()) {
        Some(n) if PACKAGE_SUBFOLDERS.contains(&n) => {
            (dir.parent().unwrap_or(&dir).to_path_buf(), dir)
        }
        _ => (dir.clone(), dir),
    }
}

/// The interpreter a script's `#!` line names (`env NAME` looked up on
/// `path`).
fn interpreter_of(script: &Path, path: Option<&str>) -> Option<PathBuf> {
    use std::io::Read;
    let mut head = [0u8; 256];
    let n = std::fs::File::open(script).ok()?.read(&mut head).ok()?;
    let line = head[..n].strip_prefix(b"#!")?;
    let line = String::from_utf8_lossy(line.split(|b| *b == b'\n').next()?).into_owned();
    let mut words = line.split_whitespace();
    let first = words.next()?;
    if first.ends_with("/env") {
        let name = words.find(|w| !w.starts_with('-'))?;
        return which(name, path, None);
    }
    Some(PathBuf::from(first))
}

/// The caches the runners among `commands` write (`npx`'s, `uvx`'s,
/// `pipx`'s, `bunx`'s), where their variables or the defaults put them.
fn runner_caches<'a>(
    commands: impl Iterator<Item = &'a str>,
    var: &dyn Fn(&str) -> Option<String>,
    home: Option<&Path>,
) -> Vec<PathBuf> {
    let in_home = |rest: &str| home.map(|h| h.join(rest));
    let from = |name: &str| var(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    let mut out = Vec::new();
    for command in commands {
        let base = Path::new(command)
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or(command);
        let found: Vec<Option<PathBuf>> = match base {
            "npx" | "npm" | "pnpm" | "pnpx" => vec![
                from("npm_config_cache").or_else(|| in_home(".npm")),
                in_home(".local/share/pnpm"),
            ],
            "uvx" | "uv" => vec![
                from("UV_CACHE_DIR")
                    .or_else(|| from("XDG_CACHE_HOME").map(|c| c.join("uv")))
                    .or_else(|| in_home(".cache/uv")),
                from("XDG_DATA_HOME")
                    .map(|d| d.join("uv"))
                    .or_else(|| in_home(".local/share/uv")),
            ],
            "pipx" => vec![
                in_home(".local/pipx"),
                in_home(".local/share/pipx"),
                in_home(".cache/pipx"),
            ],
            "bunx" | "bun" => vec![in_home(".bun")],
            _ => Vec::new(),
        };
        for path in found.into_iter().flatten() {
            if !out.contains(&path) {
                out.push(path);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_package_is_its_outermost_node_modules_or_the_folder_above_its_bin() {
        let package = |p: &str| packages_of(Path::new(p), Some(Path::new("/h")));
        assert_eq!(
            package("/p/node_modules/@s/x/node_modules/y/dist/i.js"),
            [Path::new("/p/node_modules")]
        );
        assert_eq!(package("/venv/bin/python"), [Path::new("/venv")]);
        assert_eq!(package("/srv/tool/server.py"), [Path::new("/srv/tool")]);
        // Never / nor the home folder for a bin of their own.
        assert_eq!(package("/h/bin/tool"), [Path::new("/h/bin")]);
        assert_eq!(package("/sbin/tool"), [Path::new("/sbin")]);
    }

    #[test]
    fn the_home_folder_is_never_granted_unless_named() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        let bin = home.join("bin");
        std::fs::create_dir_all(&bin).unwrap();
        std::fs::write(bin.join("srv"), "#!/bin/sh\n").unwrap();
        let env = BTreeMap::from([
            ("HOME".to_string(), home.display().to_string()),
            ("PATH".to_string(), bin.display().to_string()),
        ]);
        let grant = SandboxGrant {
            project: Some(home.clone()),
            read: vec![home.join(".ssh")],
            ..Default::default()
        };
        let g = granted("s/1", ("srv", &[]), &env, None, &grant, &|_| None);
        let read: Vec<&PathBuf> = g.read.iter().map(|(p, _)| p).collect();
        assert!(!read.contains(&&home), "{read:?}");
        assert!(read.contains(&&home.join(".ssh")), "named: {read:?}");
        assert!(read.contains(&&PathBuf::from("/bin")) || !Path::new("/bin").exists());
        assert!(read.contains(&&bin), "its own bin: {read:?}");
        assert_eq!(g.notes.len(), 1, "the project alone: {:?}", g.notes);
        assert!(g.temp.ends_with("s_1"), "{}", g.temp.display());
        assert!(
            g.describe().contains("its temp folder ("),
            "{}",
            g.describe()
        );
    }

    #[test]
    fn a_runner_writes_its_cache() {
        let home = Path::new("/h");
        let var = |n: &str| (n == "UV_CACHE_DIR").then(|| "/c/uv".to_string());
        let caches = runner_caches(["uvx", "/usr/bin/npx"].into_iter(), &var, Some(home));
        assert_eq!(
            caches,
            [
                PathBuf::from("/c/uv"),
                PathBuf::from("/h/.local/share/uv"),
                PathBuf::from("/h/.npm"),
                PathBuf::from("/h/.local/share/pnpm")
            ]
        );
    }
}
