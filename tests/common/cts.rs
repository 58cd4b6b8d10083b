//! The vendored JSONPath Compliance Test Suite (`tests/data/jsonpath-cts/`): its one loader,
//! shared by the integration tests (`common::cts`) and the JSONPath engine's unit tests, which
//! include this file (`src/json/path/tests/cts.rs`).

/// The number of cases of the vendored suite: a test that runs fewer lost some.
pub const CASES: usize = 703;

/// The text of `cts.json`. A missing file fails the test that asked for it: the suite is part
/// of the repository, never optional.
pub fn text() -> String {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/jsonpath-cts/cts.json"
    );
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("the vendored JSONPath CTS must be at {path}: {e}"))
}
