//! `spill ls`: the stored outputs of the current scope (or all scopes), newest first.

use std::io::Write;

use crate::error::{Error, Result};
use crate::limits::human_size;
use crate::store::running::{self, Liveness, Snapshot};
use crate::store::{Entry, Store, StoreConfig, meta::now_secs};
use crate::wire::{LsEntry, LsOutput};

use super::write_all;

/// What to list (`spill ls`'s flags); `Default` is the command line's defaults.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Request {
    /// `--all-scopes`: every scope of the root (refused in restricted mode).
    pub all_scopes: bool,
}

/// Runs `spill ls`: the entries that have not expired, newest created first.
pub fn run(config: &StoreConfig, req: &Request) -> Result<LsOutput> {
    if req.all_scopes && config.restricted {
        return Err(Error::Usage(
            "--all-scopes is refused in restricted mode (SPILL_RESTRICTED=1)".into(),
        ));
    }
    let store = Store::new(config.clone());
    let mut entries = Vec::new();
    if req.all_scopes {
        for scope in store.scopes()? {
            entries.extend(store.with_scope(&scope).entries()?);
        }
        entries.sort_by(|a, b| {
            b.meta
                .created
                .total_cmp(&a.meta.created)
                .then(a.reference.cmp(&b.reference))
        });
    } else {
        entries = store.entries()?;
    }
    // An entry past its TTL is expired even before anything collects it: reading it says so.
    let now = now_secs();
    let ttl = config.ttl.as_secs_f64();
    entries.retain(|e| now - e.last_access <= ttl);
    let entries: Vec<LsEntry> = entries.into_iter().map(to_wire).collect();
    // Running entries first (newest started first): what they cost on disk now.
    let scopes = match req.all_scopes {
        true => store.scopes()?,
        false => vec![config.scope.clone()],
    };
    let mut live = Vec::new();
    for scope in scopes {
        let view = store.with_scope(&scope);
        for id in view.running_ids() {
            if let Ok(Some(running::Opened::Live(snap))) = running::open(&view, &id) {
                live.push(running_row(&scope, &snap));
            }
        }
    }
    live.sort_by(|a, b| b.created.total_cmp(&a.created));
    live.extend(entries);
    let entries = live;
    Ok(LsOutput {
        count: entries.len(),
        entries,
    })
}

/// Writes the table: `REF  [SCOPE]  SIZE  MIME  AGE  LABEL  SUMMARY`, one row per entry (the
/// scope column with `all_scopes`); with `escape_terminal`, control characters are escaped.
pub fn write_text(
    listing: &LsOutput,
    all_scopes: bool,
    escape_terminal: bool,
    out: &mut dyn Write,
) -> Result<()> {
    let now = now_secs();
    for e in &listing.entries {
        let scope = if all_scopes {
            format!("  {}", e.scope)
        } else {
            String::new()
        };
        let label = e.label.as_deref().unwrap_or("-");
        let mut row = format!(
            "{}{scope}  {:>10}  {:<24}  {:>4}  {}  {}\n",
            e.reference,
            human_size(e.size_bytes),
            e.mime_type,
            age(now - e.created),
            label,
            e.summary
        );
        if escape_terminal {
            row = crate::diag::escape(row.trim_end_matches('\n')) + "\n";
        }
        write_all(out, row.as_bytes())?;
    }
    Ok(())
}

/// A running entry's row: the output so far, what it holds on disk, its command.
fn running_row(scope: &str, snap: &Snapshot) -> LsEntry {
    let r = &snap.record;
    let state = match snap.liveness {
        Liveness::Running => "running",
        Liveness::Interrupted => "interrupted",
    };
    let cut = match snap.dropped {
        0 => String::new(),
        d => format!(", {} cut by --max-file", human_size(d)),
    };
    LsEntry {
        reference: snap.id.to_string(),
        scope: scope.to_string(),
        size_bytes: snap.total,
        stored_bytes: snap.disk,
        mime_type: "text/plain".into(),
        lines: snap.lines,
        total_items: None,
        label: r.label.clone(),
        summary: format!(
            "{state}: {} so far, {} on disk{cut}; {}",
            human_size(snap.total),
            human_size(snap.disk),
            crate::diag::cut(&r.command, 80)
        ),
        created: r.started,
        last_access: now_secs(),
        running: Some(snap.liveness == Liveness::Running),
    }
}

fn to_wire(e: Entry) -> LsEntry {
    LsEntry {
        reference: e.reference.to_string(),
        scope: e.scope,
        size_bytes: e.meta.size_bytes,
        stored_bytes: e.meta.stored_bytes,
        mime_type: e.meta.mime_type,
        lines: e.meta.lines,
        total_items: e.meta.total_items,
        label: e.meta.label,
        summary: e.meta.summary,
        created: e.meta.created,
        last_access: e.last_access,
        running: None,
    }
}

/// A compact age: `42s`, `5m`, `3h`, `2d`.
fn age(seconds: f64) -> String {
    let s = seconds.max(0.0) as u64;
    match s {
        0..60 => format!("{s}s"),
        60..3600 => format!("{}m", s / 60),
        3600..86400 => format!("{}h", s / 3600),
        _ => format!("{}d", s / 86400),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::testing::{self, spill};

    #[test]
    fn lists_what_is_stored_as_values_json_and_a_table() {
        let (_dir, store) = testing::store();
        let r = spill(&store, "x\n".repeat(20_000).as_bytes());
        let listing = run(&store, &Request::default()).unwrap();
        assert_eq!(listing.count, 1);
        assert_eq!(listing.entries[0].reference, r);
        assert_eq!(listing.entries[0].lines, 20_000);
        let mut json = Vec::new();
        crate::ops::write_json(&listing, &mut json).unwrap();
        let json = testing::text(json);
        assert!(
            json.starts_with(&format!(
                r#"{{"entries":[{{"ref":"{r}","scope":"default","sizeBytes":40000,"#
            )),
            "{json}"
        );
        assert!(json.ends_with(",\"count\":1}\n"), "{json}");
        let mut table = Vec::new();
        write_text(&listing, false, false, &mut table).unwrap();
        let table = testing::text(table);
        assert!(
            table.starts_with(&format!("{r}    39.1 KiB  text/plain    ")),
            "{table}"
        );
        assert!(
            table.ends_with("  -  text, 20,000 lines, 39.1 KiB\n"),
            "{table}"
        );
        assert_eq!(table.lines().count(), 1);
    }

    #[test]
    fn all_scopes_is_refused_in_restricted_mode() {
        let (_dir, mut store) = testing::store();
        store.restricted = true;
        let req = Request { all_scopes: true };
        assert!(matches!(run(&store, &req), Err(Error::Usage(_))));
    }
}
