//! `spill wrap`: pass-through, spilling, envelopes, previews, signals, command mode.

use std::os::unix::fs::PermissionsExt;

use crate::common::{Sandbox, exits_within, lines_of_text};

fn stored_path(env: &serde_json::Value) -> std::path::PathBuf {
    env["path"].as_str().expect("envelope has a path").into()
}

#[test]
fn small_inputs_pass_through_byte_for_byte() {
    let s = Sandbox::new();
    let cases: Vec<Vec<u8>> = vec![
        b"hello\n".to_vec(),
        b"no trailing newline".to_vec(),
        b"\x00\x01\xff\xfe binary \x00".to_vec(),
        b"invalid \xc3\x28 utf-8".to_vec(),
        vec![b'x'; 16384],
    ];
    for input in cases {
        let r = s.run(&["wrap"], input.clone());
        r.status(0);
        assert_eq!(r.stdout, input);
        assert_eq!(r.stderr, "");
    }
    assert!(
        !s.store_root().exists(),
        "pass-through must not touch the store"
    );
}

#[test]
fn empty_input_gives_empty_output() {
    let s = Sandbox::new();
    let r = s.run(&["wrap"], "");
    r.status(0);
    assert!(r.stdout.is_empty());
}

#[test]
fn the_threshold_is_inclusive_and_configurable() {
    let s = Sandbox::new();
    let r = s.run(&["wrap", "--max-inline", "100"], vec![b'a'; 100]);
    assert_eq!(r.stdout, vec![b'a'; 100]);
    let r = s.run(&["wrap", "--max-inline", "100"], vec![b'a'; 101]);
    assert_eq!(r.json()["spilled"], true);
    let r = s
        .cmd(&["wrap"])
        .env("SPILL_MAX_INLINE", "1K")
        .stdin(vec![b'a'; 1025])
        .run();
    assert_eq!(r.json()["sizeBytes"], 1025);
    // The flag wins over the environment.
    let r = s
        .cmd(&["wrap", "--max-inline", "2K"])
        .env("SPILL_MAX_INLINE", "1K")
        .stdin(vec![b'a'; 1025])
        .run();
    assert_eq!(r.stdout, vec![b'a'; 1025]);
}

#[test]
fn invalid_environment_values_never_lose_the_input() {
    let s = Sandbox::new();
    let r = s
        .cmd(&["wrap"])
        .env("SPILL_MAX_INLINE", "lots")
        .env("SPILL_SCOPE", "../x")
        .stdin("small\n")
        .run();
    r.status(0);
    assert_eq!(r.out(), "small\n");
    assert!(
        r.stderr
            .contains("spill: warning: ignoring SPILL_MAX_INLINE"),
        "{}",
        r.stderr
    );
    // An invalid scope is not ignored (that would mean the `default` scope): it stops storing.
    assert!(
        r.stderr
            .contains("spill: warning: SPILL_SCOPE: invalid scope name \"../x\""),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("nothing is stored"), "{}", r.stderr);
}

#[test]
fn large_input_is_stored_exactly_and_the_envelope_is_one_json_line() {
    let s = Sandbox::new();
    let input = lines_of_text(5000);
    let r = s.run(&["wrap"], input.clone());
    r.status(0);
    assert_eq!(r.stdout.iter().filter(|&&b| b == b'\n').count(), 1);
    let env = r.json();
    assert_eq!(env["spilled"], true);
    assert_eq!(env["mimeType"], "text/plain");
    assert_eq!(env["sizeBytes"], input.len());
    assert_eq!(env["lines"], 5000);
    assert_eq!(std::fs::read(stored_path(&env)).unwrap(), input);
    let reference = env["ref"].as_str().unwrap();
    assert!(reference.starts_with("sp_") && reference.len() == 19);
    let hash = blake3::hash(&input).to_hex();
    assert_eq!(&reference[3..], &hash[..16]);
    // Keys appear in their documented order.
    let text = r.out();
    let order = [
        "\"spilled\"",
        "\"ref\"",
        "\"path\"",
        "\"mimeType\"",
        "\"sizeBytes\"",
        "\"lines\"",
        "\"summary\"",
        "\"hint\"",
        "\"preview\"",
    ];
    let positions: Vec<usize> = order
        .iter()
        .map(|k| text.find(k).unwrap_or_else(|| panic!("{k} missing")))
        .collect();
    assert!(positions.windows(2).all(|w| w[0] < w[1]), "{text}");
    // cat reads it back through the ref.
    let r = s.run(&["cat", reference, "--lines", "5000:5000"], "");
    r.status(0);
    assert_eq!(
        r.out(),
        "line 004999 the quick brown fox jumps over the lazy dog\n"
    );
}

