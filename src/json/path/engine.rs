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

use super::{Doc, Kind};
use crate::json::{self, Fault, SyntaxError, Value, skip_value};
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
}

#[inline]
fn skip_ws(doc: &[u8], mut i: usize) -> usize {
    while i < doc.len() && matches!(doc[i], b' ' | b'\n' | b'\r' | b'\t') {
        i += 1;
    }
    i
}

impl<'d> JsonDoc<'d> {
    /// Opens `bytes` and returns the document with its root node.
    ///
    /// NDJSON is told from JSON by the first line alone, so that `$.items[5]` on a pretty 1 GB
    /// document stays a prefix read: when the first value ends on its first line and another
    /// value follows on a later line, the source is a stream of records. (A document whose
    /// root value is on one line is read to the end of that line.)
    pub fn open(bytes: &'d [u8]) -> Result<(JsonDoc<'d>, Value<'d>), SyntaxError> {
        let root = json::root(bytes)?;
        let at = root.offset();
        let mut doc = JsonDoc {
            bytes,
            first: at,
            ndjson: false,
        };
        if let Some(nl) = memchr::memchr(b'\n', &bytes[at..]).map(|i| at + i)
            && let Ok(end) = skip_value(&bytes[..nl], at)
        {
            let next = skip_ws(bytes, end);
            if next < nl {
                return Err(SyntaxError::new(
                    bytes,
                    next,
                    "unexpected data after the JSON value",
                ));
            }
            if next < bytes.len() {
                doc.ndjson = true;
                return Ok((doc, Value::new(bytes, RECORDS)));
            }
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

    /// The records of an NDJSON document (also usable on JSON: the root value alone).
    pub fn records(&self) -> Records<'d> {
        Records::new(self.bytes, self.first)
    }

    /// The offset of the first record (NDJSON) or of the root value (JSON).
    pub fn first(&self) -> usize {
        self.first
    }
}

/// True when `v` is the virtual array of NDJSON records.
pub fn is_records(v: Value<'_>) -> bool {
    v.offset() == RECORDS
}

/// The records of an NDJSON document, each a value separated from the next by whitespace.
#[derive(Debug, Clone)]
pub struct Records<'d> {
    doc: &'d [u8],
    pos: usize,
    pending: Option<usize>,
}

impl<'d> Records<'d> {
    /// The records of `doc` from offset `from` on.
    pub fn new(doc: &'d [u8], from: usize) -> Self {
        Records {
            doc,
            pos: from,
            pending: None,
        }
    }
}

impl Records<'_> {
    /// The record handed out last ends at `end` (the caller walked it): no second skip.
    pub fn resume_at(&mut self, end: usize) {
        if self.pending.take().is_some() {
            self.pos = end;
        }
    }
}

impl<'d> Iterator for Records<'d> {
    type Item = Result<Value<'d>, SyntaxError>;
    fn next(&mut self) -> Option<Self::Item> {
        if let Some(v) = self.pending.take() {
            match skip_value(self.doc, v) {
                Ok(end) => self.pos = end,
                Err(e) => {
                    self.pos = self.doc.len();
                    return Some(Err(e));
                }
            }
        }
        self.pos = skip_ws(self.doc, self.pos);
        if self.pos >= self.doc.len() {
            return None;
        }
        self.pending = Some(self.pos);
        Some(Ok(Value::new(self.doc, self.pos)))
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
