//! Replays the committed fuzz corpus (`tests/fuzz-cases/TARGET/`: a minimised corpus plus every
//! crash input ever found) through the same invariant checks the cargo-fuzz targets run, so CI
//! catches regressions without a nightly toolchain.

use std::path::Path;

/// The invariant check of one fuzz target.
type Check = fn(&[u8]);

/// Each fuzz target and the check it runs.
const TARGETS: &[(&str, Check)] = &[
    ("json_engine", spill::fuzzing::json_engine),
    ("json_shape", spill::fuzzing::json_shape),
    ("jsonpath_parse", spill::fuzzing::jsonpath_parse),
    ("text_preview", spill::fuzzing::text_preview),
    ("redact", spill::fuzzing::redact),
    ("limits", spill::fuzzing::limits),
    ("search_windows", spill::fuzzing::search_windows),
    ("extract_eval", spill::fuzzing::extract_eval),
];

#[test]
fn the_saved_fuzz_cases_pass_every_check() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz-cases");
    let mut failures = Vec::new();
    let mut replayed = 0;
    for (target, check) in TARGETS {
        let dir = root.join(target);
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries {
            let path = entry.unwrap().path();
            let data = std::fs::read(&path).unwrap();
            replayed += 1;
            if std::panic::catch_unwind(|| check(&data)).is_err() {
                failures.push(path.display().to_string());
            }
        }
    }
    assert!(failures.is_empty(), "fuzz cases failing: {failures:#?}");
    // The corpus is committed: an empty replay means it went missing.
    assert!(
        replayed >= TARGETS.len(),
        "only {replayed} fuzz cases found"
    );
}

#[test]
fn every_fuzz_target_has_a_replayed_check() {
    // A target added to fuzz/Cargo.toml without a replay here would never run in CI.
    let manifest =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/Cargo.toml"))
            .unwrap();
    for line in manifest.lines() {
        if let Some(name) = line
            .strip_prefix("name = \"")
            .and_then(|l| l.strip_suffix('"'))
        {
            if name == "spill-fuzz" {
                continue;
            }
            assert!(
                TARGETS.iter().any(|(t, _)| *t == name),
                "fuzz target {name} is not replayed by tests/fuzz_cases.rs"
            );
        }
    }
}

/// Found by the extract_eval fuzz target: with a long key (NULs and quotes, each escaped to
/// several bytes in a normalized path, again in a shell-quoted command, again in a JSON string),
/// `--nodes` output repeated the key in the node's path and in the continuation marker, and
/// `--max-bytes 616` printed 873 bytes (934 for the second input). The bound holds now, in every
/// mode, and the cut stays visible with the notice naming the continuing command.
///
/// The fuzzer's documents hold raw control bytes and invalid UTF-8 inside their keys, so they
/// are not JSON: extract now rejects them (README, "Exactness"). The bound is checked on valid
/// documents with the same kind of key, escaped (`\u0000`, `\"`).
#[test]
fn extract_byte_bound_with_a_long_key() {
    use spill::extract::{Bounds, Mode, Options, extract};
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz-cases/extract_eval");
    let query = spill::json::path::Query::parse("$.*").unwrap();
    for crash in [
        "crash-a4624f02881ffaf6f63c7d4c6c53df56ab751aa9", // the long key
        "crash-684dd873b91b5dd306a82b9d32f80f6507310864", // the escaped key
    ] {
        let data = std::fs::read(dir.join(crash)).unwrap();
        let opts = Options {
            source: "-",
            bounds: None,
            mode: Mode::Nodes,
            compact: true,
            offset: 0,
            skip_invalid: false,
        };
        let mut out = Vec::new();
        let e = extract(&data[6..], &query, &opts, &mut out).unwrap_err();
        assert!(e.to_string().contains("invalid JSON"), "{crash}: {e}");
    }
    let long_key = format!(
        "{{\"o1{}\":[0,1,2,3,4,5,6],\"b\":[7,8]}}",
        r"\u0000".repeat(60)
    );
    let escaped_key = format!(
        "{{\"{}S\\\"/////\\\\SA{}\":[77,4,73],\"b\":1}}",
        r"\u0000z".repeat(20),
        r"\u0012".repeat(40)
    );
    for (crash, doc) in [("the long key", long_key), ("the escaped key", escaped_key)] {
        let data = format!("{:6}{doc}", "").into_bytes();
        for mode in [Mode::Nodes, Mode::Values] {
            for compact in [false, true] {
                let mut cut_somewhere = false;
                for max_bytes in [spill::extract::MIN_MAX_BYTES, 200, 300, 616] {
                    let opts = Options {
                        source: "-",
                        bounds: Some(Bounds {
                            max_items: 2,
                            max_depth: 3,
                            max_string: 5,
                            max_bytes: Some(max_bytes),
                        }),
                        mode,
                        compact,
                        offset: 0,
                        skip_invalid: false,
                    };
                    let mut out = Vec::new();
                    let report = extract(&data[6..], &query, &opts, &mut out).unwrap();
                    let what =
                        format!("{crash} {mode:?} compact={compact} --max-bytes {max_bytes}");
                    assert!(out.len() <= max_bytes, "{what}: {} bytes", out.len());
                    let text = String::from_utf8(out).unwrap();
                    let json: serde_json::Value = serde_json::from_str(&text)
                        .unwrap_or_else(|e| panic!("{what}: not JSON ({e}): {text}"));
                    // Either everything fitted, or the cut is in-band and the notice names
                    // the command continuing it.
                    match report.notice() {
                        None => assert!(!text.contains('…'), "{what}: a marker in {json}"),
                        Some(notice) => {
                            assert!(text.contains('…'), "{what}: no marker in {json}");
                            assert!(
                                notice.contains("next: spill extract - "),
                                "{what}: {notice}"
                            );
                        }
                    }
                    cut_somewhere |= report.notice().is_some();
                }
                // The path alone is longer than the smallest bound: that one cuts.
                assert!(
                    cut_somewhere || mode == Mode::Values,
                    "{crash} {mode:?}: nothing cut at any bound"
                );
            }
        }
    }
}
