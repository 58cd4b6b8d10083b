//! The NDJSON rule, in one place for `wrap`, `shape`, `extract` and `search --paths`: a record
//! is one line holding exactly one JSON value; blank lines are skipped. A line that is not
//! exactly one value makes the stream invalid NDJSON (an error naming the line), unless the
//! caller asked to skip such lines, which are then counted. So an index always means the same
//! line's record, whatever the query and whichever command reads it.
//!
//! A source is NDJSON when its first non-blank line holds exactly one JSON value and another
//! non-blank line follows; otherwise it is one JSON document (which may span lines). That is
//! decided from the first line alone, so a query on a pretty 1 GB document stays a prefix read.

use super::SyntaxError;
use super::parse::{bom_len, validate_value};
use super::scan::{skip_record_line, skip_value, skip_ws_run};

/// Whether a source is read as one JSON document or as NDJSON records.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// One JSON value (it may span lines).
    Json,
    /// Records, one per line.
    Ndjson,
}

/// The end of the line that `from` is on: the offset of its `\n`, or `doc.len()`.
fn line_end(doc: &[u8], from: usize) -> usize {
    memchr::memchr(b'\n', &doc[from.min(doc.len())..]).map_or(doc.len(), |i| from + i)
}

/// How `doc` is laid out, from its first non-blank line (see the module docs).
///
/// The first line is measured with the fast skip (strict on scalars, bracket-balanced in
/// containers); the record itself is checked strictly when it is read. With `skip_invalid`, a
/// first line that is not one value makes the source NDJSON unless the whole source is one
/// valid JSON document (checked strictly: only then is the whole source read up front).
pub fn layout(doc: &[u8], skip_invalid: bool) -> Layout {
    let start = skip_ws_run(doc, bom_len(doc));
    if start == doc.len() {
        return Layout::Json;
    }
    let end = line_end(doc, start);
    if end == doc.len() {
        // One line: one document (the common minified file is never skipped twice).
        return Layout::Json;
    }
    let more_lines = skip_ws_run(doc, end) < doc.len();
    if !skip_invalid && !more_lines {
        // One line and only blank ones after it (a minified document and its final line
        // break): one document whatever the line holds, as both arms below would answer,
        // without skipping the whole line first.
        return Layout::Json;
    }
    match skip_value(&doc[..end], start) {
        Ok(value_end) if skip_ws_run(&doc[..end], value_end) == end => {
            if more_lines {
                Layout::Ndjson
            } else {
                Layout::Json
            }
        }
        _ if skip_invalid && super::parse::validate(doc).is_err() => Layout::Ndjson,
        _ => Layout::Json,
    }
}

/// The record of the line starting at `from`: `Ok(None)` for a blank line, else the offsets of
/// the value and of the line's end. A line that does not hold exactly one value is an error
/// that names the line.
///
/// `strict` checks the value as [`validate_value`] does. Otherwise the line is measured with
/// the fast skip (scalars strictly, containers by their brackets and quotes), which is enough
/// to know which lines are records when any line that is not one is an error anyway; a caller
/// that prints a record checks it then. Skipping lines (`--skip-invalid`) must be strict, or
/// an index would depend on how much of a line was read.
pub fn line_record(
    doc: &[u8],
    from: usize,
    strict: bool,
) -> Result<Option<(usize, usize)>, SyntaxError> {
    record_in(doc, from, line_end(doc, from), strict)
}

/// [`line_record`] of the line `from..end` (`end` its `\n` or the end of `doc`).
#[inline]
fn record_in(
    doc: &[u8],
    from: usize,
    end: usize,
    strict: bool,
) -> Result<Option<(usize, usize)>, SyntaxError> {
    let line = &doc[..end];
    let start = skip_ws_run(line, from);
    if start == end {
        return Ok(None);
    }
    let value_end = if strict {
        validate_value(line, start)
    } else {
        skip_value(line, start)
    };
    let error = match value_end {
        Ok(value_end) if skip_ws_run(line, value_end) == end => return Ok(Some((start, end))),
        Ok(value_end) if strict => SyntaxError::new(
            doc,
            skip_ws_run(line, value_end),
            "unexpected data after the JSON value",
        ),
        // The fast skip found the line wrong: the strict parser says where (errors are rare).
        _ if !strict => return record_in(doc, from, end, true),
        Ok(_) => unreachable!("handled above"),
        Err(e) => e,
    };
    let message = format!(
        "line {} is not one JSON value ({}); NDJSON holds one value per line \
         (--skip-invalid skips and counts such lines)",
        error.line, error.message
    );
    Err(SyntaxError::new(doc, error.offset as usize, &message))
}

/// The usual record, found in one pass: a line that starts with an object or array which closes
/// on that line, followed by its line break or the end of `doc`. Returns the record's offset
/// and the next line's; `None` for any other line, which [`record_in`] then reads (the answer
/// is the same: this only spares the separate search for the line's end).
#[inline]
fn one_line_container(doc: &[u8], from: usize) -> Option<(usize, usize)> {
    if !matches!(doc.get(from), Some(b'{' | b'[')) {
        return None;
    }
    match skip_record_line(doc, from)? {
        (end, false) if end == doc.len() => Some((from, end)),
        (end, false) if doc[end] == b'\n' => Some((from, end + 1)),
        _ => None,
    }
}

