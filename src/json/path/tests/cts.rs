//! The JSONPath Compliance Test Suite (RFC 9535), run over the in-memory tree.
// The pass count and failures are the test's report: they go to the test output.
#![allow(clippy::print_stderr)]

use std::ops::ControlFlow;

use super::tree::{OValue, Tree, ovalue};
use crate::json::path::Query;

/// Evaluates a query on a document, returning (normalized path, value) pairs.
pub(super) type Evaluate<'e> = &'e dyn Fn(&Query, &OValue) -> Vec<(String, OValue)>;

fn check_case(case: &OValue, evaluate: Evaluate) -> Result<(), String> {
    let selector = case
        .get("selector")
        .and_then(OValue::as_str)
        .ok_or("no selector")?;
    let parsed = Query::parse(selector);
    if matches!(case.get("invalid_selector"), Some(OValue::Bool(true))) {
        return match parsed {
            Ok(_) => Err("accepted an invalid selector".into()),
            Err(e) if e.offset > selector.len() => Err(format!("offset {} past the end", e.offset)),
            Err(_) => Ok(()),
        };
    }
    let query = parsed.map_err(|e| format!("rejected: {}", e.render()))?;
    let (paths, values): (Vec<String>, Vec<OValue>) =
        evaluate(&query, case.get("document").ok_or("no document")?)
            .into_iter()
            .unzip();
    let got = (
        OValue::Arr(values),
        OValue::Arr(paths.into_iter().map(OValue::Str).collect()),
    );
    let expected: Vec<(OValue, OValue)> = match (case.get("result"), case.get("result_paths")) {
        (Some(r), Some(p)) => vec![(r.clone(), p.clone())],
        _ => {
            let rs = case
                .get("results")
                .and_then(OValue::as_array)
                .ok_or("no results")?;
            let ps = case
                .get("results_paths")
                .and_then(OValue::as_array)
                .ok_or("no results_paths")?;
            rs.iter().cloned().zip(ps.iter().cloned()).collect()
        }
    };
    if expected.contains(&got) {
        Ok(())
    } else {
        Err(format!("got {:?}, expected one of {:?}", got, expected))
    }
}

// The suite's one loader, shared with the integration tests.
#[path = "../../../../tests/common/cts.rs"]
mod vendored;

/// The vendored suite, read once per call.
pub(super) fn load_suite() -> OValue {
    ovalue(&vendored::text())
}

/// Runs all 703 cases with `evaluate`, reports the pass count and fails on any failure.
pub(super) fn run_suite(label: &str, evaluate: Evaluate) {
    let suite = load_suite();
    let cases = suite
        .get("tests")
        .and_then(OValue::as_array)
        .expect("tests array");
    let mut failures = Vec::new();
    for case in cases {
        if let Err(why) = check_case(case, evaluate) {
            let name = case.get("name").and_then(OValue::as_str).unwrap_or("?");
            let sel = case.get("selector").and_then(OValue::as_str).unwrap_or("?");
            failures.push(format!("{name} [{sel}]: {why}"));
        }
    }
    let passed = cases.len() - failures.len();
    eprintln!("JSONPath CTS ({label}): {passed}/{} passed", cases.len());
    for f in failures.iter().take(60) {
        eprintln!("  FAIL {f}");
    }
    assert_eq!(cases.len(), vendored::CASES, "the suite has every case");
    assert!(failures.is_empty(), "{} CTS cases failed", failures.len());
}

#[test]
fn compliance_test_suite() {
    run_suite("in-memory tree", &|query, document| {
        let tree = Tree::new(document);
        let mut out = Vec::new();
        let _ = query.select(&tree, 0, |p, n| {
            out.push((p.to_normalized(), tree.value(n)));
            ControlFlow::Continue(())
        });
        out
    });
}
