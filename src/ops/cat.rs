//! `spill cat`: bounded, paged reading by lines or bytes, with a `next:` footer; of the cleaned
//! view (`text::clean::view`) when the source holds escape sequences or `\r` frames.

use std::io::Write;

use crate::error::{Error, Result};
use crate::limits::{self, group_digits};
use crate::source::Need;
use crate::store::StoreConfig;
use crate::text::{self, hex};

use super::{Notice, Outcome, Report, write_all};

/// A 1-based inclusive (lines) or 0-based end-exclusive (bytes) range; either side optional.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Span {
    start: Option<u64>,
    end: Option<u64>,
}

fn parse_span(flag: &str, text: &str) -> Result<Span> {
    let bad = || {
        Error::Usage(format!(
            "{flag} {:?}: expected A:B with whole numbers, either side optional (e.g. 201:400, 100:, :50)",
            crate::diag::echo(text)
        ))
    };
    let (a, b) = text.split_once(':').ok_or_else(bad)?;
    let num = |s: &str| -> Result<Option<u64>> {
        if s.is_empty() {
            Ok(None)
        } else {
            // A number past the common maximum says so, instead of wrapping further on.
            crate::limits::parse_count::<u64>(s)
                .map(Some)
                .map_err(|why| match s.bytes().all(|b| b.is_ascii_digit()) {
                    true => Error::Usage(format!("{flag}: {why}")),
                    false => bad(),
                })
        }
    };
    let span = Span {
        start: num(a)?,
        end: num(b)?,
    };
    // Lines are 1-based and inclusive (5:5 is one line); bytes end-exclusive (5:5 is empty).
    let first = if flag == "--lines" {
        span.start.unwrap_or(1).max(1)
    } else {
        span.start.unwrap_or(0)
    };
    if let Some(end) = span.end
        && end < first
    {
        return Err(Error::Usage(format!(
            "{flag} {}: the range ends before it starts (A:B with A <= B; lines count from 1)",
            crate::diag::echo(text)
        )));
    }
    Ok(span)
}

/// What was selected: a byte range of the source and how to describe it.
struct Selection {
    from: usize,
    to: usize,
    /// 1-based line range shown, when selecting by lines.
    lines: Option<(u64, u64)>,
    /// The footer's `next:` argument, when there is more.
    next: Option<String>,
}

/// What to read and how (`spill cat`'s flags); `Default` is the command line's defaults.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    /// A ref (`sp_…`), a file path, or `-` for stdin (paths are refused in restricted mode).
    pub source: String,
    /// `--lines A:B`: 1-based and inclusive, either side optional.
    pub lines: Option<String>,
    /// `--bytes A:B`: 0-based and end-exclusive, either side optional.
    pub bytes: Option<String>,
    /// `--max-bytes`: the cap on an explicit range (0: no limit).
    pub max_bytes: u64,
    /// `--max-columns`: longer lines are cut with a marker (0: no limit).
    pub max_columns: usize,
    /// `--raw`: the bytes exactly as stored.
    pub raw: bool,
    /// `--hex`: a `hexdump -C` style dump.
    pub hex: bool,
    /// The output is a terminal: control characters are escaped, and a binary source is
    /// dumped as hex unless `raw` (the command line sets it when stdout is a terminal).
    pub escape_terminal: bool,
}

