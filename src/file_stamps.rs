//! Whether files changed, by polling: each file's size and modification
//! time, looked at when asked. Polling a few files costs nothing and works
//! on every filesystem (network and container mounts included), where
//! change notifications may not.

use std::path::PathBuf;
use std::time::{Duration, SystemTime};

/// How often a watcher looks at its files.
pub const EVERY: Duration = Duration::from_secs(1);

/// What a file looked like: none when it could not be read (removed, or
/// being replaced).
type Stamp = Option<(u64, SystemTime)>;

fn stamp(path: &PathBuf) -> Stamp {
    let m = std::fs::metadata(path).ok()?;
    Some((m.len(), m.modified().ok()?))
}

/// A set of files and how they looked when last asked.
#[derive(Debug, Clone)]
pub struct FileStamps {
    paths: Vec<PathBuf>,
    seen: Vec<Stamp>,
}

impl FileStamps {
    /// `paths` as they look now.
    pub fn new(paths: Vec<PathBuf>) -> FileStamps {
        let seen = paths.iter().map(stamp).collect();
        FileStamps { paths, seen }
    }

    pub fn is_empty(&self) -> bool {
        self.paths.is_empty()
    }

    /// Whether any of the files changed (was written, removed or made
    /// again) since the last call, or since [`FileStamps::new`].
    pub fn changed(&mut self) -> bool {
        let now: Vec<Stamp> = self.paths.iter().map(stamp).collect();
        if now == self.seen {
            return false;
        }
        self.seen = now;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_write_a_removal_and_a_new_file_are_changes() {
        let dir = std::env::temp_dir().join(format!("toolsift-stamps-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("servers.json");
        std::fs::write(&path, "{}").unwrap();
        let mut stamps = FileStamps::new(vec![path.clone()]);
        assert!(!stamps.changed());
        std::fs::write(&path, "{\"mcpServers\": {}}").unwrap();
        assert!(stamps.changed());
        assert!(!stamps.changed());
        std::fs::remove_file(&path).unwrap();
        assert!(stamps.changed());
        std::fs::write(&path, "{}").unwrap();
        assert!(stamps.changed());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
