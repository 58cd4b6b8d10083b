//! The wire format: serde types for every JSON object spill prints about a spilled output.
//! Field order is the envelope's documented order (ARCHITECTURE.md, The envelope); absent
//! fields are omitted, never null.

use serde::Serialize;
use serde_json::value::RawValue;

use super::preview::TextPreview;

/// The envelope `wrap` prints in place of a large output.
#[derive(Debug, Clone, Serialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct Envelope {
    /// True when the full output is in the store.
    pub spilled: bool,
    /// Why the store could not take the output (degraded envelope only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The ref that reads the output back.
    #[serde(rename = "ref", skip_serializing_if = "Option::is_none")]
    pub reference: Option<String>,
    /// The payload file (not in restricted mode).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// The `--label`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// `application/json`, `application/x-ndjson`, `text/plain` or `application/octet-stream`.
    pub mime_type: String,
    /// Size of the whole input.
    pub size_bytes: u64,
    /// Lines of the whole input.
    pub lines: u64,
    /// Length of the dominant array, or records, or root keys.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total_items: Option<u64>,
    /// NDJSON stored with `--skip-invalid`: the lines that are not exactly one JSON value.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skipped_lines: Option<u64>,
    /// The wrapped command's exit status (`wrap -- CMD`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    /// True when a signal ended reading early.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub interrupted: Option<bool>,
    /// The same bytes were already stored in this scope (README, "A repeated output"): the
    /// earlier entry, and the envelope leaves out what its own envelope showed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub repeat_of: Option<RepeatOf>,
    /// One sentence: kind, size, what dominates.
    pub summary: String,
    /// `Stored in full as REF. Read it with: …`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
    /// The commands `hint` names, in order (not serialised: the hint carries them).
    #[serde(skip)]
    pub commands: Vec<String>,
    /// The JSON shape skeleton.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shape: Option<Box<RawValue>>,
    /// Head and tail lines, a JSON sample, or a hex dump.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub preview: Option<Preview>,
    /// Failure lines outside the preview.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub signals: Option<Signals>,
    /// Secrets replaced with `--redact`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub redacted: Option<u64>,
    /// False when the payload was capped by `--max-file`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub complete: Option<bool>,
    /// Bytes stored when capped.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stored_bytes: Option<u64>,
    /// Bytes dropped when capped.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dropped_bytes: Option<u64>,
    /// True when bytes that are not UTF-8 were replaced with U+FFFD.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lossy: Option<bool>,
    /// JSON behind a few lines of other output: where the JSON part and the other lines are.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub json_part: Option<JsonPart>,
    /// A running entry (`wrap --detach-after`): true while the command runs, false once its
    /// supervisor died before it ended (then `interrupted` is true too).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub running: Option<bool>,
    /// A running entry: the bytes so far, which is also the cursor `spill cat REF --since`
    /// reads on from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cursor: Option<u64>,
}

/// The earlier entry a repeated output's envelope points to.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct RepeatOf {
    /// Its ref (the same bytes, so the same ref as the envelope's).
    #[serde(rename = "ref")]
    pub reference: String,
    /// When it was first stored: whole seconds before this envelope was made.
    pub stored_seconds_ago: u64,
}

/// Where the JSON part of a mixed output lies (README, "Mixed output").
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct JsonPart {
    /// Its first and last line.
    pub lines: [u64; 2],
    /// Its byte range, start inclusive, end exclusive.
    pub bytes: [u64; 2],
    /// The other output's line ranges, `[first, last]`: before the part, after it.
    pub other_lines: Vec<[u64; 2]>,
}

/// The preview of an envelope, by kind.
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum Preview {
    /// Head and tail lines of text.
    Text(TextPreview),
    /// A `hexdump -C` style dump, one string per row.
    Hex(Vec<String>),
    /// Valid JSON showing real values.
    Json(Box<RawValue>),
}

/// Failure signals of a text output.
#[derive(Debug, Clone, Serialize)]
pub struct Signals {
    /// Up to five, the line that tells most first (README, Failure signals).
    pub matches: Vec<SignalMatch>,
    /// Distinct signal lines in the whole input.
    pub total: u64,
}

/// One failure line.
#[derive(Debug, Clone, Serialize)]
pub struct SignalMatch {
    /// 1-based line number of `text`'s first line: `spill cat REF --lines N:M` shows `text`.
    pub line: u64,
    /// The line (with its neighbour where that carries the message).
    pub text: String,
    /// Lines of the output sharing this line's template, when more than one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub count: Option<u64>,
    /// For a record of a JSON array: its path (`$[17]`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// Why a line without a failure word is shown (`largest of 400 similar lines`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

impl Envelope {
    /// The envelope as one line of JSON (without a newline).
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("envelopes serialise")
    }
}
