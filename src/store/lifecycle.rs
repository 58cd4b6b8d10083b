//! The store's lifetime and space: the root lock, expiry after `--ttl` without access, LRU
//! eviction under `--quota`, stale temporary files left by crashed writers, halves of incomplete
//! entries, tombstone pruning, and `gc`, which runs all of them.
//!
//! Every change to the set of published entries (publish, remove, expire, evict) happens under
//! one exclusive `flock` on `<root>/.lock`. Quota accounting sums the payload files on disk
//! (and the temporary files, which take the same disk, whoever is writing them), so
//! it is exact only if nobody publishes between the sum and the rename: without the lock, two
//! writers could each see room for their payload and together overshoot the quota, or one could
//! evict an entry that another has just decided to keep as a duplicate. Readers never take the
//! lock: payloads are immutable and only ever unlinked, so an open reader is never disturbed.

use std::collections::HashSet;
use std::fs::{self, File, OpenOptions};
use std::io;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::files::{self, Found};
use super::write::TEMP_PREFIX;
use super::{Ref, Store, check_dir};
use crate::error::{Error, Gone, Result};

/// Tombstones older than this are pruned.
pub const TOMBSTONE_AGE: Duration = Duration::from_secs(7 * 86400);
/// At most this many tombstones are kept per root (the oldest go first).
pub const MAX_TOMBSTONES: usize = 10_000;
/// A temporary file untouched for this long is stale even if a process still holds it.
pub const TEMP_AGE: Duration = Duration::from_secs(3600);
/// `wrap`'s opportunistic expiry pass runs at most this often per root.
pub const EXPIRY_INTERVAL: Duration = Duration::from_secs(60);

/// The root lock file.
const LOCK_FILE: &str = ".lock";
/// Its mtime records the last opportunistic expiry pass.
const EXPIRY_STAMP: &str = ".expiry-stamp";
/// Turn-budget ledgers (see `store::turn`) start with this.
pub(super) const TURN_PREFIX: &str = ".turn-";

/// An exclusive lock on a store root, released when dropped (or when the process dies).
#[derive(Debug)]
pub struct RootLock {
    _file: File,
}

/// Why `gc` removed (or would remove) something.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reason {
    /// Not read for longer than `--ttl`.
    Expired,
    /// Least recently used while the root was over its quota.
    Evicted,
    /// A temporary file no live writer holds, or untouched for an hour.
    Temp,
    /// Half an entry: a payload without its metadata record or a record without its payload
    /// (an interrupted write), or a name of either kind that is not a regular file.
    Incomplete,
}

impl Reason {
    /// The word used in `gc` output and tombstones.
    pub fn as_str(self) -> &'static str {
        match self {
            Reason::Expired => "expired",
            Reason::Evicted => "evicted",
            Reason::Temp => "temp",
            Reason::Incomplete => "incomplete",
        }
    }
}

/// One thing `gc` removed (or would remove).
#[derive(Debug, Clone)]
pub struct Removal {
    /// The entry's ref (none for a temporary file).
    pub reference: Option<Ref>,
    /// The file's name, for a temporary file or an incomplete entry's half (none for an entry).
    pub file: Option<String>,
    /// The scope it was in (empty for a temporary file in the root itself).
    pub scope: String,
    /// Bytes freed.
    pub size: u64,
    /// Why.
    pub reason: Reason,
}

/// What `gc` did.
#[derive(Debug, Clone, Default)]
pub struct GcReport {
    /// Everything removed (or, in a dry run, that would be), in the order decided.
    pub removals: Vec<Removal>,
    /// Sum of the removals' sizes.
    pub freed: u64,
    /// Bytes the root holds afterwards, payloads and temporary files (in a dry run: would hold).
    pub usage: u64,
    /// Tombstones pruned (by age or count); always 0 in a dry run.
    pub tombstones_pruned: u64,
    /// What could not be removed, one message each (an object store that refused one key):
    /// the rest was still collected, and `removals` holds only what was.
    pub failures: Vec<String>,
}

/// How `gc` runs.
#[derive(Debug, Clone, Copy, Default)]
pub struct GcOptions {
    /// Report only; change nothing.
    pub dry_run: bool,
    /// Expire entries and sweep temporary files of every scope, not only the current one.
    pub all_scopes: bool,
    /// See and touch the current scope only (restricted mode): its usage is what is reported
    /// and held against the quota, only its entries are evicted, and the root's own temporary
    /// files and other scopes' tombstones are left alone.
    pub scope_only: bool,
}

