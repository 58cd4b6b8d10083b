//! `spill shape`: the skeleton (or `--paths` listing) of a source, printed on stdout.

use crate::cli::ShapeArgs;
use crate::error::{Error, Result};
use crate::json::shape::{self, MIN_MAX_BYTES, ShapeOptions};
use crate::limits::group_digits;
use crate::store::StoreConfig;
use crate::{diag, output};

use super::Outcome;

/// Runs `spill shape`.
pub fn run(store: &StoreConfig, args: ShapeArgs) -> Result<Outcome> {
    if args.max_bytes < MIN_MAX_BYTES as u64 {
        return Err(Error::Usage(format!(
            "--max-bytes {}: the skeleton needs at least {MIN_MAX_BYTES} bytes",
            args.max_bytes
        )));
    }
    let input = crate::source::open(&args.source, store)?;
    super::known_invalid_json(store, &input)?;
    let (doc, part_note) = crate::source::json_part(&input, store);
    if let Some(note) = &part_note {
        diag::note(note);
    }
    let mut out = output::stdout();
    if args.paths {
        let result = shape::shape_paths_skipping(doc, args.skip_invalid);
        input.check_unchanged()?;
        let (list, skipped) = result.map_err(|e| {
            if crate::json::sniff::looks_like_json(doc) {
                Error::from(e)
            } else {
                Error::Usage(format!(
                    "{}: --paths needs JSON or NDJSON input; this is text",
                    args.source
                ))
            }
        })?;
        let mut text = String::new();
        for p in &list.paths {
            text.push_str(&p.to_string());
            text.push('\n');
        }
        output::write_all(&mut out, text.as_bytes())?;
        output::flush(&mut out)?;
        if skipped > 0 {
            diag::note(&skipped_note(skipped));
        }
        if list.omitted > 0 {
            diag::note(&format!(
                "{} more distinct paths not listed",
                group_digits(list.omitted)
            ));
        }
        return Ok(Outcome::Found);
    }
    let max_bytes = usize::try_from(args.max_bytes).unwrap_or(usize::MAX);
    let opts = ShapeOptions {
        max_depth: args.max_depth,
        // Room for `,"skippedLines":N` within the bound.
        max_bytes: if args.skip_invalid {
            max_bytes.saturating_sub(40).max(MIN_MAX_BYTES)
        } else {
            max_bytes
        },
        sample: None,
    };
    let (skeleton, skipped) = shape::shape_skipping(doc, &opts, args.skip_invalid);
    input.check_unchanged()?;
    let mut json = skeleton.json;
    if skipped > 0 && json.ends_with('}') {
        // The skeleton of the records and, beside it, the lines that were not records.
        json.pop();
        json.push_str(&format!(",\"skippedLines\":{skipped}}}"));
    }
    output::write_all(&mut out, json.as_bytes())?;
    output::write_all(&mut out, b"\n")?;
    output::flush(&mut out)?;
    if skipped > 0 {
        diag::note(&skipped_note(skipped));
    }
    Ok(Outcome::Found)
}

/// The note for NDJSON lines skipped with `--skip-invalid`.
pub fn skipped_note(skipped: u64) -> String {
    format!(
        "skipped {} {} that {} not exactly one JSON value (--skip-invalid)",
        group_digits(skipped),
        if skipped == 1 { "line" } else { "lines" },
        if skipped == 1 { "is" } else { "are" }
    )
}
