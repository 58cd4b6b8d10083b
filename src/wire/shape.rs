//! `spill shape`'s output (`spill schema shape`): the skeleton of a JSON document
//! ([`SkeletonNode`], whose keys and values are type descriptions that the bounded renderer in
//! `json::shape` computes and cuts to fit `--max-bytes`), the fixed objects for text and binary
//! input, and the member `--skip-invalid` adds.

use serde::Serialize;
use serde::ser::{SerializeMap, Serializer};

/// The skeleton of a JSON document or NDJSON stream, as printed: a type description
/// (`"string|null"`, `"array[3] of integer"`, `"object(12 keys)"`) or an object whose members are
/// printed in order (`{"id":"integer","tags":"array[2] of string"}`, `{"array[300]":…}`,
/// `{"map[12]":…}`, `{"ndjson[40]":…}`, `"…":"+N more keys"`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SkeletonNode {
    /// A JSON string: the type of the values at this place.
    Type(String),
    /// A JSON object: its members in order (names are distinct).
    Object(Vec<(String, SkeletonNode)>),
}

impl Serialize for SkeletonNode {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            SkeletonNode::Type(t) => serializer.serialize_str(t),
            SkeletonNode::Object(members) => {
                let mut map = serializer.serialize_map(Some(members.len()))?;
                for (name, value) in members {
                    map.serialize_entry(name, value)?;
                }
                map.end()
            }
        }
    }
}

/// What `spill shape` prints for an input: the skeleton of JSON, or the summary of text or
/// binary data.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum ShapeOutput {
    /// JSON or NDJSON input.
    Skeleton(SkeletonNode),
    /// Text input.
    Text(TextShape),
    /// Binary input.
    Binary(BinaryShape),
}

impl ShapeOutput {
    /// Whether this prints as a JSON object (which members can join).
    pub fn is_object(&self) -> bool {
        !matches!(self, ShapeOutput::Skeleton(SkeletonNode::Type(_)))
    }
}

/// `spill shape --skip-invalid`'s output when lines were skipped: the members of the skeleton
/// object (which [`ShapeOutput::is_object`] must be), then `"skippedLines":N`.
#[derive(Debug, Clone, Serialize)]
pub struct WithSkippedLines<'a> {
    /// The skeleton, an object.
    #[serde(flatten)]
    pub shape: &'a ShapeOutput,
    /// The member appended.
    #[serde(flatten)]
    pub skipped: SkippedLines,
}

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
pub fn to_json<T: Serialize + ?Sized>(value: &T) -> String {
    serde_json::to_string(value).expect("wire types serialise")
}

/// The length of [`to_json`]`(value)`, counted without building it (serde_json writes into a
/// counter): the bounded renderers measure each part once as they add it.
pub fn json_len<T: Serialize + ?Sized>(value: &T) -> usize {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0 += buf.len();
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    serde_json::to_writer(&mut count, value).expect("wire types serialise");
    count.0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn obj(members: &[(&str, SkeletonNode)]) -> SkeletonNode {
        SkeletonNode::Object(
            members
                .iter()
                .map(|(k, v)| (k.to_string(), v.clone()))
                .collect(),
        )
    }

    fn ty(t: &str) -> SkeletonNode {
        SkeletonNode::Type(t.into())
    }

    #[test]
    fn skeletons_print_in_member_order() {
        let tree = obj(&[
            ("z", ty("integer")),
            ("a\"b", obj(&[("array[2]", obj(&[]))])),
            ("…", ty("+3 more keys")),
        ]);
        let json = to_json(&tree);
        assert_eq!(
            json,
            r#"{"z":"integer","a\"b":{"array[2]":{}},"…":"+3 more keys"}"#
        );
        assert_eq!(json_len(&tree), json.len());
        assert_eq!(json_len("\u{1}é\n"), to_json("\u{1}é\n").len());
    }

    #[test]
    fn skipped_lines_join_objects() {
        let skipped = || SkippedLines { skipped_lines: 3 };
        assert_eq!(to_json(&skipped()), r#"{"skippedLines":3}"#);
        let join = |shape: &ShapeOutput| {
            to_json(&WithSkippedLines {
                shape,
                skipped: skipped(),
            })
        };
        let records = ShapeOutput::Skeleton(obj(&[("a", ty("integer"))]));
        assert!(records.is_object());
        assert_eq!(join(&records), r#"{"a":"integer","skippedLines":3}"#);
        assert_eq!(
            join(&ShapeOutput::Skeleton(obj(&[]))),
            r#"{"skippedLines":3}"#
        );
        let text = ShapeOutput::Text(TextShape {
            text: TextSummary {
                lines: 1,
                bytes: 2,
                longest_line: 1,
                blank_lines: 0,
            },
            invalid_json_at: None,
        });
        assert_eq!(
            join(&text),
            r#"{"text":{"lines":1,"bytes":2,"longestLine":1,"blankLines":0},"skippedLines":3}"#
        );
        assert!(!ShapeOutput::Skeleton(ty("integer")).is_object());
    }
}
