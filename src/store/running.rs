//! Running entries: the output of a command that is still running (`wrap --detach-after`),
//! readable while it grows and sealed into an ordinary payload when the command ends.
//!
//! Layout, in the scope directory, for a running entry with id `sp_<hex16>` (a random id: the
//! content hash is not known until the end):
//!
//! ```text
//! <hex16>.live            its record (JSON, replaced whole by rename): state, the supervisor's
//!                         pid, the names of its byte files, and at the end the exit status,
//!                         the sealed ref and the final envelope
//! .tmp-<…>                the head: the first bytes of the output, appended only, up to the
//!                         head limit; locked (`flock`) by the supervisor for its whole life
//! .tmp-<…>                the rolling tail, once the head is full: a 24-byte header (three
//!                         little-endian u64: the tail bytes written so far, their line breaks,
//!                         and the end of the write in progress) and a ring of the last bytes,
//!                         written in place; locked the same way
//! ```
//!
//! The head and the ring together are the per-file cap (`--max-file`), the same split as a
//! finished payload's (head, then the last quarter of the cap, at most 1 MiB), so an endless
//! writer holds a bounded number of bytes however fast it writes. A reader copies the ring
//! between two reads of its header and keeps only the bytes the writer cannot have overwritten
//! in between (a seqlock without a lock: a writer never waits for a reader).
//!
//! The byte files are ordinary temporary files of the store: their bytes count toward the quota
//! while the command runs, and `gc` removes them once no live supervisor holds their lock. The
//! head's lock is also how a reader tells a dead supervisor from a live one: the kernel releases
//! it however the supervisor ends, so a record that says `running` whose head can be locked (or
//! is gone) was interrupted. A record is rewritten only by its supervisor, and the final record
//! (state `exited`, naming the sealed ref) is written before the lock is released, so a reader
//! that finds the lock free reads the record again before calling the entry interrupted.
//!
//! When the command ends the supervisor publishes the output as an ordinary content-addressed
//! payload, writes the final record (which from then on is an alias: opening the running id
//! opens the sealed payload), and removes the byte files. A reader therefore sees either the
//! bytes so far, labelled running (or interrupted), or the sealed payload; never a partial
//! payload presented as whole.

use std::fs::{self, File};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::os::fd::FromRawFd;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::files::{self, Found};
use super::{Ref, Store, TempPayload};
use crate::error::{Error, Result};
use crate::limits::group_digits;

/// The suffix of a running entry's record.
pub const RECORD_SUFFIX: &str = ".live";
/// The largest record read (the final envelope is bounded by `--max-inline`'s floor and a few KiB).
const MAX_RECORD: u64 = 4 << 20;

/// What a running entry's record says of the command.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum State {
    /// The supervisor is (or was, until it died: see [`Snapshot`]) running the command.
    #[default]
    Running,
    /// The command ended and its output was sealed (or could not be stored: `error`).
    Exited,
    /// The command could not be started.
    NotStarted,
}

/// A running entry's record.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Record {
    /// Running, exited or not started.
    pub state: State,
    /// The supervisor's process id.
    pub pid: u32,
    /// The command, as a shell line (for `ls` and messages).
    pub command: String,
    /// The `--label`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// When the command started, seconds since the Unix epoch.
    pub started: f64,
    /// The per-file cap the entry obeys (`--max-file`, below the quota).
    pub cap: u64,
    /// The head's file name.
    pub head: String,
    /// The rolling tail's file name, once the head is full.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tail: Option<String>,
    /// At the end: the status `wrap` reports (CMD's exit code, 128 + signal, 124 on timeout).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<i32>,
    /// At the end: how long the command ran, in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
    /// At the end: a signal (`spill stop`) ended it.
    #[serde(default)]
    pub interrupted: bool,
    /// At the end: the signal that killed CMD (not `--timeout`'s), which `wrap` ends by too.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signal: Option<i32>,
    /// At the end: the sealed payload's ref.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sealed: Option<String>,
    /// At the end: what `wrap` would have printed (the envelope, in its format).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<String>,
    /// At the end: why the output was not stored, or why the command did not start.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl Record {
    /// The sealed ref, when the record names a valid one.
    pub fn sealed_ref(&self) -> Option<Ref> {
        self.sealed.as_deref().and_then(Ref::parse)
    }
}

