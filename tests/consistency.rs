//! What the envelope says, the reading commands agree with: one text/binary classifier for
//! `wrap`, `shape` and `cat`; bracketed log lines are text, not broken JSON.

use std::process::Stdio;

use crate::common::Sandbox;

/// Runs `spill ARGS…` with stdout on a pseudo-terminal; returns what the terminal received.
fn stdout_on_terminal(s: &Sandbox, args: &[&str]) -> String {
    let (mut master, slave) = crate::common::openpty();
    // Paging at a terminal is tests/terminal.rs's subject: here the output comes straight.
    let mut command = s.cmd(args).env("SPILL_PAGER", "cat").into_command();
    command
        .stdin(Stdio::null())
        .stdout(Stdio::from(slave))
        .stderr(Stdio::null());
    let mut child = command.spawn().unwrap();
    // The child holds the only slave descriptor now: the master reads EIO once it exits.
    // Read before waiting, or output larger than the terminal's buffer blocks the child.
    drop(command);
    let shown = crate::common::read_terminal(&mut master);
    child.wait().unwrap();
    shown
}

/// What `wrap`, `shape` and `cat` (on a terminal) each call `bytes`: `true` for binary.
fn verdicts(s: &Sandbox, name: &str, bytes: &[u8]) -> (bool, bool, bool) {
    let file = s.file(name, bytes);
    let file = file.to_str().unwrap();
    let env = s
        .run(&["wrap", "--max-inline", "0"], bytes)
        .status(0)
        .json();
    let wrap = match env["mimeType"].as_str().unwrap() {
        "application/octet-stream" => true,
        "text/plain" => false,
        other => panic!("{name}: mimeType {other}"),
    };
    let skeleton = s.run(&["shape", file], "").status(0).json();
    let shape = skeleton.get("binary").is_some();
    assert!(
        shape || skeleton.get("text").is_some(),
        "{name}: {skeleton}"
    );
    let shown = stdout_on_terminal(s, &["cat", file, "--lines", "1:2"]);
    let cat = shown.starts_with("00000000  ");
    (wrap, shape, cat)
}

#[test]
fn wrap_shape_and_cat_classify_text_and_binary_alike() {
    let s = Sandbox::new();
    // Accented letters as Latin-1: one byte each, invalid as UTF-8.
    let latin1: Vec<u8> = (0..200)
        .flat_map(|i| {
            format!("{i}: caf\u{e9} cr\u{e8}me br\u{fb}l\u{e9}e\n")
                .chars()
                .collect::<Vec<_>>()
        })
        .map(|c| c as u32 as u8)
        .collect();
    let utf16: Vec<u8> = [0xff, 0xfe]
        .into_iter()
        .chain(
            "hello from a UTF-16 log\n"
                .repeat(50)
                .encode_utf16()
                .flat_map(u16::to_le_bytes),
        )
        .collect();
    let mut with_nul = b"header\n".repeat(100);
    with_nul.extend_from_slice(b"\0\x01\x02 record\n");
    // Random bytes: far more than a third of them are not UTF-8.
    let mut state = 0x2545f491u32;
    let invalid: Vec<u8> = (0..4000)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            (state as u8) | 0x80
        })
        .collect();
    // 32 invalid bytes in 100: under a third, so text (one classifier once said binary at 30%).
    let mut borderline = vec![0xffu8; 32];
    borderline.extend(std::iter::repeat_n(b'a', 67));
    borderline.push(b'\n');
    for (name, bytes, binary) in [
        ("latin1.log", latin1, false),
        ("utf16.log", utf16, true),
        ("nul.log", with_nul, true),
        ("invalid.bin", invalid, true),
        ("borderline.log", borderline, false),
    ] {
        assert_eq!(
            verdicts(&s, name, &bytes),
            (binary, binary, binary),
            "{name}: (wrap, shape, cat) should all say binary = {binary}"
        );
    }
}

