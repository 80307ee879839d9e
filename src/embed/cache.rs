//! The vector cache: vectors by (provider, model, prefix, text hash).
//!
//! In memory: two generations of a hash map, so at most `capacity` vectors
//! are held and the least recently used go first (a lookup in the older
//! generation moves the vector to the newer one). On disk: one file per
//! namespace (provider, model, prefix) under the cache directory
//! (`$XDG_CACHE_HOME/toolsift/vectors`), appended to as texts are embedded,
//! so a catalog is embedded once and a changed tool alone is embedded again.
//!
//! A file records its namespace and its vector length; a file of another
//! namespace (a hash collision) or another length (the model behind a name
//! changed) is never read, and is replaced on the next write.

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::{BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use crate::lock::lock;
use xxhash_rust::xxh3::xxh3_128;

const MAGIC: &[u8; 8] = b"TSVEC01\n";
/// Largest vector a file may declare (a corrupt header is not believed).
const MAX_DIM: usize = 1 << 16;

/// Whose vectors: they are comparable only within one namespace.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Namespace {
    pub provider: String,
    pub model: String,
    pub prefix: String,
}

impl Namespace {
    fn key(&self) -> String {
        // Unambiguous: lengths before each part.
        format!(
            "{}:{}|{}:{}|{}:{}",
            self.provider.len(),
            self.provider,
            self.model.len(),
            self.model,
            self.prefix.len(),
            self.prefix
        )
    }

    fn hash(&self) -> u128 {
        xxh3_128(self.key().as_bytes())
    }
}

/// What the cache has done, for tests and reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CacheStats {
    /// Lookups answered from memory.
    pub memory_hits: u64,
    /// Lookups answered from a disk file.
    pub disk_hits: u64,
    /// Lookups answered by the shared store.
    pub shared_hits: u64,
    /// Lookups that found nothing (the text is then embedded).
    pub misses: u64,
    /// Vectors written to disk.
    pub disk_writes: u64,
    /// Vectors held in memory now.
    pub in_memory: usize,
    /// Bytes they take (approximate: the vectors, their headers and their
    /// table slots).
    pub memory_bytes: usize,
}

type Key = (u128, u128);

/// Vectors shared by several processes (a fleet's store), behind the
/// memory and disk caches: asked for what those miss, given what is newly
/// embedded. Best effort: a store that fails answers nothing.
pub trait SharedVectors: Send + Sync {
    /// The vectors of `texts` in `namespace` (a [`Namespace`]'s key) of
    /// length `dim`, where the store has them.
    fn get_many(&self, namespace: &str, texts: &[&str], dim: usize) -> Vec<Option<Vec<f32>>>;
    /// Stores vectors of `namespace`.
    fn put_many(&self, namespace: &str, pairs: &[(&str, &[f32])]);
}

#[derive(Default)]
struct Memory {
    capacity: usize,
    young: HashMap<Key, Arc<[f32]>>,
    old: HashMap<Key, Arc<[f32]>>,
    /// Bytes of the vectors in `young` and in `old` (see [`vector_bytes`]).
    young_bytes: usize,
    old_bytes: usize,
}

/// What one cached vector takes: its floats, the `Arc`'s counts and its
/// slot in the table (key, pointer, length, control byte).
fn vector_bytes(v: &[f32]) -> usize {
    std::mem::size_of_val(v)
        + 2 * std::mem::size_of::<usize>()
        + std::mem::size_of::<(Key, Arc<[f32]>)>()
        + 1
}

impl Memory {
    fn get(&mut self, key: &Key) -> Option<Arc<[f32]>> {
        if let Some(v) = self.young.get(key) {
            return Some(v.clone());
        }
        let v = self.old.remove(key)?;
        self.old_bytes = self.old_bytes.saturating_sub(vector_bytes(&v));
        self.insert(*key, v.clone());
        Some(v)
    }

    fn insert(&mut self, key: Key, v: Arc<[f32]>) {
        if self.capacity == 0 {
            return;
        }
        if self.young.len() >= self.capacity.div_ceil(2) {
            self.old = std::mem::take(&mut self.young);
            self.old_bytes = std::mem::take(&mut self.young_bytes);
        }
        self.young_bytes += vector_bytes(&v);
        if let Some(replaced) = self.young.insert(key, v) {
            self.young_bytes = self.young_bytes.saturating_sub(vector_bytes(&replaced));
        }
    }

