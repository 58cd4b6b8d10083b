//! `spill cat SOURCE --since CURSOR` (and `spill wait` at its timeout): only the output that is
//! new since a cursor an earlier answer gave, so polling a running command costs only its new
//! bytes.
//!
//! A cursor is a byte offset in the whole output. On a running entry it is the bytes so far
//! when it was given; on a stored payload or a file, a byte offset. The page is the stored
//! bytes from the cursor on (as `--raw` prints them), at most `max_bytes`, ending at the last
//! line break in it when it is cut there and a line break exists; the footer says how far the
//! output has grown, whether the command is still running, and the cursor to read on from.
//! Bytes a running entry's rolling tail (`--max-file`) dropped before they were read are
//! skipped, and the footer says how many.

use std::io::Write;

use crate::error::{Error, Result};
use crate::limits::group_digits;
use crate::store::running::{self, Liveness, Opened, Record, Snapshot, State};
use crate::store::{Ref, Store, StoreConfig};

use super::{Outcome, Report, write_all};

/// Where the source stands, for the footer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Standing {
    /// A running entry, still running.
    Running,
    /// A running entry whose supervisor died before the command ended.
    Interrupted,
    /// A sealed running entry: the command ended with this status.
    Exited(Option<i32>),
    /// An ordinary stored output or a file: complete.
    Complete,
}

/// What a page found.
#[derive(Debug)]
pub struct Page {
    /// The report (the footer names the next cursor).
    pub report: Report,
    /// The cursor reading on from the end of this page.
    pub next: u64,
    /// Where the source stands.
    pub standing: Standing,
    /// Bytes of the whole output (so far, while it runs).
    pub total: u64,
    /// Lines of the whole output (so far), when known (0 for a file).
    pub lines: u64,
    /// Bytes between the cursor and the page that `--max-file` cut before they were read.
    pub skipped: u64,
}

/// The most a poll's page holds: [`crate::limits::CAT_BYTES`] (16 KiB), less with a smaller
/// `max_bytes`; 0 asks for the most. `cat --since` and MCP's `cat` with `since` use it.
pub fn poll_bound(max_bytes: u64) -> u64 {
    match max_bytes {
        0 => crate::limits::CAT_BYTES,
        m => m.min(crate::limits::CAT_BYTES),
    }
}

/// Prints the output of `source` from `cursor` on, at most `max_bytes` (0: no limit); the
/// footer's next command is `spill COMMAND SOURCE --since NEXT` (`cat`, or `wait`).
pub fn run(
    config: &StoreConfig,
    source: &str,
    cursor: u64,
    max_bytes: u64,
    command: &str,
    out: &mut dyn Write,
) -> Result<Page> {
    let store = Store::new(config.clone());
    if let Some(id) = Ref::parse(source) {
        match running::open(&store, &id)? {
            Some(Opened::Live(snap)) => return live_page(&snap, cursor, max_bytes, command, out),
            Some(Opened::Sealed(target, record)) => {
                return sealed_page(config, &target, &record, cursor, max_bytes, command, out);
            }
            Some(Opened::Ended(record)) => {
                return Err(Error::Store(format!(
                    "{id} ended without a stored output: {}",
                    record.error.as_deref().unwrap_or("nothing was kept")
                )));
            }
            None => {}
        }
    }
    let input = crate::source::open(source, config)?;
    let total = input.len() as u64;
    let page = write_page(&input, cursor.min(total), max_bytes, out)?;
    input.check_unchanged()?;
    let name = input
        .reference
        .map_or_else(|| source.to_string(), |r| r.to_string());
    Ok(finish(
        &name,
        command,
        cursor,
        page,
        total,
        total,
        0,
        Standing::Complete,
    ))
}