/// A published payload as seen on disk.
#[derive(Debug, Clone)]
struct Held {
    scope: String,
    reference: Ref,
    size: u64,
    last_access: f64,
    created: f64,
}

/// Seconds since the epoch of a file's mtime.
fn mtime_secs(m: &fs::Metadata) -> f64 {
    m.modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map(|d| d.as_secs_f64())
        .unwrap_or(0.0)
}

/// Removes a payload and its record and leaves a tombstone saying `how`. True when it existed.
///
/// The tombstone is written first, so a reader that no longer finds the payload always finds
/// why; it is renamed into place, so a link planted at its name is replaced, never written
/// through. The payload goes before its record: a reader needs both, and a record without its
/// payload is never an entry.
pub(super) fn remove_entry(dir: &Path, r: &Ref, how: &str) -> Result<bool> {
    let path = dir.join(r.hex());
    if matches!(files::look(&path), Found::Missing) {
        return Ok(false);
    }
    let now = super::meta::now_secs();
    let _ = files::replace(
        dir,
        &dir.join(format!("{}.gone", r.hex())),
        format!("{how} {now:.3}\n").as_bytes(),
        "write tombstone",
    );
    let existed = match fs::remove_file(&path) {
        Ok(()) => true,
        Err(e) if e.kind() == io::ErrorKind::NotFound => false,
        Err(e) => return Err(Error::io("remove", path, e)),
    };
    let _ = fs::remove_file(dir.join(format!("{}.meta", r.hex())));
    Ok(existed)
}

impl Store {
    /// Takes the root's exclusive lock, waiting for it. The root must exist (see
    /// [`Store::prepare`]); the lock file is opened without following symbolic links and must
    /// be a regular file with no other hard link. One that is not is refused, not replaced:
    /// two processes replacing it at once could each lock a different file.
    pub fn lock(&self) -> Result<RootLock> {
        let path = self.root().join(LOCK_FILE);
        let file =
            files::open_in_place(&path).map_err(|e| Error::io("open the store lock", &path, e))?;
        files::lock(&file).map_err(|e| Error::io("lock", &path, e))?;
        Ok(RootLock { _file: file })
    }

    /// The scope names to visit: all of them, or only the current one if it exists.
    fn visit_scopes(&self, all: bool) -> Result<Vec<String>> {
        if all {
            return self.local_scopes();
        }
        Ok(if check_dir(self.scope_dir(), "scope directory")? {
            vec![self.config().scope.clone()]
        } else {
            Vec::new()
        })
    }

    /// Every published payload in these scopes. Scope directories that are not plain
    /// directories are skipped, never followed.
    fn held(&self, scopes: &[String]) -> Vec<Held> {
        let mut out = Vec::new();
        for scope in scopes {
            let dir = self.root().join(scope);
            if !fs::symlink_metadata(&dir).is_ok_and(|m| m.is_dir()) {
                continue;
            }
            let Ok(rd) = fs::read_dir(&dir) else { continue };
            for item in rd.flatten() {
                let name = item.file_name();
                let Some(reference) = name.to_str().and_then(|n| Ref::parse(&format!("sp_{n}")))
                else {
                    continue;
                };
                let Ok(m) = fs::symlink_metadata(item.path()) else {
                    continue;
                };
                if !m.is_file() {
                    continue;
                }
                // The payload is immutable, so its mtime is when it was created; the record's
                // mtime is the last access (absent only while a publish or removal is underway).
                let created = mtime_secs(&m);
                let last_access = match files::look(&dir.join(format!("{}.meta", reference.hex())))
                {
                    Found::File(mm) => mtime_secs(&mm),
                    _ => created,
                };
                out.push(Held {
                    scope: scope.clone(),
                    reference,
                    size: m.len(),
                    last_access,
                    created,
                });
            }
        }
        out
    }

    /// The temporary files in the root and in these scopes, as (scope, name, size); the scope is
    /// empty for the root. Only regular files count (a planted link holds no bytes here).
    fn temps(&self, scopes: &[String]) -> Vec<(String, String, u64)> {
        let mut out = Vec::new();
        let dirs = std::iter::once((String::new(), self.root().to_path_buf()))
            .chain(scopes.iter().map(|s| (s.clone(), self.root().join(s))));
        for (scope, dir) in dirs {
            let Ok(rd) = fs::read_dir(&dir) else { continue };
            for item in rd.flatten() {
                let name = item.file_name().to_string_lossy().into_owned();
                if !name.starts_with(TEMP_PREFIX) {
                    continue;
                }
                if let Ok(m) = item.metadata()
                    && m.is_file()
                {
                    out.push((scope.clone(), name, m.len()));
                }
            }
        }
        out
    }