    fn contains(&self, key: &Key) -> bool {
        self.young.contains_key(key) || self.old.contains_key(key)
    }

    fn len(&self) -> usize {
        self.young.len() + self.old.len()
    }

    fn bytes(&self) -> usize {
        self.young_bytes + self.old_bytes
    }
}

/// The cache. Share it in an `Arc`; every method takes `&self`.
pub struct VectorCache {
    memory: Mutex<Memory>,
    dir: Option<PathBuf>,
    /// Serialises file writes within this process.
    disk: Mutex<()>,
    memory_hits: AtomicU64,
    disk_hits: AtomicU64,
    shared: std::sync::OnceLock<Arc<dyn SharedVectors>>,
    shared_hits: AtomicU64,
    misses: AtomicU64,
    disk_writes: AtomicU64,
}

impl std::fmt::Debug for VectorCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VectorCache")
            .field("dir", &self.dir)
            .field("stats", &self.stats())
            .finish()
    }
}

/// Vectors kept in memory by default (about 15 MiB of 384-dimension vectors).
pub const DEFAULT_MEMORY_VECTORS: usize = 10_000;

impl VectorCache {
    /// A cache holding at most `capacity` vectors in memory, and on disk
    /// under `dir` when given.
    pub fn new(capacity: usize, dir: Option<PathBuf>) -> Self {
        VectorCache {
            memory: Mutex::new(Memory {
                capacity,
                ..Memory::default()
            }),
            dir,
            disk: Mutex::new(()),
            memory_hits: AtomicU64::new(0),
            disk_hits: AtomicU64::new(0),
            shared: std::sync::OnceLock::new(),
            shared_hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
            disk_writes: AtomicU64::new(0),
        }
    }

    /// `$XDG_CACHE_HOME/toolsift/vectors` (or the platform's cache
    /// directory), if there is one.
    pub fn default_dir() -> Option<PathBuf> {
        std::env::var_os("XDG_CACHE_HOME")
            .filter(|d| !d.is_empty())
            .map(PathBuf::from)
            .or_else(dirs::cache_dir)
            .map(|d| d.join("toolsift").join("vectors"))
    }

    /// Puts `shared` behind this cache (once; a second store is ignored).
    pub fn share_with(&self, shared: Arc<dyn SharedVectors>) {
        let _ = self.shared.set(shared);
    }

    pub fn dir(&self) -> Option<&Path> {
        self.dir.as_deref()
    }

    pub fn stats(&self) -> CacheStats {
        let (in_memory, memory_bytes) = {
            let memory = lock(&self.memory);
            (memory.len(), memory.bytes())
        };
        CacheStats {
            memory_hits: self.memory_hits.load(Ordering::Relaxed),
            disk_hits: self.disk_hits.load(Ordering::Relaxed),
            shared_hits: self.shared_hits.load(Ordering::Relaxed),
            misses: self.misses.load(Ordering::Relaxed),
            disk_writes: self.disk_writes.load(Ordering::Relaxed),
            in_memory,
            memory_bytes,
        }
    }

    fn file_of(&self, ns: &Namespace) -> Option<PathBuf> {
        self.dir
            .as_ref()
            .map(|d| d.join(format!("{:032x}.vec", ns.hash())))
    }

    /// A vector from memory only.
    pub fn get_memory(&self, ns: &Namespace, text: &str) -> Option<Vec<f32>> {
        let key = (ns.hash(), xxh3_128(text.as_bytes()));
        let v = lock(&self.memory).get(&key)?;
        self.memory_hits.fetch_add(1, Ordering::Relaxed);
        Some(v.to_vec())
    }

    /// Whether memory holds `text`'s vector (no hit counted, nothing moved).
    pub fn holds_memory(&self, ns: &Namespace, text: &str) -> bool {
        lock(&self.memory).contains(&(ns.hash(), xxh3_128(text.as_bytes())))
    }

    pub fn put_memory(&self, ns: &Namespace, text: &str, v: &[f32]) {
        let key = (ns.hash(), xxh3_128(text.as_bytes()));
        lock(&self.memory).insert(key, Arc::from(v));
    }

