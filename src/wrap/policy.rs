//! The storage policy: how large a stored payload may be (`--max-file`, kept below the quota)
//! and the writer that keeps a capped payload's head, a one-line marker and its tail.

use crate::error::{Error, Result};
use crate::limits::group_digits;
use crate::store::{Finished, StoreConfig, TempPayload};

use super::capture::CHUNK;

/// The writer side: a temporary payload, capped at `--max-file` as head + marker + tail.
pub(super) struct CappedWriter {
    temp: TempPayload,
    head_limit: u64,
    keep_tail: usize,
    cap: u64,
    ring: Vec<u8>,
    total: u64,
}

impl CappedWriter {
    pub(super) fn new(temp: TempPayload, cap: u64) -> CappedWriter {
        let keep_tail = (cap / 4).min(1 << 20);
        CappedWriter {
            temp,
            head_limit: cap - keep_tail,
            keep_tail: keep_tail as usize,
            cap,
            ring: Vec::new(),
            total: 0,
        }
    }

    pub(super) fn write(&mut self, chunk: &[u8]) -> Result<()> {
        let room = self
            .head_limit
            .saturating_sub(self.total)
            .min(chunk.len() as u64) as usize;
        self.temp.write_unhashed(&chunk[..room])?;
        self.total += chunk.len() as u64;
        let rest = &chunk[room..];
        if !rest.is_empty() {
            self.ring.extend_from_slice(rest);
            if self.ring.len() > 2 * self.keep_tail.max(CHUNK) {
                let excess = self.ring.len() - self.keep_tail;
                self.ring.drain(..excess);
            }
        }
        Ok(())
    }

    /// Writes what the cap keeps of the end; returns the file, the bytes stored and the input
    /// bytes dropped.
    pub(super) fn close(mut self, input_hash: &blake3::Hash) -> Result<(Finished, u64, u64)> {
        if self.total <= self.cap {
            let ring = std::mem::take(&mut self.ring);
            self.temp.write_unhashed(&ring)?;
            let stored = self.temp.written();
            return Ok((self.temp.finish_hashed(input_hash)?, stored, 0));
        }
        let tail = &self.ring[self.ring.len() - self.keep_tail..];
        let dropped = self.total - self.head_limit - self.keep_tail as u64;
        let marker = format!(
            "\n[spill: {} bytes dropped here by --max-file; the whole output was {} bytes]\n",
            group_digits(dropped),
            group_digits(self.total)
        );
        self.temp.write_unhashed(marker.as_bytes())?;
        self.temp.write_unhashed(tail)?;
        let stored = self.temp.written();
        // The ref names the stored bytes, so a capped payload is hashed as stored.
        let hash = hash_file(self.temp.path())?;
        Ok((self.temp.finish_hashed(&hash)?, stored, dropped))
    }
}

fn hash_file(path: &std::path::Path) -> Result<blake3::Hash> {
    let mut hasher = blake3::Hasher::new();
    let file = std::fs::File::open(path).map_err(|e| Error::io("read", path, e))?;
    hasher
        .update_reader(file)
        .map_err(|e| Error::io("read", path, e))?;
    Ok(hasher.finalize())
}

/// The per-file cap: `--max-file`, and never so close to the quota that the capped payload
/// (head, a one-line marker of at most `MARKER_ROOM` bytes, tail) would not fit it.
pub(super) fn file_cap(config: &StoreConfig) -> u64 {
    const MARKER_ROOM: u64 = 256;
    config
        .max_file
        .min(config.quota.saturating_sub(MARKER_ROOM))
        .max(1)
}
