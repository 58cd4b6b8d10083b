//! The JSON engine: the one JSON parser of spill, over byte slices (a memory map or a buffer).
//!
//! Everything here works on `&[u8]` without building a document tree:
//!
//! - [`validate`] / [`validate_value`]: strict RFC 8259 checking with byte offset and
//!   line:column errors ([`SyntaxError`]).
//! - [`skip_value`]: the hot loop, a SIMD structural scanner that jumps over a whole value.
//! - [`Value`]: lenient navigation for the JSONPath evaluator — kind, members, elements, end,
//!   decoded strings, raw numbers, member/element counts at skipping speed — that reads only as
//!   far as the caller iterates.
//! - [`walk`] / [`walk_values`] with a [`Visitor`]: the strict streaming walk (keys, indexes,
//!   raw scalars, container starts and ends with offsets), also over NDJSON records.
//! - [`paths_at_offsets`]: RFC 9535 normalized paths of byte offsets, for `search --paths`.
//! - [`shape`](mod@shape) and [`analyze`](mod@analyze): the skeleton of `spill shape` and the JSON facts of
//!   `wrap`'s envelope.
//! - [`mixed`]: JSON behind a few lines of other output (the JSON part of a tool's merged
//!   stdout and stderr), found by its lines and analysed as JSON.
//!
//! # Which calls validate
//!
//! [`walk`], [`walk_values`], [`validate`] and [`validate_value`] check the full grammar; shape
//! and analyze are built on them, so they reject invalid input. [`skip_value`] and the
//! [`Value`] navigation read every token they pass strictly (keys, separators, scalars: the
//! parser's own checks), and are lenient only inside the containers they jump over (brackets and
//! quotes balanced, at memory speed) so that `$.items[5]` on 1 GB reads only a prefix; a caller
//! that prints a selected value checks it with [`validate_value`], and `extract` checks the byte
//! after it and the end of the document (README, "Exactness").
//!
//! # Decisions
//!
//! - Escaped lone surrogates (`"\ud800"`) are valid (RFC 8259's grammar allows them); decoding
//!   replaces them with U+FFFD.
//! - Columns in [`SyntaxError`] are 1-based byte columns, as `rg --column`.
//! - A UTF-8 byte order mark is skipped at the start of a document; offsets still count it.
//! - NDJSON ([`records`]): a record is one line holding exactly one value, blank lines skipped,
//!   at least one object or array among the records (so `seq 1 5` stays text); any other line
//!   is an error naming it, or skipped and counted when the caller asks (`--skip-invalid`).
//! - Nesting depth is unlimited: every loop keeps an explicit stack on the heap.
//!
//! # Measurements
//!
//! `cargo run --release --example json_bench -- FILE` on generated ~200 MB files (a pretty API
//! document `{"items":[…],"meta":…}` and a minified one-line array of event records), 2 vCPU
//! x86-64 with AVX2, page cache hot, best of 3. The machine was shared with other builds while
//! measuring (load average 4–9), so absolute numbers are low; the ratios to serde_json's
//! `IgnoredAny` (1.9 GB/s on an idle machine, ARCHITECTURE.md's early measurements) measured
//! in the same runs are what carries over.
//!
//! | pass | pretty | minified | vs serde IgnoredAny, same run |
//! |---|---|---|---|
//! | [`skip_value`] of the root (AVX2 block scanner) | 2.3–5.1 GB/s | 3.4–4.8 GB/s | 2.9–5.7× |
//! | [`Value::count`] of the root array (commas at depth 1) | — | 2.96 GB/s | ≈ skip |
//! | `elements().count()` (one skip per element) | — | 2.74 GB/s | ≈ 0.9× skip |
//! | [`validate`] (strict) | 0.53–0.84 GB/s | 0.71–0.86 GB/s | 0.87–1.05× |
//! | [`walk_values`] with a no-op visitor | 0.48–0.88 GB/s | 0.42–0.64 GB/s | 0.76–1.09× |
//! | `shape` (full merge of every element) | 0.48–0.77 GB/s | 0.41–0.67 GB/s | 0.77–0.95× |
//! | `analyze` (wrap: shape sampled to 1,000 elements) | 0.53–0.88 GB/s | 0.74–1.06 GB/s | 0.91–1.26× |
//! | `shape --paths` | 0.47–0.74 GB/s | 0.76 GB/s | 0.8–0.9× |
//! | [`paths_at_offsets`] (offset near the end), walking everything | 0.35–0.63 GB/s | 0.68 GB/s | 0.6–0.8× |
//! | the same, skipping shallow containers that hold no offset | 1.67 GB/s | 1.48 GB/s | ≈ 1.8× |
//!
//! In CPU time (`perf stat -e task-clock`, page faults of the first touch included) on the
//! minified file: skip 71 ms, validate 186 ms, serde `IgnoredAny` 182 ms per 200 MB. Mapping
//! with `MAP_POPULATE` took the skip from 64 to 53 ms of CPU and did not change validation.
//! `spill shape` used 0.21–0.31 s of CPU per 200 MB (≈ 0.65–0.95 GB/s on the loaded machine),
//! and under 400 KiB of heap (`RssAnon`) on either file; `jq -c '[paths]|length'` took 7.9 s on
//! a 20 MB slice that `spill shape` read in 68 ms (116×).
//!
//! Choices, each measured:
//! - **Block classification**: AVX2 (two 32-byte compares per character class, brackets folded
//!   with `| 0x20`) behind `is_x86_feature_detected!`; SSE2 (x86-64 baseline) otherwise; a
//!   scalar classifier elsewhere (also the test oracle). Escapes use simdjson's carry trick and
//!   the in-string mask a shift-XOR prefix sum (6 shifts; a `pclmulqdq` version was not tried).
//!   A block is walked bit by bit only when its closing brackets could close the container;
//!   otherwise two popcounts update the depth.
//! - **Strings in the strict walk**: SSE2 16-byte search for `"`, `\` and control bytes,
//!   tracking non-ASCII so UTF-8 is checked (`std::str::from_utf8`) only for strings that need
//!   it. (An AVX2 variant was not tried: strings and keys here are mostly under 32 bytes.)
//! - **Whitespace**: one- and two-byte fast paths (minified and `": "` spacing), an SSE2 run
//!   skip for indentation (no measurable change on the loaded machine; kept as it is cheap).
//! - **Key lookup in shape**: the next key of the previous record is tried first (records
//!   repeat key order), then a linear scan (≤ 8 keys) or a hash map; comparing keys with an
//!   inlined 8-byte loop instead of `memcmp` removed 15% of a shape walk. The guess is now
//!   made in the walk itself ([`Visitor::next_key`]): when the document's key is byte for byte
//!   the guess followed by `"`, it is a key seen (and validated) before, so the string scan,
//!   the UTF-8 check and the field search are all skipped.
//! - **The walk after the shape profile** (`callgrind`, instructions for `spill shape` on the
//!   1 MB files; base → after): events 30.6 M → 19.8 M, NDJSON log 25.2 M → 14.7 M, pretty API
//!   13.0 M → 10.4 M. In steps, on events: a two-loop walk (read a value, then close containers
//!   up to the next comma) instead of a state variable dispatched per token, and literals
//!   compared inline instead of by a `memcmp` call, −7%; the key guess above, −7%; one compare
//!   (`b > b' '`) deciding "no whitespace here", and the type arena's lookups inlined with their
//!   creation kept cold, −6%; digits eight at a time (SWAR) and `begin`/`end` inlined, −3%
//!   (`#[inline(always)]` on those two cost 4% instead). On NDJSON: the container stack reused
//!   across records instead of allocated per record, −8%; the per-record line-break search
//!   (two `memchr` calls over every record) done only for records that skipped whitespace,
//!   −9%. CPU time of `spill shape` (`perf stat -r 3 -e task-clock`, release build, machine
//!   shared with other builds) on the 1 GB files: API 0.94 → 0.82 s, events 1.79 → 1.29 s,
//!   NDJSON log 1.71 → 1.18 s; on the 100 MB ones 88 → 76, 179 → 126 and 167 → 111 ms.
//!   Heap is unchanged (the arena and two small stacks).
//! - **simd-json was not used**: the early measurements (ARCHITECTURE.md) put its tape at
//!   0.65 GB/s with 2.2–3.1× the file in memory, objects over 32 keys reordered, inputs over 4 GiB refused and a depth cap
//!   of 1024; the skip here is 5× faster with no allocation, and the strict walk keeps key
//!   order, duplicates, raw numbers and unlimited depth. Nothing was found where it would win.
#![allow(clippy::module_name_repetitions)]

