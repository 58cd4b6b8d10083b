//! Property tests: normalized paths round-trip through the parser, and the fuzz invariants
//! hold on generated queries (valid by construction and near-valid noise) and on the CTS.

use proptest::prelude::*;

use super::tree::{OValue, ovalue};
use crate::json::path::{NormPath, PathElem, Query, Step, fuzz_query};

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
        fuzz_query(text.as_bytes());
    }

    #[test]
    fn noise_never_panics(text in "[$@.\\[\\]()?*:,'\"\\\\ \\t0-9a-z=!<>&|-]{0,40}") {
        fuzz_query(text.as_bytes());
    }

    #[test]
    fn arbitrary_bytes_never_panic(data in proptest::collection::vec(any::<u8>(), 0..64)) {
        fuzz_query(&data);
    }
}

/// The fuzz target's checks over every CTS selector and some truncations of it.
#[test]
fn fuzz_invariants_hold_on_the_cts_selectors() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shared/data/jsonpath-cts/cts.json"
    );
    let suite = ovalue(&std::fs::read_to_string(path).expect("CTS present"));
    let cases = suite
        .get("tests")
        .and_then(OValue::as_array)
        .expect("tests");
    for case in cases {
        let sel = case
            .get("selector")
            .and_then(OValue::as_str)
            .expect("selector");
        fuzz_query(sel.as_bytes());
        for (i, _) in sel.char_indices().skip(1) {
            fuzz_query(&sel.as_bytes()[..i]);
        }
    }
}