impl Default for Request {
    fn default() -> Request {
        Request {
            source: String::new(),
            lines: None,
            bytes: None,
            max_bytes: limits::CAT_MAX_BYTES,
            max_columns: limits::CAT_MAX_COLUMNS,
            raw: false,
            hex: false,
            escape_terminal: false,
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

/// Runs `spill cat`: writes the page to `out`; the footer (`lines 1–200 of 48,213 · next:
/// --lines 201:400`) is in the report, or, when the range selects nothing, a
/// [`Notice::NothingInRange`].
pub fn run(store: &StoreConfig, req: &Request, out: &mut dyn Write) -> Result<Report> {
    // 0 means no limit, for --max-bytes as for every --max-* flag of the readers.
    let max_bytes = if req.max_bytes == 0 {
        u64::MAX
    } else {
        req.max_bytes
    };
    let lines = req
        .lines
        .as_deref()
        .map(|spec| parse_span("--lines", spec))
        .transpose()?;
    let byte_span = req
        .bytes
        .as_deref()
        .map(|spec| parse_span("--bytes", spec))
        .transpose()?;
    let held = open(store, req, lines, byte_span, max_bytes)?;
    let (input, frame) = (&held.input, held.frame);
    let on_terminal = req.escape_terminal;
    let binary = || held.binary.unwrap_or_else(|| text::is_binary(input));
    let hex = req.hex || (on_terminal && !req.raw && binary());
    // Lines as the envelope shows them (same numbers); a dump or --raw is of the stored bytes.
    // A source held whole is cleaned only as far as the page needs (`text::clean::view_window`:
    // the heap holds the page's lines, never the whole view); a window of an object store's
    // entry holds no more than the page.
    let clean = !hex && !req.raw;
    let view_window = (clean && frame.is_none())
        .then(|| clean_window(input, lines, byte_span, max_bytes))
        .flatten();
    let cleaned = (clean && frame.is_some())
        .then(|| text::clean::view(input))
        .flatten();
    let bytes: &[u8] = match (&view_window, &cleaned) {
        (Some(w), _) => &w.bytes,
        (None, Some(c)) => c,
        (None, None) => input,
    };
    // A local source is held whole; a window (see `open`) is a part of the source.
    let frame = match &view_window {
        Some(w) => Frame {
            offset: w.offset,
            line: w.line,
            total: w.total,
        },
        None => frame.unwrap_or(Frame {
            offset: 0,
            line: 1,
            total: bytes.len() as u64,
        }),
    };
    let view_lines = view_window.as_ref().map(|w| w.lines);
    let cleaned = view_window.is_some() || cleaned.is_some();
    let mut sel = if let Some(span) = lines {
        select_lines(bytes, span, max_bytes, frame)
    } else if let Some(span) = byte_span {
        select_bytes(bytes, span, max_bytes, frame)
    } else if hex {
        // 200 dump rows, the hex twin of the 200-line default.
        select_bytes(
            bytes,
            Span {
                start: Some(0),
                end: Some(limits::CAT_LINES * 16),
            },
            u64::MAX,
            frame,
        )
    } else {
        select_default(bytes, frame)
    };
    // The page ends where what it shows ends: at the first byte `--max-columns` hides, with
    // `next:` starting there (README, `spill cat`), so following `next:` shows every byte.
    let cut = (!hex && !req.raw)
        .then(|| first_cut(&bytes[sel.from..sel.to], req.max_columns))
        .flatten();
    if let Some(cut) = &cut {
        let width = (sel.to - sel.from) as u64;
        sel.to = sel.from + cut.at;
        sel.lines = None;
        let at = frame.offset + sel.to as u64;
        sel.next = Some(format!("--bytes {at}:{}", at + width));
    }
    let chunk = &bytes[sel.from..sel.to];
    let (from, to) = (frame.offset + sel.from as u64, frame.offset + sel.to as u64);
    let written = if hex {
        if chunk.is_empty() {
            Ok(())
        } else {
            write_all(out, hex::dump(chunk, from).as_bytes())
        }
    } else if req.raw {
        write_all(out, chunk)
    } else {
        write_lines(out, chunk, cut.as_ref(), on_terminal)
    };
    // A write straight from a map that shrank fails with EFAULT ("bad address"), not SIGBUS:
    // the change is the error to report.
    input.check_unchanged()?;
    written?;
    let total = frame.total;
    let total_lines = || {
        held.lines
            .or(view_lines)
            .unwrap_or_else(|| text::count_lines(bytes))
    };
    let mut report = Report::new(Outcome::Found);
    if sel.from < sel.to {
        // A stream read only as far as the range needed: its length is not known.
        let of = if input.partial { "of at least " } else { "of " };
        let mut footer = match sel.lines {
            Some((a, b)) => format!(
                "lines {}–{} {of}{}",
                group_digits(a),
                group_digits(b),
                group_digits(total_lines())
            ),
            None => format!(
                "bytes {}–{} {of}{}",
                group_digits(from),
                group_digits(to),
                group_digits(total)
            ),
        };
        if cleaned {
            footer = format!("{footer}, {CLEANED}");
        }
        if let Some(next) = &sel.next {
            footer = format!("{footer} · next: {next}");
        }
        report.footer = Some(footer);
    } else if total > 0 {
        report.notices.push(Notice::NothingInRange {
            bytes: total,
            lines: lines.map(|_| total_lines()),
        });
    }
    Ok(report)
}

/// The part of a source's cleaned view a page reads (for a source that needs cleaning): from
/// the range's first line, or the line holding its first byte, to what each `select_*` function
/// below needs held (the range and a line more, or `--max-bytes` and a line more; for the
/// default page 200 lines or 16 KiB and a line more).
fn clean_window(
    input: &[u8],
    lines: Option<Span>,
    byte_span: Option<Span>,
    max_bytes: u64,
) -> Option<text::clean::ViewWindow> {
    use text::clean::{WindowStart, view_window};
    match (lines, byte_span) {
        (Some(span), _) => {
            let first = span.start.unwrap_or(1).max(1);
            let want = span.end.map_or(u64::MAX, |last| {
                last.saturating_sub(first).saturating_add(1)
            });
            view_window(input, WindowStart::Line(first), want, max_bytes)
        }
        (None, Some(span)) => {
            let from = span.start.unwrap_or(0);
            let to = span
                .end
                .unwrap_or(u64::MAX)
                .min(from.saturating_add(max_bytes));
            view_window(
                input,
                WindowStart::Byte(from),
                u64::MAX,
                to.saturating_sub(from),
            )
        }
        (None, None) => view_window(
            input,
            WindowStart::Line(1),
            limits::CAT_LINES,
            limits::CAT_BYTES,
        ),
    }
}

/// Where the bytes `cat` holds lie in the whole source, when it holds only a part (a window
/// of an object store's payload read by ranges).
#[derive(Debug, Clone, Copy)]
struct Frame {
    /// The offset of the first byte held.
    offset: u64,
    /// The 1-based line that starts at the first byte held (a window starts at a line start,
    /// at or before the first line selected; for a `--bytes` window this is unused).
    line: u64,
    /// The whole source's length.
    total: u64,
}

/// An opened source: its bytes, and for a window, where they lie and what the source's
/// line index says of the whole.
struct Held {
    input: crate::source::Input,
    frame: Option<Frame>,
    /// The whole source's line count, when known without counting the bytes held.
    lines: Option<u64>,
    /// Whether the whole source looks binary, likewise.
    binary: Option<bool>,
}

/// What a request needs of a source read from `base` (`(offset, line)`: a line start and its
/// number, or `(offset, 0)` for a `--bytes` read; `(0, 1)` from the start).
fn need_from(
    lines: Option<Span>,
    byte_span: Option<Span>,
    max_bytes: u64,
    base: (u64, u64),
) -> Need<'static> {
    match (lines, byte_span) {
        (Some(span), _) => lines_need(span, max_bytes, base),
        (None, Some(span)) => bytes_need(span, max_bytes, base.0),
        // The default page (and the hex one, 3,200 bytes) needs at most 16 KiB and one byte.
        (None, None) => bytes_need(
            Span {
                start: Some(0),
                end: Some(limits::CAT_BYTES),
            },
            u64::MAX,
            0,
        ),
    }
}

/// Opens the source as far as the request needs it: a stream up to what it selects, a file or
/// a local entry mapped, and an object store's entry by ranged reads of what it selects
/// (`open_remote`).
fn open(
    store: &StoreConfig,
    req: &Request,
    lines: Option<Span>,
    byte_span: Option<Span>,
    max_bytes: u64,
) -> Result<Held> {
    #[cfg(feature = "s3")]
    if store.remote.is_some()
        && let crate::source::SourceSpec::Ref(r) = crate::source::resolve(&req.source, store)?
    {
        return open_remote(store, req, &r, lines, byte_span, max_bytes);
    }
    let need = need_from(lines, byte_span, max_bytes, (0, 1));
    Ok(Held {
        input: crate::source::open_with(&req.source, store, need)?,
        frame: None,
        lines: None,
        binary: None,
    })
}

/// Opens an object store's entry (README "A store shared across machines"): by ranged reads of
/// the window the request selects, from the line index's start before its first line; through
/// the cache when the cache holds it, when it is small, when the request is not bounded by
/// `--max-bytes` (at most [`MAX_WINDOW`](crate::store::remote::window::MAX_WINDOW)), or when
/// the cleaned view is shown (its offsets are not the stored bytes').
#[cfg(feature = "s3")]
fn open_remote(
    store: &StoreConfig,
    req: &Request,
    r: &crate::store::Ref,
    lines: Option<Span>,
    byte_span: Option<Span>,
    max_bytes: u64,
) -> Result<Held> {
    use crate::store::remote::window::{self, Opened};
    let remote = store.remote.as_ref().expect("checked by the caller");
    let entry = crate::store::Store::new(store.clone());
    let mut local = store.clone();
    local.remote = None;
    let cached = |local: &StoreConfig| -> Result<Held> {
        let need = need_from(lines, byte_span, max_bytes, (0, 1));
        Ok(Held {
            input: crate::source::open_with(&r.to_string(), local, need)?,
            frame: None,
            lines: None,
            binary: None,
        })
    };
    let ranged = match window::open(&entry, remote, r)? {
        Opened::Cached => return cached(&local),
        Opened::Ranged(ranged) => ranged,
    };
    let index = ranged.index();
    let bounded = lines.is_none() && byte_span.is_none() || max_bytes <= window::MAX_WINDOW;
    let stored_view = req.raw || req.hex || req.escape_terminal && index.binary;
    if !bounded || index.dirty && !stored_view {
        ranged.download(&entry, remote)?;
        return cached(&local);
    }
    let base = match (lines, byte_span) {
        (Some(span), _) => index.start_before(span.start.unwrap_or(1)),
        (None, Some(span)) => (span.start.unwrap_or(0).min(index.size), 0),
        (None, None) => (0, 1),
    };
    // Past this the request needs nothing (and a byte to know whether more follows): the
    // chunks are cut there. A line window's first line starts within a block of `base`.
    let end = match (lines, byte_span) {
        (Some(_), _) => base.0 + window::BLOCK + max_bytes,
        (None, Some(span)) => span.end.unwrap_or(u64::MAX).min(base.0 + max_bytes),
        (None, None) => limits::CAT_BYTES,
    }
    .saturating_add(1);
    let mut need = need_from(lines, byte_span, max_bytes, base);
    let data = ranged.read(base.0, end, |chunk| need.enough(chunk))?;
    Ok(Held {
        input: crate::source::Input::from_vec(data),
        frame: Some(Frame {
            offset: base.0,
            line: base.1,
            total: index.size,
        }),
        lines: Some(index.lines),
        binary: Some(index.binary),
    })
}

/// What a `--bytes` range needs of a stream read from `offset`: its end (capped by
/// `--max-bytes`) and one byte more, to know whether anything follows.
fn bytes_need(span: Span, max_bytes: u64, offset: u64) -> Need<'static> {
    let from = span.start.unwrap_or(0);
    let Some(to) = span.end.map_or(
        (max_bytes != u64::MAX).then(|| from.saturating_add(max_bytes)),
        |end| Some(end.min(from.saturating_add(max_bytes))),
    ) else {
        return Need::All;
    };
    let mut read = offset;
    Need::Until(Box::new(move |chunk: &[u8]| {
        read += chunk.len() as u64;
        read > to
    }))
}

/// What a `--lines` range needs of a stream read from the start of line `line` at `offset`
/// (at or before the range's first line): the end of its last line and one byte more, or
/// `--max-bytes` past the start of its first line, whichever comes first.
fn lines_need(span: Span, max_bytes: u64, (offset, line): (u64, u64)) -> Need<'static> {
    let first = span.start.unwrap_or(1).max(1);
    if span.end.is_none() && max_bytes == u64::MAX {
        return Need::All;
    }
    let (mut read, mut breaks) = (offset, line - 1);
    let mut start = (first == line).then_some(offset);
    let mut end = None;
    Need::Until(Box::new(move |chunk: &[u8]| {
        for nl in memchr::memchr_iter(b'\n', chunk) {
            breaks += 1;
            let after = read + nl as u64 + 1;
            if start.is_none() && breaks == first - 1 {
                start = Some(after);
            }
            if end.is_none() && Some(breaks) == span.end {
                end = Some(after);
            }
        }
        read += chunk.len() as u64;
        end.is_some_and(|e| read > e)
            || start.is_some_and(|s| max_bytes != u64::MAX && read > s.saturating_add(max_bytes))
    }))
}

