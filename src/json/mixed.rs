//! JSON behind a few lines of other output (README, "Mixed output"). A tool's merged stdout and
//! stderr is often a warning or two, then a JSON document or JSON lines, then a closing line
//! (`npm ls --json` after its `npm error` lines, `ruff --output-format json` after a
//! configuration warning, a log banner before NDJSON). [`find`] locates the JSON part as a
//! range of whole lines; [`analyze`] gives its facts, so the envelope shows its shape and
//! preview, and `shape` and `extract` on the ref read that part (its byte range is recorded
//! with the payload).

use std::fmt::Write as _;

use super::analyze::{Analysis, AnalyzeOptions, JsonFacts, PreviewSource, RecordSignal};
use super::parse::bom_len;
use super::scan::{skip_value, skip_ws_run};
use super::sniff::looks_like_json;
use crate::limits::group_digits;

/// At most this many lines of other output before the JSON part, and as many after it.
pub const OTHER_LINES_MAX: u64 = 20;

/// Where the JSON part of an output lies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Part {
    /// Offset of the first byte of its first line.
    pub start: usize,
    /// Offset just past its last line (before that line's newline).
    pub end: usize,
    /// Its first line (1-based).
    pub first_line: u64,
    /// Its last line.
    pub last_line: u64,
    /// Lines of the whole output.
    pub lines: u64,
}

impl Part {
    /// The line ranges of the other output, `[first, last]` each: before the part, after it.
    pub fn other_lines(&self) -> Vec<[u64; 2]> {
        let mut out = Vec::new();
        if self.first_line > 1 {
            out.push([1, self.first_line - 1]);
        }
        if self.last_line < self.lines {
            out.push([self.last_line + 1, self.lines]);
        }
        out
    }

    /// True when line `n` is outside the JSON part.
    pub fn is_other_line(&self, n: u64) -> bool {
        n < self.first_line || n > self.last_line
    }
}

/// The end of the line that `from` is on: the offset of its `\n`, or `doc.len()`.
fn line_end(doc: &[u8], from: usize) -> usize {
    memchr::memchr(b'\n', &doc[from.min(doc.len())..]).map_or(doc.len(), |i| from + i)
}

/// Where the one JSON value starting at `at` (on the line ending at `le`) ends, when the rest
/// of its line is blank. A bracket alone on its line opens a document that may span lines (the
/// pretty-printed report); any other value must end on its own line, so a log line such as
/// `[INFO] …` costs one line's scan.
fn value_on_line(doc: &[u8], at: usize, le: usize) -> Option<usize> {
    let alone = skip_ws_run(&doc[..le], at + 1) == le;
    let end = if alone {
        skip_value(doc, at).ok()?
    } else {
        skip_value(&doc[..le], at).ok()?
    };
    let vle = line_end(doc, end);
    (skip_ws_run(&doc[..vle], end) == vle).then_some(vle)
}

/// The lines of `bytes` (one per `\n`, plus an unterminated last line), counted up to `max + 1`.
fn lines_up_to(bytes: &[u8], max: u64) -> u64 {
    let newlines = memchr::memchr_iter(b'\n', bytes)
        .take(max as usize + 1)
        .count() as u64;
    newlines + u64::from(!bytes.is_empty() && !bytes.ends_with(b"\n") && newlines <= max)
}

/// True when one of the first 21 lines of `head` (the first bytes of an output) starts a JSON
/// value, so that [`find`] on the whole output may find a part: a cheap test that keeps text
/// without such a line from being read again.
pub fn may_start(head: &[u8]) -> bool {
    json_line_starts(head).next().is_some()
}

