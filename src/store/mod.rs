//! The store: a private, content-addressed directory of payloads.
//!
//! Layout (documented in the README too):
//!
//! ```text
//! <root>/VERSION                 "1": the layout version
//! <root>/<scope>/<hex16>         a payload: exactly the stored bytes, 0600, never rewritten
//! <root>/<scope>/<hex16>.meta    its metadata record (JSON); its mtime is the last access
//! <root>/<scope>/<hex16>.gone    a tombstone: why a ref is no longer there
//! <root>/<scope>/.tmp-*          a payload being written (locked by its writer)
//! <root>/@stats/<scope>          the scope's tally for `spill stats` (`store::stats`)
//! ```
//!
//! The root and scope directories are `0700` and must be owned by the current user, not be
//! symbolic links and not be writable by group or others; anything else is refused, never
//! followed. Payloads are written to a temporary file created with `O_EXCL` in the scope
//! directory and renamed into place, so a crash never leaves a partial payload under a final name.
//! An entry is its payload and its record, both regular files, or nothing (see
//! [`Store::publish`]); no file under the root is ever opened through a link (see `files`).

pub mod binding;
mod files;
mod lifecycle;
pub mod meta;
mod reference;
pub mod remote;
pub mod running;
pub mod shorthand;
pub mod stats;
pub mod turn;
mod write;

pub use lifecycle::{GcOptions, GcReport, Reason, Removal, RootLock};
pub use meta::{Entry, Meta};
pub use reference::Ref;
pub use shorthand::Shorthand;
pub use write::{Finished, TempPayload};

use std::fs;
use std::io;
use std::os::unix::fs::{DirBuilderExt, MetadataExt};
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::error::{Error, Gone, Result};
use crate::limits;
use files::Found;

/// The layout version written to `<root>/VERSION`.
pub const LAYOUT_VERSION: &str = "1";

/// Where the store is and how it behaves, resolved from flags and environment.
#[derive(Clone, Debug)]
pub struct StoreConfig {
    /// The root directory.
    pub root: PathBuf,
    /// The scope name (already validated).
    pub scope: String,
    /// Restricted mode: refs only, no paths in envelopes.
    pub restricted: bool,
    /// Entries expire this long after their last access.
    pub ttl: Duration,
    /// The most bytes the root may hold.
    pub quota: u64,
    /// Payloads larger than this are stored capped.
    pub max_file: u64,
    /// An object store behind this one (`s3://`): the root is then its local cache.
    #[cfg(feature = "s3")]
    pub remote: Option<remote::RemoteConfig>,
}

impl StoreConfig {
    /// The default root, `${TMPDIR:-/tmp}/spill-<uid>`, for the given value of `TMPDIR` (unset
    /// or empty is `/tmp`). The library never reads the environment: the command layer passes
    /// the process's `TMPDIR` (`cmd::env_default_root`), an embedder whatever it likes.
    pub fn default_root(tmpdir: Option<&std::ffi::OsStr>) -> PathBuf {
        let tmp = tmpdir
            .filter(|v| !v.is_empty())
            .map_or_else(|| Path::new("/tmp"), Path::new);
        tmp.join(format!("spill-{}", current_uid()))
    }

    /// A configuration with every default and the given root and scope.
    pub fn new(root: PathBuf, scope: String) -> StoreConfig {
        StoreConfig {
            root,
            scope,
            restricted: false,
            ttl: limits::TTL,
            quota: limits::QUOTA,
            max_file: limits::MAX_FILE,
            #[cfg(feature = "s3")]
            remote: None,
        }
    }

    /// True when entries live in an object store (their envelopes then name no local path).
    pub fn is_remote(&self) -> bool {
        #[cfg(feature = "s3")]
        return self.remote.is_some();
        #[cfg(not(feature = "s3"))]
        false
    }
}

/// The longest scope name, in bytes.
pub const MAX_SCOPE_LEN: usize = 64;

/// Checks a scope name: `[A-Za-z0-9._-]{1,64}`, and not `.` or `..`.
pub fn validate_scope(name: &str) -> std::result::Result<(), String> {
    let ok_chars = name
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'));
    if name.is_empty() || name.len() > MAX_SCOPE_LEN || !ok_chars || name == "." || name == ".." {
        return Err(format!(
            "invalid scope name {:?}: use 1 to 64 of A-Z a-z 0-9 . _ - (not . or ..)",
            crate::diag::escape(name)
        ));
    }
    Ok(())
}

