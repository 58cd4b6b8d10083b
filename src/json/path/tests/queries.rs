//! Parser errors and carets, the convenience syntax, evaluation order and laziness, exact
//! numbers, depth, and no-match explanations.

use std::ops::ControlFlow;

use super::tree::{OValue, TNode, Tree, ovalue, select};
use crate::json::path::{NormPath, PathElem, Query, explain_no_match};

fn err(q: &str) -> (usize, String) {
    let e = Query::parse_lenient(q).expect_err(q);
    (e.offset, e.message)
}

/// The normalized paths a query selects (values are not built: some test trees are deep).
fn paths(doc: &Tree, q: &str) -> Vec<String> {
    let q = Query::parse_lenient(q).expect("query parses");
    let mut out = Vec::new();
    let _ = q.select(doc, 0, |p, _| {
        out.push(p.to_normalized());
        ControlFlow::Continue(())
    });
    out
}

#[test]
fn errors_point_at_the_offending_character() {
    assert_eq!(err("$[01]").0, 2);
    assert_eq!(err("$[-0]").0, 2);
    assert_eq!(err("$[9007199254740992]").0, 2);
    assert!(Query::parse("$[9007199254740991]").is_ok());
    assert!(Query::parse("$[-9007199254740991]").is_ok());
    assert_eq!(err("$.a b").0, 4);
    assert_eq!(err("$ ").0, 1);
    assert_eq!(err("$['a\\x']").0, 4);
    assert_eq!(err("$['\\uDC00']").0, 3);
    assert_eq!(err("$['a").0, 2);
    assert_eq!(err("$[?count(1)]").0, 9);
    assert_eq!(err("$[?match(@.a, 'x') == true]").0, 3);
    assert_eq!(err("$[?length(@.a)]").0, 3);
    assert_eq!(err("$[?@.* == 1]").0, 3);
    assert_eq!(err("$[?@.a = 1]").0, 7);
    assert_eq!(err("$[?foo(@)]").0, 3);
    assert_eq!(err("$[?1]").0, 3);
    assert!(err("$[?foo(@)]").1.contains("unknown function 'foo'"));
}

#[test]
fn snippet_has_the_query_and_a_caret() {
    let e = Query::parse_lenient("items[01]").unwrap_err();
    assert_eq!(e.offset, 6);
    assert_eq!(
        e.render(),
        "integers must not have leading zeros\n  items[01]\n        ^"
    );
    // Control characters are escaped and the caret follows the escaped text.
    let e = Query::parse("$\t.a b").unwrap_err();
    assert!(
        e.render().ends_with("\n  $\\t.a b\n        ^"),
        "{}",
        e.render()
    );
    // An error at the end points just past the text.
    let e = Query::parse("$[").unwrap_err();
    assert!(e.render().ends_with("\n  $[\n    ^"));
    // The CLI's error type carries the same facts.
    let err: crate::Error = Query::parse("$.a b").unwrap_err().into();
    assert!(matches!(err, crate::Error::Query { offset: 4, .. }));
}

