//! Adversarial inputs through every command: each run must end with exit 0, 1 or 2 (and a
//! `spill:` line for 2) — never a panic, an abort, a hang or memory that grows with the input.
//!
//! Inputs are generated here, never committed. Big ones are written once to a temporary file and
//! streamed into the child (stdin from the file, or the file as SOURCE), and each child is
//! watched: killed after a timeout, and its anonymous memory (`RssAnon`, which excludes mapped
//! file pages) sampled while it runs.

use std::io::{Read, Write};
use std::path::Path;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use crate::common::Sandbox;

/// What one guarded run saw.
struct Guarded {
    code: Option<i32>,
    stdout: Vec<u8>,
    stderr: String,
    /// Largest `RssAnon` sampled, in KiB.
    peak_anon_kib: u64,
}

/// Reads a pipe to its end on a thread, keeping at most `cap` bytes.
fn drain(mut pipe: impl Read + Send + 'static, cap: usize) -> std::thread::JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut kept = Vec::new();
        let mut buf = vec![0u8; 64 << 10];
        loop {
            match pipe.read(&mut buf) {
                Ok(0) | Err(_) => return kept,
                Ok(n) => {
                    let room = cap.saturating_sub(kept.len()).min(n);
                    kept.extend_from_slice(&buf[..room]);
                }
            }
        }
    })
}

