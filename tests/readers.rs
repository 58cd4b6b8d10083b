//! The readers (`cat`, `search`, `shape`, `extract`) on hostile sources and bounds: files
//! truncated while mapped, endless streams, procfs files, inverted or empty ranges, `0` limits,
//! huge context and giant lines, and messages that echo huge input.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::{Run, Sandbox, exits_within};

/// Runs `spill ARGS…`, waits until it has mapped `file`, stops it, truncates the file to
/// `cut_to` bytes and lets it go on: every byte it reads past the new end is gone. Stopping
/// the process between the map and the end of its read makes the race deterministic; the
/// file is big enough for the read to take a while even on a busy machine.
#[cfg(target_os = "linux")]
fn truncated_while_read(s: &Sandbox, args: &[&str], file: &Path, cut_to: u64) -> Run {
    let mut child = s.cmd(args).spawn_piped();
    drop(child.stdin.take());
    let pid = child.id() as libc::pid_t;
    let maps = format!("/proc/{pid}/maps");
    let name = file.to_str().unwrap();
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        if std::fs::read_to_string(&maps).is_ok_and(|m| m.contains(name)) {
            break;
        }
        if let Some(status) = child.try_wait().unwrap() {
            panic!("spill ended ({status}) before its source was seen mapped");
        }
        assert!(Instant::now() < deadline, "spill never mapped {name}");
        std::thread::sleep(Duration::from_micros(200));
    }
    // SAFETY: signalling our own child by its pid.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGSTOP) }, 0);
    std::fs::OpenOptions::new()
        .write(true)
        .open(file)
        .unwrap()
        .set_len(cut_to)
        .unwrap();
    // SAFETY: as above.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGCONT) }, 0);
    let output = child.wait_with_output().unwrap();
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(
        output.status.signal(),
        None,
        "spill was killed by a signal; stderr: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    Run {
        code: output.status.code(),
        stdout: output.stdout,
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

#[track_caller]
fn assert_changed(r: &Run, source: &str) {
    r.status(2);
    assert!(
        r.stderr.contains(&format!(
            "spill: cannot read {source}: it changed while being read"
        )),
        "{}",
        r.stderr
    );
}

/// A JSON array of `n` small objects, about 20 bytes each.
fn json_rows(n: usize) -> Vec<u8> {
    let mut doc = b"[".to_vec();
    for i in 0..n {
        if i > 0 {
            doc.push(b',');
        }
        doc.extend_from_slice(format!("{{\"a\":{i},\"b\":\"xx\"}}").as_bytes());
    }
    doc.push(b']');
    doc
}

#[cfg(target_os = "linux")]
#[test]
fn search_of_a_file_truncated_while_mapped_is_exit_2_not_sigbus() {
    let s = Sandbox::new();
    // Every line matches, so the count walks the whole file line by line.
    let f = s.file("big.log", "x\n".repeat(1 << 20));
    let p = f.to_str().unwrap();
    let r = truncated_while_read(&s, &["search", p, "x", "--count"], &f, 100_001);
    assert_changed(&r, p);
}

#[cfg(target_os = "linux")]
#[test]
fn shape_extract_and_cat_of_a_truncated_file_are_exit_2_not_sigbus() {
    let s = Sandbox::new();
    let doc = json_rows(250_000);
    for (name, args) in [
        ("shape.json", vec!["shape"]),
        ("extract.json", vec!["extract"]),
        ("cat.json", vec!["cat"]),
    ] {
        let f = s.file(name, &doc);
        let p = f.to_str().unwrap();
        let mut argv = args.clone();
        argv.push(p);
        match args[0] {
            "extract" => argv.push("$[-1]"),
            // All of it, through a pipe nobody reads until the file is cut.
            "cat" => argv.extend(["--bytes", "0:", "--max-bytes", "0", "--raw"]),
            _ => {}
        }
        let r = truncated_while_read(&s, &argv, &f, 12_345);
        assert_changed(&r, p);
    }
}

#[cfg(target_os = "linux")]
#[test]
fn a_shrink_within_the_last_page_is_caught_after_the_read() {
    // The map's last page survives a cut that stays inside it (its tail reads as zeros), so no
    // fault happens: the size check after the read reports the change.
    let s = Sandbox::new();
    let mut text = "x\n".repeat(1 << 20);
    text.push_str(&"y".repeat(2000));
    let f = s.file("tail.log", &text);
    let p = f.to_str().unwrap();
    let len = text.len() as u64;
    let r = truncated_while_read(&s, &["search", p, "x", "--count"], &f, len - 10);
    assert_changed(&r, p);
    assert!(
        r.stderr
            .contains("it shrank from 2,099,152 to 2,099,142 bytes"),
        "{}",
        r.stderr
    );
}

#[test]
fn cat_of_dev_zero_reads_only_the_range() {
    let s = Sandbox::new();
    let mut child = s
        .cmd(&["cat", "/dev/zero", "--bytes", "0:16", "--raw"])
        .spawn_piped();
    assert!(
        exits_within(&mut child, Duration::from_secs(60)),
        "cat /dev/zero --bytes 0:16 did not stop"
    );
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(out.stdout, [0u8; 16]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.starts_with("bytes 0–16 of at least "), "{stderr}");
}

#[test]
fn an_endless_stdin_is_read_only_as_far_as_the_lines_asked() {
    let s = Sandbox::new();
    let mut yes = Command::new("yes")
        .arg("line")
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut spill = s.cmd(&["cat", "-", "--lines", "2:3"]).into_command();
    let mut child = spill
        .stdin(yes.stdout.take().unwrap())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stopped = exits_within(&mut child, Duration::from_secs(60));
    let _ = yes.kill();
    let _ = yes.wait();
    assert!(stopped, "cat - --lines 2:3 kept reading an endless stdin");
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(out.stdout, b"line\nline\n");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.starts_with("lines 2–3 of at least "), "{stderr}");
}

