//! Replays the committed fuzz corpus (`tests/fuzz-cases/TARGET/`: a minimised corpus plus every
//! crash input ever found) through the same invariant checks the cargo-fuzz targets run, so CI
//! catches regressions without a nightly toolchain.

use std::path::Path;

/// The invariant check of one fuzz target.
type Check = fn(&[u8]);

/// Each fuzz target and the check it runs.
const TARGETS: &[(&str, Check)] = &[
    ("json_engine", spill::json::fuzzing::engine),
    ("json_shape", spill::json::fuzzing::shape_cap),
    ("jsonpath_parse", spill::json::path::fuzz_query),
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

/// Found by the extract_eval fuzz target: with a long key, `--nodes` output repeats the key in
/// the path and in the continuation marker, and `--max-bytes 616` printed 873 bytes. Open
/// (reported to the extract module); run with `cargo test -- --ignored` to check a fix.
#[test]
#[ignore = "known: --max-bytes is exceeded when a path and its continuation marker are longer than the bound"]
fn extract_byte_bound_with_a_long_key() {
    use spill::extract::{Bounds, Mode, Options, extract};
    let crash = std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz-cases/known/extract_eval-long-key"),
    )
    .unwrap();
    let query = spill::json::path::Query::parse("$.*").unwrap();
    let opts = Options {
        source: "-",
        bounds: Some(Bounds {
            max_items: 2,
            max_depth: 3,
            max_string: 5,
            max_bytes: Some(616),
        }),
        mode: Mode::Nodes,
        compact: false,
        offset: 0,
    };
    let mut out = Vec::new();
    extract(&crash[6..], &query, &opts, &mut out).unwrap();
    assert!(out.len() <= 616, "{} bytes", out.len());
}
