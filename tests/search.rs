//! `spill search` through the real binary: every flag and output form, pagination, windows on
//! giant lines, binary sources, the exit-code table and a closed pipe.

use std::process::Stdio;

use crate::common::{Run, Sandbox};

const LOG: &str = "\
boot ok
disk error on sda
retry
retry
network ERROR: timeout
shutdown
error error error
done
";

fn search(s: &Sandbox, args: &[&str], stdin: &str) -> Run {
    let mut all = vec!["search", "-"];
    all.extend_from_slice(args);
    s.run(&all, stdin)
}

/// Byte offsets of every occurrence, line by line, as the `regex` crate finds them.
fn oracle(haystack: &[u8], pattern: &str) -> Vec<u64> {
    let re = regex::bytes::Regex::new(&format!("(?m){pattern}")).unwrap();
    let mut offsets = Vec::new();
    let mut start = 0;
    for line in haystack.split_inclusive(|&b| b == b'\n') {
        let text = line.strip_suffix(b"\n").unwrap_or(line);
        offsets.extend(re.find_iter(text).map(|m| (start + m.start()) as u64));
        start += line.len();
    }
    offsets
}

#[test]
fn text_rows_are_line_column_text_and_the_footer_follows_on_stderr() {
    let s = Sandbox::new();
    let r = search(&s, &["error"], LOG);
    r.status(0);
    assert_eq!(
        r.out(),
        "2:6:disk error on sda\n7:1:error error error\n7:7:error error error\n7:13:error error error\n"
    );
    assert_eq!(r.stderr, "matches 1–4 of 4\n");
}

#[test]
fn context_lines_print_once_and_groups_merge_or_separate() {
    let s = Sandbox::new();
    let r = search(&s, &["-i", "error", "-C", "1"], LOG);
    r.status(0);
    assert_eq!(
        r.out(),
        "1-boot ok\n2:6:disk error on sda\n3-retry\n4-retry\n5:9:network ERROR: timeout\n\
         6-shutdown\n7:1:error error error\n7:7:error error error\n7:13:error error error\n8-done\n"
    );
    let r = search(&s, &["boot|done", "-C", "1"], LOG);
    assert_eq!(
        r.out(),
        "1:1:boot ok\n2-disk error on sda\n--\n7-error error error\n8:1:done\n"
    );
    // The largest context (10^15, the maximum of every count) is whole-file context, not an
    // overflow; past it the value is refused.
    let r = search(&s, &["timeout", "-C", "1000000000000000"], LOG);
    assert_eq!(r.out().lines().count(), 8);
    let huge = u64::MAX.to_string();
    let r = search(&s, &["timeout", "-C", &huge], LOG);
    r.status(2);
    assert!(
        r.stderr.contains("at most 1,000,000,000,000,000"),
        "{}",
        r.stderr
    );
    let r = search(&s, &["timeout", "-B", "2"], LOG);
    assert_eq!(r.out(), "3-retry\n4-retry\n5:16:network ERROR: timeout\n");
    let r = search(&s, &["timeout", "-A", "1"], LOG);
    assert_eq!(r.out(), "5:16:network ERROR: timeout\n6-shutdown\n");
    // -A and -B take precedence over -C.
    let r = search(&s, &["timeout", "-C", "2", "-A", "0"], LOG);
    assert_eq!(r.out(), "3-retry\n4-retry\n5:16:network ERROR: timeout\n");
}

#[test]
fn pattern_flags() {
    let s = Sandbox::new();
    let count = |args: &[&str], text: &str| {
        let mut all = vec!["--count"];
        all.extend_from_slice(args);
        search(&s, &all, text).out()
    };
    assert_eq!(count(&["error"], LOG), "4\n");
    assert_eq!(count(&["-i", "error"], LOG), "5\n");
    assert_eq!(count(&["a.c"], "abc a.c\n"), "2\n");
    assert_eq!(count(&["-F", "a.c"], "abc a.c\n"), "1\n");
    assert_eq!(count(&["-w", "err"], "err error err_x err.\n"), "2\n");
    assert_eq!(count(&["-e", "retry", "-e", "boot"], LOG), "3\n");
    // The positional PATTERN and -e patterns combine.
    assert_eq!(count(&["done", "-e", "boot"], LOG), "2\n");
    assert_eq!(count(&["-e", "-x"], "a -x b\n"), "1\n");
}