    /// Bytes held by the whole root: payloads, and temporary files (being written or stale),
    /// which take the same disk.
    pub fn usage(&self) -> Result<u64> {
        let scopes = self.local_scopes()?;
        let temps: u64 = self.temps(&scopes).iter().map(|t| t.2).sum();
        Ok(self.held(&scopes).iter().map(|h| h.size).sum::<u64>() + temps)
    }

    /// Under the root lock: evicts least-recently-used entries of any scope (ties: the earlier
    /// created first) until `incoming` more bytes fit the quota. `keep` (the entry about to be
    /// replaced, if any) is neither evicted nor counted; `incoming_temp` is the temporary file
    /// holding the incoming bytes, so it is not counted twice. Every other temporary file counts:
    /// another writer's bytes are on the disk already. When those alone leave no room, every
    /// entry may go and the payload is still published (a writer is never refused for another's
    /// work in flight; the next publish or `gc` brings the root back under the quota).
    pub(super) fn make_room(
        &self,
        incoming: u64,
        keep: Option<(&str, &Ref)>,
        incoming_temp: &Path,
        _lock: &RootLock,
    ) -> Result<Vec<Removal>> {
        let quota = self.config().quota;
        if incoming > quota {
            return Err(Error::Store(format!(
                "the output needs {} bytes but the store quota is {} bytes; raise SPILL_QUOTA (or --quota)",
                crate::limits::group_digits(incoming),
                crate::limits::group_digits(quota)
            )));
        }
        let scopes = self.local_scopes()?;
        let own = incoming_temp
            .file_name()
            .map(|n| n.to_string_lossy().into_owned());
        let own_scope = self.config().scope.as_str();
        let in_flight: u64 = self
            .temps(&scopes)
            .iter()
            .filter(|(scope, name, _)| !(scope == own_scope && own.as_ref() == Some(name)))
            .map(|t| t.2)
            .sum();
        let mut held: Vec<Held> = self
            .held(&scopes)
            .into_iter()
            .filter(|h| keep != Some((h.scope.as_str(), &h.reference)))
            .collect();
        self.evict(
            &mut held,
            (quota - incoming).saturating_sub(in_flight),
            false,
        )
    }

    /// Evicts from `held` (least recently used first) until it sums to at most `limit`.
    fn evict(&self, held: &mut [Held], limit: u64, dry_run: bool) -> Result<Vec<Removal>> {
        let mut usage: u64 = held.iter().map(|h| h.size).sum();
        held.sort_by(|a, b| {
            a.last_access
                .total_cmp(&b.last_access)
                .then(a.created.total_cmp(&b.created))
                .then(a.reference.cmp(&b.reference))
        });
        let mut removed = Vec::new();
        for h in held.iter() {
            if usage <= limit {
                break;
            }
            if !dry_run {
                remove_entry(
                    &self.root().join(&h.scope),
                    &h.reference,
                    Gone::Evicted.as_str(),
                )?;
            }
            usage -= h.size;
            removed.push(Removal {
                reference: Some(h.reference),
                file: None,
                scope: h.scope.clone(),
                size: h.size,
                reason: Reason::Evicted,
            });
        }
        Ok(removed)
    }

    /// Expires entries of these scopes not read for longer than the TTL.
    fn expire(&self, scopes: &[String], dry_run: bool, _lock: &RootLock) -> Result<Vec<Removal>> {
        let now = super::meta::now_secs();
        let ttl = self.config().ttl.as_secs_f64();
        let mut expired: Vec<Held> = self
            .held(scopes)
            .into_iter()
            .filter(|h| now - h.last_access > ttl)
            .collect();
        expired.sort_by(|a, b| a.scope.cmp(&b.scope).then(a.reference.cmp(&b.reference)));
        let mut out = Vec::new();
        for h in expired {
            if !dry_run {
                remove_entry(
                    &self.root().join(&h.scope),
                    &h.reference,
                    Gone::Expired.as_str(),
                )?;
            }
            out.push(Removal {
                reference: Some(h.reference),
                file: None,
                scope: h.scope,
                size: h.size,
                reason: Reason::Expired,
            });
        }
        for scope in scopes {
            expire_ledgers(&self.root().join(scope), self.config().ttl, dry_run);
        }
        super::stats::expire(self.root(), self.config().ttl, dry_run);
        Ok(out)
    }

