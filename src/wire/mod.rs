//! The wire format: every serde type spill prints as JSON, in one place. The field order of each
//! struct is the key order of its output (serde_json's `preserve_order`); `schemas/*.json`
//! (`spill schema`) describe them and `tests/schema.rs` checks the two against each other.

pub mod envelope;
pub mod preview;
pub mod search;
pub mod shape;
pub mod store;

pub use preview::{JsonPreview, TextPreview};
pub use search::{SearchCount, SearchMatch, SearchPage};
pub use shape::{
    BinaryShape, ShapeOutput, SkeletonNode, SkippedLines, TextShape, WithSkippedLines,
};
pub use store::{GcOutput, GcRemoval, LsEntry, LsOutput, RmOutput};

#[cfg(test)]
mod tests {
    //! Each schema against the wire types: every key a type can print is a property of its
    //! schema, in the schema's order, and every property is one the type prints; and the
    //! values validate.

    use serde_json::Value;

    use super::*;
    use crate::ops::schema::{Schema, schema};

    fn schema_of(which: Schema) -> Value {
        serde_json::from_str(schema(which)).unwrap()
    }

    fn keys(v: &Value) -> Vec<String> {
        v.as_object().unwrap().keys().cloned().collect()
    }

    /// `props` (a schema object with `properties`) lists exactly the keys of `full`, in order.
    #[track_caller]
    fn same_keys(props: &Value, full: &Value) {
        let listed: Vec<String> = props["properties"]
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect();
        assert_eq!(
            listed,
            keys(full),
            "schema properties vs the wire type's keys"
        );
    }

    #[track_caller]
    fn valid(which: Schema, value: &Value) {
        let validator = jsonschema::validator_for(&schema_of(which)).unwrap();
        let errors: Vec<String> = validator
            .iter_errors(value)
            .map(|e| e.to_string())
            .collect();
        assert!(errors.is_empty(), "{value}\n{}", errors.join("\n"));
    }

    fn to_value<T: serde::Serialize>(v: &T) -> Value {
        serde_json::to_value(v).unwrap()
    }

    const REF: &str = "sp_0123456789abcdef";

    #[test]
    fn the_store_outputs_are_their_schemas() {
        let entry = LsEntry {
            reference: REF.into(),
            scope: "default".into(),
            size_bytes: 40_000,
            stored_bytes: 40_000,
            mime_type: "text/plain".into(),
            lines: 20_000,
            total_items: Some(3),
            label: Some("build".into()),
            summary: "text, 20,000 lines".into(),
            created: 1.5,
            last_access: 2.5,
            running: Some(true),
        };
        let ls = to_value(&LsOutput {
            entries: vec![entry.clone()],
            count: 1,
        });
        let s = schema_of(Schema::Ls);
        same_keys(&s, &ls);
        same_keys(&s["properties"]["entries"]["items"], &ls["entries"][0]);
        valid(Schema::Ls, &ls);
        let bare = LsEntry {
            total_items: None,
            label: None,
            running: None,
            ..entry
        };
        valid(
            Schema::Ls,
            &to_value(&LsOutput {
                entries: vec![bare],
                count: 1,
            }),
        );

        let rm = to_value(&RmOutput {
            removed: vec![REF.into()],
            unknown: vec!["nope".into()],
        });
        same_keys(&schema_of(Schema::Rm), &rm);
        valid(Schema::Rm, &rm);

        let removal = |reference: Option<&str>, file: Option<&str>| GcRemoval {
            reference: reference.map(String::from),
            file: file.map(String::from),
            scope: "default".into(),
            size_bytes: 10,
            reason: "expired",
        };
        let gc = to_value(&GcOutput {
            dry_run: false,
            removed: vec![
                removal(Some(REF), Some(".tmp-1")),
                removal(None, Some(".tmp-2")),
            ],
            count: 2,
            freed_bytes: 20,
            usage_bytes: 0,
            quota_bytes: 1 << 30,
            tombstones_pruned: 0,
            failures: vec!["not in the JSON".into()],
        });
        let s = schema_of(Schema::Gc);
        same_keys(&s, &gc);
        same_keys(&s["properties"]["removed"]["items"], &gc["removed"][0]);
        let mut real = gc.clone();
        real["removed"][0].as_object_mut().unwrap().remove("file");
        valid(Schema::Gc, &real);
    }

