//! How the store opens its own files: never through a link.
//!
//! Every file under the root is opened with `O_NOFOLLOW` and checked with `fstat` to be a
//! regular file, so a symbolic link (or a FIFO, a device, a directory) planted where a store
//! file belongs is never read, written or touched through. Files that are replaced whole
//! (metadata records, tombstones, `VERSION`) are written to a new temporary file (`O_EXCL`,
//! mode 0600) and renamed over the name: `rename` replaces a link or a hard link itself and
//! never writes to what it pointed at. Files that must stay in place because they are locked or
//! stamped (the root lock, the expiry stamp, turn ledgers) are opened without following links,
//! must be regular files with a single link (a hard link to a file elsewhere would otherwise be
//! written or re-stamped), and are set to mode 0600 whatever the umask.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Read};
use std::os::fd::AsRawFd;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::Path;

use super::TempPayload;
use crate::error::{Error, Result};

/// What stands at a name in the store, seen with `lstat`.
#[derive(Debug)]
pub(super) enum Found {
    /// Nothing.
    Missing,
    /// A regular file.
    File(fs::Metadata),
    /// Something else: a symbolic link, a directory, a FIFO…; the word says which.
    Other(&'static str),
}

impl Found {
    /// True for a regular file.
    pub(super) fn is_file(&self) -> bool {
        matches!(self, Found::File(_))
    }
}

/// Looks at a name without following it. Errors other than "not found" count as `Other`.
pub(super) fn look(path: &Path) -> Found {
    match fs::symlink_metadata(path) {
        Ok(m) if m.is_file() => Found::File(m),
        Ok(m) => Found::Other(kind_of(&m)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Found::Missing,
        Err(_) => Found::Other("unreadable"),
    }
}

/// A word for what a non-regular file is.
fn kind_of(m: &fs::Metadata) -> &'static str {
    let t = m.file_type();
    if t.is_symlink() {
        "a symbolic link"
    } else if t.is_dir() {
        "a directory"
    } else {
        "not a regular file"
    }
}

/// The error for a name that is there but is not a regular file (or has other links).
fn not_regular(what: &'static str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, what)
}

/// Opens with `options` plus `O_NOFOLLOW` (and `O_NONBLOCK`, so a FIFO cannot block the open);
/// anything but a regular file is refused. Returns the file and what `fstat` says of it.
pub(super) fn open_regular(
    options: &mut OpenOptions,
    path: &Path,
) -> io::Result<(File, fs::Metadata)> {
    let file = options
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC)
        .open(path)
        .map_err(|e| {
            if e.raw_os_error() == Some(libc::ELOOP) {
                not_regular("a symbolic link")
            } else {
                e
            }
        })?;
    let m = file.metadata()?;
    if !m.is_file() {
        return Err(not_regular(kind_of(&m)));
    }
    Ok((file, m))
}

/// Opens an existing regular file for reading without following a link.
pub(super) fn open_read(path: &Path) -> io::Result<File> {
    open_regular(OpenOptions::new().read(true), path).map(|(file, _)| file)
}

/// Reads a small regular file (a record, a tombstone, `VERSION`): at most `max` bytes.
pub(super) fn read_small(path: &Path, max: u64) -> io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    open_read(path)?.take(max).read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// Opens (creating where missing) a file that is used in place: locked, stamped or rewritten.
/// It must be a regular file with exactly one link; it ends up with mode 0600.
pub(super) fn open_in_place(path: &Path) -> io::Result<File> {
    let (file, m) = open_regular(
        OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .mode(0o600),
        path,
    )?;
    if m.nlink() != 1 {
        return Err(not_regular("a file with other hard links"));
    }
    private(&file, &m)?;
    Ok(file)
}

/// Takes an exclusive `flock` on `file`, waiting for it (a signal's interruption retries). The
/// lock lives as long as the open file: it is released when `file` is closed.
pub(super) fn lock(file: &File) -> io::Result<()> {
    loop {
        // SAFETY: flock on a valid descriptor owned by `file`.
        if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX) } == 0 {
            return Ok(());
        }
        let e = io::Error::last_os_error();
        if e.kind() != io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
}

/// Tries an exclusive `flock` on `file` without waiting: `Ok(true)` when it was acquired (held
/// as long as the open file), `Ok(false)` when another open file holds it.
pub(super) fn try_lock(file: &File) -> io::Result<bool> {
    // SAFETY: flock on a valid descriptor owned by `file`.
    if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } == 0 {
        return Ok(true);
    }
    let e = io::Error::last_os_error();
    if e.kind() == io::ErrorKind::WouldBlock {
        Ok(false)
    } else {
        Err(e)
    }
}

/// Sets an open file to mode 0600 unless it already is (a restrictive umask can leave less).
pub(super) fn private(file: &File, m: &fs::Metadata) -> io::Result<()> {
    if m.mode() & 0o7777 != 0o600 {
        file.set_permissions(fs::Permissions::from_mode(0o600))?;
    }
    Ok(())
}

/// Replaces the file at `path` (in `dir`) with `bytes`: a new temporary file, renamed over the
/// name, so whatever stood there (a link included) is replaced, never written through.
pub(super) fn replace(dir: &Path, path: &Path, bytes: &[u8], op: &'static str) -> Result<()> {
    let mut temp = TempPayload::create(dir)?;
    temp.write_all(bytes)?;
    let finished = temp.finish()?;
    fs::rename(&finished.path, path).map_err(|e| Error::io(op, path, e))?;
    finished.published();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_and_other_kinds_are_never_opened_through() {
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("victim");
        fs::write(&victim, "keep me\n").unwrap();
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&victim, &link).unwrap();
        let hard = dir.path().join("hard");
        fs::hard_link(&victim, &hard).unwrap();
        assert!(matches!(look(&link), Found::Other("a symbolic link")));
        assert!(matches!(look(dir.path()), Found::Other("a directory")));
        assert!(matches!(look(&victim), Found::File(_)));
        assert!(matches!(look(&dir.path().join("none")), Found::Missing));
        let e = read_small(&link, 100).unwrap_err();
        assert_eq!(e.to_string(), "a symbolic link");
        assert!(read_small(dir.path(), 100).is_err());
        assert!(open_in_place(&link).is_err());
        assert!(open_in_place(&hard).is_err());
        replace(dir.path(), &link, b"new\n", "write").unwrap();
        replace(dir.path(), &hard, b"new\n", "write").unwrap();
        assert_eq!(fs::read_to_string(&victim).unwrap(), "keep me\n");
        assert_eq!(fs::read(&link).unwrap(), b"new\n");
        let m = fs::symlink_metadata(&link).unwrap();
        assert!(m.is_file() && m.mode() & 0o777 == 0o600);
        // A fresh in-place file is 0600 and reopens.
        let fresh = dir.path().join("fresh");
        open_in_place(&fresh).unwrap();
        assert_eq!(fs::metadata(&fresh).unwrap().mode() & 0o777, 0o600);
        open_in_place(&fresh).unwrap();
    }
}