fn rss_anon_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("RssAnon:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Waits for `child`, killing it after `timeout`, sampling its anonymous memory meanwhile.
fn watch(mut child: Child, timeout: Duration) -> (Option<i32>, u64, bool) {
    let start = Instant::now();
    let mut peak = 0;
    loop {
        if let Some(kib) = rss_anon_kib(child.id()) {
            peak = peak.max(kib);
        }
        if let Some(status) = child.try_wait().unwrap() {
            return (status.code(), peak, false);
        }
        if start.elapsed() > timeout {
            let _ = child.kill();
            let status = child.wait().unwrap();
            return (status.code(), peak, true);
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Runs `spill ARGS…` with stdin from `input` (a file) or empty, under a timeout.
fn guarded(sb: &Sandbox, args: &[&str], input: Option<&Path>, timeout: Duration) -> Guarded {
    let mut command = sb.cmd(args).into_command();
    command
        .stdin(match input {
            Some(path) => Stdio::from(std::fs::File::open(path).unwrap()),
            None => Stdio::null(),
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = command.spawn().expect("spawn spill");
    let out = drain(child.stdout.take().unwrap(), 1 << 20);
    let err = drain(child.stderr.take().unwrap(), 1 << 20);
    let (code, peak_anon_kib, timed_out) = watch(child, timeout);
    let g = Guarded {
        code,
        stdout: out.join().unwrap(),
        stderr: String::from_utf8_lossy(&err.join().unwrap()).into_owned(),
        peak_anon_kib,
    };
    assert!(!timed_out, "spill {args:?} hung (killed after {timeout:?})");
    g
}

/// The contract every run must keep.
#[track_caller]
fn assert_sane(g: &Guarded, what: &str, args: &[&str], max_anon_mib: u64) {
    let ctx = format!(
        "{what}: spill {args:?} -> {:?}\nstderr: {}",
        g.code,
        &g.stderr[..g.stderr.len().min(2000)]
    );
    assert!(
        matches!(g.code, Some(0..=2)),
        "bad exit (a signal or abort?) {ctx}"
    );
    assert!(!g.stderr.contains("panicked"), "panic {ctx}");
    assert!(!g.stderr.contains("RUST_BACKTRACE"), "panic {ctx}");
    if g.code == Some(2) {
        assert!(
            g.stderr.lines().any(|l| l.starts_with("spill: ")),
            "exit 2 without a spill: line {ctx}"
        );
    }
    assert!(
        g.peak_anon_kib <= max_anon_mib * 1024,
        "{} KiB of anonymous memory {ctx}",
        g.peak_anon_kib
    );
}

/// The reading commands, each given `source` (a path, or `-` with the input on stdin).
fn reader_runs(source: &str) -> Vec<Vec<String>> {
    let s = source.to_string();
    [
        vec!["shape", &s],
        vec!["shape", "--paths", &s],
        vec!["cat", &s],
        vec!["cat", "--lines", "2:5", &s],
        vec!["cat", "--hex", "--bytes", "0:64", &s],
        vec!["search", &s, "a"],
        vec![
            "search",
            "--json",
            "-C",
            "2",
            "--max-columns",
            "40",
            &s,
            "[0-9]+|\\\\u",
        ],
        vec!["search", "--count", &s, "\\x00|\\r"],
        vec!["search", "--paths", "--json", &s, "a|9"],
        vec!["extract", &s, "$"],
        vec!["extract", "--nodes", "--compact", &s, "$..a"],
        vec!["extract", "-r", "--max-bytes", "1K", &s, "$[0]"],
        // Nothing cut: the whole value, however deep, in memory that does not follow the depth.
        vec!["extract", "--unbounded", "--compact", &s, "$"],
    ]
    .into_iter()
    .map(|v| v.into_iter().map(String::from).collect())
    .collect()
}

/// Every command over `input`: `wrap` (inline and spilled) with the input on stdin, and each
/// reader both on the file and on stdin.
fn every_command(sb: &Sandbox, name: &str, input: &Path, timeout: Duration, max_anon_mib: u64) {
    let path = input.to_str().unwrap();
    let size = std::fs::metadata(input).unwrap().len();
    let mut runs: Vec<(Vec<String>, bool)> = vec![
        (vec!["wrap".into()], true),
        (vec!["wrap".into(), "--max-inline".into(), "0".into()], true),
        (
            vec![
                "wrap".into(),
                "--max-inline".into(),
                "0".into(),
                "--format".into(),
                "text".into(),
            ],
            true,
        ),
    ];
    runs.extend(reader_runs(path).into_iter().map(|a| (a, false)));
    if size > 1 << 20 {
        // Megabyte inputs cost seconds in a debug build: one run per command and source kind.
        runs.retain(|(a, _)| {
            let a: Vec<&str> = a.iter().map(String::as_str).collect();
            matches!(
                a[..],
                ["wrap", "--max-inline", "0"]
                    | ["shape", _]
                    | ["cat", _]
                    | ["search", _, "a"]
                    | ["extract", _, "$"]
                    | ["extract", "--unbounded", "--compact", _, "$"]
            )
        });
        runs.push((vec!["shape".into(), "-".into()], true));
    } else {
        runs.extend(reader_runs("-").into_iter().map(|a| (a, true)));
    }
    for (args, stdin) in runs {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let g = guarded(sb, &args, stdin.then_some(input), timeout);
        assert_sane(&g, name, &args, max_anon_mib);
        if args[0] == "wrap" && g.code == Some(0) && args.len() > 1 && !g.stdout.is_empty() {
            // A spilled envelope is one valid JSON object (or the text form).
            if args.len() == 3 {
                let v: serde_json::Value = serde_json::from_slice(&g.stdout)
                    .unwrap_or_else(|e| panic!("{name}: envelope is not JSON: {e}"));
                assert_eq!(v["spilled"], true, "{name}: {v}");
                assert_eq!(v["sizeBytes"], std::fs::metadata(input).unwrap().len());
            }
        }
        if args == ["wrap"] && std::fs::metadata(input).unwrap().len() <= 16384 {
            // Pass-through is byte for byte, whatever the bytes.
            assert_eq!(g.stdout, std::fs::read(input).unwrap(), "{name}");
        }
    }
}

/// The small and medium hostile documents.
fn hostile_inputs() -> Vec<(&'static str, Vec<u8>)> {
    let deep = 1_000_000;
    let mut v: Vec<(&'static str, Vec<u8>)> = vec![
        ("empty", b"".to_vec()),
        ("whitespace only", b"  \n\t \r\n   \n".to_vec()),
        ("NUL bytes", b"\0\0{\"a\":\0}\0\n\0".to_vec()),
        ("BOM", "\u{feff}{\"a\":[1,2,{\"b\":null}]}".into()),
        ("BOM text", "\u{feff}hello\nworld\n".into()),
        ("CRLF JSON", b"{\r\n  \"a\": [1,\r\n 2]\r\n}\r\n".to_vec()),
        ("CRLF NDJSON", b"{\"a\":1}\r\n{\"a\":2}\r\n".to_vec()),
        ("CRLF text", b"error: one\r\nok\r\n".repeat(50)),
        (
            "invalid UTF-8 in JSON",
            b"{\"a\":\"\xff\xfe\xc3\x28\"}".to_vec(),
        ),
        (
            "invalid UTF-8 text",
            b"\xc3\x28 \xa0\xa1\xf0\x28\x8c\x28\n".repeat(40),
        ),
        (
            "lone surrogates",
            br#"["\ud800", "\udc00x", {"\ud83d": 1}, "\ud83d\ude00"]"#.to_vec(),
        ),
        (
            "control characters in strings",
            b"{\"a\":\"\x01\x1b[31mred\x07\x1b]0;title\x07\",\"b\":\"\\u0000\\u001b\"}".to_vec(),
        ),
        (
            "NaN and Infinity",
            b"[NaN, Infinity, -Infinity, 1]".to_vec(),
        ),
        ("NaN value", b"{\"a\": NaN, \"b\": -Infinity}".to_vec()),
        (
            "duplicate keys",
            br#"{"a":1,"a":"two","a":{"a":[3],"a":null}}"#.to_vec(),
        ),
        ("unterminated object", b"{\"a\": [1, 2".to_vec()),
        ("unterminated string", b"[\"abc".to_vec()),
        ("trailing comma", b"[1,2,".to_vec()),
        ("dangling key", b"{\"a\"".to_vec()),
        ("two documents", b"{\"a\":1} {\"b\":2} [".to_vec()),
    ];
    let digits = "9".repeat(100_000);
    v.push(("100,000-digit number", format!("[{digits}]").into()));
    v.push(("100,000-digit bare number", digits.clone().into()));
    v.push((
        "100,000-digit exponent",
        format!("{{\"a\":1e{digits}}}").into(),
    ));
    let mut arrays = vec![b'['; deep];
    arrays.extend(std::iter::repeat_n(b']', deep));
    v.push(("1,000,000-deep arrays", arrays));
    let mut objects = b"{\"a\":".repeat(deep);
    objects.push(b'1');
    objects.extend(std::iter::repeat_n(b'}', deep));
    v.push(("1,000,000-deep objects", objects));
    v.push(("1,000,000-deep unterminated", vec![b'['; deep]));
    let mut mixed = b"[{\"a\":".repeat(deep / 2);
    mixed.extend(b"[]".iter());
    v.push(("500,000-deep mixed, unterminated", mixed));
    v
}

#[test]
fn hostile_documents_through_every_command() {
    let sb = Sandbox::new();
    for (i, (name, bytes)) in hostile_inputs().into_iter().enumerate() {
        let path = sb.file(&format!("input-{i}"), &bytes);
        every_command(&sb, name, &path, Duration::from_secs(60), 64);
    }
}

/// Writes `total` bytes produced by repeating `unit` to a file without holding them in memory.
fn big_file(sb: &Sandbox, name: &str, unit: &[u8], total: usize) -> std::path::PathBuf {
    let path = sb.path().join(name);
    let mut w = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    let block = unit.repeat((1 << 20) / unit.len());
    let mut written = 0;
    while written < total {
        let n = block.len().min(total - written);
        w.write_all(&block[..n]).unwrap();
        written += n;
    }
    w.flush().unwrap();
    path
}

#[test]
fn a_single_100_mb_line_and_10_million_tiny_lines() {
    let sb = Sandbox::new();
    // Anonymous memory must not follow the input: well under its size (mapped pages excluded).
    let one_line = big_file(
        &sb,
        "one-line",
        b"lorem ipsum dolor sit amet error ",
        100 << 20,
    );
    let tiny = big_file(&sb, "tiny-lines", b"7\n", 20_000_000);
    for (name, path) in [
        ("a single 100 MB line", one_line),
        ("10 million tiny lines", tiny),
    ] {
        let p = path.to_str().unwrap();
        // A debug build spends seconds on each of these: one run per command and path.
        let mut runs: Vec<(Vec<&str>, bool)> = vec![
            (vec!["wrap"], true),
            (vec!["shape", p], false),
            (vec!["cat", p], false),
            (vec!["cat", "--lines", "9999999:", p], false),
            (vec!["cat", "--bytes", "99999000:", p], false),
            (vec!["extract", p, "$[0]"], false),
        ];
        if name.starts_with("a single") {
            runs.push((
                vec!["search", "-C", "2", "--offset", "5000", p, "dolor"],
                false,
            ));
            runs.push((vec!["search", "--json", "--paths", p, "amet"], false));
        } else {
            runs.push((vec!["search", "--count", p, "7"], false));
        }
        for (args, stdin) in runs {
            let g = guarded(
                &sb,
                &args,
                stdin.then_some(path.as_path()),
                Duration::from_secs(120),
            );
            assert_sane(&g, name, &args, 64);
            if args.starts_with(&["search", "--count"]) {
                // Ten million one-line matches, counted exactly.
                assert_eq!(g.stdout, b"10000000\n");
            }
        }
    }
}
