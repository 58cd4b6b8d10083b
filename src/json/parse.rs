//! The strict, iterative JSON tokenizer: validation and the visitor walk.
//!
//! One loop with an explicit stack (one byte and one counter per open container), so nesting
//! depth is bounded by memory, never by the call stack. Visitors are generic parameters, so a
//! no-op visitor compiles down to a plain validator.

use super::SyntaxError;
use super::scan::{find_string_special, skip_ws_run};

/// Whether a walk should go on. Returned by every [`Visitor`] method.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[must_use]
pub enum Flow {
    /// Keep walking.
    Continue,
    /// Stop now; the walk returns [`Flow::Stop`] without reading further.
    Stop,
    /// From [`Visitor::begin`] only: jump over this container with the fast, lenient
    /// [`skip_value`](super::skip_value) — no events for its contents and no `end` event; the
    /// grammar inside it is not checked. Elsewhere it means [`Flow::Continue`].
    Skip,
}

/// The two container kinds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Container {
    /// `{…}`
    Object,
    /// `[…]`
    Array,
}

/// The kinds of scalar, as written (`1.0` and `1e2` are [`Scalar::Number`], `12` is
/// [`Scalar::Integer`] however large).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Scalar {
    /// `"…"`
    String,
    /// `-?digits` with no fraction or exponent.
    Integer,
    /// Any other number.
    Number,
    /// `true` or `false`.
    Boolean,
    /// `null`.
    Null,
}

/// Receives the events of [`walk`], in document order. Offsets are byte offsets into the
/// document passed to the walk. Every method defaults to doing nothing.
pub trait Visitor {
    /// A top-level value (an NDJSON record, or the one JSON document as record 0) starts at `at`.
    fn record(&mut self, _index: u64, _at: usize) -> Flow {
        Flow::Continue
    }
    /// A container opens at `at` (the offset of `{` or `[`). Returning [`Flow::Skip`] jumps
    /// over it (no further events for it, not even `end`).
    fn begin(&mut self, _kind: Container, _at: usize) -> Flow {
        Flow::Continue
    }
    /// A container closes at `at` (the offset of `}` or `]`) after `count` members or elements.
    fn end(&mut self, _kind: Container, _at: usize, _count: u64) -> Flow {
        Flow::Continue
    }
    /// An object key: `raw` is the text between the quotes with escapes intact, `at` the offset
    /// of the opening quote. The member's value follows.
    fn key(&mut self, _raw: &[u8], _at: usize) -> Flow {
        Flow::Continue
    }
    /// A guess at the next key of the innermost object (records usually repeat their keys in
    /// order), or empty for none. When the document's next key is exactly this text, the walk
    /// reports it with [`Visitor::guessed_key`] without scanning the string again. The guess
    /// must be the whole raw text of a key this walk reported before (so it is known valid and
    /// ends where the document's closing quote follows it); never a cut one.
    fn next_key(&self) -> &[u8] {
        &[]
    }
    /// The object key was [`Visitor::next_key`]'s guess: `raw` holds the same bytes. Defaults
    /// to [`Visitor::key`].
    fn guessed_key(&mut self, raw: &[u8], at: usize) -> Flow {
        self.key(raw, at)
    }
    /// The next value is element `index` of the innermost array.
    fn index(&mut self, _index: u64) -> Flow {
        Flow::Continue
    }
    /// A scalar: `raw` is exactly as written (strings with their quotes and escapes, numbers
    /// digit for digit), starting at `at`.
    fn scalar(&mut self, _kind: Scalar, _raw: &[u8], _at: usize) -> Flow {
        Flow::Continue
    }
}

/// Two visitors fed the same walk (stops when either stops).
pub(crate) struct Both<'x, A, B>(pub &'x mut A, pub &'x mut B);

impl<A: Visitor, B: Visitor> Visitor for Both<'_, A, B> {
    fn record(&mut self, i: u64, at: usize) -> Flow {
        both(self.0.record(i, at), self.1.record(i, at))
    }
    fn begin(&mut self, k: Container, at: usize) -> Flow {
        both(self.0.begin(k, at), self.1.begin(k, at))
    }
    fn end(&mut self, k: Container, at: usize, n: u64) -> Flow {
        both(self.0.end(k, at, n), self.1.end(k, at, n))
    }
    fn key(&mut self, raw: &[u8], at: usize) -> Flow {
        both(self.0.key(raw, at), self.1.key(raw, at))
    }
    fn index(&mut self, i: u64) -> Flow {
        both(self.0.index(i), self.1.index(i))
    }
    fn scalar(&mut self, k: Scalar, raw: &[u8], at: usize) -> Flow {
        both(self.0.scalar(k, raw, at), self.1.scalar(k, raw, at))
    }
}

fn both(a: Flow, b: Flow) -> Flow {
    match (a, b) {
        (Flow::Stop, _) | (_, Flow::Stop) => Flow::Stop,
        (Flow::Skip, Flow::Skip) => Flow::Skip,
        _ => Flow::Continue,
    }
}

