//! Property tests: normalized paths round-trip through the parser, and the fuzz invariants
//! hold on generated queries (valid by construction and near-valid noise) and on the CTS.

use proptest::prelude::*;

use super::tree::OValue;
use crate::fuzzing::jsonpath_parse;
use crate::json::path::{NormPath, PathElem, Query, Step};

fn elem() -> impl Strategy<Value = PathElem<'static>> {
    prop_oneof![
        any::<String>().prop_map(|s| PathElem::Name(s.into())),
        "[a-z_][a-z0-9_]{0,6}".prop_map(|s| PathElem::Name(s.into())),
        "[\\x00-\\x1f'\"\\\\ a]{0,4}".prop_map(|s| PathElem::Name(s.into())),
        (0usize..=(1 << 53) - 1).prop_map(PathElem::Index),
    ]
}

fn steps(path: &NormPath) -> Vec<Step> {
    path.elems()
        .iter()
        .map(|e| match e {
            PathElem::Name(n) => Step::Name(n.to_string()),
            PathElem::Index(i) => Step::Index(*i as i64),
        })
        .collect()
}

/// Fragments that each keep a query valid when appended.
const SEGMENTS: &[&str] = &[
    ".a",
    ".b",
    "['a']",
    "[\"c d\"]",
    "[0]",
    "[-1]",
    "[*]",
    ".*",
    "..a",
    "..*",
    "..[0]",
    "[1:]",
    "[::-1]",
    "[0,'a',1:2]",
    "[?@.b]",
    "[?@ == 1]",
    "[?@.a > 'x' || !@.b]",
    "[?length(@) >= 2]",
    "[?count(@.*) == 1]",
    "[?match(@, 'a.*')]",
    "[?search(@.a, '[xy]')]",
    "[?value(@..b) == 'x']",
    "[?@ == $.a[0]]",
    "[?(@.a && (@.b || @[0]))]",
    " [0]",
];

proptest! {
    #[test]
    fn normalized_paths_reparse_to_the_same_singular_query(
        elems in proptest::collection::vec(elem(), 0..8)
    ) {
        let path = NormPath::from_elems(elems);
        for text in [path.to_normalized(), path.to_dot()] {
            let q = Query::parse(&text).map_err(|e| TestCaseError::fail(e.render()))?;
            prop_assert!(q.is_singular());
            prop_assert_eq!(q.singular_steps(), Some(steps(&path)), "{}", text);
        }
    }

    #[test]
    fn generated_queries_parse_and_evaluate(
        picks in proptest::collection::vec(0..SEGMENTS.len(), 0..6)
    ) {
        let text: String = std::iter::once("$")
            .chain(picks.iter().map(|&i| SEGMENTS[i]))
            .collect();
        prop_assert!(Query::parse(&text).is_ok(), "{}", text);
        jsonpath_parse(text.as_bytes());
    }

    #[test]
    fn noise_never_panics(text in "[$@.\\[\\]()?*:,'\"\\\\ \\t0-9a-z=!<>&|-]{0,40}") {
        jsonpath_parse(text.as_bytes());
    }

    #[test]
    fn arbitrary_bytes_never_panic(data in proptest::collection::vec(any::<u8>(), 0..64)) {
        jsonpath_parse(&data);
    }
}

/// The fuzz target's checks over every CTS selector and some truncations of it.
#[test]
fn fuzz_invariants_hold_on_the_cts_selectors() {
    let suite = super::cts::load_suite();
    let cases = suite
        .get("tests")
        .and_then(OValue::as_array)
        .expect("tests");
    for case in cases {
        let sel = case
            .get("selector")
            .and_then(OValue::as_str)
            .expect("selector");
        jsonpath_parse(sel.as_bytes());
        for (i, _) in sel.char_indices().skip(1) {
            jsonpath_parse(&sel.as_bytes()[..i]);
        }
    }
}

/// RFC 9535 §2.3.4.2.2, written out literally as the oracle for the streaming slice code.
fn slice_oracle(len: i64, start: Option<i64>, end: Option<i64>, step: Option<i64>) -> Vec<i64> {
    let step = step.unwrap_or(1);
    if step == 0 {
        return vec![];
    }
    let norm = |i: i64| if i >= 0 { i } else { len + i };
    let (start, end) = if step > 0 {
        (start.unwrap_or(0), end.unwrap_or(len))
    } else {
        (start.unwrap_or(len - 1), end.unwrap_or(-len - 1))
    };
    let (ns, ne) = (norm(start), norm(end));
    let mut out = vec![];
    if step > 0 {
        let (lower, upper) = (ns.max(0).min(len), ne.max(0).min(len));
        let mut i = lower;
        while i < upper {
            out.push(i);
            i += step;
        }
    } else {
        let (upper, lower) = (ns.max(-1).min(len - 1), ne.max(-1).min(len - 1));
        let mut i = upper;
        while lower < i {
            out.push(i);
            i += step;
        }
    }
    out
}

proptest! {
    #[test]
    fn slices_match_the_rfc_formula(
        len in 0i64..12,
        start in proptest::option::of(-15i64..15),
        end in proptest::option::of(-15i64..15),
        step in proptest::option::of(-4i64..5),
    ) {
        let items: Vec<String> = (0..len).map(|i| i.to_string()).collect();
        let doc = super::tree::Tree::parse(&format!("[{}]", items.join(",")));
        let show = |o: Option<i64>| o.map_or(String::new(), |v| v.to_string());
        let q = format!(
            "$[{}:{}{}]",
            show(start),
            show(end),
            step.map_or(String::new(), |s| format!(":{s}"))
        );
        let query = Query::parse(&q).map_err(|e| TestCaseError::fail(e.render()))?;
        let mut got = Vec::new();
        let _ = query.select(&doc, 0, |p, _| {
            if let Some(PathElem::Index(i)) = p.elems().last() {
                got.push(*i as i64);
            }
            std::ops::ControlFlow::Continue(())
        });
        prop_assert_eq!(got, slice_oracle(len, start, end, step), "{}", q);
    }
}
