//! Atomic streaming writes: a temporary file created with `O_EXCL` and mode 0600 in the
//! destination directory, held under an exclusive `flock` for the writer's whole life (so
//! `gc` can tell a live writer's file from a crashed one's), hashed while written, and renamed
//! into place by the caller.

use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use super::Ref;
use crate::error::{Error, Result};

/// The prefix of every temporary file name in the store.
pub const TEMP_PREFIX: &str = ".tmp-";

/// A payload being written. Dropping it without [`TempPayload::finish`] removes the file.
#[derive(Debug)]
pub struct TempPayload {
    file: File,
    path: PathBuf,
    hasher: blake3::Hasher,
    written: u64,
    done: bool,
}

impl TempPayload {
    /// Creates a new locked temporary file in `dir`.
    pub fn create(dir: &Path) -> Result<TempPayload> {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.subsec_nanos())
            .unwrap_or(0);
        loop {
            let n = COUNTER.fetch_add(1, Ordering::Relaxed);
            let path = dir.join(format!(
                "{TEMP_PREFIX}{}-{n}-{nanos:08x}",
                std::process::id()
            ));
            // Readable too: wrap maps the finished file to analyse JSON before publishing it.
            let opened = OpenOptions::new()
                .read(true)
                .write(true)
                .create_new(true)
                .mode(0o600)
                .open(&path);
            match opened {
                Ok(file) => {
                    // `gc` deletes a temporary file it can lock (no live writer). Between our
                    // `open` and our `flock` it could do that to ours: if the lock is taken, gc is
                    // looking at the file, and if our name no longer leads to our file, gc has
                    // unlinked it. Either way, start again under a new name.
                    // The lock lives as long as `file`.
                    if matches!(super::files::try_lock(&file), Ok(false)) {
                        let _ = fs::remove_file(&path);
                        continue;
                    }
                    let ours = match (file.metadata(), fs::symlink_metadata(&path)) {
                        (Ok(a), Ok(b)) if a.ino() == b.ino() && a.dev() == b.dev() => Some(a),
                        _ => None,
                    };
                    let Some(m) = ours else {
                        continue;
                    };
                    // Exactly 0600 whatever the umask (a restrictive one could leave less).
                    if let Err(e) = super::files::private(&file, &m) {
                        let _ = fs::remove_file(&path);
                        return Err(Error::io("create temporary file in", dir, e));
                    }
                    return Ok(TempPayload {
                        file,
                        path,
                        hasher: blake3::Hasher::new(),
                        written: 0,
                        done: false,
                    });
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(Error::io("create temporary file in", dir, e)),
            }
        }
    }

    /// Writes and hashes bytes.
    pub fn write_all(&mut self, bytes: &[u8]) -> Result<()> {
        self.hasher.update(bytes);
        self.write_unhashed(bytes)
    }

    /// Writes bytes whose hash the caller computes elsewhere (see [`TempPayload::finish_hashed`]).
    pub fn write_unhashed(&mut self, bytes: &[u8]) -> Result<()> {
        self.file
            .write_all(bytes)
            .map_err(|e| Error::io("write", &self.path, e))?;
        self.written += bytes.len() as u64;
        Ok(())
    }

    /// The open file, for writes in place (a running entry's rolling tail).
    pub fn file(&self) -> &File {
        &self.file
    }

    /// Bytes written so far.
    pub fn written(&self) -> u64 {
        self.written
    }

    /// The temporary file's path (it is renamed away by publishing).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Ends writing with the internally computed hash.
    pub fn finish(self) -> Result<Finished> {
        let hash = self.hasher.finalize();
        self.finish_hashed(&hash)
    }

    /// The full BLAKE3 hash of what was written with [`TempPayload::write_all`].
    pub fn hash(&self) -> blake3::Hash {
        self.hasher.finalize()
    }

    /// Ends writing with a hash computed by the caller over exactly the bytes written.
    pub fn finish_hashed(mut self, hash: &blake3::Hash) -> Result<Finished> {
        self.file
            .flush()
            .map_err(|e| Error::io("write", &self.path, e))?;
        self.done = true;
        let file = self
            .file
            .try_clone()
            .map_err(|e| Error::io("write", &self.path, e))?;
        Ok(Finished {
            reference: Ref::from_hash(hash),
            hash: *hash,
            path: self.path.clone(),
            file,
        })
    }
}

/// A completely written temporary file, still locked, waiting to be renamed into place.
/// Dropping it without publishing removes the file.
#[derive(Debug)]
pub struct Finished {
    /// The payload's ref.
    pub reference: Ref,
    /// Its full hash.
    pub hash: blake3::Hash,
    /// The temporary file.
    pub path: PathBuf,
    /// Keeps the writer's lock until the rename.
    file: File,
}

impl Finished {
    /// The open temporary file (for mapping it before it is published).
    pub fn file(&self) -> &File {
        &self.file
    }

    /// Marks the file as published: dropping no longer removes it.
    pub(super) fn published(mut self) {
        self.path = PathBuf::new();
    }
}

impl Drop for Finished {
    fn drop(&mut self) {
        if !self.path.as_os_str().is_empty() {
            let _ = fs::remove_file(&self.path);
        }
    }
}

impl Drop for TempPayload {
    fn drop(&mut self) {
        if !self.done {
            let _ = fs::remove_file(&self.path);
        }
    }
}