/// How much of its cap a running entry keeps as head: the same split as a finished payload's
/// (`wrap/policy.rs`): a quarter of the cap, at most 1 MiB, is the tail.
pub fn split(cap: u64) -> (u64, u64) {
    let keep_tail = (cap / 4).min(1 << 20);
    (cap - keep_tail, keep_tail)
}

/// The rolling tail's header: bytes written to the tail so far, their line breaks, and where the
/// write in progress ends (set before it starts, so a reader knows what it may overwrite).
const TAIL_HEADER: u64 = 24;

/// A new random id for a running entry (never a content hash: those are unknown until the end).
pub fn new_id() -> Ref {
    let mut hasher = blake3::Hasher::new();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    hasher.update(&std::process::id().to_le_bytes());
    hasher.update(&now.as_nanos().to_le_bytes());
    hasher.update(b"spill running entry");
    // Stack and heap addresses add what the clock does not.
    let local = 0u8;
    hasher.update(&(&raw const local as usize).to_le_bytes());
    Ref::from_hash(&hasher.finalize())
}

impl Store {
    fn record_path(&self, id: &Ref) -> PathBuf {
        self.scope_dir()
            .join(format!("{}{RECORD_SUFFIX}", id.hex()))
    }

    /// The record of a running entry, if `id` names one in this scope.
    pub fn running_record(&self, id: &Ref) -> Option<Record> {
        read_record(&self.record_path(id))
    }

    fn write_record(&self, id: &Ref, record: &Record) -> Result<()> {
        let bytes = serde_json::to_vec(record).expect("records serialise");
        files::replace(
            self.scope_dir(),
            &self.record_path(id),
            &bytes,
            "write the running record",
        )
    }

    /// Every running entry's id in this scope (running, interrupted or sealed aliases).
    pub fn running_ids(&self) -> Vec<Ref> {
        let Ok(rd) = fs::read_dir(self.scope_dir()) else {
            return Vec::new();
        };
        let mut ids: Vec<Ref> = rd
            .flatten()
            .filter_map(|e| {
                let name = e.file_name().into_string().ok()?;
                Ref::parse(&format!("sp_{}", name.strip_suffix(RECORD_SUFFIX)?))
            })
            .collect();
        ids.sort();
        ids
    }
}

fn read_record(path: &Path) -> Option<Record> {
    files::read_small(path, MAX_RECORD)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
}

/// The supervisor's side: appends the output to the head, then to the rolling tail.
#[derive(Debug)]
pub struct Writer {
    store: Store,
    id: Ref,
    record: Record,
    head: TempPayload,
    head_limit: u64,
    ring: u64,
    /// The rolling tail, once the head is full.
    tail: Option<TempPayload>,
    /// Bytes and line breaks written to the tail.
    tail_written: u64,
    tail_lines: u64,
}

impl Writer {
    /// Creates the head (locked) and the record saying `running`.
    pub fn create(
        store: &Store,
        id: Ref,
        cap: u64,
        command: String,
        label: Option<String>,
    ) -> Result<Writer> {
        store.prepare()?;
        let head = store.create_temp()?;
        let record = Record {
            state: State::Running,
            pid: std::process::id(),
            command,
            label,
            started: super::meta::now_secs(),
            cap,
            head: file_name(head.path()),
            ..Record::default()
        };
        store.write_record(&id, &record)?;
        let (head_limit, ring) = split(cap);
        Ok(Writer {
            store: store.clone(),
            id,
            record,
            head,
            head_limit,
            ring: ring.max(1),
            tail: None,
            tail_written: 0,
            tail_lines: 0,
        })
    }

    /// The entry's id.
    pub fn id(&self) -> Ref {
        self.id
    }