#[test]
fn identical_input_gives_a_byte_identical_envelope_and_one_copy() {
    let s = Sandbox::new();
    let input = lines_of_text(3000);
    let a = s.run(&["wrap"], input.clone());
    // The same store contents give the same envelope: the first in another store is the same
    // bytes (paths apart), and a repeat in this one is the pointer (README, "A repeated
    // output"), the same every time but for the age it gives.
    let other = Sandbox::new();
    let fresh = other.run(&["wrap"], input.clone());
    let unpath = |run: &crate::common::Run, sb: &Sandbox| {
        run.out().replace(sb.path().to_str().unwrap(), "/tmp")
    };
    assert_eq!(unpath(&a, &s), unpath(&fresh, &other));
    let b = s.run(&["wrap"], input.clone());
    let c = s.run(&["wrap"], input.clone());
    let unaged = |run: &crate::common::Run| {
        let mut env = run.json();
        assert_eq!(env["repeatOf"]["ref"], env["ref"], "{env}");
        env["repeatOf"]["storedSecondsAgo"] = serde_json::Value::Null;
        let summary = env["summary"].as_str().unwrap().to_string();
        let (head, tail) = summary.split_once(" stored ").unwrap();
        let (_, rest) = tail.split_once(" ago; ").unwrap();
        env["summary"] = format!("{head} stored AGO; {rest}").into();
        env
    };
    assert_eq!(unaged(&b), unaged(&c));
    let scope = s.store_root().join("default");
    let payloads = std::fs::read_dir(scope)
        .unwrap()
        .filter(|e| e.as_ref().unwrap().file_name().len() == 16)
        .count();
    assert_eq!(payloads, 1);
}

#[test]
fn the_preview_keeps_the_first_and_the_last_line() {
    let s = Sandbox::new();
    let mut input = b"FIRST LINE\n".to_vec();
    input.extend(lines_of_text(4000));
    input.extend_from_slice(b"LAST LINE error: it broke at the end");
    let env = s.run(&["wrap"], input).json();
    let preview = &env["preview"];
    assert_eq!(preview["head"][0], "FIRST LINE");
    let tail = preview["tail"].as_array().unwrap();
    assert_eq!(tail.last().unwrap(), "LAST LINE error: it broke at the end");
    let shown = preview["head"].as_array().unwrap().len() + tail.len();
    assert_eq!(
        preview["omittedLines"].as_u64().unwrap() as usize,
        4002 - shown
    );
    let hint = env["hint"].as_str().unwrap();
    assert!(
        hint.starts_with(&format!(
            "Stored in full as {}. Read it with: ",
            env["ref"].as_str().unwrap()
        )),
        "{hint}"
    );
    assert!(hint.contains(" · spill cat "), "{hint}");
}

#[test]
fn the_envelope_stays_within_its_bound() {
    let s = Sandbox::new();
    let long_lines: Vec<u8> = (0..2000)
        .flat_map(|i| format!("{i} {}\n", "é\"\\\u{1}".repeat(300)).into_bytes())
        .collect();
    for (max_inline, preview) in [("16K", "2K"), ("1K", "2K"), ("20K", "64K"), ("4K", "100K")] {
        let r = s.run(
            &["wrap", "--max-inline", max_inline, "--preview", preview],
            long_lines.clone(),
        );
        let bound = spill::limits::parse_size(max_inline).unwrap().max(4096) as usize;
        assert!(
            r.stdout.len() - 1 <= bound,
            "{max_inline}/{preview}: {} > {bound}",
            r.stdout.len()
        );
        r.json();
    }
}

