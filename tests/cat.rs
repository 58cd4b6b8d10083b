//! `spill cat` on files and stdin: ranges, defaults, footers, hex, cuts.

use crate::common::{Sandbox, lines_of_text};

#[test]
fn default_page_is_200_lines_with_a_next_footer() {
    let s = Sandbox::new();
    let text: Vec<u8> = (1..=500)
        .flat_map(|i| format!("{i}\n").into_bytes())
        .collect();
    let r = s.run(&["cat", "-"], text);
    r.status(0);
    assert_eq!(r.out().lines().count(), 200);
    assert!(r.out().ends_with("200\n"));
    assert_eq!(r.stderr, "lines 1–200 of 500 · next: --lines 201:400\n");
}

#[test]
fn line_and_byte_ranges() {
    let s = Sandbox::new();
    let f = s.file("t.txt", "a\nb\nc\nd\n");
    let p = f.to_str().unwrap();
    let r = s.run(&["cat", p, "--lines", "2:3"], "");
    r.status(0);
    assert_eq!(r.out(), "b\nc\n");
    assert_eq!(r.stderr, "lines 2–3 of 4 · next: --lines 4:5\n");
    let r = s.run(&["cat", p, "--bytes", "2:5"], "");
    assert_eq!(r.out(), "b\nc");
    assert_eq!(r.stderr, "bytes 2–5 of 8 · next: --bytes 5:8\n");
    let r = s.run(&["cat", p, "--lines", "3:"], "");
    assert_eq!(r.out(), "c\nd\n");
    assert_eq!(r.stderr, "lines 3–4 of 4\n");
}

#[test]
fn a_range_past_the_end_prints_nothing_and_exits_0() {
    let s = Sandbox::new();
    let r = s.run(&["cat", "-", "--lines", "50:60"], "a\nb\n");
    r.status(0);
    assert_eq!(r.out(), "");
}

#[test]
fn footer_can_go_to_stdout() {
    let s = Sandbox::new();
    let r = s.run(
        &["cat", "-", "--lines", "1:1", "--footer", "stdout"],
        "a\nb\n",
    );
    assert_eq!(r.out(), "a\nlines 1–1 of 2 · next: --lines 2:2\n");
    assert_eq!(r.stderr, "");
    let r = s
        .cmd(&["cat", "-", "--lines", "1:1"])
        .env("SPILL_FOOTER", "stdout")
        .stdin("a\nb\n")
        .run();
    assert_eq!(r.out(), "a\nlines 1–1 of 2 · next: --lines 2:2\n");
}

#[test]
fn a_giant_first_line_continues_by_bytes_on_a_character_boundary() {
    let s = Sandbox::new();
    let mut line = "é".repeat(10_000).into_bytes();
    line.push(b'\n');
    let r = s.run(&["cat", "-", "--raw"], line);
    r.status(0);
    assert!(r.stdout.len() <= 16384);
    assert!(std::str::from_utf8(&r.stdout).is_ok());
    assert_eq!(
        r.stderr,
        "bytes 0–16,384 of 20,001 · next: --bytes 16384:32768\n"
    );
}

#[test]
fn long_lines_are_cut_unless_raw() {
    let s = Sandbox::new();
    let line = format!("{}\n", "x".repeat(50));
    let r = s.run(&["cat", "-", "--max-columns", "10"], line.clone());
    assert_eq!(r.out(), "xxxxxxxxxx…[+40 chars]\n");
    let r = s.run(&["cat", "-", "--max-columns", "10", "--raw"], line.clone());
    assert_eq!(r.out(), line);
}

#[test]
fn hex_dump_matches_hexdump_c() {
    let s = Sandbox::new();
    let r = s.run(&["cat", "-", "--hex"], b"hello\x00\xff".to_vec());
    r.status(0);
    assert_eq!(
        r.out(),
        "00000000  68 65 6c 6c 6f 00 ff                              |hello..|\n00000007\n"
    );
}

#[test]
fn broken_pipe_exits_quietly() {
    let s = Sandbox::new();
    let f = s.file("big.txt", lines_of_text(200_000));
    let r = s
        .cmd(&[
            "cat",
            f.to_str().unwrap(),
            "--lines",
            "1:",
            "--max-bytes",
            "100M",
        ])
        .run_closing_stdout_after(16);
    r.status(0);
    assert_eq!(r.stderr, "");
}

#[test]
fn missing_files_and_bad_ranges_are_errors() {
    let s = Sandbox::new();
    let r = s.run(&["cat", "/no/such/file"], "");
    r.status(2);
    assert_eq!(
        r.stderr,
        "spill: cannot open /no/such/file: no such file or directory\n"
    );
    let r = s.run(&["cat", "-", "--lines", "x"], "a");
    r.status(2);
    assert!(r.stderr.starts_with("spill: --lines \"x\""), "{}", r.stderr);
    let r = s.run(&["cat", "sp_0123456789abcdef"], "");
    r.status(2);
    assert!(
        r.stderr.contains("unknown ref sp_0123456789abcdef"),
        "{}",
        r.stderr
    );
    let r = s.run(&["cat", "sp_XYZ"], "");
    r.status(2);
    assert!(r.stderr.contains("is not a ref"), "{}", r.stderr);
}