/// The effective user id.
pub fn current_uid() -> u32 {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() }
}

/// What [`Store::publish`] did.
#[derive(Clone, Debug)]
pub struct Published {
    /// The entry's ref.
    pub reference: Ref,
    /// What publishing had to replace because it was not a regular file (a symbolic link where
    /// the payload or its record belongs), one sentence each; `wrap` prints them as warnings.
    pub repaired: Vec<String>,
    /// When the same bytes were already stored in this scope: that entry's creation time
    /// (seconds since the Unix epoch), which the entry keeps. `wrap`'s envelope is then a
    /// pointer to it (README, "A repeated output").
    pub earlier: Option<f64>,
}

/// An opened view of one scope of the store.
///
/// What `spill ls` and `spill rm` do, from Rust:
///
/// ```
/// use spill::store::{Store, StoreConfig};
/// use spill::wrap::{self, WrapOptions};
///
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let dir = tempfile::tempdir()?;
/// let config = StoreConfig::new(dir.path().join("store"), "conv-42".to_string());
/// let opts = WrapOptions { label: Some("make test".into()), ..WrapOptions::default() };
/// let output = "test ok\n".repeat(5_000);
/// wrap::capture(&mut output.as_bytes(), &opts, &config, &|| false)?;
///
/// let store = Store::new(config);
/// let entries = store.entries()?;
/// assert_eq!(entries.len(), 1);
/// assert_eq!(entries[0].scope, "conv-42");
/// assert_eq!(entries[0].meta.label.as_deref(), Some("make test"));
/// assert_eq!(entries[0].meta.size_bytes, 40_000);
///
/// // Reading a ref finds its payload file; removing it leaves a tombstone that says so.
/// let reference = entries[0].reference;
/// assert!(store.find(&reference)?.is_file());
/// assert!(store.remove(&reference, "removed")?);
/// let gone = store.find(&reference).unwrap_err().to_string();
/// assert!(gone.contains("has been removed"), "{gone}");
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Debug)]
pub struct Store {
    config: StoreConfig,
    scope_dir: PathBuf,
}

impl Store {
    /// Resolves the paths of a store; touches nothing on disk.
    pub fn new(config: StoreConfig) -> Store {
        let scope_dir = config.root.join(&config.scope);
        Store { config, scope_dir }
    }

    /// The configuration this store was made with.
    pub fn config(&self) -> &StoreConfig {
        &self.config
    }

    /// The root directory.
    pub fn root(&self) -> &Path {
        &self.config.root
    }

    /// The directory of the current scope.
    pub fn scope_dir(&self) -> &Path {
        &self.scope_dir
    }

    /// For readers: checks that the root and scope are safe. Returns false when either does not
    /// exist yet (an empty store), and an error when either is unsafe.
    pub fn check(&self) -> Result<bool> {
        if !check_dir(&self.config.root, "root")? {
            return Ok(false);
        }
        check_version(&self.config.root)?;
        check_dir(&self.scope_dir, "scope directory")
    }

    /// For writers: creates the root and scope (0700) where missing, then checks both.
    pub fn prepare(&self) -> Result<()> {
        let root = &self.config.root;
        if !check_dir(root, "root")? {
            if let Some(parent) = root.parent().filter(|p| !p.as_os_str().is_empty()) {
                fs::create_dir_all(parent).map_err(|e| Error::io("create directory", parent, e))?;
            }
            make_private_dir(root)?;
            check_dir(root, "root")?;
        }
        ensure_version(root)?;
        if !check_dir(&self.scope_dir, "scope directory")? {
            make_private_dir(&self.scope_dir)?;
            check_dir(&self.scope_dir, "scope directory")?;
        }
        Ok(())
    }

    /// The payload file of a ref in this scope.
    pub fn payload_path(&self, r: &Ref) -> PathBuf {
        self.scope_dir.join(r.hex())
    }

    fn meta_path(&self, r: &Ref) -> PathBuf {
        self.scope_dir.join(format!("{}.meta", r.hex()))
    }