/// The lines among the first 21 of `doc` that start a JSON value: (line start, value start,
/// line end, line number).
fn json_line_starts(doc: &[u8]) -> impl Iterator<Item = (usize, usize, usize, u64)> + '_ {
    let mut ls = bom_len(doc);
    let mut line = 1u64;
    std::iter::from_fn(move || {
        while line <= OTHER_LINES_MAX + 1 && ls < doc.len() {
            let le = line_end(doc, ls);
            let at = skip_ws_run(&doc[..le], ls);
            let found = (ls, at, le, line);
            ls = le + 1;
            line += 1;
            if at < le && looks_like_json(&doc[at..]) {
                return Some(found);
            }
        }
        None
    })
}

/// The JSON part of `doc`: a JSON value starting on one of the first 21 lines (at a `{` or `[`
/// that [`looks_like_json`]), then any JSON lines after it, with at most [`OTHER_LINES_MAX`]
/// lines of other output on each side, some of them at least (each blank or holding a letter
/// or digit), and the part holding at least half of the bytes. The part's syntax is not checked here ([`analyze`] does that).
pub fn find(doc: &[u8]) -> Option<Part> {
    json_line_starts(doc).find_map(|(ls, at, le, line)| part_from(doc, ls, at, le, line))
}

/// The part whose first value starts at `at` on line `first_line` (which starts at `ls` and
/// ends at `le`), if the lines around it are few enough.
fn part_from(doc: &[u8], ls: usize, at: usize, le: usize, first_line: u64) -> Option<Part> {
    let mut end = value_on_line(doc, at, le)?;
    let mut last_line = first_line + memchr::memchr_iter(b'\n', &doc[ls..end]).count() as u64;
    // JSON lines after it (NDJSON); blank lines between records belong to the part.
    let (mut next, mut n) = (end + 1, last_line + 1);
    while next < doc.len() {
        let le = line_end(doc, next);
        let at = skip_ws_run(&doc[..le], next);
        if at < le {
            if !matches!(doc[at], b'{' | b'[') {
                break;
            }
            match skip_value(&doc[..le], at) {
                Ok(e) if skip_ws_run(&doc[..le], e) == le => {
                    end = le;
                    last_line = n;
                }
                _ => break,
            }
        }
        next = le + 1;
        n += 1;
    }
    let rest = &doc[(end + 1).min(doc.len())..];
    let after = lines_up_to(rest, OTHER_LINES_MAX);
    if after > OTHER_LINES_MAX
        || (first_line == 1 && after == 0)
        || 2 * (end - ls) < doc.len()
        || !is_other_output(&doc[bom_len(doc)..ls])
        || !is_other_output(rest)
    {
        return None;
    }
    Some(Part {
        start: ls,
        end,
        first_line,
        last_line,
        lines: last_line + after,
    })
}

/// True when every line of `lines` is blank or holds a letter or digit: other output is words,
/// so a stray `}` or `],` after a document is a syntax error of the document, not a line of
/// its own.
fn is_other_output(lines: &[u8]) -> bool {
    lines
        .split(|&b| b == b'\n')
        .all(|l| l.trim_ascii().is_empty() || l.iter().any(u8::is_ascii_alphanumeric))
}

/// The envelope's JSON analysis of a payload: the whole payload when it is JSON or NDJSON
/// ([`super::analyze::analyze`]); else, when it is JSON behind a few lines of other output, the
/// facts of that part, with [`JsonFacts::part`] set, offsets relative to the whole payload and a
/// summary naming the lines of each; else what the whole payload gave.
pub fn analyze(doc: &[u8], opts: &AnalyzeOptions) -> Analysis {
    let first = skip_ws_run(doc, bom_len(doc));
    let whole = if matches!(doc.get(first), Some(b'{' | b'[')) {
        super::analyze::analyze(doc, opts)
    } else {
        Analysis::NotJson { invalid: None }
    };
    if matches!(whole, Analysis::Json(_)) {
        return whole;
    }
    let Some(part) = find(doc) else {
        return whole;
    };
    let Analysis::Json(mut facts) = super::analyze::analyze(&doc[part.start..part.end], opts)
    else {
        return whole;
    };
    facts.preview_source = match facts.preview_source {
        PreviewSource::List(v) => PreviewSource::List(v.iter().map(|o| o + part.start).collect()),
        PreviewSource::One(o) => PreviewSource::One(o + part.start),
    };
    facts.dominant_at = facts.dominant_at.map(|o| o + part.start);
    let _ = write!(
        facts.summary,
        "; on lines {}–{} of {} (other output: {})",
        group_digits(part.first_line),
        group_digits(part.last_line),
        group_digits(part.lines),
        ranges_text(&part.other_lines())
    );
    facts.part = Some(part);
    Analysis::Json(facts)
}