/// Follows `next:` from the default page to the end and returns what the pages showed, each
/// page's `…[+N chars]` marker (which ends a page) taken off; panics on a page that shows
/// nothing, or on a footer whose range does not start where the last page ended.
fn follow_next(s: &Sandbox, path: &str, extra: &[&str]) -> Vec<u8> {
    let marker = regex::bytes::Regex::new(r"…\[\+[0-9,]+ chars\]\n?\z").unwrap();
    let footer = regex::Regex::new(
        r"^(?:bytes ([0-9,]+)–([0-9,]+)|lines [0-9,]+–[0-9,]+) of [0-9,]+(?: · next: (.*))?\n$",
    )
    .unwrap();
    let mut shown = Vec::new();
    let mut range: Vec<String> = Vec::new();
    for _page in 0..100_000 {
        let mut args = vec!["cat", path];
        args.extend(range.iter().map(String::as_str));
        args.extend(extra);
        let r = s.run(&args, "");
        r.status(0);
        let caps = footer
            .captures(&r.stderr)
            .unwrap_or_else(|| panic!("footer of {args:?}: {:?}", r.stderr));
        if let Some(from) = caps.get(1) {
            let from: usize = from.as_str().replace(',', "").parse().unwrap();
            assert_eq!(
                from,
                shown.len(),
                "{args:?} starts where the last page ended"
            );
        }
        let body = match marker.find(&r.stdout) {
            Some(m) => &r.stdout[..m.start()],
            None => &r.stdout[..],
        };
        assert!(!body.is_empty(), "{args:?} showed nothing");
        shown.extend_from_slice(body);
        if let Some(to) = caps.get(2) {
            let to: usize = to.as_str().replace(',', "").parse().unwrap();
            assert_eq!(to, shown.len(), "{args:?}: the footer names what was shown");
        }
        match caps.get(3) {
            Some(next) => range = next.as_str().split(' ').map(String::from).collect(),
            None => return shown,
        }
    }
    panic!("no end after 100,000 pages");
}

#[test]
fn following_next_past_a_cut_line_shows_every_byte() {
    // The issue's reproduction: a 50,000-character line shows 2,000 characters, and the next
    // page starts at the first hidden byte, not after the 16 KiB the page held.
    let s = Sandbox::new();
    let text = format!("{}\n", "x".repeat(50_000));
    let f = s.file("l.txt", &text);
    let p = f.to_str().unwrap();
    let r = s.run(&["cat", p], "");
    r.status(0);
    assert_eq!(r.out(), format!("{}…[+14,384 chars]", "x".repeat(2000)));
    assert_eq!(
        r.stderr,
        "bytes 0–2,000 of 50,001 · next: --bytes 2000:18384\n"
    );
    let r = s.run(&["cat", p, "--bytes", "2000:18384"], "");
    assert_eq!(r.out(), format!("{}…[+14,384 chars]", "x".repeat(2000)));
    assert_eq!(
        r.stderr,
        "bytes 2,000–4,000 of 50,001 · next: --bytes 4000:20384\n"
    );
    assert_eq!(follow_next(&s, p, &[]), text.as_bytes());
    // A line page stops at its first cut line, and says so by bytes.
    let text = "short\n".repeat(3) + &"é".repeat(30) + "\nafter\n";
    let f = s.file("m.txt", &text);
    let p = f.to_str().unwrap();
    let r = s.run(&["cat", p, "--lines", "1:5", "--max-columns", "10"], "");
    assert_eq!(
        r.out(),
        format!("short\nshort\nshort\n{}…[+20 chars]\n", "é".repeat(10))
    );
    assert_eq!(r.stderr, "bytes 0–38 of 85 · next: --bytes 38:123\n");
    assert_eq!(
        follow_next(&s, p, &["--max-columns", "10"]),
        text.as_bytes()
    );
    // --raw and --max-columns 0 cut nothing: the page is the 16 KiB window.
    let f = s.file("l.txt", "y".repeat(40_000));
    let r = s.run(&["cat", f.to_str().unwrap(), "--max-columns", "0"], "");
    assert_eq!(
        r.stderr,
        "bytes 0–16,384 of 40,000 · next: --bytes 16384:32768\n"
    );
}

mod pages {
    use super::follow_next;
    use crate::common::Sandbox;
    use proptest::prelude::*;

    /// Text with long lines: runs of ASCII and `é` of random lengths, some over the columns.
    fn text() -> impl Strategy<Value = String> {
        prop::collection::vec(
            prop_oneof![
                3 => "[a-z ]{0,40}\n",
                2 => "[a-zé]{30,400}\n",
                1 => "[a-z]{1000,20000}\n",
                1 => "[xé]{10,300}",
            ],
            1..40,
        )
        .prop_map(|parts| parts.concat())
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

        #[test]
        fn following_next_from_the_start_shows_every_byte(
            text in text(),
            columns in prop_oneof![Just(None), (1usize..120).prop_map(Some)],
        ) {
            let s = Sandbox::new();
            let f = s.file("t.txt", &text);
            let columns = columns.map(|c| c.to_string());
            let extra: Vec<&str> = match &columns {
                Some(c) => vec!["--max-columns", c],
                None => vec![],
            };
            let shown = follow_next(&s, f.to_str().unwrap(), &extra);
            prop_assert!(shown == text.as_bytes(), "pages showed {} of {} bytes", shown.len(), text.len());
        }
    }
}