    fn tombstone_path(&self, r: &Ref) -> PathBuf {
        self.scope_dir.join(format!("{}.gone", r.hex()))
    }

    /// Finds a stored payload: its path, after refreshing its last access (best effort).
    /// A ref that is gone says why; one that never existed is an unknown ref. See
    /// [`Store::open`] for what counts as stored.
    pub fn find(&self, r: &Ref) -> Result<PathBuf> {
        self.open(r).map(|(_, path)| path)
    }

    /// Opens a stored payload for reading (without following a link) and refreshes its last
    /// access (best effort: a read-only store still reads).
    ///
    /// An entry is its payload and its metadata record, both regular files. A symbolic link (or
    /// anything else that is not a regular file) at either name is an error naming the ref,
    /// never followed, and nothing is touched through it; a payload without its record is an
    /// interrupted write and reads as nothing (`spill gc` removes it).
    pub fn open(&self, r: &Ref) -> Result<(fs::File, PathBuf)> {
        #[cfg(feature = "s3")]
        if let Some(remote) = &self.config.remote {
            remote::sync::prepare_read(self, remote, r)?;
        }
        let path = self.payload_path(r);
        if !self.check()? {
            return Err(Error::UnknownRef(r.to_string()));
        }
        match files::look(&path) {
            Found::File(_) => {}
            Found::Other(what) => return Err(not_a_file(r, "payload", what)),
            Found::Missing => {
                // A running entry's id (see `running`): its bytes so far, or its sealed payload.
                if let Some(found) = self.open_running(r)? {
                    return Ok(found);
                }
                return Err(self.gone_or_unknown(r));
            }
        }
        match files::look(&self.meta_path(r)) {
            Found::File(_) => {}
            Found::Other(what) => return Err(not_a_file(r, "metadata record", what)),
            // Removal unlinks the payload first, so a payload still there has lost its record.
            Found::Missing if files::look(&path).is_file() => {
                return Err(Error::Store(format!(
                    "{r} is incomplete: its payload has no metadata record (an interrupted \
                     write); `spill gc` removes it"
                )));
            }
            Found::Missing => return Err(self.gone_or_unknown(r)),
        }
        // Past its TTL but not yet collected: expired all the same. Removing it needs the lock
        // (and a second look under it: another reader may just have refreshed it); a read-only
        // store still answers "expired".
        let expired = self.is_expired(r)
            && match self.lock() {
                Ok(_lock) => {
                    self.is_expired(r)
                        && lifecycle::remove_entry(&self.scope_dir, r, Gone::Expired.as_str())
                            .is_ok()
                }
                Err(_) => true,
            };
        if expired {
            return Err(Error::GoneRef {
                reference: r.to_string(),
                how: Gone::Expired,
            });
        }
        let file = match files::open_read(&path) {
            Ok(file) => file,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Err(self.gone_or_unknown(r)),
            Err(e) if e.kind() == io::ErrorKind::InvalidData => {
                return Err(not_a_file(r, "payload", &e.to_string()));
            }
            Err(e) => return Err(Error::io("open", path, e)),
        };
        self.touch(r);
        Ok((file, path))
    }

    /// Why a ref with no payload is not there: its tombstone's word, or unknown.
    fn gone_or_unknown(&self, r: &Ref) -> Error {
        let why = files::read_small(&self.tombstone_path(r), 256).unwrap_or_default();
        if why.is_empty() {
            return Error::UnknownRef(r.to_string());
        }
        let word = why
            .split(|b| b.is_ascii_whitespace())
            .next()
            .unwrap_or_default();
        Error::GoneRef {
            reference: r.to_string(),
            how: Gone::from_word(word),
        }
    }

    /// Refreshes a ref's last access; a read-only store still reads, so failures are ignored.
    /// The record is opened without following a link and must have no other hard link, so no
    /// file outside the store has its mtime changed.
    pub fn touch(&self, r: &Ref) {
        if let Ok(f) = files::open_read(&self.meta_path(r))
            && f.metadata().is_ok_and(|m| m.nlink() == 1)
        {
            let _ = f.set_modified(std::time::SystemTime::now());
        }
    }

    /// Starts writing a payload: a locked temporary file created with `O_EXCL` in the scope.
    pub fn create_temp(&self) -> Result<TempPayload> {
        TempPayload::create(&self.scope_dir)
    }

