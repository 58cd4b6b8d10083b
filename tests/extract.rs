//! `spill extract` through the real binary: the JSONPath Compliance Test Suite, every output
//! mode and bound, exact numbers, NDJSON, no-match explanations and errors.
// The CTS pass count is the test's report: it goes to the test output.
#![allow(clippy::print_stderr)]

use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;

use crate::common::{Sandbox, cts};

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
    let suite: Suite = serde_json::from_str(&cts::text()).expect("cts.json parses");
    assert_eq!(suite.tests.len(), cts::CASES, "the suite has every case");
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
    // Written to the stderr descriptor directly, not with eprintln!, so that the count shows in
    // the test output even when the test passes (libtest captures only the print macros).
    let _ = std::io::Write::write_all(
        &mut std::io::stderr(),
        format!(
            "JSONPath CTS through the binary: {passed}/{} passed\n",
            cases.len()
        )
        .as_bytes(),
    );
    for f in failures.iter().take(40) {
        eprintln!("  FAIL {f}");
    }
    assert!(failures.is_empty(), "{} CTS cases failed", failures.len());
}

const DOC: &str = r#"{"items":[{"id":1,"name":"a","tags":["x","y"]},{"id":2,"name":"b\u00e9"}],"meta":{"count":2,"next":null}}"#;

#[test]
fn a_singular_query_prints_the_value_pretty_by_default() {
    let s = Sandbox::new();
    let r = s.run(&["extract", "-", "$.items[0]"], DOC);
    r.status(0);
    assert_eq!(
        r.out(),
        "{\n  \"id\": 1,\n  \"name\": \"a\",\n  \"tags\": [\n    \"x\",\n    \"y\"\n  ]\n}\n"
    );
    assert_eq!(r.stderr, "");
    // Convenience forms read as if they started with `$`.
    for q in ["items[0].id", ".items[0].id", "$['items'][0]['id']"] {
        let r = s.run(&["extract", "-", q, "--compact"], DOC);
        r.status(0);
        assert_eq!(r.out(), "1\n", "{q}");
    }
}

