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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Store;

    /// Writes `input` in `step`-byte chunks through a writer capped at `cap`; returns the stored
    /// bytes and what `close` reported.
    fn through(input: &[u8], cap: u64, step: usize) -> (Vec<u8>, u64, u64) {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::new(StoreConfig::new(dir.path().join("s"), "default".into()));
        store.prepare().unwrap();
        let mut w = CappedWriter::new(store.create_temp().unwrap(), cap);
        for chunk in input.chunks(step) {
            w.write(chunk).unwrap();
        }
        let hash = blake3::hash(input);
        let (finished, stored, dropped) = w.close(&hash).unwrap();
        let bytes = std::fs::read(&finished.path).unwrap();
        (bytes, stored, dropped)
    }

    #[test]
    fn up_to_the_cap_everything_is_kept() {
        let input: Vec<u8> = (0..1000u32).map(|i| (i % 251) as u8).collect();
        for cap in [1000, 5000] {
            for step in [1, 7, 1000] {
                let (bytes, stored, dropped) = through(&input, cap, step);
                assert_eq!(bytes, input, "cap {cap} step {step}");
                assert_eq!((stored, dropped), (1000, 0));
            }
        }
    }

    #[test]
    fn past_the_cap_the_head_a_marker_and_the_tail_are_kept() {
        let input: Vec<u8> = (0..10_000u32).map(|i| (i % 251) as u8).collect();
        let cap = 1000u64;
        for step in [1, 333, 10_000] {
            let (bytes, stored, dropped) = through(&input, cap, step);
            // A quarter of the cap is the tail, the rest the head.
            let (head, tail) = (750, 250);
            assert_eq!(dropped, 10_000 - head - tail);
            assert_eq!(stored, bytes.len() as u64);
            assert_eq!(&bytes[..head as usize], &input[..head as usize]);
            assert_eq!(
                &bytes[bytes.len() - tail as usize..],
                &input[input.len() - tail as usize..]
            );
            let marker = &bytes[head as usize..bytes.len() - tail as usize];
            assert_eq!(
                marker,
                b"\n[spill: 9,000 bytes dropped here by --max-file; the whole output was 10,000 bytes]\n"
            );
            // The cap bounds what is kept of the input; only the marker comes on top.
            assert!(stored <= cap + marker.len() as u64);
        }
    }

    #[test]
    fn the_file_cap_stays_below_the_quota_by_the_markers_room() {
        let mut config = StoreConfig::new("/nowhere".into(), "default".into());
        config.max_file = 1 << 20;
        config.quota = 1 << 30;
        assert_eq!(file_cap(&config), 1 << 20);
        config.quota = 1 << 20;
        assert_eq!(file_cap(&config), (1 << 20) - 256);
        config.quota = 10;
        assert_eq!(file_cap(&config), 1);
    }
}
