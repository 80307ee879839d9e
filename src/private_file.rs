//! Files that hold what people asked and called (the gateway's trace, its
//! learn file): created readable by their owner only (0600), an existing
//! one made so when opened (one that is another user's, or has another
//! name, a hard link, is refused), never opened through a symbolic link
//! (one planted where the file goes would have toolsift truncate or fill
//! its target), and appended a whole line in one write, under the file's
//! lock, so two writers never tear a line.

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// Opens `path` to append, creating it 0600 and making an existing one
/// 0600; a symbolic link, anything but a regular file, a file of another
/// user's and a file with another name (a hard link) are refused.
pub fn open_append(path: &Path) -> io::Result<File> {
    let file = OpenOptions::new()
        .create(true)
        .append(true)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(path)
        .map_err(|e| {
            if e.raw_os_error() == Some(libc::ELOOP) {
                io::Error::new(
                    io::ErrorKind::InvalidInput,
                    "is a symbolic link; give the file itself",
                )
            } else {
                e
            }
        })?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "is not a regular file",
        ));
    }
    made_private(&file, &meta)?;
    Ok(file)
}

/// Makes the open `file` (`meta`) readable by its owner only, unless it is
/// not ours to make so: another user's, or linked under another name too
/// (what it holds would be read there).
fn made_private(file: &File, meta: &std::fs::Metadata) -> io::Result<()> {
    // SAFETY: geteuid only reads this process's effective user.
    let me = unsafe { libc::geteuid() };
    if meta.uid() != me {
        return Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            format!(
                "belongs to another user (uid {}, this process runs as {me}); give a file of your own",
                meta.uid()
            ),
        ));
    }
    if meta.nlink() > 1 {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "has {} names (a hard link), so what is written in it could be read under another; give a file of its own",
                meta.nlink()
            ),
        ));
    }
    if meta.mode() & 0o077 != 0 {
        file.set_permissions(std::fs::Permissions::from_mode(0o600))?;
    }
    Ok(())
}

/// A warning when others than its owner may write `path` (its lines then
/// are not only the owner's).
pub fn shared_warning(path: &Path) -> Option<String> {
    let mode = std::fs::symlink_metadata(path).ok()?.permissions().mode();
    (mode & 0o022 != 0).then(|| {
        format!(
            "{} could be written by others than its owner (mode {:o}); it is made 0600 now, but what is in it is trusted as this gateway's own: look it over",
            path.display(),
            mode & 0o777
        )
    })
}

/// Appends `line` and a newline to `path` in one write, holding the
/// file's lock; when the file was replaced meanwhile (another writer
/// trimmed it), the line goes to the new one.
pub fn append_line(path: &Path, line: &str) -> io::Result<()> {
    let mut whole = String::with_capacity(line.len() + 1);
    whole.push_str(line);
    whole.push('\n');
    // Each try that finds the file replaced follows it to the new one; a
    // trim replaces it once, so a few tries always reach it.
    for _ in 0..64 {
        let mut file = open_append(path)?;
        file.lock()?;
        let same = match (file.metadata(), std::fs::symlink_metadata(path)) {
            (Ok(open), Ok(named)) => open.ino() == named.ino() && open.dev() == named.dev(),
            _ => false,
        };
        if !same {
            continue;
        }
        return file.write_all(whole.as_bytes());
    }
    Err(io::Error::other(
        "the file was replaced while being written",
    ))
}