    /// Appends a chunk of the output: to the head while it has room, then into the ring.
    pub fn append(&mut self, chunk: &[u8]) -> Result<()> {
        let written = self.head.written();
        let room = self
            .head_limit
            .saturating_sub(written)
            .min(chunk.len() as u64) as usize;
        if room > 0 {
            self.head.write_unhashed(&chunk[..room])?;
        }
        let mut rest = &chunk[room..];
        if rest.is_empty() {
            return Ok(());
        }
        if self.tail.is_none() {
            let tail = self.store.create_temp()?;
            self.record.tail = Some(file_name(tail.path()));
            self.tail = Some(tail);
            self.store.write_record(&self.id, &self.record)?;
        }
        let tail = self.tail.as_ref().expect("created above");
        // Only the last `ring` bytes of a chunk can survive it.
        if rest.len() as u64 > self.ring {
            let skip = rest.len() - self.ring as usize;
            self.tail_lines += memchr::memchr_iter(b'\n', &rest[..skip]).count() as u64;
            self.tail_written += skip as u64;
            rest = &rest[skip..];
        }
        let io = |e| Error::io("write", tail.path(), e);
        let claim = self.tail_written + rest.len() as u64;
        tail.file()
            .write_all_at(&claim.to_le_bytes(), 16)
            .map_err(io)?;
        while !rest.is_empty() {
            let at = self.tail_written % self.ring;
            let n = ((self.ring - at) as usize).min(rest.len());
            tail.file()
                .write_all_at(&rest[..n], TAIL_HEADER + at)
                .map_err(io)?;
            self.tail_lines += memchr::memchr_iter(b'\n', &rest[..n]).count() as u64;
            self.tail_written += n as u64;
            rest = &rest[n..];
        }
        let mut header = [0u8; 16];
        header[..8].copy_from_slice(&self.tail_written.to_le_bytes());
        header[8..].copy_from_slice(&self.tail_lines.to_le_bytes());
        tail.file().write_all_at(&header, 0).map_err(io)?;
        Ok(())
    }

    /// Keeps this process's temporary files (the head, the ring, and the capture's own sealing
    /// copy, all named `.tmp-<pid>-…` by [`TempPayload::create`]) from looking abandoned to
    /// `gc`, which removes temporary files untouched for an hour even when locked, while the
    /// command is quiet.
    pub fn touch(&self) {
        let now = std::time::SystemTime::now();
        let prefix = format!("{}{}-", super::write::TEMP_PREFIX, std::process::id());
        let Ok(rd) = fs::read_dir(self.store.scope_dir()) else {
            return;
        };
        for item in rd.flatten() {
            if !item.file_name().to_string_lossy().starts_with(&prefix) {
                continue;
            }
            if let Ok((f, _)) =
                files::open_regular(fs::OpenOptions::new().append(true), &item.path())
            {
                let _ = f.set_modified(now);
            }
        }
    }

    /// Seals the entry: writes the final record (the alias to `sealed`, the exit status and the
    /// final output), then removes the byte files and releases the lock.
    pub fn seal(mut self, end: End) -> Result<()> {
        self.record.state = end.state;
        self.record.code = end.code;
        self.record.duration_ms = Some(end.duration_ms);
        self.record.interrupted = end.interrupted;
        self.record.signal = end.signal;
        self.record.sealed = end.sealed.map(|r| r.to_string());
        self.record.output = end.output;
        self.record.error = end.error;
        self.store.write_record(&self.id, &self.record)
        // Dropping the writer unlinks the head and the tail and releases the lock.
    }
}

