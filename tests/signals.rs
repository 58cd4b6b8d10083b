//! The signal corpus scored through the real binary: for every real output under
//! `tests/data/signals/cases/`, is the line that decides what to do next visible in the envelope
//! `spill wrap` prints with its default settings? The same question is asked of three plain
//! windows of the raw output (a 2 KB head, a 2 KB tail, and an 8,000 + 32,000 character
//! head+tail) so the README can compare spill's ranking with what a fixed window shows.
//!
//! "Visible" is defined once, in [`seen_in`]: a case is seen when, for one of its decisive
//! entries, every one of its words appears in one single string the envelope shows — a preview
//! line, a signal's text or any other string under `signals`, or, for a JSON preview, its compact
//! text. The test fails when fewer cases are seen than the baseline in the manifest, and when a
//! case of class `clean` (a listing, a clean build, a passing test run) reports any signal.

use std::path::PathBuf;

use serde_json::Value;

use crate::common::Sandbox;

fn corpus_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/signals")
}

fn manifest() -> Value {
    let text = std::fs::read_to_string(corpus_dir().join("manifest.json")).expect("manifest");
    serde_json::from_str(&text).expect("manifest is JSON")
}

/// The decisive entries of a case: each a list of words that must appear together.
fn decisive(case: &Value) -> Vec<Vec<String>> {
    case["decisive"]
        .as_array()
        .expect("decisive is an array")
        .iter()
        .map(|d| {
            d["words"]
                .as_array()
                .expect("words")
                .iter()
                .map(|w| w.as_str().expect("a word is a string").to_string())
                .collect()
        })
        .collect()
}

fn is_clean(case: &Value) -> bool {
    case["classes"]
        .as_array()
        .is_some_and(|c| c.iter().any(|v| v == "clean"))
}

/// Every string under `v` (keys and values), in document order.
fn strings_in(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::String(s) => out.push(s.clone()),
        Value::Array(a) => a.iter().for_each(|x| strings_in(x, out)),
        Value::Object(o) => {
            for (k, x) in o {
                out.push(k.clone());
                strings_in(x, out);
            }
        }
        _ => {}
    }
}

/// The strings the envelope shows a reader: preview lines (or a JSON preview's compact text and
/// its strings) and everything under `signals`.
fn shown_strings(env: &Value) -> Vec<String> {
    let mut out = Vec::new();
    match &env["preview"] {
        Value::Object(o) if o.contains_key("head") && o.contains_key("tail") => {
            strings_in(&o["head"], &mut out);
            strings_in(&o["tail"], &mut out);
        }
        Value::Null => {}
        json => {
            out.push(json.to_string());
            strings_in(json, &mut out);
        }
    }
    if let Some(sig) = env.get("signals") {
        strings_in(sig, &mut out);
    }
    out
}

/// True when, for one decisive entry, one string holds all of its words.
fn seen_in(strings: &[String], decisive: &[Vec<String>]) -> bool {
    decisive.iter().any(|words| {
        strings
            .iter()
            .any(|s| words.iter().all(|w| s.contains(w.as_str())))
    })
}

/// The lines of a plain window of the raw text, for the anchors.
fn window_lines(text: &str) -> Vec<String> {
    text.split('\n').map(str::to_string).collect()
}

fn head_chars(text: &str, n: usize) -> &str {
    match text.char_indices().nth(n) {
        Some((i, _)) => &text[..i],
        None => text,
    }
}

fn tail_chars(text: &str, n: usize) -> &str {
    let count = text.chars().count();
    if count <= n {
        return text;
    }
    let (i, _) = text.char_indices().nth(count - n).expect("in range");
    &text[i..]
}

fn head_bytes(text: &str, n: usize) -> &str {
    let mut i = n.min(text.len());
    while !text.is_char_boundary(i) {
        i -= 1;
    }
    &text[..i]
}

fn tail_bytes(text: &str, n: usize) -> &str {
    let mut i = text.len().saturating_sub(n);
    while !text.is_char_boundary(i) {
        i += 1;
    }
    &text[i..]
}

fn median(mut v: Vec<usize>) -> f64 {
    v.sort_unstable();
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2] as f64
    } else {
        (v[n / 2 - 1] + v[n / 2]) as f64 / 2.0
    }
}