#[test]
fn a_redacted_secret_at_the_start_is_text_not_broken_json() {
    let s = Sandbox::new();
    let mut input = b"ghp_0123456789abcdefghijABCDEFGHIJ012345 pushed to origin\n".to_vec();
    input.extend(crate::common::lines_of_text(500));
    let env = s.run(&["wrap", "--redact"], input).status(0).json();
    assert_eq!(env["redacted"], 1, "{env}");
    assert_eq!(env["mimeType"], "text/plain", "{env}");
    assert_eq!(
        env["preview"]["head"][0], "[REDACTED] pushed to origin",
        "{env}"
    );
    let summary = env["summary"].as_str().unwrap();
    assert!(!summary.contains("JSON"), "{summary}");

    // The same for any bracketed log prefix, in every command that notes broken JSON.
    for first in [
        "[REDACTED] x",
        "[INFO] started",
        "[2024-01-02 10:00:00] ok",
        "[1/5] Building",
    ] {
        let mut text = format!("{first}\n").into_bytes();
        text.extend(crate::common::lines_of_text(500));
        let env = s.run(&["wrap"], text.clone()).status(0).json();
        let summary = env["summary"].as_str().unwrap();
        assert!(!summary.contains("JSON"), "{first}: {summary}");
        let file = s.file("log.txt", &text);
        let skeleton = s
            .run(&["shape", file.to_str().unwrap()], "")
            .status(0)
            .json();
        assert!(
            skeleton.get("invalidJsonAt").is_none(),
            "{first}: {skeleton}"
        );
        let r = s.run(
            &["search", file.to_str().unwrap(), "line 000001", "--paths"],
            "",
        );
        r.status(0);
        assert!(
            r.stderr.contains("the source is not JSON or NDJSON"),
            "{first}: {}",
            r.stderr
        );
    }
    // Broken JSON is still called broken JSON.
    let mut broken = br#"[{"date": 2024-01-02, "n": 1}]"#.to_vec();
    broken.extend(b"\n".repeat(20_000));
    let env = s.run(&["wrap"], broken).status(0).json();
    let summary = env["summary"].as_str().unwrap();
    assert!(
        summary.contains("looks like JSON but is invalid at byte 14 (line 1:15)"),
        "{summary}"
    );
}

/// Every line `env` shows — preview head and tail (collapsed repeats expanded) and the lines of
/// each signal — with the line number the envelope gives it.
fn shown_lines(env: &serde_json::Value) -> Vec<(u64, String)> {
    fn expand(entries: &[serde_json::Value], first: u64, out: &mut Vec<(u64, String)>) {
        let mut n = first;
        for e in entries {
            let e = e.as_str().unwrap();
            assert!(
                !e.contains("…[+"),
                "test inputs have no windowed lines: {e}"
            );
            let repeats = e
                .strip_prefix("… previous line repeated ")
                .map(|r| r.trim_end_matches(" times").trim_end_matches(" time"))
                .map(|r| r.replace(',', "").parse::<u64>().unwrap());
            match repeats {
                Some(k) => {
                    let previous = out.last().unwrap().1.clone();
                    for _ in 0..k {
                        out.push((n, previous.clone()));
                        n += 1;
                    }
                }
                None => {
                    out.push((n, e.to_string()));
                    n += 1;
                }
            }
        }
    }
    let lines = env["lines"].as_u64().unwrap();
    let mut shown = Vec::new();
    let head = env["preview"]["head"].as_array().unwrap();
    expand(head, 1, &mut shown);
    let tail = env["preview"]["tail"].as_array().unwrap();
    let mut tail_shown = Vec::new();
    expand(tail, 0, &mut tail_shown);
    let first = lines + 1 - tail_shown.len() as u64;
    shown.extend(tail_shown.into_iter().map(|(n, t)| (first + n, t)));
    for m in env["signals"]["matches"].as_array().into_iter().flatten() {
        let line = m["line"].as_u64().unwrap();
        for (j, text) in m["text"].as_str().unwrap().split('\n').enumerate() {
            shown.push((line + j as u64, text.to_string()));
        }
    }
    shown
}

