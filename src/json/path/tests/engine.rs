//! The query evaluator over the JSON engine's lazy values ([`JsonDoc`]).

use std::ops::ControlFlow;

use super::cts::run_suite;
use super::tree::ovalue;
use crate::json::path::{JsonDoc, Query, explain_no_match};

/// (normalized path, raw text) of each selected node.
fn select(bytes: &str, query: &str) -> Result<Vec<(String, String)>, crate::json::SyntaxError> {
    let (doc, root) = JsonDoc::open(bytes.as_bytes(), false)?;
    let q = Query::parse_lenient(query).expect("query parses");
    let mut out = Vec::new();
    let mut failed = None;
    let _ = q.select(&doc, root, |p, v| {
        match v.raw() {
            Ok(raw) => out.push((p.to_normalized(), String::from_utf8_lossy(raw).into_owned())),
            Err(e) => {
                failed = Some(e);
                return ControlFlow::Break(());
            }
        }
        ControlFlow::Continue(())
    })?;
    match failed {
        Some(e) => Err(e),
        None => Ok(out),
    }
}

#[test]
fn compliance_test_suite_on_the_engine() {
    run_suite("engine", &|query, document| {
        let text = document.to_json();
        let (doc, root) = JsonDoc::open(text.as_bytes(), false).expect("CTS documents are valid");
        let mut out = Vec::new();
        let _ = query
            .select(&doc, root, |p, v| {
                let raw = std::str::from_utf8(v.raw().expect("valid")).expect("utf-8");
                out.push((p.to_normalized(), ovalue(raw)));
                ControlFlow::Continue(())
            })
            .expect("valid document");
        out
    });
}

#[test]
fn only_the_prefix_holding_the_answer_is_read() {
    // Everything after element 6 is garbage: a singular query never gets there.
    let text =
        r#"{"items":[{"id":0},{"id":1},{"id":2},{"id":3},{"id":4},{"id":5},{"id":6}, nonsense"#;
    assert_eq!(
        select(text, "$.items[5].id").unwrap(),
        [("$['items'][5]['id']".to_string(), "5".to_string())]
    );
    // A query that must read on reports the error with its byte offset.
    let err = select(text, "$.items[-1]").unwrap_err();
    assert!(err.to_string().contains("byte"), "{err}");
    assert!(select(text, "$.meta").is_err());
}

