//! The mapping of entries onto objects (ARCHITECTURE.md "The object store"):
//!
//! ```text
//! PREFIX/<scope>/<hex16>        a payload: immutable, created only if absent, x-amz-meta-blake3
//! PREFIX/<scope>/<hex16>.meta   its metadata record (JSON); its Last-Modified is the last access
//! PREFIX/<scope>/<hex16>.lines  the line index of a payload over 1 MiB (`super::window`)
//! PREFIX/<scope>/<hex16>.gone   a tombstone: why a ref is no longer there
//! ```
//!
//! The payload is written first, then its line index, and the record last, and readers need
//! the record, so an interrupted write is never an entry. Reading goes through the local cache (a local store):
//! the payload is downloaded into it, verified against the record's hash, and then opened like
//! any local entry.

use std::collections::{HashMap, HashSet};
use std::io::Read;

use super::RemoteConfig;
use super::client::{Client, Listed, PART_SIZE, Upload, parse_key};
use super::window::{LineIndex, RANGED_FROM};
use crate::error::{Error, Result};
use crate::store::lifecycle::{MAX_TOMBSTONES, TOMBSTONE_AGE};
use crate::store::meta::{self, Entry, Meta};
use crate::store::{GcOptions, GcReport, Reason, Ref, Removal, Store};

/// A payload without its record (or a record without its payload, or a multipart upload)
/// younger than this may be a write in progress on another machine, so `gc` leaves it alone
/// (unless the TTL is shorter: [`stale_after`]).
const INCOMPLETE_AFTER: f64 = 3600.0;

/// Last-access updates are throttled: a read rewrites the record only when its last access is
/// older than this fraction of the TTL (and at most an hour old).
const TOUCH_FRACTION: f64 = 0.1;

fn hex_of(r: &Ref) -> String {
    r.hex().to_string()
}

/// Makes `r` readable from the local cache: checks the remote record (see [`check_record`])
/// and downloads the payload when the cache does not hold these exact bytes.
pub fn prepare_read(store: &Store, remote: &RemoteConfig, r: &Ref) -> Result<()> {
    match check_record(store, remote, r)? {
        Some((client, record)) => download(&client, remote, &store.local(), r, &record),
        None => Ok(()),
    }
}

/// Checks the remote record of `r` (the entry's existence, TTL and hash) and refreshes its
/// last access when due. Returns `None` when the cache holds these exact bytes (refreshed
/// there too), else the client and the record, for reading the payload. A ref that is not
/// there remotely is gone everywhere.
pub(super) fn check_record(
    store: &Store,
    remote: &RemoteConfig,
    r: &Ref,
) -> Result<Option<(Client, Meta)>> {
    let client = Client::new(remote)?;
    let scope = &store.config().scope;
    let meta_key = remote.key(scope, &format!("{}.meta", hex_of(r)));
    let cache = store.local();
    let Some(reply) = client.get(&meta_key)? else {
        // Removed (or never stored) remotely: the cached copy must not outlive it.
        if cache.check().unwrap_or(false) {
            let _ = cache.remove(r, "removed");
        }
        return Err(gone_or_unknown(&client, remote, scope, r)?);
    };
    let last_access = reply.last_modified;
    let text = reply.text(meta::MAX_RECORD)?;
    let record: Meta = serde_json::from_str(&text).map_err(|_| {
        Error::Store(format!(
            "the metadata record of {r} in the object store is not valid"
        ))
    })?;
    check_tied(&record, r)?;
    let ttl = store.config().ttl.as_secs_f64();
    let now = meta::now_secs();
    if let Some(seen) = last_access {
        if now - seen > ttl {
            let _ = remove(store, remote, r, "expired");
            return Err(Error::GoneRef {
                reference: r.to_string(),
                how: crate::error::Gone::Expired,
            });
        }
        if now - seen > (ttl * TOUCH_FRACTION).min(3600.0) {
            // Best effort: reading with read-only credentials still reads.
            let _ = client.put(&meta_key, text.as_bytes());
        }
    }
    let cached =
        cache.meta(r).is_some_and(|m| m.hash == record.hash) && cache.payload_path(r).is_file();
    if cached {
        cache.touch(r);
        return Ok(None);
    }
    Ok(Some((client, record)))
}