/// Asserts the promise: each shown line is found by `search REF -F TEXT` on its line, and
/// `cat REF --lines N:N` prints it.
#[track_caller]
fn assert_readers_find_what_the_envelope_shows(s: &Sandbox, env: &serde_json::Value) {
    let reference = env["ref"].as_str().unwrap();
    let shown = shown_lines(env);
    assert!(shown.len() > 5, "{env}");
    for (n, text) in shown {
        // A signal line cut at 200 characters ends in `…`: the cleaned line starts with the rest.
        let (text, cut) = match text.strip_suffix('…') {
            Some(t) => (t.to_string(), true),
            None => (text, false),
        };
        let range = format!("{n}:{n}");
        let cat = s
            .run(&["cat", reference, "--lines", &range], "")
            .status(0)
            .out();
        let line = cat.strip_suffix('\n').unwrap_or(&cat);
        if cut {
            assert!(
                line.starts_with(&text),
                "line {n}: cat shows {line:?}, the envelope {text:?}"
            );
        } else {
            assert_eq!(line, text, "line {n}: cat shows what the envelope shows");
        }
        if text.trim().is_empty() {
            continue;
        }
        let found = s
            .run(
                &[
                    "search", reference, "-F", "-e", &text, "--json", "--limit", "1000",
                ],
                "",
            )
            .status(0)
            .json();
        let lines: Vec<u64> = found["matches"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["line"].as_u64().unwrap())
            .collect();
        assert!(
            lines.contains(&n),
            "search -F {text:?} finds lines {lines:?}, not {n}"
        );
    }
}

fn numbered(from: usize, to: usize) -> Vec<u8> {
    (from..=to)
        .flat_map(|i| format!("step {i} ok\n").into_bytes())
        .collect()
}

#[test]
fn a_coloured_tail_line_is_found_and_shown_where_the_envelope_says() {
    let s = Sandbox::new();
    let mut input: Vec<u8> = (1..=3000)
        .flat_map(|i| format!("{i}\n").into_bytes())
        .collect();
    input.extend_from_slice(b"\x1b[1m\x1b[91merror\x1b[0m: could not compile\n");
    let env = s
        .run(&["wrap", "--max-inline", "1K"], input)
        .status(0)
        .json();
    let tail = env["preview"]["tail"].as_array().unwrap();
    assert_eq!(tail.last().unwrap(), "error: could not compile", "{env}");
    let reference = env["ref"].as_str().unwrap();
    let r = s.run(&["search", reference, "error: could not compile"], "");
    assert_eq!(r.status(0).out(), "3001:1:error: could not compile\n");
    assert!(
        r.stderr.contains("escape sequences and \\r frames removed"),
        "{}",
        r.stderr
    );
    let r = s.run(&["cat", reference, "--lines", "3001:3001"], "");
    assert_eq!(r.status(0).out(), "error: could not compile\n");
    assert!(
        r.stderr.starts_with(
            "lines 3,001–3,001 of 3,001, escape sequences and \\r frames removed (--raw: as stored)"
        ),
        "{}",
        r.stderr
    );
    assert_readers_find_what_the_envelope_shows(&s, &env);

    // --raw reads the stored bytes.
    let r = s.run(
        &[
            "search",
            reference,
            "--raw",
            "-F",
            "error: could not compile",
        ],
        "",
    );
    r.status(1);
    let r = s.run(&["cat", reference, "--raw", "--lines", "3001:3001"], "");
    assert_eq!(
        r.status(0).stdout,
        b"\x1b[1m\x1b[91merror\x1b[0m: could not compile\n"
    );
    assert!(!r.stderr.contains("removed"), "{}", r.stderr);
    // --count counts in the same view.
    let r = s.run(
        &["search", reference, "-F", "could not compile", "--count"],
        "",
    );
    assert_eq!(r.status(0).out(), "1\n");
}