/// How a running entry ended, for [`Writer::seal`].
#[derive(Debug, Default)]
pub struct End {
    /// `Exited` or `NotStarted`.
    pub state: State,
    /// The status `wrap` reports.
    pub code: Option<i32>,
    /// How long it ran.
    pub duration_ms: u64,
    /// A signal ended it.
    pub interrupted: bool,
    /// The signal that killed CMD, when one did (not `--timeout`).
    pub signal: Option<i32>,
    /// The sealed payload.
    pub sealed: Option<Ref>,
    /// The final output, as `wrap` prints it.
    pub output: Option<String>,
    /// Why it was not stored or not started.
    pub error: Option<String>,
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Where a running entry stands, as a reader sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Liveness {
    /// Its supervisor is alive.
    Running,
    /// Its supervisor died before the command ended: the bytes so far are all there will be.
    Interrupted,
}

/// The bytes so far of a running entry, as one file (the head, a marker where the rolling tail
/// cut bytes, the tail), and where they lie in the whole output.
#[derive(Debug)]
pub struct Snapshot {
    /// The entry's id.
    pub id: Ref,
    /// Running or interrupted.
    pub liveness: Liveness,
    /// The record read.
    pub record: Record,
    /// The bytes: the head file itself while nothing was cut, else a private copy.
    pub file: File,
    /// Its path (the head's; a copy has none worth showing).
    pub path: PathBuf,
    /// The bytes of the whole output so far: also the cursor that reads on from here.
    pub total: u64,
    /// Lines of the whole output so far.
    pub lines: u64,
    /// Bytes of the head in the snapshot.
    pub head_len: u64,
    /// Bytes cut between the head and the tail (0 when nothing was cut).
    pub dropped: u64,
    /// The marker's length in the snapshot (0 when nothing was cut).
    pub marker_len: u64,
    /// Bytes on disk now.
    pub disk: u64,
}

impl Snapshot {
    /// The snapshot's length in bytes.
    pub fn len(&self) -> u64 {
        self.total - self.dropped + self.marker_len
    }