/// A record is `r`'s only if its hash is one `r` names (a ref is its hash's first 16 hex
/// digits): another entry's record copied onto `r`'s key is refused, never read as `r`.
pub(super) fn check_tied(record: &Meta, r: &Ref) -> Result<()> {
    let hex = hex_of(r);
    let ok = record.hash.len() == 64
        && record.hash.starts_with(&hex)
        && record
            .hash
            .bytes()
            .all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'));
    match ok {
        true => Ok(()),
        false => Err(Error::Store(format!(
            "the metadata record of {r} in the object store is another entry's; not used"
        ))),
    }
}

/// The remote metadata record of `r`, if it is stored and readable (no TTL check or refresh:
/// for describing an entry, not reading it).
pub fn record(store: &Store, remote: &RemoteConfig, r: &Ref) -> Option<Meta> {
    let client = Client::new(remote).ok()?;
    let key = remote.key(&store.config().scope, &format!("{}.meta", hex_of(r)));
    let text = client.get(&key).ok()??.text(meta::MAX_RECORD).ok()?;
    let record: Meta = serde_json::from_str(&text).ok()?;
    check_tied(&record, r).ok()?;
    Some(record)
}

/// Downloads a payload into the cache, hashing it on the way; bytes that do not match the
/// record's hash are never published. The download is bounded by the recorded size: a reply
/// that says (`Content-Length`) or turns out to be longer is refused, as is a payload larger
/// than the cache may hold, before a byte of it is read.
pub(super) fn download(
    client: &Client,
    remote: &RemoteConfig,
    cache: &Store,
    r: &Ref,
    record: &Meta,
) -> Result<()> {
    let size = record.stored_bytes;
    if size > cache.config().quota {
        return Err(Error::Store(format!(
            "{r} holds {size} bytes, more than the local cache may hold \
             (SPILL_S3_CACHE_QUOTA, {} bytes); not downloaded",
            cache.config().quota
        )));
    }
    client.allow(size);
    let key = remote.key(&cache.config().scope, &hex_of(r));
    let Some(reply) = client.get(&key)? else {
        return Err(Error::Store(format!(
            "{r} is incomplete in the object store: its record has no payload; `spill gc` removes it"
        )));
    };
    if reply.hash.as_ref().is_some_and(|h| *h != record.hash) {
        return Err(Error::Store(format!(
            "the payload of {r} in the object store carries another hash than its record; not used"
        )));
    }
    if reply.length.is_some_and(|n| n != size) {
        return Err(Error::Store(format!(
            "the object store's reply for {r} is not the size its record gives; not used"
        )));
    }
    cache.prepare()?;
    let mut temp = cache.create_temp()?;
    let mut body = reply.into_reader(size);
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = body.read(&mut buf).map_err(|e| broke_off(r, &e))?;
        if n == 0 {
            break;
        }
        temp.write_all(&buf[..n])?;
    }
    let finished = temp.finish()?;
    if finished.hash.to_hex().as_str() != record.hash {
        return Err(Error::Store(format!(
            "the payload of {r} in the object store does not match its recorded hash; not used"
        )));
    }
    cache.publish(finished, &mut record.clone())?;
    Ok(())
}

/// The error for a reply body that could not be read whole (or was longer than allowed).
pub(super) fn broke_off(r: &Ref, e: &std::io::Error) -> Error {
    match e.kind() {
        std::io::ErrorKind::FileTooLarge => Error::Store(format!(
            "the object store sent more bytes for {r} than its record gives; not used"
        )),
        std::io::ErrorKind::TimedOut => Error::Store(format!(
            "the object store {e} while reading {r} (SPILL_S3_TIMEOUT bounds each operation on \
             the store, all its requests together)"
        )),
        kind => Error::Store(format!(
            "the object store's reply broke off while reading {r} ({kind})"
        )),
    }
}

/// Why a ref with no remote record is not there: its tombstone's word, or unknown.
fn gone_or_unknown(client: &Client, remote: &RemoteConfig, scope: &str, r: &Ref) -> Result<Error> {
    let key = remote.key(scope, &format!("{}.gone", hex_of(r)));
    let why = match client.get(&key)? {
        Some(reply) => reply.text(256)?,
        None => return Ok(Error::UnknownRef(r.to_string())),
    };
    let word = why.split_ascii_whitespace().next().unwrap_or_default();
    let how = crate::error::Gone::from_word(word.as_bytes());
    Ok(Error::GoneRef {
        reference: r.to_string(),
        how,
    })
}