    /// Under the root lock, from `wrap`: the cheap housekeeping pass, at most once a minute per
    /// root (the stamp file's mtime says when it last ran): expiry, stale temporary files
    /// (see [`sweep_temps`]: no live writer, or untouched for [`TEMP_AGE`]) and tombstones in
    /// every scope. Failures are ignored: it is housekeeping.
    pub(super) fn expire_if_due(&self, lock: &RootLock, own_temp: &Path) {
        let stamp = self.root().join(EXPIRY_STAMP);
        let now = SystemTime::now();
        // Only a regular stamp says when the pass ran; a planted link is replaced below.
        if let Found::File(m) = files::look(&stamp)
            && m.nlink() == 1
            && let Ok(at) = m.modified()
            && now.duration_since(at).is_ok_and(|d| d < EXPIRY_INTERVAL)
        {
            return;
        }
        let opened = files::open_in_place(&stamp).or_else(|_| {
            // Not a regular file of ours (a link, a hard link): under the lock nobody else is
            // stamping, so remove the name itself and start a fresh stamp.
            fs::remove_file(&stamp)?;
            files::open_in_place(&stamp)
        });
        if opened.and_then(|f| f.set_modified(now)).is_err() {
            return;
        }
        if let Ok(scopes) = self.local_scopes() {
            let _ = self.expire(&scopes, false, lock);
            let dirs = std::iter::once((String::new(), self.root().to_path_buf()))
                .chain(scopes.iter().map(|s| (s.clone(), self.root().join(s))));
            for (scope, dir) in dirs {
                sweep_temps(&dir, &scope, false, Some(own_temp));
            }
            self.prune_tombstones(&scopes);
        }
    }

    /// Removes tombstones older than seven days, then the oldest beyond 10,000 per root.
    fn prune_tombstones(&self, scopes: &[String]) -> u64 {
        let now = SystemTime::now();
        let mut kept: Vec<(SystemTime, PathBuf)> = Vec::new();
        let mut pruned = 0;
        for scope in scopes {
            let Ok(rd) = fs::read_dir(self.root().join(scope)) else {
                continue;
            };
            for item in rd.flatten() {
                if !item.file_name().to_string_lossy().ends_with(".gone") {
                    continue;
                }
                let Ok(at) = item.metadata().and_then(|m| m.modified()) else {
                    continue;
                };
                if now.duration_since(at).is_ok_and(|d| d > TOMBSTONE_AGE) {
                    pruned += u64::from(fs::remove_file(item.path()).is_ok());
                } else {
                    kept.push((at, item.path()));
                }
            }
        }
        if kept.len() > MAX_TOMBSTONES {
            kept.sort();
            let excess = kept.len() - MAX_TOMBSTONES;
            for (_, path) in &kept[..excess] {
                pruned += u64::from(fs::remove_file(path).is_ok());
            }
        }
        pruned
    }