    /// True when nothing has been written yet.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Where offset `at` of the whole output lies in the snapshot: `(offset, skipped)`, with
    /// `skipped` the bytes between `at` and the first byte still kept (cut by the rolling tail).
    pub fn locate(&self, at: u64) -> (u64, u64) {
        let at = at.min(self.total);
        if at <= self.head_len || self.dropped == 0 {
            return (at.min(self.len()), 0);
        }
        let tail_start = self.head_len + self.dropped;
        if at < tail_start {
            return (self.head_len + self.marker_len, tail_start - at);
        }
        (at - self.dropped + self.marker_len, 0)
    }
}

/// What opening an id found.
#[derive(Debug)]
pub enum Opened {
    /// A running (or interrupted) entry's bytes so far.
    Live(Box<Snapshot>),
    /// A sealed entry: read its payload under this ref.
    Sealed(Ref, Record),
    /// Ended without a payload: why (not started, not stored).
    Ended(Record),
}

/// Opens a running entry's record and bytes. `None` when `id` names no running entry.
pub fn open(store: &Store, id: &Ref) -> Result<Option<Opened>> {
    let path = store.record_path(id);
    // A few rounds: the supervisor may replace a segment or seal between our reads.
    for _ in 0..64 {
        let Some(record) = read_record(&path) else {
            return Ok(None);
        };
        match record.state {
            State::Exited if record.sealed_ref().is_some() => {
                return Ok(Some(Opened::Sealed(
                    record.sealed_ref().expect("checked"),
                    record,
                )));
            }
            State::Exited | State::NotStarted => return Ok(Some(Opened::Ended(record))),
            State::Running => {}
        }
        match snapshot(store, id, record)? {
            Some(s) => return Ok(Some(Opened::Live(Box::new(s)))),
            None => continue,
        }
    }
    Err(Error::Store(format!(
        "{id} is changing too fast to be read; try again"
    )))
}

/// Reads a running record's bytes; `None` when they moved under us (read the record again).
fn snapshot(store: &Store, id: &Ref, record: Record) -> Result<Option<Snapshot>> {
    let dir = store.scope_dir();
    let head_path = dir.join(&record.head);
    let head = match files::open_read(&head_path) {
        Ok(f) => Some(f),
        Err(e) if e.kind() == io::ErrorKind::NotFound => None,
        Err(e) => return Err(Error::io("open", &head_path, e)),
    };
    let alive = match &head {
        Some(f) => !files::try_lock(f).map_err(|e| Error::io("lock", &head_path, e))?,
        None => false,
    };
    if !alive {
        // The final record is written before the lock is released: look again.
        match read_record(&store.record_path(id)) {
            Some(again) if again.state != State::Running => return Ok(None),
            _ => {}
        }
    }
    let liveness = match alive {
        true => Liveness::Running,
        false => Liveness::Interrupted,
    };
    let Some(head) = head else {
        // Interrupted and cleaned up: nothing left to read.
        return Ok(Some(Snapshot {
            id: *id,
            liveness,
            total: 0,
            lines: 0,
            head_len: 0,
            dropped: 0,
            marker_len: 0,
            disk: 0,
            file: empty_file()?,
            path: head_path,
            record,
        }));
    };
    let len = |f: &File| f.metadata().map(|m| m.len()).unwrap_or(0);
    let head_len = len(&head);
    let tail = match &record.tail {
        None => None,
        Some(name) => match files::open_read(&dir.join(name)) {
            Ok(f) => Some(f),
            Err(e) if e.kind() == io::ErrorKind::NotFound => None,
            Err(e) => return Err(Error::io("open", dir.join(name), e)),
        },
    };
    let head_lines = count_lines(&head, head_len)?;
    let Some(tail) = tail else {
        return Ok(Some(Snapshot {
            id: *id,
            liveness,
            total: head_len,
            lines: head_lines,
            head_len,
            dropped: 0,
            marker_len: 0,
            disk: head_len,
            file: head,
            path: head_path,
            record,
        }));
    };
    let ring = split(record.cap).1.max(1);
    let disk = head_len + len(&tail);
    // The ring between two reads of its header: bytes the writer may have overwritten in
    // between are left out. A writer far faster than the copy is retried a few times.
    let mut buf = vec![0u8; ring as usize];
    let mut got = None;
    for _ in 0..16 {
        let (w0, lines, _) = tail_header(&tail)?;
        let n = tail
            .read_at(&mut buf, TAIL_HEADER)
            .map_err(|e| Error::stream("read the running output", e))?;
        // Whatever the writer claimed by now may have overwritten the oldest bytes read.
        let (_, _, claimed) = tail_header(&tail)?;
        let lo = claimed.saturating_sub(ring);
        if lo < w0 || w0 == 0 {
            got = Some((lo.min(w0), w0, lines, n));
            break;
        }
    }
    let (lo, w0, tail_lines, n) = got.unwrap_or((0, 0, 0, 0));
    let mut kept = Vec::with_capacity((w0 - lo) as usize);
    let mut at = lo;
    while at < w0 {
        let i = (at % ring) as usize;
        let m = ((ring - at % ring).min(w0 - at)) as usize;
        kept.extend_from_slice(&buf[i..(i + m).min(n.max(i))]);
        at += m as u64;
    }
    let total = head_len + w0;
    let dropped = lo;
    let marker = match dropped {
        0 => String::new(),
        _ => format!(
            "\n[spill: {} bytes dropped here by --max-file so far; the output is {} bytes so far]\n",
            group_digits(dropped),
            group_digits(total)
        ),
    };
    let mut copy = empty_file()?;
    copy_prefix(&head, head_len, &mut copy)?;
    copy.write_all(marker.as_bytes())
        .and_then(|()| copy.write_all(&kept))
        .map_err(|e| Error::stream("copy the running output", e))?;
    Ok(Some(Snapshot {
        id: *id,
        liveness,
        total,
        lines: head_lines + tail_lines,
        head_len,
        dropped,
        marker_len: marker.len() as u64,
        disk,
        file: copy,
        path: head_path,
        record,
    }))
}

/// The rolling tail's header: (bytes written to it, their line breaks, the end of the write in
/// progress), read until two reads agree (the writer rewrites it around every chunk).
fn tail_header(tail: &File) -> Result<(u64, u64, u64)> {
    let mut last = None;
    for _ in 0..16 {
        let mut h = [0u8; TAIL_HEADER as usize];
        let n = tail
            .read_at(&mut h, 0)
            .map_err(|e| Error::stream("read the running output", e))?;
        if n < h.len() {
            return Ok((0, 0, 0));
        }
        let word = |i: usize| u64::from_le_bytes(h[i..i + 8].try_into().expect("8 bytes"));
        let now = (word(0), word(8), word(16).max(word(0)));
        if last == Some(now) {
            return Ok(now);
        }
        last = Some(now);
    }
    Ok(last.unwrap_or((0, 0, 0)))
}

/// Newline bytes in the first `n` bytes of `file` (read, not mapped: the file grows).
fn count_lines(file: &File, n: u64) -> Result<u64> {
    let mut count = 0u64;
    let mut buf = vec![0u8; 1 << 16];
    let mut f = file;
    f.seek(SeekFrom::Start(0))
        .map_err(|e| Error::stream("read the running output", e))?;
    let mut reader = f.take(n);
    loop {
        let got = reader
            .read(&mut buf)
            .map_err(|e| Error::stream("read the running output", e))?;
        if got == 0 {
            break;
        }
        count += memchr::memchr_iter(b'\n', &buf[..got]).count() as u64;
    }
    Ok(count)
}

/// Appends the first `n` bytes of `from` to `to`.
fn copy_prefix(from: &File, n: u64, to: &mut File) -> Result<()> {
    let mut f = from;
    f.seek(SeekFrom::Start(0))
        .map_err(|e| Error::stream("read the running output", e))?;
    io::copy(&mut from.take(n), to).map_err(|e| Error::stream("copy the running output", e))?;
    Ok(())
}

/// A private, unlinked, memory-backed file for a snapshot's copy.
fn empty_file() -> Result<File> {
    // SAFETY: memfd_create with a valid NUL-terminated name; the descriptor is ours.
    let fd = unsafe { libc::memfd_create(c"spill-running".as_ptr(), libc::MFD_CLOEXEC) };
    if fd < 0 {
        return Err(Error::stream(
            "make a copy of the running output",
            io::Error::last_os_error(),
        ));
    }
    // SAFETY: a fresh descriptor owned by nothing else.
    Ok(unsafe { File::from_raw_fd(fd) })
}

/// For `gc` (under the root lock): removes the records of running entries whose supervisor is
/// gone, with their byte files (leaving a tombstone: reading the id says it was removed), and
/// aliases whose sealed payload is gone. Returns the names and bytes removed.
pub(super) fn sweep(dir: &Path, dry_run: bool) -> Vec<(String, u64)> {
    let mut out = Vec::new();
    let Ok(rd) = fs::read_dir(dir) else {
        return out;
    };
    for item in rd.flatten() {
        let name = item.file_name().to_string_lossy().into_owned();
        let Some(hex) = name.strip_suffix(RECORD_SUFFIX) else {
            continue;
        };
        if Ref::parse(&format!("sp_{hex}")).is_none() {
            continue;
        }
        let path = item.path();
        let Some(record) = read_record(&path) else {
            if !dry_run {
                let _ = fs::remove_file(&path);
            }
            out.push((name, 0));
            continue;
        };
        let remove = match record.state {
            State::Running => {
                let head = dir.join(&record.head);
                match files::open_read(&head) {
                    Ok(f) => matches!(files::try_lock(&f), Ok(true)),
                    Err(_) => true,
                }
            }
            State::Exited => record
                .sealed_ref()
                .is_none_or(|r| !matches!(files::look(&dir.join(r.hex())), Found::File(_))),
            State::NotStarted => true,
        };
        if !remove {
            continue;
        }
        let mut size = 0;
        if record.state == State::Running {
            let names = std::iter::once(record.head.clone()).chain(record.tail.clone());
            for n in names {
                let p = dir.join(&n);
                if let Found::File(m) = files::look(&p) {
                    size += m.len();
                    if !dry_run {
                        let _ = fs::remove_file(&p);
                    }
                }
            }
        }
        if !dry_run {
            // An interrupted entry's id was handed out: say it went, as for a removed entry.
            if record.state == State::Running {
                let _ = files::replace(
                    dir,
                    &dir.join(format!("{hex}.gone")),
                    b"removed (interrupted)\n",
                    "write tombstone",
                );
            }
            let _ = fs::remove_file(&path);
        }
        out.push((name, size));
    }
    out.sort();
    out
}

/// What the last running entry opened by [`Store::open`] in this process looked like: the
/// reading commands say it after their answer (still running, how far it has grown, the cursor
/// reading on). One per process: the command line opens one source per call.
static SEEN: std::sync::Mutex<Option<Seen>> = std::sync::Mutex::new(None);

/// A running entry as a reader saw it (see [`take_seen`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Seen {
    /// Its id.
    pub id: Ref,
    /// Running or interrupted.
    pub liveness: Liveness,
    /// Bytes of the whole output when it was read: the cursor reading on.
    pub total: u64,
    /// Lines so far.
    pub lines: u64,
    /// Bytes cut by the rolling tail so far.
    pub dropped: u64,
    /// Bytes on disk.
    pub disk: u64,
}