/// The manifest's decisive lines are lines of the committed outputs: a re-made corpus whose
/// lines moved cannot be scored against stale text.
#[test]
fn the_manifest_matches_the_committed_outputs() {
    let m = manifest();
    let cases = m["cases"].as_array().expect("cases");
    assert!(cases.len() >= 30, "at least 30 cases");
    let tools: std::collections::BTreeSet<&str> =
        cases.iter().map(|c| c["tool"].as_str().unwrap()).collect();
    assert!(tools.len() >= 20, "at least 20 tools, got {tools:?}");
    for case in cases {
        let name = case["name"].as_str().unwrap();
        let bytes = std::fs::read(corpus_dir().join(format!("cases/{name}.txt"))).unwrap();
        assert!(bytes.len() <= 310_000, "{name} is over the size cap");
        let text = String::from_utf8_lossy(&bytes);
        let lines: Vec<&str> = text.split('\n').collect();
        for d in case["decisive"].as_array().unwrap() {
            let n = d["line"].as_u64().unwrap() as usize;
            let line = lines
                .get(n - 1)
                .unwrap_or_else(|| panic!("{name}: no line {n}"));
            for w in d["words"].as_array().unwrap() {
                assert!(
                    line.contains(w.as_str().unwrap()),
                    "{name}: line {n} lacks {w}"
                );
            }
            if let Some(t) = d.get("text") {
                assert_eq!(t.as_str().unwrap(), *line, "{name}: line {n}");
            }
        }
        assert_eq!(
            is_clean(case),
            case["decisive"].as_array().unwrap().is_empty(),
            "{name}: clean cases, and only they, have no decisive line"
        );
    }
}

#[test]
fn the_corpus_score_holds_its_baseline() {
    let m = manifest();
    let cases = m["cases"].as_array().expect("cases");
    let baseline = m["baseline"]["seen"].as_u64().expect("baseline.seen") as usize;
    let s = Sandbox::new();
    let mut sizes = Vec::new();
    let (mut scored, mut seen, mut head2, mut tail2, mut ht40) = (0, 0, 0, 0, 0);
    let mut false_signals = Vec::new();
    let mut report = String::new();
    for case in cases {
        let name = case["name"].as_str().unwrap();
        let bytes = std::fs::read(corpus_dir().join(format!("cases/{name}.txt"))).unwrap();
        let r = s.cmd(&["wrap"]).stdin(bytes.clone()).run();
        r.status(0);
        sizes.push(r.stdout.len());
        let env = r.json();
        assert_eq!(
            env["spilled"], true,
            "{name}: every case is large enough to spill"
        );
        if is_clean(case) {
            if env.get("signals").is_some() {
                false_signals.push(format!("{name}: {}", env["signals"]));
            }
            report.push_str(&format!(
                "{name:18} clean   signals: {}\n",
                env.get("signals")
                    .map_or("none".into(), |v| v["total"].to_string())
            ));
            continue;
        }
        scored += 1;
        let want = decisive(case);
        let text = String::from_utf8_lossy(&bytes).into_owned();
        let spill = seen_in(&shown_strings(&env), &want);
        let h = seen_in(&window_lines(head_bytes(&text, 2048)), &want);
        let t = seen_in(&window_lines(tail_bytes(&text, 2048)), &want);
        let ht = seen_in(&window_lines(head_chars(&text, 8000)), &want)
            || seen_in(&window_lines(tail_chars(&text, 32000)), &want);
        seen += usize::from(spill);
        head2 += usize::from(h);
        tail2 += usize::from(t);
        ht40 += usize::from(ht);
        let mark = |b: bool| if b { "seen" } else { "-" };
        report.push_str(&format!(
            "{name:18} spill {:5} head2K {:5} tail2K {:5} head+tail40K {:5} ({} B)\n",
            mark(spill),
            mark(h),
            mark(t),
            mark(ht),
            r.stdout.len()
        ));
    }
    let med = median(sizes);
    let mut out = std::io::stderr();
    use std::io::Write;
    let _ = writeln!(out, "{report}");
    let _ = writeln!(
        out,
        "signal corpus: spill {seen}/{scored}, median envelope {med} B; head 2 KB {head2}/{scored}, tail 2 KB {tail2}/{scored}, head+tail 40 KB {ht40}/{scored}"
    );
    assert!(
        false_signals.is_empty(),
        "clean outputs reported signals:\n{}",
        false_signals.join("\n")
    );
    assert!(
        seen >= baseline,
        "the decisive line is visible in {seen} of {scored} cases, below the baseline of {baseline}\n{report}"
    );
}

/// The lines of a generated output, `make(i)` for each `i`, with one `rare` line at `at`.
fn lines_with(n: usize, at: usize, rare: &str, make: impl Fn(usize) -> String) -> Vec<u8> {
    let mut out = String::new();
    for i in 0..n {
        if i == at {
            out.push_str(rare);
            out.push('\n');
        }
        out.push_str(&make(i));
        out.push('\n');
    }
    out.into_bytes()
}