/// Keeps the last `keep` lines of `path` (written beside it, then renamed
/// over it), holding the file's lock while it reads and writes, so a line
/// another writer appends meanwhile is neither lost nor torn. A line longer
/// than `max_line` bytes is dropped. Returns how many lines are kept.
pub fn keep_last(path: &Path, keep: usize, max_line: usize) -> io::Result<usize> {
    let old = open_append(path)?;
    old.lock()?;
    let mut lines: std::collections::VecDeque<Vec<u8>> = std::collections::VecDeque::new();
    let reader = io::BufReader::new(File::open(path)?);
    for_each_line(reader, max_line, |_, line| {
        if let Line::Whole(l) = line {
            if lines.len() == keep {
                lines.pop_front();
            }
            lines.push_back(l.to_vec());
        }
    })?;
    let mut beside = path.as_os_str().to_owned();
    beside.push(format!(".{}.tmp", std::process::id()));
    let beside = PathBuf::from(beside);
    let mut file = OpenOptions::new()
        .create_new(true)
        .write(true)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW)
        .open(&beside)?;
    let mut text = Vec::new();
    for l in &lines {
        text.extend_from_slice(l);
        text.push(b'\n');
    }
    let written = file.write_all(&text).and_then(|()| file.sync_all());
    if let Err(e) = written.and_then(|()| std::fs::rename(&beside, path)) {
        let _ = std::fs::remove_file(&beside);
        return Err(e);
    }
    Ok(lines.len())
}

/// One line of a file read with a bound.
pub enum Line<'a> {
    /// The line, without its newline.
    Whole(&'a [u8]),
    /// Longer than the bound: how many bytes it had (none of it is kept).
    Overlong(u64),
}