/// A visitor that ignores everything: walking with it is validation.
struct Ignore;
impl Visitor for Ignore {}

/// How a sequence of top-level values was laid out (see [`walk_values`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Records {
    /// How many top-level values were read.
    pub count: u64,
    /// Whether some value was an object or an array.
    pub any_container: bool,
    /// Whether the walk was stopped by the visitor before the end.
    pub stopped: bool,
    /// NDJSON lines skipped because they are not one JSON value ([`walk_records`] with
    /// `skip_invalid`).
    pub skipped: u64,
}

/// The length of a UTF-8 byte order mark at the start of `doc` (0 or 3).
pub fn bom_len(doc: &[u8]) -> usize {
    if doc.starts_with(b"\xEF\xBB\xBF") {
        3
    } else {
        0
    }
}

/// Byte-string equality without a libc `memcmp` call: keys are short, and the call was 15% of
/// a shape walk in the profile. Overlapping word loads (8, 4 or single bytes, as `memcmp`
/// implementations do) replace a byte loop over the tail, which keys of 1–7 bytes are entirely.
#[inline(always)]
pub(crate) fn bytes_eq(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n != b.len() {
        return false;
    }
    let w8 = |s: &[u8], i: usize| u64::from_ne_bytes(s[i..i + 8].try_into().expect("8 bytes"));
    let w4 = |s: &[u8], i: usize| u32::from_ne_bytes(s[i..i + 4].try_into().expect("4 bytes"));
    if n >= 8 {
        let mut i = 0;
        while i + 8 < n {
            if w8(a, i) != w8(b, i) {
                return false;
            }
            i += 8;
        }
        w8(a, n - 8) == w8(b, n - 8)
    } else if n >= 4 {
        w4(a, 0) == w4(b, 0) && w4(a, n - 4) == w4(b, n - 4)
    } else if n > 0 {
        a[0] == b[0] && a[n / 2] == b[n / 2] && a[n - 1] == b[n - 1]
    } else {
        true
    }
}

#[inline]
fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\n' | b'\r' | b'\t')
}

/// Checks that `doc` is exactly one JSON value (RFC 8259), optionally preceded by a UTF-8 BOM and
/// surrounded by whitespace (CRLF included).
///
/// Strict: no comments, `NaN`, `Infinity`, trailing commas, leading zeros, unescaped control
/// characters, or invalid UTF-8. Escaped lone surrogates (`"\ud800"`) are accepted, as the RFC's
/// grammar allows them; decoding turns them into U+FFFD.
pub fn validate(doc: &[u8]) -> Result<(), SyntaxError> {
    walk(doc, &mut Ignore).map(|_| ())
}

/// Checks the one value that starts at `at` (leading whitespace allowed) and returns the offset
/// just past it. Used to check a value found by lenient navigation before printing it.
pub fn validate_value(doc: &[u8], at: usize) -> Result<usize, SyntaxError> {
    match doc.get(at) {
        // A scalar (the renderer checks one per value it prints) needs no parser: the same
        // checks and messages as the walk's, without its stack.
        Some(&b) if !matches!(b, b'{' | b'[') && !is_ws(b) => scalar_end(doc, at),
        _ => walk_value(doc, at, &mut Ignore), // Ignore never stops
    }
}

/// The offset just past the scalar (string, number, `true`, `false` or `null`) that starts at
/// `doc[at]`, checked as strictly as [`validate`] checks it: the navigation and the skip of
/// [`skip_value`](super::skip_value) pass over scalars with this, so a number such as
/// `2024-01-02` ends at `2024` and the byte after it is then no separator (an error), never
/// part of a value. An error for anything else at `at`.
#[inline]
pub(crate) fn scalar_end(doc: &[u8], at: usize) -> Result<usize, SyntaxError> {
    match doc.get(at) {
        Some(b'"') => string_at(doc, at),
        Some(b'-' | b'0'..=b'9') => number_at(doc, at).map(|(_, end)| end),
        Some(b't') => literal_at(doc, at, b"true"),
        Some(b'f') => literal_at(doc, at, b"false"),
        Some(b'n') => literal_at(doc, at, b"null"),
        Some(b'N' | b'I') => Err(error_at(doc, at, "NaN and Infinity are not JSON numbers")),
        Some(_) => Err(error_at(doc, at, "expected a JSON value")),
        None => Err(error_at(
            doc,
            at,
            "unexpected end of input: expected a JSON value",
        )),
    }
}

/// The offset just past the string whose opening quote is `doc[at]`, checked strictly (escapes,
/// control characters, UTF-8): [`scalar_end`] for the keys navigation reads, without its
/// dispatch on the first byte.
#[inline(always)]
pub(crate) fn string_end(doc: &[u8], at: usize) -> Result<usize, SyntaxError> {
    string_at(doc, at)
}

/// Walks the one value that starts at `at` (leading whitespace allowed), calling the visitor
/// for its events, and returns the offset just past it (or where the visitor stopped it).
/// Memory: 16 bytes per open container.
pub fn walk_value<V: Visitor>(doc: &[u8], at: usize, v: &mut V) -> Result<usize, SyntaxError> {
    let mut p = Parser::new(doc, at);
    p.skip_ws();
    let _ = p.value(v)?;
    Ok(p.pos)
}

