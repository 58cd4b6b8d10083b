//! `spill shape`: the skeleton (or `--paths` listing) of a source.

use std::io::Write;

use crate::error::{Error, Result};
use crate::json::shape::{self, MIN_MAX_BYTES, ShapeOptions};
use crate::store::StoreConfig;
use crate::wire::shape as wire;

use super::{Notice, Outcome, Report, write_all};

/// What to describe and how (`spill shape`'s flags); `Default` is the command line's defaults.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    /// A ref (`sp_…`), a file path, or `-` for stdin (paths are refused in restricted mode).
    pub source: String,
    /// `--max-depth`: container levels shown.
    pub max_depth: usize,
    /// `--max-bytes`: the skeleton never exceeds this size (at least [`MIN_MAX_BYTES`]).
    pub max_bytes: u64,
    /// `--paths`: one line per distinct path instead.
    pub paths: bool,
    /// `--skip-invalid`: NDJSON lines that are not one JSON value are skipped and counted.
    pub skip_invalid: bool,
}

impl Default for Request {
    fn default() -> Request {
        let opts = ShapeOptions::default();
        Request {
            source: String::new(),
            max_depth: opts.max_depth,
            max_bytes: opts.max_bytes as u64,
            paths: false,
            skip_invalid: false,
        }
    }
}

impl Request {
    /// The default request for this source.
    pub fn new(source: impl Into<String>) -> Request {
        Request {
            source: source.into(),
            ..Request::default()
        }
    }
}

/// Runs `spill shape`: writes the skeleton (one line of JSON) or the `--paths` listing to
/// `out`; skipped NDJSON lines and unlisted paths are notices.
pub fn run(store: &StoreConfig, req: &Request, out: &mut dyn Write) -> Result<Report> {
    if req.max_bytes < MIN_MAX_BYTES as u64 {
        return Err(Error::Usage(format!(
            "--max-bytes {}: the skeleton needs at least {MIN_MAX_BYTES} bytes",
            req.max_bytes
        )));
    }
    let input = crate::source::open(&req.source, store)?;
    super::known_invalid_json(store, &input)?;
    // A ref holding JSON behind other output: its JSON part.
    let (doc, part_note) = crate::source::json_part(&input, store);
    let mut report = Report::new(Outcome::Found);
    report.notices.extend(part_note.map(Notice::JsonPart));
    if req.paths {
        let result = shape::shape_paths_skipping(doc, req.skip_invalid);
        input.check_unchanged()?;
        let (list, skipped) = result.map_err(|e| {
            if crate::json::sniff::looks_like_json(doc) {
                Error::from(e)
            } else {
                Error::Usage(format!(
                    "{}: --paths needs JSON or NDJSON input; this is text",
                    req.source
                ))
            }
        })?;
        let mut text = String::new();
        for p in &list.paths {
            text.push_str(&p.to_string());
            text.push('\n');
        }
        write_all(out, text.as_bytes())?;
        if skipped > 0 {
            report.notices.push(Notice::SkippedLines(skipped));
        }
        if list.omitted > 0 {
            report.notices.push(Notice::PathsOmitted(list.omitted));
        }
        return Ok(report);
    }
    let max_bytes = usize::try_from(req.max_bytes).unwrap_or(usize::MAX);
    let opts = ShapeOptions {
        max_depth: req.max_depth,
        // Room for `,"skippedLines":N` within the bound.
        max_bytes: if req.skip_invalid {
            max_bytes.saturating_sub(40).max(MIN_MAX_BYTES)
        } else {
            max_bytes
        },
        sample: None,
    };
    let (skeleton, skipped) = shape::shape_skipping(doc, &opts, req.skip_invalid);
    input.check_unchanged()?;
    let mut json = if skipped > 0 && skeleton.value.is_object() {
        // The skeleton of the records and, beside it, the lines that were not records.
        wire::to_json(&wire::WithSkippedLines {
            shape: &skeleton.value,
            skipped: wire::SkippedLines {
                skipped_lines: skipped,
            },
        })
    } else {
        skeleton.to_json()
    };
    json.push('\n');
    write_all(out, json.as_bytes())?;
    if skipped > 0 {
        report.notices.push(Notice::SkippedLines(skipped));
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::testing::{self, spill};

    #[test]
    fn the_skeleton_of_a_stored_document() {
        let (_dir, store) = testing::store();
        let doc: String = format!(
            "[{}]",
            (0..2000)
                .map(|i| format!(r#"{{"id":{i},"name":"n{i}"}}"#))
                .collect::<Vec<_>>()
                .join(",")
        );
        let r = spill(&store, doc.as_bytes());
        let mut out = Vec::new();
        let report = run(&store, &Request::new(r.as_str()), &mut out).unwrap();
        assert_eq!(
            testing::text(out),
            "{\"array[2000]\":{\"id\":\"integer\",\"name\":\"string\"}}\n"
        );
        assert_eq!(report, Report::new(Outcome::Found));
    }

    #[test]
    fn skipped_ndjson_lines_are_in_the_skeleton_and_a_notice() {
        let (dir, store) = testing::store();
        let mut doc: String = (0..2000).map(|i| format!("{{\"id\":{i}}}\n")).collect();
        doc.push_str("not json\n");
        let file = dir.path().join("records.ndjson");
        std::fs::write(&file, doc).unwrap();
        let req = Request {
            skip_invalid: true,
            ..Request::new(file.to_str().unwrap())
        };
        let mut out = Vec::new();
        let report = run(&store, &req, &mut out).unwrap();
        assert_eq!(
            testing::text(out),
            "{\"ndjson[2000]\":{\"id\":\"integer\"},\"skippedLines\":1}\n"
        );
        assert_eq!(report.notices, [Notice::SkippedLines(1)]);
        assert_eq!(
            report.trailer(),
            "spill: note: skipped 1 line that is not exactly one JSON value (--skip-invalid)\n"
        );
        let paths = Request { paths: true, ..req };
        let mut out = Vec::new();
        let report = run(&store, &paths, &mut out).unwrap();
        assert_eq!(
            testing::text(out),
            "$[*]  object  2000\n$[*].id  integer  2000\n"
        );
        assert_eq!(report.notices, [Notice::SkippedLines(1)]);
    }

    #[test]
    fn a_bound_below_the_minimum_is_a_usage_error() {
        let (_dir, store) = testing::store();
        let req = Request {
            max_bytes: 10,
            ..Request::new("-")
        };
        assert!(matches!(
            run(&store, &req, &mut Vec::new()),
            Err(Error::Usage(_))
        ));
    }
}
