//! `extract`: select nodes of a JSON or NDJSON source with an RFC 9535 JSONPath query and
//! write them, bounded (README, `spill extract`).
//!
//! The query is evaluated lazily over the memory-mapped bytes ([`JsonDoc`]): whatever it cannot
//! reach is jumped over with the engine's SIMD skip, each selected node is written as soon as it
//! is found, and a singular query stops reading at its node. A filter looks at one candidate at
//! a time, so memory does not grow with the input. Selected values are copied from the source
//! (numbers and strings exactly as written) and checked as they are printed.

mod render;

use std::io::Write;
use std::ops::ControlFlow;

pub use crate::json::json_string;
pub use crate::json::path::JsonDoc;
pub use render::{Bounds, Cuts, MIN_MAX_BYTES, shell_quote};

use crate::error::{Error, Result};
use crate::json::path::{NormPath, Query, explain_no_match};
use crate::json::{SyntaxError, Value, validate_value};
use crate::limits::group_digits;
use render::{Continue, CutKind, Out, Writer};

/// How selected nodes are printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// A singular query prints its value, any other a JSON array of values.
    Values,
    /// `[{"path": …, "value": …}]` with RFC 9535 normalized paths, for every query.
    Nodes,
    /// Each selected string without quotes on its own line, other values compact (`jq -r`).
    Raw,
}

/// What to extract and how to print it.
#[derive(Debug, Clone)]
pub struct Options<'a> {
    /// SOURCE as the user gave it: continuation commands name it.
    pub source: &'a str,
    /// The bounds; `None` lifts them all (`--unbounded`, `--max-bytes 0`).
    pub bounds: Option<Bounds>,
    /// The output mode.
    pub mode: Mode,
    /// One line instead of 2-space indentation.
    pub compact: bool,
    /// Nodes of the list skipped before the first one printed.
    pub offset: usize,
    /// NDJSON lines that are not exactly one JSON value are skipped and counted
    /// (`--skip-invalid`) instead of being an error.
    pub skip_invalid: bool,
}

/// What an extraction did.
#[derive(Debug, Clone, Default)]
pub struct Report {
    /// Nodes the query selected in the whole source.
    pub selected: u64,
    /// Nodes printed.
    pub shown: u64,
    /// The first node printed, 1-based (after `--offset`).
    pub first_shown: u64,
    /// The output was a single value (a singular query without `--nodes`).
    pub singular: bool,
    /// The command printing the rest of a cut list (`--offset N`).
    pub list_next: Option<String>,
    /// What was cut inside the values printed.
    pub cuts: Cuts,
    /// Why nothing was selected, when nothing was.
    pub no_match: Option<String>,
    /// NDJSON lines skipped because they are not one value (`--skip-invalid`): in the whole
    /// source when the evaluation read to its end, else before the node printed.
    pub skipped_lines: u64,
}

impl Report {
    /// The one notice line: what was cut and the command that continues it, or `None`
    /// when everything selected was printed whole.
    pub fn notice(&self) -> Option<String> {
        let mut parts = Vec::new();
        if self.list_next.is_some() && self.shown == 0 {
            parts.push(format!("nodes: 0 of {} shown", group_digits(self.selected)));
        } else if self.list_next.is_some() {
            parts.push(format!(
                "nodes {}–{} of {}",
                group_digits(self.first_shown),
                group_digits(self.first_shown + self.shown.saturating_sub(1)),
                group_digits(self.selected)
            ));
        }
        let c = &self.cuts;
        let mut cut = Vec::new();
        if c.items > 0 {
            cut.push(format!(
                "{} more {}",
                group_digits(c.items),
                if c.items == 1 { "item" } else { "items" },
            ));
        }
        if c.members > 0 {
            cut.push(format!(
                "{} more {}",
                group_digits(c.members),
                if c.members == 1 { "member" } else { "members" },
            ));
        }
        if c.strings > 0 {
            cut.push(format!(
                "{} long {}",
                group_digits(c.strings),
                if c.strings == 1 { "string" } else { "strings" }
            ));
        }
        if c.deep > 0 {
            cut.push(format!(
                "{} deep {}",
                group_digits(c.deep),
                if c.deep == 1 {
                    "container"
                } else {
                    "containers"
                }
            ));
        }
        if !cut.is_empty() {
            parts.push(format!("cut: {}", cut.join(", ")));
        }
        let next = self.list_next.as_ref().or(c.first_next.as_ref())?;
        parts.push(format!("next: {next}"));
        Some(parts.join(" · "))
    }
}

