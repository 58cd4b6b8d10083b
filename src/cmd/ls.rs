//! `spill ls`: the stored outputs of the current scope (or all scopes), newest first.

use serde::Serialize;

use crate::cli::LsArgs;
use crate::error::{Error, Result};
use crate::limits::human_size;
use crate::output;
use crate::store::{Entry, Store, StoreConfig, meta::now_secs};

use super::Outcome;

/// One entry of `spill ls --json`.
#[derive(Debug, Serialize)]
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
}

/// `spill ls --json` output.
#[derive(Debug, Serialize)]
pub struct LsOutput {
    /// The entries, newest created first.
    pub entries: Vec<LsEntry>,
    /// How many.
    pub count: usize,
}

/// Runs `spill ls`.
pub fn run(config: &StoreConfig, args: LsArgs) -> Result<Outcome> {
    if args.all_scopes && config.restricted {
        return Err(Error::Usage(
            "--all-scopes is refused in restricted mode (SPILL_RESTRICTED=1)".into(),
        ));
    }
    let store = Store::new(config.clone());
    let mut entries = Vec::new();
    if args.all_scopes {
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
    let mut out = output::stdout();
    if args.complete {
        for e in &entries {
            let text = e.meta.label.as_deref().unwrap_or(&e.meta.summary);
            let line = format!("{}\t{}\n", e.reference, completion_label(text));
            output::write_all(&mut out, line.as_bytes())?;
        }
    } else if args.json {
        let listed: Vec<LsEntry> = entries.into_iter().map(to_json).collect();
        let doc = LsOutput {
            count: listed.len(),
            entries: listed,
        };
        let mut text = serde_json::to_string(&doc).expect("ls output serialises");
        text.push('\n');
        output::write_all(&mut out, text.as_bytes())?;
    } else {
        let on_terminal = output::stdout_is_terminal();
        let now = now_secs();
        for e in &entries {
            let scope = if args.all_scopes {
                format!("  {}", e.scope)
            } else {
                String::new()
            };
            let label = e.meta.label.as_deref().unwrap_or("-");
            let mut row = format!(
                "{}{scope}  {:>10}  {:<24}  {:>4}  {}  {}\n",
                e.reference,
                human_size(e.meta.size_bytes),
                e.meta.mime_type,
                age(now - e.meta.created),
                label,
                e.meta.summary
            );
            if on_terminal {
                row = crate::diag::escape(row.trim_end_matches('\n')) + "\n";
            }
            output::write_all(&mut out, row.as_bytes())?;
        }
    }
    output::flush(&mut out)?;
    Ok(Outcome::Found)
}

fn to_json(e: Entry) -> LsEntry {
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
    }
}

/// A label as a completion menu shows it: one line (control characters as spaces, runs of
/// white space as one) of at most [`COMPLETION_LABEL`] characters.
fn completion_label(text: &str) -> String {
    let flat: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let words: Vec<&str> = flat.split_whitespace().collect();
    let line = words.join(" ");
    match line.char_indices().nth(COMPLETION_LABEL) {
        Some((at, _)) => format!("{}…", &line[..at]),
        None => line,
    }
}

/// The most characters of a label a completion menu shows.
const COMPLETION_LABEL: usize = 60;

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

    #[test]
    fn completion_labels_are_one_short_line() {
        assert_eq!(
            completion_label("cargo  build\n--release\t\x1b[31m"),
            "cargo build --release [31m"
        );
        let long = "x".repeat(100);
        assert_eq!(completion_label(&long), format!("{}…", "x".repeat(60)));
        assert_eq!(completion_label(&"é".repeat(60)), "é".repeat(60));
        assert_eq!(completion_label(""), "");
    }
}