#[test]
fn a_stream_longer_than_max_file_is_an_error_naming_it() {
    let s = Sandbox::new();
    let mut child = s
        .cmd(&["search", "/dev/zero", "x", "--max-file", "1M"])
        .spawn_piped();
    assert!(exits_within(&mut child, Duration::from_secs(60)));
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        stderr,
        "spill: /dev/zero is a stream longer than --max-file (1.0 MiB): spill reads at most that much of stdin, a FIFO or a device; save it to a file first (or raise --max-file)\n"
    );
    // stdin too.
    let r = s
        .cmd(&["shape", "-", "--max-file", "1K"])
        .stdin(vec![b' '; 5000])
        .run();
    r.status(2);
    assert!(
        r.stderr
            .starts_with("spill: stdin is a stream longer than --max-file (1.0 KiB)"),
        "{}",
        r.stderr
    );
}

#[cfg(target_os = "linux")]
#[test]
fn procfs_files_are_read_as_streams() {
    let s = Sandbox::new();
    // /proc/self/status reports a size of 0.
    assert_eq!(std::fs::metadata("/proc/self/status").unwrap().len(), 0);
    let r = s.run(&["search", "/proc/self/status", "Name"], "");
    r.status(0);
    assert!(r.out().starts_with("1:1:Name:"), "{}", r.out());
    let r = s.run(&["cat", "/proc/self/status", "--lines", "1:1"], "");
    r.status(0);
    assert!(r.out().starts_with("Name:"), "{}", r.out());
}

#[test]
fn cat_max_bytes_0_lifts_the_cap() {
    let s = Sandbox::new();
    let f = s.file("t.txt", "a\nb\nc\nd\n");
    let p = f.to_str().unwrap();
    let r = s.run(&["cat", p, "--bytes", "0:100", "--max-bytes", "0"], "");
    r.status(0);
    assert_eq!(r.out(), "a\nb\nc\nd\n");
    assert_eq!(r.stderr, "bytes 0–8 of 8\n");
    let r = s.run(&["cat", p, "--lines", "2:", "--max-bytes", "0"], "");
    assert_eq!(r.out(), "b\nc\nd\n");
}

#[test]
fn cat_inverted_ranges_are_usage_errors() {
    let s = Sandbox::new();
    let f = s.file("t.txt", "1\n2\n3\n4\n5\n6\n");
    let p = f.to_str().unwrap();
    let r = s.run(&["cat", p, "--lines", "5:3"], "");
    r.status(2);
    assert_eq!(
        r.stderr,
        "spill: --lines 5:3: the range ends before it starts (A:B with A <= B; lines count from 1)\n"
    );
    assert_eq!(r.out(), "");
    s.run(&["cat", p, "--bytes", "5:3"], "").status(2);
    s.run(&["cat", p, "--lines", ":0"], "").status(2);
    // One line, and an empty byte range, are not inverted.
    assert_eq!(
        s.run(&["cat", p, "--lines", "5:5"], "").status(0).out(),
        "5\n"
    );
    s.run(&["cat", p, "--bytes", "5:5"], "").status(0);
}