/// `1–3, 2,499`: line ranges as a reader says them.
pub fn ranges_text(ranges: &[[u64; 2]]) -> String {
    ranges
        .iter()
        .map(|&[a, b]| {
            if a == b {
                group_digits(a)
            } else {
                format!("{}–{}", group_digits(a), group_digits(b))
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

impl JsonFacts {
    /// The payload's MIME type: the JSON part's, or `text/plain` for JSON behind other output
    /// (the stored bytes as a whole are not JSON, whatever reads them).
    pub fn payload_mime(&self) -> &'static str {
        if self.part.is_some() {
            "text/plain"
        } else {
            self.mime_type
        }
    }
}

/// The records of the payload `facts` describes that stand out by a rare value
/// ([`super::analyze::records_standing_out`]), with lines and spans in the whole payload: the
/// elements of the dominant array (`$[…]` at the root, `$.results[…]` inside an object), or
/// NDJSON's records (`$[…]`, numbered as `extract` numbers them: blank lines are no records,
/// and with `skip_invalid` the lines that are not one value are skipped the same way).
pub fn record_signals(
    doc: &[u8],
    facts: &JsonFacts,
    skip_invalid: bool,
    max: usize,
) -> Vec<RecordSignal> {
    let (start, end) = facts
        .part
        .map_or((super::parse::bom_len(doc), doc.len()), |p| {
            (p.start, p.end)
        });
    if facts.mime_type == "application/x-ndjson" {
        let lines = super::records::RecordLines::new(&doc[..end], start, skip_invalid);
        return super::analyze::records_standing_out(doc, "$", lines.map(Result::ok), max);
    }
    match (&facts.dominant_path, facts.dominant_at) {
        (Some(path), Some(at)) => super::analyze::records_standing_out(
            doc,
            path,
            super::nav::Value::new(doc, at)
                .elements()
                .map(|el| el.ok().map(|(_, v)| v.offset())),
            max,
        ),
        _ => Vec::new(),
    }
}

/// The records of a JSON document's dominant array as [`super::analyze::dominant_guess`] finds
/// it, read for [`record_signals`] before the strict pass has said where the array is (`wrap`
/// reads them beside that pass): where the array is, and what its records hold.
pub fn records_read_ahead(doc: &[u8]) -> Option<(usize, super::analyze::RecordStats)> {
    let at = super::analyze::dominant_guess(doc)?;
    let records = super::nav::Value::new(doc, at)
        .elements()
        .map(|el| el.ok().map(|(_, v)| v.offset()));
    Some((at, super::analyze::record_stats(doc, records)))
}

/// [`record_signals`] from records read ahead ([`records_read_ahead`]), when they are those of
/// the dominant array `facts` names in a JSON document (not NDJSON, not JSON inside other
/// output): exactly what `record_signals` gives then. `None` when they are not.
pub fn record_signals_read_ahead(
    doc: &[u8],
    facts: &JsonFacts,
    read: &(usize, super::analyze::RecordStats),
    max: usize,
) -> Option<Vec<RecordSignal>> {
    if facts.mime_type != "application/json" || facts.part.is_some() {
        return None;
    }
    match (&facts.dominant_path, facts.dominant_at) {
        (Some(path), Some(at)) if at == read.0 => Some(read.1.signals(doc, path, max)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn facts(doc: &str) -> Option<JsonFacts> {
        match analyze(doc.as_bytes(), &AnalyzeOptions::default()) {
            Analysis::Json(f) => Some(f),
            Analysis::NotJson { .. } => None,
        }
    }

    /// `record_signals` from records read ahead: `Some` exactly when they are the dominant
    /// array's, and then what `record_signals` gives.
    fn read_ahead(doc: &str) -> Option<Vec<RecordSignal>> {
        let f = facts(doc)?;
        let read = records_read_ahead(doc.as_bytes());
        let got = read.and_then(|r| record_signals_read_ahead(doc.as_bytes(), &f, &r, 5));
        if let Some(got) = &got {
            assert_eq!(*got, record_signals(doc.as_bytes(), &f, false, 5), "{doc}");
        }
        got
    }

    fn records(n: usize, rare: usize) -> String {
        let items: Vec<String> = (0..n)
            .map(|i| {
                let status = if i == rare { "failed" } else { "ok" };
                // The first record holds an array longer than the records' own.
                let tags = if i == 0 {
                    (0..n + 100).map(|k| format!("{k}")).collect()
                } else {
                    vec!["1".to_string()]
                };
                format!(
                    r#"{{"id": {i}, "status": "{status}", "tags": [{}]}}"#,
                    tags.join(",")
                )
            })
            .collect();
        format!("[{}]", items.join(",\n "))
    }

    #[test]
    fn records_read_ahead_are_the_dominant_arrays_and_give_the_same_signals() {
        // The array with the most elements, after a smaller one, in nested objects; a bigger
        // one inside its records does not count (it is inside another array's elements).
        let doc = format!(
            r#"{{"meta": {{"pages": [1, 2, 3]}}, "data": {{"items": {}}}, "tail": []}}"#,
            records(300, 211)
        );
        let s = read_ahead(&doc).expect("read ahead");
        assert_eq!(s.len(), 1);
        assert_eq!(s[0].path, "$.data.items[211]");
        // A root array; equal counts keep the first.
        assert_eq!(read_ahead(&records(50, 7)).unwrap()[0].path, "$[7]");
        let tie = format!(r#"{{"a": {}, "b": {}}}"#, records(40, 3), records(40, 9));
        assert_eq!(read_ahead(&tie).unwrap()[0].path, "$.a[3]");
        // No array, an empty one: nothing stands out, read ahead or not.
        assert_eq!(read_ahead(r#"{"a": {"b": 1}}"#), None);
        assert_eq!(read_ahead(r#"{"a": []}"#), Some(Vec::new()));
        // A path longer than the strict pass names: it picks another array, and the records
        // read ahead are not used.
        let long = format!(
            r#"{{"{}": {}, "short": {}}}"#,
            "k".repeat(600),
            records(300, 1),
            records(20, 2)
        );
        assert_eq!(
            facts(&long).unwrap().dominant_path.as_deref(),
            Some("$.short")
        );
        assert_eq!(read_ahead(&long), None);
        // NDJSON and JSON inside other output: not read ahead.
        let ndjson = "{\"a\": [1]}\n{\"a\": [2]}\n";
        assert_eq!(read_ahead(ndjson), None);
        let mixed = format!("starting\n{}\ndone\n", records(300, 5));
        assert_eq!(read_ahead(&mixed), None);
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

        /// The guess finds the strict pass's array in every document short enough that no path
        /// can be too long, and records read ahead never give other signals.
        #[test]
        fn the_guess_is_the_strict_passs_dominant_array(doc in crate::fuzzing::json::tests::json_text()) {
            let Some(f) = facts(&doc) else { return Ok(()) };
            if doc.len() < 400 && f.mime_type == "application/json" && f.part.is_none() {
                prop_assert_eq!(super::super::analyze::dominant_guess(doc.as_bytes()), f.dominant_at, "{}", doc);
            }
            read_ahead(&doc);
        }
    }

    fn lines(n: usize, make: impl Fn(usize) -> String) -> String {
        (0..n).map(|i| make(i) + "\n").collect()
    }

    #[test]
    fn a_document_between_warning_lines_is_found_by_its_lines() {
        let body = format!(
            "[\n{}\n]\n",
            (0..200)
                .map(|i| format!("  {{\"id\": {i}}}"))
                .collect::<Vec<_>>()
                .join(",\n")
        );
        let doc = format!("warning: a removed rule\n    - E999\n\n{body}npm error see the log\n");
        let p = find(doc.as_bytes()).expect("found");
        assert_eq!((p.first_line, p.last_line, p.lines), (4, 205, 206));
        assert_eq!(&doc[p.start..p.start + 2], "[\n");
        assert!(doc[..p.end].ends_with(']'));
        assert_eq!(p.other_lines(), vec![[1, 3], [206, 206]]);
        assert_eq!(ranges_text(&p.other_lines()), "1–3, 206");
        let Analysis::Json(f) = analyze(doc.as_bytes(), &AnalyzeOptions::default()) else {
            panic!("JSON part")
        };
        assert_eq!(f.payload_mime(), "text/plain");
        assert_eq!(f.total_items, Some(200));
        assert!(
            f.summary
                .ends_with("; on lines 4–205 of 206 (other output: 1–3, 206)"),
            "{}",
            f.summary
        );
    }

    #[test]
    fn json_lines_after_a_banner_are_ndjson_up_to_the_first_other_line() {
        let mut doc = String::from("   Compiling demo v0.1.0\n");
        doc.push_str(&lines(100, |i| format!(r#"{{"reason":"msg","n":{i}}}"#)));
        doc.push_str("error: could not compile\n{\"reason\":\"done\"}\n");
        let p = find(doc.as_bytes()).unwrap();
        assert_eq!((p.first_line, p.last_line, p.lines), (2, 101, 103));
        let Analysis::Json(f) = analyze(doc.as_bytes(), &AnalyzeOptions::default()) else {
            panic!()
        };
        assert_eq!(f.mime_type, "application/x-ndjson");
        assert_eq!(f.total_items, Some(100));
    }

    #[test]
    fn logs_and_many_other_lines_are_not_mixed_output() {
        // `[INFO]` lines look like a bracket, not like JSON.
        let log = lines(500, |i| format!("[INFO] step {i} [done]"));
        assert_eq!(find(log.as_bytes()), None);
        // A JSON line in a long log is a line of the log.
        let mut log = String::from("start\n{\"config\": 1}\n");
        log.push_str(&lines(500, |i| format!("step {i}")));
        assert_eq!(find(log.as_bytes()), None);
        // More than 20 lines before the JSON.
        let mut doc = lines(21, |i| format!("note {i}"));
        doc.push_str(&format!("[{}]\n", vec!["1"; 5000].join(",")));
        assert_eq!(find(doc.as_bytes()), None);
        // A stray bracket after a document is the document's error, not other output.
        let mut doc = format!("[{}]\n", vec!["1"; 5000].join(","));
        doc.push_str("}\n");
        assert_eq!(find(doc.as_bytes()), None);
        // Plain JSON is not mixed; a small JSON value beside a large text is not either.
        assert_eq!(find(b"[1,2]\n"), None);
        let mut doc = String::from("{\"a\":1}\n");
        doc.push_str(&"x".repeat(1000));
        assert_eq!(find(doc.as_bytes()), None);
    }

    #[test]
    fn an_invalid_part_leaves_the_output_text() {
        let mut doc = String::from("warning: x\n[\n");
        doc.push_str(&lines(300, |i| format!("  {i},")));
        doc.push_str("]\n");
        // Found by brackets, but a trailing comma is not JSON.
        assert!(find(doc.as_bytes()).is_some());
        assert!(matches!(
            analyze(doc.as_bytes(), &AnalyzeOptions::default()),
            Analysis::NotJson { invalid: None }
        ));
    }
}
