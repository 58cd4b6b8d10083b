//! Ranged reads of a remote payload, for `cat` (ARCHITECTURE.md "The object store"): what it
//! prints is fetched with HTTP `Range` GETs instead of downloading the payload into the cache.
//!
//! A line window (`--lines A:B`, the default page) needs to know where line `A` starts. `wrap`
//! stores a small line index beside each payload over [`RANGED_FROM`] bytes
//! (`PREFIX/<scope>/<hex16>.lines`, JSON): the line start at or after every [`BLOCK`]-byte
//! boundary with its line number, so any line starts less than [`BLOCK`] bytes after an
//! indexed one, plus what `cat` decides from the whole payload (its line count, whether it
//! looks binary, whether it holds escape sequences or `\r` frames). A read then fetches from
//! the indexed line start before `A` in chunks ([`FIRST_CHUNK`] doubling to [`MAX_CHUNK`])
//! until the request has what it needs, so it moves what is printed plus less than
//! [`BLOCK`] + [`MAX_CHUNK`] bytes, whatever the payload's size.

use std::io::Read;

use serde::{Deserialize, Serialize};

use super::RemoteConfig;
use super::client::Client;
use super::sync;
use crate::error::{Error, Result};
use crate::store::{Ref, Store};

/// Payloads up to this size are downloaded whole into the cache on a first read (one
/// request, and later reads are local); larger ones get a line index and ranged reads.
pub const RANGED_FROM: u64 = 1 << 20;

/// The spacing of the line index's entries.
pub const BLOCK: u64 = 64 << 10;

/// The first ranged GET of a read; each next one is twice as large, up to [`MAX_CHUNK`].
pub const FIRST_CHUNK: u64 = 64 << 10;

/// The largest ranged GET.
pub const MAX_CHUNK: u64 = 1 << 20;

/// The most a ranged read holds in memory: a request whose window could be larger
/// (`cat --max-bytes` over this, or 0) reads through the cache instead.
pub const MAX_WINDOW: u64 = 16 << 20;

/// The line index of a payload, stored as `<hex16>.lines`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct LineIndex {
    /// The payload's full BLAKE3 hash (hex): the index is used only beside the record that
    /// names the same hash, so another entry's index copied onto a ref's key is never read as
    /// its own. An index without it (written before it was added) is not used.
    #[serde(default)]
    pub hash: String,
    /// The stored bytes.
    pub size: u64,
    /// Their line count (a last line without `\n` counts).
    pub lines: u64,
    /// They look binary (`text::is_binary`): `cat` at a terminal dumps them as hex.
    pub binary: bool,
    /// They hold escape sequences or bare `\r` (`text::clean::needs_cleaning`): `cat` shows
    /// the cleaned view, whose offsets are not the stored bytes'.
    pub dirty: bool,
    /// `[offset, line]` of the first line start at or after each [`BLOCK`] boundary (each
    /// once), from `[0, 1]`.
    pub starts: Vec<[u64; 2]>,
}

impl LineIndex {
    /// Indexes stored bytes whose BLAKE3 hash is `hash` (one `memchr` pass for the line
    /// starts, one for cleaning).
    pub fn build(data: &[u8], hash: &str) -> LineIndex {
        let mut starts = vec![[0, 1]];
        let mut line = 1u64;
        let mut boundary = BLOCK;
        let size = data.len() as u64;
        for nl in memchr::memchr_iter(b'\n', data) {
            line += 1;
            let start = nl as u64 + 1;
            if start >= boundary && start < size {
                starts.push([start, line]);
                boundary = (start / BLOCK + 1) * BLOCK;
            }
        }
        LineIndex {
            hash: hash.to_string(),
            size,
            lines: crate::text::count_lines(data),
            binary: crate::text::is_binary(data),
            dirty: crate::text::clean::needs_cleaning(data),
            starts,
        }
    }

    /// The indexed line start at or before the start of 1-based line `n`: `(offset, line)`.
    pub fn start_before(&self, n: u64) -> (u64, u64) {
        let i = self.starts.partition_point(|s| s[1] <= n.max(1));
        let [offset, line] = self.starts[i.saturating_sub(1)];
        (offset, line)
    }
}

/// A remote payload read by ranges.
pub struct Ranged {
    client: Client,
    key: String,
    record: crate::store::Meta,
    index: LineIndex,
    reference: Ref,
}

/// How a payload is read: by ranges, or from the cache (which now holds it).
pub enum Opened {
    /// Ranged reads, with the payload's line index.
    Ranged(Box<Ranged>),
    /// The cache holds the payload: read it as a local entry.
    Cached,
}

