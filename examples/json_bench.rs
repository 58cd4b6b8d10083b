//! Times the JSON engine's passes on a file: `cargo run --release --example json_bench -- FILE`.
//!
//! Prints GB/s for the fast skip, strict validation, a full walk, shape, and serde_json's
//! `IgnoredAny` as the anchor. Used for the numbers recorded in `src/json/mod.rs`.
#![allow(clippy::print_stdout)]

use std::time::Instant;

fn time<T>(name: &str, bytes: usize, f: impl Fn() -> T) -> Option<T> {
    // `json_bench FILE PASS` runs only the passes whose name starts with PASS, once (for
    // `perf stat`, whose cycle counts are steadier than wall time on a shared machine).
    if let Some(only) = std::env::args().nth(2) {
        if !name.starts_with(&only) {
            return None;
        }
        return Some(f());
    }
    let mut best = f64::MAX;
    let mut out = None;
    for _ in 0..3 {
        let t = Instant::now();
        out = Some(f());
        best = best.min(t.elapsed().as_secs_f64());
    }
    println!(
        "{name:<24} {:>7.2} GB/s  ({:.0} ms)",
        bytes as f64 / best / 1e9,
        best * 1e3
    );
    out
}

fn main() {
    let path = std::env::args().nth(1).expect("usage: json_bench FILE");
    let file = std::fs::File::open(&path).expect("open");
    // SAFETY: a benchmark over a file nobody modifies while it runs. `POPULATE=1` maps with
    // MAP_POPULATE, to see what page faults cost.
    let map = if std::env::var_os("POPULATE").is_some() {
        // SAFETY: as above.
        unsafe { memmap2::MmapOptions::new().populate().map(&file) }.expect("mmap")
    } else {
        // SAFETY: as above.
        unsafe { memmap2::Mmap::map(&file) }.expect("mmap")
    };
    let doc: &[u8] = &map;
    let n = doc.len();
    let root = spill::json::root(doc).expect("root");
    time("skip_value (root)", n, || root.end().expect("skip"));
    time("count (root)", n, || root.count().expect("count"));
    time("elements().count()", n, || root.elements().count());
    time("validate", n, || spill::json::validate(doc).expect("valid"));
    time("serde IgnoredAny", n, || {
        serde_json::from_slice::<serde::de::IgnoredAny>(doc).expect("serde");
    });
    time("walk_values (no-op)", n, || {
        struct Nop;
        impl spill::json::Visitor for Nop {}
        spill::json::walk_values(doc, &mut Nop).expect("walk")
    });
    time("shape", n, || {
        spill::json::shape::shape(doc, &spill::json::shape::ShapeOptions::default())
            .to_json()
            .len()
    });
    time("analyze (wrap)", n, || {
        matches!(
            spill::json::analyze::analyze(doc, &spill::json::analyze::AnalyzeOptions::default()),
            spill::json::analyze::Analysis::Json(_)
        )
    });
    time("shape --paths", n, || {
        spill::json::shape::shape_paths(doc)
            .expect("paths")
            .paths
            .len()
    });
    let last = [n as u64 - 2];
    time("paths_at_offsets(end)", n, || {
        spill::json::paths_at_offsets(doc, &last, false)
            .expect("paths")
            .len()
    });
    if std::env::args().any(|a| a == "--all") {
        time("elements count", n, || {
            root.members()
                .next()
                .map(|m| m.expect("m").value.elements().count())
        });
    }
}
