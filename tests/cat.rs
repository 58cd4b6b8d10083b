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
