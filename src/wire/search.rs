//! `spill search --json`: a page of matches, or the `--count` total (`spill schema search`).

use serde::Serialize;

/// The `--json` object of a page.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SearchPage {
    /// The matches of the page, in source order.
    pub matches: Vec<SearchMatch>,
    /// Occurrences in the whole source.
    pub total_matches: u64,
    /// The page's `--offset`.
    pub offset: u64,
    /// The page's `--limit`.
    pub limit: u64,
    /// Whether matches follow this page.
    pub has_more: bool,
    /// The next page's `--offset` (`null` at the end; always `null` with `--all`, whose pages
    /// continue with `nextResume`).
    pub next_offset: Option<u64>,
    /// `--all`: the next page's `--resume` cursor (absent at the end).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_resume: Option<String>,
    /// `--all`: the stored outputs searched for this page (and counted for `totalMatches`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub outputs_searched: Option<u64>,
    /// `--all`: older outputs left unsearched by `--max-outputs` (`nextResume` reaches them).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub outputs_unsearched: Option<u64>,
    /// `"literal"` when a pattern was searched as a literal string.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pattern_mode: Option<&'static str>,
    /// Text that was not UTF-8 was written with U+FFFD.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub lossy: bool,
    /// What would otherwise be `spill: note:` lines.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// `--paths --skip-invalid` on NDJSON: the lines skipped.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skipped_lines: Option<u64>,
}

/// One match of a [`SearchPage`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SearchMatch {
    /// `--all`: the ref of the stored output holding the match.
    #[serde(rename = "ref", skip_serializing_if = "Option::is_none")]
    pub reference: Option<String>,
    /// 1-based line number.
    pub line: u64,
    /// 1-based byte column within the line.
    pub column: u64,
    /// 0-based byte offset in the source.
    pub byte_offset: u64,
    /// `--paths`: the normalized path of the value (or key) holding the match.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// `--paths`: the match is inside an object key.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub in_key: bool,
    /// The shown part of the line, with `…` where it is cut.
    pub text: String,
    /// Byte offset within the line where the shown part starts.
    pub text_start: usize,
    /// Context lines before.
    pub before: Vec<String>,
    /// Context lines after.
    pub after: Vec<String>,
}

/// The `--count --json` object.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SearchCount {
    /// Occurrences in the whole source.
    pub total_matches: u64,
    /// `"literal"` when a pattern was searched as a literal string.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pattern_mode: Option<&'static str>,
}
