//! `spill shape` through the real binary: golden skeletons, the byte cap, NDJSON, text, binary,
//! invalid JSON and `--paths`.

use std::path::PathBuf;

use crate::common::Sandbox;

fn golden_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden/shape")
}

/// Runs `spill shape INPUT ARGS…` on a golden input and compares stdout with `NAME`
/// (rewritten when `SPILL_BLESS=1`).
#[track_caller]
fn golden(input: &str, args: &[&str], name: &str) {
    let s = Sandbox::new();
    let path = golden_dir().join(input);
    let mut argv = vec!["shape", path.to_str().unwrap()];
    argv.extend_from_slice(args);
    let r = s.run(&argv, "");
    r.status(0);
    let want_path = golden_dir().join(name);
    if std::env::var_os("SPILL_BLESS").is_some_and(|v| v == "1") {
        std::fs::write(&want_path, &r.stdout).unwrap();
    }
    let want = std::fs::read_to_string(&want_path)
        .unwrap_or_else(|_| panic!("missing golden {name}; SPILL_BLESS=1"));
    assert_eq!(r.out(), want, "golden {name}");
    assert_eq!(r.stderr, "");
}

#[test]
fn golden_skeletons() {
    golden("api.json", &[], "api.shape");
    golden("api.json", &["--depth", "1"], "api.depth1.shape");
    golden("api.json", &["--paths"], "api.paths");
    golden("events.ndjson", &[], "events.shape");
    golden("events.ndjson", &["--paths"], "events.paths");
}