/// Uploads a payload just published in the cache, then its record. The payload is created
/// only if absent, so a concurrent writer of the same content is not an error, and a large
/// one goes in parts straight from the memory-mapped file.
pub fn upload(store: &Store, remote: &RemoteConfig, r: &Ref, record: &Meta) -> Result<()> {
    let client = Client::new(remote)?;
    let scope = &store.config().scope;
    let path = store.payload_path(r);
    let file = std::fs::File::open(&path).map_err(|e| Error::io("open", &path, e))?;
    let size = file
        .metadata()
        .map_err(|e| Error::io("inspect", &path, e))?
        .len();
    // SAFETY: published payloads are never rewritten (they are replaced by rename or removed,
    // which leaves the mapped pages intact), so the mapping cannot change under us.
    let map = match size {
        0 => None,
        _ => Some(unsafe { memmap2::Mmap::map(&file) }.map_err(|e| Error::io("map", &path, e))?),
    };
    let data: &[u8] = map.as_deref().unwrap_or(&[]);
    client.allow(size);
    let key = remote.key(scope, &hex_of(r));
    if data.len() <= PART_SIZE {
        client.put_new(&key, data, &record.hash)?;
    } else if client.head(&key)?.is_none() {
        client.put_new_multipart(&key, data, &record.hash)?;
    }
    if size > RANGED_FROM {
        let index =
            serde_json::to_vec(&LineIndex::build(data, &record.hash)).expect("an index serialises");
        client.put(&remote.key(scope, &format!("{}.lines", hex_of(r))), &index)?;
    }
    let bytes = serde_json::to_vec(record).expect("metadata serialises");
    client.put(&remote.key(scope, &format!("{}.meta", hex_of(r))), &bytes)
}

/// Every scope under the prefix.
pub fn scopes(remote: &RemoteConfig) -> Result<Vec<String>> {
    let client = Client::new(remote)?;
    let root = remote.scope_root();
    let (_, prefixes) = client.list(&root, Some("/"))?;
    let mut names: Vec<String> = prefixes
        .iter()
        .filter_map(|p| p.strip_prefix(&root)?.strip_suffix('/'))
        .filter(|n| crate::store::validate_scope(n).is_ok())
        .map(str::to_string)
        .collect();
    names.sort();
    Ok(names)
}

/// What a listing of one scope holds: payloads, records and line indexes by ref, and the
/// multipart uploads in progress.
#[derive(Default)]
struct ScopeListing {
    payloads: HashMap<Ref, Listed>,
    records: HashMap<Ref, Listed>,
    indexes: HashMap<Ref, Listed>,
    tombstones: Vec<Listed>,
    uploads: Vec<(Ref, Upload)>,
}

/// Lists every scope (or one) under the prefix, by scope; `with_uploads`, the multipart uploads
/// in progress too.
fn listing(
    client: &Client,
    remote: &RemoteConfig,
    only: Option<&str>,
    with_uploads: bool,
) -> Result<HashMap<String, ScopeListing>> {
    let root = remote.scope_root();
    let prefix = match only {
        Some(scope) => format!("{root}{scope}/"),
        None => root.clone(),
    };
    let (objects, _) = client.list(&prefix, None)?;
    let mut by_scope: HashMap<String, ScopeListing> = HashMap::new();
    for o in objects {
        // Only keys spill writes (a scope name, a ref's hex and a known suffix) are read: a
        // key such as `PREFIX/../<hex>.meta` is no entry of any scope, and is left alone.
        let Some((scope, r, suffix)) = parse_key(&root, &o.key) else {
            continue;
        };
        if only.is_some_and(|s| s != scope) {
            continue;
        }
        let held = by_scope.entry(scope.to_string()).or_default();
        match suffix {
            "" => {
                held.payloads.insert(r, o);
            }
            "meta" => {
                held.records.insert(r, o);
            }
            "lines" => {
                held.indexes.insert(r, o);
            }
            _ => held.tombstones.push(o),
        }
    }
    if with_uploads {
        for upload in client.uploads(&prefix)? {
            if let Some((scope, r, "")) = parse_key(&root, &upload.key)
                && only.is_none_or(|s| s == scope)
            {
                let scope = scope.to_string();
                by_scope.entry(scope).or_default().uploads.push((r, upload));
            }
        }
    }
    Ok(by_scope)
}

