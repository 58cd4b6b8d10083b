//! A scope's tally (`spill stats`): what its commands printed, what the model was sent for them,
//! and the reads that followed — kept in a small ledger so that separate processes share it.
//!
//! The ledger is `<root>/@stats/<scope>` (a directory name no scope can have, as
//! `@bindings`): one line of decimal counters (`stats 1` and then the fields of [`Tally`] in
//! order), read and rewritten under an exclusive `flock` on the ledger itself, as the turn
//! ledgers are (`store::turn`). It lives beside the scope, not in it, so removing the scope's
//! entries (`rm --all`, a conversation's end) leaves it and the tally can be read afterwards;
//! it expires `--ttl` after its last update.

use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use super::{Store, check_dir, make_private_dir, validate_scope};
use crate::error::{Error, Result};

/// The directory of the ledgers under the root.
pub const DIR: &str = "@stats";

/// The counters of one scope.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Tally {
    /// `wrap` calls.
    pub outputs: u64,
    /// The bytes their commands printed.
    pub printed: u64,
    /// The bytes `wrap` wrote for them: small outputs whole, envelopes, pass-through.
    pub sent: u64,
    /// How many of the outputs were stored (an envelope was sent instead).
    pub stored: u64,
    /// Reading calls on the scope's outputs (`cat`, `search`, `extract`, `shape`, `wait`, and
    /// the MCP server's tools).
    pub reads: u64,
    /// The bytes those reads answered with.
    pub read_bytes: u64,
}

impl Tally {
    fn fields(&self) -> [u64; 6] {
        [
            self.outputs,
            self.printed,
            self.sent,
            self.stored,
            self.reads,
            self.read_bytes,
        ]
    }

    fn parse(text: &str) -> Tally {
        let mut words = text.split_ascii_whitespace();
        if words.next() != Some("stats") || words.next() != Some("1") {
            return Tally::default();
        }
        let mut n = [0u64; 6];
        for (slot, word) in n.iter_mut().zip(words) {
            *slot = word.parse().unwrap_or(0);
        }
        Tally {
            outputs: n[0],
            printed: n[1],
            sent: n[2],
            stored: n[3],
            reads: n[4],
            read_bytes: n[5],
        }
    }

    /// Both tallies added, saturating.
    pub fn plus(&self, other: &Tally) -> Tally {
        let (a, b) = (self.fields(), other.fields());
        let s = |i: usize| a[i].saturating_add(b[i]);
        Tally {
            outputs: s(0),
            printed: s(1),
            sent: s(2),
            stored: s(3),
            reads: s(4),
            read_bytes: s(5),
        }
    }

    /// The bytes the model got in all: what `wrap` sent and what the reads answered.
    pub fn to_model(&self) -> u64 {
        self.sent.saturating_add(self.read_bytes)
    }
}

/// The ledger file of the store's current scope.
pub fn ledger_path(store: &Store) -> PathBuf {
    store.root().join(DIR).join(&store.config().scope)
}

/// Adds `delta` to the scope's tally, creating the ledgers' directory (0700) where missing, and
/// the root too with `make_root`; without it, a store that does not exist yet counts nothing.
pub fn add(store: &Store, delta: &Tally, make_root: bool) -> Result<()> {
    let root = store.root();
    if !check_dir(root, "root")? {
        if !make_root {
            return Ok(());
        }
        store.prepare()?;
    }
    let dir = root.join(DIR);
    if !check_dir(&dir, "stats directory")? {
        make_private_dir(&dir)?;
        check_dir(&dir, "stats directory")?;
    }
    let path = ledger_path(store);
    // Rewritten in place under its own lock: a link or a file with other hard links is refused.
    let mut file = super::files::open_in_place(&path)
        .map_err(|e| Error::io("open the stats ledger", &path, e))?;
    super::files::lock(&file).map_err(|e| Error::io("lock the stats ledger", &path, e))?;
    let mut text = String::new();
    let old = match file.read_to_string(&mut text) {
        Ok(_) => Tally::parse(&text),
        Err(_) => Tally::default(),
    };
    let new = old.plus(delta);
    let line = format!(
        "stats 1 {}\n",
        new.fields().map(|n| n.to_string()).join(" ")
    );
    let write = |file: &mut std::fs::File| -> std::io::Result<()> {
        file.set_len(0)?;
        file.seek(SeekFrom::Start(0))?;
        file.write_all(line.as_bytes())
    };
    write(&mut file).map_err(|e| Error::io("update the stats ledger", &path, e))
}