#[test]
fn a_rare_diagnostic_comes_first_and_the_hint_finds_it_alone() {
    let s = Sandbox::new();
    let mut input = lines_with(
        1400,
        700,
        "mod23.py:162:11: E1120: No value for argument 'b' in function call",
        |i| {
            format!(
                "mod{i}.py:{i}:1: error: line too long ({} > 80 characters)",
                81 + i % 9
            )
        },
    );
    input.extend(lines_with(300, 0, "checked 1,400 files", |i| {
        format!("cache entry {i} kept")
    }));
    let env = s.cmd(&["wrap"]).stdin(input).run().json();
    let m = &env["signals"]["matches"];
    assert!(
        m[0]["text"].as_str().unwrap().contains("E1120"),
        "{}",
        env["signals"]
    );
    assert_eq!(m[0].get("count"), None);
    // The 1,400 common lines are one entry with their count.
    let common: Vec<&Value> = m
        .as_array()
        .unwrap()
        .iter()
        .filter(|x| x["text"].as_str().unwrap().contains("line too long"))
        .collect();
    assert_eq!(common.len(), 1, "{}", env["signals"]);
    assert_eq!(common[0]["count"], 1400);
    let hint = env["hint"].as_str().unwrap();
    assert!(hint.contains("-F E1120 -C 2"), "{hint}");
}

#[test]
fn file_names_in_a_listing_are_not_failures() {
    let s = Sandbox::new();
    let input = lines_with(
        600,
        300,
        "-rw-r--r--  1 user user   444 2026-12-01 AddressSanitizer.h",
        |i| {
            let name = ["errors", "fail.py", "FAILED_tests.txt", "panic.rs"][i % 4];
            format!(
                "-rw-r--r--  1 user user {:5} 2026-12-01 {name}",
                100 + i % 50
            )
        },
    );
    let env = s.cmd(&["wrap"]).stdin(input).run().json();
    assert_eq!(env.get("signals"), None, "{env}");
}

#[test]
fn an_outlying_number_is_named_with_the_header_above_it() {
    let s = Sandbox::new();
    let mut input = String::new();
    for i in 0..300 {
        let ms = if i == 161 {
            213.9
        } else {
            5.0 + (i % 9) as f64
        };
        input.push_str(&format!(
            "Benchmark {i}: sleep {i}\n  Time (mean ± σ):  {ms:.1} ms ±  1.2 ms\n\n"
        ));
    }
    let env = s.cmd(&["wrap"]).stdin(input).run().json();
    let m = &env["signals"]["matches"][0];
    assert_eq!(
        m["text"], "Benchmark 161: sleep 161\n  Time (mean ± σ):  213.9 ms ±  1.2 ms",
        "{env}"
    );
    assert_eq!(m["note"], "largest of 300 similar lines");
}

#[test]
fn a_long_signal_line_shows_the_words_that_decide() {
    let s = Sandbox::new();
    let long = format!(
        "ERROR {} the upload failed because the bucket quota is exhausted",
        "x".repeat(600)
    );
    let input = lines_with(2000, 1000, &long, |i| format!("INFO step {i} done"));
    let env = s.cmd(&["wrap"]).stdin(input).run().json();
    let text = env["signals"]["matches"][0]["text"].as_str().unwrap();
    assert!(text.contains("the bucket quota is exhausted"), "{text}");
    assert!(text.chars().count() < 300, "{text}");
}

#[test]
fn the_record_of_a_json_array_that_stands_out_is_named_by_path() {
    let s = Sandbox::new();
    let records: Vec<String> = (0..300)
        .map(|i| {
            let (n, msg) = if i == 217 {
                (1, "'total' is not defined.")
            } else {
                (0, "")
            };
            format!(
                r#"{{"filePath":"/src/mod{i:03}.js","messages":[{{"message":"{msg}"}}],"errorCount":{n},"warningCount":0}}"#
            )
        })
        .collect();
    let input = format!("[{}]", records.join(","));
    let env = s.cmd(&["wrap"]).stdin(input).run().json();
    let m = &env["signals"]["matches"];
    assert_eq!(m.as_array().unwrap().len(), 1, "{env}");
    assert_eq!(m[0]["path"], "$[217]");
    assert!(
        m[0]["text"]
            .as_str()
            .unwrap()
            .contains("'total' is not defined.")
    );
    assert_eq!(m[0]["note"], "errorCount: 1 in 1 of 300 records (0 in 299)");
}

#[test]
fn a_rare_json_line_shows_its_severity_and_message_first() {
    let s = Sandbox::new();
    let input = lines_with(
        1500,
        1400,
        &format!(
            r#"{{"file":"prog.py","line":4502,"pad":"{}","message":"Incompatible types in assignment","code":"assignment","severity":"error"}}"#,
            "p".repeat(300)
        ),
        |i| {
            format!(
                r#"{{"file":"prog.py","line":{i},"pad":"","message":"Function is missing a type annotation","code":"no-untyped-def","severity":"error"}}"#
            )
        },
    );
    let env = s.cmd(&["wrap"]).stdin(input).run().json();
    assert_eq!(env["mimeType"], "application/x-ndjson");
    let text = env["signals"]["matches"][0]["text"].as_str().unwrap();
    assert!(
        text.starts_with(
            r#"{"severity":"error","code":"assignment","message":"Incompatible types in assignment"}"#
        ),
        "{text}"
    );
}