/// Walks the single JSON document in `doc` (BOM and surrounding whitespace allowed), calling the
/// visitor for every event; returns [`Flow::Stop`] if the visitor stopped it. Trailing data after
/// the value is an error.
pub fn walk<V: Visitor>(doc: &[u8], v: &mut V) -> Result<Flow, SyntaxError> {
    let mut p = Parser::new(doc, bom_len(doc));
    p.skip_ws();
    if p.pos == doc.len() {
        return Err(SyntaxError::new(
            doc,
            p.pos,
            "empty input: expected a JSON value",
        ));
    }
    if v.record(0, p.pos) == Flow::Stop || p.value(v)? == Flow::Stop {
        return Ok(Flow::Stop);
    }
    p.skip_ws();
    if p.pos != doc.len() {
        return Err(SyntaxError::new(
            doc,
            p.pos,
            "unexpected data after the JSON value",
        ));
    }
    Ok(Flow::Continue)
}

/// Walks one JSON value or an NDJSON stream: top-level values are read one after another, each
/// announced by [`Visitor::record`].
///
/// A second value is accepted only in NDJSON layout ([`super::records`]): every record on one
/// line of its own, blank lines skipped; a line that is not exactly one value is an error that
/// names the line. So `count == 1` means plain JSON and `count >= 2` means NDJSON.
pub fn walk_values<V: Visitor>(doc: &[u8], v: &mut V) -> Result<Records, SyntaxError> {
    walk_records(doc, v, false)
}

/// [`walk_values`], optionally skipping (and counting in [`Records::skipped`]) the NDJSON
/// lines that are not exactly one value. With `skip_invalid`, a source that is one valid JSON
/// document is walked as such; any other is read line by line, each line checked before it is
/// walked (so a visitor never sees part of a skipped line).
pub fn walk_records<V: Visitor>(
    doc: &[u8],
    v: &mut V,
    skip_invalid: bool,
) -> Result<Records, SyntaxError> {
    if skip_invalid
        && super::records::layout(doc, true) == super::records::Layout::Ndjson
        && validate(doc).is_err()
    {
        return walk_lines_skipping(doc, v);
    }
    let mut p = Parser::new(doc, bom_len(doc));
    let mut rec = Records {
        count: 0,
        any_container: false,
        stopped: false,
        skipped: 0,
    };
    // Whether the previous value held a line break.
    let mut prev: Option<bool> = None;
    loop {
        let gap_start = p.pos;
        p.skip_ws();
        if p.pos == doc.len() {
            break;
        }
        if let Some(prev_has_newline) = prev {
            let gap = &doc[gap_start..p.pos];
            // The gap is usually one `\n`: a byte loop beats a memchr call there.
            let gap_has_newline = if gap.len() < 16 {
                gap.contains(&b'\n')
            } else {
                memchr::memchr(b'\n', gap).is_some()
            };
            if !gap_has_newline || prev_has_newline {
                return Err(line_error(doc, p.pos).unwrap_or_else(|| {
                    SyntaxError::new(doc, p.pos, "unexpected data after the JSON value")
                }));
            }
        }
        let start = p.pos;
        rec.any_container |= matches!(doc[start], b'{' | b'[');
        let flow = v.record(rec.count, start);
        rec.count += 1;
        let ws_runs = p.ws_runs;
        if flow == Flow::Stop {
            rec.stopped = true;
            return Ok(rec);
        }
        match p.value(v) {
            Ok(Flow::Stop) => {
                rec.stopped = true;
                return Ok(rec);
            }
            Ok(_) => {}
            // A later record: the error as the NDJSON rule words it (naming the line).
            Err(e) if rec.count >= 2 => return Err(line_error(doc, start).unwrap_or(e)),
            Err(e) => return Err(e),
        }
        // Line breaks can only be in whitespace (strings cannot hold a raw one), so a value
        // that had none needs no search.
        let has_newline =
            p.ws_runs != ws_runs && memchr::memchr(b'\n', &doc[start..p.pos]).is_some();
        if rec.count >= 2 && has_newline {
            return Err(line_error(doc, start).unwrap_or_else(|| {
                SyntaxError::new(doc, start, "unexpected data after the JSON value")
            }));
        }
        prev = Some(has_newline);
    }
    if rec.count == 0 {
        return Err(SyntaxError::new(
            doc,
            p.pos,
            "empty input: expected a JSON value",
        ));
    }
    Ok(rec)
}

/// The error of the NDJSON line holding offset `at`, as [`super::records::line_record`] words
/// it (errors are rare: the line is read again only then).
fn line_error(doc: &[u8], at: usize) -> Option<SyntaxError> {
    let from = memchr::memrchr(b'\n', &doc[..at]).map_or(0, |i| i + 1);
    super::records::line_record(doc, from, true).err()
}

