//! Unit and property tests of the search library against the `regex` crate as oracle.

use super::*;
use proptest::prelude::*;

fn pattern(p: &str) -> Pattern {
    Pattern::new(&PatternOptions {
        patterns: vec![p.to_string()],
        ..Default::default()
    })
    .unwrap()
}

fn page(offset: u64, limit: u64, context: usize) -> Page {
    Page {
        offset,
        limit,
        before_context: context,
        after_context: context,
        max_columns: 300,
        max_bytes: 0,
    }
}

/// Byte offsets of every occurrence, per line, as the regex crate finds them.
fn oracle(haystack: &[u8], pat: &str) -> Vec<u64> {
    let re = regex::bytes::Regex::new(&format!("(?m){pat}")).unwrap();
    let mut offsets = Vec::new();
    let mut start = 0;
    while start < haystack.len() {
        let end = haystack[start..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(haystack.len(), |i| start + i);
        offsets.extend(
            re.find_iter(&haystack[start..end])
                .map(|m| (start + m.start()) as u64),
        );
        start = end + 1;
    }
    offsets
}

fn temp_file(bytes: &[u8]) -> File {
    let mut file = tempfile::tempfile().unwrap();
    std::io::Write::write_all(&mut file, bytes).unwrap();
    file
}

/// Every way of reading a source gives the same page.
fn all_paths(haystack: &[u8], pat: &Pattern, page: &Page) -> SearchResult {
    let slice = search_slice(haystack, pat, page).unwrap();
    assert_eq!(
        search_reader(haystack, pat, page).unwrap(),
        slice,
        "reader vs slice"
    );
    assert_eq!(
        search_file(&temp_file(haystack), pat, page).unwrap(),
        slice,
        "file vs slice"
    );
    assert_eq!(count_slice(haystack, pat).unwrap(), slice.total_matches);
    assert_eq!(count_reader(haystack, pat).unwrap(), slice.total_matches);
    assert_eq!(
        count_file(&temp_file(haystack), pat).unwrap(),
        slice.total_matches
    );
    slice
}

#[test]
fn every_occurrence_on_a_line_counts() {
    let line = "{\"id\":1},".repeat(300);
    let r = all_paths(line.as_bytes(), &pattern("id"), &page(0, 20, 0));
    assert_eq!(r.total_matches, 300);
    assert_eq!(r.matches.len(), 20);
    assert_eq!(r.matches[1].column, 12);
    assert_eq!(r.matches[1].byte_offset, 11);
    assert_eq!(r.next_offset(), Some(20));
}

#[test]
fn pages_past_the_end_are_empty_but_counted() {
    let r = all_paths(b"a\nb\na\n", &pattern("a"), &page(5, 20, 1));
    assert_eq!(
        (
            r.matches.len(),
            r.total_matches,
            r.has_more(),
            r.next_offset()
        ),
        (0, 2, false, None)
    );
}

#[test]
fn context_lines_come_with_each_match() {
    let text = b"one\ntwo\nthree match\nfour\nfive\nsix match\nseven\n";
    let r = all_paths(text, &pattern("match"), &page(0, 20, 2));
    let lines = |c: &[ContextLine]| {
        c.iter()
            .map(|c| (c.line, c.window.bytes.clone()))
            .collect::<Vec<_>>()
    };
    assert_eq!(
        lines(&r.matches[0].before),
        vec![(1, b"one".to_vec()), (2, b"two".to_vec())]
    );
    assert_eq!(
        lines(&r.matches[0].after),
        vec![(4, b"four".to_vec()), (5, b"five".to_vec())]
    );
    assert_eq!(
        lines(&r.matches[1].before),
        vec![(4, b"four".to_vec()), (5, b"five".to_vec())]
    );
    assert_eq!(lines(&r.matches[1].after), vec![(7, b"seven".to_vec())]);
}

#[test]
fn a_skipped_match_line_is_context_of_the_next() {
    let r = all_paths(b"x a\ny a\nz\n", &pattern("a"), &page(1, 1, 1));
    let m = &r.matches[0];
    assert_eq!((m.line, m.before[0].line, m.after[0].line), (2, 1, 3));
    assert_eq!(m.before[0].window.bytes, b"x a");
}

#[test]
fn the_page_stops_after_its_context_and_the_rest_is_counted() {
    let text = "hit\nfiller\n".repeat(10_000);
    let r = all_paths(text.as_bytes(), &pattern("hit"), &page(3, 2, 3));
    assert_eq!(r.total_matches, 10_000);
    assert_eq!(
        r.matches.iter().map(|m| m.line).collect::<Vec<_>>(),
        vec![7, 9]
    );
    assert_eq!(
        r.matches[1]
            .after
            .iter()
            .map(|c| c.line)
            .collect::<Vec<_>>(),
        vec![10, 11, 12]
    );
}

#[test]
fn binary_data_is_searched_past_nul_bytes() {
    let mut data = vec![0u8; 100_000];
    data.extend_from_slice(b"needle\x00\xff needle");
    let r = all_paths(&data, &pattern("needle"), &page(0, 20, 0));
    assert_eq!(r.total_matches, 2);
    assert_eq!(r.matches[1].byte_offset, 100_000 + 9);
}

#[test]
fn a_line_longer_than_the_heap_limit_falls_back_to_the_map() {
    // The first 64 KiB hold line breaks, so the file starts out streamed.
    let mut data = b"short line\n".repeat(10);
    data.extend(std::iter::repeat_n(b'x', HEAP_LIMIT + 1024));
    data.extend_from_slice(b"needle\n");
    let file = temp_file(&data);
    let p = pattern("needle");
    assert_eq!(count_file(&file, &p).unwrap(), 1);
    let r = search_file(&file, &p, &page(0, 20, 1)).unwrap();
    assert_eq!(r.matches[0].line, 11);
    assert!(r.matches[0].window.bytes.len() <= 300 && r.matches[0].window.cut_start);
}

#[test]
fn empty_sources_have_no_matches() {
    let r = all_paths(b"", &pattern("a"), &page(0, 20, 2));
    assert_eq!(r.total_matches, 0);
}

const PATTERNS: &[&str] = &[
    "a", "ab", "a+", "b*", "^a", "a$", "[ab]c", r"\w+", "é", r"a\x00", "(?i)A", r"\bab\b", "c|ba",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn counts_and_pages_agree_with_the_regex_crate(
        input in proptest::collection::vec(prop_oneof![
            Just(b'a'), Just(b'b'), Just(b'c'), Just(b'\n'), Just(b' '), Just(0u8), Just(0xc3), Just(0xa9)
        ], 0..300),
        which in 0..PATTERNS.len(),
        limit in 1u64..6,
        context in 0usize..3,
    ) {
        let pat = PATTERNS[which];
        let expected = oracle(&input, pat);
        let p = pattern(pat);
        prop_assert_eq!(count_slice(&input, &p).unwrap(), expected.len() as u64);
        // Concatenated pages are every occurrence, in order.
        let mut got = Vec::new();
        let mut offset = 0;
        loop {
            let r = all_paths(&input, &p, &page(offset, limit, context));
            prop_assert_eq!(r.total_matches, expected.len() as u64);
            got.extend(r.matches.iter().map(|m| m.byte_offset));
            match r.next_offset() {
                // A page that returns nothing while promising more would loop forever.
                Some(next) if next > offset => offset = next,
                Some(next) => prop_assert!(false, "no progress at offset {}", next),
                None => break,
            }
        }
        prop_assert_eq!(got, expected);
    }
}

/// Found by the search_windows fuzz target: a leading `FE FF` made grep-searcher decode the
/// source as UTF-16, so windows held U+FFFD bytes that are not in the source.
#[test]
fn byte_order_marks_are_searched_as_raw_bytes() {
    for (hay, at) in [
        (&b"\xfe\xff|a|"[..], 3u64),
        (b"\xff\xfea\x00", 2),
        (b"\xef\xbb\xbfa", 3),
    ] {
        let r = all_paths(hay, &pattern("a"), &page(0, 5, 0));
        assert_eq!(r.total_matches, 1, "{hay:?}");
        let m = &r.matches[0];
        assert_eq!(m.byte_offset, at, "{hay:?}");
        assert_eq!(
            &hay[m.window.start..m.window.start + m.window.bytes.len()],
            &m.window.bytes[..]
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// The chunked check-and-count of a large source answers what the whole-source check and
    /// count answer, wherever the chunk ends, the escape, the lone `\r` or a `\r\n` fall, and
    /// also when a line runs past four chunks.
    #[test]
    fn the_chunked_check_and_count_agrees_with_the_whole(
        input in proptest::collection::vec(prop_oneof![
            8 => Just(b'a'), 4 => Just(b'b'), 4 => Just(b'\n'), 2 => Just(b' '),
            1 => Just(b'\r'), 1 => Just(0x1b), 1 => Just(0u8)
        ], 0..400),
        crlf in proptest::bool::ANY,
        which in 0..PATTERNS.len(),
        chunk in 1usize..40,
    ) {
        let input = if crlf {
            // Mostly clean: every lone `\r` becomes part of a `\r\n`.
            let mut out = Vec::new();
            for &b in &input {
                if b == b'\r' { out.extend_from_slice(b"\r\n") } else if b != 0x1b { out.push(b) }
            }
            out
        } else {
            input
        };
        let p = pattern(PATTERNS[which]);
        let whole = (!crate::text::clean::needs_cleaning(&input))
            .then(|| count_slice(&input, &p).unwrap());
        prop_assert_eq!(count_checked(&input, &p, chunk).unwrap(), whole);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    /// The paced page search (the chunks before the page probed, the page searched from the
    /// chunk that holds its first occurrence, backed up over its before-context) returns the
    /// page the whole-slice search returns, for any chunk size, page offset, limit, context
    /// and byte budget, and also when a line runs past four chunks.
    #[test]
    fn the_paced_page_agrees_with_the_whole_slice(
        input in proptest::collection::vec(prop_oneof![
            8 => Just(b'a'), 4 => Just(b'b'), 2 => Just(b'c'), 4 => Just(b'\n'),
            2 => Just(b' '), 1 => Just(0u8)
        ], 0..400),
        which in 0..PATTERNS.len(),
        chunk in 1usize..40,
        offset in 0u64..12,
        limit in 0u64..5,
        before in 0usize..4,
        after in 0usize..4,
        max_bytes in prop_oneof![Just(0u64), 20u64..200],
    ) {
        let p = pattern(PATTERNS[which]);
        let page = Page {
            offset,
            limit,
            before_context: before,
            after_context: after,
            max_columns: 300,
            max_bytes,
        };
        let whole = search_slice(&input, &p, &page).unwrap();
        let paced = page_in_chunks(&input, &p, &page, chunk)
        .expect("the input holds no escape sequence")
        .unwrap();
        prop_assert_eq!(paced, whole);
    }
}

#[test]
fn a_page_far_into_the_source_starts_at_its_chunk_with_its_context() {
    let mut text = "filler line\n".repeat(5_000).into_bytes();
    text.extend_from_slice(b"before one\nbefore two\nthe needle\nafter\n");
    let p = pattern("needle");
    let page = page(0, 5, 2);
    let paced = crate::text::clean::unless_dirty_paced(&text, |pace| {
        page_start(&text, &p, &page, 1024, pace)
    })
    .unwrap()
    .unwrap()
    .unwrap();
    // The page search starts at a line start in the last chunks, not at the source's start.
    assert!(paced.at > text.len() - 3 * 1024 && text[..paced.at].ends_with(b"\n"));
    let lines = text[..paced.at].iter().filter(|&&b| b == b'\n').count() as u64;
    assert_eq!((paced.seen, paced.lines), (0, lines));
    let r = search_source(&text, &p, &page, true).unwrap().0;
    let m = &r.matches[0];
    assert_eq!(
        (m.line, m.before[0].line, m.after[0].line),
        (5_003, 5_001, 5_004)
    );
    assert_eq!(r, search_slice(&text, &p, &page).unwrap());
}
