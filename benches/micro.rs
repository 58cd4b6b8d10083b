//! Micro-benchmarks of spill's hot loops: BLAKE3 hashing, the streaming text analysis behind
//! `wrap`'s envelope, the text preview render, and the JSON engine's skip, validation and
//! shape walk. Run with `cargo bench --bench micro`; the
//! throughput columns (bytes per second) are what to compare with ARCHITECTURE.md's early measurements.
//!
//! Inputs are generated here, deterministically, so no data files are needed.

use divan::counter::BytesCount;
use divan::{Bencher, black_box};
use spill::text::analyze::{self, TextAnalyzer};
use spill::text::preview::{self, Budget};
use spill::text::signals;

fn main() {
    divan::main();
}

/// Sizes of the generated inputs.
const SIZES: &[usize] = &[64 << 10, 16 << 20];

/// A build-log-like text: mostly ordinary lines, a failure every ~5,000 lines, an ANSI-coloured
/// progress line now and then. The mix decides how often the signal classifier runs.
fn build_log(size: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(size + 256);
    let mut n = 0u64;
    while out.len() < size {
        let line = match n % 10 {
            0..=3 => format!(
                "   Compiling crate-{} v0.{}.{} (/work/src/x)\n",
                n % 997,
                n % 30,
                n % 7
            ),
            4..=7 => format!("test module::case_{n} ... ok\n"),
            8 => format!(
                "\x1b[32m[{}%]\x1b[0m building shard replica queue\n",
                n % 100
            ),
            _ if n % 5003 == 9 => "error[E0308]: mismatched types in src/engine.rs\n".to_string(),
            _ => "note: the quick brown fox jumps over the lazy dog near the cache worker\n"
                .to_string(),
        };
        out.extend_from_slice(line.as_bytes());
        n += 1;
    }
    out
}

/// A pretty-printed JSON document, as `wrap` sees API output.
fn pretty_json(size: usize) -> Vec<u8> {
    let mut out = b"{\n  \"items\": [\n".to_vec();
    let mut id = 0u64;
    while out.len() < size {
        if id > 0 {
            out.extend_from_slice(b",\n");
        }
        out.extend_from_slice(
            format!(
                "    {{\n      \"id\": {id},\n      \"name\": \"item-{id}\",\n      \"tags\": [\"alpha\", \"beta\"],\n      \"owner\": {{\"email\": \"user{id}@example.com\"}}\n    }}"
            )
            .as_bytes(),
        );
        id += 1;
    }
    out.extend_from_slice(b"\n  ],\n  \"meta\": {\"count\": 1}\n}\n");
    out
}

#[divan::bench(args = SIZES)]
fn blake3_hash(bencher: Bencher, size: usize) {
    let data = build_log(size);
    bencher
        .counter(BytesCount::of_slice(&data))
        .bench(|| blake3::hash(black_box(&data)));
}

#[divan::bench(args = SIZES)]
fn analyze_build_log(bencher: Bencher, size: usize) {
    let data = build_log(size);
    bencher
        .counter(BytesCount::of_slice(&data))
        .bench(|| analyze::analyze(black_box(&data), 8 << 10));
}

#[divan::bench(args = SIZES)]
fn analyze_pretty_json(bencher: Bencher, size: usize) {
    let data = pretty_json(size);
    bencher
        .counter(BytesCount::of_slice(&data))
        .bench(|| analyze::analyze(black_box(&data), 8 << 10));
}

/// The same analysis fed in 1 MiB chunks, as `wrap`'s worker thread feeds it.
#[divan::bench(args = [16usize << 20])]
fn analyze_chunked(bencher: Bencher, size: usize) {
    let data = build_log(size);
    bencher.counter(BytesCount::of_slice(&data)).bench(|| {
        let mut a = TextAnalyzer::new(8 << 10);
        for chunk in black_box(&data).chunks(1 << 20) {
            a.feed(chunk);
        }
        a.finish()
    });
}

/// Rendering the head/tail preview from analysed facts (done a few times per envelope while
/// the preview shrinks to fit).
#[divan::bench]
fn preview_render(bencher: Bencher) {
    let data = build_log(4 << 20);
    let facts = analyze::analyze(&data, 8 << 10);
    let budget = Budget {
        head_bytes: 2048 / 3,
        tail_bytes: 2048 - 2048 / 3,
        head_lines: None,
        tail_lines: None,
    };
    bencher.bench(|| preview::render(black_box(&facts), budget));
}

/// The signal prefilter alone: lowercase a chunk, then one multi-literal scan finds the lines
/// worth classifying.
#[divan::bench(args = [16usize << 20])]
fn signal_prefilter(bencher: Bencher, size: usize) {
    let data = build_log(size);
    let mut lower = Vec::new();
    bencher
        .counter(BytesCount::of_slice(&data))
        .bench_local(|| {
            let mut hits = 0;
            for chunk in black_box(&data).chunks(1 << 20) {
                signals::lowercase_into(chunk, &mut lower);
                let mut at = 0;
                while let Some(hit) = signals::prefilter_find(&lower, at) {
                    hits += 1;
                    // Go on from the next line, as the analysis does.
                    at = hit + next_line(&lower[hit..]);
                }
            }
            hits
        });
}

fn next_line(rest: &[u8]) -> usize {
    rest.iter()
        .position(|&b| b == b'\n')
        .map_or(rest.len(), |i| i + 1)
}

/// A minified one-line array of event records, as `extract '$[-1].id'` sees it.
fn minified_json(size: usize) -> Vec<u8> {
    let mut out = b"[".to_vec();
    let mut n = 0u64;
    while out.len() < size {
        if n > 0 {
            out.push(b',');
        }
        out.extend_from_slice(
            format!(
                "{{\"id\":\"ev-{n}\",\"ts\":{},\"type\":\"click\",\"user\":{{\"id\":{},\"name\":\"caf\\u00e9\"}},\"props\":{{\"ms\":{},\"ok\":true}}}}",
                1_700_000_000_000 + n * 37,
                n % 100_000,
                n % 2000
            )
            .as_bytes(),
        );
        n += 1;
    }
    out.push(b']');
    out
}

/// The engine's skip over a whole document: what `extract` pays to pass over values its
/// query cannot reach (aim in ARCHITECTURE.md's targets: >= 3 GB/s).
#[divan::bench(args = ["pretty", "minified"])]
fn json_skip(bencher: Bencher, kind: &str) {
    let data = json_input(kind);
    bencher
        .counter(BytesCount::of_slice(&data))
        .bench(|| spill::json::skip_value(black_box(&data), 0).expect("valid JSON"));
}

/// Strict validation of a whole document (every token checked).
#[divan::bench(args = ["pretty", "minified"])]
fn json_validate(bencher: Bencher, kind: &str) {
    let data = json_input(kind);
    bencher
        .counter(BytesCount::of_slice(&data))
        .bench(|| spill::json::validate(black_box(&data)).expect("valid JSON"));
}

/// The `shape` command's full walk, merging every element (ARCHITECTURE.md's target: >= 1 GB/s).
#[divan::bench(args = ["pretty", "minified"])]
fn json_shape(bencher: Bencher, kind: &str) {
    let data = json_input(kind);
    let opts = spill::json::shape::ShapeOptions {
        sample: None,
        ..Default::default()
    };
    bencher
        .counter(BytesCount::of_slice(&data))
        .bench(|| spill::json::shape::shape(black_box(&data), &opts));
}

fn json_input(kind: &str) -> Vec<u8> {
    match kind {
        "pretty" => pretty_json(16 << 20),
        _ => minified_json(16 << 20),
    }
}
