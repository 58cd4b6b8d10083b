//! The fixed-layout parts of `spill shape`'s output (`spill schema shape`). The skeleton of a
//! JSON document itself is built by the bounded renderer in `json::shape`, whose keys and
//! values are computed type descriptions cut to fit `--max-bytes`.

use serde::Serialize;

/// The skeleton of a binary input: `{"binary":{"bytes":N}}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BinaryShape {
    /// What is known of it.
    pub binary: BinarySummary,
}

/// Inside [`BinaryShape`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BinarySummary {
    /// Its size.
    pub bytes: u64,
}

/// The skeleton of a text input: `{"text":{"lines":N,"bytes":M,"longestLine":K,"blankLines":B}}`,
/// with `"invalidJsonAt"` beside it when the text looked like JSON but is not.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TextShape {
    /// The line summary.
    pub text: TextSummary,
    /// The byte offset where JSON-looking text stops being valid JSON.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub invalid_json_at: Option<u64>,
}

/// Inside [`TextShape`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TextSummary {
    /// Lines (a last line without a line break counts).
    pub lines: u64,
    /// Bytes.
    pub bytes: u64,
    /// The longest line, in bytes (without its line break and `\r`).
    pub longest_line: u64,
    /// Lines of spaces and tabs only.
    pub blank_lines: u64,
}

/// The member `spill shape --skip-invalid` adds to a skeleton object: the lines that were not
/// records.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SkippedLines {
    /// NDJSON lines skipped because they are not exactly one JSON value.
    pub skipped_lines: u64,
}

/// Serialises a wire value to compact JSON (these types always serialise).
pub fn to_json<T: Serialize>(value: &T) -> String {
    serde_json::to_string(value).expect("wire types serialise")
}

/// `skeleton` (a JSON object) with the members of `extra` (a JSON object) appended, or `None`
/// when `skeleton` is not an object: `{"a":1}` + `{"b":2}` is `{"a":1,"b":2}`.
pub fn with_members(skeleton: &str, extra: &str) -> Option<String> {
    let head = skeleton.strip_suffix('}')?;
    let tail = extra.strip_prefix('{')?;
    if !skeleton.starts_with('{') {
        return None;
    }
    let sep = if head == "{" || tail == "}" { "" } else { "," };
    Some(format!("{head}{sep}{tail}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn members_are_appended_to_objects_only() {
        let extra = to_json(&SkippedLines { skipped_lines: 3 });
        assert_eq!(extra, r#"{"skippedLines":3}"#);
        assert_eq!(
            with_members(r#"{"a":"integer"}"#, &extra).as_deref(),
            Some(r#"{"a":"integer","skippedLines":3}"#)
        );
        assert_eq!(
            with_members("{}", &extra).as_deref(),
            Some(r#"{"skippedLines":3}"#)
        );
        assert_eq!(with_members(r#""integer""#, &extra), None);
    }
}
