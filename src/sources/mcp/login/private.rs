//! The login files' safety: a login file is read only when it is the
//! user's own (a regular file, not a symbolic link, owned by the user, 0600
//! or narrower) in a folder only the user may write, and written whole, a
//! new 0600 file renamed over the old one, never through a link. A
//! refusal names the path and why.

use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// Why a kept login was not read or written.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StoreError {
    /// A login file or its folder that is not the user's own.
    #[error("{} is not used: {why}", path.display())]
    Refused { path: PathBuf, why: String },
    #[error("cannot read {}: {message}", path.display())]
    Read { path: PathBuf, message: String },
    #[error("cannot write {}: {message}", path.display())]
    Write { path: PathBuf, message: String },
    #[error("cannot remove {}: {message}", path.display())]
    Remove { path: PathBuf, message: String },
    #[error("no config directory to keep the login in (set XDG_CONFIG_HOME)")]
    NoFolder,
    /// The record could not be written as JSON.
    #[error("cannot write the login as JSON: {0}")]
    Encode(String),
    /// `TOOLSIFT_TOKEN_STORE` names no store.
    #[error(transparent)]
    Choice(#[from] super::choice::UnknownStore),
    #[error(transparent)]
    Keyring(#[from] super::keyring::KeyringError),
}


/// The user toolsift runs as.
fn my_uid() -> u32 {
    // SAFETY: geteuid takes nothing, touches no memory and cannot fail.
    unsafe { libc::geteuid() }
}

/// Refuses `path` when it is a symbolic link, not a regular file, not the
/// user's own, or readable or writable by group or others.
pub(super) fn check_file(path: &Path) -> Result<(), StoreError> {
    let meta = match std::fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(_) => return Ok(()),
    };
    let refuse = |why: String| {
        Err(StoreError::Refused {
            path: path.to_path_buf(),
            why,
        })
    };
    if meta.file_type().is_symlink() {
        return refuse("it is a symbolic link (a login file is never read through one); remove it and log in again".into());
    }
    if !meta.is_file() {
        return refuse("it is not a regular file".into());
    }
    let me = my_uid();
    if meta.uid() != me {
        return refuse(format!(
            "it belongs to user {}, not to you (user {me}); remove it and log in again",
            meta.uid()
        ));
    }
    let mode = meta.permissions().mode() & 0o777;
    if mode & 0o077 != 0 {
        return refuse(format!(
            "its mode is {mode:o}: others than you may read or write it; remove it and log in again (a login file is 600)"
        ));
    }
    Ok(())
}

/// Refuses the folder `dir` when group or others may write it, or it is
/// not the user's own.
pub(super) fn check_folder(dir: &Path) -> Result<(), StoreError> {
    let meta = match std::fs::metadata(dir) {
        Ok(m) => m,
        Err(_) => return Ok(()),
    };
    let me = my_uid();
    let mode = meta.permissions().mode() & 0o777;
    let why = if meta.uid() != me {
        format!("the folder belongs to user {}, not to you (user {me})", meta.uid())
    } else if mode & 0o022 != 0 {
        format!("the folder's mode is {mode:o}: others than you may put files in it (chmod 700 it)")
    } else {
        return Ok(());
    };
    Err(StoreError::Refused {
        path: dir.to_path_buf(),
        why,
    })
}

/// The record in `file`, when it is this user's own (none: no file).
pub(super) fn read_kept(file: &Path) -> Result<Option<String>, StoreError> {
    if let Some(dir) = file.parent() {
        check_folder(dir)?;
    }
    check_file(file)?;
    let opened = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW)
        .open(file);
    let mut opened = match opened {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(cannot_read(file, &e)),
    };
    let mut text = String::new();
    std::io::Read::read_to_string(&mut opened, &mut text).map_err(|e| cannot_read(file, &e))?;
    Ok(Some(text))
}

/// A login file that could not be read, and why.
fn cannot_read(file: &Path, e: &std::io::Error) -> StoreError {
    StoreError::Read {
        path: file.to_path_buf(),
        message: e.to_string(),
    }
}

/// Writes `bytes` to `path` whole: a new 0600 file beside it (never through
/// a link), renamed over it; the folder made 0700.
pub(super) fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)?;
    let tmp = dir.join(format!(
        ".{}.{}.tmp",
        path.file_name().and_then(|n| n.to_str()).unwrap_or("login"),
        std::process::id()
    ));
    let _ = std::fs::remove_file(&tmp);
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW)
        .open(&tmp)?;
    file.write_all(bytes)?;
    file.sync_all()?;
    std::fs::rename(&tmp, path)
}


#[cfg(test)]
mod tests {
    use super::*;

    /// A folder of its own under the temp directory, made 0700.
    fn folder(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("toolsift-store-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::DirBuilder::new().mode(0o700).create(&dir).unwrap();
        dir
    }

    #[test]
    fn a_login_file_that_is_not_the_user_s_own_is_refused_with_its_path_and_why() {
        use std::os::unix::fs::PermissionsExt;
        let dir = folder("refused");
        let kept = br#"{"url":"https://a.example/mcp"}"#;
        // The user's own 0600 file is read.
        let own = dir.join("own.json");
        write_private(&own, kept).unwrap();
        assert!(read_kept(&own).unwrap().is_some());
        // A 0666 symbolic link planted where a login goes.
        let target = dir.join("planted");
        std::fs::write(&target, kept).unwrap();
        std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o666)).unwrap();
        let link = dir.join("link.json");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        let refused = read_kept(&link).unwrap_err().to_string();
        assert!(refused.contains(&link.display().to_string()), "{refused}");
        assert!(refused.contains("symbolic link"), "{refused}");
        // A file others may read.
        let open = dir.join("open.json");
        write_private(&open, kept).unwrap();
        std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o644)).unwrap();
        let refused = read_kept(&open).unwrap_err().to_string();
        assert!(refused.contains("open.json") && refused.contains("644"), "{refused}");
        // A file of another user (where this runs as root, it can make one).
        if my_uid() == 0 {
            let theirs = dir.join("theirs.json");
            write_private(&theirs, kept).unwrap();
            std::os::unix::fs::chown(&theirs, Some(65534), None).unwrap();
            let refused = read_kept(&theirs).unwrap_err().to_string();
            assert!(refused.contains("belongs to user 65534"), "{refused}");
        }
        // A folder anyone may write: nothing in it is read, nor written.
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o777)).unwrap();
        let refused = read_kept(&own).unwrap_err().to_string();
        assert!(refused.contains(&dir.display().to_string()) && refused.contains("777"), "{refused}");
        assert!(check_folder(&dir).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