#[test]
fn a_minified_line_holds_one_match_per_occurrence() {
    let s = Sandbox::new();
    let line: String = (0..300)
        .map(|i| format!("{{\"id\":{i},\"hit\":true}},"))
        .collect();
    let json = format!("[{}]", line.trim_end_matches(','));
    let r = search(&s, &["hit", "--json", "--limit", "300"], &json);
    r.status(0);
    let v = r.json();
    assert_eq!(v["totalMatches"], 300);
    let matches = v["matches"].as_array().unwrap();
    assert_eq!(matches.len(), 300);
    let offsets: Vec<u64> = matches
        .iter()
        .map(|m| m["byteOffset"].as_u64().unwrap())
        .collect();
    assert_eq!(offsets, oracle(json.as_bytes(), "hit"));
    for m in matches {
        assert_eq!(m["line"], 1);
        assert_eq!(
            m["column"].as_u64().unwrap(),
            m["byteOffset"].as_u64().unwrap() + 1
        );
        let at = (m["byteOffset"].as_u64().unwrap() - m["textStart"].as_u64().unwrap()) as usize;
        let text = m["text"].as_str().unwrap().trim_start_matches('…');
        assert_eq!(
            &text[at..at + 3],
            "hit",
            "the text window contains its match"
        );
    }
}

#[test]
fn json_output_has_the_spec_fields_in_order() {
    let s = Sandbox::new();
    let r = search(&s, &["retry", "--json", "-C", "1", "--limit", "1"], LOG);
    r.status(0);
    assert_eq!(r.stderr, "", "with --json, stderr stays silent");
    assert_eq!(
        r.out(),
        "{\"matches\":[{\"line\":3,\"column\":1,\"byteOffset\":26,\"text\":\"retry\",\"textStart\":0,\
         \"before\":[\"disk error on sda\"],\"after\":[\"retry\"]}],\"totalMatches\":2,\"offset\":0,\
         \"limit\":1,\"hasMore\":true,\"nextOffset\":1}\n"
    );
}

#[test]
fn count_is_a_bare_integer_or_an_object() {
    let s = Sandbox::new();
    let r = search(&s, &["retry", "--count"], LOG);
    r.status(0);
    assert_eq!((r.out().as_str(), r.stderr.as_str()), ("2\n", ""));
    let r = search(&s, &["retry", "--count", "--json"], LOG);
    assert_eq!(r.out(), "{\"totalMatches\":2}\n");
    let r = search(&s, &["nothing", "--count"], LOG);
    r.status(1);
    assert_eq!(r.out(), "0\n");
}

#[test]
fn concatenated_pages_are_every_occurrence_in_order() {
    let s = Sandbox::new();
    let mut text = String::new();
    for i in 0..400 {
        text.push_str(&format!("row {i}: {}\n", "ab ".repeat(i % 4)));
    }
    let f = s.file("rows.txt", &text);
    let expected = oracle(text.as_bytes(), "ab|7");
    let mut got = Vec::new();
    let mut offset = 0u64;
    loop {
        let off = offset.to_string();
        let r = s.run(
            &[
                "search",
                f.to_str().unwrap(),
                "ab|7",
                "--json",
                "--limit",
                "37",
                "--offset",
                &off,
                "-C",
                "1",
            ],
            "",
        );
        r.status(0);
        let v = r.json();
        assert_eq!(v["totalMatches"].as_u64().unwrap(), expected.len() as u64);
        got.extend(
            v["matches"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| m["byteOffset"].as_u64().unwrap()),
        );
        match v["nextOffset"].as_u64() {
            Some(next) => {
                assert!(next > offset);
                offset = next;
            }
            None => break,
        }
    }
    assert_eq!(got, expected);
}

