//! The JSON engine: the one JSON parser of spill, over byte slices (a memory map or a buffer).
//!
//! Everything here works on `&[u8]` without building a document tree:
//!
//! - [`validate`] / [`validate_value`]: strict RFC 8259 checking with byte offset and
//!   line:column errors ([`SyntaxError`]).
//! - [`skip_value`]: the hot loop, a SIMD structural scanner that jumps over a whole value.
//! - [`Value`]: lenient navigation for the JSONPath evaluator — kind, members, elements, end,
//!   decoded strings, raw numbers — that reads only as far as the caller iterates.
//! - [`walk`] / [`walk_values`] with a [`Visitor`]: the strict streaming walk (keys, indexes,
//!   raw scalars, container starts and ends with offsets), also over NDJSON records.
//! - [`paths_at_offsets`]: RFC 9535 normalized paths of byte offsets, for `search --paths`.
//! - [`shape`](mod@shape) and [`analyze`](mod@analyze): the skeleton of `spill shape` and the JSON facts of
//!   `wrap`'s envelope.
//!
//! # Which calls validate
//!
//! [`walk`], [`walk_values`], [`validate`] and [`validate_value`] check the full grammar; shape
//! and analyze are built on them, so they reject invalid input. [`skip_value`] and the
//! [`Value`] navigation are lenient inside the values they jump over (they balance brackets and
//! quotes only) so that `$.items[5]` on 1 GB reads only a prefix; a caller that prints a
//! selected value checks it with [`validate_value`].
//!
//! # Decisions
//!
//! - Escaped lone surrogates (`"\ud800"`) are valid (RFC 8259's grammar allows them); decoding
//!   replaces them with U+FFFD.
//! - Columns in [`SyntaxError`] are 1-based byte columns, as `rg --column`.
//! - A UTF-8 byte order mark is skipped at the start of a document; offsets still count it.
//! - NDJSON: two or more values, each on its own line(s) with no line break inside a value and
//!   at least one object or array among them (so `seq 1 5` stays text).
//! - Nesting depth is unlimited: every loop keeps an explicit stack on the heap.
#![allow(clippy::module_name_repetitions)]

pub mod analyze;
#[doc(hidden)]
pub mod fuzzing;
mod nav;
mod parse;
mod paths;
mod scan;
pub mod shape;

pub use nav::{Elements, Kind, Member, Members, Value, decode_string, root};
pub use parse::{
    Container, Flow, Records, Scalar, Visitor, bom_len, validate, validate_value, walk, walk_values,
};
pub use paths::{PathHit, normalized_name, paths_at_offsets, push_member};
pub use scan::skip_value;

use std::fmt;

/// A JSON syntax error: where it is and what was expected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntaxError {
    /// 0-based byte offset of the offending byte (the document length at end of input).
    pub offset: u64,
    /// 1-based line number (lines end at `\n`).
    pub line: u64,
    /// 1-based byte column within the line.
    pub column: u64,
    /// What was wrong, lower-case (`expected ',' or '}' after an object member`).
    pub message: String,
}

impl SyntaxError {
    /// Builds the error for `offset` in `doc`, computing line and column (errors are rare, so
    /// the line count is done only here).
    pub fn new(doc: &[u8], offset: usize, message: &str) -> SyntaxError {
        let offset = offset.min(doc.len());
        let before = &doc[..offset];
        let line = memchr::memchr_iter(b'\n', before).count() as u64 + 1;
        let line_start = memchr::memrchr(b'\n', before).map_or(0, |i| i + 1);
        SyntaxError {
            offset: offset as u64,
            line,
            column: (offset - line_start) as u64 + 1,
            message: message.to_string(),
        }
    }
}

impl fmt::Display for SyntaxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "invalid JSON at byte {} (line {}:{}): {}",
            self.offset, self.line, self.column, self.message
        )
    }
}

impl std::error::Error for SyntaxError {}

impl From<SyntaxError> for crate::error::Error {
    fn from(e: SyntaxError) -> Self {
        crate::error::Error::InvalidJson {
            offset: e.offset,
            line: e.line,
            column: e.column,
            message: e.message,
        }
    }
}