/// The line-by-line walk of [`walk_records`] with `skip_invalid`.
fn walk_lines_skipping<V: Visitor>(doc: &[u8], v: &mut V) -> Result<Records, SyntaxError> {
    let mut rec = Records {
        count: 0,
        any_container: false,
        stopped: false,
        skipped: 0,
    };
    let mut from = bom_len(doc);
    while from < doc.len() {
        let next = memchr::memchr(b'\n', &doc[from..]).map_or(doc.len(), |i| from + i + 1);
        match super::records::line_record(doc, from, true) {
            Ok(None) => {}
            Ok(Some((start, end))) => {
                rec.any_container |= matches!(doc[start], b'{' | b'[');
                let flow = v.record(rec.count, start);
                rec.count += 1;
                // Checked above, so the walk cannot fail.
                let mut p = Parser::new(&doc[..end], start);
                if flow == Flow::Stop || p.value(v)? == Flow::Stop {
                    rec.stopped = true;
                    return Ok(rec);
                }
            }
            Err(_) => rec.skipped += 1,
        }
        from = next;
    }
    if rec.count == 0 {
        return Err(SyntaxError::new(
            doc,
            doc.len(),
            "no line holds exactly one JSON value",
        ));
    }
    Ok(rec)
}

/// What a document is, for commands that treat JSON and NDJSON differently.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// One JSON value.
    Json,
    /// Two or more values, one per line, at least one of them an object or array.
    Ndjson {
        /// The number of records.
        records: u64,
    },
}

/// Classifies `doc` as JSON or NDJSON with one strict pass; an error means neither (including
/// lines of bare scalars such as `seq` output, which are text).
pub fn detect(doc: &[u8]) -> Result<Format, SyntaxError> {
    let rec = walk_values(doc, &mut Ignore)?;
    match rec.count {
        1 => Ok(Format::Json),
        n if rec.any_container => Ok(Format::Ndjson { records: n }),
        _ => Err(SyntaxError::new(
            doc,
            0,
            "lines of scalars: text, not NDJSON",
        )),
    }
}

struct Parser<'a> {
    doc: &'a [u8],
    pos: usize,
    /// One entry per open container: its kind and the number of commas seen so far. Kept
    /// here so that NDJSON records reuse one allocation (a fresh one per record was 4% of a
    /// shape walk).
    stack: Vec<(Container, u64)>,
    /// Whitespace runs skipped (and containers jumped over, which may hold some): when it has
    /// not moved over a value, the value holds no line break.
    ws_runs: u64,
}

impl<'a> Parser<'a> {
    fn new(doc: &'a [u8], pos: usize) -> Self {
        Parser {
            doc,
            pos,
            stack: Vec::new(),
            ws_runs: 0,
        }
    }

    #[inline(always)]
    fn skip_ws(&mut self) {
        // Minified JSON has no whitespace and pretty JSON mostly one space: check those bytes
        // before paying for a vector scan of an indentation run. Every byte that can follow
        // whitespace in valid JSON is above b' ' and all four whitespace bytes are at or below
        // it, so one compare settles the common case.
        let doc = self.doc;
        let i = self.pos;
        match doc.get(i) {
            Some(&b) if b <= b' ' && is_ws(b) => {}
            _ => return,
        }
        self.ws_runs += 1;
        if i + 1 >= doc.len() || !is_ws(doc[i + 1]) {
            self.pos = i + 1;
            return;
        }
        self.pos = skip_ws_run(doc, i + 2);
    }

    fn err(&self, at: usize, msg: &str) -> SyntaxError {
        SyntaxError::new(self.doc, at, msg)
    }

    /// Parses one value at `pos` (no leading whitespace), leaving `pos` just past it.
    ///
    /// Written as two nested loops — read a value, then close containers until a comma leads to
    /// the next one — rather than a state variable dispatched per token: every step knows what
    /// comes next, so no jump through a state table sits between a key and its value.
    fn value<V: Visitor>(&mut self, v: &mut V) -> Result<Flow, SyntaxError> {
        let mut stack = std::mem::take(&mut self.stack);
        stack.clear();
        let flow = self.value_with(v, &mut stack);
        self.stack = stack;
        flow
    }