#[test]
fn footers_page_through_and_can_move_to_stdout() {
    let s = Sandbox::new();
    let text = "x\n".repeat(342);
    let r = search(&s, &["x", "--offset", "20"], &text);
    r.status(0);
    assert_eq!(r.out().lines().count(), 20);
    assert!(r.out().starts_with("21:1:x\n"));
    assert_eq!(r.stderr, "matches 21–40 of 342 · next: --offset 40\n");
    let r = search(&s, &["x", "--offset", "340", "--footer", "stdout"], &text);
    assert_eq!(r.out(), "341:1:x\n342:1:x\nmatches 341–342 of 342\n");
    assert_eq!(r.stderr, "");
    let r = s
        .cmd(&["search", "-", "x", "--limit", "1"])
        .env("SPILL_FOOTER", "stdout")
        .stdin(text.clone())
        .run();
    assert_eq!(r.out(), "1:1:x\nmatches 1–1 of 342 · next: --offset 1\n");
    let r = search(&s, &["x", "--limit", "1000"], &"x\n".repeat(1250));
    assert_eq!(r.stderr, "matches 1–1,000 of 1,250 · next: --offset 1000\n");
}

#[test]
fn a_page_past_the_end_is_empty_but_still_exits_0() {
    let s = Sandbox::new();
    let r = search(&s, &["retry", "--offset", "5", "--json"], LOG);
    r.status(0);
    let v = r.json();
    assert_eq!(v["matches"], serde_json::json!([]));
    assert_eq!(
        (v["totalMatches"].as_u64(), v["hasMore"].as_bool()),
        (Some(2), Some(false))
    );
    assert!(v["nextOffset"].is_null());
    let r = search(&s, &["retry", "--offset", "5"], LOG);
    r.status(0);
    assert_eq!(r.out(), "");
    assert!(r.stderr.contains("2 in total"), "{}", r.stderr);
}

#[test]
fn giant_lines_print_a_window_cut_on_character_boundaries() {
    let s = Sandbox::new();
    // 8 MB of multi-byte text on one line around one ASCII needle.
    let mut line = "日本語".repeat(900_000);
    line.push_str("NEEDLE");
    line.push_str(&"é".repeat(600_000));
    let f = s.file("giant.txt", format!("{line}\nsecond line\n"));
    let r = s.run(&["search", f.to_str().unwrap(), "NEEDLE", "-A", "1"], "");
    r.status(0);
    let out = String::from_utf8(r.stdout.clone()).expect("cut inside a character");
    assert!(out.len() < 2000, "{} bytes printed", out.len());
    let first = out.lines().next().unwrap();
    let column = "日本語".len() * 900_000 + 1;
    assert!(first.starts_with(&format!("1:{column}:…")), "{first}");
    assert!(first.ends_with("é…"));
    assert!(first.contains("本語NEEDLEéé"));
    let window = first.splitn(3, ':').nth(2).unwrap();
    assert_eq!(
        window.chars().count(),
        302,
        "300 characters and two cut markers"
    );
    assert_eq!(out.lines().nth(1), Some("2-second line"));
    // A narrower window, and 0 for whole lines.
    let r = s.run(
        &[
            "search",
            f.to_str().unwrap(),
            "NEEDLE",
            "--max-columns",
            "16",
        ],
        "",
    );
    assert_eq!(r.out(), format!("1:{column}:…本語日本語NEEDLEééééé…\n"));
    let r = search(&s, &["b", "--max-columns", "0"], &"ab".repeat(1000));
    assert_eq!(r.out().lines().next().unwrap().len(), "1:2:".len() + 2000);
}

#[test]
fn long_context_lines_show_their_beginning() {
    let s = Sandbox::new();
    let text = format!("{}\nneedle\n", "c".repeat(5000));
    let r = search(&s, &["needle", "-B", "1", "--max-columns", "10"], &text);
    assert_eq!(r.out(), "1-cccccccccc…\n2:1:needle\n");
}

#[test]
fn binary_sources_are_searched_past_nul_bytes() {
    let s = Sandbox::new();
    let mut data = vec![0u8; 200_000];
    data.extend_from_slice(b"\x00\xffsecret=1\x00\x00secret=2\n");
    let f = s.file("blob.bin", &data);
    let r = s.run(&["search", f.to_str().unwrap(), "secret=\\d", "--json"], "");
    r.status(0);
    let v = r.json();
    assert_eq!(v["totalMatches"], 2);
    assert_eq!(v["matches"][0]["byteOffset"], 200_002);
    assert_eq!(v["lossy"], true, "invalid UTF-8 is replaced and flagged");
    assert!(
        v["matches"][0]["text"]
            .as_str()
            .unwrap()
            .contains("\u{fffd}secret=1\u{0}")
    );
    // Stdin too.
    let r = s.run(&["search", "-", "secret", "--count"], data);
    assert_eq!(r.out(), "2\n");
}

