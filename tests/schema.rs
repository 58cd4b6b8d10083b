//! `spill schema`: every schema is a valid draft 2020-12 schema, and real outputs of every
//! command validate against it. Each output is also deserialised into a `deny_unknown_fields`
//! struct here, so that any change to the wire format is a deliberate change to these tests.

use serde::Deserialize;
use serde_json::Value;

use crate::common::{Sandbox, lines_of_text};

/// The schema as `spill schema NAME` prints it, checked against its meta-schema.
fn schema(s: &Sandbox, name: &str) -> jsonschema::Validator {
    let r = s.run(&["schema", name], "");
    r.status(0);
    assert!(r.stderr.is_empty(), "{}", r.stderr);
    let schema = r.json();
    assert_eq!(
        schema["$schema"], "https://json-schema.org/draft/2020-12/schema",
        "{name}"
    );
    jsonschema::meta::validate(&schema)
        .unwrap_or_else(|e| panic!("schema {name} is not a valid JSON Schema: {e}"));
    jsonschema::validator_for(&schema).unwrap_or_else(|e| panic!("schema {name}: {e}"))
}

/// Asserts that `value` validates, listing every error.
#[track_caller]
fn assert_valid(validator: &jsonschema::Validator, value: &Value) {
    let errors: Vec<String> = validator
        .iter_errors(value)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{value}\n{}", errors.join("\n"));
}