#[test]
fn cat_past_the_end_states_lines_and_bytes() {
    let s = Sandbox::new();
    let f = s.file("t.txt", "a\nb\n");
    let p = f.to_str().unwrap();
    let r = s.run(&["cat", p, "--lines", "50:60"], "");
    r.status(0);
    assert_eq!(r.out(), "");
    assert_eq!(
        r.stderr,
        "nothing in that range: the source has 2 lines (4 bytes)\n"
    );
    let r = s.run(&["cat", p, "--bytes", "50:60"], "");
    assert_eq!(r.stderr, "nothing in that range: the source has 4 bytes\n");
}

#[test]
fn max_columns_0_means_no_column_limit_in_cat_as_in_search() {
    let s = Sandbox::new();
    let line = format!("{}\n", "é".repeat(3000));
    let f = s.file("wide.txt", &line);
    let p = f.to_str().unwrap();
    let r = s.run(&["cat", p, "--max-columns", "0"], "");
    r.status(0);
    assert_eq!(r.out(), line);
    let r = s.run(
        &["search", p, "é", "--limit", "1", "--max-columns", "0"],
        "",
    );
    r.status(0);
    assert_eq!(r.out(), format!("1:1:{line}"));
}

#[test]
fn search_keeps_a_byte_bound_with_max_columns_0_on_giant_lines() {
    let s = Sandbox::new();
    let line = format!("{}needle{}\n", "a".repeat(3 << 20), "b".repeat(3 << 20));
    let f = s.file("giant.txt", line.repeat(2));
    let p = f.to_str().unwrap();
    let r = s.run(
        &["search", p, "needle", "--limit", "2", "--max-columns", "0"],
        "",
    );
    r.status(0);
    assert!(r.stdout.len() <= 1 << 20, "{} bytes", r.stdout.len());
    assert!(r.out().starts_with("1:3145729:…a"), "{}", &r.out()[..40]);
    assert!(r.out().contains("needle"));
    assert_eq!(
        r.stderr,
        "matches 1–1 of 2 (the page reached --max-bytes) · next: --offset 1\n"
    );
    // The JSON form keeps the same bound.
    let r = s.run(
        &[
            "search",
            p,
            "needle",
            "--limit",
            "2",
            "--max-columns",
            "0",
            "--json",
            "--max-bytes",
            "4K",
        ],
        "",
    );
    r.status(0);
    assert!(r.stdout.len() <= 4096 + 200, "{} bytes", r.stdout.len());
    assert_eq!(r.json()["nextOffset"], 1);
    // --unbounded prints whole lines.
    let r = s.run(&["search", p, "needle", "--limit", "2", "--unbounded"], "");
    r.status(0);
    assert_eq!(r.out().len(), 2 * (line.len() + "1:3145729:".len()));
    assert_eq!(r.stderr, "matches 1–2 of 2\n");
}

#[test]
fn search_context_of_the_largest_count_stays_within_the_byte_bound() {
    // The largest count a flag takes (10^15; 2^64 itself is refused with exit 2, see
    // env::huge_numbers_are_refused_or_kept_never_wrapped).
    let s = Sandbox::new();
    let text: String = (1..=200_000).map(|i| format!("line {i}\n")).collect();
    let f = s.file("many.txt", &text);
    let p = f.to_str().unwrap();
    let r = s.run(
        &["search", p, "^line 100000$", "-C", "1000000000000000"],
        "",
    );
    r.status(0);
    assert!(r.stdout.len() <= 1 << 20, "{} bytes", r.stdout.len());
    assert!(r.out().contains("100000:1:line 100000\n"));
    // The nearest lines are the ones kept.
    assert!(
        r.out()
            .contains("99999-line 99999\n100000:1:line 100000\n100001-line 100001\n")
    );
    let r = s.run(
        &[
            "search",
            p,
            "^line 100000$",
            "-C",
            "1000000000000000",
            "--max-bytes",
            "1K",
        ],
        "",
    );
    r.status(0);
    assert!(r.stdout.len() <= 1024, "{} bytes", r.stdout.len());
    assert_eq!(r.stderr, "matches 1–1 of 1\n");
}