#[test]
fn a_giant_line_is_shown_as_a_window_cut_on_character_boundaries() {
    let s = Sandbox::new();
    let mut input = "😀日本".repeat(200_000).into_bytes();
    input.push(b'\n');
    let r = s.run(&["wrap"], input.clone());
    let env = r.json();
    assert!(r.stdout.len() < 4096);
    let head = env["preview"]["head"][0].as_str().unwrap();
    assert!(head.starts_with("😀日本"), "{head}");
    assert!(head.contains("…[+"), "{head}");
    assert!(head.ends_with("日本"), "{head}");
    assert_eq!(env["lines"], 1);
    assert!(env.get("lossy").is_none());
}

#[test]
fn ansi_progress_frames_and_repeats_collapse_in_the_preview_only() {
    let s = Sandbox::new();
    let mut input = b"\x1b[1;32mCompiling\x1b[0m foo\n".to_vec();
    for _ in 0..2000 {
        input.extend_from_slice(b"retrying connection\n");
    }
    input.extend_from_slice(b"10%\r50%\r100%\n");
    input.extend(lines_of_text(500));
    let env = s.run(&["wrap", "--head-lines", "3"], input.clone()).json();
    let head = &env["preview"]["head"];
    assert_eq!(head[0], "Compiling foo");
    assert_eq!(head[1], "retrying connection");
    assert_eq!(head[2], "… previous line repeated 1,999 times");
    assert_eq!(
        std::fs::read(stored_path(&env)).unwrap(),
        input,
        "the store keeps raw bytes"
    );
}

#[test]
fn signals_outside_the_preview_are_reported_with_line_numbers() {
    let s = Sandbox::new();
    let mut input = lines_of_text(1000);
    input.extend_from_slice(b"error[E0308]: mismatched types\n  --> src/lib.rs:10:5\n");
    input.extend(lines_of_text(1000));
    input.extend_from_slice(
        b"warning: build failed somewhere\ntest result: ok. 3 passed; 0 failed\n",
    );
    input.extend(lines_of_text(1000));
    let env = s.run(&["wrap"], input).json();
    let signals = &env["signals"];
    assert_eq!(signals["total"], 2);
    assert_eq!(signals["matches"][0]["line"], 1001);
    assert_eq!(
        signals["matches"][0]["text"],
        "error[E0308]: mismatched types\n  --> src/lib.rs:10:5"
    );
    assert_eq!(signals["matches"][1]["line"], 2003);
    assert!(
        env["summary"]
            .as_str()
            .unwrap()
            .ends_with("; 2 failure signals"),
        "{}",
        env["summary"]
    );
    let hint = env["hint"].as_str().unwrap();
    assert!(
        hint.contains("spill search sp_") && hint.contains("-F 'error[E0308]' -C 2"),
        "{hint}"
    );
}

#[test]
fn binary_input_gets_a_hex_preview() {
    let s = Sandbox::new();
    let input: Vec<u8> = (0..40_000u32).map(|i| (i * 7 % 256) as u8).collect();
    let r = s.run(&["wrap"], input.clone());
    let env = r.json();
    assert_eq!(env["mimeType"], "application/octet-stream");
    assert!(
        env["summary"]
            .as_str()
            .unwrap()
            .starts_with("binary, 39.1 KiB")
    );
    let rows = env["preview"].as_array().unwrap();
    assert!(
        rows[0]
            .as_str()
            .unwrap()
            .starts_with("00000000  00 07 0e 15"),
        "{rows:?}"
    );
    assert!(env["hint"].as_str().unwrap().contains("--hex"));
    assert_eq!(std::fs::read(stored_path(&env)).unwrap(), input);
}

