//! How `spill shape` spends its byte budget: breadth first (every top-level key named before
//! anything deeper), shortened key names that stay distinct, string sizes in decoded bytes.
//! Real documents: AWS service models from botocore (tests/data/botocore, Apache-2.0).

use std::collections::HashSet;
use std::path::PathBuf;

use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};

use crate::common::Sandbox;

fn model(name: &str) -> PathBuf {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/botocore")
        .join(name);
    assert!(
        path.is_file(),
        "vendored test data missing: {}",
        path.display()
    );
    path
}

/// A JSON value that refuses an object holding the same key twice (serde_json's `Value`
/// silently keeps the last one).
struct Distinct;

impl<'de> Deserialize<'de> for Distinct {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Distinct, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Distinct;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("JSON")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Distinct, A::Error> {
                let mut seen = HashSet::new();
                while let Some(key) = map.next_key::<String>()? {
                    if !seen.insert(key.clone()) {
                        return Err(serde::de::Error::custom(format!("key {key:?} twice")));
                    }
                    map.next_value::<Distinct>()?;
                }
                Ok(Distinct)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Distinct, A::Error> {
                while seq.next_element::<Distinct>()?.is_some() {}
                Ok(Distinct)
            }
            fn visit_str<E>(self, _: &str) -> Result<Distinct, E> {
                Ok(Distinct)
            }
            fn visit_u64<E>(self, _: u64) -> Result<Distinct, E> {
                Ok(Distinct)
            }
            fn visit_i64<E>(self, _: i64) -> Result<Distinct, E> {
                Ok(Distinct)
            }
            fn visit_f64<E>(self, _: f64) -> Result<Distinct, E> {
                Ok(Distinct)
            }
            fn visit_bool<E>(self, _: bool) -> Result<Distinct, E> {
                Ok(Distinct)
            }
            fn visit_unit<E>(self) -> Result<Distinct, E> {
                Ok(Distinct)
            }
        }
        d.deserialize_any(V)
    }
}

fn shape(s: &Sandbox, args: &[&str]) -> String {
    let mut all = vec!["shape"];
    all.extend_from_slice(args);
    s.run(&all, "").status(0).out()
}

#[test]
fn every_top_level_key_of_an_aws_model_is_named_by_default() {
    let s = Sandbox::new();
    for name in ["sso-2019-06-10.json", "ec2-2016-11-15-accept.json"] {
        let path = model(name);
        let doc: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        let want: Vec<&String> = doc.as_object().unwrap().keys().collect();
        assert_eq!(want.len(), 5, "{name}");
        let out = shape(&s, &[path.to_str().unwrap()]);
        assert!(out.len() <= 1025, "{name}: {} bytes", out.len());
        let skeleton: serde_json::Value = serde_json::from_str(&out).unwrap();
        // The skeleton keeps the document's key order; so does serde_json's map (its
        // preserve_order feature): the same keys in the same order, and no "+N more keys".
        let got: Vec<&String> = skeleton.as_object().unwrap().keys().collect();
        assert_eq!(got, want, "{name}: {out}");
        // The next level is spent too: operations and shapes name some of their keys.
        for key in ["metadata", "operations", "shapes"] {
            assert!(skeleton[key].is_object(), "{name}: {key} in {out}");
        }
        assert!(
            skeleton["documentation"]
                .as_str()
                .unwrap()
                .starts_with("string("),
            "{out}"
        );
    }
}

#[test]
fn a_cut_never_prints_the_same_key_twice() {
    let s = Sandbox::new();
    let path = model("ec2-2016-11-15-accept.json");
    let path = path.to_str().unwrap();
    let mut cut_seen = false;
    for budget in [256, 300, 400, 512, 700, 1024, 1500, 2048, 3000, 4096, 8192] {
        let b = budget.to_string();
        for depth in ["1", "2", "4", "8"] {
            let out = shape(&s, &[path, "--max-bytes", &b, "--depth", depth]);
            assert!(out.trim_end().len() <= budget, "{budget}: {out}");
            serde_json::from_str::<Distinct>(&out)
                .unwrap_or_else(|e| panic!("--max-bytes {budget} --depth {depth}: {e}\n{out}"));
            cut_seen |= out.contains("…\"");
        }
    }
    assert!(cut_seen, "some budget shortens names");
    // Names that share a long prefix, shortened within one object.
    let keys: String = (0..40)
        .map(|i| format!("\"configuration_parameter_group_{i:02}\":{i}"))
        .collect::<Vec<_>>()
        .join(",");
    let file = s.file("prefix.json", format!("{{{keys}}}"));
    for budget in ["256", "400", "600", "900"] {
        let out = shape(&s, &[file.to_str().unwrap(), "--max-bytes", budget]);
        serde_json::from_str::<Distinct>(&out).unwrap_or_else(|e| panic!("{budget}: {e}\n{out}"));
    }
}

#[test]
fn string_sizes_count_decoded_bytes() {
    let s = Sandbox::new();
    let plain = format!(
        r#"{{"long":"{}","short":"{}"}}"#,
        "é".repeat(100),
        "é".repeat(40)
    );
    let escaped = format!(
        r#"{{"long":"{}","short":"{}"}}"#,
        "\\u00e9".repeat(100),
        "\\u00e9".repeat(40)
    );
    let want = r#"{"long":"string(200 B)","short":"string"}"#;
    for doc in [plain, escaped] {
        let file = s.file("strings.json", &doc);
        assert_eq!(
            shape(&s, &[file.to_str().unwrap()]),
            format!("{want}\n"),
            "{doc}"
        );
        // The envelope's shape is the same skeleton.
        let mut big = format!("[{doc}");
        big.push_str(&format!(",{doc}").repeat(200));
        big.push(']');
        let env = s.run(&["wrap"], big).status(0).json();
        assert_eq!(
            env["shape"].to_string(),
            r#"{"array[201]":{"long":"string(200 B)","short":"string"}}"#
        );
    }
}