#[test]
fn invalid_regexes_are_searched_as_literals_and_say_so() {
    let s = Sandbox::new();
    let text = "call foo(1) and foo(2)\n";
    let r = search(&s, &["foo("], text);
    r.status(0);
    assert_eq!(
        r.out(),
        "1:6:call foo(1) and foo(2)\n1:17:call foo(1) and foo(2)\n"
    );
    assert!(
        r.stderr
            .starts_with("spill: note: pattern is not a valid regex ("),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr
            .contains("); searched it as a literal\nmatches 1–2 of 2\n"),
        "{}",
        r.stderr
    );
    let r = search(&s, &["foo(", "--json"], text);
    assert_eq!(r.stderr, "");
    assert_eq!(r.json()["patternMode"], "literal");
    let r = search(&s, &["foo(", "--json", "--count"], text);
    assert_eq!(
        r.out(),
        "{\"totalMatches\":2,\"patternMode\":\"literal\"}\n"
    );
    // A typed \n is not allowed in a line regex: it finds JSON's escaped line breaks.
    let r = search(&s, &["\\n", "--count"], "{\"log\":\"a\\nb\"}\n");
    assert_eq!(r.out(), "1\n");
}

#[test]
fn exit_codes() {
    let s = Sandbox::new();
    search(&s, &["retry"], LOG).status(0);
    search(&s, &["absent"], LOG).status(1);
    search(&s, &["absent", "--json"], LOG).status(1);
    search(&s, &["retry", "--offset", "99"], LOG).status(0);
    let r = search(&s, &["retry", "--limit", "0"], LOG);
    r.status(0);
    assert_eq!(
        (r.out().as_str(), r.stderr.as_str()),
        ("", "2 matches in total; none shown (--limit 0)\n")
    );
    search(&s, &["retry", "--count"], LOG).status(0);
    search(&s, &["absent", "--count"], LOG).status(1);
    let r = search(&s, &[""], LOG);
    r.status(2);
    assert!(
        r.stderr.starts_with("spill: the search pattern is empty"),
        "{}",
        r.stderr
    );
    search(&s, &["-e", "x", "-e", ""], LOG).status(2);
    let r = s.run(&["search", "-"], LOG);
    r.status(2);
    let r = s.run(
        &["search", s.path().join("missing").to_str().unwrap(), "x"],
        "",
    );
    r.status(2);
    assert!(r.stderr.starts_with("spill: cannot open "), "{}", r.stderr);
    let r = s.run(&["search", "sp_0123456789abcdef", "x"], "");
    r.status(2);
    assert!(r.stderr.contains("unknown ref"), "{}", r.stderr);
    search(&s, &["-F", "-e", "a\nb"], LOG).status(2);
    search(&s, &["x", "--limit", "many"], LOG).status(2);
    search(&s, &["x"], "").status(1);
}

#[test]
fn stored_outputs_are_searched_by_ref() {
    let s = Sandbox::new();
    let text: String = (0..3000)
        .map(|i| format!("line {i} {}\n", if i % 1000 == 7 { "panic" } else { "ok" }))
        .collect();
    let env = s.run(&["wrap"], text).status(0).json();
    let reference = env["ref"].as_str().unwrap();
    let r = s.run(&["search", reference, "panic"], "");
    r.status(0);
    assert_eq!(
        r.out(),
        "8:8:line 7 panic\n1008:11:line 1007 panic\n2008:11:line 2007 panic\n"
    );
}

#[test]
fn colour_only_when_asked_or_on_a_terminal() {
    let s = Sandbox::new();
    let r = search(&s, &["timeout"], LOG);
    assert!(!r.out().contains('\x1b'), "piped output has no colour");
    let r = s.run(&["search", "-", "timeout", "--color", "always"], LOG);
    assert_eq!(
        r.out(),
        "\x1b[32m5\x1b[0m:16:network ERROR: \x1b[1;31mtimeout\x1b[0m\n"
    );
    let r = s.run(
        &["--color", "always", "search", "-", "timeout", "--json"],
        LOG,
    );
    assert!(!r.out().contains('\x1b'), "never colour inside JSON");
    // Escape sequences of the source never go through the colour layer's stripper: with --raw
    // they pass through untouched when piped; without, the source is read as the envelope
    // shows it (escape sequences removed, README "What the envelope shows, the readers find").
    let r = search(&s, &["red", "--raw"], "\x1b[31mred\x1b[0m\n");
    assert_eq!(r.out(), "1:6:\x1b[31mred\x1b[0m\n");
    let r = search(&s, &["red"], "\x1b[31mred\x1b[0m\n");
    assert_eq!(r.out(), "1:1:red\n");
}