/// Evaluates `query` on the JSON or NDJSON document `bytes` and writes the result to `w`.
///
/// Errors: invalid JSON met on the way (with byte offset and line:column) and write errors.
/// Selecting nothing is not an error: [`Report::no_match`] explains it.
///
/// ```
/// use spill::extract::{extract, Bounds, Mode, Options};
/// use spill::json::path::Query;
///
/// let doc = br#"{"items":[{"id":1,"n":12345678901234567890123},{"id":2},{"id":3}]}"#;
/// let query = Query::parse_lenient("items[*].id").unwrap(); // read as $.items[*].id
/// let opts = Options {
///     source: "items.json",
///     bounds: Some(Bounds { max_items: 2, max_depth: 8, max_string: 1000, max_bytes: None }),
///     mode: Mode::Values,
///     compact: true,
///     offset: 0,
///     skip_invalid: false,
/// };
/// let mut out = Vec::new();
/// let report = extract(doc, &query, &opts, &mut out).unwrap();
/// // Two of three nodes shown; the cut says how to continue (with the query as typed).
/// assert_eq!(
///     String::from_utf8(out).unwrap(),
///     "[1,2,\"… 1 more node: spill extract items.json 'items[*].id' --offset 2\"]\n"
/// );
/// assert_eq!((report.selected, report.shown), (3, 2));
///
/// // Numbers are copied exactly as written; a singular query prints the value itself.
/// let big = Query::parse_lenient("$.items[0].n").unwrap();
/// let mut out = Vec::new();
/// extract(doc, &big, &Options { bounds: None, ..opts }, &mut out).unwrap();
/// assert_eq!(out, b"12345678901234567890123\n");
/// ```
pub fn extract(
    bytes: &[u8],
    query: &Query,
    opts: &Options<'_>,
    w: &mut dyn Write,
) -> Result<Report> {
    let (doc, root) = JsonDoc::open(bytes, opts.skip_invalid)?;
    let bounds = opts.bounds.unwrap_or(Bounds {
        max_items: usize::MAX,
        max_depth: usize::MAX,
        max_string: usize::MAX,
        max_bytes: None,
    });
    let pretty = !opts.compact && opts.mode != Mode::Raw;
    let mut out = Out::new(w, bounds.max_bytes, pretty);
    let cont = Continue {
        prefix: format!("spill extract {}", shell_quote(opts.source)),
    };
    let writer = Writer {
        doc_len: bytes.len(),
        records_from: doc.first(),
        skip_invalid: opts.skip_invalid,
        bounds,
        cont: &cont,
        cuts: Cuts::default(),
    };
    let report = if query.is_singular() && opts.mode != Mode::Nodes {
        extract_one(&doc, root, query, opts, &mut out, writer)?
    } else {
        extract_list(&doc, root, query, opts, &mut out, writer)?
    };
    out.finish()
        .map_err(|e| Error::stream("write to stdout", e))?;
    Ok(report)
}

/// A singular query without `--nodes`: its value itself, or nothing.
fn extract_one<'d>(
    doc: &JsonDoc<'d>,
    root: Value<'d>,
    query: &Query,
    opts: &Options<'_>,
    out: &mut Out<'_>,
    mut writer: Writer<'_>,
) -> Result<Report> {
    let mut report = Report {
        singular: true,
        ..Report::default()
    };
    let mut found = None;
    let _ = query.select(doc, root, |p, n| {
        found = Some((p.clone().into_owned(), n));
        ControlFlow::Break(())
    })?;
    // A singular query stops at its node: what it read is checked through the byte after the
    // node; one that found nothing read to the end, which is checked too.
    match &found {
        Some((path, v)) => {
            doc.check_after(*v, path)?;
            report.skipped_lines = doc.skipped_before(v.offset());
        }
        None => report.skipped_lines = doc.check_end(root, None)?,
    }
    match found {
        Some((mut path, v)) if opts.offset == 0 => {
            report.selected = 1;
            report.shown = 1;
            report.first_shown = 1;
            if opts.mode == Mode::Raw {
                raw_item(out, &mut writer, v, &mut path, true)?;
            } else {
                // The final line break is part of the output: reserved like a bracket. The
                // value always fits in its smallest form above the floor (MIN_MAX_BYTES).
                out.reserve += 1;
                writer.value(out, v, &mut path, 0, true)?;
                out.reserve -= 1;
                out.push(b"\n");
            }
        }
        Some(_) => report.selected = 1,
        None => report.no_match = Some(explain_no_match(query, doc, root)?),
    }
    report.cuts = writer.cuts;
    Ok(report)
}