/// Every entry of the store's scope, newest created first (ties by ref), from a listing and
/// one read per record.
pub fn entries(store: &Store, remote: &RemoteConfig) -> Result<Vec<Entry>> {
    let client = Client::new(remote)?;
    let scope = &store.config().scope;
    let Some(held) = listing(&client, remote, Some(scope), false)?.remove(scope) else {
        return Ok(Vec::new());
    };
    let mut entries = Vec::new();
    for (r, record) in &held.records {
        if !held.payloads.contains_key(r) {
            continue;
        }
        let Some(reply) = client.get(&record.key)? else {
            continue;
        };
        let Ok(meta) = serde_json::from_str::<Meta>(&reply.text(meta::MAX_RECORD)?) else {
            continue;
        };
        entries.push(Entry {
            reference: *r,
            scope: scope.clone(),
            meta,
            last_access: record.modified,
        });
    }
    meta::sort_newest_first(&mut entries);
    Ok(entries)
}

/// Removes an entry: a tombstone saying `how`, then the record (from then on readers see it
/// gone), then the payload; and the cached copy. Returns false when it was not stored.
pub fn remove(store: &Store, remote: &RemoteConfig, r: &Ref, how: &str) -> Result<bool> {
    let client = Client::new(remote)?;
    let scope = &store.config().scope;
    let removed = remove_in(&client, remote, scope, r, how)?;
    let cache = store.local().with_scope(scope);
    if cache.check().unwrap_or(false) {
        let _ = cache.remove(r, how);
    }
    Ok(removed)
}

fn remove_in(
    client: &Client,
    remote: &RemoteConfig,
    scope: &str,
    r: &Ref,
    how: &str,
) -> Result<bool> {
    let hex = hex_of(r);
    let record = remote.key(scope, &format!("{hex}.meta"));
    let payload = remote.key(scope, &hex);
    let existed = client.head(&record)?.is_some() || client.head(&payload)?.is_some();
    if !existed {
        return Ok(false);
    }
    let now = meta::now_secs();
    client.put(
        &remote.key(scope, &format!("{hex}.gone")),
        format!("{how} {now:.3}\n").as_bytes(),
    )?;
    client.delete(&record)?;
    client.delete(&payload)?;
    client.delete(&remote.key(scope, &format!("{hex}.lines")))?;
    Ok(true)
}

