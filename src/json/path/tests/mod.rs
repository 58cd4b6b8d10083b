//! Tests of the JSONPath module over an in-memory, order-preserving document tree.

mod cts;
mod engine;
mod props;
mod queries;
pub(crate) mod tree;

/// Every file of the vendored JSONTestSuite's `test_parsing` folder: its bytes, and the keys of
/// its top-level object when it is one (for queries that name them). A missing folder fails.
pub(crate) fn json_test_suite() -> Vec<(Vec<u8>, Vec<String>)> {
    let dir = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/json-test-suite/test_parsing"
    );
    let files = std::fs::read_dir(dir).expect("the vendored JSONTestSuite (tests/data)");
    files
        .map(|f| {
            let text = std::fs::read(f.unwrap().path()).unwrap();
            let keys = match serde_json::from_slice(&text) {
                Ok(serde_json::Value::Object(m)) => m.keys().cloned().collect(),
                _ => Vec::new(),
            };
            (text, keys)
        })
        .collect()
}