#[test]
fn messages_cut_echoed_input() {
    let s = Sandbox::new();
    let f = s.file("a.json", r#"{"a":1}"#);
    let p = f.to_str().unwrap();
    // A query syntax error shows 200 characters around the caret.
    let query = format!("$.a{}", "[".repeat(100_000));
    let r = s.run(&["extract", p, &query], "");
    r.status(2);
    assert!(
        r.stderr.len() < 1000,
        "{} bytes: {}",
        r.stderr.len(),
        &r.stderr[..300]
    );
    assert!(r.stderr.contains('…'));
    // A query that selects nothing names its parts cut.
    let query = format!("$.{}", "b".repeat(100_000));
    let r = s.run(&["extract", p, &query], "");
    r.status(1);
    assert!(r.stderr.len() < 1000, "{} bytes", r.stderr.len());
    assert!(r.stderr.contains("…[+"), "{}", r.stderr);
    // A malformed range and a malformed number (through clap) are cut too.
    let range = "9".repeat(100_000);
    let r = s.run(&["cat", p, "--lines", &range], "");
    r.status(2);
    assert!(r.stderr.len() < 1000, "{} bytes", r.stderr.len());
    let r = s.run(&["search", p, "x", "--limit", &format!("x{range}")], "");
    r.status(2);
    assert!(r.stderr.len() < 2000, "{} bytes", r.stderr.len());
    assert!(r.stderr.contains("…[+"), "{}", r.stderr);
}

#[test]
fn the_envelope_bound_covers_path_label_and_error() {
    let s = Sandbox::new();
    // A store root 3.3 KB deep, as a harness with a long work directory may give.
    let mut deep = s.path().to_path_buf();
    for _ in 0..15 {
        deep.push("d".repeat(220));
    }
    std::fs::create_dir_all(&deep).unwrap();
    let not_a_dir = deep.join("file");
    std::fs::write(&not_a_dir, "").unwrap();
    let roots = [
        s.path().join("store"),
        deep.join("store"),
        // Refused by the store: a degraded envelope whose error names the long path.
        not_a_dir.join("store"),
    ];
    let labels = [
        String::new(),
        "\u{1}".repeat(200),
        "\u{1F600}".repeat(200),
        "l".repeat(5000),
    ];
    let text: Vec<u8> = (1..=5000)
        .flat_map(|i| format!("line {i}\n").into_bytes())
        .collect();
    let json = format!("[{}]", vec!["{\"k\":\"v\"}"; 3000].join(","));
    for root in &roots {
        for label in &labels {
            for input in [&text[..], json.as_bytes()] {
                let mut args = vec!["wrap", "--max-inline", "0"];
                if !label.is_empty() {
                    args.extend(["--label", label]);
                }
                let r = s.cmd(&args).env("SPILL_DIR", root).stdin(input).run();
                r.status(0);
                let line = r.out();
                let what = format!("root {} B, label {} B", root.as_os_str().len(), label.len());
                assert!(line.len() <= 4096 + 1, "{what}: {} bytes", line.len());
                let env = r.json();
                assert!(env["summary"].is_string(), "{what}");
                // A short root keeps its path, whatever the label costs.
                if root == &roots[0] {
                    assert_eq!(env["spilled"], true, "{what}");
                    assert!(env["path"].is_string(), "{what}: {line}");
                }
            }
        }
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(48))]

    /// Through the library: whatever the label, the payload path and a degraded error hold
    /// (control characters JSON escapes to six bytes, four-byte characters, thousands of
    /// bytes), the envelope fits `max(--max-inline, 4 KiB)` and is valid JSON.
    #[test]
    fn the_envelope_fits_its_bound_whatever_its_fields_hold(
        label in "[\\x00-\\x1f\u{1F600}a\"\\\\]{0,400}",
        path_len in 0usize..4000,
        error in proptest::option::of("[\\x00-\\x1f\u{1F600}/a]{0,4000}"),
        json in proptest::prelude::any::<bool>(),
        max_inline in 0u64..6000,
    ) {
        use spill::wrap::{Capture, WrapOptions, capture, envelope};
        let dir = tempfile::tempdir().unwrap();
        let store = spill::store::StoreConfig::new(dir.path().join("store"), "default".to_string());
        let input: Vec<u8> = if json {
            format!("[{}]", vec!["{\"k\":\"v\"}"; 1500].join(",")).into_bytes()
        } else {
            (1..=3000).flat_map(|i| format!("line {i}\n").into_bytes()).collect()
        };
        let opts = WrapOptions {
            max_inline,
            label: Some(label),
            ..WrapOptions::default()
        };
        let Capture::Spilled(mut spilled) = capture(&mut &input[..], &opts, &store, &|| false).unwrap()
        else {
            panic!("the input is larger than --max-inline");
        };
        match error {
            Some(reason) => spilled.stored = Err(reason),
            None => {
                if let Ok(stored) = &mut spilled.stored {
                    stored.path = std::path::PathBuf::from(format!("/{}", "p".repeat(path_len)));
                }
            }
        }
        let line = envelope(&spilled, &opts, Some(1), false).to_json();
        let bound = max_inline.max(4096) as usize;
        proptest::prop_assert!(line.len() <= bound, "{} > {bound}: {line}", line.len());
        let value: serde_json::Value = serde_json::from_str(&line).unwrap();
        proptest::prop_assert!(value["summary"].is_string());
    }
}