/// Calls `f` with each line's number (from 1) and the line, keeping at
/// most `max` bytes of any line in memory: a line of 200 MB costs `max`.
pub fn for_each_line(
    mut reader: impl io::BufRead,
    max: usize,
    mut f: impl FnMut(usize, Line<'_>),
) -> io::Result<()> {
    let mut buf: Vec<u8> = Vec::new();
    let mut len: u64 = 0;
    let mut number = 0;
    loop {
        let chunk = reader.fill_buf()?;
        if chunk.is_empty() {
            if len > 0 {
                number += 1;
                if len as usize > max {
                    f(number, Line::Overlong(len));
                } else {
                    f(number, Line::Whole(&buf));
                }
            }
            return Ok(());
        }
        let (part, ends) = match memchr::memchr(b'\n', chunk) {
            Some(at) => (&chunk[..at], Some(at + 1)),
            None => (chunk, None),
        };
        if len as usize <= max {
            let room = (max + 1).saturating_sub(buf.len());
            buf.extend_from_slice(&part[..part.len().min(room)]);
        }
        len += part.len() as u64;
        let used = ends.unwrap_or(chunk.len());
        reader.consume(used);
        if ends.is_some() {
            number += 1;
            if len as usize > max {
                f(number, Line::Overlong(len));
            } else {
                f(number, Line::Whole(&buf));
            }
            buf.clear();
            len = 0;
        }
    }
}

/// An append-only file that starts again when it reaches `limit` bytes:
/// the full one is kept as `PATH.1` (one before it is dropped).
#[derive(Debug)]
pub struct Rotating {
    path: PathBuf,
    file: File,
    size: u64,
    limit: u64,
}

impl Rotating {
    pub fn open(path: &Path, limit: u64) -> io::Result<Rotating> {
        let file = open_append(path)?;
        let size = file.metadata()?.len();
        Ok(Rotating {
            path: path.to_path_buf(),
            file,
            size,
            limit,
        })
    }

    /// Appends `line` and a newline in one write, first moving a full file
    /// aside.
    pub fn write_line(&mut self, line: &str) -> io::Result<()> {
        let len = line.len() as u64 + 1;
        if self.size > 0 && self.size + len > self.limit {
            let mut aside = self.path.as_os_str().to_owned();
            aside.push(".1");
            std::fs::rename(&self.path, PathBuf::from(aside))?;
            self.file = open_append(&self.path)?;
            self.size = 0;
        }
        let mut whole = Vec::with_capacity(line.len() + 1);
        whole.extend_from_slice(line.as_bytes());
        whole.push(b'\n');
        self.file.write_all(&whole)?;
        self.size += len;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(tag: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("toolsift-private-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn created_for_its_owner_only_and_never_through_a_link() {
        let d = dir("link");
        let path = d.join("trace.jsonl");
        append_line(&path, "one").unwrap();
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        assert!(shared_warning(&path).is_none());

        let target = d.join("precious");
        std::fs::write(&target, "keep me\n").unwrap();
        let link = d.join("link.jsonl");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        let e = open_append(&link).unwrap_err().to_string();
        assert!(e.contains("symbolic link"), "{e}");
        assert!(Rotating::open(&link, 100).is_err());
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "keep me\n");

        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o666)).unwrap();
        assert!(shared_warning(&path).unwrap().contains("mode 666"));
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn an_existing_file_others_may_read_is_made_private_when_opened() {
        let d = dir("mode");
        let path = d.join("trace.jsonl");
        std::fs::write(&path, "before\n").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        append_line(&path, "args").unwrap();
        assert_eq!(mode(&path), 0o600);
        let _ = Rotating::open(&path, 1000).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o664)).unwrap();
        let mut r = Rotating::open(&path, 1000).unwrap();
        r.write_line("more").unwrap();
        assert_eq!(mode(&path), 0o600);
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "before\nargs\nmore\n"
        );
        // A second name for the file: refused, and nothing written.
        let other = d.join("elsewhere.jsonl");
        std::fs::hard_link(&path, &other).unwrap();
        let e = append_line(&path, "secret").unwrap_err().to_string();
        assert!(e.contains("hard link"), "{e}");
        assert!(!std::fs::read_to_string(&other).unwrap().contains("secret"));
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn lines_from_many_writers_are_never_torn() {
        let d = dir("torn");
        let path = d.join("learn.jsonl");
        let line = "x".repeat(900);
        std::thread::scope(|s| {
            for _ in 0..8 {
                s.spawn(|| {
                    for _ in 0..200 {
                        append_line(&path, &line).unwrap();
                    }
                });
            }
            s.spawn(|| {
                for _ in 0..5 {
                    keep_last(&path, 10, 1000).unwrap();
                }
            });
        });
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.lines().all(|l| l == line), "a torn line");
        assert_eq!(keep_last(&path, 3, 1000).unwrap(), 3);
        assert_eq!(std::fs::read_to_string(&path).unwrap().lines().count(), 3);
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn lines_are_read_with_a_bound() {
        let text = format!("short\n{}\nlast", "y".repeat(10_000));
        let mut seen = Vec::new();
        for_each_line(text.as_bytes(), 100, |n, line| {
            seen.push(match line {
                Line::Whole(l) => format!("{n}:{}", String::from_utf8_lossy(l)),
                Line::Overlong(len) => format!("{n}:over {len}"),
            })
        })
        .unwrap();
        assert_eq!(seen, ["1:short", "2:over 10000", "3:last"]);
        // Through a small buffer, a line split across reads is whole.
        let mut seen = Vec::new();
        let reader = io::BufReader::with_capacity(3, "abcdef\ngh\n".as_bytes());
        for_each_line(reader, 6, |_, line| {
            if let Line::Whole(l) = line {
                seen.push(String::from_utf8_lossy(l).into_owned());
            }
        })
        .unwrap();
        assert_eq!(seen, ["abcdef", "gh"]);
    }

    #[test]
    fn a_full_file_is_moved_aside() {
        let d = dir("rotate");
        let path = d.join("trace.jsonl");
        let mut r = Rotating::open(&path, 25).unwrap();
        for i in 0..5 {
            r.write_line(&format!("line {i}")).unwrap();
        }
        let now = std::fs::read_to_string(&path).unwrap();
        let before = std::fs::read_to_string(d.join("trace.jsonl.1")).unwrap();
        assert_eq!(before, "line 0\nline 1\nline 2\n");
        assert_eq!(now, "line 3\nline 4\n");
        // Opened again, it appends: a restart keeps what was there.
        let mut again = Rotating::open(&path, 1000).unwrap();
        again.write_line("line 5").unwrap();
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "line 3\nline 4\nline 5\n"
        );
        let _ = std::fs::remove_dir_all(&d);
    }
}