#[test]
fn convenience_prefixes() {
    let doc = Tree::parse(r#"{"items":[{"id":1},{"id":2}],"☺":3}"#);
    assert_eq!(paths(&doc, "items[0]"), ["$['items'][0]"]);
    assert_eq!(paths(&doc, ".items[1].id"), ["$['items'][1]['id']"]);
    assert_eq!(paths(&doc, "['items'][-1]"), ["$['items'][1]"]);
    assert_eq!(paths(&doc, "☺"), ["$['☺']"]);
    assert_eq!(paths(&doc, "$.items[*].id").len(), 2);
    assert!(Query::parse_lenient(" $").is_err());
    assert!(Query::parse_lenient("0").is_err());
    assert!(Query::parse("items").is_err());
    assert_eq!(
        Query::parse_lenient("items").unwrap().canonical_text(),
        "$.items"
    );
    assert_eq!(
        Query::parse_lenient("[0]").unwrap().canonical_text(),
        "$[0]"
    );
}

#[test]
fn singularity() {
    for (q, s) in [
        ("$", true),
        ("$.a[0]['b'][-1]", true),
        ("$.a[*]", false),
        ("$..a", false),
        ("$[0,1]", false),
        ("$[0:1]", false),
        ("$[?@]", false),
    ] {
        assert_eq!(Query::parse(q).unwrap().is_singular(), s, "{q}");
    }
}

#[test]
fn slices_and_negative_indexes() {
    let doc = Tree::parse("[0,1,2,3,4,5,6,7,8,9]");
    let vals = |q: &str| -> Vec<String> {
        select(&doc, q)
            .into_iter()
            .map(|(_, v)| match v {
                OValue::Num(n) => n,
                _ => unreachable!(),
            })
            .collect()
    };
    assert_eq!(
        vals("$[::-1]"),
        ["9", "8", "7", "6", "5", "4", "3", "2", "1", "0"]
    );
    assert_eq!(vals("$[-2:]"), ["8", "9"]);
    assert_eq!(vals("$[-20:]").len(), 10);
    assert_eq!(vals("$[-5:-2]"), ["5", "6", "7"]);
    assert_eq!(vals("$[-5:7:2]"), ["5"]);
    assert_eq!(vals("$[-5:1]"), Vec::<String>::new());
    assert_eq!(vals("$[-3::2]"), ["7", "9"]);
    assert_eq!(vals("$[5:1:-2]"), ["5", "3"]);
    assert_eq!(vals("$[1:8:3]"), ["1", "4", "7"]);
    assert_eq!(vals("$[-1]"), ["9"]);
    assert_eq!(vals("$[-10]"), ["0"]);
    assert!(vals("$[-11]").is_empty());
    assert!(vals("$[10]").is_empty());
    assert!(vals("$[::0]").is_empty());
    assert_eq!(
        vals("$[-9007199254740991:9007199254740991:9007199254740991]"),
        ["0"]
    );
    // Far from the end: counted, then sought (no huge ring buffer).
    let big = Tree::parse(&format!(
        "[{}]",
        (0..6000)
            .map(|i| i.to_string())
            .collect::<Vec<_>>()
            .join(",")
    ));
    assert_eq!(paths(&big, "$[-5000]"), ["$[1000]"]);
}

#[test]
fn evaluation_stops_early() {
    let items: Vec<String> = (0..1000).map(|i| format!("{{\"id\":{i}}}")).collect();
    let doc = Tree::parse(&format!("{{\"items\":[{}],\"meta\":1}}", items.join(",")));
    assert_eq!(paths(&doc, "$.items[5].id"), ["$['items'][5]['id']"]);
    assert!(doc.visits.get() < 10, "visited {}", doc.visits.get());

    doc.visits.set(0);
    let q = Query::parse("$.items[*].id").unwrap();
    let mut n = 0;
    let flow = q
        .select(&doc, 0, |_, _| {
            n += 1;
            if n == 3 {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        })
        .unwrap();
    assert!(flow.is_break());
    assert!(doc.visits.get() < 10, "visited {}", doc.visits.get());

    // The last element in one pass.
    doc.visits.set(0);
    assert_eq!(paths(&doc, "$.items[-1].id"), ["$['items'][999]['id']"]);
    assert!(doc.visits.get() < 1010, "visited {}", doc.visits.get());
    doc.visits.set(0);
    assert_eq!(paths(&doc, "$.items[-2:].id").len(), 2);
    assert!(
        doc.visits.get() < 1010,
        "one pass, visited {}",
        doc.visits.get()
    );
}

#[test]
fn exact_number_comparison() {
    // Built by hand: these numbers do not survive a trip through f64.
    let nums = [
        "12345678901234567890123",
        "12345678901234567890124",
        "1e400",
        "-0.0",
        "1.50e-10",
    ];
    let mut tree = Tree::default();
    tree.nodes.push(TNode::Arr((1..=nums.len()).collect()));
    for n in nums {
        tree.nodes.push(TNode::Num(n.to_string()));
    }
    assert_eq!(paths(&tree, "$[?@ == 12345678901234567890124]"), ["$[1]"]);
    assert_eq!(paths(&tree, "$[?@ > 1e399]"), ["$[2]"]);
    assert_eq!(paths(&tree, "$[?@ == 0]"), ["$[3]"]);
    assert_eq!(paths(&tree, "$[?@ == 0.00000000015]"), ["$[4]"]);
    assert_eq!(paths(&tree, "$[?@ < 1]"), ["$[3]", "$[4]"]);
}

#[test]
fn functions_and_regexes() {
    let doc = Tree::parse(r#"[{"a":"abc","t":[1,2]},{"a":"a\nc","t":[]},{"a":"ÀÉ","t":{"x":1}}]"#);
    assert_eq!(paths(&doc, "$[?match(@.a, 'a.c')]"), ["$[0]"]);
    assert_eq!(paths(&doc, "$[?search(@.a, 'b')]"), ["$[0]"]);
    assert_eq!(paths(&doc, r"$[?match(@.a, '\\p{Lu}+')]"), ["$[2]"]);
    assert!(paths(&doc, "$[?match(@.a, '(')]").is_empty());
    assert!(paths(&doc, "$[?match(@.a, '\\\\d')]").is_empty());
    assert_eq!(paths(&doc, "$[?length(@.a) == 2]"), ["$[2]"]);
    assert_eq!(paths(&doc, "$[?length(@.t) == 1]"), ["$[2]"]);
    assert_eq!(paths(&doc, "$[?count(@.t[*]) == 2]"), ["$[0]"]);
    assert_eq!(paths(&doc, "$[?value(@.t[0]) == 1]"), ["$[0]"]);
    assert_eq!(paths(&doc, "$[?!@.t[0]]"), ["$[1]", "$[2]"]);
    assert_eq!(paths(&doc, "$[?@.t == $[2].t]"), ["$[2]"]);
}

#[test]
fn normalized_and_dot_paths_escape() {
    let p = NormPath::from_elems(vec![
        PathElem::Name("items".into()),
        PathElem::Index(3),
        PathElem::Name("a b".into()),
        PathElem::Name("it's\\\u{1}\n".into()),
        PathElem::Name("☺_1".into()),
    ]);
    assert_eq!(
        p.to_normalized(),
        r"$['items'][3]['a b']['it\'s\\\u0001\n']['☺_1']"
    );
    assert_eq!(p.to_dot(), r"$.items[3]['a b']['it\'s\\\u0001\n'].☺_1");
    assert_eq!(
        paths(&Tree::parse(r#"{"😀":1}"#), r"$['\uD83D\uDE00']"),
        [r"$['😀']"]
    );
}

#[test]
fn deep_documents_do_not_exhaust_the_stack() {
    // [[[[…]]]] one million levels deep, plus a scalar at the bottom.
    const DEPTH: usize = 1_000_000;
    let mut tree = Tree::default();
    for i in 0..DEPTH {
        tree.nodes.push(TNode::Arr(vec![i + 1]));
    }
    tree.nodes.push(TNode::Str("bottom".into()));
    let q = Query::parse("$..[0]").unwrap();
    let mut count = 0usize;
    let mut deepest = 0;
    let _ = q.select(&tree, 0, |p, _| {
        count += 1;
        deepest = deepest.max(p.len());
        ControlFlow::Continue(())
    });
    assert_eq!(count, DEPTH);
    assert_eq!(deepest, DEPTH);

    // Deep equality of two deep values.
    let mut two = Tree::default();
    two.nodes.push(TNode::Arr(vec![1, 2 + DEPTH / 10]));
    for start in [1, 2 + DEPTH / 10] {
        for i in 0..DEPTH / 10 {
            two.nodes.push(TNode::Arr(vec![start + i + 1]));
        }
        two.nodes.push(TNode::Null);
        assert_eq!(two.nodes.len(), start + DEPTH / 10 + 1);
    }
    assert_eq!(paths(&two, "$[?@ == $[0]]"), ["$[0]", "$[1]"]);

    // A singular query of any length runs as a loop.
    let long = format!("${}", "[0]".repeat(DEPTH));
    let q = Query::parse(&long).unwrap();
    let mut found = None;
    let _ = q.select(&tree, 0, |_, n| {
        found = Some(n);
        ControlFlow::Break(())
    });
    assert_eq!(found, Some(DEPTH));
}

#[test]
fn query_nesting_and_length_are_bounded() {
    let deep = format!("$[?{}@{}]", "(".repeat(40), ")".repeat(40));
    assert!(err(&deep).1.contains("nested too deeply"));
    let nested = format!("${}", "[?@".repeat(40) + &"]".repeat(40));
    assert!(err(&nested).1.contains("nested too deeply"));
    let long = format!("$[*]{}", ".a".repeat(300));
    assert!(err(&long).1.contains("more than 256 segments"));
    assert!(Query::parse(&format!("$[?{}@{}]", "(".repeat(20), ")".repeat(20))).is_ok());
}

#[test]
fn explanations_name_the_deepest_resolved_prefix() {
    let items: Vec<String> = (0..1250)
        .map(|i| format!("{{\"id\":{i},\"name\":\"n\"}}"))
        .collect();
    let doc = Tree::parse(&format!(
        "{{\"items\":[{}],\"meta\":{{\"a b\":[]}}}}",
        items.join(",")
    ));
    let explain = |q: &str| {
        let q = Query::parse_lenient(q).unwrap();
        explain_no_match(&q, &doc, 0).unwrap()
    };
    assert_eq!(
        explain("$.itmes[0]"),
        r#"no key "itmes" in $ (an object with keys: items, meta) — did you mean "items"?"#
    );
    assert_eq!(
        explain("$.items[1250]"),
        "index 1250 out of range for $.items (length 1250)"
    );
    assert_eq!(
        explain("items[-1251]"),
        "index -1251 out of range for $.items (length 1250)"
    );
    assert_eq!(
        explain("$.meta[0]"),
        r#"no index 0 in $.meta (an object with keys: "a b", not an array)"#
    );
    assert_eq!(
        explain("$.meta['a b'].x"),
        r#"no key "x" in $.meta['a b'] (an array of length 0, not an object)"#
    );
    assert_eq!(
        explain("$.items[*].nmae"),
        r#"no key "nmae" in any of the 1,000+ nodes selected by $.items[*] — did you mean "name"?"#
    );
    assert_eq!(
        explain("$.items[?@.id > 5000]"),
        "nothing matched [?@.id > 5000] in $.items (an array of length 1250)"
    );
    let small = Tree::parse(r#"{"a":[{"b":1}]}"#);
    let q = Query::parse("$.a[*].c").unwrap();
    assert_eq!(
        explain_no_match(&q, &small, 0).unwrap(),
        r#"no key "c" in any of the 1 node selected by $.a[*]"#
    );
}

#[test]
fn value_helpers_roundtrip() {
    assert_eq!(ovalue(r#"{"b":1,"a":2}"#), ovalue(r#"{"a":2,"b":1.0}"#));
    assert_ne!(ovalue(r#"{"b":1,"a":2}"#), ovalue(r#"{"a":2,"b":1.5}"#));
    let text = r#"{"b":[1,2.5,"x\n\"",null,true,{}],"a":{"":false}}"#;
    assert_eq!(ovalue(text).to_json(), text);
}

/// A tree whose node `bad` cannot be read: its kind, and any iterator reaching it, fail.
struct Faulty<'t> {
    tree: &'t Tree,
    bad: usize,
}

type FaultyMembers<'a> =
    Box<dyn Iterator<Item = Result<(std::borrow::Cow<'a, str>, usize), String>> + 'a>;
type FaultyElements<'a> = Box<dyn Iterator<Item = Result<usize, String>> + 'a>;

impl crate::json::path::Doc for Faulty<'_> {
    type Node = usize;
    type Error = String;
    type Members<'a>
        = FaultyMembers<'a>
    where
        Self: 'a;
    type Elements<'a>
        = FaultyElements<'a>
    where
        Self: 'a;

    fn kind(&self, n: usize) -> Result<crate::json::path::Kind, String> {
        if n == self.bad {
            return Err(format!("bad node {n}"));
        }
        Ok(self.tree.kind(n).unwrap_or_else(|e| match e {}))
    }
    fn members(&self, n: usize) -> FaultyMembers<'_> {
        let bad = self.bad;
        Box::new(self.tree.members(n).map(move |m| {
            let (k, v) = m.unwrap_or_else(|e| match e {});
            if v == bad {
                Err(format!("bad member {k}"))
            } else {
                Ok((k, v))
            }
        }))
    }
    fn elements(&self, n: usize) -> FaultyElements<'_> {
        let bad = self.bad;
        Box::new(self.tree.elements(n).map(move |e| {
            let v = e.unwrap_or_else(|e| match e {});
            if v == bad {
                Err(format!("bad element {v}"))
            } else {
                Ok(v)
            }
        }))
    }
    fn string(&self, n: usize) -> Result<std::borrow::Cow<'_, str>, String> {
        Ok(self.tree.string(n).unwrap_or_else(|e| match e {}))
    }
    fn number(&self, n: usize) -> Result<std::borrow::Cow<'_, str>, String> {
        Ok(self.tree.number(n).unwrap_or_else(|e| match e {}))
    }
    fn boolean(&self, n: usize) -> Result<bool, String> {
        Ok(self.tree.boolean(n).unwrap_or_else(|e| match e {}))
    }
}

#[test]
fn document_errors_end_the_evaluation() {
    // Node ids: 0 root, 1 [..], 2 {"a":1}, 3 1, 4 {"a":2}, 5 2, 6 "z"
    let tree = Tree::parse(r#"{"x":[{"a":1},{"a":2}],"y":"z"}"#);
    let run = |q: &str, bad: usize| {
        let doc = Faulty { tree: &tree, bad };
        let q = Query::parse(q).unwrap();
        let mut n = 0;
        q.select(&doc, 0, |_, _| {
            n += 1;
            ControlFlow::Continue(())
        })
        .map(|_| n)
    };
    assert_eq!(run("$.x[*].a", 6), Ok(2));
    assert!(run("$.x[*].a", 4).is_err());
    assert!(run("$..a", 5).is_err());
    assert!(run("$.x[?@.a == 2]", 5).is_err());
    assert!(run("$[?@ == $.x]", 2).is_err());
    assert!(run("$.x[-1]", 4).is_err());
    // Evaluation that stops before the bad node never sees it.
    assert_eq!(run("$.x[0]", 4), Ok(1));
    let doc = Faulty {
        tree: &tree,
        bad: 5,
    };
    let q = Query::parse("$.x[0].b").unwrap();
    assert!(explain_no_match(&q, &doc, 0).is_ok());
    let q = Query::parse("$.x[1].b").unwrap();
    assert!(explain_no_match(&q, &doc, 0).is_err());
}

#[test]
fn the_largest_accepted_queries_evaluate_within_a_small_stack() {
    // Run on a thread with half the default test stack (2 MiB), debug build.
    let handle = std::thread::Builder::new()
        .stack_size(1 << 20)
        .spawn(|| {
            let mut nested = String::from("$");
            for _ in 0..15 {
                nested.push_str("[?@[*]");
            }
            nested.push_str(&"]".repeat(15));
            let filters = Query::parse(&nested).expect("15 nested filters parse");
            let segments =
                Query::parse(&format!("$..*{}", "[*]".repeat(255))).expect("256 segments");
            let mut doc = Tree::default();
            for i in 0..300 {
                doc.nodes.push(TNode::Arr(vec![i + 1]));
            }
            doc.nodes.push(TNode::Arr(vec![]));
            let mut n = 0usize;
            let _ = filters.select(&doc, 0, |_, _| {
                n += 1;
                ControlFlow::Continue(())
            });
            let _ = segments.select(&doc, 0, |_, _| {
                n += 1;
                if n > 10_000 {
                    ControlFlow::Break(())
                } else {
                    ControlFlow::Continue(())
                }
            });
            n
        })
        .unwrap();
    assert!(handle.join().unwrap() > 0);
}