    /// `spill gc`: expires entries, removes stale temporary files, then enforces the quota by
    /// evicting least-recently-used entries of any scope (of the current one only with
    /// [`GcOptions::scope_only`]), and prunes tombstones.
    pub fn gc(&self, opts: GcOptions) -> Result<GcReport> {
        #[cfg(feature = "s3")]
        if let Some(remote) = &self.config().remote {
            return super::remote::sync::gc(self, remote, opts);
        }
        if !check_dir(self.root(), "root")? {
            return Ok(GcReport::default());
        }
        let lock = self.lock()?;
        let scopes = self.visit_scopes(opts.all_scopes && !opts.scope_only)?;
        // The scopes whose usage counts and whose entries may be evicted.
        let pool = match opts.scope_only {
            true => scopes.clone(),
            false => self.local_scopes()?,
        };
        let mut removals = self.expire(&scopes, opts.dry_run, &lock)?;
        let dirs: Vec<(String, PathBuf)> = scopes
            .iter()
            .map(|s| (s.clone(), self.root().join(s)))
            .collect();
        // The root's own temporary files belong to no scope: not for a scope-only pass.
        if !opts.scope_only {
            removals.extend(sweep_temps(self.root(), "", opts.dry_run, None));
            // Conversation bindings of processes that are gone (`store::binding`); they are
            // bookkeeping, not entries, so they are not reported.
            super::binding::sweep(self.root(), opts.dry_run);
        }
        for (scope, dir) in &dirs {
            removals.extend(sweep_temps(dir, scope, opts.dry_run, None));
        }
        for (scope, dir) in &dirs {
            removals.extend(sweep_incomplete(dir, scope, opts.dry_run));
            // Running entries whose supervisor died, and aliases whose sealed payload is gone.
            let dead = super::running::sweep(dir, opts.dry_run);
            removals.extend(dead.into_iter().map(|(name, size)| Removal {
                reference: None,
                file: Some(name),
                scope: scope.clone(),
                size,
                reason: Reason::Incomplete,
            }));
        }
        // The quota is the root's, so it is enforced over every scope; temporary files that
        // stay (live writers) count against it too.
        let gone: HashSet<(String, Ref)> = removals
            .iter()
            .filter_map(|r| {
                let named = r
                    .file
                    .as_deref()
                    .and_then(|f| Ref::parse(&format!("sp_{f}")));
                r.reference.or(named).map(|x| (r.scope.clone(), x))
            })
            .collect();
        let swept: HashSet<(&str, &str)> = removals
            .iter()
            .filter_map(|r| r.file.as_deref().map(|f| (r.scope.as_str(), f)))
            .collect();
        let in_flight: u64 = self
            .temps(&pool)
            .iter()
            .filter(|(scope, ..)| !opts.scope_only || !scope.is_empty())
            .filter(|(scope, name, _)| !swept.contains(&(scope.as_str(), name.as_str())))
            .map(|t| t.2)
            .sum();
        let mut held: Vec<Held> = self
            .held(&pool)
            .into_iter()
            .filter(|h| !gone.contains(&(h.scope.clone(), h.reference)))
            .collect();
        let limit = self.config().quota.saturating_sub(in_flight);
        let evicted = self.evict(&mut held, limit, opts.dry_run)?;
        let evicted_bytes: u64 = evicted.iter().map(|r| r.size).sum();
        let usage = held.iter().map(|h| h.size).sum::<u64>() - evicted_bytes + in_flight;
        removals.extend(evicted);
        let tombstones_pruned = if opts.dry_run {
            0
        } else {
            self.prune_tombstones(&pool)
        };
        Ok(GcReport {
            freed: removals.iter().map(|r| r.size).sum(),
            removals,
            usage,
            tombstones_pruned,
            failures: Vec::new(),
        })
    }

    /// The last access of an entry (its record's mtime, never a link's target's), if stored.
    pub(super) fn last_access(&self, r: &Ref) -> Option<f64> {
        match files::look(&self.scope_dir().join(format!("{}.meta", r.hex()))) {
            Found::File(m) => Some(mtime_secs(&m)),
            _ => None,
        }
    }

    /// For `spill rm --all`, under the root lock: removes what is left of incomplete entries
    /// (see [`Reason::Incomplete`]) and the stale temporary files of the current scope.
    pub fn remove_leftovers(&self) -> Result<Vec<Removal>> {
        if !self.check()? {
            return Ok(Vec::new());
        }
        let _lock = self.lock()?;
        let scope = &self.config().scope;
        let mut out = sweep_temps(self.scope_dir(), scope, false, None);
        out.extend(sweep_incomplete(self.scope_dir(), scope, false));
        Ok(out)
    }

    /// True when a stored entry has not been read for longer than the TTL.
    pub(super) fn is_expired(&self, r: &Ref) -> bool {
        let ttl = self.config().ttl.as_secs_f64();
        self.last_access(r)
            .is_some_and(|at| super::meta::now_secs() - at > ttl)
    }
}

/// Removes turn ledgers not updated within the TTL.
fn expire_ledgers(dir: &Path, ttl: Duration, dry_run: bool) {
    if dry_run {
        return;
    }
    let Ok(rd) = fs::read_dir(dir) else { return };
    let now = SystemTime::now();
    for item in rd.flatten() {
        if !item.file_name().to_string_lossy().starts_with(TURN_PREFIX) {
            continue;
        }
        if let Ok(at) = item.metadata().and_then(|m| m.modified())
            && now.duration_since(at).is_ok_and(|d| d > ttl)
        {
            let _ = fs::remove_file(item.path());
        }
    }
}