    /// Publishes a finished payload (see [`TempPayload::finish_hashed`]) under its content
    /// hash with its metadata record. Identical content already stored is kept (payloads
    /// are immutable); its label is refreshed when the new one is non-empty, and its last access
    /// is refreshed either way.
    ///
    /// An entry is complete or invisible: the record is renamed into place first and the
    /// payload last, and readers need both, so a failure in between (a full disk) leaves nothing
    /// readable by ref; the record written is then removed again (`gc` and `rm --all` remove
    /// any leftover half). Something that is not a regular file where the payload or the record
    /// belongs (a planted symbolic link) is never trusted as the stored copy: it is replaced,
    /// and [`Published::repaired`] says so.
    ///
    /// Under the root lock: runs the opportunistic housekeeping pass when due, then evicts
    /// least-recently-used entries of any scope until the payload fits the quota, counting the
    /// temporary files of other writers. A payload larger than the quota itself is refused (an
    /// error; `wrap` prints the degraded envelope).
    pub fn publish(&self, finished: Finished, meta: &mut Meta) -> Result<Published> {
        let r = finished.reference;
        meta.hash = finished.hash.to_hex().to_string();
        let final_path = self.payload_path(&r);
        let size = finished
            .file()
            .metadata()
            .map_err(|e| Error::io("inspect", &finished.path, e))?
            .len();
        let lock = self.lock()?;
        self.expire_if_due(&lock, &finished.path);
        let mut repaired = Vec::new();
        let mut earlier = None;
        let payload = files::look(&final_path);
        if let Found::Other(what) = payload {
            repaired.push(replaced(&r, "payload", what));
        }
        let old = match files::look(&self.meta_path(&r)) {
            Found::File(_) => self.meta(&r),
            Found::Other(what) => {
                repaired.push(replaced(&r, "metadata record", what));
                None
            }
            Found::Missing => None,
        };
        let same = match (&payload, &old) {
            (Found::File(m), Some(old)) => old.hash == meta.hash && m.len() == size,
            _ => false,
        };
        if same {
            // Identical content is already stored: keep it; dropping `finished` removes the copy.
            let old = old.expect("checked above");
            if meta.label.as_deref().is_none_or(str::is_empty) {
                meta.label = old.label;
            }
            meta.created = old.created;
            earlier = Some(old.created);
            self.write_meta(&r, meta)?;
        } else {
            self.make_room(size, Some((&self.config.scope, &r)), &finished.path, &lock)?;
            if !matches!(payload, Found::Missing) {
                // Whatever stood there is not this content; a directory stays and fails below.
                let _ = fs::remove_file(&final_path);
            }
            self.write_meta(&r, meta)?;
            if let Err(e) = fs::rename(&finished.path, &final_path) {
                let _ = fs::remove_file(self.meta_path(&r));
                return Err(Error::io("publish payload", &final_path, e));
            }
            finished.published();
        }
        // Only now: a reader that finds no payload always finds the tombstone of a removed one.
        let _ = fs::remove_file(self.tombstone_path(&r));
        drop(lock);
        #[cfg(feature = "s3")]
        if let Some(remote) = &self.config.remote {
            remote::sync::upload(self, remote, &r, meta)?;
        }
        Ok(Published {
            reference: r,
            repaired,
            earlier,
        })
    }

