//! Counts kept on disk: one small file per (provider, model, exact request
//! body), named by its 128-bit hash, under the cache directory
//! (`$XDG_CACHE_HOME/toolsift/counts` by default). A file that cannot be
//! read or written is a miss, never an error.

use std::path::PathBuf;

use serde_json::Value;

/// The hash of what was counted, as a file name.
pub(crate) fn key(provider: &str, model: &str, body: &Value) -> String {
    let text = format!("{provider}\n{model}\n{body}");
    format!("{:032x}", xxhash_rust::xxh3::xxh3_128(text.as_bytes()))
}

/// The directory of kept counts.
pub struct CountCache {
    dir: Option<PathBuf>,
}

impl CountCache {
    pub fn open(dir: Option<PathBuf>) -> CountCache {
        if let Some(d) = &dir {
            let _ = std::fs::create_dir_all(d);
        }
        CountCache { dir }
    }

    /// The usual place: `$XDG_CACHE_HOME/toolsift/counts`.
    pub fn default_dir() -> Option<PathBuf> {
        dirs::cache_dir().map(|d| d.join("toolsift").join("counts"))
    }

    pub(crate) fn get(&self, key: &str) -> Option<u64> {
        let text = std::fs::read_to_string(self.dir.as_ref()?.join(key)).ok()?;
        text.trim().parse().ok()
    }

    pub(crate) fn put(&self, key: &str, count: u64) {
        if let Some(d) = &self.dir {
            // Written whole, then renamed: a reader never sees half a count.
            let tmp = d.join(format!("{key}.tmp{}", std::process::id()));
            if std::fs::write(&tmp, count.to_string()).is_ok() {
                let _ = std::fs::rename(&tmp, d.join(key));
            }
        }
    }
}