/// What the footer adds when the cleaned view was read.
const CLEANED: &str = "escape sequences and \\r frames removed (--raw: as stored)";

/// The default page: the first 200 lines or 16 KiB, whichever is smaller, cut at a line end.
/// `bytes` start the source and hold its first 16 KiB and a byte, or all of it.
fn select_default(bytes: &[u8], frame: Frame) -> Selection {
    let limit = (limits::CAT_BYTES.min(frame.total) as usize).min(bytes.len());
    let end_200 = text::line_start(bytes, limits::CAT_LINES + 1).unwrap_or(bytes.len());
    if end_200 <= limit {
        let shown = text::count_lines(&bytes[..end_200]);
        let next = ((end_200 as u64) < frame.total)
            .then(|| format!("--lines {}:{}", shown + 1, shown + limits::CAT_LINES));
        return Selection {
            from: 0,
            to: end_200,
            lines: Some((1, shown)),
            next,
        };
    }
    match memchr::memrchr(b'\n', &bytes[..limit]) {
        Some(nl) => {
            let to = nl + 1;
            let shown = text::count_lines(&bytes[..to]);
            Selection {
                from: 0,
                to,
                lines: Some((1, shown)),
                next: Some(format!(
                    "--lines {}:{}",
                    shown + 1,
                    shown + limits::CAT_LINES
                )),
            }
        }
        None => {
            // The first line alone is over 16 KiB: continue by bytes.
            let to = text::floor_char_boundary(bytes, limit);
            Selection {
                from: 0,
                to,
                lines: None,
                next: Some(format!("--bytes {to}:{}", to as u64 + limits::CAT_BYTES)),
            }
        }
    }
}

