//! The previews of an envelope (`"preview"`, `spill schema envelope`): the text preview of a
//! text output, and the values of a JSON output.

use serde::Serialize;
use serde::ser::{SerializeMap, SerializeSeq, Serializer};
use serde_json::value::RawValue;

/// Real values of a JSON output, bounded (`"preview"` of a JSON output): the first items of its
/// dominant array or records, or the root value, with strings cut and wide or deep containers
/// replaced by markers (`"+N more keys"`, `"… +N more items"`, `"object(12 keys)"`). The renderer
/// in `json::analyze` builds it within the preview's byte budget.
#[derive(Debug, Clone)]
pub enum JsonPreview {
    /// A number, `true`, `false` or `null`, exactly as the document writes it.
    Token(Box<RawValue>),
    /// `null` standing in for a value that could not be read.
    Null,
    /// A string, possibly cut with a marker, or a marker standing for a value.
    String(String),
    /// An array's first elements (and a marker for the rest).
    Array(Vec<JsonPreview>),
    /// An object's members in document order (and a `"…"` member for those left out).
    Object(Vec<(String, JsonPreview)>),
}

impl Serialize for JsonPreview {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            JsonPreview::Token(raw) => raw.serialize(serializer),
            JsonPreview::Null => serializer.serialize_unit(),
            JsonPreview::String(s) => serializer.serialize_str(s),
            JsonPreview::Array(items) => {
                let mut seq = serializer.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(item)?;
                }
                seq.end()
            }
            JsonPreview::Object(members) => {
                let mut map = serializer.serialize_map(Some(members.len()))?;
                for (name, value) in members {
                    map.serialize_entry(name, value)?;
                }
                map.end()
            }
        }
    }
}

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_previews_keep_tokens_as_written() {
        let token = |t: &str| JsonPreview::Token(RawValue::from_string(t.into()).unwrap());
        let preview = JsonPreview::Array(vec![
            JsonPreview::Object(vec![
                ("n".into(), token("1.50e+3")),
                ("big".into(), token("123456789012345678901234567890")),
                ("s".into(), JsonPreview::String("a\"b…[+3 chars]".into())),
                ("…".into(), JsonPreview::String("+2 more keys".into())),
            ]),
            JsonPreview::Null,
            token("true"),
            JsonPreview::Array(vec![]),
        ]);
        let json = super::super::shape::to_json(&preview);
        assert_eq!(
            json,
            r#"[{"n":1.50e+3,"big":123456789012345678901234567890,"s":"a\"b…[+3 chars]","…":"+2 more keys"},null,true,[]]"#
        );
        assert_eq!(super::super::shape::json_len(&preview), json.len());
    }
}