/// Any other query: the list of the selected nodes, `--offset` skipped, cut at `--max-items`
/// or the byte bound with a marker naming the command that pages on.
fn extract_list<'d>(
    doc: &JsonDoc<'d>,
    root: Value<'d>,
    query: &Query,
    opts: &Options<'_>,
    out: &mut Out<'_>,
    mut writer: Writer<'_>,
) -> Result<Report> {
    let mut list = List {
        mode: opts.mode,
        offset: opts.offset,
        max_items: writer.bounds.max_items,
        total: 0,
        shown: 0,
        cut: false,
        reserve: 0,
        short_reserve: 0,
        furthest: None,
    };
    let query_text = shell_quote(query.text());
    if opts.mode != Mode::Raw {
        out.push(b"[");
    }
    list.reserve_marker(out, writer.doc_len, &writer.cont.prefix, &query_text);
    let mut failure: Option<SyntaxError> = None;
    let _ = query.select_json(doc, root, |p, n| {
        match list.item(doc, out, &mut writer, p, n) {
            Ok(()) if !out.failed() => ControlFlow::Continue(()),
            Ok(()) => ControlFlow::Break(()),
            Err(e) => {
                failure = Some(e);
                ControlFlow::Break(())
            }
        }
    })?;
    if let Some(e) = failure {
        return Err(e.into());
    }
    // Every node was checked before it was printed; the evaluation read to the end, so the
    // end is checked too (trailing data after the root is an error, not ignored).
    let skipped_lines = doc.check_end(root, list.furthest)?;
    out.reserve -= list.reserve;
    let list_next = list.close(out, &writer.cont.prefix, &query_text);
    let no_match = if list.total == 0 {
        Some(explain_no_match(query, doc, root)?)
    } else {
        None
    };
    let report = Report {
        selected: list.total,
        shown: list.shown,
        first_shown: list.offset as u64 + 1,
        singular: false,
        list_next,
        cuts: writer.cuts,
        no_match,
        skipped_lines,
    };
    Ok(report)
}

/// Bytes reserved for the fixed text of the list's marker
/// (`"… N more nodes: spill extract SOURCE QUERY --offset M --nodes"`) besides its two counts
/// and the JSON strings of SOURCE's command and the query: `"… `, ` more nodes: `, ` `,
/// ` --offset `, ` --nodes` and the closing quote take 38 bytes, and those strings' own quotes
/// (counted with them) 4 more than the marker holds; 50 leaves the rest to spare.
const LIST_MARKER_WORDS: usize = 50;
/// The same for the marker without its command (`"… N more nodes"`, one count): `"… `,
/// ` more nodes` and the closing quote take 17 bytes, 20 with room to spare.
const LIST_MARKER_SHORT_WORDS: usize = 20;

/// The list of selected nodes being written.
struct List {
    mode: Mode,
    offset: usize,
    max_items: usize,
    total: u64,
    shown: u64,
    /// Set once a node did not fit or `max_items` were shown: the rest is only counted.
    cut: bool,
    /// What the list's marker and closing bracket hold in reserve now, and at the least
    /// (a marker without its command).
    reserve: usize,
    short_reserve: usize,
    /// The end of the furthest node selected and its depth, from which
    /// [`JsonDoc::check_end`] scans to the end of the document.
    furthest: Option<(usize, usize)>,
}