#[test]
fn real_coloured_tool_output_is_found_where_the_envelope_says() {
    let s = Sandbox::new();
    let data = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/colour");
    let read = |name: &str| {
        std::fs::read(data.join(name)).unwrap_or_else(|e| panic!("tests/data/colour/{name}: {e}"))
    };
    let mut input = numbered(1, 5);
    input.extend(read("cargo-build.log"));
    input.extend(numbered(6, 2000));
    input.extend(read("pytest.log"));
    input.extend(numbered(2001, 4000));
    input.extend(read("npm-run.log"));
    input.extend(numbered(4001, 6000));
    input.extend(read("pip-download.log"));
    let env = s
        .run(&["wrap", "--preview", "3000"], input)
        .status(0)
        .json();
    let texts = crate::common::signal_texts(&env);
    // Colour no longer hides the markers: the failures of pytest and npm (outside the
    // preview) are signals, cleaned; cargo's is in the head, cleaned.
    for want in [
        "FAILED test_sample.py::test_bad - assert [1, 2, 3] == [1, 2, 4]",
        "npm error Missing script: \"nosuch\"",
    ] {
        assert!(
            texts.iter().any(|t| t.contains(want)),
            "{want:?} in {texts:?}"
        );
    }
    let head = &env["preview"]["head"];
    assert_eq!(head[6], "error[E0308]: mismatched types", "{env}");
    // The hint's search pattern is cleaned text (no escape bytes) and finds the line of a
    // signal the envelope shows (which one is the ranking's choice: the rarest failure).
    let hint = env["hint"].as_str().unwrap();
    // The pattern is single-quoted only where a shell needs it.
    let pattern = hint
        .split("-F ")
        .nth(1)
        .and_then(|rest| match rest.strip_prefix('\'') {
            Some(quoted) => quoted.split('\'').next(),
            None => rest.split(' ').next(),
        })
        .unwrap_or_else(|| panic!("a -F search in the hint: {hint}"));
    assert!(!pattern.contains('\x1b'), "{hint}");
    let reference = env["ref"].as_str().unwrap();
    let found = s
        .run(&["search", reference, "-F", pattern], "")
        .status(0)
        .out();
    assert!(
        texts.iter().any(|t| t.lines().any(|l| found.contains(l))),
        "{pattern:?} finds {found:?}, none of {texts:?}"
    );
    // pip's progress bar is shown as its last frame.
    let tail: Vec<&str> = env["preview"]["tail"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_str().unwrap())
        .collect();
    assert!(tail.iter().any(|l| l.contains("12.5/12.5 MB")), "{tail:?}");
    assert!(
        tail.contains(&"Successfully downloaded botocore"),
        "{tail:?}"
    );
    assert_readers_find_what_the_envelope_shows(&s, &env);
}

#[test]
fn progress_frames_and_collapsed_repeats_are_found_where_the_envelope_says() {
    let s = Sandbox::new();
    let mut input = b"start\n".to_vec();
    input.extend(b"same line\n".repeat(40));
    input.extend_from_slice(b"\x1b[2K10%\r\x1b[2K50%\r\x1b[32mdone\x1b[0m\n");
    input.extend(numbered(1, 3000));
    // A `--- FAIL` header shows the line before it: the envelope numbers that line.
    input.extend_from_slice(b"=== RUN   TestUpload\n");
    input.extend_from_slice(b"uploading 10%\ruploading 60%\ruploading 100%\n");
    input.extend_from_slice(b"\x1b[31m--- FAIL: TestUpload (0.31s)\x1b[0m\n");
    input.extend(numbered(3001, 6000));
    input.extend(b"\x1b[33mwaiting\x1b[0m\r\n".repeat(30));
    input.extend_from_slice(b"fetch 1/3\rfetch 2/3\rfetch 3/3\r\n");
    let env = s
        .run(&["wrap", "--preview", "1200"], input)
        .status(0)
        .json();
    let head = &env["preview"]["head"];
    assert_eq!(head[1], "same line", "{env}");
    assert_eq!(head[2], "… previous line repeated 39 times", "{env}");
    assert_eq!(head[3], "done", "{env}");
    let fail = env["signals"]["matches"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["text"].as_str().unwrap().contains("--- FAIL"))
        .unwrap_or_else(|| panic!("{env}"));
    assert_eq!(fail["text"], "uploading 100%\n--- FAIL: TestUpload (0.31s)");
    assert_eq!(fail["line"], 3044, "the line of the text's first line");
    assert_readers_find_what_the_envelope_shows(&s, &env);
}

#[test]
fn crlf_only_text_is_read_as_stored() {
    let s = Sandbox::new();
    let text = b"one\r\ntwo\r\n".repeat(3);
    let file = s.file("crlf.txt", &text);
    let r = s.run(&["cat", file.to_str().unwrap()], "");
    assert_eq!(r.status(0).stdout, text);
    assert!(!r.stderr.contains("removed"), "{}", r.stderr);
    let r = s.run(&["search", file.to_str().unwrap(), "two\\r$"], "");
    assert_eq!(r.status(0).out(), "2:1:two\r\n4:1:two\r\n6:1:two\r\n");
}