#[test]
fn numbers_and_strings_keep_their_text() {
    let text =
        r#"[12345678901234567890123, 12345678901234567890124, 1e400, -0.0, 1.50e-10, "\u00e9"]"#;
    let raw = |q: &str| -> Vec<String> {
        select(text, q)
            .unwrap()
            .into_iter()
            .map(|(_, r)| r)
            .collect()
    };
    assert_eq!(
        raw("$[?@ == 12345678901234567890124]"),
        ["12345678901234567890124"]
    );
    assert_eq!(raw("$[?@ > 1e399]"), ["1e400"]);
    assert_eq!(raw("$[?@ == 0]"), ["-0.0"]);
    assert_eq!(raw("$[?@ == 0.00000000015]"), ["1.50e-10"]);
    assert_eq!(raw("$[?@ == 'é']"), [r#""\u00e9""#]);
    assert_eq!(raw("$[?length(@) == 1]"), [r#""\u00e9""#]);
}

#[test]
fn escaped_keys_match_decoded_names() {
    let text = r#"{"a\"b":1,"\u00e9":2,"x":{"y\\z":3}}"#;
    assert_eq!(select(text, r#"$['a"b']"#).unwrap()[0].1, "1");
    assert_eq!(select(text, "$.é").unwrap()[0].1, "2");
    assert_eq!(
        select(text, "$..*")
            .unwrap()
            .into_iter()
            .map(|(p, _)| p)
            .collect::<Vec<_>>(),
        ["$['a\"b']", "$['é']", "$['x']", r"$['x']['y\\z']"]
    );
}

#[test]
fn no_match_explanations_on_the_engine() {
    let text = r#"{"items":[1,2,3],"meta":{"count":3}}"#;
    let (doc, root) = JsonDoc::open(text.as_bytes(), false).unwrap();
    let explain =
        |q: &str| explain_no_match(&Query::parse_lenient(q).unwrap(), &doc, root).unwrap();
    assert_eq!(
        explain("itmes"),
        r#"no key "itmes" in $ (an object with keys: items, meta) — did you mean "items"?"#
    );
    assert_eq!(
        explain("items[3]"),
        "index 3 out of range for $.items (length 3)"
    );
}

#[test]
fn a_descendant_segment_stops_at_max_descent() {
    use crate::json::path::MAX_DESCENT;
    let count = |depth: usize| {
        let text = format!("{}{}", "[".repeat(depth + 1), "]".repeat(depth + 1));
        let (doc, root) = JsonDoc::open(text.as_bytes(), false).unwrap();
        let q = Query::parse("$..[0]").unwrap();
        let mut n = 0usize;
        q.select(&doc, root, |_, _| {
            n += 1;
            ControlFlow::Continue(())
        })
        .map(|_| n)
    };
    // The innermost array exactly MAX_DESCENT levels down: every level walked.
    assert_eq!(count(MAX_DESCENT), Ok(MAX_DESCENT));
    // One more, or a million more: stopped at the first container too deep, without
    // recursion, reading each byte at most MAX_DESCENT times.
    for depth in [MAX_DESCENT + 1, 1_000_000] {
        let e = count(depth).unwrap_err();
        assert_eq!(e.fault, crate::json::Fault::TooDeep, "{e}");
        assert_eq!(e.offset, MAX_DESCENT as u64 + 1);
        assert!(
            e.to_string().starts_with("nested too deeply at byte 1001 "),
            "{e}"
        );
    }
}

/// A filter's subqueries rooted at `$` run once per evaluation: before, each ran once per
/// candidate of the filter around it, and nesting multiplied the runs (a fuzzing finding,
/// tests/fuzz-cases/jsonpath_parse/timeout-nested-absolute-filters). Here four levels over
/// 100 elements would take 10^8 steps, past the work limit of a 400-byte document.
#[test]
fn absolute_subqueries_run_once() {
    let items: Vec<String> = (0..100).map(|i| i.to_string()).collect();
    let text = format!("{{\"a\":[{}],\"x\":1}}", items.join(","));
    assert!(crate::json::path::work_limit(text.len()) < 100_000_000);
    for (query, selected) in [
        ("$.a[?$.a[?$.a[?$.a[?$.x]]]]", 100),
        ("$.a[?$.a[?$.a[?$.a[?$.y]]]]", 0),
        (
            "$.a[?count($.a[?count($.a[?count($.a[*]) == 100]) == 100]) == 100]",
            100,
        ),
        ("$.a[?value($.a[?$.a[?@ == 99] && @ == 99]) == 99]", 100),
        (
            "$.a[?$.x == 1 && $.a[?$.x == 1 && $.a[?$.x == 1 && $.a[?$.x == 1]]]]",
            100,
        ),
        // Relative subqueries still see their candidate.
        ("$.a[?$.a[?$.a[?@ == 5]]][?@ < 3]", 0),
        ("$[?$.a[?$.a[?@ == 5]]][?@ < 3]", 3),
    ] {
        let got = select(&text, query).unwrap_or_else(|e| panic!("{query}: {e}"));
        assert_eq!(got.len(), selected, "{query}");
    }
}

/// Relative subqueries do depend on their candidate; when nesting them multiplies past
/// [`crate::json::path::work_limit`], the evaluation stops with a clear error.
#[test]
fn a_runaway_query_stops_at_the_work_limit() {
    let depth = 200;
    let text = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
    // Chains of four nested arrays: C(200, 4) ~ 6.5 * 10^7, a few steps each.
    let e = select(&text, "$..*[?@..*[?@..*[?@..*[?@.x]]]]").unwrap_err();
    assert_eq!(e.fault, crate::json::Fault::TooCostly, "{e}");
    assert!(
        e.to_string().starts_with("query too costly at byte "),
        "{e}"
    );
    // Repeated name selectors multiply as much, and count the same way.
    let names = vec!["'a'"; 300].join(",");
    let e = select(
        r#"{"a":{"a":{"a":{"a":1}}}}"#,
        &format!("$[{names}][{names}][{names}][{names}]"),
    )
    .unwrap_err();
    assert_eq!(e.fault, crate::json::Fault::TooCostly, "{e}");
    // 60 levels deep (C(60, 4) ~ 4.9 * 10^5 chains) it finishes.
    let text = &text[depth - 60..depth + 60];
    assert_eq!(select(text, "$..*[?@..*[?@..*[?@..*[?@.x]]]]"), Ok(vec![]));
}