impl List {
    /// Reserves room for the list's marker and closing bracket, as a container does: with its
    /// command when that fits the bound, else without it (a long query or SOURCE).
    fn reserve_marker(&mut self, out: &mut Out<'_>, doc_len: usize, prefix: &str, query: &str) {
        let list_close = out.newline_len(0) + 2;
        // No count exceeds the document's length in bytes: its digits bound every number.
        let digits = group_digits(doc_len as u64).len();
        let full_reserve = list_close
            + 1
            + out.newline_len(1)
            + 2 * digits
            + LIST_MARKER_WORDS
            + json_string(prefix).len()
            + json_string(query).len();
        let short_reserve = list_close + 1 + out.newline_len(1) + digits + LIST_MARKER_SHORT_WORDS;
        let reserve = if out.fits(full_reserve) {
            full_reserve
        } else {
            short_reserve
        };
        out.reserve += reserve;
        self.reserve = reserve;
        self.short_reserve = short_reserve;
    }

    /// Writes the list's end: the marker counting the nodes left, when any are, and the
    /// closing bracket. Returns the command printing the rest.
    fn close(&self, out: &mut Out<'_>, prefix: &str, query: &str) -> Option<String> {
        let listed = self.total.saturating_sub(self.offset as u64);
        let left = listed.saturating_sub(self.shown);
        let mut next = None;
        if left > 0 {
            let flags = match self.mode {
                Mode::Nodes => " --nodes",
                Mode::Raw => " -r",
                Mode::Values => "",
            };
            let next_offset = self.offset as u64 + self.shown;
            let cmd = format!("{prefix} {query} --offset {next_offset}{flags}");
            let text = format!(
                "… {} more {}: {cmd}",
                group_digits(left),
                if left == 1 { "node" } else { "nodes" }
            );
            if self.mode == Mode::Raw {
                // Without its command when that does not fit (the notice names it), as below.
                let line = if out.fits(text.len() + 1) {
                    &text[..]
                } else {
                    &text[..text.find(": ").unwrap_or(text.len())]
                };
                out.push(line.as_bytes());
                out.push(b"\n");
            } else {
                if self.shown > 0 {
                    out.push(b",");
                }
                out.newline(1);
                // Without its command when that does not fit (the notice names it).
                let mut marker = json_string(&text);
                if !out.fits(marker.len() + out.newline_len(0) + 2) {
                    marker = json_string(&text[..text.find(": ").unwrap_or(text.len())]);
                }
                out.push(marker.as_bytes());
            }
            next = Some(cmd);
        }
        if self.mode != Mode::Raw {
            if self.shown > 0 || left > 0 {
                out.newline(0);
            }
            out.push(b"]\n");
        }
        next
    }

    fn item<'d>(
        &mut self,
        doc: &JsonDoc<'d>,
        out: &mut Out<'_>,
        writer: &mut Writer<'_>,
        p: &NormPath<'_>,
        v: Value<'d>,
    ) -> std::result::Result<(), SyntaxError> {
        // The byte after the node is checked even when the node is not printed (past
        // `--offset` or the bounds): an index or a count is only right in a valid document.
        let end = doc.check_after(v, p)?;
        if self.furthest.is_none_or(|(e, _)| end > e) {
            self.furthest = Some((end, p.len()));
        }
        self.total += 1;
        if self.total <= self.offset as u64 || self.cut {
            return Ok(());
        }
        if self.shown >= self.max_items as u64 {
            self.cut = true;
            return Ok(());
        }
        let first = self.shown == 0;
        let checkpoint = out.pos();
        // The path is only needed to name a cut (inside a container or a long string):
        // numbers and literals go without copying it (a list of a million ids allocates nothing).
        let mut path: NormPath<'d> = match v.doc().get(v.offset()) {
            Some(b'-' | b'0'..=b'9' | b't' | b'f' | b'n') => NormPath::root(),
            _ => p.clone().into_owned(),
        };
        let written = loop {
            let written = match self.mode {
                Mode::Raw => raw_item(out, writer, v, &mut path, first)?,
                Mode::Values => {
                    if !first {
                        out.push(b",");
                    }
                    out.newline(1);
                    writer.value(out, v, &mut path, 1, first)?
                }
                Mode::Nodes => {
                    if !first {
                        out.push(b",");
                    }
                    out.newline(1);
                    out.push(b"{");
                    out.newline(2);
                    out.push(if out.pretty {
                        b"\"path\": "
                    } else {
                        b"\"path\":"
                    });
                    out.push(json_string(&p.to_normalized()).as_bytes());
                    out.push(b",");
                    out.newline(2);
                    out.push(if out.pretty {
                        b"\"value\": "
                    } else {
                        b"\"value\":"
                    });
                    // The path is not cut (it would no longer name the node): a node whose path
                    // leaves no room for its value is not shown, even the first (the list's marker
                    // then says that it and the rest are left).
                    let close = out.newline_len(1) + 1;
                    if !out.fits(close) {
                        false
                    } else {
                        out.reserve += close;
                        let ok = writer.value(out, v, &mut path, 2, first)?;
                        out.reserve -= close;
                        if ok {
                            out.newline(1);
                            out.push(b"}");
                        }
                        ok
                    }
                }
            };
            if written || !first || self.reserve == self.short_reserve {
                break written;
            }
            // The first node did not fit beside the list's marker with its command: the
            // marker without it (the notice names it) leaves the node more room.
            out.truncate(checkpoint);
            out.reserve -= self.reserve - self.short_reserve;
            self.reserve = self.short_reserve;
        };
        if written {
            self.shown += 1;
            out.maybe_flush();
        } else {
            out.truncate(checkpoint);
            self.cut = true;
        }
        Ok(())
    }
}