impl Seen {
    /// One sentence saying where the entry stands and the commands that go on from here.
    pub fn sentence(&self) -> String {
        let g = group_digits;
        let id = self.id;
        let cut = match self.dropped {
            0 => String::new(),
            d => format!(", {} cut by --max-file", g(d)),
        };
        let lines = match self.lines {
            1 => "1 line".to_string(),
            n => format!("{} lines", g(n)),
        };
        match self.liveness {
            Liveness::Running => format!(
                "{id} is still running: {} bytes, {lines} so far{cut} (cursor {}); new output: \
                 spill cat {id} --since {}; the end: spill wait {id}; stop it: spill stop {id}",
                g(self.total),
                self.total,
                self.total
            ),
            Liveness::Interrupted => format!(
                "{id} was interrupted: its supervisor died before the command ended, so these \
                 {} bytes ({lines}{cut}) are all there is; `spill gc` removes it",
                g(self.total),
            ),
        }
    }
}

/// The running entry the last [`Store::open`] of this process served, if any (taken: a second
/// call returns `None`).
pub fn take_seen() -> Option<Seen> {
    SEEN.lock().unwrap_or_else(|e| e.into_inner()).take()
}

impl Snapshot {
    /// What a reader says of it.
    pub fn seen(&self) -> Seen {
        Seen {
            id: self.id,
            liveness: self.liveness,
            total: self.total,
            lines: self.lines,
            dropped: self.dropped,
            disk: self.disk,
        }
    }
}

