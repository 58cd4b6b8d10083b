//! `spill gc`: expire entries, remove stale temporary files, enforce the quota, and say what
//! went (or, with `--dry-run`, would go) and how many bytes that frees.

use serde::Serialize;

use crate::cli::GcArgs;
use crate::error::{Error, Result};
use crate::limits::{group_digits, human_size};
use crate::output;
use crate::store::{GcOptions, GcReport, Store, StoreConfig};

use super::Outcome;

/// One removal in `spill gc --json`.
#[derive(Debug, Serialize)]
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
#[derive(Debug, Serialize)]
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
}

/// Builds the JSON form of a report.
pub fn to_output(report: &GcReport, dry_run: bool, quota: u64) -> GcOutput {
    let removed: Vec<GcRemoval> = report
        .removals
        .iter()
        .map(|r| GcRemoval {
            reference: r.reference.map(|x| x.to_string()),
            file: r.file.clone(),
            scope: r.scope.clone(),
            size_bytes: r.size,
            reason: r.reason.as_str(),
        })
        .collect();
    GcOutput {
        dry_run,
        count: removed.len(),
        removed,
        freed_bytes: report.freed,
        usage_bytes: report.usage,
        quota_bytes: quota,
        tombstones_pruned: report.tombstones_pruned,
    }
}

/// Runs `spill gc`.
pub fn run(config: &StoreConfig, args: GcArgs) -> Result<Outcome> {
    if args.all_scopes && config.restricted {
        return Err(Error::Usage(
            "--all-scopes is refused in restricted mode (SPILL_RESTRICTED=1)".into(),
        ));
    }
    let store = Store::new(config.clone());
    let report = store.gc(GcOptions {
        dry_run: args.dry_run,
        all_scopes: args.all_scopes,
        // Restricted mode sees only its own scope, so it can neither learn about nor evict
        // another scope's entries.
        scope_only: config.restricted,
    })?;
    let mut out = output::stdout();
    if args.json {
        let doc = to_output(&report, args.dry_run, config.quota);
        let mut text = serde_json::to_string(&doc).expect("gc output serialises");
        text.push('\n');
        output::write_all(&mut out, text.as_bytes())?;
    } else {
        let on_terminal = output::stdout_is_terminal();
        for r in &report.removals {
            let name = match (&r.reference, &r.file) {
                (Some(x), _) => x.to_string(),
                (None, Some(f)) => f.clone(),
                (None, None) => "-".to_string(),
            };
            let scope = if r.scope.is_empty() { "-" } else { &r.scope };
            let mut row = format!(
                "{name}  {scope}  {}  {}",
                human_size(r.size),
                r.reason.as_str()
            );
            if on_terminal {
                row = crate::diag::escape(&row);
            }
            output::write_all(&mut out, format!("{row}\n").as_bytes())?;
        }
        let verb = if args.dry_run { "would free" } else { "freed" };
        let line = format!(
            "{verb} {} bytes ({:.1} MiB)\n",
            group_digits(report.freed),
            report.freed as f64 / (1024.0 * 1024.0)
        );
        output::write_all(&mut out, line.as_bytes())?;
    }
    output::flush(&mut out)?;
    Ok(Outcome::Found)
}