    /// Moves every entry of scope `from` into this store's scope, under the root lock, and
    /// returns how many moved: the results a `spill mcp proxy` stored in its own scope before
    /// a hook bound its conversation join the conversation's scope when the binding is made
    /// (`binding::record`; ARCHITECTURE.md, "Conversation bindings"). Refs stay the same (they
    /// name the content). Each move links the payload into this scope, then renames the record
    /// over (the commit point: the entry is whole in one scope or the other at every moment),
    /// then unlinks the old payload. An entry this scope holds already drops the old copy; a
    /// name that is not a regular file on either side is left as it is. Local entries only: an
    /// object store's keys are not moved.
    pub fn adopt(&self, from: &str) -> Result<usize> {
        validate_scope(from).map_err(Error::Store)?;
        let source = self.config.root.join(from);
        if from == self.config.scope || !check_dir(&source, "scope directory")? {
            return Ok(0);
        }
        self.prepare()?;
        let lock = self.lock()?;
        let listing = fs::read_dir(&source).map_err(|e| Error::io("list", &source, e))?;
        let mut moved = 0;
        for item in listing.flatten() {
            let Some(r) = item
                .file_name()
                .to_str()
                .and_then(|n| Ref::parse(&format!("sp_{n}")))
            else {
                continue;
            };
            let (payload, meta) = (
                source.join(r.hex()),
                source.join(format!("{}.meta", r.hex())),
            );
            let is_file = |p: &Path| matches!(files::look(p), Found::File(_));
            let is_missing = |p: &Path| matches!(files::look(p), Found::Missing);
            if !is_file(&payload) || !is_file(&meta) {
                continue;
            }
            let (to_payload, to_meta) = (self.payload_path(&r), self.meta_path(&r));
            if is_missing(&to_payload) && is_missing(&to_meta) {
                fs::hard_link(&payload, &to_payload)
                    .map_err(|e| Error::io("link", &to_payload, e))?;
                if let Err(e) = fs::rename(&meta, &to_meta) {
                    let _ = fs::remove_file(&to_payload);
                    return Err(Error::io("move", &to_meta, e));
                }
                let _ = fs::remove_file(self.tombstone_path(&r));
                moved += 1;
            } else if !(is_file(&to_payload) && is_file(&to_meta)) {
                continue;
            }
            let _ = fs::remove_file(&meta);
            let _ = fs::remove_file(&payload);
        }
        drop(lock);
        Ok(moved)
    }

    /// Writes a metadata record atomically (temporary file, then rename over the name).
    fn write_meta(&self, r: &Ref, meta: &Meta) -> Result<()> {
        let bytes = serde_json::to_vec(meta).expect("metadata serialises");
        files::replace(
            &self.scope_dir,
            &self.meta_path(r),
            &bytes,
            "write metadata",
        )
    }

    /// Reads the metadata record of a ref (a regular file, never through a link).
    pub fn meta(&self, r: &Ref) -> Option<Meta> {
        files::read_small(&self.meta_path(r), meta::MAX_RECORD)
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok())
    }

    /// The metadata record of a ref wherever the store keeps it: for an object store, the
    /// remote record when the cache holds none (an entry `cat` read by ranges is not cached).
    pub fn record(&self, r: &Ref) -> Option<Meta> {
        let local = self.meta(r);
        #[cfg(feature = "s3")]
        if local.is_none()
            && let Some(remote) = &self.config.remote
        {
            return remote::sync::record(self, remote, r);
        }
        local
    }

    /// Every entry of this scope, newest created first (ties by ref).
    pub fn entries(&self) -> Result<Vec<Entry>> {
        #[cfg(feature = "s3")]
        if let Some(remote) = &self.config.remote {
            return remote::sync::entries(self, remote);
        }
        if !self.check()? {
            return Ok(Vec::new());
        }
        meta::list(&self.config.scope, &self.scope_dir)
    }

    /// Every scope directory name under the root (for `--all-scopes`).
    pub fn scopes(&self) -> Result<Vec<String>> {
        #[cfg(feature = "s3")]
        if let Some(remote) = &self.config.remote {
            return remote::sync::scopes(remote);
        }
        self.local_scopes()
    }

    /// Every scope directory name under the local root (for an object store: its cache's).
    fn local_scopes(&self) -> Result<Vec<String>> {
        if !check_dir(&self.config.root, "root")? {
            return Ok(Vec::new());
        }
        let rd =
            fs::read_dir(&self.config.root).map_err(|e| Error::io("read", &self.config.root, e))?;
        let mut names: Vec<String> = rd
            .filter_map(|d| d.ok())
            .filter(|d| d.file_type().is_ok_and(|t| t.is_dir()))
            .filter_map(|d| d.file_name().into_string().ok())
            .filter(|n| validate_scope(n).is_ok())
            .collect();
        names.sort();
        Ok(names)
    }

    /// The local store alone: for an object store, its cache without the remote behind it.
    #[cfg(feature = "s3")]
    pub fn local(&self) -> Store {
        let mut config = self.config.clone();
        config.remote = None;
        Store::new(config)
    }

    /// A view of another scope under the same root.
    pub fn with_scope(&self, scope: &str) -> Store {
        let mut config = self.config.clone();
        config.scope = scope.to_string();
        Store::new(config)
    }

    /// Removes an entry and leaves a tombstone saying `how` it went (`removed`, `expired`,
    /// `evicted`). Returns false when the ref was not stored.
    pub fn remove(&self, r: &Ref, how: &str) -> Result<bool> {
        #[cfg(feature = "s3")]
        if let Some(remote) = &self.config.remote {
            return remote::sync::remove(self, remote, r, how);
        }
        if !self.check()? {
            return Ok(false);
        }
        let _lock = self.lock()?;
        lifecycle::remove_entry(&self.scope_dir, r, how)
    }
}