/// Finds (and unless `dry_run` removes) the stale temporary files of one directory: those no
/// live writer holds locked, or untouched for an hour — except `keep`, the caller's own (a
/// publishing writer whose input paused for an hour keeps its file).
///
/// A writer holds an exclusive `flock` on its temporary file from creation to rename, and the
/// lock dies with the process, so a file we can lock belongs to nobody. We unlink it while still
/// holding the lock; a writer that raced us between its `open` and its `flock` notices that its
/// name no longer leads to its file and starts again (see `TempPayload::create`).
fn sweep_temps(dir: &Path, scope: &str, dry_run: bool, keep: Option<&Path>) -> Vec<Removal> {
    let mut out = Vec::new();
    let Ok(rd) = fs::read_dir(dir) else {
        return out;
    };
    let now = SystemTime::now();
    for item in rd.flatten() {
        let name = item.file_name().to_string_lossy().into_owned();
        if !name.starts_with(TEMP_PREFIX) {
            continue;
        }
        let path = item.path();
        if keep == Some(path.as_path()) {
            continue;
        }
        // No writer makes anything but a regular file under this prefix: a link (or a FIFO)
        // was planted. Unlinking removes the name only, never what it points at.
        if item
            .file_type()
            .is_ok_and(|t| t.is_symlink() || !(t.is_file() || t.is_dir()))
        {
            if dry_run || fs::remove_file(&path).is_ok() {
                out.push(Removal {
                    reference: None,
                    file: Some(name),
                    scope: scope.to_string(),
                    size: 0,
                    reason: Reason::Temp,
                });
            }
            continue;
        }
        let Ok((file, m)) = super::files::open_regular(OpenOptions::new().read(true), &path) else {
            continue;
        };
        let old = m
            .modified()
            .ok()
            .and_then(|at| now.duration_since(at).ok())
            .is_some_and(|d| d > TEMP_AGE);
        if !(matches!(files::try_lock(&file), Ok(true)) || old) {
            continue;
        }
        // Only unlink the file we inspected, not one that replaced it under the same name.
        let same = fs::symlink_metadata(&path).is_ok_and(|p| p.ino() == m.ino());
        if !same || (!dry_run && fs::remove_file(&path).is_err()) {
            continue;
        }
        out.push(Removal {
            reference: None,
            file: Some(name),
            scope: scope.to_string(),
            size: m.len(),
            reason: Reason::Temp,
        });
    }
    out
}