/// `npm ls --json`-style output: error lines, a pretty JSON document, a closing error line.
fn json_behind_other_output() -> Vec<u8> {
    let deps: Vec<String> = (0..400)
        .map(|i| {
            format!("    {{\n      \"name\": \"pkg{i}\",\n      \"version\": \"1.0.{i}\"\n    }}")
        })
        .collect();
    format!(
        "npm error code ELSPROBLEMS\nnpm error missing: left-pad@^1.3.0, required by app@1.0.0\n{{\n  \"name\": \"app\",\n  \"dependencies\": [\n{}\n  ],\n  \"error\": {{\n    \"code\": \"ELSPROBLEMS\"\n  }}\n}}\nnpm error A complete log of this run can be found in: /tmp/debug.log\n",
        deps.join(",\n")
    )
    .into_bytes()
}

#[test]
fn json_behind_a_few_lines_of_other_output_is_shown_as_json_with_the_lines_by_range() {
    let s = Sandbox::new();
    let input = json_behind_other_output();
    let lines = input.iter().filter(|&&b| b == b'\n').count() as u64;
    let env = s.cmd(&["wrap"]).stdin(input.clone()).run().json();
    // The payload is text as a whole; its JSON part is described as JSON.
    assert_eq!(env["mimeType"], "text/plain", "{env}");
    assert_eq!(env["totalItems"], 400);
    assert_eq!(env["jsonPart"]["lines"], serde_json::json!([3, lines - 1]));
    assert_eq!(
        env["jsonPart"]["otherLines"],
        serde_json::json!([[1, 2], [lines, lines]])
    );
    let [a, b] = [0, 1].map(|i| env["jsonPart"]["bytes"][i].as_u64().unwrap() as usize);
    assert!(input[a..b].starts_with(b"{\n") && input[a..b].ends_with(b"}"));
    assert_eq!(lines, 1611);
    assert!(
        env["summary"].as_str().unwrap().ends_with(
            "$.dependencies is an array of 400 objects; on lines 3–1,610 of 1,611 (other output: 1–2, 1,611)"
        ),
        "{}",
        env["summary"]
    );
    assert_eq!(env["shape"]["name"], "string", "{}", env["shape"]);
    assert_eq!(env["preview"][0]["name"], "pkg0");
    // The other output's decisive line is a signal.
    let texts = crate::common::signal_texts(&env);
    assert!(
        texts.contains(&"npm error missing: left-pad@^1.3.0, required by app@1.0.0"),
        "{env}"
    );
    // shape and extract on the ref read the JSON part, and say so.
    let r = env["ref"].as_str().unwrap();
    let note = format!(
        "spill: note: {r} holds JSON behind other output: reading its JSON part, lines 3–1,610 of 1,611 (spill cat {r} shows all of it)\n"
    );
    let shape = s.cmd(&["shape", r]).run();
    shape.status(0);
    assert!(
        shape
            .out()
            .starts_with(r#"{"name":"string","dependencies":"#),
        "{}",
        shape.out()
    );
    assert_eq!(shape.stderr, note);
    let ex = s.cmd(&["extract", r, "$.error.code"]).run();
    ex.status(0);
    assert_eq!(ex.out(), "\"ELSPROBLEMS\"\n");
    assert_eq!(ex.stderr, note);
    let ex = s
        .cmd(&["extract", r, "$.dependencies[399].name", "--compact"])
        .run();
    assert_eq!(ex.out(), "\"pkg399\"\n");
    // A path is read as it is: the same bytes are text.
    let file = s.file("mixed.txt", &input);
    let shape = s.cmd(&["shape", file.to_str().unwrap()]).run();
    assert!(
        shape.out().starts_with(r#"{"text":{"lines":1611,"#),
        "{}",
        shape.out()
    );
    assert_eq!(shape.stderr, "");
}

#[test]
fn json_lines_after_a_banner_are_ndjson_with_the_banner_by_range() {
    let s = Sandbox::new();
    let mut input =
        b"2026-12-01 10:00:00 INFO exporter starting\n2026-12-01 10:00:00 INFO writing records\n"
            .to_vec();
    for i in 0..800 {
        input.extend_from_slice(
            format!("{{\"id\":{i},\"level\":\"info\",\"msg\":\"exported row {i}\"}}\n").as_bytes(),
        );
    }
    input.extend_from_slice(b"2026-12-01 10:00:09 INFO done\n");
    let env = s.cmd(&["wrap"]).stdin(input).run().json();
    assert_eq!(env["mimeType"], "text/plain");
    assert_eq!(env["jsonPart"]["lines"], serde_json::json!([3, 802]));
    assert_eq!(
        env["jsonPart"]["otherLines"],
        serde_json::json!([[1, 2], [803, 803]])
    );
    assert_eq!(env["totalItems"], 800);
    assert_eq!(env["preview"][0]["id"], 0);
    let hint = env["hint"].as_str().unwrap();
    let r = env["ref"].as_str().unwrap();
    assert!(
        hint.contains(&format!("spill extract {r} '$[0:5]'")),
        "{hint}"
    );
    // The hint's command runs as pasted and reads the records.
    let ex = s.cmd(&["extract", r, "$[0:2].id", "--compact"]).run();
    ex.status(0);
    assert_eq!(ex.out(), "[0,1]\n");
}

#[test]
fn a_log_with_json_lines_in_it_stays_text() {
    let s = Sandbox::new();
    let mut input = b"starting\n{\"config\":{\"workers\":4}}\n".to_vec();
    input.extend_from_slice(&lines_with(2000, 0, "ready", |i| {
        format!("INFO step {i} done")
    }));
    let env = s.cmd(&["wrap"]).stdin(input).run().json();
    assert_eq!(env["mimeType"], "text/plain");
    assert_eq!(env.get("jsonPart"), None);
    assert!(env["preview"]["head"].is_array());
}

#[test]
fn a_wide_object_shows_its_last_keys_as_well_as_its_first() {
    let s = Sandbox::new();
    let mut fields: Vec<String> = (0..60)
        .map(|i| format!("\"metric_{i:02}\":\"{}\"", "v".repeat(300)))
        .collect();
    fields.push(r#""verdict":"3 checks differ from the baseline""#.to_string());
    let input = format!("{{{}}}", fields.join(","));
    let env = s.cmd(&["wrap"]).stdin(input).run().json();
    assert_eq!(env["mimeType"], "application/json");
    let preview = &env["preview"];
    assert!(preview.get("metric_00").is_some(), "{preview}");
    assert_eq!(
        preview["verdict"], "3 checks differ from the baseline",
        "{preview}"
    );
    assert!(
        preview["…"].as_str().unwrap().ends_with(" more keys"),
        "{preview}"
    );
}

#[test]
fn a_long_signal_line_far_from_both_ends_shows_the_words_that_decide() {
    let s = Sandbox::new();
    // Far more than the head and tail the ranking reads: the line is found by the stream scan.
    let long = format!(
        "{} ERROR upload failed: the bucket quota is exhausted for tenant 42",
        "x".repeat(600)
    );
    let input = lines_with(60_000, 30_000, &long, |i| format!("INFO step {i} done"));
    assert!(input.len() > 1 << 20);
    let env = s.cmd(&["wrap"]).stdin(input).run().json();
    let m = &env["signals"]["matches"][0];
    assert_eq!(m["line"], 30_001, "{env}");
    let text = m["text"].as_str().unwrap();
    assert!(
        text.contains("ERROR upload failed: the bucket quota is exhausted"),
        "{text}"
    );
    assert!(text.ends_with("for tenant 42"), "{text}");
    assert!(text.chars().count() < 300, "{text}");
}

/// The corpus's outputs, each with its envelope, wrapped in one sandbox.
fn corpus_envelopes(s: &Sandbox) -> Vec<(String, Vec<u8>, Value)> {
    let m = manifest();
    m["cases"]
        .as_array()
        .expect("cases")
        .iter()
        .map(|case| {
            let name = case["name"].as_str().unwrap().to_string();
            let bytes = std::fs::read(corpus_dir().join(format!("cases/{name}.txt"))).unwrap();
            let env = s.cmd(&["wrap"]).stdin(bytes.clone()).run().json();
            (name, bytes, env)
        })
        .collect()
}

/// `signals` never claims what it does not list: present only with an entry, and its `total`
/// at least the signal lines its entries stand for (an entry's `count`, else one).
fn assert_signals_agree(name: &str, env: &Value) {
    let Some(sig) = env.get("signals") else {
        return;
    };
    let matches = sig["matches"].as_array().expect("matches");
    assert!(
        !matches.is_empty(),
        "{name}: a total beside no entry: {sig}"
    );
    let listed: u64 = matches
        .iter()
        .map(|m| m.get("count").map_or(1, |c| c.as_u64().unwrap()))
        .sum();
    let total = sig["total"].as_u64().unwrap();
    assert!(
        listed <= total,
        "{name}: entries stand for {listed} lines, total {total}: {sig}"
    );
}

#[test]
fn signals_agree_with_their_list() {
    let s = Sandbox::new();
    for (name, _, env) in corpus_envelopes(&s) {
        assert_signals_agree(&name, &env);
    }
    // The one signal is the preview's last line (README's quick start): listed all the same.
    let mut input: Vec<u8> = (1..=2000)
        .flat_map(|i| format!("test case_{i} ... ok\n").into_bytes())
        .collect();
    input.extend_from_slice(b"FAILED: 3 tests\n");
    let env = s.cmd(&["wrap"]).stdin(input).run().json();
    assert_signals_agree("one signal in the preview", &env);
    assert_eq!(env["signals"]["matches"][0]["line"], 2001, "{env}");
    assert_eq!(env["signals"]["matches"][0]["text"], "FAILED: 3 tests");
    // 1,400 identical failure lines are one distinct line, as `total` counts them.
    let mut input = lines_with(1400, 0, "step 0 done", |_| "ERROR disk full".to_string());
    input.extend(lines_with(600, 0, "done", |i| format!("step {i} done")));
    let env = s.cmd(&["wrap"]).stdin(input).run().json();
    assert_signals_agree("identical lines", &env);
}

/// Splits a hinted command line as `sh` would (the hint quotes with single quotes only).
fn shell_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                for q in chars.by_ref() {
                    if q == '\'' {
                        break;
                    }
                    cur.push(q);
                }
            }
            ' ' if in_word => {
                words.push(std::mem::take(&mut cur));
                in_word = false;
            }
            ' ' => {}
            c => {
                in_word = true;
                cur.push(c);
            }
        }
    }
    if in_word {
        words.push(cur);
    }
    words
}