#[test]
fn a_closed_pipe_ends_quietly_with_status_0() {
    let s = Sandbox::new();
    let f = s.file("many.txt", "match this line\n".repeat(200_000));
    let r = s
        .cmd(&["search", f.to_str().unwrap(), "match", "--limit", "200000"])
        .run_closing_stdout_after(16);
    r.status(0);
    assert_eq!(r.stderr, "");
}

/// Runs `spill ARGS…` with stdout on a pseudo-terminal; returns what the terminal received
/// (with the terminal's `\r\n` turned back into `\n`).
fn on_terminal(s: &Sandbox, args: &[&str], stdin: &str, env: &[(&str, &str)]) -> String {
    let (mut master, slave) = crate::common::openpty();
    // Paging at a terminal is tests/terminal.rs's subject: here the output comes straight.
    let mut cmd = s.cmd(args).stdin(stdin).env("SPILL_PAGER", "cat");
    for (k, v) in env {
        cmd = cmd.env(k, v);
    }
    let mut command = cmd.into_command();
    command
        .stdin(Stdio::piped())
        .stdout(Stdio::from(slave))
        .stderr(Stdio::null());
    let mut child = command.spawn().unwrap();
    {
        use std::io::Write;
        let mut input = child.stdin.take().unwrap();
        input.write_all(stdin.as_bytes()).unwrap();
    }
    // The child holds the only slave descriptor (`command` owns ours): drop it so that the
    // master reads EIO once the child exits.
    drop(command);
    let status = child.wait().unwrap();
    assert!(status.success() || status.code() == Some(1));
    crate::common::read_terminal(&mut master)
}

#[test]
fn on_a_terminal_control_characters_are_escaped_unless_raw_and_matches_highlighted() {
    let s = Sandbox::new();
    // The title-setting sequence is removed by the cleaned view; a control character that
    // is not part of an escape sequence (a backspace here) is escaped on a terminal.
    let text = "title \x1b]0;pwned\x07 here \x08\n";
    let shown = on_terminal(&s, &["search", "-", "here"], text, &[("NO_COLOR", "1")]);
    assert_eq!(shown, "1:8:title  here \\x{8}\n");
    let shown = on_terminal(
        &s,
        &["search", "-", "here", "--raw"],
        text,
        &[("NO_COLOR", "1")],
    );
    assert_eq!(shown, format!("1:18:{text}"));
    let shown = on_terminal(
        &s,
        &["search", "-", "pwned", "--raw"],
        "\x07pwned\n",
        &[("NO_COLOR", "1")],
    );
    assert_eq!(
        shown, "1:2:\x07pwned\n",
        "--raw prints the bytes as they are"
    );
    let shown = on_terminal(
        &s,
        &["search", "-", "pwned"],
        "\x07pwned\n",
        &[("NO_COLOR", "1")],
    );
    assert_eq!(shown, "1:2:\\x{7}pwned\n", "escaped without --raw");
    let shown = on_terminal(
        &s,
        &["search", "-", "here"],
        text,
        &[("TERM", "xterm-256color")],
    );
    assert_eq!(
        shown,
        "\x1b[32m1\x1b[0m:8:title  \x1b[1;31mhere\x1b[0m \\x{8}\n"
    );
    let shown = on_terminal(
        &s,
        &["search", "-", "here", "--color", "never"],
        text,
        &[("TERM", "xterm-256color")],
    );
    assert!(!shown.contains("\x1b[3"), "{shown:?}");
}

