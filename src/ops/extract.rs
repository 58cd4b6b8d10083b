//! `spill extract`: a JSONPath query over a source, written bounded, with the notice of what was
//! cut as the footer.

use std::io::Write;
use std::path::PathBuf;

use crate::diag;
use crate::error::{Error, Result};
use crate::extract::{self, Bounds, Mode, Options};
use crate::json::path::Query;
use crate::limits;
use crate::store::StoreConfig;

use super::{Notice, Outcome, Report};

/// What to select and how to print it (`spill extract`'s flags); `Default` is the command
/// line's defaults.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    /// A ref (`sp_…`), a file path, or `-` for stdin (paths are refused in restricted mode).
    pub source: String,
    /// The RFC 9535 JSONPath query (a leading `$` may be left out).
    pub query: Option<String>,
    /// `--from-file`: read the query from this file instead (refused in restricted mode).
    pub from_file: Option<PathBuf>,
    /// `--nodes` / `--raw` / neither.
    pub mode: Mode,
    /// `--compact`: one line instead of 2-space indentation.
    pub compact: bool,
    /// `--offset`: selected nodes skipped.
    pub offset: usize,
    /// `--max-items`: elements or members shown per container, and nodes per list.
    pub max_items: usize,
    /// `--max-depth`: container levels shown.
    pub max_depth: usize,
    /// `--max-string`: characters shown per string.
    pub max_string: usize,
    /// `--max-bytes`: the whole output stays within this size (0 lifts every bound).
    pub max_bytes: u64,
    /// `--unbounded`: lift every bound.
    pub unbounded: bool,
    /// `--skip-invalid`: NDJSON lines that are not one JSON value are skipped and counted.
    pub skip_invalid: bool,
}

impl Default for Request {
    fn default() -> Request {
        Request {
            source: String::new(),
            query: None,
            from_file: None,
            mode: Mode::Values,
            compact: false,
            offset: 0,
            max_items: limits::EXTRACT_MAX_ITEMS,
            max_depth: limits::EXTRACT_MAX_DEPTH,
            max_string: limits::EXTRACT_MAX_STRING,
            max_bytes: limits::EXTRACT_MAX_BYTES,
            unbounded: false,
            skip_invalid: false,
        }
    }
}

impl Request {
    /// The default request for this source and query.
    pub fn new(source: impl Into<String>, query: impl Into<String>) -> Request {
        Request {
            source: source.into(),
            query: Some(query.into()),
            ..Request::default()
        }
    }
}

/// Runs `spill extract`: writes the selection to `out`; what was cut (and the command that
/// continues it) is the footer. Nothing selected is [`Outcome::NotFound`] with a
/// [`Notice::NoMatch`] saying why.
pub fn run(store: &StoreConfig, req: &Request, out: &mut dyn Write) -> Result<Report> {
    // The query is checked before the source is read: a typo costs nothing.
    let text = query_text(req, store.restricted)?;
    let query = Query::parse_lenient(&text)?;
    let mode = req.mode;
    if req.offset > 0 && query.is_singular() && mode != Mode::Nodes {
        return Err(Error::Usage(format!(
            "--offset pages through a list of nodes, and {:?} is a singular query (it selects at most one)",
            diag::echo(&text)
        )));
    }
    let max_bytes = req.max_bytes;
    if max_bytes > 0 && !req.unbounded && max_bytes < extract::MIN_MAX_BYTES as u64 {
        return Err(Error::Usage(format!(
            "--max-bytes {max_bytes}: extract needs at least {} bytes for the list and a marker (0 lifts every bound)",
            extract::MIN_MAX_BYTES
        )));
    }
    let bounds = (!req.unbounded && max_bytes > 0).then(|| Bounds {
        max_items: req.max_items,
        max_depth: req.max_depth,
        max_string: req.max_string,
        max_bytes: Some(usize::try_from(max_bytes).unwrap_or(usize::MAX)),
    });
    let input = crate::source::open(&req.source, store)?;
    super::known_invalid_json(store, &input)?;
    // Follow-up commands name the entry itself: a short form (`@1`) moves with the next wrap.
    let shown = input.reference.map(|r| r.to_string());
    let opts = Options {
        source: shown.as_deref().unwrap_or(&req.source),
        bounds,
        mode,
        compact: req.compact,
        offset: req.offset,
        skip_invalid: req.skip_invalid,
    };
    // A ref holding JSON behind other output: its JSON part.
    let (doc, part_note) = crate::source::json_part(&input, store);
    let result = extract::extract(doc, &query, &opts, out);
    // A source that shrank under its map explains any error it caused.
    input.check_unchanged()?;
    let result = result?;
    let mut report = Report::new(Outcome::Found);
    report.notices.extend(part_note.map(Notice::JsonPart));
    if result.skipped_lines > 0 {
        report
            .notices
            .push(Notice::SkippedLines(result.skipped_lines));
    }
    // An invalid pattern is false for every value (RFC 9535); the note says why, after stdout.
    let invalid = query.invalid_patterns();
    let pattern = invalid.first().map(|first| Notice::InvalidPattern {
        function: first.function.to_string(),
        pattern: first.pattern.clone(),
        reason: first.reason.clone(),
        more: invalid.len() - 1,
    });
    if let Some(why) = &result.no_match {
        report.outcome = Outcome::NotFound;
        report.notices.extend(pattern);
        report.notices.push(Notice::NoMatch(why.clone()));
        return Ok(report);
    }
    match result.notice() {
        Some(line) => report.footer = Some(diag::escape(&line)),
        None if result.shown == 0 && result.selected > 0 => {
            report.notices.push(Notice::NothingPastOffset {
                offset: req.offset,
                selected: result.selected,
            });
        }
        None => {}
    }
    report.notices.extend(pattern);
    Ok(report)
}