pub mod analyze;
pub mod mixed;
mod nav;
mod parse;
pub mod path;
mod paths;
mod quote;
pub mod records;
mod scan;
pub mod shape;
pub mod sniff;

pub use nav::{Elements, Kind, Member, Members, Value, decode_string, root};
pub use parse::{
    Container, Flow, Format, Records, Scalar, Visitor, bom_len, detect, validate, validate_value,
    walk, walk_records, walk_value, walk_values,
};
pub use path::{push_bracket_name, push_member};
pub use paths::{PathHit, paths_at_offsets, paths_at_offsets_skipping};
pub use quote::{json_string, push_json_string};
pub use scan::{Simd, close_containers, detected_simd, force_simd, simd, skip_value, skip_ws};

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
    /// Whether the document is at fault, or the bytes read were valid but the walk in
    /// progress went past one of spill's limits.
    pub fault: Fault,
}

/// What a [`SyntaxError`] reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// The bytes are not valid JSON.
    Invalid,
    /// Valid JSON nested deeper than the walk in progress allows ([`path::MAX_DESCENT`]).
    TooDeep,
    /// A query's evaluation did more work than [`path::work_limit`] allows.
    TooCostly,
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
            fault: Fault::Invalid,
        }
    }

    /// The error for a limit of spill (`fault` other than [`Fault::Invalid`]) reached at
    /// `offset`.
    pub fn limit(doc: &[u8], offset: usize, fault: Fault, message: &str) -> SyntaxError {
        SyntaxError {
            fault,
            ..SyntaxError::new(doc, offset, message)
        }
    }

    /// What the message starts with.
    fn what(&self) -> &'static str {
        match self.fault {
            Fault::Invalid => "invalid JSON",
            Fault::TooDeep => "nested too deeply",
            Fault::TooCostly => "query too costly",
        }
    }
}

impl fmt::Display for SyntaxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} at byte {} (line {}:{}): {}",
            self.what(),
            self.offset,
            self.line,
            self.column,
            self.message
        )
    }
}

impl std::error::Error for SyntaxError {}

impl From<SyntaxError> for crate::error::Error {
    fn from(e: SyntaxError) -> Self {
        if e.fault != Fault::Invalid {
            return crate::error::Error::Limit {
                what: e.what(),
                offset: e.offset,
                line: e.line,
                column: e.column,
                message: e.message,
            };
        }
        crate::error::Error::InvalidJson {
            offset: e.offset,
            line: e.line,
            column: e.column,
            message: e.message,
        }
    }
}