/// Follows an RFC 9535 normalized path (`$['a'][3]`) through a serde_json value.
fn resolve<'v>(root: &'v serde_json::Value, path: &str) -> &'v serde_json::Value {
    let mut node = root;
    let mut rest = path.strip_prefix('$').expect("a path starts with $");
    while !rest.is_empty() {
        rest = rest.strip_prefix('[').expect("a segment starts with [");
        if let Some(quoted) = rest.strip_prefix('\'') {
            let mut name = String::new();
            let mut chars = quoted.char_indices();
            let end = loop {
                match chars.next().expect("unterminated name") {
                    (i, '\'') => break i,
                    (_, '\\') => match chars.next().unwrap().1 {
                        'n' => name.push('\n'),
                        't' => name.push('\t'),
                        c => name.push(c),
                    },
                    (_, c) => name.push(c),
                }
            };
            node = &node[name.as_str()];
            rest = quoted[end + 1..].strip_prefix(']').unwrap();
        } else {
            let close = rest.find(']').unwrap();
            node = &node[rest[..close].parse::<usize>().unwrap()];
            rest = &rest[close + 1..];
        }
    }
    node
}

#[test]
fn paths_name_the_innermost_value_or_key_of_each_match() {
    let s = Sandbox::new();
    let mut items = Vec::new();
    for i in 0..60 {
        // Keys in sorted order: the key match comes before the "msg" match in each item.
        items.push(serde_json::json!({
            "id": i,
            "it's a \"hit\"": i % 2 == 0,
            "msg": format!("event {i} {}", if i % 3 == 0 { "hit" } else { "ok" }),
            "tags": ["x", format!("hit-{i}")],
        }));
    }
    let doc = serde_json::json!({"items": items, "meta": {"note": "hit"}});
    for text in [serde_json::to_string_pretty(&doc).unwrap(), doc.to_string()] {
        let f = s.file("doc.json", &text);
        let r = s.run(
            &[
                "search",
                f.to_str().unwrap(),
                "hit",
                "--paths",
                "--json",
                "--limit",
                "1000",
            ],
            "",
        );
        r.status(0);
        let v = r.json();
        let matches = v["matches"].as_array().unwrap();
        assert_eq!(matches.len() as u64, v["totalMatches"].as_u64().unwrap());
        assert_eq!(matches.len(), 20 + 60 + 60 + 1);
        for m in matches {
            let path = m["path"].as_str().unwrap();
            let node = resolve(&doc, path);
            if m["inKey"] == true {
                assert!(
                    node.as_object().unwrap().keys().any(|k| k.contains("hit")),
                    "{path}"
                );
            } else {
                assert!(node.as_str().unwrap().contains("hit"), "{path} -> {node}");
            }
        }
        // serde_json orders keys: "id", "it's a \"hit\"", "msg", "tags".
        assert_eq!(
            (matches[0]["path"].as_str(), matches[0]["inKey"].as_bool()),
            (Some("$['items'][0]"), Some(true))
        );
        assert_eq!(matches[1]["path"], "$['items'][0]['msg']");
        assert!(matches[1].get("inKey").is_none());
        assert_eq!(matches[2]["path"], "$['items'][0]['tags'][1]");
        assert_eq!(matches[140]["path"], "$['meta']['note']");
    }
}

#[test]
fn paths_in_text_output_and_on_ndjson() {
    let s = Sandbox::new();
    let ndjson = "{\"a\": \"no\"}\n{\"b\": [\"x\", \"timeout here\"]}\n";
    let r = search(&s, &["timeout", "--paths"], ndjson);
    r.status(0);
    assert_eq!(
        r.out(),
        "2:14:$[1]['b'][1]:{\"b\": [\"x\", \"timeout here\"]}\n"
    );
}

#[test]
fn paths_on_other_sources_are_ignored_with_a_note() {
    let s = Sandbox::new();
    let r = search(&s, &["retry", "--paths"], LOG);
    r.status(0);
    assert_eq!(r.out(), "3:1:retry\n4:1:retry\n");
    assert_eq!(
        r.stderr,
        "spill: note: --paths ignored: the source is not JSON or NDJSON\nmatches 1–2 of 2\n"
    );
    let r = search(
        &s,
        &["retry", "--paths", "--json"],
        "{\"a\": , \"b\": \"retry\"}\n",
    );
    r.status(0);
    assert_eq!(r.stderr, "");
    let v = r.json();
    assert!(v["matches"][0].get("path").is_none());
    assert_eq!(
        v["notes"][0],
        "--paths ignored: the source looks like JSON but is invalid at byte 6 (line 1:7): expected a JSON value"
    );
}

