//! The JSON engine's lazy values as a JSONPath [`Doc`]: what `extract` evaluates queries on
//! (the one `Doc` over real documents; the tests' in-memory tree is the other).
//!
//! A node is a [`Value`]: the document and the offset of a value's first byte. Kinds are judged
//! from that byte; members and elements are read only as far as the evaluator asks, and every
//! sibling passed over costs one SIMD [`skip_value`]. Like the engine's navigation this is
//! lenient inside what it jumps over; the renderer checks everything it prints.
//!
//! NDJSON sources are addressed as an array of records: the root is then a virtual array (the
//! node at offset [`RECORDS`]) whose elements are the records.

use std::borrow::Cow;
use std::marker::PhantomData;

use super::normalized::{NormPath, PathElem};
use super::{Doc, Kind};
use crate::json::{self, Fault, SyntaxError, Value, skip_ws};
use crate::limits::group_digits;

/// The offset of the virtual root array of an NDJSON document.
pub const RECORDS: usize = usize::MAX;

/// A JSON or NDJSON document in memory (a memory map or a buffer), navigated lazily.
#[derive(Debug, Clone, Copy)]
pub struct JsonDoc<'d> {
    bytes: &'d [u8],
    /// The offset of the first record (NDJSON) or of the root value (JSON).
    first: usize,
    ndjson: bool,
    /// NDJSON lines that are not one value are skipped (and counted) instead of an error.
    skip_invalid: bool,
}

impl<'d> JsonDoc<'d> {
    /// Opens `bytes` and returns the document with its root node.
    ///
    /// NDJSON is told from JSON by the first line alone ([`json::records::layout`]), so that
    /// `$.items[5]` on a pretty 1 GB document stays a prefix read. With `skip_invalid`, NDJSON
    /// lines that are not exactly one value are skipped and counted instead of an error.
    pub fn open(
        bytes: &'d [u8],
        skip_invalid: bool,
    ) -> Result<(JsonDoc<'d>, Value<'d>), SyntaxError> {
        let root = json::root(bytes)?;
        let mut doc = JsonDoc {
            bytes,
            first: root.offset(),
            ndjson: false,
            skip_invalid,
        };
        if json::records::layout(bytes, skip_invalid) == json::records::Layout::Ndjson {
            doc.ndjson = true;
            // Records are read from a line start: the first one's line begins after the BOM
            // and the blank lines before it.
            let before = &bytes[..root.offset()];
            doc.first = memchr::memrchr(b'\n', before).map_or(json::bom_len(bytes), |i| i + 1);
            return Ok((doc, Value::new(bytes, RECORDS)));
        }
        Ok((doc, root))
    }

    /// True when the source is NDJSON (the root is the array of records).
    pub fn is_ndjson(&self) -> bool {
        self.ndjson
    }

    /// The bytes of the document.
    pub fn bytes(&self) -> &'d [u8] {
        self.bytes
    }

    /// The records of an NDJSON document.
    pub fn records(&self) -> Records<'d> {
        Records::new(self.bytes, self.first, self.skip_invalid)
    }

    /// The offset of the first record's line (NDJSON) or of the root value (JSON).
    pub fn first(&self) -> usize {
        self.first
    }

    /// Whether NDJSON lines that are not one value are skipped.
    pub fn skip_invalid(&self) -> bool {
        self.skip_invalid
    }

    /// Checks what follows node `n`, found at `path`, before it is printed: the next
    /// structural byte must be a separator or the closing bracket of its parent (so
    /// `[2024-01-02]` never yields `2024`), and after the root of a JSON document only
    /// whitespace may follow. An NDJSON record's line was checked when it was read. Returns
    /// where the node ends, for [`JsonDoc::check_end`].
    pub fn check_after(&self, n: Value<'d>, path: &NormPath<'_>) -> Result<usize, SyntaxError> {
        if is_records(n) {
            self.check_end(n, None)?;
            return Ok(self.bytes.len());
        }
        let end = n.end()?;
        let last = path.elems().last();
        if last.is_none() || (self.ndjson && path.len() == 1) {
            if !self.ndjson {
                self.check_end(n, Some((end, 0)))?;
            }
            return Ok(end);
        }
        let at = skip_ws(self.bytes, end);
        let (close, what) = match last {
            Some(PathElem::Name(_)) => (b'}', "expected ',' or '}' after an object member"),
            _ => (b']', "expected ',' or ']' after an array element"),
        };
        match self.bytes.get(at) {
            Some(&b) if b == b',' || b == close => Ok(end),
            Some(_) => Err(SyntaxError::new(self.bytes, at, what)),
            None => Err(SyntaxError::new(
                self.bytes,
                at,
                "unexpected end of input: unclosed container",
            )),
        }
    }

    /// The NDJSON lines skipped (with `skip_invalid`) before the record holding offset `at`.
    pub fn skipped_before(&self, at: usize) -> u64 {
        if !self.ndjson || !self.skip_invalid {
            return 0;
        }
        let mut records = self.records();
        while let Some(Ok(start)) = records.lines.next() {
            if start >= at {
                break;
            }
        }
        records.skipped()
    }

    /// Checks the end of the document, for a query whose evaluation reached it: the root value
    /// ends and only whitespace follows (JSON), or every record line is one value (NDJSON).
    /// `furthest` is the end of the furthest node the evaluation read and how many containers
    /// enclose it: the rest is scanned from there, at skipping speed, instead of from the
    /// root. Returns the NDJSON lines skipped (with `skip_invalid`) in the whole document.
    pub fn check_end(
        &self,
        root: Value<'d>,
        furthest: Option<(usize, usize)>,
    ) -> Result<u64, SyntaxError> {
        if self.ndjson {
            // Lines skipped are counted over the whole document; without skipping, the lines
            // after the furthest record are the ones left to check.
            let from = match furthest {
                Some((end, _)) if !self.skip_invalid => memchr::memchr(b'\n', &self.bytes[end..])
                    .map_or(self.bytes.len(), |i| end + i + 1),
                _ => self.first,
            };
            let mut records = Records::new(self.bytes, from, self.skip_invalid);
            for r in records.by_ref() {
                r?;
            }
            return Ok(records.skipped());
        }
        let end = match furthest {
            Some((end, depth)) => {
                json::close_containers(self.bytes, end, depth).ok_or_else(|| {
                    SyntaxError::new(
                        self.bytes,
                        self.bytes.len(),
                        "unexpected end of input: unclosed container",
                    )
                })?
            }
            None if is_records(root) => self.first,
            None => root.end()?,
        };
        let at = skip_ws(self.bytes, end);
        if at == self.bytes.len() {
            Ok(0)
        } else {
            Err(SyntaxError::new(
                self.bytes,
                at,
                "unexpected data after the JSON value",
            ))
        }
    }
}