/// Checks one store directory with lstat: absent → false; a safe directory → true; anything
/// else (a symlink, not a directory, another owner, group/other-writable) → an error naming the fix.
fn check_dir(path: &Path, what: &str) -> Result<bool> {
    let shown = crate::diag::escape(&path.to_string_lossy());
    let m = match fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(false),
        Err(e) => return Err(Error::io("inspect store", path, e)),
    };
    let problem = if m.file_type().is_symlink() {
        "is a symbolic link (refusing to follow it)".to_string()
    } else if !m.is_dir() {
        "is not a directory".to_string()
    } else if m.uid() != current_uid() {
        format!(
            "is owned by uid {}, not by you (uid {})",
            m.uid(),
            current_uid()
        )
    } else if m.mode() & 0o022 != 0 {
        format!(
            "is writable by group or others (mode {:o}; fix: chmod 700 {shown})",
            m.mode() & 0o7777
        )
    } else {
        return Ok(true);
    };
    Err(Error::Store(format!(
        "unsafe store {what} {shown}: it {problem}; set SPILL_DIR (or --dir) to a private directory"
    )))
}

fn make_private_dir(path: &Path) -> Result<()> {
    match fs::DirBuilder::new().mode(0o700).create(path) {
        Ok(()) => Ok(()),
        // Another writer created it first; check_dir decides whether it is safe.
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok(()),
        Err(e) => Err(Error::io("create store directory", path, e)),
    }
}

fn check_version(root: &Path) -> Result<()> {
    // A VERSION that is not a regular file (a planted link) is never read through: it counts
    // as missing, and the next writer replaces it.
    match files::read_small(&root.join("VERSION"), 64) {
        Ok(v) if String::from_utf8_lossy(&v).trim() == LAYOUT_VERSION => Ok(()),
        Ok(v) => Err(Error::Store(format!(
            "store {} has layout version {:?}; this spill understands version {LAYOUT_VERSION} \
             (use another SPILL_DIR or upgrade spill)",
            root.display(),
            crate::diag::escape(String::from_utf8_lossy(&v).trim())
        ))),
        // A root without VERSION is either new or being created right now.
        Err(_) => Ok(()),
    }
}

fn ensure_version(root: &Path) -> Result<()> {
    let path = root.join("VERSION");
    if files::look(&path).is_file() {
        return check_version(root);
    }
    files::replace(
        root,
        &path,
        format!("{LAYOUT_VERSION}\n").as_bytes(),
        "write",
    )
}

/// The error for a ref whose payload or record is not a regular file.
fn not_a_file(r: &Ref, part: &str, what: &str) -> Error {
    Error::Store(format!(
        "the {part} of {r} is {what}, not a regular file; refusing to follow it \
         (`spill rm {r}` or `spill gc` clears it)"
    ))
}

/// The warning for something replaced while publishing.
fn replaced(r: &Ref, part: &str, what: &str) -> String {
    format!(
        "{what} stood where the {part} of {r} belongs; it was replaced (never followed) and \
         the new output stored"
    )
}

#[cfg(test)]
mod tests {
    use std::ffi::OsStr;

    use super::*;

    #[test]
    fn the_default_root_is_under_the_tmpdir_given() {
        let uid = current_uid();
        assert_eq!(
            StoreConfig::default_root(Some(OsStr::new("/var/tmp"))),
            PathBuf::from(format!("/var/tmp/spill-{uid}"))
        );
        for unset in [None, Some(OsStr::new(""))] {
            assert_eq!(
                StoreConfig::default_root(unset),
                PathBuf::from(format!("/tmp/spill-{uid}"))
            );
        }
    }
}