#[test]
fn text_format_carries_the_same_facts() {
    let s = Sandbox::new();
    let mut input = lines_of_text(3000);
    input.extend_from_slice(b"fatal: the end\n");
    let r = s.run(&["wrap", "--format", "text", "--label", "make all"], input);
    r.status(0);
    let out = r.out();
    assert!(out.starts_with("spill: "), "{out}");
    assert!(out.contains(" stored as sp_"), "{out}");
    assert!(out.contains("label: make all"), "{out}");
    assert!(out.contains("  spill cat sp_"), "{out}");
    assert!(
        out.contains("lines (") && out.contains(") omitted …"),
        "{out}"
    );
    assert!(out.contains("\nfatal: the end\n"), "{out}");
    // The one signal is in the preview; the list names it all the same (#28: a total never
    // stands beside an empty list).
    assert!(
        out.contains(
            "failure signals (1 in total; all within the preview above, the best):\n  3001: fatal: the end\n"
        ),
        "{out}"
    );
}

#[test]
fn labels_are_echoed_stored_and_listed() {
    let s = Sandbox::new();
    let env = s
        .run(&["wrap", "--label", "cargo test"], lines_of_text(2000))
        .json();
    assert_eq!(env["label"], "cargo test");
    let ls = s.run(&["ls", "--json"], "").json();
    assert_eq!(ls["entries"][0]["label"], "cargo test");
    assert_eq!(ls["entries"][0]["ref"], env["ref"]);
    // Spilling the same content without a label keeps the old one.
    s.run(&["wrap"], lines_of_text(2000));
    assert_eq!(
        s.run(&["ls", "--json"], "").json()["entries"][0]["label"],
        "cargo test"
    );
}

#[test]
fn command_mode_captures_both_streams_in_order_and_exits_with_the_status() {
    let s = Sandbox::new();
    let r = s.run(
        &[
            "wrap",
            "--",
            "sh",
            "-c",
            "echo out; echo err >&2; echo out2; exit 3",
        ],
        "",
    );
    r.status(3);
    assert_eq!(r.out(), "out\nerr\nout2\n");
    let r = s.run(
        &[
            "wrap",
            "--max-inline",
            "100",
            "--",
            "sh",
            "-c",
            "seq 1 1000; echo 'fatal: no' >&2; exit 4",
        ],
        "",
    );
    r.status(4);
    let env = r.json();
    assert_eq!(env["exitCode"], 4);
    let stored = std::fs::read_to_string(stored_path(&env)).unwrap();
    assert!(stored.ends_with("1000\nfatal: no\n"));
}

#[test]
fn command_mode_status_for_missing_unrunnable_killed_and_timed_out_commands() {
    let s = Sandbox::new();
    let r = s.run(&["wrap", "--", "/no/such/cmd"], "");
    r.status(127);
    assert!(
        r.stderr
            .starts_with("spill: /no/such/cmd: command not found"),
        "{}",
        r.stderr
    );
    let f = s.file("not-exec.sh", "echo hi\n");
    std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o644)).unwrap();
    let r = s.run(&["wrap", "--", f.to_str().unwrap()], "");
    r.status(126);
    // Killed by a signal: wrap dies by the same signal (a shell's $? is 128 + 15), its
    // output written first.
    let r = s.run(
        &["wrap", "--", "sh", "-c", "echo before; kill -TERM $$"],
        "",
    );
    r.status(-15);
    assert_eq!(r.out(), "before\n");
    let r = s.run(&["wrap", "--", "sh", "-c", "kill -KILL $$"], "");
    r.status(-9);
    let r = s.run(&["wrap", "--", "sh", "-c", "echo x; kill -SEGV $$"], "");
    r.status(-11);
    let shell = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!(
            "{} wrap -- sh -c 'kill -TERM $$'; echo \"status $?\"",
            env!("CARGO_BIN_EXE_spill")
        ))
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("TMPDIR", s.path())
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&shell.stdout), "status 143\n");
    let r = s.run(
        &[
            "wrap",
            "--timeout",
            "1s",
            "--",
            "sh",
            "-c",
            "echo started; sleep 30",
        ],
        "",
    );
    r.status(124);
    assert_eq!(r.out(), "started\n");
}