/// `bytes` start at line `frame.line`, at or before the range's first line, and hold the
/// range's lines and a byte more, or `--max-bytes` past its first line's start and a byte
/// more, or the rest of the source. Offsets in the selection are of `bytes`.
fn select_lines(bytes: &[u8], span: Span, max_bytes: u64, frame: Frame) -> Selection {
    let first = span.start.unwrap_or(1).max(1);
    let Some(from) = text::line_start(bytes, first - frame.line + 1) else {
        return Selection {
            from: bytes.len(),
            to: bytes.len(),
            lines: None,
            next: None,
        };
    };
    // Whether the source goes on past `at` (an offset of `bytes`).
    let more = |at: usize| frame.offset + (at as u64) < frame.total;
    let wanted_end = match span.end {
        Some(last) if last < first => from,
        Some(last) => {
            text::line_start(&bytes[from..], last - first + 2).map_or(bytes.len(), |p| from + p)
        }
        None => bytes.len(),
    };
    let cap_end = from
        .saturating_add(max_bytes.min(usize::MAX as u64) as usize)
        .min(bytes.len());
    if wanted_end <= cap_end {
        let shown = text::count_lines(&bytes[from..wanted_end]);
        let last = first + shown.saturating_sub(1);
        let next = (span.end.is_some() && more(wanted_end) && shown > 0).then(|| {
            let width = span.end.unwrap_or(first) - first + 1;
            format!("--lines {}:{}", last + 1, last + width)
        });
        return Selection {
            from,
            to: wanted_end,
            lines: (shown > 0).then_some((first, last)),
            next,
        };
    }
    // Over --max-bytes: stop at the last whole line within the cap, or mid-line by bytes.
    match memchr::memrchr(b'\n', &bytes[from..cap_end]) {
        Some(nl) => {
            let to = from + nl + 1;
            let shown = text::count_lines(&bytes[from..to]);
            let last = first + shown - 1;
            let rest = span.end.map_or(String::new(), |e| e.to_string());
            Selection {
                from,
                to,
                lines: Some((first, last)),
                next: Some(format!("--lines {}:{rest}", last + 1)),
            }
        }
        None => {
            let to = text::floor_char_boundary(bytes, cap_end);
            let at = frame.offset + to as u64;
            Selection {
                from,
                to,
                lines: None,
                next: Some(format!("--bytes {at}:{}", at + max_bytes)),
            }
        }
    }
}