/// Writes one node for `-r`: a string decoded and unquoted, anything else as compact JSON;
/// then a line break. Returns false (writing nothing) when it does not fit and is not first.
fn raw_item<'d>(
    out: &mut Out<'_>,
    writer: &mut Writer<'_>,
    v: Value<'d>,
    path: &mut NormPath<'d>,
    first: bool,
) -> std::result::Result<bool, SyntaxError> {
    let doc = v.doc();
    let at = v.offset();
    if doc.get(at) != Some(&b'"') || crate::json::path::is_records(v) {
        // The line break after the value is part of the output: reserved like a bracket.
        out.reserve += 1;
        let ok = writer.value(out, v, path, 0, first);
        out.reserve -= 1;
        let ok = ok?;
        if ok {
            out.push(b"\n");
        }
        return Ok(ok);
    }
    validate_value(doc, at)?;
    let text = v.decode_string()?;
    let total = text.chars().count();
    let max = writer.bounds.max_string;
    let whole = total <= max;
    let cmd = format!(
        "{} {} -r --unbounded",
        writer.cont.prefix,
        shell_quote(&path.to_dot())
    );
    // The marker names the command reading the rest; when that does not fit the bound even
    // with no text shown, only the count (the notice on stderr still names the command).
    let long = |shown: usize| {
        format!(
            "… {} more {}: {cmd}",
            group_digits((total - shown) as u64),
            if total - shown == 1 { "char" } else { "chars" }
        )
    };
    let short_form = first && !out.fits(1 + long(0).len());
    let marker = |shown: usize| {
        if short_form {
            format!(
                "… {} more {}",
                group_digits((total - shown) as u64),
                if total - shown == 1 { "char" } else { "chars" }
            )
        } else {
            long(shown)
        }
    };
    let mut keep_chars = total.min(max);
    let bytes_of = |chars: usize| {
        text.char_indices()
            .nth(chars)
            .map_or(text.len(), |(i, _)| i)
    };
    let need = |chars: usize| {
        bytes_of(chars)
            + 1
            + if chars < total {
                marker(chars).len()
            } else {
                0
            }
    };
    if !out.fits(need(keep_chars)) {
        if !first {
            return Ok(false);
        }
        // The first node: as much of the string as the budget leaves.
        let room = out
            .limit()
            .saturating_sub(out.pos() + out.reserve + 1 + marker(0).len());
        let mut b = bytes_of(keep_chars).min(room);
        while !text.is_char_boundary(b) {
            b -= 1;
        }
        keep_chars = text[..b].chars().count();
    }
    let b = bytes_of(keep_chars);
    out.push(text[..b].as_bytes());
    if keep_chars < total || !whole {
        out.push(marker(keep_chars).as_bytes());
        writer.cuts.strings += 1;
        writer.cuts.next(&cmd, CutKind::String);
    }
    out.push(b"\n");
    Ok(true)
}