impl Store {
    /// For [`Store::open`]: a running id's bytes so far (remembered for [`take_seen`]), or its
    /// sealed payload. `None` when `r` names no running entry.
    pub(super) fn open_running(&self, r: &Ref) -> Result<Option<(File, PathBuf)>> {
        match open(self, r)? {
            None => Ok(None),
            Some(Opened::Sealed(target, _)) if target != *r => self.open(&target).map(Some),
            Some(Opened::Sealed(..)) => Ok(None),
            Some(Opened::Ended(record)) => Err(Error::Store(format!(
                "{r} ended without a stored output: {}",
                record.error.as_deref().unwrap_or("nothing was kept")
            ))),
            Some(Opened::Live(snap)) => {
                *SEEN.lock().unwrap_or_else(|e| e.into_inner()) = Some(snap.seen());
                // While nothing was cut this is the head itself, which may have grown since:
                // the cursor said is then at most what was read (a reader polling with it sees
                // those bytes twice, never misses one).
                let file = snap.file;
                Ok(Some((file, snap.path)))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::StoreConfig;

    fn store() -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().unwrap();
        let s = Store::new(StoreConfig::new(dir.path().join("s"), "default".into()));
        (dir, s)
    }

    fn read_all(s: &Snapshot) -> Vec<u8> {
        let mut f = &s.file;
        f.seek(SeekFrom::Start(0)).unwrap();
        let mut v = Vec::new();
        f.read_to_end(&mut v).unwrap();
        v.truncate(s.len() as usize);
        v
    }

    #[test]
    fn a_running_entry_reads_its_bytes_so_far_and_cuts_past_its_cap() {
        let (_d, s) = store();
        let id = new_id();
        // cap 1000: head 750, a ring of 250.
        let mut w = Writer::create(&s, id, 1000, "yes".into(), None).unwrap();
        w.append(b"line 1\nline 2\n").unwrap();
        let Some(Opened::Live(snap)) = open(&s, &id).unwrap() else {
            panic!("running");
        };
        assert_eq!(snap.liveness, Liveness::Running);
        assert_eq!(read_all(&snap), b"line 1\nline 2\n");
        assert_eq!((snap.total, snap.lines, snap.dropped), (14, 2, 0));
        let input: Vec<u8> = (0..5000u32).map(|i| b'a' + (i % 26) as u8).collect();
        for c in input.chunks(333) {
            w.append(c).unwrap();
        }
        let Some(Opened::Live(snap)) = open(&s, &id).unwrap() else {
            panic!("running");
        };
        let all: Vec<u8> = [&b"line 1\nline 2\n"[..], &input].concat();
        let bytes = read_all(&snap);
        assert_eq!(snap.total, all.len() as u64);
        assert_eq!(&bytes[..750], &all[..750]);
        let tail_len = (snap.total - snap.head_len - snap.dropped) as usize;
        assert_eq!(tail_len, 250);
        assert_eq!(
            &bytes[bytes.len() - tail_len..],
            &all[all.len() - tail_len..]
        );
        assert_eq!(snap.disk, 1000 + TAIL_HEADER);
        // A cursor in the cut part reads on from the first byte kept.
        let (at, skipped) = snap.locate(800);
        assert_eq!(at, 750 + snap.marker_len);
        assert_eq!(skipped, snap.head_len + snap.dropped - 800);
        assert_eq!(snap.locate(snap.total).0, snap.len());
        // Sealing makes the id an alias; the byte files go.
        let head = s.scope_dir().join(&snap.record.head);
        w.seal(End {
            state: State::Exited,
            code: Some(0),
            sealed: Some(Ref::parse("sp_0123456789abcdef").unwrap()),
            ..End::default()
        })
        .unwrap();
        assert!(!head.exists());
        assert!(
            matches!(open(&s, &id).unwrap(), Some(Opened::Sealed(r, _)) if r.hex() == "0123456789abcdef")
        );
        assert!(
            open(&s, &Ref::parse("sp_0000000000000001").unwrap())
                .unwrap()
                .is_none()
        );
    }

    #[test]
    fn the_heartbeat_keeps_this_process_temporary_files_fresh() {
        let (_d, s) = store();
        let w = Writer::create(&s, new_id(), 1 << 20, "sleep".into(), None).unwrap();
        let sealing = s.create_temp().unwrap();
        let other = s.scope_dir().join(".tmp-1-0-00000000");
        fs::write(&other, b"someone else's").unwrap();
        let old = std::time::SystemTime::now() - std::time::Duration::from_secs(7200);
        let head = s.scope_dir().join(&s.running_record(&w.id()).unwrap().head);
        for p in [&head, &sealing.path().to_path_buf(), &other] {
            File::options()
                .append(true)
                .open(p)
                .unwrap()
                .set_modified(old)
                .unwrap();
        }
        w.touch();
        let age = |p: &Path| {
            fs::metadata(p)
                .unwrap()
                .modified()
                .unwrap()
                .elapsed()
                .unwrap()
        };
        assert!(age(&head).as_secs() < 60);
        assert!(age(sealing.path()).as_secs() < 60);
        assert!(age(&other).as_secs() > 3600);
    }
}
