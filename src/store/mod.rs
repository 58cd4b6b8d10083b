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
//! ```
//!
//! The root and scope directories are `0700` and must be owned by the current user, not be
//! symbolic links and not be writable by group or others; anything else is refused, never
//! followed. Payloads are written to a temporary file created with `O_EXCL` in the scope
//! directory and renamed into place, so a crash never leaves a partial payload under a final name.

mod lifecycle;
pub mod meta;
mod reference;
pub mod turn;
mod write;

pub use lifecycle::{GcOptions, GcReport, Reason, Removal, RootLock};
pub use meta::{Entry, Meta};
pub use reference::Ref;
pub use write::{Finished, TempPayload};

use std::fs;
use std::io;
use std::os::unix::fs::{DirBuilderExt, MetadataExt};
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::error::{Error, Result};
use crate::limits;

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
}

impl StoreConfig {
    /// The default root: `${TMPDIR:-/tmp}/spill-<uid>`.
    pub fn default_root() -> PathBuf {
        let tmp = std::env::var_os("TMPDIR")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from("/tmp"));
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
        }
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
    /// A ref that is gone says why; one that never existed is an unknown ref.
    pub fn find(&self, r: &Ref) -> Result<PathBuf> {
        let path = self.payload_path(r);
        if self.check()? {
            match fs::symlink_metadata(&path) {
                Ok(m) if m.is_file() => {
                    // Past its TTL but not yet collected: expired all the same. Removing it needs
                    // the lock (and a second look under it: another reader may just have
                    // refreshed it); a read-only store still answers "expired".
                    let expired = self.is_expired(r)
                        && match self.lock() {
                            Ok(_lock) => {
                                self.is_expired(r)
                                    && lifecycle::remove_entry(&self.scope_dir, r, "expired")
                                        .is_ok()
                            }
                            Err(_) => true,
                        };
                    if !expired {
                        self.touch(r);
                        return Ok(path);
                    }
                    return Err(Error::GoneRef {
                        reference: r.to_string(),
                        how: "expired",
                    });
                }
                Ok(_) => {
                    return Err(Error::Store(format!(
                        "{} is not a regular file",
                        path.display()
                    )));
                }
                Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                Err(e) => return Err(Error::io("open", path, e)),
            }
            if let Ok(why) = fs::read_to_string(self.tombstone_path(r)) {
                let how = match why.split_whitespace().next() {
                    Some("expired") => "expired",
                    Some("evicted") => "been evicted",
                    _ => "been removed",
                };
                return Err(Error::GoneRef {
                    reference: r.to_string(),
                    how,
                });
            }
        }
        Err(Error::UnknownRef(r.to_string()))
    }

    /// Refreshes a ref's last access; a read-only store still reads, so failures are ignored.
    pub fn touch(&self, r: &Ref) {
        if let Ok(f) = fs::File::open(self.meta_path(r)) {
            let _ = f.set_modified(std::time::SystemTime::now());
        }
    }

    /// Starts writing a payload: a locked temporary file created with `O_EXCL` in the scope.
    pub fn create_temp(&self) -> Result<TempPayload> {
        TempPayload::create(&self.scope_dir)
    }

    /// Publishes a finished payload (see [`TempPayload::finish_hashed`]) under its content
    /// hash and writes its metadata record. Identical content already stored is kept (payloads
    /// are immutable); its label is refreshed when the new one is non-empty, and its last access
    /// is refreshed either way.
    ///
    /// Under the root lock: runs the opportunistic expiry pass when due, then evicts
    /// least-recently-used entries of any scope until the payload fits the quota. A payload
    /// larger than the quota itself is refused (an error; `wrap` prints the degraded envelope).
    pub fn publish(&self, finished: Finished, meta: &mut Meta) -> Result<Ref> {
        let r = finished.reference;
        meta.hash = finished.hash.to_hex().to_string();
        let final_path = self.payload_path(&r);
        let size = finished
            .file()
            .metadata()
            .map_err(|e| Error::io("inspect", &finished.path, e))?
            .len();
        let lock = self.lock()?;
        self.expire_if_due(&lock);
        match self.meta(&r) {
            // Identical content is already stored: keep it; dropping `finished` removes the copy.
            Some(old) if old.hash == meta.hash && final_path.is_file() => {
                if meta.label.as_deref().is_none_or(str::is_empty) {
                    meta.label = old.label;
                }
                meta.created = old.created;
            }
            _ => {
                self.make_room(size, Some((&self.config.scope, &r)), &lock)?;
                fs::rename(&finished.path, &final_path)
                    .map_err(|e| Error::io("publish payload", &final_path, e))?;
                finished.published();
            }
        }
        let _ = fs::remove_file(self.tombstone_path(&r));
        self.write_meta(&r, meta)?;
        drop(lock);
        Ok(r)
    }

    /// Writes a metadata record atomically (temporary file, then rename).
    fn write_meta(&self, r: &Ref, meta: &Meta) -> Result<()> {
        let bytes = serde_json::to_vec(meta).expect("metadata serialises");
        let mut temp = TempPayload::create(&self.scope_dir)?;
        temp.write_all(&bytes)?;
        let finished = temp.finish()?;
        let path = self.meta_path(r);
        fs::rename(&finished.path, &path).map_err(|e| Error::io("write metadata", &path, e))?;
        finished.published();
        Ok(())
    }

    /// Reads the metadata record of a ref.
    pub fn meta(&self, r: &Ref) -> Option<Meta> {
        fs::read(self.meta_path(r))
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok())
    }

    /// Every entry of this scope, newest created first (ties by ref).
    pub fn entries(&self) -> Result<Vec<Entry>> {
        if !self.check()? {
            return Ok(Vec::new());
        }
        meta::list(&self.config.scope, &self.scope_dir)
    }

    /// Every scope directory name under the root (for `--all-scopes`).
    pub fn scopes(&self) -> Result<Vec<String>> {
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

    /// A view of another scope under the same root.
    pub fn with_scope(&self, scope: &str) -> Store {
        let mut config = self.config.clone();
        config.scope = scope.to_string();
        Store::new(config)
    }

    /// Removes an entry and leaves a tombstone saying `how` it went (`removed`, `expired`,
    /// `evicted`). Returns false when the ref was not stored.
    pub fn remove(&self, r: &Ref, how: &str) -> Result<bool> {
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
    match fs::read_to_string(root.join("VERSION")) {
        Ok(v) if v.trim() == LAYOUT_VERSION => Ok(()),
        Ok(v) => Err(Error::Store(format!(
            "store {} has layout version {:?}; this spill understands version {LAYOUT_VERSION} \
             (use another SPILL_DIR or upgrade spill)",
            root.display(),
            crate::diag::escape(v.trim())
        ))),
        // A root without VERSION is either new or being created right now.
        Err(_) => Ok(()),
    }
}

fn ensure_version(root: &Path) -> Result<()> {
    let path = root.join("VERSION");
    if path.exists() {
        return check_version(root);
    }
    let mut temp = TempPayload::create(root)?;
    temp.write_all(format!("{LAYOUT_VERSION}\n").as_bytes())?;
    let finished = temp.finish()?;
    fs::rename(&finished.path, &path).map_err(|e| Error::io("write", &path, e))?;
    finished.published();
    Ok(())
}