/// True when `v` is the virtual array of NDJSON records.
pub fn is_records(v: Value<'_>) -> bool {
    v.offset() == RECORDS
}

/// The records of an NDJSON document: one per line, each checked strictly
/// ([`json::records::RecordLines`]).
#[derive(Debug, Clone)]
pub struct Records<'d> {
    doc: &'d [u8],
    lines: json::records::RecordLines<'d>,
}

impl<'d> Records<'d> {
    /// The records of `doc` from the line starting at `from` on.
    pub fn new(doc: &'d [u8], from: usize, skip_invalid: bool) -> Self {
        Records {
            doc,
            lines: json::records::RecordLines::new(doc, from, skip_invalid),
        }
    }

    /// Lines skipped so far because they are not one value.
    pub fn skipped(&self) -> u64 {
        self.lines.skipped
    }
}

impl Records<'_> {
    /// Nothing to do: a record is a line, and the next one starts on the next line whatever
    /// the caller read of this one. (Kept so that callers treat every container alike.)
    pub fn resume_at(&mut self, _end: usize) {}
}

impl<'d> Iterator for Records<'d> {
    type Item = Result<Value<'d>, SyntaxError>;
    fn next(&mut self) -> Option<Self::Item> {
        let doc = self.doc;
        self.lines.next().map(|r| r.map(|at| Value::new(doc, at)))
    }
}

/// An object's members as the evaluator wants them: the decoded key and the value.
pub struct JsonMembers<'a, 'd> {
    inner: Option<json::Members<'d>>,
    _evaluation: PhantomData<&'a ()>,
}

impl<'a, 'd: 'a> Iterator for JsonMembers<'a, 'd> {
    type Item = Result<(Cow<'a, str>, Value<'d>), SyntaxError>;
    fn next(&mut self) -> Option<Self::Item> {
        let m = self.inner.as_mut()?.next()?;
        Some(m.map(|m| (m.key(), m.value)))
    }
}

