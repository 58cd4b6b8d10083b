//! `spill gc`: expire entries, remove stale temporary files, enforce the quota, and say what
//! went (or, with `--dry-run`, would go) and how many bytes that frees.

use std::io::Write;

use crate::error::{Error, Result};
use crate::limits::{group_digits, human_size};
use crate::store::{GcOptions, GcReport, Store, StoreConfig};
use crate::wire::{GcOutput, GcRemoval};

use super::write_all;

/// What to collect (`spill gc`'s flags); `Default` is the command line's defaults.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Request {
    /// `--dry-run`: report what would be removed; remove nothing.
    pub dry_run: bool,
    /// `--all-scopes`: every scope of the root (refused in restricted mode).
    pub all_scopes: bool,
}

/// Runs `spill gc`.
pub fn run(config: &StoreConfig, req: &Request) -> Result<GcOutput> {
    if req.all_scopes && config.restricted {
        return Err(Error::Usage(
            "--all-scopes is refused in restricted mode (SPILL_RESTRICTED=1)".into(),
        ));
    }
    let store = Store::new(config.clone());
    let report = store.gc(GcOptions {
        dry_run: req.dry_run,
        all_scopes: req.all_scopes,
        // Restricted mode sees only its own scope, so it can neither learn about nor evict
        // another scope's entries.
        scope_only: config.restricted,
    })?;
    Ok(to_wire(&report, req.dry_run, config.quota))
}

/// The wire form of a report.
pub fn to_wire(report: &GcReport, dry_run: bool, quota: u64) -> GcOutput {
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
        failures: report.failures.clone(),
    }
}

/// Writes one `NAME  SCOPE  SIZE  REASON` line per removal and the `freed N bytes (X MiB)`
/// line; with `escape_terminal`, control characters are escaped.
pub fn write_text(report: &GcOutput, escape_terminal: bool, out: &mut dyn Write) -> Result<()> {
    for r in &report.removed {
        let name = match (&r.reference, &r.file) {
            (Some(x), _) => x.clone(),
            (None, Some(f)) => f.clone(),
            (None, None) => "-".to_string(),
        };
        let scope = if r.scope.is_empty() { "-" } else { &r.scope };
        let mut row = format!(
            "{name}  {scope}  {}  {}",
            human_size(r.size_bytes),
            r.reason
        );
        if escape_terminal {
            row = crate::diag::escape(&row);
        }
        write_all(out, format!("{row}\n").as_bytes())?;
    }
    let verb = if report.dry_run {
        "would free"
    } else {
        "freed"
    };
    let line = format!(
        "{verb} {} bytes ({:.1} MiB)\n",
        group_digits(report.freed_bytes),
        report.freed_bytes as f64 / (1024.0 * 1024.0)
    );
    write_all(out, line.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::testing::{self, spill};

    #[test]
    fn a_dry_run_over_a_fresh_store_frees_nothing() {
        let (_dir, store) = testing::store();
        spill(&store, "z\n".repeat(20_000).as_bytes());
        let req = Request {
            dry_run: true,
            all_scopes: false,
        };
        let report = run(&store, &req).unwrap();
        assert!(report.dry_run);
        assert!(report.removed.is_empty());
        assert_eq!(report.quota_bytes, store.quota);
        assert!(report.usage_bytes >= 40_000, "{report:?}");
        let mut out = Vec::new();
        write_text(&report, false, &mut out).unwrap();
        assert_eq!(testing::text(out), "would free 0 bytes (0.0 MiB)\n");
        let mut json = Vec::new();
        crate::ops::write_json(&report, &mut json).unwrap();
        assert!(
            testing::text(json)
                .starts_with(r#"{"dryRun":true,"removed":[],"count":0,"freedBytes":0,"#)
        );
    }

    #[test]
    fn expired_entries_are_removed_and_listed() {
        let (_dir, mut store) = testing::store();
        let r = spill(&store, "z\n".repeat(20_000).as_bytes());
        store.ttl = std::time::Duration::ZERO;
        std::thread::sleep(std::time::Duration::from_millis(20));
        let report = run(&store, &Request::default()).unwrap();
        assert_eq!(report.count, 1);
        assert_eq!(report.removed[0].reference.as_deref(), Some(r.as_str()));
        assert_eq!(report.removed[0].reason, "expired");
        let mut out = Vec::new();
        write_text(&report, false, &mut out).unwrap();
        let text = testing::text(out);
        assert!(text.starts_with(&format!("{r}  default  ")), "{text}");
        assert!(
            text.ends_with(" expired\nfreed 40,000 bytes (0.0 MiB)\n"),
            "{text}"
        );
    }
}