#[test]
fn stdin_and_refs_are_sources() {
    let s = Sandbox::new();
    let r = s.run(&["shape", "-"], r#"{"a":[1,2,3]}"#);
    r.status(0);
    assert_eq!(r.out(), "{\"a\":\"array[3] of integer\"}\n");
    // Store a large JSON document with wrap, then read its shape by ref.
    let items: Vec<String> = (0..2000)
        .map(|i| format!(r#"{{"id":{i},"msg":"message number {i}"}}"#))
        .collect();
    let doc = format!(r#"{{"items":[{}]}}"#, items.join(","));
    let w = s.run(&["wrap"], doc.clone());
    w.status(0);
    let env = w.json();
    let reference = env["ref"].as_str().expect("a ref").to_string();
    let r = s.run(&["shape", &reference], "");
    r.status(0);
    assert_eq!(
        r.out(),
        "{\"items\":{\"array[2000]\":{\"id\":\"integer\",\"msg\":\"string\"}}}\n"
    );
}

#[test]
fn the_cap_holds_on_hostile_input() {
    let s = Sandbox::new();
    // Thousands of heterogeneous keys, huge key names, arrays only in arrays.
    let mut doc = String::from("{");
    for i in 0..3000 {
        let value = match i % 4 {
            0 => "1".to_string(),
            1 => "\"s\"".to_string(),
            2 => format!("[[[{i}]]]"),
            _ => format!("{{\"{}\":null}}", "n".repeat(i % 700)),
        };
        doc.push_str(&format!("\"{}{i}\":{value},", "k".repeat(i % 900)));
    }
    doc.push_str("\"last\":[[[[[[[[1]]]]]]]]}");
    for max in ["256", "300", "1024", "4K"] {
        let r = s.run(
            &["shape", "-", "--max-bytes", max, "--depth", "10"],
            doc.clone(),
        );
        r.status(0);
        let line = r.out();
        let body = line.strip_suffix('\n').expect("one line");
        let cap = if max == "4K" {
            4096
        } else {
            max.parse().unwrap()
        };
        assert!(body.len() <= cap, "{} > {cap}", body.len());
        serde_json::from_str::<serde_json::Value>(body).expect("valid JSON");
    }
}

#[test]
fn text_binary_and_invalid_json() {
    let s = Sandbox::new();
    let r = s.run(&["shape", "-"], "line one\n\nline three is longer\n");
    r.status(0);
    assert_eq!(
        r.out(),
        "{\"text\":{\"lines\":3,\"bytes\":31,\"longestLine\":20,\"blankLines\":1}}\n"
    );
    let r = s.run(&["shape", "-"], b"\x7fELF\x00\x01\x02".to_vec());
    r.status(0);
    assert_eq!(r.out(), "{\"binary\":{\"bytes\":7}}\n");
    let r = s.run(&["shape", "-"], "{\"a\": 1,\n \"b\": tru}\n");
    r.status(0);
    assert_eq!(
        r.out(),
        "{\"text\":{\"lines\":2,\"bytes\":20,\"longestLine\":10,\"blankLines\":0},\"invalidJsonAt\":15}\n"
    );
    // --paths needs JSON: invalid JSON is an error naming the position.
    let r = s.run(&["shape", "-", "--paths"], "{\"a\": 1,\n \"b\": tru}\n");
    r.status(2);
    assert!(
        r.stderr.starts_with("spill: ") && r.stderr.contains("15") && r.stderr.contains("2:7"),
        "{}",
        r.stderr
    );
    let r = s.run(&["shape", "-", "--paths"], "just text\n");
    r.status(2);
    assert!(r.stderr.contains("--paths needs JSON"), "{}", r.stderr);
}

#[test]
fn usage_errors() {
    let s = Sandbox::new();
    let r = s.run(&["shape", "-", "--max-bytes", "100"], "{}");
    r.status(2);
    assert!(r.stderr.contains("--max-bytes"), "{}", r.stderr);
    let r = s.run(&["shape", "-", "--max-depth", "x"], "{}");
    r.status(2);
    let r = s.run(&["shape", "/nonexistent/file.json"], "");
    r.status(2);
}

#[test]
fn million_deep_nesting() {
    let s = Sandbox::new();
    let n = 1_000_000;
    let doc = "[".repeat(n) + &"]".repeat(n);
    let r = s.run(&["shape", "-", "--depth", "2"], doc.clone());
    r.status(0);
    assert_eq!(r.out(), "{\"array[1]\":\"array[1] of array[1]\"}\n");
    let r = s.run(&["shape", "-", "--paths"], doc);
    r.status(0);
    assert!(r.out().starts_with("$  array  1\n$[*]  array  1\n"));
    assert!(
        r.stderr.contains("more distinct paths not listed"),
        "{}",
        r.stderr
    );
}

#[test]
fn bom_crlf_and_key_order() {
    let s = Sandbox::new();
    let f = s.file(
        "bom.json",
        b"\xEF\xBB\xBF{\r\n  \"z\": 1,\r\n  \"a\": [true, null],\r\n  \"z\": \"dup\"\r\n}\r\n",
    );
    let r = s.run(&["shape", f.to_str().unwrap()], "");
    r.status(0);
    assert_eq!(
        r.out(),
        "{\"z\":\"integer\",\"a\":\"array[2] of boolean|null\"}\n"
    );
}

#[test]
fn skipped_lines_beside_an_empty_object_keep_the_skeleton_valid_json() {
    // One record `{}` and a line that is not JSON: the skeleton is `{}`, and the count of
    // skipped lines joins it as its only member (it once came out as `{,"skippedLines":1}`).
    let s = Sandbox::new();
    let f = s.file("one.ndjson", "{}\nnot json\n");
    let r = s.run(&["shape", f.to_str().unwrap(), "--skip-invalid"], "");
    r.status(0);
    assert_eq!(r.out(), "{\"skippedLines\":1}\n");
    assert_eq!(r.json()["skippedLines"], 1);
}

/// A key holding controls is spelled in the skeleton as serde_json spells it everywhere else
/// spill prints JSON (`\b`, `\f`, `\u001f`), one escaping rule for all output (it was `\u0008`
/// and `\u000c` in skeletons).
#[test]
fn keys_with_controls_use_the_one_json_string_spelling() {
    let s = Sandbox::new();
    let r = s.run(
        &["shape", "-"],
        "{\"a\\bb\\fc\\u001f\\\"\\\\\\n\":1,\"é☺\":true}",
    );
    r.status(0);
    assert_eq!(
        r.out().trim_end(),
        r#"{"a\bb\fc\u001f\"\\\n":"integer","é☺":"boolean"}"#
    );
}
