//! The JSON engine's invariant checks (the `json_engine` and `json_shape` fuzz targets).
//!
//! Each function takes arbitrary bytes and panics if the engine breaks one of its promises;
//! errors on bad input are fine, panics and wrong answers are not.

use crate::json::Kind;
use crate::json::shape::{ShapeOptions, shape, shape_paths};
use crate::json::{
    Flow, Scalar, Visitor, paths_at_offsets, root, skip_value, validate, validate_value,
    walk_values,
};

/// Validation, skipping, navigation, walking and path lookup agree with each other.
pub fn json_engine(data: &[u8]) {
    let valid = validate(data);
    if let Ok(r) = root(data) {
        let skipped = skip_value(data, r.offset());
        if valid.is_ok() {
            // On valid input the lenient skip and the strict parser find the same end.
            let strict = validate_value(data, r.offset()).expect("valid document has a valid root");
            assert_eq!(skipped.expect("valid input skips"), strict);
            // Navigation over valid input never errors, and every value it finds can be skipped.
            if matches!(r.kind(), Ok(Kind::Object | Kind::Array)) {
                // The comma count agrees with iterating.
                let n = match r.kind().expect("valid root") {
                    Kind::Object => r.members().count(),
                    _ => r.elements().count(),
                };
                assert_eq!(r.count().expect("countable"), n as u64);
            }
            match r.kind().expect("valid root") {
                Kind::Object => {
                    for m in r.members().take(1000) {
                        assert!(m.expect("member of a valid object").value.end().is_ok());
                    }
                }
                Kind::Array => {
                    for e in r.elements().take(1000) {
                        assert!(e.expect("element of a valid array").1.end().is_ok());
                    }
                }
                _ => assert!(r.members().next().expect("an error item").is_err()),
            }
        }
    }
    // Walking counts what it sees and never panics; stopping early is honoured.
    struct Count(u64, u64);
    impl Visitor for Count {
        fn scalar(&mut self, _: Scalar, _: &[u8], _: usize) -> Flow {
            self.0 += 1;
            if self.0 == self.1 {
                Flow::Stop
            } else {
                Flow::Continue
            }
        }
    }
    let _ = walk_values(data, &mut Count(0, u64::MAX));
    let _ = walk_values(data, &mut Count(0, 3));
    let offsets: Vec<u64> = (0..data.len() as u64)
        .step_by(7)
        .chain([u64::MAX])
        .collect();
    if let Ok(hits) = paths_at_offsets(data, &offsets, false) {
        assert_eq!(hits.len(), offsets.len());
        assert!(hits.iter().all(|h| h.path.starts_with('$')));
    }
    // A mixed output's JSON part is whole lines inside the input, with other lines around it,
    // and analysing it never panics.
    if let Some(p) = crate::json::mixed::find(data) {
        assert!(p.start <= p.end && p.end <= data.len(), "{p:?}");
        assert!(
            p.first_line <= p.last_line && p.last_line <= p.lines,
            "{p:?}"
        );
        assert!(!p.other_lines().is_empty(), "{p:?}");
        assert!(
            p.start == crate::json::bom_len(data) || data[p.start - 1] == b'\n',
            "{p:?}"
        );
        assert!(p.end == data.len() || data[p.end] == b'\n', "{p:?}");
    }
    let _ = crate::json::mixed::analyze(data, &crate::json::analyze::AnalyzeOptions::default());
}

/// The skeleton is valid JSON within `--max-bytes`, whatever the input.
pub fn json_shape(data: &[u8]) {
    let (max_bytes, max_depth) = match data.first() {
        Some(&b) => (256 + usize::from(b) * 4, usize::from(b % 9)),
        None => (256, 4),
    };
    let s = shape(
        data,
        &ShapeOptions {
            max_depth,
            max_bytes,
            sample: None,
        },
    );
    let json = s.to_json();
    assert!(
        json.len() <= max_bytes,
        "{} > {max_bytes}: {json}",
        json.len()
    );
    serde_json::from_str::<serde_json::Value>(&json).expect("skeleton is valid JSON");
    if let Ok(p) = shape_paths(data) {
        assert!(!p.paths.is_empty());
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Random JSON text, including odd spacing, escapes, long keys (with quotes, backslashes,
    /// control characters and non-ASCII, which grow when a path or a shell command spells them)
    /// and deep arrays.
    pub(crate) fn json_text() -> impl Strategy<Value = String> {
        let leaf = prop_oneof![
            Just("null".to_string()),
            any::<bool>().prop_map(|b| b.to_string()),
            any::<i64>().prop_map(|n| n.to_string()),
            "-?(0|[1-9][0-9]{0,29})(\\.[0-9]{1,5})?([eE][+-]?[0-9]{1,4})?",
            "[a-z \\\\\"é\\u{1F600}]{0,200}"
                .prop_map(|s| serde_json::to_string(&s).expect("string")),
        ];
        leaf.prop_recursive(8, 400, 40, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..40)
                    .prop_map(|v| format!("[{}]", v.join(" ,"))),
                prop::collection::vec(
                    (
                        "[a-zA-Z0-9_ '\"\\\\\\x00-\\x1f.\\[\\]é\u{1F600}-]{0,300}",
                        inner
                    ),
                    0..60
                )
                .prop_map(|m| {
                    let members: Vec<String> = m
                        .into_iter()
                        .map(|(k, v)| format!("{}:{v}", serde_json::to_string(&k).expect("key")))
                        .collect();
                    format!("{{\n{}\n}}", members.join(",\r\n"))
                }),
            ]
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

        #[test]
        fn shape_is_valid_json_within_the_cap(doc in json_text(), max_bytes in 256usize..2048, depth in 0usize..8) {
            let json = shape(doc.as_bytes(), &ShapeOptions { max_depth: depth, max_bytes, sample: None }).to_json();
            prop_assert!(json.len() <= max_bytes, "{} > {}: {}", json.len(), max_bytes, json);
            prop_assert!(serde_json::from_str::<serde_json::Value>(&json).is_ok(), "{}", json);
        }

        #[test]
        fn engine_invariants_hold_on_valid_and_mangled_text(doc in json_text(), cut in 0usize..2000, byte in any::<u8>()) {
            prop_assert!(validate(doc.as_bytes()).is_ok(), "{}", doc);
            json_engine(doc.as_bytes());
            json_shape(doc.as_bytes());
            let mut bad = doc.into_bytes();
            if !bad.is_empty() {
                let i = cut % bad.len();
                bad[i] = byte;
                json_engine(&bad);
                json_shape(&bad);
                json_engine(&bad[..i]);
            }
        }

        #[test]
        fn validation_agrees_with_serde_json_on_short_ascii(doc in "[\\[\\]{}\",:0-9a-z. \\-+eE\\\\]{0,60}") {
            // Short inputs stay under serde_json's recursion limit; ASCII without \u escapes
            // avoids the one documented difference (lone surrogates).
            prop_assume!(!doc.contains("\\u"));
            let ours = validate(doc.as_bytes()).is_ok();
            let theirs = serde_json::from_str::<serde_json::Value>(&doc).is_ok();
            prop_assert_eq!(ours, theirs, "{}", doc);
        }
    }

    #[test]
    fn fixed_inputs() {
        for doc in [
            &b""[..],
            b"[",
            b"{\"a\":",
            b"\xEF\xBB\xBF[1]",
            b"[1,2]\n[3]",
            b"\x00",
            b"\"\\ud800\"",
        ] {
            json_engine(doc);
            json_shape(doc);
        }
    }
}