/// An array's elements, or the records of an NDJSON document.
pub enum JsonElements<'d> {
    /// The elements of an array value.
    Array(json::Elements<'d>),
    /// The records of the virtual root.
    Records(Records<'d>),
    /// Not an array: nothing.
    None,
}

impl<'d> Iterator for JsonElements<'d> {
    type Item = Result<Value<'d>, SyntaxError>;
    fn next(&mut self) -> Option<Self::Item> {
        match self {
            JsonElements::Array(e) => e.next().map(|r| r.map(|(_, v)| v)),
            JsonElements::Records(r) => r.next(),
            JsonElements::None => None,
        }
    }
}

impl<'d> Doc for JsonDoc<'d> {
    type Node = Value<'d>;
    type Error = SyntaxError;
    type Members<'a>
        = JsonMembers<'a, 'd>
    where
        Self: 'a;
    type Elements<'a>
        = JsonElements<'d>
    where
        Self: 'a;

    fn check_descent(&self, n: Value<'d>, depth: usize) -> Result<(), SyntaxError> {
        if depth <= super::MAX_DESCENT {
            return Ok(());
        }
        Err(SyntaxError::limit(
            self.bytes,
            n.offset(),
            Fault::TooDeep,
            &format!(
                "a descendant segment (..) walks at most {} levels below where it starts; \
                 reach deeper values with an explicit path",
                group_digits(super::MAX_DESCENT as u64)
            ),
        ))
    }

    fn check_work(&self, n: Value<'d>, steps: u64) -> Result<(), SyntaxError> {
        let limit = super::work_limit(self.bytes.len());
        if steps <= limit {
            return Ok(());
        }
        Err(SyntaxError::limit(
            self.bytes,
            n.offset(),
            Fault::TooCostly,
            &format!(
                "the query visited more than {} values (10 million plus 16 per byte of input) \
                 without finishing: nested filters and descendant segments (..) multiply; \
                 narrow them with explicit paths",
                group_digits(limit)
            ),
        ))
    }

    fn kind(&self, n: Value<'d>) -> Result<Kind, SyntaxError> {
        if is_records(n) {
            return Ok(Kind::Array);
        }
        // The first byte is enough (the engine's own `kind` scans numbers to tell integers).
        match self.bytes.get(n.offset()) {
            Some(b'{') => Ok(Kind::Object),
            Some(b'[') => Ok(Kind::Array),
            Some(b'"') => Ok(Kind::String),
            Some(b'-' | b'0'..=b'9') => Ok(Kind::Number),
            Some(b't' | b'f') => Ok(Kind::Bool),
            Some(b'n') => Ok(Kind::Null),
            _ => Err(SyntaxError::new(
                self.bytes,
                n.offset(),
                "expected a JSON value",
            )),
        }
    }

    fn members(&self, n: Value<'d>) -> JsonMembers<'_, 'd> {
        let object = !is_records(n) && self.bytes.get(n.offset()) == Some(&b'{');
        JsonMembers {
            inner: object.then(|| n.members()),
            _evaluation: PhantomData,
        }
    }

    fn elements(&self, n: Value<'d>) -> JsonElements<'d> {
        if is_records(n) {
            JsonElements::Records(self.records())
        } else if self.bytes.get(n.offset()) == Some(&b'[') {
            JsonElements::Array(n.elements())
        } else {
            JsonElements::None
        }
    }

    fn string(&self, n: Value<'d>) -> Result<Cow<'_, str>, SyntaxError> {
        n.decode_string()
    }

    fn number(&self, n: Value<'d>) -> Result<Cow<'_, str>, SyntaxError> {
        let raw = n.number_text()?;
        std::str::from_utf8(raw)
            .map(Cow::Borrowed)
            .map_err(|_| SyntaxError::new(self.bytes, n.offset(), "invalid number"))
    }

    fn boolean(&self, n: Value<'d>) -> Result<bool, SyntaxError> {
        Ok(self.bytes.get(n.offset()) == Some(&b't'))
    }

    /// Compares raw keys without decoding them (no allocation unless a key has escapes).
    fn member(&self, n: Value<'d>, name: &str) -> Result<Option<Value<'d>>, SyntaxError> {
        if is_records(n) || self.bytes.get(n.offset()) != Some(&b'{') {
            return Ok(None);
        }
        for m in n.members() {
            let m = m?;
            if m.key_is(name) {
                return Ok(Some(m.value));
            }
        }
        Ok(None)
    }

    fn members_end<'a>(&'a self, members: &JsonMembers<'a, 'd>) -> Option<usize> {
        members.inner.as_ref()?.end()
    }

    fn elements_end<'a>(&'a self, elements: &JsonElements<'d>) -> Option<usize> {
        match elements {
            JsonElements::Array(e) => e.end(),
            _ => None,
        }
    }

    fn resume_members<'a>(&'a self, members: &mut JsonMembers<'a, 'd>, end: usize) {
        if let Some(m) = members.inner.as_mut() {
            m.resume_at(end);
        }
    }

    fn resume_elements<'a>(&'a self, elements: &mut JsonElements<'d>, end: usize) {
        match elements {
            JsonElements::Array(e) => e.resume_at(end),
            JsonElements::Records(r) => r.resume_at(end),
            JsonElements::None => {}
        }
    }

    /// Counts at skipping speed (a SIMD scan for the container's top-level commas).
    fn len(&self, n: Value<'d>) -> Result<usize, SyntaxError> {
        if is_records(n) {
            let mut count = 0usize;
            for r in self.records() {
                r?;
                count += 1;
            }
            return Ok(count);
        }
        match self.bytes.get(n.offset()) {
            Some(b'{' | b'[') => Ok(usize::try_from(n.count()?).unwrap_or(usize::MAX)),
            _ => Ok(0),
        }
    }
}
