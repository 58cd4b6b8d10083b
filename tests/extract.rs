//! `spill extract` through the real binary: the JSONPath Compliance Test Suite, every output
//! mode and bound, exact numbers, NDJSON, no-match explanations and errors.
// The CTS pass count is the test's report: it goes to the test output.
#![allow(clippy::print_stderr)]

use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;

use crate::common::Sandbox;

#[derive(Deserialize)]
struct Suite {
    tests: Vec<Case>,
}

#[derive(Deserialize)]
struct Case {
    name: String,
    selector: String,
    #[serde(default)]
    invalid_selector: bool,
    /// Kept as written: member order matters and serde_json's map would sort it.
    document: Option<Box<RawValue>>,
    result: Option<Vec<Value>>,
    result_paths: Option<Vec<String>>,
    results: Option<Vec<Vec<Value>>>,
    results_paths: Option<Vec<Vec<String>>>,
}

/// JSON equality with numbers compared by value (`1` and `1.0` are the same number).
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x == y || x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

/// `spill extract - QUERY --nodes --compact --unbounded` on `document`; a query holding a NUL
/// (which no command line can carry) goes through `--from-file`.
fn run_case(s: &Sandbox, index: usize, selector: &str, document: &str) -> crate::common::Run {
    let flags = ["--nodes", "--compact", "--unbounded"];
    if selector.contains('\0') {
        let file = s.file(&format!("query-{index}"), selector);
        let mut args = vec!["extract", "-", "--from-file", file.to_str().unwrap()];
        args.extend(flags);
        s.run(&args, document)
    } else {
        let mut args = vec!["extract", "-", selector];
        args.extend(flags);
        s.run(&args, document)
    }
}

fn check(s: &Sandbox, index: usize, case: &Case) -> Result<(), String> {
    let Some(document) = &case.document else {
        if !case.invalid_selector {
            return Err("no document".into());
        }
        let r = run_case(s, index, &case.selector, "{}");
        return match r.code {
            Some(2) if r.stderr.starts_with("spill: invalid query: ") && r.stdout.is_empty() => {
                Ok(())
            }
            _ => Err(format!("accepted an invalid selector: {r:?}")),
        };
    };
    let r = run_case(s, index, &case.selector, document.get());
    let nodes: Vec<Value> = match serde_json::from_slice::<Value>(&r.stdout) {
        Ok(Value::Array(a)) => a,
        _ => return Err(format!("not a JSON array: {r:?}")),
    };
    let expected: Vec<(Vec<Value>, Vec<String>)> = match (&case.result, &case.result_paths) {
        (Some(v), Some(p)) => vec![(v.clone(), p.clone())],
        _ => case
            .results
            .clone()
            .unwrap_or_default()
            .into_iter()
            .zip(case.results_paths.clone().unwrap_or_default())
            .collect(),
    };
    let want_code = if expected.first().is_some_and(|(v, _)| v.is_empty()) {
        1
    } else {
        0
    };
    if r.code != Some(want_code) {
        return Err(format!("exit {:?}, expected {want_code}: {r:?}", r.code));
    }
    let paths: Vec<&str> = nodes.iter().filter_map(|n| n["path"].as_str()).collect();
    let values: Vec<&Value> = nodes.iter().map(|n| &n["value"]).collect();
    let ok = expected.iter().any(|(v, p)| {
        p.len() == paths.len()
            && p.iter().zip(&paths).all(|(a, b)| a == b)
            && v.len() == values.len()
            && v.iter().zip(&values).all(|(a, b)| same(a, b))
    });
    if ok {
        Ok(())
    } else {
        Err(format!("got {}", r.out()))
    }
}

/// Every case of the JSONPath Compliance Test Suite, one process each, with
/// `--nodes --compact --unbounded`: values and normalized paths must match, and every invalid
/// selector must be rejected with exit 2.
#[test]
fn compliance_test_suite_through_the_binary() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shared/data/jsonpath-cts/cts.json"
    );
    let text = std::fs::read_to_string(path).expect("the CTS is at ../shared/data/jsonpath-cts");
    let suite: Suite = serde_json::from_str(&text).expect("cts.json parses");
    assert_eq!(suite.tests.len(), 703, "the suite has 703 cases");
    let s = Sandbox::new();
    let cases = &suite.tests;
    // Two workers: the machine (and CI) has two cores.
    let failures: Vec<String> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..2)
            .map(|w| {
                let s = &s;
                scope.spawn(move || {
                    cases
                        .iter()
                        .enumerate()
                        .skip(w)
                        .step_by(2)
                        .filter_map(|(i, case)| {
                            check(s, i, case)
                                .err()
                                .map(|why| format!("{} [{}]: {why}", case.name, case.selector))
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().expect("worker"))
            .collect()
    });
    let passed = cases.len() - failures.len();
    eprintln!(
        "JSONPath CTS through the binary: {passed}/{} passed",
        cases.len()
    );
    for f in failures.iter().take(40) {
        eprintln!("  FAIL {f}");
    }
    assert!(failures.is_empty(), "{} CTS cases failed", failures.len());
}