#[test]
fn interrupted_reading_still_stores_and_says_so() {
    let s = Sandbox::new();
    let mut child = s.cmd(&["wrap", "--max-inline", "1K"]).spawn_piped();
    let mut stdin = child.stdin.take().unwrap();
    use std::io::Write;
    stdin.write_all(&lines_of_text(200)).unwrap();
    stdin.flush().unwrap();
    std::thread::sleep(std::time::Duration::from_millis(300));
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let out = child.wait_with_output().unwrap();
    drop(stdin);
    assert_eq!(out.status.code(), Some(0));
    let env: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(env["interrupted"], true);
    assert_eq!(env["lines"], 200);
    assert_eq!(
        std::fs::read(stored_path(&env)).unwrap(),
        lines_of_text(200)
    );
}

#[test]
fn the_per_file_cap_keeps_head_marker_and_tail_and_says_what_was_dropped() {
    let s = Sandbox::new();
    let input = lines_of_text(20_000);
    let env = s.run(&["wrap", "--max-file", "64K"], input.clone()).json();
    assert_eq!(env["complete"], false);
    assert_eq!(env["sizeBytes"], input.len());
    let stored = std::fs::read(stored_path(&env)).unwrap();
    assert_eq!(env["storedBytes"], stored.len());
    let dropped = env["droppedBytes"].as_u64().unwrap() as usize;
    assert_eq!(&stored[..48 * 1024], &input[..48 * 1024]);
    assert!(stored.ends_with(&input[input.len() - 16 * 1024..]));
    assert_eq!(dropped, input.len() - 64 * 1024);
    let text = String::from_utf8_lossy(&stored);
    assert!(
        text.contains("bytes dropped here by --max-file"),
        "marker missing"
    );
    let hash = blake3::hash(&stored).to_hex();
    assert_eq!(
        &env["ref"].as_str().unwrap()[3..],
        &hash[..16],
        "the ref names the stored bytes"
    );
}

#[test]
fn broken_stdout_is_quiet() {
    let s = Sandbox::new();
    let mut child = s.cmd(&["wrap", "--max-inline", "1G"]).spawn_piped();
    drop(child.stdout.take());
    let mut stdin = child.stdin.take().unwrap();
    use std::io::Write;
    let _ = stdin.write_all(&lines_of_text(20_000));
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
}

fn api_document(items: usize) -> Vec<u8> {
    let mut doc = String::from("{\n  \"items\": [\n");
    for i in 0..items {
        let sep = if i + 1 == items { "" } else { "," };
        doc.push_str(&format!(
            "    {{\"id\": {i}, \"name\": \"item {i}\", \"big\": 12345678901234567890123, \"desc\": \"{}\"}}{sep}\n",
            "d".repeat(250)
        ));
    }
    doc.push_str("  ],\n  \"meta\": {\"count\": 1}\n}\n");
    doc.into_bytes()
}