/// `tput sgr0` writes `ESC ( B` (select ASCII as G0) before `ESC [ m`: every escape sequence is
/// removed whole, as a terminal parses it (ESC, intermediates, final byte), so the preview, the
/// signals, `cat` and `search` show `error: build failed`, never `error(B: build failed`.
#[test]
fn a_tput_reset_leaves_nothing_in_the_cleaned_view() {
    let s = Sandbox::new();
    let sgr0 = "\x1b(B\x1b[m";
    let mut log = format!("\x1b[1m\x1b[32mCompiling{sgr0} foo\n").into_bytes();
    log.extend(crate::common::lines_of_text(1500));
    log.extend_from_slice(format!("\x1b[1m\x1b[31merror{sgr0}: build failed\n").as_bytes());
    log.extend_from_slice(format!("\x1b#8\x1b7done\x1b8 \x1bPq#0\x1b\\ok{sgr0}\n").as_bytes());
    log.extend(crate::common::lines_of_text(1500));
    let env = s.run(&["wrap", "--max-inline", "0"], log).status(0).json();
    assert_eq!(env["preview"]["head"][0], "Compiling foo");
    let signals = crate::common::signal_texts(&env);
    assert!(
        signals.iter().any(|t| t.contains("error: build failed")),
        "{signals:?}"
    );
    assert!(!signals.iter().any(|t| t.contains("(B")), "{signals:?}");
    let r#ref = env["ref"].as_str().unwrap();
    let r = s.run(&["cat", r#ref, "--lines", "1502:1503"], "");
    assert_eq!(r.out(), "error: build failed\ndone ok\n");
    let r = s.run(&["search", r#ref, "-F", "error: build failed"], "");
    r.status(0);
    assert_eq!(r.out(), "1502:1:error: build failed\n");
    let r = s.run(&["search", r#ref, "-F", "(B", "--count"], "");
    r.status(1);
}

/// A repeated key: every reader takes the first member (README, *Exactness*). `search --paths`
/// names, for a match in the later member, the object holding it, whose extract holds the
/// match; `extract` of the name reads the first; `shape` and the envelope type and show the
/// first alone.
#[test]
fn a_repeated_key_is_its_first_member_for_every_reader() {
    let s = Sandbox::new();
    let doc = r#"{"a":{"x":1},"b":2,"a":{"x":"hit"},"c":{"k":{"y":"one"},"k":{"y":"two"}}}"#;
    let f = s.file("dup.json", doc);
    let p = f.to_str().unwrap();
    let r = s.run(&["extract", p, "$.a", "--compact"], "");
    r.status(0);
    assert_eq!(r.out(), "{\"x\":1}\n");
    let r = s.run(&["search", p, "hit|two|one", "--paths", "--json"], "");
    r.status(0);
    let paths: Vec<String> = r.json()["matches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["path"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(paths, ["$", "$['c']['k']['y']", "$['c']"]);
    for (path, text) in paths.iter().zip(["hit", "one", "two"]) {
        let r = s.run(&["extract", p, path, "--compact"], "");
        r.status(0);
        assert!(r.out().contains(text), "{path}: {}", r.out());
    }
    let r = s.run(&["shape", p], "");
    r.status(0);
    assert_eq!(
        r.out(),
        "{\"a\":{\"x\":\"integer\"},\"b\":\"integer\",\"c\":{\"k\":{\"y\":\"string\"}}}\n"
    );
    let env = s.run(&["wrap", "--max-inline", "0"], doc).status(0).json();
    let preview = env["preview"].to_string();
    assert!(
        !preview.contains("hit") && !preview.contains("two"),
        "{preview}"
    );
    assert!(preview.contains("one"), "{preview}");
    assert!(
        !env["shape"].to_string().contains("string|integer"),
        "{}",
        env["shape"]
    );
}