/// Adds one read of `bytes` to the scope's tally, if the scope exists (a read of a scope that
/// holds nothing makes no store).
pub fn add_read(store: &Store, bytes: u64) -> Result<()> {
    if !store.check()? {
        return Ok(());
    }
    add(
        store,
        &Tally {
            reads: 1,
            read_bytes: bytes,
            ..Tally::default()
        },
        false,
    )
}

/// The scope's tally; `None` when it has none.
pub fn read(store: &Store) -> Result<Option<Tally>> {
    let dir = store.root().join(DIR);
    if !check_dir(store.root(), "root")? || !check_dir(&dir, "stats directory")? {
        return Ok(None);
    }
    let path = ledger_path(store);
    match super::files::read_small(&path, 4096) {
        Ok(bytes) => Ok(Some(Tally::parse(&String::from_utf8_lossy(&bytes)))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(Error::io("read the stats ledger", &path, e)),
    }
}

/// The scopes of the root that have a tally, sorted.
pub fn scopes(root: &Path) -> Result<Vec<String>> {
    let dir = root.join(DIR);
    if !check_dir(root, "root")? || !check_dir(&dir, "stats directory")? {
        return Ok(Vec::new());
    }
    let rd = std::fs::read_dir(&dir).map_err(|e| Error::io("read", &dir, e))?;
    let mut names: Vec<String> = rd
        .filter_map(|d| d.ok())
        .filter_map(|d| d.file_name().into_string().ok())
        .filter(|n| validate_scope(n).is_ok())
        .collect();
    names.sort();
    Ok(names)
}

/// Removes the ledgers not updated within `ttl` (the store's expiry pass).
pub fn expire(root: &Path, ttl: Duration, dry_run: bool) {
    if dry_run {
        return;
    }
    let Ok(rd) = std::fs::read_dir(root.join(DIR)) else {
        return;
    };
    let now = SystemTime::now();
    for item in rd.flatten() {
        if let Ok(at) = item.metadata().and_then(|m| m.modified())
            && now.duration_since(at).is_ok_and(|d| d > ttl)
        {
            let _ = std::fs::remove_file(item.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::StoreConfig;

    #[test]
    fn tallies_add_up_across_calls_and_scopes_apart() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::new(StoreConfig::new(dir.path().join("root"), "s".into()));
        assert_eq!(read(&store).unwrap(), None);
        // A read of a scope that does not exist makes nothing.
        add_read(&store, 10).unwrap();
        assert!(!dir.path().join("root").exists());
        let out = Tally {
            outputs: 1,
            printed: 500_000,
            sent: 2_400,
            stored: 1,
            ..Tally::default()
        };
        add(&store, &out, true).unwrap();
        add(&store, &out, true).unwrap();
        add_read(&store, 300).unwrap();
        let t = read(&store).unwrap().unwrap();
        assert_eq!(
            t,
            Tally {
                outputs: 2,
                printed: 1_000_000,
                sent: 4_800,
                stored: 2,
                reads: 1,
                read_bytes: 300
            }
        );
        assert_eq!(t.to_model(), 5_100);
        assert_eq!(read(&store.with_scope("other")).unwrap(), None);
        // A damaged ledger counts from zero again rather than failing the command.
        std::fs::write(ledger_path(&store), "garbage").unwrap();
        add(&store, &out, true).unwrap();
        assert_eq!(read(&store).unwrap().unwrap().outputs, 1);
    }
}
