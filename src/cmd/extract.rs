//! `spill extract`: a JSONPath query over a source, printed bounded, with the notice of what was
//! cut (stderr, or the end of stdout with `--footer stdout`).

use crate::cli::ExtractArgs;
use crate::error::{Error, Result};
use crate::extract::{self, Bounds, Mode, Options};
use crate::json::path::{InvalidPattern, Query};
use crate::limits;
use crate::store::StoreConfig;
use crate::{diag, output};

use super::Outcome;

/// Runs `spill extract`.
pub fn run(store: &StoreConfig, args: ExtractArgs) -> Result<Outcome> {
    let footer_to = super::footer_to(args.footer)?;
    // The query is checked before the source is read: a typo costs nothing.
    let text = query_text(&args)?;
    let query = Query::parse_lenient(&text)?;
    let mode = if args.nodes {
        Mode::Nodes
    } else if args.raw {
        Mode::Raw
    } else {
        Mode::Values
    };
    if args.offset > 0 && query.is_singular() && mode != Mode::Nodes {
        return Err(Error::Usage(format!(
            "--offset pages through a list of nodes, and {:?} is a singular query (it selects at most one)",
            diag::echo(&text)
        )));
    }
    let max_bytes = args.max_bytes.unwrap_or(limits::EXTRACT_MAX_BYTES);
    if max_bytes > 0 && !args.unbounded && max_bytes < extract::MIN_MAX_BYTES as u64 {
        return Err(Error::Usage(format!(
            "--max-bytes {max_bytes}: extract needs at least {} bytes for the list and a marker (0 lifts every bound)",
            extract::MIN_MAX_BYTES
        )));
    }
    let bounds = (!args.unbounded && max_bytes > 0).then(|| Bounds {
        max_items: args.max_items,
        max_depth: args.max_depth,
        max_string: args.max_string,
        max_bytes: Some(usize::try_from(max_bytes).unwrap_or(usize::MAX)),
    });
    let input = crate::source::open(&args.source, store)?;
    super::known_invalid_json(store, &input)?;
    let (doc, part_note) = crate::source::json_part(&input, store);
    if let Some(note) = &part_note {
        diag::note(note);
    }
    let opts = Options {
        source: &args.source,
        bounds,
        mode,
        compact: args.compact,
        offset: args.offset,
        skip_invalid: args.skip_invalid,
    };
    let mut out = output::stdout();
    let report = extract::extract(doc, &query, &opts, &mut out);
    // A source that shrank under its map explains any error it caused.
    input.check_unchanged()?;
    let report = report?;
    if report.skipped_lines > 0 {
        diag::note(&super::shape::skipped_note(report.skipped_lines));
    }
    // An invalid pattern is false for every value (RFC 9535); the note says why, after stdout.
    let invalid = query.invalid_patterns();
    if let Some(why) = &report.no_match {
        output::flush(&mut out)?;
        pattern_note(&invalid);
        diag::message(&diag::escape(why));
        return Ok(Outcome::NotFound);
    }
    match report.notice() {
        Some(line) => super::emit_footer(&mut out, footer_to, &diag::escape(&line))?,
        None if report.shown == 0 && report.selected > 0 => {
            output::flush(&mut out)?;
            diag::note(&format!(
                "nothing past --offset {}: the query selects {} {}",
                args.offset,
                limits::group_digits(report.selected),
                if report.selected == 1 {
                    "node"
                } else {
                    "nodes"
                }
            ));
        }
        None => output::flush(&mut out)?,
    }
    pattern_note(&invalid);
    Ok(Outcome::Found)
}

/// One note naming the query's first invalid `match()`/`search()` pattern and why (and how
/// many more there are), when there is one.
fn pattern_note(invalid: &[InvalidPattern]) {
    let Some(first) = invalid.first() else {
        return;
    };
    let more = match invalid.len() - 1 {
        0 => String::new(),
        1 => " (1 more pattern of the query is invalid too)".into(),
        n => format!(" ({n} more patterns of the query are invalid too)"),
    };
    diag::note(&format!(
        "{}() pattern '{}' is not valid I-Regexp (RFC 9485): {}; the call is false for every value, as RFC 9535 specifies{more}",
        first.function,
        diag::echo(&first.pattern),
        diag::escape(&first.reason),
    ));
}

/// The query as given on the command line or in the `--from-file` file.
fn query_text(args: &ExtractArgs) -> Result<String> {
    if let Some(q) = &args.query {
        return Ok(q.clone());
    }
    let Some(path) = &args.from_file else {
        return Err(Error::Usage(
            "a QUERY (or --from-file FILE) is required".into(),
        ));
    };
    if super::restricted() {
        return Err(Error::Usage(
            "--from-file is refused in restricted mode (SPILL_RESTRICTED=1): give the query on the command line".into(),
        ));
    }
    let bytes = std::fs::read(path).map_err(|e| Error::io("read", path, e))?;
    let mut text = String::from_utf8(bytes).map_err(|_| {
        Error::Usage(format!(
            "--from-file {}: the query is not UTF-8",
            diag::escape(&path.to_string_lossy())
        ))
    })?;
    if text.ends_with('\n') {
        text.pop();
        if text.ends_with('\r') {
            text.pop();
        }
    }
    Ok(text)
}