/// `spill gc` on an object store: expires entries not read within the TTL (by their record's
/// Last-Modified); removes halves of entries and aborts multipart uploads that are stale (their
/// last activity, the latest of their start and their parts, older than [`stale_after`]: an
/// interrupted write); then evicts the least recently used entries
/// until the prefix fits `--quota`; then collects the local cache by its own quota. The
/// accounting is the listings': payload sizes as stored, plus the parts that uploads in
/// progress hold (ListParts).
pub fn gc(store: &Store, remote: &RemoteConfig, opts: GcOptions) -> Result<GcReport> {
    let client = Client::new(remote)?;
    let current = store.config().scope.clone();
    let all = listing(
        &client,
        remote,
        opts.scope_only.then_some(current.as_str()),
        true,
    )?;
    let ttl = store.config().ttl.as_secs_f64();
    let stale = stale_after(ttl);
    let now = meta::now_secs();
    let mut removals = Vec::new();
    let mut gone: HashSet<(String, Ref)> = HashSet::new();
    let mut lone_indexes = Vec::new();
    let mut aborts = Vec::new();
    let mut uploading: u64 = 0;
    let visit = |scope: &str| opts.all_scopes && !opts.scope_only || scope == current;
    for (scope, held) in &all {
        for (r, record) in &held.records {
            let size = held.payloads.get(r).map_or(0, |p| p.size);
            let reason = match held.payloads.contains_key(r) {
                true if visit(scope) && now - record.modified > ttl => Reason::Expired,
                false if now - record.modified > stale => Reason::Incomplete,
                _ => continue,
            };
            removals.push(removal(scope, *r, size, reason));
            gone.insert((scope.clone(), *r));
        }
        for (r, payload) in &held.payloads {
            if !held.records.contains_key(r) && now - payload.modified > stale {
                removals.push(removal(scope, *r, payload.size, Reason::Incomplete));
                gone.insert((scope.clone(), *r));
            }
        }
        for (r, index) in &held.indexes {
            let lone = !held.records.contains_key(r) && !held.payloads.contains_key(r);
            if lone && now - index.modified > stale {
                lone_indexes.push(index.key.clone());
            }
        }
        for (r, upload) in &held.uploads {
            let (size, last_activity) = client.upload_parts(upload)?;
            match now - last_activity > stale {
                true => {
                    aborts.push(upload);
                    removals.push(removal(scope, *r, size, Reason::Temp));
                }
                false => uploading += size,
            }
        }
    }
    // The quota is the prefix's: least recently used first, over every scope (the current one
    // only in restricted mode, which then sees nothing else).
    let mut held: Vec<(String, Ref, u64, f64)> = all
        .iter()
        .flat_map(|(scope, h)| {
            h.payloads.iter().filter_map(move |(r, p)| {
                let record = h.records.get(r)?;
                Some((scope.clone(), *r, p.size, record.modified))
            })
        })
        .filter(|(scope, r, ..)| !gone.contains(&(scope.clone(), *r)))
        .collect();
    held.sort_by(|a, b| a.3.total_cmp(&b.3).then(a.1.cmp(&b.1)));
    // Uploads in progress hold space too: they count, though only entries can be evicted.
    let mut usage: u64 = held.iter().map(|h| h.2).sum::<u64>() + uploading;
    for (scope, r, size, _) in &held {
        if usage <= remote.quota {
            break;
        }
        removals.push(removal(scope, *r, *size, Reason::Evicted));
        usage -= size;
    }
    // Tombstones as the local store prunes them: older than seven days, then the oldest
    // beyond the most a root keeps.
    let mut tombstones: Vec<&Listed> = all.values().flat_map(|h| &h.tombstones).collect();
    tombstones.sort_by(|a, b| a.modified.total_cmp(&b.modified).then(a.key.cmp(&b.key)));
    let excess = tombstones.len().saturating_sub(MAX_TOMBSTONES);
    let prune: Vec<&str> = tombstones
        .iter()
        .enumerate()
        .filter(|(i, t)| *i < excess || now - t.modified > TOMBSTONE_AGE.as_secs_f64())
        .map(|(_, t)| t.key.as_str())
        .collect();
    let mut failures = Vec::new();
    let mut tombstones_pruned = 0;
    if !opts.dry_run {
        // Each removal stands alone: one the store refuses (a 403 on one key) is reported and
        // the others go on; what is reported removed is what was.
        let mut failed: HashSet<(String, Option<Ref>)> = HashSet::new();
        for upload in aborts {
            if let Err(e) = client.abort(&upload.key, &upload.id) {
                let r = parse_key(&remote.scope_root(), &upload.key).map(|k| k.1);
                if let Some(r) = r {
                    failures.push(format!("could not abort the upload of {r}: {e}"));
                }
                failed.insert((upload.key.clone(), r));
            }
        }
        for key in &lone_indexes {
            if let Err(e) = client.delete(key) {
                failures.push(format!("could not remove a line index: {e}"));
            }
        }
        for removal in removals.iter().filter(|r| r.reason != Reason::Temp) {
            let r = removal.reference.expect("remote removals name a ref");
            let how = match removal.reason {
                Reason::Incomplete => "removed",
                other => other.as_str(),
            };
            if let Err(e) = remove_in(&client, remote, &removal.scope, &r, how) {
                failures.push(format!("could not remove {r}: {e}"));
                failed.insert((removal.scope.clone(), Some(r)));
            }
        }
        removals.retain(|x| {
            let key = match x.reason {
                Reason::Temp => {
                    remote.key(&x.scope, &x.reference.map(|r| r.hex()).unwrap_or_default())
                }
                _ => x.scope.clone(),
            };
            !failed.contains(&(key, x.reference))
        });
        for key in prune {
            match client.delete(key) {
                Ok(()) => tombstones_pruned += 1,
                Err(e) => failures.push(format!("could not prune a tombstone: {e}")),
            }
        }
        // The cache is collected by its own quota; what it frees is not the store's.
        let _ = store.local().gc(opts);
    }
    let freed: u64 = removals.iter().map(|r| r.size).sum();
    Ok(GcReport {
        freed,
        removals,
        usage,
        tombstones_pruned,
        failures,
    })
}

/// How old half an entry or a multipart upload must be before `gc` takes it for an
/// interrupted write rather than one in progress on another machine: an hour, or the TTL when
/// that is shorter (an entry that takes longer to write than it is meant to live is not
/// worth keeping). Seconds.
pub fn stale_after(ttl: f64) -> f64 {
    INCOMPLETE_AFTER.min(ttl)
}

fn removal(scope: &str, r: Ref, size: u64, reason: Reason) -> Removal {
    Removal {
        reference: Some(r),
        file: None,
        scope: scope.to_string(),
        size,
        reason,
    }
}