/// `bytes` start at `frame.offset`, at or before the range's start (clamped to the source's
/// end), and hold the range and a byte more, or the rest of the source.
fn select_bytes(bytes: &[u8], span: Span, max_bytes: u64, frame: Frame) -> Selection {
    let len = frame.total;
    let from = span.start.unwrap_or(0).min(len);
    let wanted = span.end.unwrap_or(len).min(len).max(from);
    let to = wanted.min(from.saturating_add(max_bytes));
    let next = (to < len && from < to).then(|| {
        let width = if to < wanted { max_bytes } else { to - from };
        format!("--bytes {to}:{}", to + width)
    });
    let held = |at: u64| ((at - frame.offset) as usize).min(bytes.len());
    Selection {
        from: held(from),
        to: held(to),
        lines: None,
        next,
    }
}

/// The first line of a page longer than `--max-columns` characters (0: no limit), and where
/// it is cut.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Cut {
    /// The offset in the page of the first byte not shown.
    at: usize,
    /// How many characters of that line the page held past the cut (the marker's `+N`).
    hidden: usize,
    /// Whether that line's end was in the page (the marker then ends the line).
    newline: bool,
}

fn first_cut(page: &[u8], max_columns: usize) -> Option<Cut> {
    if max_columns == 0 {
        return None;
    }
    let mut start = 0;
    for line in page.split_inclusive(|&b| b == b'\n') {
        let (body, newline) = match line.strip_suffix(b"\n") {
            Some(body) => (body, true),
            None => (line, false),
        };
        // A line of at most `max_columns` bytes has at most that many characters.
        if body.len() > max_columns {
            let keep = text::prefix_bytes_for_chars(body, max_columns);
            if keep < body.len() {
                return Some(Cut {
                    at: start + keep,
                    hidden: text::char_count(&body[keep..]),
                    newline,
                });
            }
        }
        start += line.len();
    }
    None
}