    /// The vectors of `texts` the cache has (memory first, then disk) of
    /// length `dim`.
    pub fn get_many(&self, ns: &Namespace, texts: &[&str], dim: usize) -> Vec<Option<Vec<f32>>> {
        let nsh = ns.hash();
        let keys: Vec<u128> = texts.iter().map(|t| xxh3_128(t.as_bytes())).collect();
        let mut out: Vec<Option<Vec<f32>>> = {
            let mut memory = lock(&self.memory);
            keys.iter()
                .map(|k| {
                    memory
                        .get(&(nsh, *k))
                        .filter(|v| v.len() == dim)
                        .map(|v| v.to_vec())
                })
                .collect()
        };
        let found = out.iter().filter(|v| v.is_some()).count() as u64;
        self.memory_hits.fetch_add(found, Ordering::Relaxed);
        if out.iter().any(Option::is_none)
            && let Some(path) = self.file_of(ns)
        {
            let wanted: HashMap<u128, Vec<usize>> = keys
                .iter()
                .enumerate()
                .filter(|(i, _)| out[*i].is_none())
                .fold(HashMap::new(), |mut m, (i, k)| {
                    m.entry(*k).or_default().push(i);
                    m
                });
            let _guard = lock(&self.disk);
            if let Some(read) = read_file(&path, &ns.key(), dim, &wanted) {
                let mut memory = lock(&self.memory);
                for (k, v) in read {
                    let v: Arc<[f32]> = Arc::from(v);
                    for &i in &wanted[&k] {
                        if out[i].is_none() {
                            out[i] = Some(v.to_vec());
                            self.disk_hits.fetch_add(1, Ordering::Relaxed);
                        }
                    }
                    memory.insert((nsh, k), v);
                }
            }
        }
        if let Some(shared) = self.shared.get() {
            self.get_shared(shared.as_ref(), ns, texts, dim, &mut out);
        }
        let missing = out.iter().filter(|v| v.is_none()).count() as u64;
        self.misses.fetch_add(missing, Ordering::Relaxed);
        out
    }

    /// Fills the gaps of `out` from the shared store (and keeps what it
    /// finds in memory).
    fn get_shared(
        &self,
        shared: &dyn SharedVectors,
        ns: &Namespace,
        texts: &[&str],
        dim: usize,
        out: &mut [Option<Vec<f32>>],
    ) {
        let gaps: Vec<usize> = (0..texts.len()).filter(|&i| out[i].is_none()).collect();
        if gaps.is_empty() {
            return;
        }
        let wanted: Vec<&str> = gaps.iter().map(|&i| texts[i]).collect();
        let found = shared.get_many(&ns.key(), &wanted, dim);
        let nsh = ns.hash();
        let mut memory = lock(&self.memory);
        for (&i, v) in gaps.iter().zip(found) {
            if let Some(v) = v.filter(|v| v.len() == dim) {
                memory.insert(
                    (nsh, xxh3_128(texts[i].as_bytes())),
                    Arc::from(v.as_slice()),
                );
                out[i] = Some(v);
                self.shared_hits.fetch_add(1, Ordering::Relaxed);
            }
        }
    }

    /// Stores vectors (all of one length) in memory and on disk. A disk
    /// that cannot be written leaves the memory cache working: the cache
    /// is a saving, not a need.
    pub fn put_many(&self, ns: &Namespace, pairs: &[(&str, &[f32])]) {
        let nsh = ns.hash();
        {
            let mut memory = lock(&self.memory);
            for (text, v) in pairs {
                memory.insert((nsh, xxh3_128(text.as_bytes())), Arc::from(*v));
            }
        }
        if let Some(shared) = self.shared.get() {
            shared.put_many(&ns.key(), pairs);
        }
        let (Some(path), Some(dim)) = (self.file_of(ns), pairs.first().map(|p| p.1.len())) else {
            return;
        };
        let _guard = lock(&self.disk);
        if append_file(&path, &ns.key(), dim, pairs).is_ok() {
            self.disk_writes
                .fetch_add(pairs.len() as u64, Ordering::Relaxed);
        }
    }
}

fn header(ns_key: &str, dim: usize) -> Vec<u8> {
    let mut h = MAGIC.to_vec();
    h.extend_from_slice(&(dim as u32).to_le_bytes());
    h.extend_from_slice(&(ns_key.len() as u32).to_le_bytes());
    h.extend_from_slice(ns_key.as_bytes());
    h
}

/// The header's vector length, if `file` starts with a header of `ns_key`.
fn read_header(file: &mut impl Read, ns_key: &str) -> Option<usize> {
    let mut fixed = [0u8; 16];
    file.read_exact(&mut fixed).ok()?;
    if &fixed[..8] != MAGIC {
        return None;
    }
    let dim = u32::from_le_bytes(fixed[8..12].try_into().ok()?) as usize;
    let len = u32::from_le_bytes(fixed[12..16].try_into().ok()?) as usize;
    if len != ns_key.len() || dim == 0 || dim > MAX_DIM {
        return None;
    }
    let mut key = vec![0u8; len];
    file.read_exact(&mut key).ok()?;
    (key == ns_key.as_bytes()).then_some(dim)
}

