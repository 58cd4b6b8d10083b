//! Metadata records: one small JSON file per payload, beside it. The record's mtime is the
//! entry's last access (sub-second), so a read refreshes it without rewriting anything.

use std::fs;
use std::io::Read;
use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use super::Ref;
use crate::error::{Error, Result};

/// A metadata record longer than this is not read (records are a few hundred bytes plus the
/// label).
pub const MAX_RECORD: u64 = 16 << 20;

/// What is recorded about a stored payload.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Meta {
    /// The full BLAKE3 hash of the stored bytes (hex).
    pub hash: String,
    /// Size of the whole input in bytes.
    pub size_bytes: u64,
    /// Bytes actually stored (less than `size_bytes` when capped).
    pub stored_bytes: u64,
    /// The MIME type of the payload.
    pub mime_type: String,
    /// Line count of the whole input.
    pub lines: u64,
    /// The dominant array's length, or records, where that applies.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub total_items: Option<u64>,
    /// The envelope's one-sentence summary.
    pub summary: String,
    /// The free-form label given with `--label`.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub label: Option<String>,
    /// Creation time, seconds since the Unix epoch.
    pub created: f64,
    /// Where `wrap` found the payload invalid, when it looked like JSON: `extract` and `shape`
    /// on the ref report it at once instead of answering from an invalid document.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub invalid_json: Option<InvalidJson>,
    /// For JSON behind a few lines of other output: where the JSON part lies, so `shape` and
    /// `extract` on the ref read that part (README, "Mixed output").
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub json_part: Option<JsonPart>,
}

/// The JSON part of a stored output (see [`Meta::json_part`]).
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct JsonPart {
    /// Offset of its first byte.
    pub start: u64,
    /// Offset just past its last byte.
    pub end: u64,
    /// Its first and last line (1-based).
    pub lines: [u64; 2],
}

/// A JSON syntax error recorded with a payload (see [`Meta::invalid_json`]).
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct InvalidJson {
    /// 0-based byte offset.
    pub offset: u64,
    /// 1-based line.
    pub line: u64,
    /// 1-based byte column.
    pub column: u64,
    /// What was wrong.
    pub message: String,
}

/// One listed entry of a scope.
#[derive(Clone, Debug)]
pub struct Entry {
    /// The ref.
    pub reference: Ref,
    /// The scope it lives in.
    pub scope: String,
    /// Its metadata record.
    pub meta: Meta,
    /// Last access, seconds since the Unix epoch.
    pub last_access: f64,
}

/// Seconds since the Unix epoch, with sub-second resolution.
pub fn now_secs() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs_f64())
        .unwrap_or(0.0)
}

/// Lists a scope directory's entries, newest created first, ties by ref.
pub(super) fn list(scope: &str, dir: &Path) -> Result<Vec<Entry>> {
    let rd = fs::read_dir(dir).map_err(|e| Error::io("read", dir, e))?;
    let mut entries = Vec::new();
    for item in rd.flatten() {
        let name = item.file_name();
        let Some(hex) = name.to_str().and_then(|n| n.strip_suffix(".meta")) else {
            continue;
        };
        let Some(reference) = Ref::parse(&format!("sp_{hex}")) else {
            continue;
        };
        // A record without its payload is a removal in progress or an interrupted write, and
        // a link at either name is never an entry: both must be regular files.
        if !super::files::look(&dir.join(hex)).is_file() {
            continue;
        }
        let Ok(file) = super::files::open_read(&item.path()) else {
            continue;
        };
        let mut bytes = Vec::new();
        if (&file).take(MAX_RECORD).read_to_end(&mut bytes).is_err() {
            continue;
        }
        let Ok(meta) = serde_json::from_slice::<Meta>(&bytes) else {
            continue;
        };
        let last_access = file
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
            .map(|d| d.as_secs_f64())
            .unwrap_or(meta.created);
        entries.push(Entry {
            reference,
            scope: scope.to_string(),
            meta,
            last_access,
        });
    }
    sort_newest_first(&mut entries);
    Ok(entries)
}

/// The order of every listing: newest created first, ties by ref.
pub(super) fn sort_newest_first(entries: &mut [Entry]) {
    entries.sort_by(|a, b| {
        b.meta
            .created
            .total_cmp(&a.meta.created)
            .then(a.reference.cmp(&b.reference))
    });
}