/// The records of an NDJSON source from offset `from` (a line start) on, each checked strictly,
/// with the lines that are not one value skipped and counted when `skip_invalid` is set.
#[derive(Debug, Clone)]
pub struct RecordLines<'d> {
    doc: &'d [u8],
    pos: usize,
    skip_invalid: bool,
    /// Lines skipped so far (with `skip_invalid`).
    pub skipped: u64,
}

impl<'d> RecordLines<'d> {
    /// The records of `doc` from `from` on.
    pub fn new(doc: &'d [u8], from: usize, skip_invalid: bool) -> Self {
        RecordLines {
            doc,
            pos: from,
            skip_invalid,
            skipped: 0,
        }
    }
}

impl Iterator for RecordLines<'_> {
    /// The offset of a record's value.
    type Item = Result<usize, SyntaxError>;
    fn next(&mut self) -> Option<Self::Item> {
        while self.pos < self.doc.len() {
            let from = self.pos;
            if !self.skip_invalid
                && let Some((start, next)) = one_line_container(self.doc, from)
            {
                self.pos = next;
                return Some(Ok(start));
            }
            let end = line_end(self.doc, from);
            self.pos = (end + 1).min(self.doc.len());
            match record_in(self.doc, from, end, self.skip_invalid) {
                Ok(None) => {}
                Ok(Some((start, _))) => return Some(Ok(start)),
                Err(_) if self.skip_invalid => self.skipped += 1,
                Err(e) => {
                    self.pos = self.doc.len();
                    return Some(Err(e));
                }
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn starts(doc: &[u8], skip: bool) -> Result<(Vec<usize>, u64), SyntaxError> {
        let mut it = RecordLines::new(doc, 0, skip);
        let mut v = Vec::new();
        for r in it.by_ref() {
            v.push(r?);
        }
        Ok((v, it.skipped))
    }

    #[test]
    fn a_record_is_a_line() {
        let doc = b"{\"a\":0}\n\n  {\"a\":1}\r\nnot json here\n{\"a\":3}\n";
        let e = starts(doc, false).unwrap_err();
        assert_eq!((e.offset, e.line), (20, 4));
        assert!(
            e.message.starts_with("line 4 is not one JSON value"),
            "{}",
            e.message
        );
        assert_eq!(starts(doc, true).unwrap(), (vec![0, 11, 34], 1));
        // Two values on a line, a value across lines: neither is a record.
        assert!(starts(b"{} {}\n", false).is_err());
        assert_eq!(starts(b"{} {}\n[1]\n", true).unwrap(), (vec![6], 1));
        assert_eq!(starts(b"{\n}\n[1]\n", true).unwrap(), (vec![4], 2));
        assert_eq!(starts(b"[2024-01-02]\n[1]", true).unwrap(), (vec![13], 1));
    }

    /// The one-pass path for the usual line agrees with reading every line by its end.
    #[test]
    fn the_one_pass_record_agrees_with_the_line_reader() {
        let reference = |doc: &[u8]| -> Result<Vec<usize>, SyntaxError> {
            let (mut from, mut v) = (0, Vec::new());
            while from < doc.len() {
                if let Some((start, _)) = line_record(doc, from, false)? {
                    v.push(start);
                }
                from = (line_end(doc, from) + 1).min(doc.len());
            }
            Ok(v)
        };
        let docs: &[&[u8]] = &[
            b"{\"a\":1}\n[2]\n",
            b"{\"a\":1} \n[2]\t\r\n{}",
            b"{\"a\":1}\r\n{}\n\n\n[]",
            b"{}{}\n[1]\n",
            b"{\n}\n[1]\n",
            b"[1]x\n{}\n",
            b"{\"a\":\"b\nc\"}\n{}\n",
            b"{\"a\":[1,2]\n",
            b"[1,2]]\n{}\n",
            b"{} \n 3\n{}",
        ];
        for doc in docs {
            let got = starts(doc, false).map(|(v, _)| v);
            match (got, reference(doc)) {
                (Ok(a), Ok(b)) => assert_eq!(a, b, "{:?}", String::from_utf8_lossy(doc)),
                (Err(a), Err(b)) => assert_eq!(a, b, "{:?}", String::from_utf8_lossy(doc)),
                (a, b) => panic!("{:?}: {a:?} vs {b:?}", String::from_utf8_lossy(doc)),
            }
        }
    }

    #[test]
    fn layout_from_the_first_line() {
        assert_eq!(layout(b"{\"a\":1}\n{\"a\":2}\n", false), Layout::Ndjson);
        assert_eq!(layout(b"{\"a\":1}\n\n", false), Layout::Json);
        assert_eq!(layout(b"{\n\"a\":1}\n", false), Layout::Json);
        assert_eq!(layout(b"{\n\"a\":1}\n", true), Layout::Json);
        assert_eq!(layout(b"starting\n{\"a\":1}\n", false), Layout::Json);
        assert_eq!(layout(b"starting\n{\"a\":1}\n", true), Layout::Ndjson);
        assert_eq!(layout(b"{} {}\n", false), Layout::Json);
        // One line and blank ones: one document, valid or not; skipping invalid lines, an
        // invalid one is an NDJSON record to skip.
        assert_eq!(layout(b"{\"a\":1}\n \n", false), Layout::Json);
        assert_eq!(layout(b"{\"a\":1}\n \n", true), Layout::Json);
        assert_eq!(layout(b"{\"a\":1\n\n", false), Layout::Json);
        assert_eq!(layout(b"{\"a\":1\n\n", true), Layout::Ndjson);
    }
}