#[test]
fn json_envelopes_name_the_dominant_array_with_exact_counts() {
    let s = Sandbox::new();
    let r = s.run(&["wrap"], api_document(1250));
    let env = r.json();
    assert_eq!(env["mimeType"], "application/json");
    assert_eq!(env["totalItems"], 1250);
    let summary = env["summary"].as_str().unwrap();
    assert!(
        summary.starts_with("JSON object, ")
            && summary.ends_with("; $.items is an array of 1,250 objects"),
        "{summary}"
    );
    let reference = env["ref"].as_str().unwrap();
    assert_eq!(
        env["hint"],
        format!(
            "Stored in full as {reference}. Read it with: spill shape {reference} · spill extract {reference} '$.items[0:5]'"
        )
    );
    // No generic search: no line holds a failure word, so it would find nothing.
    s.cmd(&["search", reference, "-i", "error|fail"])
        .run()
        .status(1);
    assert_eq!(env["shape"]["items"]["array[1250]"]["id"], "integer");
    let preview = env["preview"].as_array().unwrap();
    assert_eq!(preview.len(), 3);
    assert_eq!(preview[0]["id"], 0);
    assert!(
        preview[0]["desc"]
            .as_str()
            .unwrap()
            .contains("…[+50 chars]")
    );
    assert!(
        r.out().contains("\"big\":12345678901234567890123"),
        "numbers are copied as written"
    );
    assert!(r.stdout.len() <= 16 * 1024);
    let ls = s.run(&["ls", "--json"], "").json();
    assert_eq!(ls["entries"][0]["mimeType"], "application/json");
    assert_eq!(ls["entries"][0]["totalItems"], 1250);
}

#[test]
fn ndjson_is_counted_by_records() {
    let s = Sandbox::new();
    let input: String = (0..3000)
        .map(|i| format!("{{\"seq\":{i},\"level\":\"info\"}}\n"))
        .collect();
    let env = s.run(&["wrap"], input).json();
    assert_eq!(env["mimeType"], "application/x-ndjson");
    assert_eq!(env["totalItems"], 3000);
    assert_eq!(env["lines"], 3000);
    assert_eq!(env["shape"]["ndjson[3000]"]["seq"], "integer");
    assert!(env["hint"].as_str().unwrap().contains("'$[0:5]'"));
}

#[test]
fn invalid_json_is_text_and_the_summary_says_where_it_broke() {
    let s = Sandbox::new();
    let mut input = api_document(200);
    input.extend_from_slice(b"}");
    let env = s.run(&["wrap"], input.clone()).json();
    assert_eq!(env["mimeType"], "text/plain");
    let summary = env["summary"].as_str().unwrap();
    let at = input.len() - 1;
    assert!(
        summary.contains(&format!(
            "looks like JSON but is invalid at byte {at} (line "
        )),
        "{summary}"
    );
    assert!(env["preview"]["head"].is_array());
}

#[test]
fn a_capped_json_payload_is_described_as_text() {
    let s = Sandbox::new();
    let env = s
        .run(&["wrap", "--max-file", "64K"], api_document(2000))
        .json();
    assert_eq!(env["complete"], false);
    assert_eq!(env["mimeType"], "text/plain");
    assert!(env["hint"].as_str().unwrap().contains("spill cat "));
}

/// Every command of a hint runs verbatim when pasted into a shell, and finds something.
#[track_caller]
fn assert_hint_commands_run(s: &Sandbox, env: &serde_json::Value) -> usize {
    let hint = env["hint"].as_str().expect("a hint");
    let commands = hint.split_once("Read it with: ").expect("hint prefix").1;
    let mut n = 0;
    for command in commands.split(" · ") {
        let r = s.shell(command);
        assert_eq!(
            r.code,
            Some(0),
            "{command}\nstdout: {}\nstderr: {}",
            r.out(),
            r.stderr
        );
        assert!(!r.stdout.is_empty(), "{command} printed nothing");
        n += 1;
    }
    n
}

#[test]
fn hint_commands_run_as_pasted_for_every_kind() {
    let s = Sandbox::new();
    // Text with a strong signal: search by its marker, and cat of the omitted middle.
    let mut log = lines_of_text(3000);
    log.extend_from_slice(b"error[E0599]: no method named `x`\n");
    log.extend(lines_of_text(3000));
    assert_eq!(
        assert_hint_commands_run(&s, &s.run(&["wrap"], log).json()),
        2
    );
    // JSON: shape, extract of the dominant array's first items, search.
    let mut doc = api_document(400);
    let at = doc.len() - 3;
    doc.splice(
        at..at,
        b", \"status\": \"error: upstream failed\"".iter().copied(),
    );
    let env = s.run(&["wrap"], doc).json();
    assert_eq!(env["mimeType"], "application/json");
    assert_eq!(assert_hint_commands_run(&s, &env), 3);
    // NDJSON: extract of the first records, search.
    let ndjson: String = (0..3000)
        .map(|i| format!("{{\"seq\":{i},\"msg\":\"request failed\"}}\n"))
        .collect();
    let env = s.run(&["wrap"], ndjson).json();
    assert_eq!(env["mimeType"], "application/x-ndjson");
    assert_eq!(assert_hint_commands_run(&s, &env), 2);
    // Binary: hex dumps of the start and the end.
    let binary: Vec<u8> = (0..50_000u32).map(|i| (i % 251) as u8).collect();
    let env = s.run(&["wrap"], binary).json();
    assert_eq!(assert_hint_commands_run(&s, &env), 2);
}