    #[inline(always)]
    fn value_with<V: Visitor>(
        &mut self,
        v: &mut V,
        stack: &mut Vec<(Container, u64)>,
    ) -> Result<Flow, SyntaxError> {
        let doc = self.doc;
        macro_rules! emit {
            ($e:expr) => {
                if $e == Flow::Stop {
                    return Ok(Flow::Stop);
                }
            };
        }
        'value: loop {
            let at = self.pos;
            match doc.get(at) {
                Some(b'{') => match v.begin(Container::Object, at) {
                    Flow::Stop => return Ok(Flow::Stop),
                    Flow::Skip => {
                        self.pos = super::scan::skip_value(doc, at)?;
                        self.ws_runs += 1;
                    }
                    Flow::Continue => {
                        self.pos += 1;
                        self.skip_ws();
                        if doc.get(self.pos) == Some(&b'}') {
                            emit!(v.end(Container::Object, self.pos, 0));
                            self.pos += 1;
                        } else {
                            stack.push((Container::Object, 0));
                            emit!(self.member_key(v)?);
                            continue 'value;
                        }
                    }
                },
                Some(b'[') => match v.begin(Container::Array, at) {
                    Flow::Stop => return Ok(Flow::Stop),
                    Flow::Skip => {
                        self.pos = super::scan::skip_value(doc, at)?;
                        self.ws_runs += 1;
                    }
                    Flow::Continue => {
                        self.pos += 1;
                        self.skip_ws();
                        if doc.get(self.pos) == Some(&b']') {
                            emit!(v.end(Container::Array, self.pos, 0));
                            self.pos += 1;
                        } else {
                            stack.push((Container::Array, 0));
                            emit!(v.index(0));
                            continue 'value;
                        }
                    }
                },
                Some(b'"') => {
                    let end = self.string(at)?;
                    emit!(v.scalar(Scalar::String, &doc[at..end], at));
                }
                Some(b'-' | b'0'..=b'9') => {
                    let kind = self.number(at)?;
                    emit!(v.scalar(kind, &doc[at..self.pos], at));
                }
                Some(b't') => {
                    self.literal(at, b"true")?;
                    emit!(v.scalar(Scalar::Boolean, &doc[at..self.pos], at));
                }
                Some(b'f') => {
                    self.literal(at, b"false")?;
                    emit!(v.scalar(Scalar::Boolean, &doc[at..self.pos], at));
                }
                Some(b'n') => {
                    self.literal(at, b"null")?;
                    emit!(v.scalar(Scalar::Null, &doc[at..self.pos], at));
                }
                Some(b']') if stack.last().map(|f| f.0) == Some(Container::Array) => {
                    return Err(self.err(at, "trailing comma before ']'"));
                }
                Some(b'N' | b'I') => {
                    return Err(self.err(at, "NaN and Infinity are not JSON numbers"));
                }
                Some(_) => return Err(self.err(at, "expected a JSON value")),
                None => {
                    return Err(self.err(at, "unexpected end of input: expected a JSON value"));
                }
            }
            // After a value: close containers until a comma leads to the next value.
            loop {
                let Some((kind, n)) = stack.last_mut() else {
                    return Ok(Flow::Continue);
                };
                let kind = *kind;
                self.skip_ws();
                let at = self.pos;
                match (kind, doc.get(at)) {
                    (_, Some(b',')) => {
                        self.pos += 1;
                        *n += 1;
                        if kind == Container::Object {
                            emit!(self.member_key(v)?);
                        } else {
                            emit!(v.index(*n));
                            self.skip_ws();
                        }
                        continue 'value;
                    }
                    (Container::Object, Some(b'}')) | (Container::Array, Some(b']')) => {
                        let n = *n + 1;
                        stack.pop();
                        emit!(v.end(kind, at, n));
                        self.pos += 1;
                    }
                    (Container::Object, Some(_)) => {
                        return Err(self.err(at, "expected ',' or '}' after an object member"));
                    }
                    (Container::Array, Some(_)) => {
                        return Err(self.err(at, "expected ',' or ']' after an array element"));
                    }
                    (_, None) => {
                        return Err(self.err(at, "unexpected end of input: unclosed container"));
                    }
                }
            }
        }
    }

    /// Reads an object key and its colon (whitespace allowed around both), leaving `pos` at the
    /// member's value.
    #[inline(always)]
    fn member_key<V: Visitor>(&mut self, v: &mut V) -> Result<Flow, SyntaxError> {
        let doc = self.doc;
        self.skip_ws();
        let at = self.pos;
        match doc.get(at) {
            Some(b'"') => {
                let guess = v.next_key();
                let n = guess.len();
                let flow = if n > 0
                    && doc.get(at + 1 + n) == Some(&b'"')
                    && bytes_eq(&doc[at + 1..at + 1 + n], guess)
                {
                    // A key seen before, so valid: no need to scan it for its end again.
                    self.pos = at + n + 2;
                    v.guessed_key(&doc[at + 1..at + 1 + n], at)
                } else {
                    let end = self.string(at)?;
                    v.key(&doc[at + 1..end - 1], at)
                };
                if flow == Flow::Stop {
                    return Ok(Flow::Stop);
                }
                self.skip_ws();
                if doc.get(self.pos) != Some(&b':') {
                    return Err(self.err(self.pos, "expected ':' after an object key"));
                }
                self.pos += 1;
                self.skip_ws();
                Ok(Flow::Continue)
            }
            Some(b'}') => Err(self.err(at, "trailing comma before '}'")),
            Some(_) => Err(self.err(at, "expected a string key")),
            None => Err(self.err(at, "unexpected end of input: expected a string key")),
        }
    }

    /// Checks the string opening at `at`; returns the offset after its closing quote.
    #[inline(always)]
    fn string(&mut self, at: usize) -> Result<usize, SyntaxError> {
        let end = string_at(self.doc, at)?;
        self.pos = end;
        Ok(end)
    }

    /// Checks the number at `at`; leaves `pos` after it.
    #[inline(always)]
    fn number(&mut self, at: usize) -> Result<Scalar, SyntaxError> {
        let (kind, end) = number_at(self.doc, at)?;
        self.pos = end;
        Ok(kind)
    }

    /// Checks the literal `word` at `at`; leaves `pos` after it.
    #[inline(always)]
    fn literal(&mut self, at: usize, word: &[u8]) -> Result<(), SyntaxError> {
        self.pos = literal_at(self.doc, at, word)?;
        Ok(())
    }
}

