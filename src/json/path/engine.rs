//! The JSON engine's lazy values as a [`Doc`]: what `spill extract` evaluates queries on.
//!
//! A node is a [`Value`] (the document and the offset of a value's first byte); kinds are
//! judged from that byte, members and elements are read only as far as the evaluator asks.
//! Like the engine's navigation, this is lenient inside values it jumps over: a caller that
//! prints a selected value checks it with [`crate::json::validate_value`].

use std::borrow::Cow;
use std::marker::PhantomData;

use super::doc::{Doc, Kind};
use crate::json::{self, SyntaxError, Value};

/// A JSON document in memory (a memory map or a buffer), navigated lazily.
#[derive(Debug, Clone, Copy)]
pub struct JsonDoc<'d> {
    bytes: &'d [u8],
}

impl<'d> JsonDoc<'d> {
    /// The document held in `bytes`.
    pub fn new(bytes: &'d [u8]) -> Self {
        JsonDoc { bytes }
    }

    /// Its root value (after an optional BOM and whitespace).
    pub fn root(&self) -> Result<Value<'d>, SyntaxError> {
        json::root(self.bytes)
    }
}

/// An object's members as the evaluator wants them: decoded key (borrowed for `'a`, the
/// evaluation) and value (in the document, `'d`).
pub struct JsonMembers<'a, 'd> {
    inner: json::Members<'d>,
    _evaluation: PhantomData<&'a ()>,
}

impl<'a, 'd: 'a> Iterator for JsonMembers<'a, 'd> {
    type Item = Result<(Cow<'a, str>, Value<'d>), SyntaxError>;
    fn next(&mut self) -> Option<Self::Item> {
        self.inner.next().map(|m| m.map(|m| (m.key(), m.value)))
    }
}

/// An array's elements as the evaluator wants them.
pub struct JsonElements<'d>(json::Elements<'d>);

impl<'d> Iterator for JsonElements<'d> {
    type Item = Result<Value<'d>, SyntaxError>;
    fn next(&mut self) -> Option<Self::Item> {
        self.0.next().map(|e| e.map(|(_, v)| v))
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

    fn kind(&self, n: Value<'d>) -> Result<Kind, SyntaxError> {
        // The first byte is enough (the engine's own `kind` scans numbers to tell integers).
        match n.doc().get(n.offset()) {
            Some(b'{') => Ok(Kind::Object),
            Some(b'[') => Ok(Kind::Array),
            Some(b'"') => Ok(Kind::String),
            Some(b'-' | b'0'..=b'9') => Ok(Kind::Number),
            Some(b't' | b'f') => Ok(Kind::Bool),
            Some(b'n') => Ok(Kind::Null),
            _ => Err(SyntaxError::new(
                n.doc(),
                n.offset(),
                "expected a JSON value",
            )),
        }
    }

    fn members(&self, n: Value<'d>) -> JsonMembers<'_, 'd> {
        JsonMembers {
            inner: n.members(),
            _evaluation: PhantomData,
        }
    }

    fn elements(&self, n: Value<'d>) -> JsonElements<'d> {
        JsonElements(n.elements())
    }

    fn string(&self, n: Value<'d>) -> Result<Cow<'_, str>, SyntaxError> {
        n.decode_string()
    }

    fn number(&self, n: Value<'d>) -> Result<Cow<'_, str>, SyntaxError> {
        let raw = n.number_text()?;
        std::str::from_utf8(raw)
            .map(Cow::Borrowed)
            .map_err(|_| SyntaxError::new(n.doc(), n.offset(), "invalid number"))
    }

    fn boolean(&self, n: Value<'d>) -> Result<bool, SyntaxError> {
        Ok(n.doc().get(n.offset()) == Some(&b't'))
    }

    fn members_end<'a>(&'a self, members: &JsonMembers<'a, 'd>) -> Option<usize> {
        members.inner.end()
    }

    fn elements_end<'a>(&'a self, elements: &JsonElements<'d>) -> Option<usize> {
        elements.0.end()
    }

    fn resume_members<'a>(&'a self, members: &mut JsonMembers<'a, 'd>, end: usize) {
        members.inner.resume_at(end);
    }

    fn resume_elements<'a>(&'a self, elements: &mut JsonElements<'d>, end: usize) {
        elements.0.resume_at(end);
    }

    /// Compares raw keys without decoding them (no allocation unless a key has escapes).
    fn member(&self, n: Value<'d>, name: &str) -> Result<Option<Value<'d>>, SyntaxError> {
        for m in n.members() {
            let m = m?;
            if m.key_is(name) {
                return Ok(Some(m.value));
            }
        }
        Ok(None)
    }
}