/// Every command a corpus envelope hints runs as pasted into a shell, succeeds and returns what
/// it promises: a search finds lines (never a generic search that finds nothing), `cat` shows
/// the first listed signal's line, an `extract` filter selects the records the signal names.
#[test]
fn every_hinted_command_runs_and_returns_what_it_promises() {
    let s = Sandbox::new();
    let mut ran = 0;
    for (name, _, env) in corpus_envelopes(&s) {
        let commands: Vec<String> = {
            let hint = env["hint"].as_str().expect("a stored envelope has a hint");
            let (_, list) = hint.split_once("Read it with: ").expect("hint form");
            list.split(" · ").map(str::to_string).collect()
        };
        let first = env
            .get("signals")
            .map(|sig| &sig["matches"][0])
            .filter(|m| m.get("path").is_none());
        for c in &commands {
            let r = s.shell(c);
            assert_eq!(
                r.code,
                Some(0),
                "{name}: `{c}` exited {:?}: {}",
                r.code,
                r.out()
            );
            let out = r.out();
            assert!(!out.trim().is_empty(), "{name}: `{c}` printed nothing");
            let words = shell_words(c);
            if words[1] == "cat"
                && let Some(m) = first
            {
                let line = m["text"].as_str().unwrap().lines().next().unwrap();
                // A windowed long line shows its start.
                let shown = line.split('…').next().unwrap();
                assert!(out.contains(shown), "{name}: `{c}` does not show {line:?}");
            }
            if words[1] == "extract" && words[3].contains("[?@.") {
                let rec = env["signals"]["matches"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .find(|m| m.get("path").is_some())
                    .expect("a record signal");
                let (key, value) = words[3]
                    .split_once("[?@.")
                    .unwrap()
                    .1
                    .trim_end_matches(']')
                    .split_once("==")
                    .unwrap();
                let pair = format!("\"{key}\":{value}");
                assert!(
                    out.replace("\": ", "\":").contains(&pair),
                    "{name}: `{c}` lacks {pair}: {out}"
                );
                assert!(rec["note"].as_str().unwrap().starts_with(key), "{rec}");
            }
            ran += 1;
        }
    }
    assert!(ran >= 90, "{ran} commands run");
}

#[test]
fn a_rare_value_among_json_records_is_named_and_its_filter_hinted() {
    let s = Sandbox::new();
    let records: Vec<String> = (0..241)
        .map(|i| {
            let state = if i == 117 { "DOWN" } else { "UP" };
            format!(
                r#"{{"ifindex":{i},"ifname":"veth{i}","mtu":1500,"operstate":"{state}","address":"02:00:00:00:{:02x}:{:02x}"}}"#,
                i / 256,
                i % 256
            )
        })
        .collect();
    let env = s
        .cmd(&["wrap"])
        .stdin(format!("[{}]", records.join(",")))
        .run()
        .json();
    assert!(
        env["summary"]
            .as_str()
            .unwrap()
            .ends_with(r#"; 1 of 241 records has operstate "DOWN""#),
        "{}",
        env["summary"]
    );
    let m = &env["signals"]["matches"][0];
    assert_eq!(m["path"], "$[117]", "{env}");
    let r = env["ref"].as_str().unwrap();
    assert_eq!(
        env["hint"],
        format!(
            r#"Stored in full as {r}. Read it with: spill extract {r} '$[?@.operstate=="DOWN"]' · spill shape {r} · spill extract {r} '$[0:5]'"#
        )
    );
    let ex = s
        .cmd(&[
            "extract",
            r,
            r#"$[?@.operstate=="DOWN"].ifname"#,
            "--compact",
        ])
        .run();
    assert_eq!(ex.out(), "[\"veth117\"]\n");
}

#[test]
fn the_largest_leaf_of_a_tree_listing_is_named_and_reached() {
    let s = Sandbox::new();
    let mut input = String::new();
    for d in 0..40 {
        for f in 0..15 {
            let size = if (d, f) == (23, 4) {
                "45M".to_string()
            } else {
                format!("{}.{}K", 4 + (d * 7 + f) % 50, f % 10)
            };
            input.push_str(&format!(
                "{size}\t./packages/pkg{d:02}/assets/file{f:02}.bin\n"
            ));
        }
        let dir = if d == 23 { "46M" } else { "420K" };
        input.push_str(&format!("{dir}\t./packages/pkg{d:02}\n"));
    }
    input.push_str("64M\t./packages\n64M\t.\n");
    let env = s.cmd(&["wrap"]).stdin(input).run().json();
    let m = &env["signals"]["matches"][0];
    assert_eq!(
        m["text"], "45M\t./packages/pkg23/assets/file04.bin",
        "{env}"
    );
    assert_eq!(m["note"], "largest of 600 similar lines");
    assert_eq!(m.get("count"), None);
    let summary = env["summary"].as_str().unwrap();
    assert!(
        summary.ends_with(
            "; line 373 stands out: 45M ./packages/pkg23/assets/file04.bin (largest of 600 similar lines)"
        ),
        "{summary}"
    );
    assert!(!summary.contains("failure"), "{summary}");
    // The hint reaches the row: its search finds it, its cat shows it.
    let r = env["ref"].as_str().unwrap();
    let cmds: Vec<&str> = env["hint"]
        .as_str()
        .unwrap()
        .split_once("Read it with: ")
        .unwrap()
        .1
        .split(" · ")
        .collect();
    assert_eq!(cmds[1], format!("spill cat {r} --lines 363:403"));
    for c in cmds {
        let run = s.shell(c);
        assert_eq!(run.code, Some(0), "{c}");
        assert!(
            run.out()
                .contains("45M\t./packages/pkg23/assets/file04.bin"),
            "{c}: {}",
            run.out()
        );
    }
}

#[test]
fn a_multi_line_diagnostic_is_shown_from_its_header() {
    let s = Sandbox::new();
    let mut input = String::new();
    for i in 0..400 {
        input.push_str(&format!("ERROR task {i} failed:\n    retrying in 5s\n"));
        if i == 217 {
            input.push_str(
                "ERROR task 217 failed:\n    cannot open /data/shard217: disk quota exceeded\n",
            );
        }
        input.push_str(&format!("task {i} done\n"));
    }
    let env = s.cmd(&["wrap"]).stdin(input).run().json();
    let texts = crate::common::signal_texts(&env);
    assert!(
        texts.contains(
            &"ERROR task 217 failed:\n    cannot open /data/shard217: disk quota exceeded"
        ),
        "{}",
        env["signals"]
    );
    assert!(
        !texts.iter().any(|t| t.starts_with("    cannot open")),
        "{}",
        env["signals"]
    );
}

#[test]
fn words_that_only_look_like_failures_in_descriptive_text_are_not_signals() {
    let s = Sandbox::new();
    let mut input = String::new();
    for i in 0..300 {
        input.push_str(&format!(
            "Image: img{i}.png\n  Geometry: 64x64+0+0\n  Units: Undefined\n  Endianness: Undefined\n  Colorspace: sRGB\n"
        ));
    }
    input.push_str(
        "DESCRIPTION\n       The command fails with an error when the file cannot be found or is missing.\n       exception context\n   encoding=None, errors=None\n    error::Gone names how a ref went away\n",
    );
    let env = s.cmd(&["wrap"]).stdin(input).run().json();
    assert_eq!(env.get("signals"), None, "{env}");
}

/// The commands a hint names, in order.
fn hinted(env: &Value) -> Vec<String> {
    env["hint"]
        .as_str()
        .unwrap()
        .split_once("Read it with: ")
        .unwrap()
        .1
        .split(" · ")
        .map(str::to_string)
        .collect()
}

#[test]
fn a_json_report_shows_its_rarest_severity_first_with_its_counts() {
    let s = Sandbox::new();
    let records: Vec<String> = (0..1081)
        .map(|i| {
            let (severity, rule, message) = if i == 700 {
                (2, "no-undef", "'total' is not defined.")
            } else {
                (1, "no-unused-vars", "'x' is assigned a value but never used.")
            };
            format!(
                r#"{{"filePath":"/src/m{i}.js","ruleId":"{rule}","severity":{severity},"message":"{message}","line":{i}}}"#
            )
        })
        .collect();
    let input = format!(
        r#"{{"errorCount":1,"warningCount":1080,"results":[{}]}}"#,
        records.join(",")
    );
    let env = s.cmd(&["wrap"]).stdin(input).run().json();
    let summary = env["summary"].as_str().unwrap();
    assert!(
        summary.ends_with("; errorCount 1, warningCount 1,080; 1 of 1,081 records has severity 2"),
        "{summary}"
    );
    // The error comes first in the preview, the first warnings follow in order.
    let preview = env["preview"].as_array().unwrap();
    assert_eq!(preview[0]["severity"], 2, "{preview:?}");
    assert_eq!(preview[0]["ruleId"], "no-undef");
    assert_eq!(preview[1]["line"], 0);
    let m = &env["signals"]["matches"][0];
    assert_eq!(m["path"], "$.results[700]", "{env}");
    assert_eq!(m["note"], "severity: 2 in 1 of 1,081 records (1 in 1,080)");
    let r = env["ref"].as_str().unwrap();
    let cmds = hinted(&env);
    assert_eq!(
        cmds[0],
        format!("spill extract {r} '$.results[?@.severity==2]'")
    );
    let out = s.shell(&cmds[0]);
    assert_eq!(out.code, Some(0));
    assert!(
        out.out().contains("'total' is not defined."),
        "{}",
        out.out()
    );
    assert!(!out.out().contains("never used"), "{}", out.out());
}

#[test]
fn a_rare_value_among_ndjson_records_is_named_and_its_filter_hinted() {
    let s = Sandbox::new();
    let mut input = String::new();
    for i in 0..241 {
        let state = if i == 117 { "DOWN" } else { "UP" };
        input.push_str(&format!(
            "{{\"ifindex\":{i},\"ifname\":\"veth{i}\",\"flags\":[\"BROADCAST\",\"MULTICAST\"],\"mtu\":1500,\"qdisc\":\"noqueue\",\"operstate\":\"{state}\",\"address\":\"02:00:00:00:{:02x}:{:02x}\"}}\n",
            i / 256,
            i % 256
        ));
        // A blank line is no record: the indexes stay extract's.
        if i == 50 {
            input.push('\n');
        }
    }
    let env = s.cmd(&["wrap"]).stdin(input).run().json();
    assert_eq!(env["mimeType"], "application/x-ndjson");
    assert!(
        env["summary"]
            .as_str()
            .unwrap()
            .ends_with(r#"; 1 of 241 records has operstate "DOWN""#),
        "{}",
        env["summary"]
    );
    let m = &env["signals"]["matches"][0];
    assert_eq!(m["path"], "$[117]", "{env}");
    assert_eq!(m["line"], 119);
    let r = env["ref"].as_str().unwrap();
    assert_eq!(
        hinted(&env)[0],
        format!(r#"spill extract {r} '$[?@.operstate=="DOWN"]'"#)
    );
    let ex = s.cmd(&["extract", r, "$[117].ifname", "--compact"]).run();
    assert_eq!(ex.out(), "\"veth117\"\n");
    // Nothing holds a failure word: no generic search.
    assert!(
        !env["hint"].as_str().unwrap().contains("error|fail"),
        "{env}"
    );
}

#[test]
fn a_rare_value_in_key_value_records_is_named_and_searched() {
    let s = Sandbox::new();
    let input: String = (0..500)
        .map(|i| {
            let status = if i == 321 { 503 } else { 200 };
            format!(
                "time=2026-12-01T10:{:02}:{:02}Z level=info method=GET path=/api/item/{i} status={status} dur={}ms\n",
                i / 60,
                i % 60,
                10 + i % 7
            )
        })
        .collect();
    let env = s.cmd(&["wrap"]).stdin(input).run().json();
    let summary = env["summary"].as_str().unwrap();
    assert!(
        summary.ends_with("; 1 of 500 records has status 503 (line 322)"),
        "{summary}"
    );
    assert!(!summary.contains("failure"), "{summary}");
    let m = &env["signals"]["matches"][0];
    assert_eq!(m["line"], 322, "{env}");
    assert_eq!(m["note"], "status: 503 in 1 of 500 records (200 in 499)");
    let r = env["ref"].as_str().unwrap();
    let cmds = hinted(&env);
    assert_eq!(cmds[0], format!("spill search {r} -F 'status=503' -C 2"));
    for c in &cmds {
        let run = s.shell(c);
        assert_eq!(run.code, Some(0), "{c}");
        assert!(
            run.out().contains("/api/item/321 status=503"),
            "{c}: {}",
            run.out()
        );
    }
}

#[test]
fn a_rare_word_in_a_table_column_is_named_by_its_header() {
    let s = Sandbox::new();
    let mut input = String::from("NAME        READY   STATUS             RESTARTS   AGE\n");
    for i in 0..400 {
        let (status, restarts) = if i == 260 {
            ("CrashLoopBackOff", 41)
        } else {
            ("Running", 0)
        };
        input.push_str(&format!(
            "web-{i:04}    1/1     {status:18} {restarts:<10} 5d\n"
        ));
    }
    let env = s.cmd(&["wrap"]).stdin(input).run().json();
    let summary = env["summary"].as_str().unwrap();
    assert!(
        summary.ends_with("; 1 of 400 rows has STATUS CrashLoopBackOff (line 262)"),
        "{summary}"
    );
    let m = &env["signals"]["matches"][0];
    assert_eq!(
        m["note"], "STATUS: CrashLoopBackOff in 1 of 400 rows (Running in 399)",
        "{env}"
    );
    for c in hinted(&env) {
        let run = s.shell(&c);
        assert_eq!(run.code, Some(0), "{c}");
        assert!(run.out().contains("web-0260"), "{c}: {}", run.out());
    }
}