// The scalar checks are free functions over the document and an offset, so that
// [`scalar_end`] and [`string_end`] (called for every scalar and key the navigation passes)
// need no parser state: building a `Parser` there was a tenth of an NDJSON query's
// instructions.

/// The error at `at`, kept out of the hot loops (it computes line and column).
#[cold]
#[inline(never)]
fn error_at(doc: &[u8], at: usize, msg: &str) -> SyntaxError {
    SyntaxError::new(doc, at, msg)
}

/// Checks the string whose opening quote is `doc[at]`; returns the offset after its closing
/// quote.
#[inline(always)]
fn string_at(doc: &[u8], at: usize) -> Result<usize, SyntaxError> {
    let mut i = at + 1;
    let mut non_ascii = false;
    loop {
        let (j, na) = find_string_special(doc, i);
        non_ascii |= na;
        match doc.get(j) {
            Some(b'"') => {
                if non_ascii && let Err(e) = std::str::from_utf8(&doc[at + 1..j]) {
                    return Err(error_at(
                        doc,
                        at + 1 + e.valid_up_to(),
                        "invalid UTF-8 in a string",
                    ));
                }
                return Ok(j + 1);
            }
            Some(b'\\') => {
                i = escape_at(doc, j)?;
            }
            Some(_) => {
                return Err(error_at(
                    doc,
                    j,
                    "control character in a string (must be escaped)",
                ));
            }
            None => return Err(error_at(doc, at, "unterminated string")),
        }
    }
}

/// Checks the escape at `at` (a backslash); returns the offset after it.
fn escape_at(doc: &[u8], at: usize) -> Result<usize, SyntaxError> {
    match doc.get(at + 1) {
        Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => Ok(at + 2),
        Some(b'u') => {
            let hex = doc.get(at + 2..at + 6);
            if hex.is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit)) {
                Ok(at + 6)
            } else {
                Err(error_at(doc, at, "invalid \\u escape (needs 4 hex digits)"))
            }
        }
        Some(_) => Err(error_at(doc, at, "invalid escape in a string")),
        None => Err(error_at(doc, at, "unterminated string")),
    }
}