/// The wanted records of a file of this namespace and length; `None` when
/// there is no such file. A torn last record is ignored.
fn read_file(
    path: &Path,
    ns_key: &str,
    dim: usize,
    wanted: &HashMap<u128, Vec<usize>>,
) -> Option<Vec<(u128, Vec<f32>)>> {
    let mut file = BufReader::new(File::open(path).ok()?);
    if read_header(&mut file, ns_key)? != dim {
        return None;
    }
    let mut record = vec![0u8; 16 + 4 * dim];
    let mut out = HashMap::new();
    while file.read_exact(&mut record).is_ok() {
        let key = u128::from_le_bytes(record[..16].try_into().ok()?);
        if wanted.contains_key(&key) {
            let v: Vec<f32> = record[16..]
                .chunks_exact(4)
                .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .collect();
            if v.iter().all(|x| x.is_finite()) {
                out.insert(key, v);
            }
        }
    }
    Some(out.into_iter().collect())
}

/// Appends records, starting the file afresh when it is missing or of
/// another namespace or length.
fn append_file(
    path: &Path,
    ns_key: &str,
    dim: usize,
    pairs: &[(&str, &[f32])],
) -> std::io::Result<()> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)?;
    }
    let fits = File::open(path)
        .ok()
        .and_then(|f| read_header(&mut BufReader::new(f), ns_key))
        == Some(dim);
    let mut file = if fits {
        OpenOptions::new().append(true).open(path)?
    } else {
        let mut f = File::create(path)?;
        f.write_all(&header(ns_key, dim))?;
        f
    };
    let mut buf = Vec::with_capacity(pairs.len() * (16 + 4 * dim));
    for (text, v) in pairs {
        if v.len() != dim {
            continue;
        }
        buf.extend_from_slice(&xxh3_128(text.as_bytes()).to_le_bytes());
        for x in v.iter() {
            buf.extend_from_slice(&x.to_le_bytes());
        }
    }
    file.write_all(&buf)?;
    file.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ns(model: &str) -> Namespace {
        Namespace {
            provider: "local".into(),
            model: model.into(),
            prefix: String::new(),
        }
    }

    #[test]
    fn memory_is_bounded_and_keeps_the_recent() {
        let cache = VectorCache::new(4, None);
        let n = ns("m");
        for i in 0..10 {
            cache.put_memory(&n, &format!("t{i}"), &[i as f32]);
        }
        assert!(cache.stats().in_memory <= 4);
        assert_eq!(
            cache.stats().memory_bytes,
            cache.stats().in_memory * vector_bytes(&[0.0])
        );
        assert_eq!(cache.get_memory(&n, "t9"), Some(vec![9.0]));
        assert_eq!(cache.get_memory(&n, "t0"), None);
    }

    #[test]
    fn disk_round_trip_and_other_models_or_dimensions_never_read() {
        let dir = std::env::temp_dir().join(format!("toolsift-vec-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let cache = VectorCache::new(0, Some(dir.clone()));
        let n = ns("m");
        cache.put_many(&n, &[("a", &[1.0f32, 0.0][..]), ("b", &[0.0f32, 1.0][..])]);
        let fresh = VectorCache::new(0, Some(dir.clone()));
        let got = fresh.get_many(&n, &["b", "c", "a"], 2);
        assert_eq!(got, vec![Some(vec![0.0, 1.0]), None, Some(vec![1.0, 0.0])]);
        assert_eq!(fresh.stats().disk_hits, 2);
        assert_eq!(fresh.stats().misses, 1);
        // Another model: another file; another length: not read.
        assert_eq!(fresh.get_many(&ns("other"), &["a"], 2), vec![None]);
        assert_eq!(fresh.get_many(&n, &["a"], 3), vec![None]);
        // Writing vectors of another length replaces the file.
        fresh.put_many(&n, &[("a", &[1.0f32, 0.0, 0.0][..])]);
        assert_eq!(fresh.get_many(&n, &["b"], 2), vec![None]);
        assert_eq!(
            fresh.get_many(&n, &["a"], 3),
            vec![Some(vec![1.0, 0.0, 0.0])]
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