/// Opens `r` for ranged reading. The record is checked as for any read (existence, TTL,
/// last access); a payload the cache already holds, one of at most [`RANGED_FROM`] bytes, or
/// one stored without a line index is downloaded into the cache (if needed) and read there.
pub fn open(store: &Store, remote: &RemoteConfig, r: &Ref) -> Result<Opened> {
    let Some((client, record)) = sync::check_record(store, remote, r)? else {
        return Ok(Opened::Cached);
    };
    let scope = &store.config().scope;
    let hex = r.hex().to_string();
    let index = match record.stored_bytes > RANGED_FROM {
        true => client
            .get(&remote.key(scope, &format!("{hex}.lines")))?
            .map(|reply| reply.text(crate::store::meta::MAX_RECORD))
            .transpose()?
            .and_then(|text| serde_json::from_str::<LineIndex>(&text).ok())
            .filter(|index| index.size == record.stored_bytes && index.hash == record.hash),
        false => None,
    };
    let Some(index) = index else {
        sync::download(&client, remote, &store.local(), r, &record)?;
        return Ok(Opened::Cached);
    };
    Ok(Opened::Ranged(Box::new(Ranged {
        key: remote.key(scope, &hex),
        record,
        client,
        index,
        reference: *r,
    })))
}

impl Ranged {
    /// The payload's line index.
    pub fn index(&self) -> &LineIndex {
        &self.index
    }

    /// Reads from `offset` in ranged GETs until `enough` (given each chunk in order) says so,
    /// the payload ends, or `end` (an offset the request never needs to read past) is reached.
    /// Each reply must carry the record's hash in the object's metadata (`x-amz-meta-blake3`),
    /// the payload's size, and exactly the range asked for (`Content-Range`, checked by
    /// [`Client::get_range`]); the record and the index were tied to the ref and to each other
    /// by that hash when opened ([`open`]).
    pub fn read(
        &self,
        offset: u64,
        end: u64,
        mut enough: impl FnMut(&[u8]) -> bool,
    ) -> Result<Vec<u8>> {
        let total = self.index.size.min(end);
        let r = self.reference;
        let mut out = Vec::new();
        let mut at = offset.min(total);
        let mut chunk = FIRST_CHUNK;
        while at < total {
            let to = at.saturating_add(chunk).min(total);
            let Some(reply) = self.client.get_range(&self.key, at, to)? else {
                return Err(Error::Store(format!(
                    "{r} is incomplete in the object store: its record has no payload; `spill gc` removes it"
                )));
            };
            // A range cannot be hashed: the object must at least be the one spill wrote,
            // which carries the record's hash in its metadata.
            if reply.hash.as_deref() != Some(self.record.hash.as_str())
                || reply.total.is_some_and(|t| t != self.index.size)
            {
                return Err(Error::Store(format!(
                    "the payload of {r} in the object store is not the one its record describes; not used"
                )));
            }
            let start = out.len();
            let read = reply
                .into_reader(to - at)
                .read_to_end(&mut out)
                .map_err(|e| sync::broke_off(&r, &e))?;
            if read as u64 != to - at {
                return Err(sync::broke_off(
                    &r,
                    &std::io::ErrorKind::UnexpectedEof.into(),
                ));
            }
            at = to;
            if enough(&out[start..]) {
                break;
            }
            chunk = (chunk * 2).min(MAX_CHUNK);
        }
        Ok(out)
    }

    /// Downloads the whole payload into the cache (verified against its hash), for a read
    /// that cannot be served by ranges.
    pub fn download(&self, store: &Store, remote: &RemoteConfig) -> Result<()> {
        let cache = store.local();
        sync::download(&self.client, remote, &cache, &self.reference, &self.record)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_line_starts_less_than_a_block_after_an_indexed_start() {
        let mut data = Vec::new();
        for i in 0..40_000u32 {
            // Lines of varied length, one far longer than a block.
            let len = if i == 777 {
                3 * BLOCK as usize
            } else {
                (i % 97) as usize
            };
            data.extend(std::iter::repeat_n(b'x', len));
            data.push(b'\n');
        }
        data.extend_from_slice(b"last, unterminated");
        let index = LineIndex::build(&data, "");
        assert_eq!(index.lines, crate::text::count_lines(&data));
        assert_eq!(index.size, data.len() as u64);
        assert!(!index.binary && !index.dirty);
        let starts: Vec<usize> = std::iter::once(0)
            .chain(memchr::memchr_iter(b'\n', &data).map(|i| i + 1))
            .filter(|&s| s < data.len())
            .collect();
        for (i, &start) in starts.iter().enumerate() {
            let n = i as u64 + 1;
            let (offset, line) = index.start_before(n);
            assert!(line <= n && offset <= start as u64, "line {n}");
            assert_eq!(starts[line as usize - 1] as u64, offset, "line {n}");
            assert!(start as u64 - offset < BLOCK, "line {n}: {offset}..{start}");
        }
        assert_eq!(
            index.start_before(u64::MAX).1,
            index.starts.last().unwrap()[1]
        );
    }

    #[test]
    fn binary_and_escaped_payloads_are_marked() {
        assert!(LineIndex::build(b"\x00\x01\x02", "").binary);
        assert!(LineIndex::build(b"\x1b[31mred\x1b[0m\n", "").dirty);
        assert!(!LineIndex::build(b"plain\r\nlines\r\n", "").dirty);
        assert_eq!(LineIndex::build(b"", "").lines, 0);
    }
}