#[test]
fn other_queries_print_an_array_in_document_order() {
    let s = Sandbox::new();
    let r = s.run(&["extract", "-", "$..name", "--compact"], DOC);
    r.status(0);
    assert_eq!(r.out(), "[\"a\",\"b\\u00e9\"]\n");
    let r = s.run(&["extract", "-", "$.items[*].id"], DOC);
    r.status(0);
    assert_eq!(r.out(), "[\n  1,\n  2\n]\n");
    // Empty containers stay on one line.
    let r = s.run(&["extract", "-", "$"], r#"{"a":[],"b":{}}"#);
    assert_eq!(r.out(), "{\n  \"a\": [],\n  \"b\": {}\n}\n");
}

#[test]
fn nodes_print_normalized_paths() {
    let s = Sandbox::new();
    let r = s.run(&["extract", "-", "$..id", "--nodes", "--compact"], DOC);
    r.status(0);
    assert_eq!(
        r.out(),
        r#"[{"path":"$['items'][0]['id']","value":1},{"path":"$['items'][1]['id']","value":2}]"#
            .to_string()
            + "\n"
    );
    // A singular query with --nodes is a list too.
    let r = s.run(&["extract", "-", "$.meta.count", "--nodes"], DOC);
    r.status(0);
    assert_eq!(
        r.out(),
        "[\n  {\n    \"path\": \"$['meta']['count']\",\n    \"value\": 2\n  }\n]\n"
    );
    let r = s.run(
        &["extract", "-", r"$['it\'s']", "--nodes", "--compact"],
        r#"{"it's":1}"#,
    );
    assert_eq!(r.out(), "[{\"path\":\"$['it\\\\'s']\",\"value\":1}]\n");
}

#[test]
fn raw_prints_strings_decoded_one_per_line() {
    let s = Sandbox::new();
    let r = s.run(&["extract", "-", "$..[?@.id].name", "-r"], DOC);
    r.status(0);
    assert_eq!(r.out(), "a\nbé\n");
    let r = s.run(&["extract", "-", "$.items[0].*", "-r"], DOC);
    assert_eq!(r.out(), "1\na\n[\"x\",\"y\"]\n");
    let r = s.run(&["extract", "-", "$.items[1].name", "-r"], DOC);
    assert_eq!(r.out(), "bé\n");
}

#[test]
fn numbers_and_strings_are_copied_exactly() {
    let s = Sandbox::new();
    let doc = r#"[1e400, -0.0, 12345678901234567890123, 1.50e-10, 4114452039933388467, "\u00e9\n", 1E+2]"#;
    let r = s.run(&["extract", "-", "$[*]", "--compact"], doc);
    r.status(0);
    assert_eq!(
        r.out(),
        "[1e400,-0.0,12345678901234567890123,1.50e-10,4114452039933388467,\"\\u00e9\\n\",1E+2]\n"
    );
    // Filters compare numbers exactly, without float rounding.
    let r = s.run(&["extract", "-", "$[?@ == 12345678901234567890123]"], doc);
    assert_eq!(r.out(), "[\n  12345678901234567890123\n]\n");
    let r = s.run(&["extract", "-", "$[?@ > 1e399]", "--compact"], doc);
    assert_eq!(r.out(), "[1e400]\n");
}

/// `depth` arrays, each the only element of the one around it: `[[[…]]]`.
fn nested_arrays(depth: usize) -> String {
    format!("{}{}", "[".repeat(depth), "]".repeat(depth))
}

fn big_doc(n: usize) -> String {
    let items: Vec<String> = (0..n)
        .map(|i| format!(r#"{{"id":{i},"name":"item {i}","tags":["a","b"]}}"#))
        .collect();
    format!(
        r#"{{"items":[{}],"meta":{{"count":{n}}}}}"#,
        items.join(",")
    )
}

#[test]
fn max_items_cuts_with_a_marker_naming_the_next_slice() {
    let s = Sandbox::new();
    let f = s.file("big.json", big_doc(2000));
    let f = f.to_str().unwrap();
    let r = s.run(
        &["extract", f, "$.items", "--compact", "--max-depth", "1"],
        "",
    );
    r.status(0);
    let v = r.json();
    let a = v.as_array().unwrap();
    assert_eq!(a.len(), 51);
    let marker = format!("… 1,950 more items: spill extract {f} '$.items[50:100]'");
    assert_eq!(a[50], Value::String(marker));
    assert_eq!(
        r.stderr,
        format!(
            "cut: 1,950 more items, 50 deep containers · next: spill extract {f} '$.items[50:100]'\n"
        )
    );
    // The named continuation works and starts at item 50.
    let r = s.run(&["extract", f, "$.items[50:100]", "--compact"], "");
    r.status(0);
    assert_eq!(r.json()[0]["id"], 50);
    // Depth: containers below --max-depth become a summary naming their path.
    let r = s.run(
        &["extract", f, "$.items[0]", "--max-depth", "1", "--compact"],
        "",
    );
    assert_eq!(
        r.json()["tags"],
        Value::String(format!("… array[2]: spill extract {f} '$.items[0].tags'"))
    );
    let r = s.run(&["extract", f, "$", "--max-depth", "1", "--compact"], "");
    assert_eq!(
        r.json()["meta"],
        Value::String(format!("… object(1 key): spill extract {f} '$.meta'"))
    );
}

#[test]
fn node_lists_continue_with_offset() {
    let s = Sandbox::new();
    let f = s.file("big.json", big_doc(120));
    let f = f.to_str().unwrap();
    let r = s.run(&["extract", f, "$.items[*].id", "--compact"], "");
    r.status(0);
    let v = r.json();
    assert_eq!(v.as_array().unwrap().len(), 51);
    assert_eq!(v[49], 49);
    let marker = format!("… 70 more nodes: spill extract {f} '$.items[*].id' --offset 50");
    assert_eq!(v[50], Value::String(marker));
    assert_eq!(
        r.stderr,
        format!("nodes 1–50 of 120 · next: spill extract {f} '$.items[*].id' --offset 50\n")
    );
    let r = s.run(
        &[
            "extract",
            f,
            "$.items[*].id",
            "--compact",
            "--offset",
            "100",
        ],
        "",
    );
    r.status(0);
    assert_eq!(r.json(), serde_json::json!((100..120).collect::<Vec<_>>()));
    assert_eq!(r.stderr, "");
    // --nodes and -r keep their mode in the continuation.
    let r = s.run(
        &["extract", f, "$.items[*].id", "-r", "--max-items", "2"],
        "",
    );
    assert_eq!(
        r.out(),
        format!("0\n1\n… 118 more nodes: spill extract {f} '$.items[*].id' --offset 2 -r\n")
    );
    // Past the end: an empty list, exit 0 (the query did select nodes), and a note.
    let r = s.run(&["extract", f, "$.items[*].id", "--offset", "500"], "");
    r.status(0);
    assert_eq!(r.out(), "[]\n");
    assert!(
        r.stderr.contains("nothing past --offset 500"),
        "{}",
        r.stderr
    );
    // --offset on a singular query is a usage error.
    s.run(&["extract", f, "$.items[0]", "--offset", "1"], "")
        .status(2);
}

#[test]
fn long_strings_are_cut_by_characters() {
    let s = Sandbox::new();
    let doc = format!(r#"{{"s":"{}\u00e9{}"}}"#, "a".repeat(9), "b".repeat(20));
    let r = s.run(&["extract", "-", "$.s", "--max-string", "10"], doc.clone());
    r.status(0);
    assert_eq!(
        r.out(),
        "\"aaaaaaaaa\\u00e9… 20 more chars: spill extract - '$.s' -r --unbounded\"\n"
    );
    assert_eq!(
        r.stderr,
        "cut: 1 long string · next: spill extract - '$.s' -r --unbounded\n"
    );
    let r = s.run(
        &["extract", "-", "$.s", "-r", "--max-string", "10"],
        doc.clone(),
    );
    assert_eq!(
        r.out(),
        "aaaaaaaaaé… 20 more chars: spill extract - '$.s' -r --unbounded\n"
    );
    let r = s.run(&["extract", "-", "$.s", "-r", "--unbounded"], doc);
    assert_eq!(r.out(), format!("aaaaaaaaaé{}\n", "b".repeat(20)));
    assert_eq!(r.stderr, "");
}

#[test]
fn the_byte_bound_holds_and_the_output_stays_json() {
    let s = Sandbox::new();
    let f = s.file("big.json", big_doc(5000));
    let f = f.to_str().unwrap();
    for q in ["$", "$.items", "$..name", "$..*", "$.items[*]"] {
        for max in ["1K", "4K", "16KiB"] {
            for extra in [&[][..], &["--compact"][..], &["--nodes"][..]] {
                // Enough items that the byte bound is the one that binds.
                let mut args = vec!["extract", f, q, "--max-bytes", max, "--max-items", "9999"];
                args.extend_from_slice(extra);
                let r = s.run(&args, "");
                r.status(0);
                let limit = spill::limits::parse_size(max).unwrap() as usize;
                assert!(
                    r.stdout.len() <= limit,
                    "{q} {max} {extra:?}: {} bytes",
                    r.stdout.len()
                );
                r.json();
                assert!(
                    r.stdout.len() > limit / 3,
                    "{q} {max}: only {}",
                    r.stdout.len()
                );
                assert_eq!(r.stderr.lines().count(), 1, "{}", r.stderr);
            }
        }
    }
    // Lifting the bounds prints everything.
    for args in [&["--unbounded"][..], &["--max-bytes", "0"][..]] {
        let mut argv = vec!["extract", f, "$.items[*].id", "--compact"];
        argv.extend_from_slice(args);
        let r = s.run(&argv, "");
        r.status(0);
        assert_eq!(r.json().as_array().unwrap().len(), 5000);
        assert_eq!(r.stderr, "");
    }
}

#[test]
fn the_notice_can_go_to_stdout() {
    let s = Sandbox::new();
    let f = s.file("big.json", big_doc(100));
    let f = f.to_str().unwrap();
    let want_tail = format!("nodes 1–50 of 100 · next: spill extract {f} '$..id' --offset 50\n");
    let r = s.run(
        &["extract", f, "$..id", "--compact", "--footer", "stdout"],
        "",
    );
    r.status(0);
    assert!(r.out().ends_with(&format!("]\n{want_tail}")), "{}", r.out());
    assert_eq!(r.stderr, "");
    let r = s
        .cmd(&["extract", f, "$..id", "--compact"])
        .env("SPILL_FOOTER", "stdout")
        .run();
    assert!(r.out().ends_with(&want_tail));
}

#[test]
fn ndjson_is_an_array_of_records() {
    let s = Sandbox::new();
    let doc = "{\"a\":1}\n{\"a\":2,\"b\":[1,2]}\n\n{\"c\":3}\n";
    let r = s.run(&["extract", "-", "$[1]", "--compact"], doc);
    r.status(0);
    assert_eq!(r.out(), "{\"a\":2,\"b\":[1,2]}\n");
    let r = s.run(&["extract", "-", "$[*].a", "--compact"], doc);
    assert_eq!(r.out(), "[1,2]\n");
    let r = s.run(&["extract", "-", "$[-1]", "--nodes", "--compact"], doc);
    assert_eq!(r.out(), "[{\"path\":\"$[2]\",\"value\":{\"c\":3}}]\n");
    let r = s.run(&["extract", "-", "$", "--compact", "--max-items", "2"], doc);
    assert_eq!(
        r.out(),
        "[{\"a\":1},{\"a\":2,\"b\":[1,2]},\"… 1 more item: spill extract - '$[2:4]'\"]\n"
    );
    let r = s.run(&["extract", "-", "$[5]"], doc);
    r.status(1);
    assert_eq!(r.stderr, "spill: index 5 out of range for $ (length 3)\n");
}

#[test]
fn no_match_explains_and_exits_1() {
    let s = Sandbox::new();
    let r = s.run(&["extract", "-", "$.itmes"], DOC);
    r.status(1);
    assert_eq!(r.out(), "");
    assert_eq!(
        r.stderr,
        "spill: no key \"itmes\" in $ (an object with keys: items, meta) — did you mean \"items\"?\n"
    );
    let r = s.run(&["extract", "-", "items[2]"], DOC);
    r.status(1);
    assert_eq!(
        r.stderr,
        "spill: index 2 out of range for $.items (length 2)\n"
    );
    let r = s.run(&["extract", "-", "$.items[*].nmae"], DOC);
    r.status(1);
    assert_eq!(r.out(), "[]\n");
    assert!(r.stderr.contains("did you mean \"name\"?"), "{}", r.stderr);
    let r = s.run(&["extract", "-", "$..zzz", "-r"], DOC);
    r.status(1);
    assert_eq!(r.out(), "");
}

#[test]
fn syntax_errors_point_at_the_character() {
    let s = Sandbox::new();
    let r = s.run(&["extract", "-", "$.items[?@.id >]"], DOC);
    r.status(2);
    assert_eq!(r.out(), "");
    let lines: Vec<&str> = r.stderr.lines().collect();
    assert_eq!(lines.len(), 3, "{}", r.stderr);
    assert!(
        lines[0].starts_with("spill: invalid query: "),
        "{}",
        lines[0]
    );
    assert_eq!(lines[1], "  $.items[?@.id >]");
    assert_eq!(lines[2], "                 ^");
    // Surrounding whitespace is rejected, as the RFC says.
    s.run(&["extract", "-", " $.a"], DOC).status(2);
}

#[test]
fn invalid_json_is_an_error_with_its_position() {
    let s = Sandbox::new();
    let doc = "{\"a\":\n  [1, 2,, 3], \"b\": 1}";
    let r = s.run(&["extract", "-", "$.a"], doc);
    r.status(2);
    assert_eq!(r.out(), "");
    assert!(
        r.stderr
            .starts_with("spill: invalid JSON at byte 14 (line 2:9)"),
        "{}",
        r.stderr
    );
    // Navigation is lenient in what it jumps over: `$.b` never reads the array's inside.
    s.run(&["extract", "-", "$.b"], doc).status(0);
    // What is printed is checked even where navigation is lenient.
    let r = s.run(&["extract", "-", "$.a"], "{\"a\": [1, tru], \"b\": 2}");
    r.status(2);
    assert!(
        r.stderr.contains("invalid JSON at byte 10 (line 1:11)"),
        "{}",
        r.stderr
    );
    let r = s.run(&["extract", "-", "$"], "{\"a\": 1");
    r.status(2);
    s.run(&["extract", "-", "$"], "").status(2);
}

#[test]
fn a_singular_query_reads_only_the_prefix_holding_its_node() {
    let s = Sandbox::new();
    // Everything after item 5 is garbage: never read.
    let doc = r#"{"items":[0,1,2,3,4,{"id":5},6, this is not JSON"#;
    let r = s.run(&["extract", "-", "$.items[5].id"], doc);
    r.status(0);
    assert_eq!(r.out(), "5\n");
}

#[test]
fn a_million_levels_deep() {
    let s = Sandbox::new();
    let depth = 1_000_000;
    let doc = nested_arrays(depth);
    let r = s.run(&["extract", "-", "$", "--compact"], doc.clone());
    r.status(0);
    assert_eq!(
        r.out(),
        format!(
            "{}\"… array[1]: spill extract - '$[0][0][0][0][0][0][0][0]'\"{}\n",
            "[".repeat(8),
            "]".repeat(8)
        )
    );
    let r = s.run(
        &["extract", "-", "$", "--compact", "--unbounded"],
        doc.clone(),
    );
    r.status(0);
    assert_eq!(r.stdout.len(), 2 * depth + 1);
    // A descendant segment walks at most 1,000 levels (MAX_DESCENT): deeper, a clear error
    // at once instead of reading each byte once per level above it (and a stack of a million
    // frames).
    let r = s.run(&["extract", "-", "$..[0]", "--compact"], doc.clone());
    r.status(2);
    assert_eq!(r.out(), "");
    assert_eq!(
        r.stderr,
        "spill: nested too deeply at byte 1001 (line 1:1002): a descendant segment (..) walks at \
         most 1,000 levels below where it starts; reach deeper values with an explicit path\n"
    );
    // Where it starts counts: below an explicit prefix the limit is relative to it.
    let r = s.run(&["extract", "-", "$[0][0]..*", "--compact"], doc.clone());
    r.status(2);
    assert!(r.stderr.contains("at byte 1003 "), "{}", r.stderr);
    // Other queries go down any depth (30,000 segments: an argument is at most 128 KiB).
    let deep_path = format!("${}", "[0]".repeat(30_000));
    let r = s.run(
        &["extract", "-", &deep_path, "--compact", "--unbounded"],
        doc,
    );
    r.status(0);
    assert_eq!(r.stdout.len(), 2 * (depth - 30_000) + 1);
}

/// Pretty output indents at most 100 levels: indenting each of a million levels would print
/// ~10^12 bytes for a 2 MB document. Deeper lines keep 200 columns; the JSON is the same.
#[test]
fn pretty_output_indents_at_most_a_hundred_levels() {
    let s = Sandbox::new();
    let depth = 150;
    let doc = nested_arrays(depth);
    let r = s.run(&["extract", "-", "$", "--unbounded"], doc.clone());
    r.status(0);
    let out = r.out();
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 2 * depth - 1);
    let indents: Vec<usize> = lines
        .iter()
        .map(|l| l.len() - l.trim_start().len())
        .collect();
    assert_eq!(indents[99], 198);
    assert_eq!(indents[100], 200);
    assert!(indents.iter().all(|&i| i <= 200));
    assert_eq!(indents[depth - 1], 200);
    // Read back, it is the same document.
    let back = s.run(&["extract", "-", "$", "--compact", "--unbounded"], out);
    back.status(0);
    assert_eq!(back.out(), format!("{doc}\n"));
    // 100,000 levels: 40 MB of output instead of ~10^10 bytes.
    let depth = 100_000;
    let doc = nested_arrays(depth);
    let r = s.run(&["extract", "-", "$", "--unbounded"], doc);
    r.status(0);
    // 2 * depth brackets, 2 * depth - 1 line breaks, and the indentation of each line.
    let indent = |level: usize| 2 * level.min(100);
    let spaces: usize = (0..depth).chain(0..depth - 1).map(indent).sum();
    assert_eq!(r.stdout.len(), 2 * depth + 2 * depth - 1 + spaces);
}

/// `$..name` runs as one strict pass over the document (README, "Exactness"): its nodes come
/// in RFC 9535 order all the same (an object's own member before anything below it, even when
/// that member comes last in the text), a repeated key's first member is the member, escaped
/// keys match, and what the pass reads is checked through the end of the document.
#[test]
fn a_descendant_name_keeps_the_order_and_the_checks() {
    let s = Sandbox::new();
    let doc =
        r#"{"a":{"b":{"id":1},"id":2},"c":[{"\u0069d":3},{"x":{"id":4},"id":5,"id":6}],"id":7}"#;
    let r = s.run(&["extract", "-", "$..id", "--compact"], doc);
    r.status(0);
    assert_eq!(r.out(), "[7,2,1,3,5,4]\n");
    let r = s.run(&["extract", "-", "$..id", "--nodes", "--compact"], doc);
    r.status(0);
    assert_eq!(
        r.out(),
        "[{\"path\":\"$['id']\",\"value\":7},{\"path\":\"$['a']['id']\",\"value\":2},\
         {\"path\":\"$['a']['b']['id']\",\"value\":1},{\"path\":\"$['c'][0]['id']\",\"value\":3},\
         {\"path\":\"$['c'][1]['id']\",\"value\":5},{\"path\":\"$['c'][1]['x']['id']\",\"value\":4}]\n"
    );
    // Invalid bytes anywhere, before or after the matches, and trailing data: exit 2.
    for (bad, at) in [
        (r#"{"a":{"id":1},"b":[1 2],"id":3}"#, 21),
        (r#"{"a":{"id":1},"b":"x	y","id":3}"#, 20),
        (r#"{"a":{"id":2024-01-02}}"#, 15),
        (r#"{"a":{"id":1}}x"#, 14),
        (r#"{"a":{"id":1},"#, 14),
    ] {
        let r = s.run(&["extract", "-", "$..id"], bad);
        r.status(2);
        assert!(
            r.stderr.contains(&format!("at byte {at} ")),
            "{bad}: {}",
            r.stderr
        );
    }
}

#[test]
fn a_descendant_segment_walks_a_thousand_levels() {
    let s = Sandbox::new();
    // 1,001 arrays: the innermost is 1,000 levels below the root, the limit exactly.
    let depth = 1001;
    let doc = nested_arrays(depth);
    let r = s.run(
        &["extract", "-", "$..[0]", "--compact", "--max-items", "0"],
        doc.clone(),
    );
    r.status(0);
    assert_eq!(
        r.out(),
        "[\"… 1,000 more nodes: spill extract - '$..[0]' --offset 0\"]\n"
    );
    // One level more is refused, with the offset of the container too deep (1,001 levels
    // below the root: byte 1,001).
    let doc = format!("[{doc}]");
    let r = s.run(&["extract", "-", "$..*", "--compact"], doc);
    r.status(2);
    assert!(
        r.stderr
            .starts_with("spill: nested too deeply at byte 1001 (line 1:1002): "),
        "{}",
        r.stderr
    );
}

/// Nested filters over descendant segments multiply their work; past the work limit (10
/// million steps plus 16 per byte) the query stops with exit 2 and says why, instead of running
/// for hours. Subqueries rooted at `$` run once, so nesting them costs nothing extra.
#[test]
fn a_runaway_query_stops_with_a_clear_error() {
    let s = Sandbox::new();
    let depth = 200;
    let doc = nested_arrays(depth);
    let r = s.run(
        &["extract", "-", "$..*[?@..*[?@..*[?@..*[?@.x]]]]"],
        doc.clone(),
    );
    r.status(2);
    assert_eq!(r.out(), "");
    assert!(
        r.stderr.starts_with("spill: query too costly at byte ")
            && r.stderr.ends_with(
                ": the query visited more than 10,006,400 values (10 million plus 16 per byte \
                 of input) without finishing: nested filters and descendant segments (..) \
                 multiply; narrow them with explicit paths\n"
            ),
        "{}",
        r.stderr
    );
    let r = s.run(
        &[
            "extract",
            "-",
            "$[?$..*[?$..*[?$..*[?$..*[?length(@) == 0]]]]]",
            "--compact",
            "--unbounded",
        ],
        doc.clone(),
    );
    r.status(0);
    // A list of the one node selected, `$[0]`: as many brackets as the document.
    assert_eq!(r.out(), format!("{doc}\n"));
}

#[test]
fn refs_stdin_and_restricted_mode() {
    let s = Sandbox::new();
    let doc = big_doc(2000);
    let w = s.run(&["wrap"], doc.clone());
    w.status(0);
    let reference = w.json()["ref"].as_str().expect("a ref").to_string();
    let r = s.run(&["extract", &reference, "$.items[1999].id"], "");
    r.status(0);
    assert_eq!(r.out(), "1999\n");
    let r = s.run(&["extract", &reference, "$.items", "--max-depth", "0"], "");
    assert_eq!(
        r.json(),
        Value::String(format!(
            "… array[2000]: spill extract {reference} '$.items'"
        ))
    );
    let f = s.file("doc.json", DOC);
    let restricted = |args: &[&str], stdin: &str| {
        s.cmd(args)
            .env("SPILL_RESTRICTED", "1")
            .stdin(stdin.as_bytes().to_vec())
            .run()
    };
    let r = restricted(&["extract", f.to_str().unwrap(), "$.meta"], "");
    r.status(2);
    assert!(r.stderr.contains("restricted mode"), "{}", r.stderr);
    restricted(&["extract", "-", "$.meta.count"], DOC).status(0);
    restricted(&["extract", &reference, "$.meta.count"], "").status(0);
}

#[test]
fn a_closed_pipe_ends_quietly() {
    let s = Sandbox::new();
    let f = s.file("big.json", big_doc(200_000));
    let r = s
        .cmd(&["extract", f.to_str().unwrap(), "$.items[*]", "--unbounded"])
        .run_closing_stdout_after(16);
    r.status(0);
    assert_eq!(r.stderr, "");
}

mod props {
    //! Property tests of the library's extraction: the streaming evaluator against
    //! `serde_json_path` (an independent RFC 9535 implementation, used only as an oracle),
    //! and the bounded writer's promises on random documents and bounds.

    use proptest::prelude::*;
    use serde_json::Value;

    use super::same;
    use spill::extract::{Bounds, Mode, Options, extract};
    use spill::json::path::Query;

    fn json() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            (-3i64..4).prop_map(Value::from),
            prop_oneof![Just(0.5f64), Just(-2.25), Just(1e20)].prop_map(Value::from),
            prop_oneof![Just("a"), Just("b"), Just("ab"), Just("é\n"), Just("")]
                .prop_map(Value::from),
        ];
        leaf.prop_recursive(4, 48, 5, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
                prop::collection::vec((prop_oneof![Just("a"), Just("b"), Just("c")], inner), 0..4)
                    .prop_map(|kv| Value::Object(
                        kv.into_iter().map(|(k, v)| (k.to_string(), v)).collect()
                    )),
            ]
        })
    }

    fn query() -> impl Strategy<Value = String> {
        let segment = prop_oneof![
            Just(".a"),
            Just(".b"),
            Just("['c']"),
            Just("[0]"),
            Just("[1]"),
            Just("[-1]"),
            Just("[*]"),
            Just(".*"),
            Just("..a"),
            Just("..*"),
            Just("..[0]"),
            Just("[1:]"),
            Just("[::-1]"),
            Just("[-2:]"),
            Just("[0:3:2]"),
            Just("[0,'a',-1]"),
            Just("[?@.a]"),
            Just("[?@.a == 1]"),
            Just("[?@ > 0]"),
            Just("[?@ <= 'ab']"),
            Just("[?@.b == 'a']"),
            Just("[?length(@) > 1]"),
            Just("[?count(@.*) == 2]"),
            Just("[?match(@, 'a.*')]"),
            Just("[?search(@.a, 'b')]"),
            Just("[?!@.c]"),
            Just("[?value(@..a) == 1]"),
            Just("[?@.a < @.b || @.c]"),
            Just("[?@ == $[0]]"),
            Just("[?@.a == null && @.b != true]"),
        ];
        prop::collection::vec(segment, 0..4).prop_map(|v| format!("${}", v.concat()))
    }

    fn run(
        text: &str,
        query: &str,
        mode: Mode,
        bounds: Option<Bounds>,
    ) -> (Vec<u8>, spill::extract::Report) {
        let query = Query::parse(query).expect("generated queries are valid");
        let opts = Options {
            source: "-",
            bounds,
            mode,
            compact: false,
            offset: 0,
            skip_invalid: false,
        };
        let mut out = Vec::new();
        let report = extract(text.as_bytes(), &query, &opts, &mut out).expect("valid document");
        (out, report)
    }

    fn sorted(mut nodes: Vec<(String, Value)>) -> Vec<(String, Value)> {
        nodes.sort_by(|a, b| a.0.cmp(&b.0));
        nodes
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        #[test]
        fn the_streaming_evaluator_agrees_with_serde_json_path(doc in json(), q in query()) {
            let text = serde_json::to_string(&doc).unwrap();
            let oracle = serde_json_path::JsonPath::parse(&q).expect("the oracle parses it");
            let want: Vec<(String, Value)> = oracle
                .query_located(&doc)
                .into_iter()
                .map(|n| (n.location().to_string(), n.node().clone()))
                .collect();
            let (out, report) = run(&text, &q, Mode::Nodes, None);
            let got: Vec<(String, Value)> = match serde_json::from_slice::<Value>(&out).unwrap() {
                Value::Array(a) => a
                    .into_iter()
                    .map(|n| (n["path"].as_str().unwrap().to_string(), n["value"].clone()))
                    .collect(),
                other => panic!("not a list: {other}"),
            };
            prop_assert_eq!(report.selected as usize, want.len());
            let (got, want) = (sorted(got), sorted(want));
            prop_assert_eq!(got.len(), want.len(), "{} on {}", q, text);
            for (g, w) in got.iter().zip(&want) {
                prop_assert_eq!(&g.0, &w.0, "{} on {}", q, text);
                prop_assert!(same(&g.1, &w.1), "{} on {}: {} vs {}", q, text, g.1, w.1);
            }
        }

        #[test]
        fn bounded_output_is_json_within_its_bounds(
            doc in json(),
            q in prop_oneof![Just("$".to_string()), query()],
            max_items in 0usize..4,
            max_depth in 0usize..4,
            max_string in 0usize..3,
            max_bytes in prop_oneof![Just(300usize), Just(600), Just(2000), Just(100_000)],
            nodes in any::<bool>(),
        ) {
            let text = serde_json::to_string_pretty(&doc).unwrap();
            let mode = if nodes { Mode::Nodes } else { Mode::Values };
            let bounds = Bounds { max_items, max_depth, max_string, max_bytes: Some(max_bytes) };
            let (out, report) = run(&text, &q, mode, Some(bounds));
            if report.no_match.is_some() && report.singular {
                prop_assert!(out.is_empty());
                return Ok(());
            }
            let parsed: Result<Value, _> = serde_json::from_slice(&out);
            prop_assert!(parsed.is_ok(), "not JSON: {}", String::from_utf8_lossy(&out));
            if max_bytes >= 600 {
                prop_assert!(out.len() <= max_bytes, "{} > {}", out.len(), max_bytes);
            }
            let (whole, _) = run(&text, &q, mode, None);
            if report.cuts.is_empty() && report.list_next.is_none() {
                prop_assert_eq!(&out, &whole);
            } else {
                prop_assert!(report.notice().is_some());
            }
        }
    }
}

#[test]
fn a_byte_bound_below_the_floor_is_refused_and_the_floor_holds() {
    let s = Sandbox::new();
    let floor = spill::extract::MIN_MAX_BYTES.to_string();
    let below = (spill::extract::MIN_MAX_BYTES - 1).to_string();
    let r = s.run(&["extract", "-", "$.a", "--max-bytes", &below], DOC);
    r.status(2);
    assert_eq!(r.out(), "");
    assert!(
        r.stderr.starts_with(&format!(
            "spill: --max-bytes {below}: extract needs at least {floor} bytes"
        )),
        "{}",
        r.stderr
    );
    // At the floor, a long key in the path and the markers still fits, with the command in the
    // notice.
    let key = r#"k'\"\u0000é"#.repeat(100);
    let doc = format!(r#"{{"{key}": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]}}"#);
    for mode in [&[][..], &["--nodes"][..], &["--compact"][..]] {
        let mut args = vec!["extract", "-", "$.*", "--max-bytes", &floor];
        args.extend_from_slice(mode);
        let r = s.run(&args, doc.as_str());
        r.status(0);
        assert!(
            r.stdout.len() <= spill::extract::MIN_MAX_BYTES,
            "{mode:?}: {}",
            r.out()
        );
        r.json();
        assert!(r.out().contains('…'), "{mode:?}: {}", r.out());
        assert!(
            r.stderr.contains("next: spill extract - "),
            "{mode:?}: {}",
            r.stderr
        );
    }
}

/// The byte offset and line:column an error names, or a panic showing stderr.
#[track_caller]
fn invalid_at(r: &crate::common::Run) -> String {
    r.status(2);
    assert_eq!(r.out(), "", "nothing is printed from an invalid document");
    let start = r
        .stderr
        .find("invalid JSON at byte ")
        .unwrap_or_else(|| panic!("no offset in {:?}", r.stderr));
    let rest = &r.stderr[start + 21..];
    rest[..rest.find(')').expect("(line L:C)") + 1].to_string()
}

#[test]
fn a_value_is_printed_only_when_it_and_the_byte_after_it_are_valid() {
    let s = Sandbox::new();
    // Each of these once printed a value the document does not hold (`2024`, `[1,2,4]`, …).
    let cases: &[(&[u8], &[&str], &str)] = &[
        (
            b"{\"date\": 2024-01-02, \"n\": 1}",
            &["$", "$.date", "$.n", "$.*", "$..*"],
            "13 (line 1:14)",
        ),
        (
            b"[1,2+3,4]",
            &["$", "$[1]", "$[2]", "$[*]", "$..*"],
            "4 (line 1:5)",
        ),
        (b"[123\xe5]", &["$", "$[0]", "$[*]"], "4 (line 1:5)"),
        (b"[1e+5+1]", &["$", "$[0]", "$..*"], "5 (line 1:6)"),
        (b"[1 2]", &["$[0]", "$[*]"], "3 (line 1:4)"),
        (b"{\"a\":1 \"b\":2}", &["$.a", "$.b"], "7 (line 1:8)"),
    ];
    for (doc, queries, at) in cases {
        for q in *queries {
            let r = s.run(&["extract", "-", q], *doc);
            assert_eq!(
                invalid_at(&r),
                *at,
                "{q} on {:?}",
                String::from_utf8_lossy(doc)
            );
        }
    }
}

#[test]
fn trailing_content_after_the_root_is_an_error() {
    let s = Sandbox::new();
    let cases: &[(&str, &str)] = &[
        ("[1,2]x", "5 (line 1:6)"),
        ("[][]", "2 (line 1:3)"),
        ("{}}", "2 (line 1:3)"),
        ("{\"a\":\"b\"}/**/", "9 (line 1:10)"),
        ("{\"a\":1}\n\n  ]", "11 (line 3:3)"),
    ];
    for (doc, at) in cases {
        // Each of these reads to the end (`$` through the byte after its node, the root).
        for q in ["$", "$[*]", "$..*", "$.missing"] {
            let r = s.run(&["extract", "-", q], *doc);
            assert_eq!(invalid_at(&r), *at, "{q} on {doc:?}");
        }
    }
    // A singular query that stops early reads, and checks, no further than the byte after
    // its node (README, "Exactness").
    let r = s.run(&["extract", "-", "$[0]"], "[1,2]x");
    r.status(0);
    assert_eq!(r.out(), "1\n");
    // Whitespace (CRLF too) after the root is fine.
    let r = s.run(
        &["extract", "-", "$.a", "--compact"],
        "{\"a\":[1]}\r\n\t \n",
    );
    r.status(0);
    assert_eq!(r.out(), "[1]\n");
}

#[test]
fn a_singular_query_checks_what_it_read_and_no_further() {
    let s = Sandbox::new();
    // Through the end of its node and the next structural byte…
    let doc = r#"{"items":[0,{"id":5},6, this is not JSON"#;
    let r = s.run(&["extract", "-", "$.items[1].id"], doc);
    r.status(0);
    assert_eq!(r.out(), "5\n");
    let r = s.run(&["extract", "-", "$.items[1]", "--compact"], doc);
    r.status(0);
    assert_eq!(r.out(), "{\"id\":5}\n");
    // …which must be a separator or the parent's closing bracket.
    let r = s.run(&["extract", "-", "$.items[1]"], r#"{"items":[0,{"id":5}}"#);
    assert_eq!(invalid_at(&r), "20 (line 1:21)");
    let r = s.run(&["extract", "-", "$.items[3]"], doc);
    assert_eq!(invalid_at(&r), "24 (line 1:25)");
}

#[test]
fn a_ref_whose_payload_wrap_found_invalid_fails_at_once() {
    let s = Sandbox::new();
    let mut rows = String::from("[");
    for i in 0..800 {
        rows.push_str(&format!(
            "{{\"date\": 2024-01-{:02}, \"n\": {i}}},\n",
            i % 28 + 1
        ));
    }
    rows.push_str("{\"n\": 800}]\n");
    let env = s.run(&["wrap", "--max-inline", "0"], rows.as_bytes());
    env.status(0);
    let env = env.json();
    let summary = env["summary"].as_str().unwrap();
    assert!(
        summary.ends_with("looks like JSON but is invalid at byte 14 (line 1:15)"),
        "{summary}"
    );
    let r = env["ref"].as_str().unwrap();
    // Whatever the query (even one that would stop before the error), and shape too.
    for args in [
        &["extract", r, "$[*].date"][..],
        &["extract", r, "$[0].n"],
        &["extract", r, "$.nothing"],
        &["shape", r],
    ] {
        let run = s.cmd(args).run();
        assert_eq!(invalid_at(&run), "14 (line 1:15)", "{args:?}");
        assert!(
            run.stderr.contains("found when the output was stored"),
            "{}",
            run.stderr
        );
    }
}

#[test]
fn an_ndjson_record_is_a_line_and_an_index_never_shifts() {
    let s = Sandbox::new();
    let doc = "{\"a\":0}\n{\"a\":1}\nnot json here\n{\"a\":3}\n{\"a\":4}\n";
    // Without the flag the stream is invalid NDJSON, for every query that reads that far…
    for q in ["$[3]", "$[5]", "$[*].a", "$"] {
        let r = s.run(&["extract", "-", q], doc);
        assert_eq!(invalid_at(&r), "16 (line 3:1)", "{q}");
        assert!(
            r.stderr.contains("line 3 is not one JSON value"),
            "{}",
            r.stderr
        );
    }
    // …and one that stops before it answers from the lines before.
    let r = s.run(&["extract", "-", "$[1]", "--compact"], doc);
    r.status(0);
    assert_eq!(r.out(), "{\"a\":1}\n");
    // With --skip-invalid the line is skipped and counted: $[2] is line 4's record.
    let skip = |q: &str| s.run(&["extract", "-", q, "--compact", "--skip-invalid"], doc);
    let r = skip("$[2]");
    r.status(0);
    assert_eq!(r.out(), "{\"a\":3}\n");
    assert!(
        r.stderr
            .contains("skipped 1 line that is not exactly one JSON value"),
        "{}",
        r.stderr
    );
    assert_eq!(skip("$[*].a").out(), "[0,1,3,4]\n");
    skip("$[4]").status(1);
    // Two values on one line are not two records, nor is a value spread over lines.
    let r = s.run(
        &["extract", "-", "$[2]"],
        "{\"a\":0}\n{\"a\":1} {\"a\":2}\n{\"a\":3}\n",
    );
    assert_eq!(invalid_at(&r), "16 (line 2:9)");
    let r = s.run(
        &["extract", "-", "$[1]", "--skip-invalid", "--compact"],
        "{\"a\":0}\n{\"a\":1} {\"a\":2}\n{\"a\":3}\n",
    );
    assert_eq!(r.out(), "{\"a\":3}\n");
    let r = s.run(&["extract", "-", "$[*]"], "{\"a\":0}\n{\"a\":\n1}\n");
    assert_eq!(invalid_at(&r), "13 (line 2:6)");
    // shape and search --paths follow the same rule, with the same flag.
    let file = s.file("mixed.ndjson", doc);
    let file = file.to_str().unwrap();
    let r = s.run(&["shape", file], "");
    r.status(0);
    assert_eq!(r.json()["invalidJsonAt"], 16);
    let r = s.run(&["shape", file, "--skip-invalid"], "");
    assert_eq!(
        r.out(),
        "{\"ndjson[4]\":{\"a\":\"integer\"},\"skippedLines\":1}\n"
    );
    let r = s.run(
        &["search", file, "\"a\":3", "--paths", "--skip-invalid"],
        "",
    );
    assert_eq!(r.out(), "4:2:$[2]:{\"a\":3}\n");
}

/// Records are found by one skip that also notes line breaks (a line that is one object or
/// array) and every other line by its end: both keep the line rule, across 64-byte blocks.
#[test]
fn a_record_found_in_one_pass_keeps_the_line_rule() {
    let s = Sandbox::new();
    let long = "x".repeat(70);
    // CRLF, spaces after a record, a scalar record and no line break at the end: all records.
    let doc = format!("{{\"a\":\"{long}\"}}\r\n[1,2]  \n\n7\n{{\"a\":3}}");
    let r = s.run(&["extract", "-", "$[*]", "--compact"], doc.as_str());
    r.status(0);
    assert_eq!(
        r.out(),
        format!("[{{\"a\":\"{long}\"}},[1,2],7,{{\"a\":3}}]\n")
    );
    assert_eq!(
        s.run(&["extract", "-", "$[3].a"], doc.as_str()).out(),
        "3\n"
    );
    // A line break inside a record's string, or between its tokens, past the first block:
    // the record is not one line, and the error names the line it starts on.
    for broken in [
        format!("{{}}\n{{\"a\":\"{long}\nrest\"}}\n{{\"a\":1}}\n"),
        format!("{{}}\n{{\"a\":\"{long}\",\n\"b\":1}}\n{{\"a\":1}}\n"),
    ] {
        let r = s.run(&["extract", "-", "$[2]"], broken.as_str());
        r.status(2);
        assert!(
            r.stderr.contains("line 2 is not one JSON value"),
            "{}",
            r.stderr
        );
    }
    // Two records on a line are still one line that is not one value.
    let r = s.run(
        &["extract", "-", "$[2]"],
        "{\"a\":0}\n{\"a\":1}{\"a\":2}\n{\"a\":3}\n",
    );
    r.status(2);
    assert!(
        r.stderr.contains("line 2 is not one JSON value"),
        "{}",
        r.stderr
    );
}

/// `$..name` and `$[*].a.b` on NDJSON take one-pass walks over the records (BENCHMARKS.md, the
/// validation budget): they keep the line rule, the strict reading of what they pass, and the
/// count of skipped lines, exactly as the evaluator does.
#[test]
fn the_ndjson_fast_paths_keep_the_line_rule() {
    let s = Sandbox::new();
    let good = |n: u32| format!("{{\"ts\":\"t{n}\",\"req\":{{\"id\":\"r{n}\",\"ms\":{n}}}}}");
    let queries = ["$..ms", "$[*].req.ms"];
    // Blank lines, CRLF and spaces around records: every record is read, in line order.
    let doc = format!("{}\r\n\n  {}  \n\n{}", good(1), good(2), good(3));
    for q in queries {
        let r = s.run(&["extract", "-", q, "--compact"], doc.as_str());
        r.status(0);
        assert_eq!(r.out(), "[1,2,3]\n", "{q}");
    }
    let r = s.run(
        &["extract", "-", "$..id", "--nodes", "--compact"],
        doc.as_str(),
    );
    assert_eq!(
        r.out(),
        "[{\"path\":\"$[0]['req']['id']\",\"value\":\"r1\"},\
         {\"path\":\"$[1]['req']['id']\",\"value\":\"r2\"},\
         {\"path\":\"$[2]['req']['id']\",\"value\":\"r3\"}]\n"
    );
    // A line in the middle that is not one value (text, trailing data, two values, a record
    // spread over lines): exit 2 naming that line, nothing printed.
    let spread_at = good(2).find(",\"req\"").unwrap() + 1;
    for (bad, at, skipped) in [
        ("not json here".to_string(), 0, "1 line that is"),
        (
            format!("{} x", good(2)),
            good(2).len() + 1,
            "1 line that is",
        ),
        (
            format!("{}{}", good(2), good(2)),
            good(2).len(),
            "1 line that is",
        ),
        // Both halves of a record spread over two lines are lines that are not one value.
        (
            good(2).replace(",\"req\"", ",\n\"req\""),
            spread_at,
            "2 lines that are",
        ),
    ] {
        let doc = format!("{}\n{bad}\n{}\n", good(1), good(3));
        let line2 = good(1).len() + 1;
        for q in queries {
            let r = s.run(&["extract", "-", q], doc.as_str());
            let col = at + 1;
            assert_eq!(
                invalid_at(&r),
                format!("{} (line 2:{col})", line2 + at),
                "{q} on {doc:?}"
            );
            assert!(
                r.stderr.contains("line 2 is not one JSON value"),
                "{}",
                r.stderr
            );
        }
        // With --skip-invalid the line is skipped and counted, and the indexes stay.
        for q in queries {
            let r = s.run(
                &["extract", "-", q, "--compact", "--skip-invalid"],
                doc.as_str(),
            );
            r.status(0);
            assert_eq!(r.out(), "[1,3]\n", "{q} on {doc:?}");
            assert!(
                r.stderr
                    .contains(&format!("skipped {skipped} not exactly one JSON value")),
                "{}",
                r.stderr
            );
        }
        let r = s.run(
            &[
                "extract",
                "-",
                "$..ms",
                "--nodes",
                "--compact",
                "--skip-invalid",
            ],
            doc.as_str(),
        );
        assert!(
            r.out().contains("\"$[1]['req']['ms']\",\"value\":3"),
            "{}",
            r.out()
        );
    }
    // An invalid scalar that the walks pass over, on a line whose brackets balance: the
    // error is at its byte, whichever walk reads it.
    let bad = "{\"ts\":2024-01-02,\"req\":{\"id\":\"r2\",\"ms\":2}}";
    let doc = format!("{}\n{bad}\n{}\n", good(1), good(3));
    let col = bad.find('-').unwrap() + 1;
    let dash = good(1).len() + col;
    for q in queries {
        let r = s.run(&["extract", "-", q], doc.as_str());
        assert_eq!(invalid_at(&r), format!("{dash} (line 2:{col})"), "{q}");
        assert!(
            r.stderr
                .contains("expected ',' or '}' after an object member"),
            "{}",
            r.stderr
        );
    }
}

#[test]
fn a_large_log_mixed_with_stderr_keeps_every_index() {
    let s = Sandbox::new();
    let mut log = String::new();
    let mut records = 0;
    for line in 0..58_000 {
        if line % 29 == 3 {
            log.push_str("Traceback (most recent call last): worker 7 restarted\n");
        } else if line % 97 == 5 {
            log.push('\n');
        } else {
            log.push_str(&format!("{{\"seq\":{records},\"line\":{}}}\n", line + 1));
            records += 1;
        }
    }
    let file = s.file("mixed.log", &log);
    let file = file.to_str().unwrap();
    let r = s.run(&["extract", file, "$[2000]"], "");
    assert_eq!(invalid_at(&r), "57 (line 4:1)");
    // Every index means the record of the same line, whichever query reads it.
    for i in [0, 1999, 2000, 2001, records - 1] {
        let q = format!("$[{i}].seq");
        let r = s.run(&["extract", file, &q, "--skip-invalid"], "");
        r.status(0);
        assert_eq!(r.out(), format!("{i}\n"), "{q}");
    }
    let r = s.run(&["extract", file, "$[-1].seq", "--skip-invalid"], "");
    assert_eq!(r.out(), format!("{}\n", records - 1));
    let r = s.run(
        &[
            "extract",
            file,
            "$[?@.seq == 2000].line",
            "--skip-invalid",
            "--compact",
        ],
        "",
    );
    let line = r.json()[0].as_u64().unwrap();
    let r = s.run(&["cat", file, "--lines", &format!("{line}:{line}")], "");
    assert!(r.out().starts_with("{\"seq\":2000,"), "{}", r.out());
    assert!(
        r.stderr.is_empty() || r.stderr.contains("lines"),
        "{}",
        r.stderr
    );
}

/// RFC 9535 makes `match()`/`search()` with a pattern that is not valid I-Regexp (RFC 9485)
/// false; extract keeps that and says why in one note on stderr.
#[test]
fn an_invalid_i_regexp_matches_nothing_and_one_note_says_why() {
    let s = Sandbox::new();
    let doc = r#"[{"a":"x"},{"a":"X"},{"a":"("}]"#;
    let note = |r: &crate::common::Run| -> Vec<String> {
        r.stderr
            .lines()
            .filter(|l| l.starts_with("spill: note:"))
            .map(String::from)
            .collect()
    };
    for (query, function, pattern, why) in [
        (
            "$[?match(@.a, '(?i)x')]",
            "match",
            "(?i)x",
            "I-Regexp has no inline flags such as `(?i)` and no other `(?` groups",
        ),
        (
            "$[?search(@.a, '[[:upper:]]')]",
            "search",
            "[[:upper:]]",
            "`[` inside a class must be escaped as `\\[` (I-Regexp has no POSIX classes such as `[:upper:]`: use `\\p{Lu}`)",
        ),
        ("$[?match(@.a, '(')]", "match", "(", "a `(` is never closed"),
        (
            "$[?search(@.a, '\\\\d')]",
            "search",
            "\\d",
            "`\\d` is not an I-Regexp escape (use a class such as `[0-9]` or `\\p{Nd}`)",
        ),
    ] {
        let r = s.run(&["extract", "-", query, "--compact"], doc);
        r.status(1);
        assert_eq!(r.out(), "[]\n", "{query}");
        assert_eq!(
            note(&r),
            vec![format!(
                "spill: note: {function}() pattern '{pattern}' is not valid I-Regexp (RFC 9485): {why}; \
                 the call is false for every value, as RFC 9535 specifies"
            )],
            "{query}"
        );
    }
    // Found through another branch: the nodes are printed, the note still comes (once, for a
    // pattern used twice), after stdout.
    let r = s.run(
        &[
            "extract",
            "-",
            "$[?match(@.a, '(') || @.a == 'X' || !search(@.a, '(')]",
            "--compact",
        ],
        doc,
    );
    r.status(0);
    assert_eq!(
        r.out(),
        r#"[{"a":"x"},{"a":"X"},{"a":"("}]"#.to_string() + "\n"
    );
    assert_eq!(note(&r).len(), 1, "{}", r.stderr);
    assert_eq!(r.stderr.lines().count(), 1, "{}", r.stderr);
    // Two different invalid patterns: one note, counting the other.
    let r = s.run(
        &["extract", "-", "$[?match(@.a, '(') || match(@.a, 'a{')]"],
        doc,
    );
    r.status(1);
    let notes = note(&r);
    assert_eq!(notes.len(), 1, "{}", r.stderr);
    assert!(
        notes[0].ends_with("(1 more pattern of the query is invalid too)"),
        "{}",
        notes[0]
    );
    // Valid patterns, and patterns taken from the document (data, not the query): no note.
    let r = s.run(
        &["extract", "-", "$[?match(@.a, '[xX]')]", "--compact"],
        doc,
    );
    r.status(0);
    assert_eq!(r.stderr, "");
    let r = s.run(
        &["extract", "-", "$[?match(@.a, @.re)]"],
        r#"[{"a":"x","re":"("}]"#,
    );
    r.status(1);
    assert!(note(&r).is_empty(), "{}", r.stderr);
}

/// Documents of the shapes the vector paths see differently: pretty and minified, ids at
/// several depths, long strings with escapes (crossing 16-, 32- and 64-byte blocks) and
/// non-ASCII text, NDJSON records.
fn simd_documents() -> Vec<(&'static str, String)> {
    let mut items = Vec::new();
    for i in 0..300 {
        let long = format!(
            "{}\\\"{}\\\\{}é{}",
            "a".repeat(i % 97),
            "}]".repeat(i % 7),
            "[{".repeat(i % 5),
            "z".repeat(i * 3 % 131)
        );
        items.push(format!(
            r#"{{"id":{i},"name":"{long}","tags":["x","y\\n"],"child":{{"id":"c{i}","deep":[{{"id":{}}}]}}}}"#,
            i * 7
        ));
    }
    let minified = format!(
        r#"{{"items":[{}],"meta":{{"id":"m","n":300}}}}"#,
        items.join(",")
    );
    let value: serde_json::Value = serde_json::from_str(&minified).unwrap();
    let pretty = serde_json::to_string_pretty(&value).unwrap();
    let ndjson = items.join("\n") + "\n";
    vec![
        ("minified", minified),
        ("pretty", pretty),
        ("ndjson", ndjson),
    ]
}

#[test]
fn every_simd_level_gives_the_same_answers() {
    let s = Sandbox::new();
    let levels = ["scalar", "sse2", "avx2", "avx512"];
    for (shape, doc) in simd_documents() {
        let file = s.file(&format!("{shape}.json"), &doc);
        let file = file.to_str().unwrap();
        let mut found = 0;
        for query in [
            "$.meta",
            "$..id",
            "$..*",
            "$.items[*].id",
            "$[*].child.id",
            "$.items[-1].name",
            "$[-1]",
        ] {
            let args = ["extract", file, query, "--unbounded"];
            let want = s.cmd(&args).env("SPILL_SIMD", "scalar").run();
            found += usize::from(want.code == Some(0) && want.stdout.len() > 2);
            for level in levels {
                let got = s.cmd(&args).env("SPILL_SIMD", level).run();
                assert_eq!(
                    got.code, want.code,
                    "{shape} {query} at {level}: {}",
                    got.stderr
                );
                assert!(
                    got.stdout == want.stdout,
                    "{shape} {query}: {level} differs from scalar"
                );
                assert_eq!(got.stderr, want.stderr, "{shape} {query} at {level}");
            }
        }
        // Each shape answers most queries (the rest select nothing there, exit 1).
        assert!(found >= 3, "{shape}: only {found} queries found anything");
        for args in [
            vec!["shape", file],
            vec!["search", "--paths", "--count", "id", file],
        ] {
            let want = s.cmd(&args).env("SPILL_SIMD", "scalar").run();
            for level in levels {
                let got = s.cmd(&args).env("SPILL_SIMD", level).run();
                assert_eq!(got.code, want.code, "{args:?} at {level}");
                assert!(
                    got.stdout == want.stdout,
                    "{args:?}: {level} differs from scalar"
                );
            }
        }
    }
}

#[test]
fn an_unknown_simd_level_is_a_warning_not_an_error() {
    let s = Sandbox::new();
    let file = s.file("d.json", r#"{"a":[1,2],"b":"x"}"#);
    let run = s
        .cmd(&["extract", file.to_str().unwrap(), "$.b"])
        .env("SPILL_SIMD", "neon512")
        .run();
    run.status(0);
    assert_eq!(run.out(), "\"x\"\n");
    assert!(
        run.stderr.contains("SPILL_SIMD: unknown level") && run.stderr.contains("neon512"),
        "{}",
        run.stderr
    );
}