    #[test]
    fn the_search_outputs_are_their_schema() {
        let m = SearchMatch {
            reference: Some("sp_0123456789abcdef".into()),
            line: 3,
            column: 1,
            byte_offset: 10,
            path: Some("$[0]".into()),
            in_key: true,
            text: "ERROR".into(),
            text_start: 0,
            before: vec!["a".into()],
            after: vec![],
        };
        let page = to_value(&SearchPage {
            matches: vec![m.clone()],
            total_matches: 1,
            offset: 0,
            limit: 20,
            has_more: false,
            next_offset: None,
            pattern_mode: Some("literal"),
            lossy: true,
            notes: vec!["a note".into()],
            skipped_lines: Some(2),
            next_resume: Some("sp_0123456789abcdef:3:1764640000123456".into()),
            outputs_searched: Some(2),
            outputs_unsearched: Some(1),
        });
        let s = schema_of(Schema::Search);
        same_keys(&s["oneOf"][0], &page);
        same_keys(
            &s["oneOf"][0]["properties"]["matches"]["items"],
            &page["matches"][0],
        );
        valid(Schema::Search, &page);
        let count = to_value(&SearchCount {
            total_matches: 4,
            pattern_mode: Some("literal"),
        });
        same_keys(&s["oneOf"][1], &count);
        valid(Schema::Search, &count);
        valid(
            Schema::Search,
            &to_value(&SearchCount {
                total_matches: 4,
                pattern_mode: None,
            }),
        );
    }

    #[test]
    fn the_fixed_shapes_are_their_schema() {
        let text = to_value(&TextShape {
            text: shape::TextSummary {
                lines: 2,
                bytes: 4,
                longest_line: 1,
                blank_lines: 0,
            },
            invalid_json_at: Some(3),
        });
        let s = schema_of(Schema::Shape);
        same_keys(&s["anyOf"][0], &text);
        same_keys(&s["anyOf"][0]["properties"]["text"], &text["text"]);
        valid(Schema::Shape, &text);
        let binary = to_value(&BinaryShape {
            binary: shape::BinarySummary { bytes: 9 },
        });
        same_keys(&s["anyOf"][1], &binary);
        same_keys(&s["anyOf"][1]["properties"]["binary"], &binary["binary"]);
        valid(Schema::Shape, &binary);
        let skipped = SkippedLines { skipped_lines: 1 };
        same_keys(&s["anyOf"][2], &to_value(&skipped));
        let records = ShapeOutput::Skeleton(SkeletonNode::Object(vec![(
            "ndjson[2]".into(),
            SkeletonNode::Object(vec![("id".into(), SkeletonNode::Type("integer".into()))]),
        )]));
        valid(Schema::Shape, &to_value(&records));
        let joined = to_value(&WithSkippedLines {
            shape: &records,
            skipped,
        });
        valid(Schema::Shape, &joined);
    }

    #[test]
    fn the_envelope_is_its_schema() {
        let preview = TextPreview {
            head: vec!["a".into()],
            tail: vec!["z".into()],
            omitted_lines: 1,
            omitted_bytes: 2,
            head_line_count: 1,
            tail_first_line: 3,
            head_end: 2,
            lossy: false,
        };
        let raw = |s: &str| serde_json::value::RawValue::from_string(s.into()).unwrap();
        let full = envelope::Envelope {
            spilled: true,
            error: Some("e".into()),
            reference: Some(REF.into()),
            path: Some("/p".into()),
            label: Some("l".into()),
            mime_type: "text/plain".into(),
            size_bytes: 1,
            lines: 1,
            total_items: Some(1),
            skipped_lines: Some(1),
            exit_code: Some(1),
            interrupted: Some(true),
            repeat_of: Some(envelope::RepeatOf {
                reference: REF.into(),
                stored_seconds_ago: 3,
            }),
            summary: "s".into(),
            hint: Some("h".into()),
            shape: Some(raw("{}")),
            preview: Some(envelope::Preview::Text(preview.clone())),
            signals: Some(envelope::Signals {
                matches: vec![],
                total: 0,
            }),
            redacted: Some(1),
            complete: Some(false),
            stored_bytes: Some(1),
            dropped_bytes: Some(0),
            lossy: Some(true),
            json_part: Some(envelope::JsonPart {
                lines: [2, 3],
                bytes: [4, 10],
                other_lines: vec![[1, 1]],
            }),
            running: Some(true),
            cursor: Some(1),
            commands: vec![],
        };
        let s = schema_of(Schema::Envelope);
        same_keys(&s, &to_value(&full));
        same_keys(&s["$defs"]["textPreview"], &to_value(&preview));
        let real = envelope::Envelope {
            spilled: true,
            reference: Some(REF.into()),
            mime_type: "text/plain".into(),
            size_bytes: 20_000,
            lines: 2,
            summary: "text, 2 lines".into(),
            hint: Some("Stored in full as sp_0123456789abcdef. Read it with: spill cat sp_0123456789abcdef".into()),
            preview: Some(envelope::Preview::Text(preview)),
            ..Default::default()
        };
        valid(Schema::Envelope, &to_value(&real));
        let running = envelope::Envelope {
            reference: Some("sp_9f2c4a1b7e3d0c55".into()),
            running: Some(true),
            cursor: Some(20_000),
            ..real
        };
        valid(Schema::Envelope, &to_value(&running));
    }
}