/// Under the root lock: finds (and unless `dry_run` removes) the halves of incomplete entries in
/// one scope directory: a payload without a regular metadata record, a record without a regular
/// payload, and a link (or other non-file) at either kind of name. Publishing renames the record
/// first and the payload last under the same lock, and removal unlinks the payload first, so
/// under the lock such a half is never part of a write in progress. No tombstone is left: the
/// entry was never complete.
fn sweep_incomplete(dir: &Path, scope: &str, dry_run: bool) -> Vec<Removal> {
    let mut out = Vec::new();
    let Ok(rd) = fs::read_dir(dir) else {
        return out;
    };
    let mut names: Vec<String> = rd
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    for name in names {
        let (hex, partner) = match name.strip_suffix(".meta") {
            Some(hex) => (hex.to_string(), hex.to_string()),
            None => (name.clone(), format!("{name}.meta")),
        };
        if Ref::parse(&format!("sp_{hex}")).is_none() {
            continue;
        }
        let path = dir.join(&name);
        let size = match files::look(&path) {
            // A directory is not ours to remove; publishing over it fails with a clear error.
            Found::Missing | Found::Other("a directory") => continue,
            Found::File(_) if files::look(&dir.join(&partner)).is_file() => continue,
            Found::File(m) => m.len(),
            Found::Other(_) => 0,
        };
        if dry_run || fs::remove_file(&path).is_ok() {
            out.push(Removal {
                reference: None,
                file: Some(name),
                scope: scope.to_string(),
                size,
                reason: Reason::Incomplete,
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{Meta, StoreConfig};

    fn store(dir: &Path, scope: &str, quota: u64) -> Store {
        let mut config = StoreConfig::new(dir.join("root"), scope.into());
        config.quota = quota;
        let store = Store::new(config);
        store.prepare().unwrap();
        store
    }

    fn put(store: &Store, bytes: &[u8]) -> Result<Ref> {
        let mut temp = store.create_temp()?;
        temp.write_all(bytes)?;
        let finished = temp.finish()?;
        store
            .publish(finished, &mut Meta::default())
            .map(|p| p.reference)
    }

    fn set_mtime(path: &Path, secs_ago: u64) {
        File::options()
            .write(true)
            .open(path)
            .unwrap()
            .set_modified(SystemTime::now() - Duration::from_secs(secs_ago))
            .unwrap();
    }

    #[test]
    fn publishing_evicts_the_least_recently_used_first_and_ties_by_creation() {
        let dir = tempfile::tempdir().unwrap();
        let s = store(dir.path(), "a", 300);
        let other = store(dir.path(), "b", 300);
        let x = put(&s, &[b'x'; 100]).unwrap();
        let y = put(&other, &[b'y'; 100]).unwrap();
        let z = put(&s, &[b'z'; 100]).unwrap();
        // y and z were last read at the same time; z was created earlier.
        set_mtime(&s.scope_dir().join(format!("{}.meta", x.hex())), 10);
        set_mtime(&other.scope_dir().join(format!("{}.meta", y.hex())), 50);
        set_mtime(&s.scope_dir().join(format!("{}.meta", z.hex())), 50);
        set_mtime(&other.payload_path(&y), 30);
        set_mtime(&s.payload_path(&z), 40);
        assert_eq!(s.usage().unwrap(), 300);
        put(&s, &[b'w'; 150]).unwrap();
        // 450 bytes for 300: z (older creation) goes, then y; x, the most recent, stays.
        assert!(!s.payload_path(&z).exists() && !other.payload_path(&y).exists());
        assert!(s.payload_path(&x).exists());
        assert_eq!(s.usage().unwrap(), 250);
        assert!(matches!(
            s.find(&z),
            Err(Error::GoneRef {
                how: Gone::Evicted,
                ..
            })
        ));
        // Larger than the quota itself: refused, nothing evicted.
        let e = put(&s, &[b'v'; 301]).unwrap_err();
        assert!(e.to_string().contains("quota"), "{e}");
        assert_eq!(s.usage().unwrap(), 250);
        // Identical content needs no room and evicts nothing.
        put(&s, &[b'x'; 100]).unwrap();
        assert_eq!(s.usage().unwrap(), 250);
    }

    #[test]
    fn only_unlocked_or_hour_old_temporary_files_are_stale() {
        let dir = tempfile::tempdir().unwrap();
        let s = store(dir.path(), "a", 1 << 20);
        let live = s.create_temp().unwrap();
        let crashed = s.scope_dir().join(".tmp-crashed");
        fs::write(&crashed, b"partial").unwrap();
        let held_long = s.scope_dir().join(".tmp-held-long");
        let held = File::create(&held_long).unwrap();
        assert!(files::try_lock(&held).unwrap());
        set_mtime(&held_long, 2 * 3600);
        let dry = sweep_temps(s.scope_dir(), "a", true, None);
        let mut names: Vec<String> = dry.iter().filter_map(|r| r.file.clone()).collect();
        names.sort();
        assert_eq!(names, [".tmp-crashed", ".tmp-held-long"]);
        assert!(crashed.exists());
        assert_eq!(sweep_temps(s.scope_dir(), "a", false, None).len(), 2);
        assert!(!crashed.exists() && !held_long.exists());
        assert!(live.path().exists(), "a live writer's file stays");
        assert!(sweep_temps(s.scope_dir(), "a", false, None).is_empty());
    }

    #[test]
    fn expiry_follows_the_last_access_and_leaves_tombstones() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = store(dir.path(), "a", 1 << 20);
        let old = put(&s, b"old").unwrap();
        let new = put(&s, b"new").unwrap();
        set_mtime(&s.scope_dir().join(format!("{}.meta", old.hex())), 7200);
        s.config.ttl = Duration::from_secs(3600);
        let report = s.gc(GcOptions::default()).unwrap();
        assert_eq!(report.removals.len(), 1);
        assert_eq!(report.removals[0].reference, Some(old));
        assert_eq!(report.removals[0].reason, Reason::Expired);
        assert_eq!(report.freed, 3);
        assert_eq!(report.usage, 3);
        assert!(matches!(
            s.find(&old),
            Err(Error::GoneRef {
                how: Gone::Expired,
                ..
            })
        ));
        assert!(s.find(&new).is_ok());
    }
}