/// Parses one line of JSON output (exactly one line, newline-terminated).
#[track_caller]
fn one_json_line(stdout: &[u8]) -> Value {
    let text = std::str::from_utf8(stdout).expect("JSON output is UTF-8");
    assert!(text.ends_with('\n'), "{text}");
    assert_eq!(text.matches('\n').count(), 1, "{text}");
    serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

// ---------------------------------------------------------------------------------------------
// The wire format, pinned.

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[allow(dead_code)]
struct Envelope {
    spilled: bool,
    error: Option<String>,
    #[serde(rename = "ref")]
    reference: Option<String>,
    path: Option<String>,
    label: Option<String>,
    mime_type: String,
    size_bytes: u64,
    lines: u64,
    total_items: Option<u64>,
    skipped_lines: Option<u64>,
    exit_code: Option<i32>,
    interrupted: Option<bool>,
    repeat_of: Option<Value>,
    summary: String,
    hint: Option<String>,
    shape: Option<Value>,
    preview: Option<Value>,
    signals: Option<Signals>,
    redacted: Option<u64>,
    complete: Option<bool>,
    stored_bytes: Option<u64>,
    dropped_bytes: Option<u64>,
    lossy: Option<bool>,
    json_part: Option<JsonPart>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[allow(dead_code)]
struct JsonPart {
    lines: [u64; 2],
    bytes: [u64; 2],
    other_lines: Vec<[u64; 2]>,
}

/// The envelope's keys, in their documented order (ARCHITECTURE.md, The envelope).
const ENVELOPE_ORDER: &[&str] = &[
    "spilled",
    "error",
    "ref",
    "path",
    "label",
    "mimeType",
    "sizeBytes",
    "lines",
    "totalItems",
    "exitCode",
    "interrupted",
    "repeatOf",
    "summary",
    "hint",
    "shape",
    "preview",
    "signals",
    "redacted",
    "complete",
    "storedBytes",
    "droppedBytes",
    "lossy",
    "jsonPart",
];

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[allow(dead_code)]
struct TextPreview {
    head: Vec<String>,
    tail: Vec<String>,
    omitted_lines: u64,
    omitted_bytes: u64,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct Signals {
    matches: Vec<SignalMatch>,
    total: u64,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct SignalMatch {
    line: u64,
    text: String,
    count: Option<u64>,
    path: Option<String>,
    note: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct LsOutput {
    entries: Vec<LsEntry>,
    count: usize,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[allow(dead_code)]
struct LsEntry {
    #[serde(rename = "ref")]
    reference: String,
    scope: String,
    size_bytes: u64,
    stored_bytes: u64,
    mime_type: String,
    lines: u64,
    total_items: Option<u64>,
    label: Option<String>,
    summary: String,
    created: f64,
    last_access: f64,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct RmOutput {
    removed: Vec<String>,
    unknown: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[allow(dead_code)]
struct GcOutput {
    dry_run: bool,
    removed: Vec<GcRemoval>,
    count: usize,
    freed_bytes: u64,
    usage_bytes: u64,
    quota_bytes: u64,
    tombstones_pruned: u64,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[allow(dead_code)]
struct GcRemoval {
    #[serde(rename = "ref")]
    reference: Option<String>,
    file: Option<String>,
    scope: String,
    size_bytes: u64,
    reason: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[allow(dead_code)]
struct ShapeText {
    text: ShapeTextFacts,
    invalid_json_at: Option<u64>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[allow(dead_code)]
struct ShapeTextFacts {
    lines: u64,
    bytes: u64,
    longest_line: u64,
    blank_lines: u64,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct ShapeBinary {
    binary: ShapeBinaryFacts,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct ShapeBinaryFacts {
    bytes: u64,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[allow(dead_code)]
struct SearchPage {
    matches: Vec<SearchMatch>,
    total_matches: u64,
    offset: u64,
    limit: u64,
    has_more: bool,
    next_offset: Option<u64>,
    next_resume: Option<String>,
    outputs_searched: Option<u64>,
    outputs_unsearched: Option<u64>,
    pattern_mode: Option<String>,
    lossy: Option<bool>,
    notes: Option<Vec<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[allow(dead_code)]
struct SearchMatch {
    #[serde(rename = "ref")]
    reference: Option<String>,
    line: u64,
    column: u64,
    byte_offset: u64,
    path: Option<String>,
    in_key: Option<bool>,
    text: String,
    text_start: u64,
    before: Vec<String>,
    after: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[allow(dead_code)]
struct SearchCount {
    total_matches: u64,
    pattern_mode: Option<String>,
}

/// One node of `spill extract --nodes`, or the continuation string that ends a cut list.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
#[allow(dead_code)]
enum ExtractItem {
    Node(ExtractNode),
    More(String),
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct ExtractNode {
    path: String,
    value: Value,
}

// ---------------------------------------------------------------------------------------------
// Inputs.

fn api_document(items: usize) -> Vec<u8> {
    let mut doc = String::from("{\"items\":[");
    for i in 0..items {
        if i > 0 {
            doc.push(',');
        }
        doc.push_str(&format!(
            "{{\"id\":{i},\"name\":\"item {i}\",\"tags\":[\"a\",\"b\"],\"email\":{}}}",
            if i % 3 == 0 {
                "null"
            } else {
                "\"x@example.com\""
            }
        ));
    }
    doc.push_str("],\"meta\":{\"count\":1}}");
    doc.into_bytes()
}

fn ndjson(records: usize) -> Vec<u8> {
    (0..records)
        .flat_map(|i| format!("{{\"i\":{i},\"msg\":\"record number {i}\"}}\n").into_bytes())
        .collect()
}

fn failing_log() -> Vec<u8> {
    let mut log = lines_of_text(400);
    log.extend_from_slice(b"error[E0308]: mismatched types\n  --> src/main.rs:4:5\n");
    log.extend_from_slice(&lines_of_text(400));
    log
}

/// Checks one envelope three ways: the schema, the pinned struct, and the key order.
#[track_caller]
fn check_envelope(validator: &jsonschema::Validator, stdout: &[u8]) -> Envelope {
    let value = one_json_line(stdout);
    assert_valid(validator, &value);
    let keys = top_level_keys(stdout);
    let positions: Vec<usize> = keys
        .iter()
        .map(|k| {
            ENVELOPE_ORDER
                .iter()
                .position(|o| o == k)
                .unwrap_or_else(|| panic!("unknown key {k}"))
        })
        .collect();
    assert!(
        positions.windows(2).all(|w| w[0] < w[1]),
        "keys out of the documented order: {keys:?}"
    );
    let env: Envelope =
        serde_json::from_value(value.clone()).unwrap_or_else(|e| panic!("{e}: {value}"));
    // A repeated output's envelope is a pointer: the earlier envelope showed the preview.
    if env.mime_type == "text/plain" && env.json_part.is_none() && env.repeat_of.is_none() {
        let preview = env.preview.clone().expect("a text envelope has a preview");
        let _: TextPreview = serde_json::from_value(preview).unwrap();
    }
    env
}

/// The keys of a JSON object in the order written (serde_json's `Value` sorts them).
fn top_level_keys(text: &[u8]) -> Vec<String> {
    struct Keys;
    impl<'de> serde::de::Visitor<'de> for Keys {
        type Value = Vec<String>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("an object")
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(
            self,
            mut map: A,
        ) -> Result<Self::Value, A::Error> {
            let mut keys = Vec::new();
            while let Some((key, _)) = map.next_entry::<String, serde::de::IgnoredAny>()? {
                keys.push(key);
            }
            Ok(keys)
        }
    }
    use serde::Deserializer;
    serde_json::Deserializer::from_slice(text)
        .deserialize_map(Keys)
        .expect("a JSON object")
}

// ---------------------------------------------------------------------------------------------
// Tests.

#[test]
fn every_schema_is_listed_and_valid() {
    let s = Sandbox::new();
    let r = s.run(&["schema"], "");
    r.status(0);
    let names: Vec<String> = r
        .out()
        .lines()
        .map(|l| l.split_whitespace().next().unwrap().to_string())
        .collect();
    for want in [
        "envelope", "shape", "extract", "search", "ls", "rm", "gc", "stats",
    ] {
        assert!(
            names.iter().any(|n| n == want),
            "{want} not listed: {names:?}"
        );
    }
    for name in &names {
        schema(&s, name);
        // The committed file is what the binary prints.
        let file = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("schemas")
            .join(format!("{name}.json"));
        assert_eq!(
            std::fs::read_to_string(&file).unwrap(),
            s.run(&["schema", name], "").out()
        );
    }
    let r = s.run(&["schema", "nonsense"], "");
    r.status(2);
    assert!(r.stderr.starts_with("spill: "), "{}", r.stderr);
}

#[test]
fn envelopes_of_every_kind_match_the_schema() {
    let s = Sandbox::new();
    let v = schema(&s, "envelope");

    let text = check_envelope(
        &v,
        &s.run(&["wrap", "--label", "cargo build"], failing_log())
            .stdout,
    );
    assert!(text.spilled && text.reference.is_some() && text.hint.is_some());
    assert_eq!(text.mime_type, "text/plain");
    assert_eq!(text.signals.as_ref().unwrap().total, 1);
    assert_eq!(text.label.as_deref(), Some("cargo build"));

    let json = check_envelope(&v, &s.run(&["wrap"], api_document(400)).stdout);
    assert_eq!(json.mime_type, "application/json");
    assert_eq!(json.total_items, Some(400));
    assert!(json.shape.is_some());

    // The same bytes again: a pointer to the entry already holding them.
    for input in [failing_log(), api_document(400)] {
        let again = check_envelope(&v, &s.run(&["wrap"], input).stdout);
        let repeat = again.repeat_of.as_ref().expect("a repeated output");
        assert_eq!(repeat["ref"].as_str(), again.reference.as_deref());
        assert!(again.hint.is_some() && again.preview.is_none() && again.shape.is_none());
    }

    let nd = check_envelope(&v, &s.run(&["wrap"], ndjson(600)).stdout);
    assert_eq!(nd.mime_type, "application/x-ndjson");
    assert_eq!(nd.total_items, Some(600));

    // JSON behind a few lines of other output: text, with the JSON part's shape and preview.
    let mut mixed = b"warning: one line of stderr first\n".to_vec();
    mixed.extend_from_slice(&ndjson(600));
    let mixed = check_envelope(&v, &s.run(&["wrap"], mixed).stdout);
    assert_eq!(mixed.mime_type, "text/plain");
    let part = mixed.json_part.as_ref().expect("a JSON part");
    assert_eq!(
        (part.lines, part.other_lines.clone()),
        ([2, 601], vec![[1, 1]])
    );
    assert!(mixed.shape.is_some() && mixed.preview.as_ref().unwrap().is_array());

    let mut binary = vec![0u8; 30_000];
    binary
        .iter_mut()
        .enumerate()
        .for_each(|(i, b)| *b = (i * 7) as u8);
    let bin = check_envelope(&v, &s.run(&["wrap"], binary).stdout);
    assert_eq!(bin.mime_type, "application/octet-stream");
    assert!(bin.preview.as_ref().unwrap().is_array());

    // Not UTF-8 in the last line, which the preview's tail shows.
    let mut lossy = lines_of_text(1000);
    lossy.extend_from_slice(b"caf\xe9 latin-1 line\n");
    let lossy = check_envelope(&v, &s.run(&["wrap"], lossy).stdout);
    assert_eq!(lossy.lossy, Some(true));

    let cmd = s
        .cmd(&["wrap", "--", "sh", "-c", "seq 1 20000; exit 3"])
        .run();
    cmd.status(3);
    assert_eq!(check_envelope(&v, &cmd.stdout).exit_code, Some(3));

    let secret = format!(
        "{}token sk-ant-api03-{}\n",
        String::from_utf8(lines_of_text(600)).unwrap(),
        "a".repeat(40)
    );
    let redacted = check_envelope(&v, &s.run(&["wrap", "--redact"], secret).stdout);
    assert_eq!(redacted.redacted, Some(1));

    let capped = check_envelope(
        &v,
        &s.run(&["wrap", "--max-file", "64K"], lines_of_text(5000))
            .stdout,
    );
    assert_eq!(capped.complete, Some(false));
    assert!(capped.stored_bytes.is_some() && capped.dropped_bytes.is_some());

    let restricted = s
        .cmd(&["wrap"])
        .env("SPILL_RESTRICTED", "1")
        .stdin(lines_of_text(1000))
        .run();
    assert!(check_envelope(&v, &restricted.stdout).path.is_none());

    // The degraded envelope: the store root is a regular file.
    let not_a_dir = s.file("not-a-dir", "x");
    let degraded = s
        .cmd(&["wrap", "--dir", not_a_dir.to_str().unwrap()])
        .stdin(failing_log())
        .run();
    degraded.status(0);
    let degraded = check_envelope(&v, &degraded.stdout);
    assert!(!degraded.spilled && degraded.error.is_some() && degraded.reference.is_none());
}

#[test]
fn an_interrupted_envelope_matches_the_schema() {
    use std::io::Write;
    let s = Sandbox::new();
    let v = schema(&s, "envelope");
    let mut child = s.cmd(&["wrap", "--max-inline", "1K"]).spawn_piped();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(&lines_of_text(200)).unwrap();
    stdin.flush().unwrap();
    // Wait until wrap is storing (its temporary file exists): it has read past --max-inline,
    // so its signal handlers are in place.
    let scope = s.store_root().join("default");
    let storing = || {
        std::fs::read_dir(&scope)
            .map(|d| {
                d.flatten()
                    .any(|e| e.file_name().to_string_lossy().starts_with(".tmp-"))
            })
            .unwrap_or(false)
    };
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while !storing() && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    assert!(storing(), "wrap never started storing");
    // Give it time to block in read(2) again, where the signal interrupts it.
    std::thread::sleep(std::time::Duration::from_millis(200));
    // SAFETY: kill(2) on the child's pid, which has not been waited for.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    // wrap stops at once, even with the producer's end still open (its self-pipe wakes the
    // read a signal just missed).
    assert!(
        crate::common::exits_within(&mut child, std::time::Duration::from_secs(10)),
        "wrap kept waiting after SIGTERM"
    );
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    assert_eq!(check_envelope(&v, &out.stdout).interrupted, Some(true));
}

#[test]
fn ls_rm_and_gc_json_match_their_schemas() {
    let s = Sandbox::new();
    let (ls, rm, gc) = (schema(&s, "ls"), schema(&s, "rm"), schema(&s, "gc"));

    let empty = s.run(&["ls", "--json"], "");
    empty.status(0);
    assert_valid(&ls, &one_json_line(&empty.stdout));

    let a = s.run(&["wrap", "--label", "the log"], failing_log()).json();
    let b = s.run(&["wrap"], api_document(300)).json();
    s.cmd(&["wrap", "--scope", "other"])
        .stdin(ndjson(900))
        .run()
        .status(0);
    let r = s.run(&["ls", "--json", "--all-scopes"], "");
    r.status(0);
    let value = one_json_line(&r.stdout);
    assert_valid(&ls, &value);
    let listed: LsOutput = serde_json::from_value(value).unwrap();
    assert_eq!(listed.count, 3);
    assert!(
        listed
            .entries
            .iter()
            .any(|e| e.label.as_deref() == Some("the log"))
    );
    assert!(listed.entries.iter().any(|e| e.total_items == Some(300)));

    // gc: a dry run that would evict under a tiny quota, then a real expiry pass.
    let r = s.run(&["gc", "--json", "--dry-run", "--quota", "1K"], "");
    r.status(0);
    let value = one_json_line(&r.stdout);
    assert_valid(&gc, &value);
    let report: GcOutput = serde_json::from_value(value).unwrap();
    assert!(report.dry_run && report.count >= 2, "{report:?}");
    assert!(report.removed.iter().all(|x| x.reason == "evicted"));

    // A stale temporary file (no writer holds its lock) is swept as `temp`.
    std::fs::write(
        s.store_root().join("default").join(".tmp-1-0-deadbeef"),
        "partial",
    )
    .unwrap();
    let r = s.run(&["gc", "--json"], "");
    r.status(0);
    let value = one_json_line(&r.stdout);
    assert_valid(&gc, &value);
    let report: GcOutput = serde_json::from_value(value).unwrap();
    assert!(
        report
            .removed
            .iter()
            .any(|x| x.reason == "temp" && x.file.is_some()),
        "{report:?}"
    );

    // rm: one removed, one unknown (exit 2, the JSON still printed).
    let r = s.run(
        &[
            "rm",
            "--json",
            a["ref"].as_str().unwrap(),
            "sp_0000000000000000",
        ],
        "",
    );
    r.status(2);
    let value = one_json_line(&r.stdout);
    assert_valid(&rm, &value);
    let out: RmOutput = serde_json::from_value(value).unwrap();
    assert_eq!(out.removed, vec![a["ref"].as_str().unwrap().to_string()]);
    assert_eq!(out.unknown, vec!["sp_0000000000000000".to_string()]);

    let r = s.run(&["gc", "--json", "--ttl", "1s"], "");
    r.status(0);
    assert_valid(&gc, &one_json_line(&r.stdout));
    let _ = b;
}

#[test]
fn search_json_matches_the_schema() {
    let s = Sandbox::new();
    let v = schema(&s, "search");
    let stored = s.run(&["wrap"], failing_log()).json();
    let reference = stored["ref"].as_str().unwrap();
    let api = s.file("api.json", api_document(200));
    let mut lossy = b"caf\xe9 error here\n".to_vec();
    lossy.extend_from_slice(&lines_of_text(3));
    let lossy = s.file("lossy.txt", lossy);
    let long = s.file(
        "long.txt",
        format!("{}needle{}\n", "x".repeat(2000), "y".repeat(2000)),
    );
    let cases: Vec<(Vec<&str>, i32)> = vec![
        (vec!["search", reference, "error", "-C", "2", "--json"], 0),
        (
            vec![
                "search",
                reference,
                "line 0001",
                "--limit",
                "3",
                "--offset",
                "2",
                "--json",
            ],
            0,
        ),
        (vec!["search", reference, "no such text", "--json"], 1),
        (vec!["search", reference, "error[", "--json"], 0),
        (
            vec![
                "search",
                api.to_str().unwrap(),
                "item 1\\d",
                "--paths",
                "--json",
            ],
            0,
        ),
        (
            vec![
                "search",
                api.to_str().unwrap(),
                "email",
                "--paths",
                "--json",
                "--limit",
                "2",
            ],
            0,
        ),
        (vec!["search", reference, "error", "--paths", "--json"], 0),
        (
            vec!["search", lossy.to_str().unwrap(), "error", "--json"],
            0,
        ),
        (
            vec!["search", long.to_str().unwrap(), "needle", "--json"],
            0,
        ),
        (
            vec!["search", reference, "line", "--offset", "100000", "--json"],
            0,
        ),
    ];
    for (args, status) in &cases {
        let r = s.run(args, "");
        r.status(*status);
        assert!(
            r.stderr.is_empty(),
            "{args:?}: JSON keeps stderr silent: {}",
            r.stderr
        );
        let value = one_json_line(&r.stdout);
        assert_valid(&v, &value);
        let page: SearchPage =
            serde_json::from_value(value).unwrap_or_else(|e| panic!("{args:?}: {e}"));
        assert_eq!(page.next_offset.is_some(), page.has_more, "{args:?}");
        assert!(page.matches.iter().all(|m| m.reference.is_none()));
    }
    // --all: every match names its ref, and pages continue with nextResume.
    s.run(&["wrap"], lines_of_text(3000)).status(0);
    for (args, status) in [
        (
            vec!["search", "--all", "line 000", "--limit", "3", "--json"],
            0,
        ),
        (
            vec![
                "search",
                "--all",
                "line|error",
                "--max-outputs",
                "1",
                "--json",
            ],
            0,
        ),
        (vec!["search", "--all", "no such text", "--json"], 1),
    ] {
        let r = s.run(&args, "");
        r.status(status);
        let value = one_json_line(&r.stdout);
        assert_valid(&v, &value);
        let page: SearchPage =
            serde_json::from_value(value).unwrap_or_else(|e| panic!("{args:?}: {e}"));
        assert_eq!(page.next_resume.is_some(), page.has_more, "{args:?}");
        assert_eq!(page.next_offset, None);
        assert!(page.outputs_searched.is_some());
        assert!(page.matches.iter().all(|m| m.reference.is_some()));
    }
    let with_paths = s.run(
        &[
            "search",
            api.to_str().unwrap(),
            "email",
            "--paths",
            "--json",
        ],
        "",
    );
    let page: SearchPage = serde_json::from_slice(&with_paths.stdout).unwrap();
    assert!(
        page.matches
            .iter()
            .all(|m| m.path.is_some() && m.in_key == Some(true))
    );
    let r = s.run(&["search", lossy.to_str().unwrap(), "error", "--json"], "");
    let page: SearchPage = serde_json::from_slice(&r.stdout).unwrap();
    assert_eq!(page.lossy, Some(true));
    let r = s.run(&["search", reference, "error", "--paths", "--json"], "");
    let page: SearchPage = serde_json::from_slice(&r.stdout).unwrap();
    assert!(
        page.notes.is_some_and(|n| n.len() == 1),
        "--paths on text: a note"
    );
    let literal = s.run(&["search", reference, "error[", "--json"], "");
    let page: SearchPage = serde_json::from_slice(&literal.stdout).unwrap();
    assert_eq!(page.pattern_mode.as_deref(), Some("literal"));

    for (args, status) in [
        (vec!["search", reference, "error", "--count", "--json"], 0),
        (
            vec![
                "search",
                reference,
                "nothing like this",
                "--count",
                "--json",
            ],
            1,
        ),
        (vec!["search", reference, "error[", "--count", "--json"], 0),
    ] {
        let r = s.run(&args, "");
        r.status(status);
        let value = one_json_line(&r.stdout);
        assert_valid(&v, &value);
        let _: SearchCount = serde_json::from_value(value).unwrap();
    }
}

#[test]
fn extract_nodes_match_the_schema() {
    let s = Sandbox::new();
    let v = schema(&s, "extract");
    let stored = s.run(&["wrap"], api_document(400)).json();
    let reference = stored["ref"].as_str().unwrap();
    let records = s.file("records.ndjson", ndjson(80));
    let records = records.to_str().unwrap();
    let cases: Vec<(Vec<&str>, i32, usize, bool)> = vec![
        // (arguments, exit status, nodes shown, ends with a continuation)
        (vec![reference, "$.items[0]"], 0, 1, false),
        (vec![reference, "$.items[*].id"], 0, 50, true),
        (
            vec![reference, "$.items[*].id", "--offset", "380"],
            0,
            20,
            false,
        ),
        (
            vec![reference, "$.items[0:3]", "--max-items", "2", "--compact"],
            0,
            2,
            true,
        ),
        (
            vec![
                reference,
                "$..tags",
                "--max-items",
                "1",
                "--max-string",
                "1",
            ],
            0,
            1,
            true,
        ),
        (
            vec![
                reference,
                "$.items[?@.email == null].name",
                "--max-items",
                "5",
            ],
            0,
            5,
            true,
        ),
        (vec![reference, "$['meta']"], 0, 1, false),
        (vec![reference, "$.nothing"], 1, 0, false),
        (vec![records, "$[*].msg", "--max-items", "3"], 0, 3, true),
        (vec![records, "$[7]"], 0, 1, false),
        (
            vec![reference, "$", "--max-depth", "1", "--max-bytes", "300"],
            0,
            1,
            false,
        ),
    ];
    for (args, status, shown, cut) in &cases {
        let mut full = vec!["extract", "--nodes"];
        full.extend(args);
        let r = s.run(&full, "");
        r.status(*status);
        let value: Value = serde_json::from_slice(&r.stdout)
            .unwrap_or_else(|e| panic!("{full:?}: {e}: {}", r.out()));
        assert_valid(&v, &value);
        let items: Vec<ExtractItem> = serde_json::from_value(value).unwrap();
        let nodes = items
            .iter()
            .filter(|i| matches!(i, ExtractItem::Node(_)))
            .count();
        assert_eq!(nodes, *shown, "{full:?}: {}", r.out());
        assert_eq!(
            matches!(items.last(), Some(ExtractItem::More(_))),
            *cut,
            "{full:?}"
        );
        for item in &items {
            if let ExtractItem::Node(node) = item {
                assert!(node.path.starts_with('$'), "{full:?}: {}", node.path);
            }
        }
    }
    assert!(!v.is_valid(&serde_json::json!([{"path": "$['a']", "value": 1, "extra": 2}])));
    assert!(!v.is_valid(&serde_json::json!(["… 1 more node", "… 2 more nodes"])));
    assert!(!v.is_valid(&serde_json::json!([{"path": "items[0]", "value": 1}])));
}

#[test]
fn shape_outputs_match_the_schema() {
    let s = Sandbox::new();
    let v = schema(&s, "shape");
    let json = s.file("api.json", api_document(50));
    let nd = s.file("records.ndjson", ndjson(20));
    let text = s.file("log.txt", failing_log());
    let broken = s.file("broken.json", "{\"items\": [1, 2,, 3]}\n");
    let binary = s.file("blob.bin", [0u8, 1, 2, 255, 0, 7]);
    let scalar = s.file("scalar.json", "42\n");
    for path in [&json, &nd, &text, &broken, &binary, &scalar] {
        let r = s.run(&["shape", path.to_str().unwrap()], "");
        r.status(0);
        let value = one_json_line(&r.stdout);
        assert_valid(&v, &value);
        if path == &text || path == &broken {
            let t: ShapeText = serde_json::from_value(value).unwrap();
            assert_eq!(t.invalid_json_at.is_some(), path == &broken);
        } else if path == &binary {
            let _: ShapeBinary = serde_json::from_value(value).unwrap();
        }
    }
    // A skeleton never passes for a text summary, nor the reverse.
    let skeleton = serde_json::json!({"text": {"lines": "integer"}});
    assert_valid(&v, &skeleton);
    assert!(!v.is_valid(&serde_json::json!({"text": {"lines": 3}})));
    assert!(!v.is_valid(&serde_json::json!({"items": 3})));
}

#[test]
fn the_envelope_schema_rejects_what_spill_never_prints() {
    let s = Sandbox::new();
    let v = schema(&s, "envelope");
    let good = one_json_line(&s.run(&["wrap"], failing_log()).stdout);
    assert_valid(&v, &good);
    let mut extra = good.clone();
    extra["version"] = serde_json::json!(2);
    assert!(!v.is_valid(&extra), "unknown fields are refused");
    let mut no_ref = good.clone();
    no_ref.as_object_mut().unwrap().remove("ref");
    assert!(!v.is_valid(&no_ref), "a spilled envelope has a ref");
    let mut bad_preview = good.clone();
    bad_preview["preview"] = serde_json::json!(["not", "a", "text", "preview"]);
    assert!(
        !v.is_valid(&bad_preview),
        "a text envelope has a head/tail preview"
    );
    let mut degraded_with_ref = good;
    degraded_with_ref["spilled"] = serde_json::json!(false);
    degraded_with_ref["error"] = serde_json::json!("no room");
    assert!(!v.is_valid(&degraded_with_ref));
}

#[test]
fn skipped_ndjson_lines_match_the_schemas() {
    let s = Sandbox::new();
    let mut log = String::new();
    for i in 0..600 {
        log.push_str(&format!(
            "{{\"seq\":{i},\"msg\":\"request served in {i} ms\"}}\n"
        ));
        if i % 100 == 7 {
            log.push_str("warning: connection reset by peer\n");
        }
    }
    let file = s.file("mixed.ndjson", &log);
    let file = file.to_str().unwrap();
    let shape = s.run(&["shape", file, "--skip-invalid"], "");
    shape.status(0);
    let value = one_json_line(&shape.stdout);
    assert_valid(&schema(&s, "shape"), &value);
    assert_eq!(value["skippedLines"], 6, "{value}");
    let search = s.run(
        &[
            "search",
            file,
            "\"seq\":599",
            "--paths",
            "--skip-invalid",
            "--json",
        ],
        "",
    );
    search.status(0);
    let value = one_json_line(&search.stdout);
    assert_valid(&schema(&s, "search"), &value);
    assert_eq!(value["skippedLines"], 6, "{value}");
    assert_eq!(value["matches"][0]["path"], "$[599]", "{value}");
    let wrap = s.run(
        &["wrap", "--max-inline", "0", "--skip-invalid"],
        log.as_bytes(),
    );
    wrap.status(0);
    let value = one_json_line(&wrap.stdout);
    assert_valid(&schema(&s, "envelope"), &value);
    let env: Envelope = serde_json::from_value(value.clone()).unwrap();
    assert_eq!(env.mime_type, "application/x-ndjson");
    assert_eq!(env.skipped_lines, Some(6), "{value}");
    assert!(env.hint.unwrap().contains("'$[0:5]' --skip-invalid"));
}

#[test]
fn stats_json_matches_its_schema() {
    let s = Sandbox::new();
    let stats = schema(&s, "stats");
    let none = s.run(&["stats", "--json"], "");
    none.status(1);
    assert_valid(&stats, &one_json_line(&none.stdout));
    crate::common::spilled(
        s.cmd(&["wrap", "--max-inline", "0"])
            .stdin(b"entry\n".to_vec()),
    );
    s.run(&["--scope", "b", "wrap"], "small\n").status(0);
    for args in [
        &["stats", "--json"][..],
        &["stats", "--json", "--all-scopes"],
    ] {
        let r = s.run(args, "");
        r.status(0);
        let v = one_json_line(&r.stdout);
        assert_valid(&stats, &v);
        assert!(!v["scopes"].as_array().unwrap().is_empty(), "{v}");
    }
}