#[test]
fn paths_round_trip_through_extract() {
    let s = Sandbox::new();
    let doc = r#"{"items":[{"id":1,"msg":"ok"},{"id":2,"msg":"timeout after 30s","tags":["net","timeout"]}],"meta":{"timeout key":{"x":1}}}"#;
    let f = s.file("doc.json", doc);
    let source = f.to_str().unwrap();
    let r = s.run(&["search", source, "timeout", "--paths", "--json"], "");
    r.status(0);
    let result = r.json();
    let matches = result["matches"].as_array().unwrap();
    assert_eq!(matches.len(), 3);
    for m in matches {
        let path = m["path"].as_str().unwrap();
        let extracted = s.run(&["extract", source, path, "--compact"], "");
        extracted.status(0);
        let text = extracted.out();
        let in_key = m.get("inKey").and_then(|v| v.as_bool()).unwrap_or(false);
        if in_key {
            assert!(
                serde_json::from_str::<serde_json::Value>(&text)
                    .unwrap()
                    .as_object()
                    .unwrap()
                    .keys()
                    .any(|k| k.contains("timeout")),
                "{path}: {text}"
            );
        } else {
            assert!(text.contains("timeout"), "{path} selects {text}");
        }
    }
}

#[test]
fn no_match_says_so_on_stderr_in_text_mode_only() {
    let s = Sandbox::new();
    let r = search(&s, &["absent"], LOG);
    r.status(1);
    assert_eq!(
        (r.out().as_str(), r.stderr.as_str()),
        ("", "spill: no matches for 'absent'\n")
    );
    let r = search(&s, &["-e", "absent", "-e", "missing", "-C", "2"], LOG);
    r.status(1);
    assert_eq!(r.stderr, "spill: no matches for any of the 2 patterns\n");
    // Like extract's explanation, it stays on stderr with --footer stdout.
    let r = search(&s, &["absent", "--footer", "stdout"], LOG);
    r.status(1);
    assert_eq!(
        (r.out().as_str(), r.stderr.as_str()),
        ("", "spill: no matches for 'absent'\n")
    );
    // The literal fallback's note comes first; the pattern is escaped and cut when long.
    let r = search(&s, &["(absent"], LOG);
    r.status(1);
    assert!(
        r.stderr
            .starts_with("spill: note: pattern is not a valid regex")
            && r.stderr.ends_with("spill: no matches for '(absent'\n"),
        "{}",
        r.stderr
    );
    let r = search(&s, &["-F", "\x1b[31mred"], LOG);
    assert_eq!(r.stderr, "spill: no matches for '\\x{1b}[31mred'\n");
    let long = "q".repeat(1000);
    let r = search(&s, &["-F", &long], LOG);
    r.status(1);
    assert_eq!(
        r.stderr,
        format!(
            "spill: no matches for '{}…[+800 chars]…{}'\n",
            "q".repeat(120),
            "q".repeat(80)
        )
    );
    // --json and --count say it on stdout; stderr stays silent.
    let r = search(&s, &["absent", "--json"], LOG);
    r.status(1);
    assert!(r.out().contains("\"totalMatches\":0"), "{}", r.out());
    assert_eq!(r.stderr, "");
    for args in [&["absent", "--count"][..], &["absent", "--count", "--json"]] {
        let r = search(&s, args, LOG);
        r.status(1);
        assert_eq!(r.stderr, "", "{args:?}");
    }
    // Matches past the offset are not "no matches": the footer says where they are.
    let r = search(&s, &["retry", "--offset", "9"], LOG);
    r.status(0);
    assert_eq!(
        r.stderr,
        "no matches at --offset 9 (2 in total) · first page: --offset 0\n"
    );
}

/// `-w` next to bytes that are not UTF-8: each such byte is a non-word neighbour, whichever it
/// is, as for `\bError\b` and `grep -w` (README, `spill search`); a Unicode word character
/// (`é`) is a word neighbour.
#[test]
fn word_matches_next_to_invalid_utf8_do_not_depend_on_the_byte() {
    let s = Sandbox::new();
    let mut text = Vec::new();
    for b in [0x80u8, 0xbf, 0xc0, 0xc3, 0xe2, 0xf0, 0xf5, 0xfe, 0xff] {
        text.extend_from_slice(&[b]);
        text.extend_from_slice(b"Error\n");
        text.extend_from_slice(b"Error");
        text.extend_from_slice(&[b, b'\n']);
    }
    text.extend_from_slice("\u{e9}Error\nError\u{e9}\n_Error\nErrors\n".as_bytes());
    let f = s.file("bytes.log", &text);
    let p = f.to_str().unwrap();
    let r = s.run(&["search", p, "-w", "Error", "--count"], "");
    r.status(0);
    assert_eq!(r.out(), "18\n");
    let r = s.run(&["search", p, r"\bError\b", "--count"], "");
    assert_eq!(r.out(), "18\n");
    let r = s.run(&["search", p, "-w", "-F", "Error", "--limit", "2"], "");
    r.status(0);
    assert!(r.out().starts_with("1:2:"), "{}", r.out());
    // -i and several patterns take the same rule.
    let r = s.run(
        &[
            "search", p, "-w", "-i", "-e", "ERROR", "-e", "nothing", "--count",
        ],
        "",
    );
    assert_eq!(r.out(), "18\n");
}