/// Writes the page's lines, escaping control characters when stdout is a terminal, and the
/// marker of the line cut at the page's end (`…[+N chars]`), when one is.
fn write_lines(
    out: &mut dyn Write,
    chunk: &[u8],
    cut: Option<&Cut>,
    on_terminal: bool,
) -> Result<()> {
    if on_terminal {
        for line in chunk.split_inclusive(|&b| b == b'\n') {
            let (body, newline) = match line.strip_suffix(b"\n") {
                Some(body) => (body, true),
                None => (line, false),
            };
            write_all(out, crate::diag::escape_bytes(body).as_bytes())?;
            if newline {
                write_all(out, b"\n")?;
            }
        }
    } else {
        write_all(out, chunk)?;
    }
    if let Some(cut) = cut {
        let marker = format!("…[+{} chars]", group_digits(cut.hidden as u64));
        write_all(out, marker.as_bytes())?;
        if cut.newline {
            write_all(out, b"\n")?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_parse_with_either_side_optional() {
        assert_eq!(
            parse_span("--lines", "2:5").unwrap(),
            Span {
                start: Some(2),
                end: Some(5)
            }
        );
        assert_eq!(
            parse_span("--lines", ":5").unwrap(),
            Span {
                start: None,
                end: Some(5)
            }
        );
        assert_eq!(
            parse_span("--lines", "7:").unwrap(),
            Span {
                start: Some(7),
                end: None
            }
        );
        assert!(parse_span("--lines", "7").is_err());
        assert!(parse_span("--lines", "a:b").is_err());
    }

    /// The frame of a source held whole.
    fn whole(bytes: &[u8]) -> Frame {
        Frame {
            offset: 0,
            line: 1,
            total: bytes.len() as u64,
        }
    }

    /// Reads `bytes` from `offset` in 100-byte chunks until `need` has enough, as a ranged read
    /// of an object store's payload does.
    fn window<'a>(bytes: &'a [u8], offset: usize, mut need: Need<'_>) -> &'a [u8] {
        let mut at = offset;
        while at < bytes.len() {
            let to = (at + 100).min(bytes.len());
            let done = need.enough(&bytes[at..to]);
            at = to;
            if done {
                break;
            }
        }
        &bytes[offset..at]
    }

    #[test]
    fn a_window_selects_what_the_whole_source_selects() {
        let text: Vec<u8> = (1..=3000u32)
            .flat_map(|i| format!("{i} {}\n", "x".repeat((i % 37) as usize)).into_bytes())
            .collect();
        let starts: Vec<usize> = std::iter::once(0)
            .chain(memchr::memchr_iter(b'\n', &text).map(|i| i + 1))
            .collect();
        let total = text.len() as u64;
        let same = |a: &Selection, b: &Selection, offset: usize, what: &str| {
            assert_eq!(
                (offset + a.from, offset + a.to, a.lines, a.next.as_deref()),
                (b.from, b.to, b.lines, b.next.as_deref()),
                "{what}"
            );
        };
        for (first, last, max) in [
            (1, Some(200), u64::MAX),
            (1500, Some(1700), u64::MAX),
            (1500, None, 2000),
            (2990, Some(3100), 1 << 20),
            (2999, None, 10),
            (3001, Some(3005), 100),
        ] {
            let span = Span {
                start: Some(first),
                end: last,
            };
            let expected = select_lines(&text, span, max, whole(&text));
            // Any line start at or before the first line will do.
            for base_line in [1, first.saturating_sub(7).max(1), first.min(3000)] {
                let offset = starts[base_line as usize - 1];
                let need = lines_need(span, max, (offset as u64, base_line));
                let held = window(&text, offset, need);
                let frame = Frame {
                    offset: offset as u64,
                    line: base_line,
                    total,
                };
                let got = select_lines(held, span, max, frame);
                same(
                    &got,
                    &expected,
                    offset,
                    &format!("{span:?} from line {base_line}"),
                );
            }
        }
        for (from, to, max) in [
            (0, Some(10), u64::MAX),
            (5000, None, 300),
            (total - 5, None, 300),
        ] {
            let span = Span {
                start: Some(from),
                end: to,
            };
            let expected = select_bytes(&text, span, max, whole(&text));
            let held = window(&text, from as usize, bytes_need(span, max, from));
            let frame = Frame {
                offset: from,
                line: 0,
                total,
            };
            let got = select_bytes(held, span, max, frame);
            same(&got, &expected, from as usize, &format!("{span:?}"));
        }
        let head = window(&text, 0, need_from(None, None, u64::MAX, (0, 1)));
        assert!(head.len() < text.len());
        let got = select_default(head, whole(&text));
        same(
            &got,
            &select_default(&text, whole(&text)),
            0,
            "the default page",
        );
    }

    #[test]
    fn line_ranges_are_inclusive_and_say_what_comes_next() {
        let t = b"1\n2\n3\n4\n5\n";
        let s = select_lines(
            t,
            Span {
                start: Some(2),
                end: Some(3),
            },
            u64::MAX,
            whole(t),
        );
        assert_eq!(&t[s.from..s.to], b"2\n3\n");
        assert_eq!(s.lines, Some((2, 3)));
        assert_eq!(s.next.as_deref(), Some("--lines 4:5"));
        let s = select_lines(
            t,
            Span {
                start: Some(9),
                end: None,
            },
            u64::MAX,
            whole(t),
        );
        assert_eq!(s.from, s.to);
        let s = select_lines(
            t,
            Span {
                start: Some(2),
                end: None,
            },
            4,
            whole(t),
        );
        assert_eq!(&t[s.from..s.to], b"2\n3\n");
        assert_eq!(s.next.as_deref(), Some("--lines 4:"));
    }

    #[test]
    fn byte_ranges_are_end_exclusive_and_capped() {
        let t = b"0123456789";
        let s = select_bytes(
            t,
            Span {
                start: Some(2),
                end: Some(5),
            },
            u64::MAX,
            whole(t),
        );
        assert_eq!(&t[s.from..s.to], b"234");
        assert_eq!(s.next.as_deref(), Some("--bytes 5:8"));
        let s = select_bytes(
            t,
            Span {
                start: Some(2),
                end: None,
            },
            3,
            whole(t),
        );
        assert_eq!(&t[s.from..s.to], b"234");
        assert_eq!(s.next.as_deref(), Some("--bytes 5:8"));
        let s = select_bytes(
            t,
            Span {
                start: Some(20),
                end: None,
            },
            3,
            whole(t),
        );
        assert_eq!(s.from, s.to);
    }

    #[test]
    fn the_default_page_stops_at_200_lines_or_16_kib() {
        let many: Vec<u8> = (1..=500)
            .flat_map(|i| format!("{i}\n").into_bytes())
            .collect();
        let s = select_default(&many, whole(&many));
        assert_eq!(s.lines, Some((1, 200)));
        assert_eq!(s.next.as_deref(), Some("--lines 201:400"));
        let giant = vec![b'x'; 40_000];
        let s = select_default(&giant, whole(&giant));
        assert_eq!(s.to, 16384);
        assert_eq!(s.next.as_deref(), Some("--bytes 16384:32768"));
    }
}

#[cfg(test)]
mod run_tests {
    use super::*;
    use crate::ops::testing::{self, spill};

    fn numbered(n: usize) -> Vec<u8> {
        (1..=n)
            .flat_map(|i| format!("line {i:05}\n").into_bytes())
            .collect()
    }

    #[test]
    fn the_default_page_of_a_stored_output_and_its_footer() {
        let (_dir, store) = testing::store();
        let r = spill(&store, &numbered(3000));
        let mut out = Vec::new();
        let report = run(&store, &Request::new(r.as_str()), &mut out).unwrap();
        let text = testing::text(out);
        assert_eq!(text.lines().count(), 200);
        assert!(text.starts_with("line 00001\nline 00002\n"), "{text}");
        assert!(text.ends_with("line 00200\n"), "{text}");
        assert_eq!(report.outcome, Outcome::Found);
        assert_eq!(
            report.footer.as_deref(),
            Some("lines 1–200 of 3,000 · next: --lines 201:400")
        );
        assert!(report.notices.is_empty());
        assert_eq!(
            report.trailer(),
            "lines 1–200 of 3,000 · next: --lines 201:400\n"
        );
    }

    #[test]
    fn a_range_past_the_end_is_a_notice_not_a_footer() {
        let (_dir, store) = testing::store();
        let r = spill(&store, &numbered(3000));
        let req = Request {
            lines: Some("5000:".into()),
            ..Request::new(r.as_str())
        };
        let mut out = Vec::new();
        let report = run(&store, &req, &mut out).unwrap();
        assert!(out.is_empty());
        assert_eq!(report.footer, None);
        assert_eq!(
            report.notices,
            [Notice::NothingInRange {
                bytes: 33_000,
                lines: Some(3000)
            }]
        );
        assert_eq!(
            report.trailer(),
            "nothing in that range: the source has 3,000 lines (33,000 bytes)\n"
        );
    }

    #[test]
    fn a_terminal_gets_a_hex_dump_of_binary_and_escaped_text() {
        let dir = tempfile::tempdir().unwrap();
        let (_d, store) = testing::store();
        let bin = dir.path().join("bin");
        std::fs::write(&bin, b"\x00\x01\x02abc").unwrap();
        let src = bin.to_str().unwrap();
        let mut out = Vec::new();
        let req = Request {
            escape_terminal: true,
            ..Request::new(src)
        };
        let report = run(&store, &req, &mut out).unwrap();
        assert!(testing::text(out).starts_with("00000000  00 01 02 61 62 63"));
        assert_eq!(report.footer.as_deref(), Some("bytes 0–6 of 6"));
        // Not a terminal: the bytes as they are.
        let mut out = Vec::new();
        run(&store, &Request::new(src), &mut out).unwrap();
        assert_eq!(out, b"\x00\x01\x02abc");
    }

    #[test]
    fn restricted_mode_is_the_callers_store_setting() {
        let dir = tempfile::tempdir().unwrap();
        let (_d, mut store) = testing::store();
        let file = dir.path().join("f");
        std::fs::write(&file, b"x\n").unwrap();
        let req = Request::new(file.to_str().unwrap());
        assert!(run(&store, &req, &mut Vec::new()).is_ok());
        store.restricted = true;
        let err = run(&store, &req, &mut Vec::new()).unwrap_err();
        assert!(err.to_string().contains("restricted mode"), "{err}");
    }
}
