//! Times the JSON engine's passes on a file: `cargo run --release --example json_bench -- FILE`.
//!
//! Prints GB/s for the fast skip, strict validation, a full walk, shape, and serde_json's
//! `IgnoredAny` as the anchor. Used for the numbers recorded in `src/json/mod.rs`.
#![allow(clippy::print_stdout)]

use std::time::Instant;

fn time<T>(name: &str, bytes: usize, f: impl Fn() -> T) -> T {
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
    out.expect("ran")
}

fn main() {
    let path = std::env::args().nth(1).expect("usage: json_bench FILE");
    let file = std::fs::File::open(&path).expect("open");
    // SAFETY: a benchmark over a file nobody modifies while it runs.
    let map = unsafe { memmap2::Mmap::map(&file) }.expect("mmap");
    let doc: &[u8] = &map;
    let n = doc.len();
    let root = spill::json::root(doc).expect("root");
    time("skip_value (root)", n, || root.end().expect("skip"));
    time("validate", n, || spill::json::validate(doc).expect("valid"));
    time("serde IgnoredAny", n, || {
        serde_json::from_slice::<serde::de::IgnoredAny>(doc).expect("serde");
    });
    if std::env::args().any(|a| a == "--all") {
        time("elements count", n, || {
            root.members()
                .next()
                .map(|m| m.expect("m").value.elements().count())
        });
    }
}