/// A source past `text::clean::CHECK_BESIDE` (4 MiB) is checked for escape sequences beside
/// the search of its stored bytes, and a dirty one is read through the streamed view: wherever
/// its first escape sequence or bare `\r` lies (the first 64 KiB, the rest, none), every page
/// and count is the one `--raw` gives on the cleaned text, and the note says which was read.
#[test]
fn a_large_source_is_searched_as_its_cleaned_view_wherever_its_escapes_lie() {
    let s = Sandbox::new();
    let lines = 400_000;
    let plain: Vec<String> = (0..lines)
        .map(|i| {
            if i % 50_000 == 7 {
                format!("step {i} error here")
            } else {
                format!("step {i} ok")
            }
        })
        .collect();
    let join = |v: &[String]| v.join("\n") + "\n";
    // (what the file holds at line `at`, what its cleaned view holds there)
    let cases: [(usize, &str, &str); 5] = [
        (3, "\x1b[1mstep 3 ok\x1b[0m", "step 3 ok"),
        (7, "step 7 \x1b[31merror\x1b[0m here", "step 7 error here"),
        (399_993, "10%\r50%\rstep 399993 done", "step 399993 done"),
        (
            350_007,
            "\x1b[31mstep 350007 err\x1b[0mor here",
            "step 350007 error here",
        ),
        (200_000, "was\rstep 200000 ok", "step 200000 ok"),
    ];
    let clean_file = s.file("clean.log", join(&plain));
    for (n, (at, dirty, cleaned)) in cases.iter().enumerate() {
        let mut raw = plain.clone();
        raw[*at] = dirty.to_string();
        let mut view = plain.clone();
        view[*at] = cleaned.to_string();
        let raw_file = s.file(&format!("dirty{n}.log"), join(&raw));
        let view_file = s.file(&format!("view{n}.log"), join(&view));
        assert!(std::fs::metadata(&raw_file).unwrap().len() > 4 << 20);
        for args in [
            &["error", "-C", "2"][..],
            &["error", "--count"],
            &["step 3999", "--offset", "3", "--limit", "2", "-B", "1"],
            &["err", "--json"],
        ] {
            let mut dirty_args = vec!["search", raw_file.to_str().unwrap()];
            dirty_args.extend_from_slice(args);
            let mut view_args = vec!["search", view_file.to_str().unwrap(), "--raw"];
            view_args.extend_from_slice(args);
            let got = s.run(&dirty_args, "");
            let want = s.run(&view_args, "");
            assert_eq!(got.code, want.code, "case {n} {args:?}");
            if args.contains(&"--json") {
                // The same object, plus the note.
                let mut got: serde_json::Value = serde_json::from_str(&got.out()).unwrap();
                let notes = got.as_object_mut().unwrap().remove("notes").unwrap();
                assert!(
                    notes[0].as_str().unwrap().contains("escape sequences"),
                    "{notes}"
                );
                let want: serde_json::Value = serde_json::from_str(&want.out()).unwrap();
                assert_eq!(got, want, "case {n} {args:?}");
            } else {
                assert_eq!(got.out(), want.out(), "case {n} {args:?}");
                assert!(
                    got.stderr.contains("escape sequences"),
                    "case {n}: {}",
                    got.stderr
                );
            }
        }
    }
    // A clean source is searched as stored: no note.
    let r = s.run(
        &["search", clean_file.to_str().unwrap(), "error", "--count"],
        "",
    );
    assert_eq!(r.out(), "8\n");
    assert!(!r.stderr.contains("escape sequences"), "{}", r.stderr);
}