/// A page of a running entry's bytes so far.
fn live_page(
    snap: &Snapshot,
    cursor: u64,
    max_bytes: u64,
    command: &str,
    out: &mut dyn Write,
) -> Result<Page> {
    // SAFETY: the snapshot is a private copy or the head, which is appended to and unlinked but
    // never truncated while this map lives; only its first `len` bytes are read.
    let map = unsafe { memmap2::Mmap::map(&snap.file) }
        .map_err(|e| Error::stream("read the running output", e))?;
    let bytes = &map[..(snap.len() as usize).min(map.len())];
    let (at, skipped) = snap.locate(cursor);
    let page = write_page(bytes, at, max_bytes, out)?;
    // Back from the snapshot's offsets to the whole output's.
    let end = if snap.dropped > 0 && page.1 > snap.head_len {
        page.1 - snap.marker_len + snap.dropped
    } else {
        page.1
    };
    let standing = match snap.liveness {
        Liveness::Running => Standing::Running,
        Liveness::Interrupted => Standing::Interrupted,
    };
    let start = cursor.min(snap.total) + skipped;
    Ok(finish(
        &snap.id.to_string(),
        command,
        start,
        (page.0, end),
        snap.total,
        snap.lines,
        skipped,
        standing,
    ))
}

/// A page of a sealed running entry: its payload, whose offsets are the whole output's unless
/// `--max-file` cut it (then the cut part reads as the marker, skipped).
fn sealed_page(
    config: &StoreConfig,
    target: &Ref,
    record: &Record,
    cursor: u64,
    max_bytes: u64,
    command: &str,
    out: &mut dyn Write,
) -> Result<Page> {
    let input = crate::source::open(&target.to_string(), config)?;
    let meta = Store::new(config.clone()).meta(target);
    let stored = input.len() as u64;
    let total = meta.as_ref().map_or(stored, |m| m.size_bytes.max(stored));
    let lines = meta.as_ref().map_or(0, |m| m.lines);
    let (head_limit, keep_tail) = running::split(record.cap);
    // Whole-output offset → stored offset.
    let (at, skipped) = if total == stored || cursor <= head_limit {
        (cursor.min(stored), 0)
    } else if cursor < total - keep_tail {
        (stored - keep_tail, total - keep_tail - cursor)
    } else {
        (stored - (total - cursor.min(total)), 0)
    };
    let page = write_page(&input, at, max_bytes, out)?;
    let end = if total == stored || page.1 <= head_limit {
        page.1
    } else {
        total - (stored - page.1)
    };
    input.check_unchanged()?;
    let id = target.to_string();
    let start = cursor.min(total) + skipped;
    let standing = match record.state {
        State::Running => Standing::Running,
        _ => Standing::Exited(record.code),
    };
    Ok(finish(
        &id,
        command,
        start,
        (page.0, end),
        total,
        lines,
        skipped,
        standing,
    ))
}

/// Writes `bytes[at..]`, at most `max_bytes` of it, cut back to its last line break when cut;
/// returns (bytes written, offset just past them).
fn write_page(bytes: &[u8], at: u64, max_bytes: u64, out: &mut dyn Write) -> Result<(u64, u64)> {
    let at = (at as usize).min(bytes.len());
    let rest = &bytes[at..];
    let mut n = match max_bytes {
        0 => rest.len(),
        m => rest.len().min(m as usize),
    };
    if n < rest.len()
        && let Some(nl) = memchr::memrchr(b'\n', &rest[..n])
    {
        n = nl + 1;
    }
    write_all(out, &rest[..n])?;
    Ok((n as u64, (at + n) as u64))
}

/// The report: `bytes A–B of N so far · running · cursor B · next: spill cat ID --since B`.
#[allow(clippy::too_many_arguments)]
fn finish(
    name: &str,
    command: &str,
    start: u64,
    (written, end): (u64, u64),
    total: u64,
    lines: u64,
    skipped: u64,
    standing: Standing,
) -> Page {
    let g = group_digits;
    let range = match written {
        0 => "nothing new".to_string(),
        _ => format!("bytes {}–{}", start, end),
    };
    let cut = match skipped {
        0 => String::new(),
        s => format!(" · {} bytes before these were cut by --max-file", g(s)),
    };
    let state = match &standing {
        Standing::Running => format!(
            "of {} so far ({} lines) · still running",
            g(total),
            g(lines)
        ),
        Standing::Interrupted => format!(
            "of {} ({} lines) · interrupted: the supervisor died before the command ended",
            g(total),
            g(lines)
        ),
        Standing::Exited(Some(code)) => {
            format!(
                "of {} ({} lines) · exited with status {code}",
                g(total),
                g(lines)
            )
        }
        Standing::Exited(None) => format!("of {} ({} lines) · ended", g(total), g(lines)),
        Standing::Complete => format!("of {}", g(total)),
    };
    let more = end < total || standing == Standing::Running;
    let next = match more {
        true => format!(" · next: spill {command} {name} --since {end}"),
        false => " · the end".to_string(),
    };
    let mut report = Report::new(Outcome::Found);
    report.footer = Some(format!("{range} {state}{cut} · cursor {end}{next}"));
    Page {
        report,
        next: end,
        standing,
        total,
        lines,
        skipped,
    }
}