/// Checks the number at `at`; returns its kind and the offset after it.
#[inline(always)]
fn number_at(doc: &[u8], at: usize) -> Result<(Scalar, usize), SyntaxError> {
    let digits = |mut i: usize| {
        // Eight bytes at a time (timestamps and ids are long): a byte is a digit when its
        // high nibble is 3 and stays 3 after adding 6. A carry out of a byte at 0xFA or
        // above only disturbs later bytes, and that byte is not a digit anyway.
        const LOW: u64 = 0x0101_0101_0101_0101;
        while let Some(w) = doc.get(i..i + 8) {
            let w = u64::from_le_bytes(w.try_into().expect("8 bytes"));
            let not_digit = ((w & (0xF0 * LOW)) ^ (0x30 * LOW))
                | ((w.wrapping_add(0x06 * LOW) & (0xF0 * LOW)) ^ (0x30 * LOW));
            if not_digit != 0 {
                return i + (not_digit.trailing_zeros() / 8) as usize;
            }
            i += 8;
        }
        while i < doc.len() && doc[i].is_ascii_digit() {
            i += 1;
        }
        i
    };
    let bad = || Err(error_at(doc, at, "invalid number"));
    let mut i = at;
    if doc[i] == b'-' {
        i += 1;
    }
    match doc.get(i) {
        Some(b'0') => i += 1,
        Some(b'1'..=b'9') => i = digits(i + 1),
        _ => return bad(),
    }
    let mut kind = Scalar::Integer;
    if doc.get(i) == Some(&b'.') {
        kind = Scalar::Number;
        let j = digits(i + 1);
        if j == i + 1 {
            return bad();
        }
        i = j;
    }
    if matches!(doc.get(i), Some(b'e' | b'E')) {
        kind = Scalar::Number;
        i += 1;
        if matches!(doc.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        let j = digits(i);
        if j == i {
            return bad();
        }
        i = j;
    }
    if doc
        .get(i)
        .is_some_and(|&b| b.is_ascii_alphanumeric() || b == b'.')
    {
        return bad();
    }
    Ok((kind, i))
}

/// Checks the literal `word` at `at`; returns the offset after it. Inlined so that `word` is a
/// constant and the comparison is a load, not a `memcmp` call.
#[inline(always)]
fn literal_at(doc: &[u8], at: usize, word: &[u8]) -> Result<usize, SyntaxError> {
    let end = at + word.len();
    if doc.get(at..end) != Some(word) || doc.get(end).is_some_and(u8::is_ascii_alphanumeric) {
        return Err(error_at(
            doc,
            at,
            "invalid literal (expected true, false or null)",
        ));
    }
    Ok(end)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Records every event as a line of text.
    #[derive(Default)]
    struct Log(Vec<String>);
    impl Visitor for Log {
        fn record(&mut self, i: u64, at: usize) -> Flow {
            self.0.push(format!("rec {i}@{at}"));
            Flow::Continue
        }
        fn begin(&mut self, k: Container, at: usize) -> Flow {
            self.0.push(format!("begin {k:?}@{at}"));
            Flow::Continue
        }
        fn end(&mut self, k: Container, at: usize, n: u64) -> Flow {
            self.0.push(format!("end {k:?}@{at} n={n}"));
            Flow::Continue
        }
        fn key(&mut self, raw: &[u8], at: usize) -> Flow {
            self.0
                .push(format!("key {}@{at}", String::from_utf8_lossy(raw)));
            Flow::Continue
        }
        fn index(&mut self, i: u64) -> Flow {
            self.0.push(format!("index {i}"));
            Flow::Continue
        }
        fn scalar(&mut self, k: Scalar, raw: &[u8], at: usize) -> Flow {
            self.0
                .push(format!("{k:?} {}@{at}", String::from_utf8_lossy(raw)));
            Flow::Continue
        }
    }

    fn log(doc: &str) -> Vec<String> {
        let mut l = Log::default();
        assert_eq!(walk(doc.as_bytes(), &mut l).unwrap(), Flow::Continue);
        l.0
    }

    #[test]
    fn scalars_are_raw_as_written() {
        let l = log(r#"[1e400, 12345678901234567890123, -0.5, "a\u00e9\"b", true, null]"#);
        assert_eq!(
            l,
            [
                "rec 0@0",
                "begin Array@0",
                "index 0",
                "Number 1e400@1",
                "index 1",
                "Integer 12345678901234567890123@8",
                "index 2",
                "Number -0.5@33",
                "index 3",
                r#"String "a\u00e9\"b"@39"#,
                "index 4",
                "Boolean true@53",
                "index 5",
                "Null null@59",
                "end Array@63 n=6"
            ]
        );
    }

    #[test]
    fn duplicate_keys_are_kept_in_order_and_keys_raw() {
        let l = log(r#"{"a":1,"b\n":{},"a":[]}"#);
        assert_eq!(
            l,
            [
                "rec 0@0",
                "begin Object@0",
                "key a@1",
                "Integer 1@5",
                r#"key b\n@7"#,
                "begin Object@13",
                "end Object@14 n=0",
                "key a@16",
                "begin Array@20",
                "end Array@21 n=0",
                "end Object@22 n=3"
            ]
        );
    }

    #[test]
    fn bom_crlf_and_surrounding_whitespace() {
        validate(b"\xEF\xBB\xBF\r\n{\r\n  \"a\" : [ 1 ,\t2 ]\r\n}\r\n").unwrap();
        validate(b"  42  ").unwrap();
        validate(b"\"x\"").unwrap();
    }

    fn err(doc: &[u8]) -> SyntaxError {
        validate(doc).unwrap_err()
    }

    #[test]
    fn rejects_with_offsets_and_line_columns() {
        let e = err(b"{\n  \"a\": 1,\n  \"b\": tru\n}");
        assert_eq!((e.offset, e.line, e.column), (19, 3, 8));
        assert!(e.message.contains("literal"), "{}", e.message);
        let cases: &[(&[u8], u64)] = &[
            (b"", 0),
            (b"   ", 3),
            (b"[1,2,]", 5),
            (b"{\"a\":1,}", 7),
            (b"[NaN]", 1),
            (b"[Infinity]", 1),
            (b"[-Infinity]", 1),
            (b"[01]", 1),
            (b"[1.]", 1),
            (b"[1e]", 1),
            (b"[.5]", 1),
            (b"[+1]", 1),
            (b"\"a\tb\"", 2),
            (b"\"a\\xb\"", 2),
            (b"\"\\u12G4\"", 1),
            (b"\"abc", 0),
            (b"[1 2]", 3),
            (b"{\"a\" 1}", 5),
            (b"{1:2}", 1),
            (b"{} {}", 3),
            (b"[\"\xff\"]", 2),
            (b"[\"ok\xc3\"]", 4),
            (b"[[[", 3),
            (b"{\"a\":", 5),
            (b"nul", 0),
            (b"truex", 0),
            (b"// c\n1", 0),
        ];
        for (doc, off) in cases {
            let e = err(doc);
            assert_eq!(
                e.offset,
                *off,
                "{:?}: {}",
                String::from_utf8_lossy(doc),
                e.message
            );
        }
    }

    #[test]
    fn lone_surrogate_escapes_are_valid() {
        validate(br#"["\ud800", "\udc00x", "\ud83d\ude00"]"#).unwrap();
    }

    #[test]
    fn truncated_documents_fail_at_the_end() {
        let doc = br#"{"items":[{"id":1,"name":"abc"},{"id":2,"name":"de"}],"meta":{"n":2}}"#;
        validate(doc).unwrap();
        for cut in 0..doc.len() {
            let e = err(&doc[..cut]);
            assert!(e.offset <= cut as u64, "cut {cut}: {e:?}");
        }
    }

    #[test]
    fn million_deep_nesting_does_not_overflow() {
        let n = 1_000_000;
        let mut doc = "[".repeat(n);
        doc.push_str(&"]".repeat(n));
        validate(doc.as_bytes()).unwrap();
        let mut obj = "{\"a\":".repeat(n);
        obj.push('1');
        obj.push_str(&"}".repeat(n));
        validate(obj.as_bytes()).unwrap();
        let e = err(&doc.as_bytes()[..2 * n - 1]);
        assert_eq!(e.offset, (2 * n - 1) as u64);
    }

    #[test]
    fn visitor_can_stop_early() {
        struct StopAtThird(u32);
        impl Visitor for StopAtThird {
            fn scalar(&mut self, _: Scalar, _: &[u8], _: usize) -> Flow {
                self.0 += 1;
                if self.0 == 3 {
                    Flow::Stop
                } else {
                    Flow::Continue
                }
            }
        }
        // Invalid after the third scalar: stopping means it is never read.
        let mut v = StopAtThird(0);
        assert_eq!(walk(b"[1,2,3,x", &mut v).unwrap(), Flow::Stop);
    }

    #[test]
    fn ndjson_layout_rules() {
        let mut l = Log::default();
        let r = walk_values(b"{\"a\":1}\r\n\n[2]\n3\n", &mut l).unwrap();
        assert_eq!(
            r,
            Records {
                count: 3,
                any_container: true,
                stopped: false,
                skipped: 0
            }
        );
        assert!(l.0.contains(&"rec 2@14".to_string()));
        assert_eq!(walk_values(b"{\n}", &mut Ignore).unwrap().count, 1);
        // Two values on one line, or a multi-line value followed by another: not NDJSON.
        assert_eq!(walk_values(b"1 2", &mut Ignore).unwrap_err().offset, 2);
        assert_eq!(walk_values(b"{\n}\n{}", &mut Ignore).unwrap_err().offset, 4);
        // A record that does not end on its line: the error is where the line ends, and names it.
        let e = walk_values(b"{}\n{\n}", &mut Ignore).unwrap_err();
        assert_eq!(e.offset, 4);
        assert!(
            e.message.starts_with("line 2 is not one JSON value"),
            "{}",
            e.message
        );
        assert_eq!(walk_values(b"{}\n{x}", &mut Ignore).unwrap_err().offset, 4);
        assert!(walk_values(b" \n ", &mut Ignore).is_err());
    }

    #[test]
    fn begin_can_skip_a_container() {
        struct SkipInner(Vec<String>);
        impl Visitor for SkipInner {
            fn begin(&mut self, _: Container, at: usize) -> Flow {
                if at == 0 { Flow::Continue } else { Flow::Skip }
            }
            fn scalar(&mut self, _: Scalar, raw: &[u8], _: usize) -> Flow {
                self.0.push(String::from_utf8_lossy(raw).into_owned());
                Flow::Continue
            }
        }
        let mut v = SkipInner(Vec::new());
        // The skipped object is not checked inside (`1 2` would be an error otherwise).
        assert_eq!(
            walk(br#"[1, {"a": [2, 3], "b": 1 2}, 4]"#, &mut v).unwrap(),
            Flow::Continue
        );
        assert_eq!(v.0, ["1", "4"]);
    }

    #[test]
    fn detection() {
        assert_eq!(detect(b" {\"a\":[1]}\n").unwrap(), Format::Json);
        assert_eq!(
            detect(b"{}\n\n[1]\n2\n").unwrap(),
            Format::Ndjson { records: 3 }
        );
        assert!(detect(b"1\n2\n3\n").is_err());
        assert!(detect(b"{}\n{").is_err());
        assert!(detect(b"hello").is_err());
    }

    #[test]
    fn validate_value_returns_the_end() {
        // A scalar is checked like the walk checks it: same end, same error.
        for doc in [
            &b"12,"[..],
            b"-0.5e+3]",
            b"\"a\\u00e9\"",
            b"true ",
            b"null",
            b"01",
            b"1.",
            b"\"a\tb\"",
            b"\"\xff\"",
            b"tru",
            b"NaN",
            b"]",
            b"x",
            b"\"abc",
        ] {
            assert_eq!(
                validate_value(doc, 0),
                walk_value(doc, 0, &mut Ignore),
                "{:?}",
                String::from_utf8_lossy(doc)
            );
        }
        assert_eq!(validate_value(b"[ {\"a\":[1]} , 2]", 2).unwrap(), 11);
        assert!(validate_value(b"[{\"a\" 1}]", 1).is_err());
    }
}