#[test]
fn a_signal_stops_wrap_even_while_the_producer_keeps_writing() {
    use std::io::Write;
    let s = Sandbox::new();
    let mut child = s.cmd(&["wrap", "--max-inline", "1K"]).spawn_piped();
    let mut stdin = child.stdin.take().unwrap();
    // A producer that never stops: wrap is always busy with data, rarely blocked in read.
    let producer = std::thread::spawn(move || {
        let chunk = lines_of_text(1000);
        while stdin.write_all(&chunk).is_ok() {}
    });
    let scope = s.store_root().join("default");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while std::time::Instant::now() < deadline
        && !std::fs::read_dir(&scope).is_ok_and(|mut d| d.any(|e| e.is_ok()))
    {
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    std::thread::sleep(std::time::Duration::from_millis(100));
    // SAFETY: kill(2) on the child's pid, which has not been waited for.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let stopped = exits_within(&mut child, std::time::Duration::from_secs(10));
    let out = child.wait_with_output().unwrap();
    producer.join().unwrap();
    assert!(stopped, "wrap kept reading after SIGTERM");
    assert_eq!(out.status.code(), Some(0));
    let env: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(env["interrupted"], true, "{env}");
    assert_eq!(
        std::fs::metadata(stored_path(&env)).unwrap().len(),
        env["sizeBytes"].as_u64().unwrap()
    );
}

#[test]
fn a_signal_between_reads_is_not_lost_when_the_producer_then_goes_silent() {
    use std::io::Write;
    // The signal may land after wrap checked for one and before it blocks in the next read;
    // the producer then writes nothing more but keeps the pipe open. wrap must still stop (it
    // polls a self-pipe the handler writes to). Many tries, at varied moments of a busy read.
    let s = Sandbox::new();
    for attempt in 0..40u64 {
        let mut child = s.cmd(&["wrap", "--max-inline", "1K"]).spawn_piped();
        let mut stdin = child.stdin.take().unwrap();
        let chunk = lines_of_text(2000);
        let start = std::time::Instant::now();
        let busy = std::time::Duration::from_micros(2000 + 150 * attempt);
        // More than the 1 MiB pipe holds: wrap is reading by now, and past --max-inline.
        let mut written = 0;
        while start.elapsed() < busy || written <= 2 << 20 {
            stdin.write_all(&chunk).unwrap();
            written += chunk.len();
        }
        // SAFETY: kill(2) on the child's pid, which has not been waited for.
        unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
        let stopped = exits_within(&mut child, std::time::Duration::from_secs(10));
        drop(stdin);
        let out = child.wait_with_output().unwrap();
        assert!(
            stopped,
            "attempt {attempt}: wrap waited on a silent producer after SIGTERM"
        );
        assert_eq!(out.status.code(), Some(0), "attempt {attempt}");
        let env: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(env["interrupted"], true, "attempt {attempt}: {env}");
    }
}

/// A store root nobody can create (below a regular file: root ignores permission bits).
fn uncreatable_root(sb: &Sandbox) -> std::path::PathBuf {
    sb.file("plain-file", b"").join("store")
}

#[test]
fn under_a_harness_an_output_that_cannot_be_stored_passes_through_and_one_line_says_so() {
    let sb = Sandbox::new();
    let root = uncreatable_root(&sb);
    let big = lines_of_text(20_000);
    let run = sb
        .cmd(&["wrap"])
        .env("SPILL_DIR", &root)
        .env("SPILL_HARNESS", "codex")
        .stdin(big.clone())
        .run();
    run.status(0);
    assert!(run.stdout.starts_with(&big), "the output changed");
    let line = String::from_utf8(run.stdout[big.len()..].to_vec()).unwrap();
    assert_eq!(line.matches('\n').count(), 1, "{line}");
    assert!(line.ends_with("]\n"), "{line}");
    assert!(
        line.contains("not a directory") && line.contains("workspace-write"),
        "{line}"
    );
    assert!(!run.stderr.contains("preview only"), "{}", run.stderr);
    // --redact still applies to what passes through.
    let secret = b"token ghp_0123456789abcdefghijABCDEFGHIJ012345\n";
    let mut with_secret = big.clone();
    with_secret.extend_from_slice(secret);
    let run = sb
        .cmd(&["wrap", "--redact"])
        .env("SPILL_DIR", &root)
        .env("SPILL_HARNESS", "codex")
        .stdin(with_secret)
        .run();
    run.status(0);
    assert!(run.stdout.starts_with(&big));
    assert!(!run.out().contains("ghp_0123456789"), "{}", run.out());
    assert!(
        run.out().contains("token [REDACTED]\n[spill: "),
        "{}",
        run.out()
    );
    // An invalid store setting (not just an uncreatable one) passes through the same way.
    let run = sb
        .cmd(&["wrap"])
        .env("SPILL_SCOPE", "no/slashes")
        .env("SPILL_HARNESS", "codex")
        .stdin(big.clone())
        .run();
    run.status(0);
    assert!(run.stdout.starts_with(&big));
    assert!(
        run.stderr
            .contains("larger output passes through unchanged"),
        "{}",
        run.stderr
    );
}

#[test]
fn without_a_harness_an_unstorable_output_still_gets_the_degraded_envelope() {
    let sb = Sandbox::new();
    let root = uncreatable_root(&sb);
    let big = lines_of_text(20_000);
    for harness in [None, Some("no-such-harness")] {
        let mut cmd = sb.cmd(&["wrap"]).env("SPILL_DIR", &root).stdin(big.clone());
        if let Some(h) = harness {
            cmd = cmd.env("SPILL_HARNESS", h);
        }
        let run = cmd.run();
        run.status(0);
        let env = run.json();
        assert_eq!(env["spilled"], false, "{env}");
        assert_eq!(env["sizeBytes"], big.len());
        assert!(run.stderr.contains("preview only"), "{}", run.stderr);
        if harness.is_some() {
            assert!(
                run.stderr
                    .contains("SPILL_HARNESS: unknown harness \"no-such-harness\""),
                "{}",
                run.stderr
            );
        }
    }
}

#[test]
fn a_harness_command_whose_output_cannot_be_stored_keeps_its_status_and_every_byte() {
    let sb = Sandbox::new();
    let root = uncreatable_root(&sb);
    let run = sb
        .cmd(&[
            "wrap",
            "--",
            "sh",
            "-c",
            "seq 1 50000; echo 'last' >&2; exit 5",
        ])
        .env("SPILL_DIR", &root)
        .env("SPILL_HARNESS", "codex")
        .run();
    run.status(5);
    let mut want: Vec<u8> = (1..=50_000)
        .map(|i| format!("{i}\n"))
        .collect::<String>()
        .into();
    want.extend_from_slice(b"last\n");
    assert!(run.stdout.starts_with(&want), "the output changed");
    let line = String::from_utf8(run.stdout[want.len()..].to_vec()).unwrap();
    assert!(
        // 288,894 bytes of seq and 5 of `last`.
        line.starts_with("[spill: 288,899 bytes not stored ("),
        "{line}"
    );
    assert_eq!(line.matches('\n').count(), 1, "{line}");
}
