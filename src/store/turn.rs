//! Turn budgets: the bytes that every `wrap` of one turn (`--turn ID`) in one scope has passed
//! through inline, kept in a small ledger file so that separate processes share it.
//!
//! The ledger is `<scope>/.turn-<hex16>` (the first 64 bits of the BLAKE3 hash of the turn id,
//! so any id is a safe file name) holding one decimal number. It is read and rewritten under an
//! exclusive `flock` on the ledger itself: two `wrap`s of the same turn finishing at once must
//! not both see room for their output. A ledger not updated within `--ttl` counts as empty, and
//! `gc` and the expiry pass delete it.

use std::io::{Read, Seek, SeekFrom, Write};
use std::path::PathBuf;
use std::time::SystemTime;

use super::Store;
use super::lifecycle::TURN_PREFIX;
use crate::error::{Error, Result};

/// The ledger file of a turn in the store's current scope.
pub fn ledger_path(store: &Store, turn: &str) -> PathBuf {
    let hash = blake3::hash(turn.as_bytes());
    store
        .scope_dir()
        .join(format!("{TURN_PREFIX}{}", &hash.to_hex()[..16]))
}

/// Decides whether an output of `size` bytes may be inlined in `turn` without taking the
/// turn's inlined total past `budget`; when it may, adds it to the total. Creates the store
/// where missing.
pub fn admit(store: &Store, turn: &str, size: u64, budget: u64) -> Result<bool> {
    store.prepare()?;
    let path = ledger_path(store, turn);
    // Rewritten in place under its own lock, so it is never replaced: a link or a file with
    // other hard links there is refused (the output passes through with a warning).
    let mut file = super::files::open_in_place(&path)
        .map_err(|e| Error::io("open the turn ledger", &path, e))?;
    super::files::lock(&file).map_err(|e| Error::io("lock the turn ledger", &path, e))?;
    let meta = file
        .metadata()
        .map_err(|e| Error::io("read the turn ledger", &path, e))?;
    let fresh = meta
        .modified()
        .ok()
        .and_then(|at| SystemTime::now().duration_since(at).ok())
        .is_none_or(|age| age <= store.config().ttl);
    let mut text = String::new();
    let used = if fresh && file.read_to_string(&mut text).is_ok() {
        text.trim().parse::<u64>().unwrap_or(0)
    } else {
        0
    };
    let total = used.saturating_add(size);
    if total > budget {
        return Ok(false);
    }
    let write = |file: &mut std::fs::File| -> std::io::Result<()> {
        file.set_len(0)?;
        file.seek(SeekFrom::Start(0))?;
        file.write_all(format!("{total}\n").as_bytes())
    };
    write(&mut file).map_err(|e| Error::io("update the turn ledger", &path, e))?;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::StoreConfig;

    #[test]
    fn outputs_are_admitted_until_the_budget_is_spent() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::new(StoreConfig::new(dir.path().join("root"), "s".into()));
        assert!(admit(&store, "t1", 600, 1000).unwrap());
        assert!(admit(&store, "t1", 400, 1000).unwrap());
        assert!(!admit(&store, "t1", 1, 1000).unwrap());
        // Another turn, and the same turn in another scope, have their own ledgers.
        assert!(admit(&store, "t2", 1000, 1000).unwrap());
        assert!(admit(&store.with_scope("other"), "t1", 1000, 1000).unwrap());
        // A refused output does not count.
        assert!(!admit(&store, "t2", 2000, 1000).unwrap());
        assert_eq!(
            std::fs::read_to_string(ledger_path(&store, "t2")).unwrap(),
            "1000\n"
        );
    }

    #[test]
    fn a_ledger_older_than_the_ttl_counts_as_empty() {
        let dir = tempfile::tempdir().unwrap();
        let mut config = StoreConfig::new(dir.path().join("root"), "s".into());
        config.ttl = std::time::Duration::from_secs(60);
        let store = Store::new(config);
        assert!(admit(&store, "t", 1000, 1000).unwrap());
        let f = std::fs::File::options()
            .write(true)
            .open(ledger_path(&store, "t"))
            .unwrap();
        f.set_modified(SystemTime::now() - std::time::Duration::from_secs(120))
            .unwrap();
        assert!(admit(&store, "t", 1000, 1000).unwrap());
    }
}