/// The query as given, or read from the `--from-file` file.
fn query_text(req: &Request, restricted: bool) -> Result<String> {
    if let Some(q) = &req.query {
        return Ok(q.clone());
    }
    let Some(path) = &req.from_file else {
        return Err(Error::Usage(
            "a QUERY (or --from-file FILE) is required".into(),
        ));
    };
    if restricted {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::testing::{self, spill};

    fn items(n: usize) -> Vec<u8> {
        format!(
            r#"{{"items":[{}]}}"#,
            (0..n)
                .map(|i| format!(r#"{{"id":{i},"name":"item number {i}"}}"#))
                .collect::<Vec<_>>()
                .join(",")
        )
        .into_bytes()
    }

    #[test]
    fn a_singular_query_prints_the_value_whole() {
        let (_dir, store) = testing::store();
        let r = spill(&store, &items(1000));
        let mut out = Vec::new();
        let report = run(&store, &Request::new(r.as_str(), "$.items[7]"), &mut out).unwrap();
        assert_eq!(
            testing::text(out),
            "{\n  \"id\": 7,\n  \"name\": \"item number 7\"\n}\n"
        );
        assert_eq!(report, Report::new(Outcome::Found));
    }

    #[test]
    fn a_cut_list_names_the_next_page_in_the_footer() {
        let (_dir, store) = testing::store();
        let r = spill(&store, &items(1000));
        let req = Request {
            compact: true,
            ..Request::new(r.as_str(), "$.items[*].id")
        };
        let mut out = Vec::new();
        let report = run(&store, &req, &mut out).unwrap();
        let text = testing::text(out);
        assert!(text.starts_with("[0,1,2,"), "{text}");
        let footer = report.footer.unwrap();
        assert!(footer.contains("--offset 50"), "{footer}");
        assert!(footer.contains(&r), "{footer}");
        assert!(report.notices.is_empty());
    }

    #[test]
    fn nothing_selected_is_not_found_with_the_reason() {
        let (_dir, store) = testing::store();
        let r = spill(&store, &items(1000));
        let req = Request::new(r.as_str(), "$.nope[?match(@, '[')]");
        let mut out = Vec::new();
        let report = run(&store, &req, &mut out).unwrap();
        assert_eq!(report.outcome, Outcome::NotFound);
        assert!(report.footer.is_none());
        let [pattern, why] = report.notices.as_slice() else {
            panic!("{:?}", report.notices)
        };
        assert!(
            matches!(pattern, Notice::InvalidPattern { function, more: 0, .. } if function == "match")
        );
        assert!(matches!(why, Notice::NoMatch(_)));
        let trailer = report.trailer();
        assert!(
            trailer.starts_with("spill: note: match() pattern '[' is not valid I-Regexp"),
            "{trailer}"
        );
        assert!(trailer.contains("\nspill: "), "{trailer}");
    }

    #[test]
    fn an_offset_past_the_list_is_a_notice() {
        let (_dir, store) = testing::store();
        let r = spill(&store, &items(1000));
        let req = Request {
            offset: 5000,
            ..Request::new(r.as_str(), "$.items[*].id")
        };
        let mut out = Vec::new();
        let report = run(&store, &req, &mut out).unwrap();
        assert_eq!(
            report.notices,
            [Notice::NothingPastOffset {
                offset: 5000,
                selected: 1000
            }]
        );
        assert_eq!(
            report.notices[0].to_string(),
            "nothing past --offset 5000: the query selects 1,000 nodes"
        );
    }

    #[test]
    fn from_file_is_refused_in_restricted_mode() {
        let dir = tempfile::tempdir().unwrap();
        let (_d, mut store) = testing::store();
        let query = dir.path().join("q");
        std::fs::write(&query, "$.a\n").unwrap();
        let doc = dir.path().join("doc.json");
        std::fs::write(&doc, r#"{"a":1}"#).unwrap();
        let req = Request {
            source: doc.to_str().unwrap().into(),
            from_file: Some(query),
            ..Request::default()
        };
        let mut out = Vec::new();
        run(&store, &req, &mut out).unwrap();
        assert_eq!(out, b"1\n");
        store.restricted = true;
        let err = run(&store, &req, &mut Vec::new()).unwrap_err();
        assert!(err.to_string().contains("--from-file is refused"), "{err}");
    }
}