impl Page {
    /// Where a running entry's id stands after this page (`None` for any other source).
    pub fn status(&self, source: &str) -> Option<Status> {
        let id = Ref::parse(source)?;
        (self.standing != Standing::Complete).then(|| Status {
            id,
            standing: self.standing.clone(),
            total: self.total,
            lines: self.lines,
            dropped: self.skipped,
            cursor: self.next,
        })
    }
}

/// Where a running entry (the id `wrap --detach-after` gave) stands, as an answer on its ref
/// says it: running, interrupted or exited, how far the output has grown, the cursor reading on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Status {
    /// The running entry's id.
    pub id: Ref,
    /// Running, interrupted, or exited with its status ([`Standing::Complete`] never).
    pub standing: Standing,
    /// Bytes of the whole output (so far).
    pub total: u64,
    /// Lines of the whole output (so far).
    pub lines: u64,
    /// Bytes `--max-file` cut (so far; on a page, those between its cursor and the page).
    pub dropped: u64,
    /// The cursor that reads on: the bytes this answer saw.
    pub cursor: u64,
}

impl Status {
    /// One sentence: where it stands and the commands that go on from here (the note the
    /// command line writes after a reading command's answer on a running entry).
    pub fn sentence(&self) -> String {
        let liveness = match self.standing {
            Standing::Running => Liveness::Running,
            Standing::Interrupted => Liveness::Interrupted,
            Standing::Exited(_) | Standing::Complete => {
                let code = match self.standing {
                    Standing::Exited(code) => code,
                    _ => None,
                };
                let how = code.map_or_else(
                    || "ended".to_string(),
                    |c| format!("exited with status {c}"),
                );
                let lines = match self.lines {
                    1 => "1 line".to_string(),
                    n => format!("{} lines", group_digits(n)),
                };
                return format!(
                    "{} has ended: {how}; its output ({} bytes, {lines}) is stored whole",
                    self.id,
                    group_digits(self.total)
                );
            }
        };
        running::Seen {
            id: self.id,
            liveness,
            total: self.total,
            lines: self.lines,
            dropped: self.dropped,
            disk: 0,
        }
        .sentence()
    }
}

/// Where `source` stands when it is a running entry's id, else `None`. `seen` is what the
/// reading command just served ([`running::take_seen`]): a live entry's status is that, so the
/// cursor is the bytes the answer saw, not those written since.
pub fn status(
    config: &StoreConfig,
    source: &str,
    seen: Option<running::Seen>,
) -> Result<Option<Status>> {
    let Some(id) = Ref::parse(source) else {
        return Ok(None);
    };
    let from_seen = |s: running::Seen| Status {
        id,
        standing: match s.liveness {
            Liveness::Running => Standing::Running,
            Liveness::Interrupted => Standing::Interrupted,
        },
        total: s.total,
        lines: s.lines,
        dropped: s.dropped,
        cursor: s.total,
    };
    if let Some(s) = seen.filter(|s| s.id == id) {
        return Ok(Some(from_seen(s)));
    }
    let store = Store::new(config.clone());
    Ok(match running::open(&store, &id)? {
        None => None,
        Some(Opened::Live(snap)) => Some(from_seen(snap.seen())),
        Some(Opened::Sealed(target, record)) => {
            let meta = store.meta(&target);
            let total = meta.as_ref().map_or(0, |m| m.size_bytes);
            Some(Status {
                id,
                standing: Standing::Exited(record.code),
                total,
                lines: meta.as_ref().map_or(0, |m| m.lines),
                dropped: meta
                    .as_ref()
                    .map_or(0, |m| m.size_bytes - m.stored_bytes.min(m.size_bytes)),
                cursor: total,
            })
        }
        Some(Opened::Ended(record)) => Some(Status {
            id,
            standing: Standing::Exited(record.code),
            total: 0,
            lines: 0,
            dropped: 0,
            cursor: 0,
        }),
    })
}
