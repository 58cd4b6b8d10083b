//! The text preview of an envelope (`"preview"` of a text output, `spill schema envelope`).

use serde::Serialize;

/// A rendered text preview.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct TextPreview {
    /// First lines, cleaned.
    pub head: Vec<String>,
    /// Last lines, cleaned.
    pub tail: Vec<String>,
    /// Lines between head and tail.
    pub omitted_lines: u64,
    /// Bytes between head and tail.
    pub omitted_bytes: u64,
    /// Raw lines the head covers (1..=head_line_count).
    #[serde(skip)]
    pub head_line_count: u64,
    /// The first raw line the tail covers.
    #[serde(skip)]
    pub tail_first_line: u64,
    /// The first omitted byte (where the head ends).
    #[serde(skip)]
    pub head_end: u64,
    /// True when bytes that are not UTF-8 were replaced.
    #[serde(skip)]
    pub lossy: bool,
}
