//! The store commands' `--json` objects: `spill ls`, `spill rm`, `spill gc`.

use serde::Serialize;

/// One entry of `spill ls --json`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LsEntry {
    /// The ref.
    #[serde(rename = "ref")]
    pub reference: String,
    /// Its scope.
    pub scope: String,
    /// Size of the whole input.
    pub size_bytes: u64,
    /// Bytes stored.
    pub stored_bytes: u64,
    /// MIME type.
    pub mime_type: String,
    /// Lines of the whole input.
    pub lines: u64,
    /// Items of the dominant array or records, where that applies.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total_items: Option<u64>,
    /// The label given at wrap time.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// The envelope summary.
    pub summary: String,
    /// Creation time, Unix seconds.
    pub created: f64,
    /// Last access, Unix seconds.
    pub last_access: f64,
    /// A running entry (`wrap --detach-after`): true while its command runs, false once its
    /// supervisor died before the command ended. Its sizes are the output so far
    /// (`sizeBytes`) and the bytes it holds on disk now (`storedBytes`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub running: Option<bool>,
}

/// `spill ls --json` output.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LsOutput {
    /// The entries, newest created first.
    pub entries: Vec<LsEntry>,
    /// How many.
    pub count: usize,
}

/// `spill rm --json` output.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct RmOutput {
    /// Refs removed.
    pub removed: Vec<String>,
    /// Refs that were not stored (or not refs at all).
    pub unknown: Vec<String>,
}

/// One removal in `spill gc --json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GcRemoval {
    /// The entry's ref (absent for a temporary file).
    #[serde(rename = "ref", skip_serializing_if = "Option::is_none")]
    pub reference: Option<String>,
    /// The temporary file's or incomplete entry's file name (absent for an entry).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// The scope; empty for a temporary file in the root itself.
    pub scope: String,
    /// Bytes freed.
    pub size_bytes: u64,
    /// `expired`, `evicted`, `temp` or `incomplete`.
    pub reason: &'static str,
}

/// `spill gc --json` output: one object.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GcOutput {
    /// True when nothing was actually removed.
    pub dry_run: bool,
    /// What was (or would be) removed: expired entries, then temporary files, then halves of
    /// incomplete entries, then evictions.
    pub removed: Vec<GcRemoval>,
    /// How many.
    pub count: usize,
    /// Bytes freed (or that would be).
    pub freed_bytes: u64,
    /// Bytes the root holds afterwards, payloads and temporary files (or would hold).
    pub usage_bytes: u64,
    /// The quota in force.
    pub quota_bytes: u64,
    /// Tombstones pruned (older than 7 days, or beyond 10,000 per root).
    pub tombstones_pruned: u64,
    /// What could not be removed, one message each: not part of `--json` (the command prints
    /// them as errors on stderr and exits 2).
    #[serde(skip)]
    pub failures: Vec<String>,
}
