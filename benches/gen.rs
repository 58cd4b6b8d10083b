//! Deterministic benchmark data: an API-like pretty-printed JSON document, a minified one-line
//! array of event records, an NDJSON log, a plain-text build log, and two more JSON shapes so
//! that no workload is tuned to one generator's document — a minified graph with ids at three
//! depths, and a pretty document of long strings full of escapes — each of a chosen size.
//!
//! `cargo run --release --example gen -- --size 100M --out benches/data` writes
//! `api-100M.json`, `events-100M.json`, `log-100M.ndjson`, `build-100M.log`, `graph-100M.json`
//! and `strings-100M.json`. The same
//! arguments always give the same bytes (a fixed-seed splitmix64, no clock, no randomness from
//! the system), so timings from different machines describe the same input. Records are
//! rendered into one reused buffer and written through a 1 MiB `BufWriter`, so 1 GB takes a
//! few seconds and a few MiB of memory.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// splitmix64: tiny, fast and good enough to make varied but reproducible records.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n`.
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len() as u64) as usize]
    }
}

const WORDS: &[&str] = &[
    "alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet",
    "kilo", "lima", "mike", "november", "oscar", "papa", "quebec", "romeo", "sierra", "tango",
    "uniform", "victor", "whiskey", "xray", "yankee", "zulu", "request", "cache", "worker",
    "shard", "replica", "queue", "retry", "latency", "budget", "token",
];
const CITIES: &[&str] = &[
    "Lisbon",
    "Osaka",
    "Montréal",
    "Zürich",
    "Nairobi",
    "Lima",
    "Tromsø",
    "Hanoi",
    "Austin",
];
const EVENT_TYPES: &[&str] = &["click", "view", "scroll", "submit", "purchase", "login"];
const LEVELS: &[&str] = &["debug", "info", "info", "info", "warn"];
const PATHS: &[&str] = &[
    "/api/v1/items",
    "/api/v1/users/me",
    "/checkout",
    "/search",
    "/static/app.js",
];

fn push_u64(buf: &mut Vec<u8>, n: u64) {
    // `write!` through fmt is the slow part of a naive generator; digits by hand are not.
    let mut digits = [0u8; 20];
    let mut i = digits.len();
    let mut n = n;
    loop {
        i -= 1;
        digits[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    buf.extend_from_slice(&digits[i..]);
}

fn push(buf: &mut Vec<u8>, s: &str) {
    buf.extend_from_slice(s.as_bytes());
}

/// A sentence of `words` random words (JSON-safe: letters, spaces, one `é`).
fn push_sentence(buf: &mut Vec<u8>, rng: &mut Rng, words: usize) {
    for w in 0..words {
        if w > 0 {
            buf.push(b' ');
        }
        push(buf, rng.pick(WORDS));
    }
    if rng.below(4) == 0 {
        push(buf, " café");
    }
}

/// One item of the API document, pretty-printed at the indentation `jq .` would use.
fn api_item(buf: &mut Vec<u8>, rng: &mut Rng, id: u64) {
    push(buf, "    {\n      \"id\": ");
    push_u64(buf, id);
    push(buf, ",\n      \"name\": \"item-");
    push_u64(buf, id);
    push(buf, "\",\n      \"active\": ");
    push(buf, if rng.below(5) == 0 { "false" } else { "true" });
    push(buf, ",\n      \"score\": ");
    push_u64(buf, rng.below(100));
    buf.push(b'.');
    push_u64(buf, rng.below(10));
    push(buf, ",\n      \"tags\": [");
    for t in 0..1 + rng.below(4) {
        if t > 0 {
            push(buf, ", ");
        }
        buf.push(b'"');
        push(buf, rng.pick(WORDS));
        buf.push(b'"');
    }
    push(buf, "],\n      \"owner\": {\n        \"id\": ");
    push_u64(buf, rng.below(100_000));
    push(buf, ",\n        \"email\": \"user");
    push_u64(buf, rng.below(100_000));
    push(
        buf,
        "@example.com\",\n        \"address\": {\n          \"city\": \"",
    );
    push(buf, rng.pick(CITIES));
    push(buf, "\",\n          \"zip\": \"");
    push_u64(buf, 10_000 + rng.below(90_000));
    push(buf, "\"\n        }\n      },\n      \"parent\": ");
    if id > 0 && rng.below(3) == 0 {
        push_u64(buf, rng.below(id));
    } else {
        push(buf, "null");
    }
    push(buf, ",\n      \"description\": \"");
    // Most descriptions are short; one in ten is a long string the readers must skip.
    let words = if rng.below(10) == 0 {
        80 + rng.below(300)
    } else {
        4 + rng.below(12)
    };
    push_sentence(buf, rng, words as usize);
    if rng.below(500) == 0 {
        push(buf, " (upstream timeout)");
    }
    push(buf, "\"\n    }");
}

/// Writes a document of records: `open`, then records (`record(buf, rng, n)` for n = 0, 1, …)
/// joined by `sep` while fewer than `size - reserve` bytes are written (at least one), then
/// `close(buf, count)`. Returns the bytes written. `reserve` keeps room for the closing part, so
/// the file lands near `size`.
fn records(
    out: &mut impl Write,
    size: u64,
    rng: &mut Rng,
    (open, sep, reserve): (&str, &str, u64),
    record: fn(&mut Vec<u8>, &mut Rng, u64),
    close: fn(&mut Vec<u8>, u64),
) -> io::Result<u64> {
    let mut buf = Vec::with_capacity(1 << 16);
    out.write_all(open.as_bytes())?;
    let mut written = open.len() as u64;
    let mut n = 0u64;
    while written + reserve < size || n == 0 {
        buf.clear();
        if n > 0 {
            push(&mut buf, sep);
        }
        record(&mut buf, rng, n);
        out.write_all(&buf)?;
        written += buf.len() as u64;
        n += 1;
    }
    buf.clear();
    close(&mut buf, n);
    out.write_all(&buf)?;
    Ok(written + buf.len() as u64)
}

fn api(out: &mut impl Write, size: u64, rng: &mut Rng) -> io::Result<u64> {
    // Keep ~200 bytes for the closing `meta` object so the file lands near the target.
    records(
        out,
        size,
        rng,
        ("{\n  \"items\": [\n", ",\n", 200),
        api_item,
        |buf, count| {
            push(buf, "\n  ],\n  \"meta\": {\n    \"count\": ");
            push_u64(buf, count);
            push(
                buf,
                ",\n    \"generator\": \"spill benches/gen.rs\",\n    \"version\": 1,\n    \"next\": null\n  }\n}\n",
            );
        },
    )
}

fn event(buf: &mut Vec<u8>, rng: &mut Rng, n: u64) {
    push(buf, "{\"id\":\"ev-");
    push_u64(buf, n);
    push(buf, "\",\"ts\":");
    push_u64(buf, 1_700_000_000_000 + n * 37 + rng.below(37));
    push(buf, ",\"type\":\"");
    push(buf, rng.pick(EVENT_TYPES));
    push(buf, "\",\"user\":{\"id\":");
    push_u64(buf, rng.below(1_000_000));
    push(buf, ",\"name\":\"");
    push(buf, rng.pick(WORDS));
    push(buf, "\"},\"props\":{\"path\":\"");
    push(buf, rng.pick(PATHS));
    push(buf, "\",\"ms\":");
    push_u64(buf, rng.below(2000));
    push(buf, ",\"ok\":");
    // A rare failure reason gives `search` something to find on the one-line file.
    if rng.below(1000) == 0 {
        push(buf, "false,\"reason\":\"timeout\"}}");
    } else {
        push(buf, "true}}");
    }
}

fn events(out: &mut impl Write, size: u64, rng: &mut Rng) -> io::Result<u64> {
    // One line: no newline at all, like a minified API response.
    records(out, size, rng, ("[", ",", 2), event, |buf, _| {
        buf.push(b']')
    })
}

fn log_record(buf: &mut Vec<u8>, rng: &mut Rng, n: u64) {
    let secs = n / 50;
    push(buf, "{\"ts\":\"2026-11-30T");
    for (i, part) in [(secs / 3600) % 24, (secs / 60) % 60, secs % 60]
        .into_iter()
        .enumerate()
    {
        if i > 0 {
            buf.push(b':');
        }
        if part < 10 {
            buf.push(b'0');
        }
        push_u64(buf, part);
    }
    push(buf, ".");
    push_u64(buf, 100 + rng.below(900));
    push(buf, "Z\",\"level\":\"");
    let failing = rng.below(2000) == 0;
    push(buf, if failing { "error" } else { rng.pick(LEVELS) });
    push(buf, "\",\"msg\":\"");
    if failing {
        push(buf, "upstream timeout after 30s");
    } else {
        let words = 3 + rng.below(8) as usize;
        push_sentence(buf, rng, words);
    }
    push(buf, "\",\"req\":{\"id\":\"r");
    push_u64(buf, n);
    push(buf, "\",\"path\":\"");
    push(buf, rng.pick(PATHS));
    push(buf, "\",\"ms\":");
    push_u64(buf, rng.below(500));
    push(buf, "},\"status\":");
    push_u64(buf, if failing { 504 } else { 200 });
    push(buf, "}\n");
}

fn ndjson(out: &mut impl Write, size: u64, rng: &mut Rng) -> io::Result<u64> {
    let mut buf = Vec::with_capacity(1 << 16);
    let mut written = 0u64;
    let mut n = 0u64;
    while written < size {
        buf.clear();
        log_record(&mut buf, rng, n);
        out.write_all(&buf)?;
        written += buf.len() as u64;
        n += 1;
    }
    Ok(written)
}

fn build_line(buf: &mut Vec<u8>, rng: &mut Rng, n: u64) {
    match rng.below(10) {
        0..=3 => {
            push(buf, "   Compiling ");
            push(buf, rng.pick(WORDS));
            buf.push(b'-');
            push_u64(buf, n % 997);
            push(buf, " v0.");
            push_u64(buf, rng.below(30));
            push(buf, ".");
            push_u64(buf, rng.below(10));
            push(buf, " (/work/src/");
            push(buf, rng.pick(WORDS));
            push(buf, ")\n");
        }
        4..=7 => {
            push(buf, "test ");
            push(buf, rng.pick(WORDS));
            push(buf, "::");
            push(buf, rng.pick(WORDS));
            push(buf, "::case_");
            push_u64(buf, n);
            push(buf, " ... ok\n");
        }
        8 => {
            push(buf, "\x1b[32m[");
            push_u64(buf, n % 100);
            push(buf, "%]\x1b[0m building ");
            push_sentence(buf, rng, 6);
            buf.push(b'\n');
        }
        _ => {
            push(buf, "note: ");
            let words = 10 + rng.below(20) as usize;
            push_sentence(buf, rng, words);
            if rng.below(5000) == 0 {
                push(buf, " (network timeout, retrying)");
            }
            buf.push(b'\n');
        }
    }
}

/// The failures a build prints at its end.
const BUILD_FAILURE: &str = "\
error[E0308]: mismatched types
  --> src/engine/scan.rs:412:17
   |
412 |     let depth: u32 = stack.len();
   |                ---   ^^^^^^^^^^^ expected `u32`, found `usize`
error: could not compile `engine` (lib) due to 1 previous error
=== RUN   TestUpload
--- FAIL: TestUpload (30.01s)
    upload_test.go:88: upstream timeout after 30s
Traceback (most recent call last):
  File \"tools/release.py\", line 12, in <module>
sqlite3.IntegrityError: UNIQUE constraint failed: builds.id
thread 'main' panicked at src/main.rs:2:5:
npm ERR! code ELIFECYCLE
make: *** [Makefile:12: all] Error 2
test result: FAILED. 1,204 passed; 3 failed; 0 ignored
";

fn build_log(out: &mut impl Write, size: u64, rng: &mut Rng) -> io::Result<u64> {
    let mut buf = Vec::with_capacity(1 << 16);
    let mut written = 0u64;
    let mut n = 0u64;
    let body = size.saturating_sub(BUILD_FAILURE.len() as u64 + 200);
    while written < body {
        buf.clear();
        build_line(&mut buf, rng, n);
        out.write_all(&buf)?;
        written += buf.len() as u64;
        n += 1;
    }
    out.write_all(BUILD_FAILURE.as_bytes())?;
    written += BUILD_FAILURE.len() as u64;
    // A few ordinary lines after the failures, as real logs have.
    for _ in 0..3 {
        buf.clear();
        push(&mut buf, "   Finished `dev` profile in 41.2s\n");
        out.write_all(&buf)?;
        written += buf.len() as u64;
    }
    Ok(written)
}

/// One record of the minified "graph" document: ids at three depths (the record, its node, the
/// node's owner), a nested list of edges and a mid-size body, all on one line — a shape unlike
/// `api`'s pretty-printed items, so the extract workloads are not tuned to one generator.
fn graph_record(buf: &mut Vec<u8>, rng: &mut Rng, id: u64) {
    push(buf, "{\"id\":");
    push_u64(buf, id);
    push(buf, ",\"node\":{\"id\":\"n");
    push_u64(buf, rng.below(1 << 40));
    push(buf, "\",\"kind\":\"");
    push(buf, rng.pick(EVENT_TYPES));
    push(buf, "\",\"owner\":{\"id\":");
    push_u64(buf, rng.below(100_000));
    push(buf, ",\"login\":\"");
    push(buf, rng.pick(WORDS));
    push(buf, "\"}},\"edges\":[");
    for e in 0..rng.below(6) {
        if e > 0 {
            buf.push(b',');
        }
        push(buf, "{\"to\":");
        push_u64(buf, rng.below(id + 1));
        push(buf, ",\"w\":0.");
        push_u64(buf, rng.below(1000));
        buf.push(b'}');
    }
    push(buf, "],\"body\":\"");
    let words = 2 + rng.below(20) as usize;
    push_sentence(buf, rng, words);
    push(buf, "\"}");
}

fn graph(out: &mut impl Write, size: u64, rng: &mut Rng) -> io::Result<u64> {
    let open = ("{\"data\":{\"items\":[", ",", 120);
    records(out, size, rng, open, graph_record, |buf, count| {
        push(buf, "]},\"meta\":{\"count\":");
        push_u64(buf, count);
        push(buf, ",\"cursor\":null}}\n");
    })
}

/// A long string of text with the escapes and non-ASCII text real documents carry: quoted
/// words (`\"`), backslash paths, `\n`, `\u` escapes and UTF-8.
fn push_escaped_text(buf: &mut Vec<u8>, rng: &mut Rng, words: usize) {
    for w in 0..words {
        if w > 0 {
            buf.push(b' ');
        }
        match rng.below(12) {
            0 => {
                push(buf, "\\\"");
                push(buf, rng.pick(WORDS));
                push(buf, "\\\"");
            }
            1 => {
                push(buf, "C:\\\\build\\\\");
                push(buf, rng.pick(WORDS));
            }
            2 => push(buf, "\\n"),
            3 => push(buf, "\\u00e9t\\u00e9"),
            4 => push(buf, rng.pick(CITIES)),
            _ => push(buf, rng.pick(WORDS)),
        }
    }
}

/// One record of the "strings" document: an id, a long `text` and a short `note` one level down.
fn strings_record(buf: &mut Vec<u8>, rng: &mut Rng, id: u64) {
    push(buf, "    {\n      \"id\": ");
    push_u64(buf, id);
    push(buf, ",\n      \"text\": \"");
    let words = 20 + rng.below(200) as usize;
    push_escaped_text(buf, rng, words);
    push(buf, "\",\n      \"review\": {\"id\": \"r");
    push_u64(buf, id);
    push(buf, "\", \"note\": \"");
    let words = 1 + rng.below(30) as usize;
    push_escaped_text(buf, rng, words);
    push(buf, "\"}\n    }");
}

/// The "strings" document: pretty-printed, few keys per record but long string values full of
/// escapes, with ids at two depths — the case where finding a string's end dominates.
fn strings(out: &mut impl Write, size: u64, rng: &mut Rng) -> io::Result<u64> {
    let open = ("{\n  \"items\": [\n", ",\n", 200);
    records(out, size, rng, open, strings_record, |buf, count| {
        push(buf, "\n  ],\n  \"meta\": {\"count\": ");
        push_u64(buf, count);
        push(buf, "}\n}\n");
    })
}

/// Parses `1M`, `100M`, `1G`, `512K` or plain bytes (binary multiples).
fn parse_size(s: &str) -> Option<u64> {
    let s = s.trim();
    let (num, mult) = match s.as_bytes().last()? {
        b'K' | b'k' => (&s[..s.len() - 1], 1u64 << 10),
        b'M' | b'm' => (&s[..s.len() - 1], 1 << 20),
        b'G' | b'g' => (&s[..s.len() - 1], 1 << 30),
        _ => (s, 1),
    };
    num.parse::<u64>().ok()?.checked_mul(mult)
}

type Generator = fn(&mut BufWriter<File>, u64, &mut Rng) -> io::Result<u64>;

/// Every kind of file: name stem, extension, generator, seed.
const KINDS: &[(&str, &str, Generator, u64)] = &[
    ("api", "json", api, 1),
    ("events", "json", events, 2),
    ("log", "ndjson", ndjson, 3),
    ("build", "log", build_log, 4),
    ("graph", "json", graph, 5),
    ("strings", "json", strings, 6),
];

fn write_one(path: &Path, size: u64, generate: Generator, seed: u64) -> io::Result<u64> {
    let tmp = path.with_extension("tmp");
    let mut out = BufWriter::with_capacity(1 << 20, File::create(&tmp)?);
    let n = generate(&mut out, size, &mut Rng(seed))?;
    out.into_inner().map_err(|e| e.into_error())?;
    // Rename last, so an interrupted run never leaves a short file under the final name.
    std::fs::rename(&tmp, path)?;
    Ok(n)
}

const USAGE: &str =
    "usage: gen --size SIZE [--out DIR] [--only api|events|log|build|graph|strings] [--force]";

fn main() -> ExitCode {
    let mut size = None;
    let mut label = String::new();
    let mut dir = PathBuf::from("benches/data");
    let mut only: Option<String> = None;
    let mut force = false;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--size" => {
                label = args.next().unwrap_or_default();
                size = parse_size(&label);
            }
            "--out" => dir = args.next().map(PathBuf::from).unwrap_or(dir),
            "--only" => only = args.next(),
            "--force" => force = true,
            _ => {
                eprintln!("gen: unknown argument {a:?}\n{USAGE}");
                return ExitCode::from(2);
            }
        }
    }
    let Some(size) = size else {
        eprintln!("gen: --size is missing or invalid\n{USAGE}");
        return ExitCode::from(2);
    };
    if let Err(e) = std::fs::create_dir_all(&dir) {
        eprintln!("gen: cannot create {}: {e}", dir.display());
        return ExitCode::from(2);
    }
    for &(stem, ext, generate, seed) in KINDS {
        if only.as_deref().is_some_and(|o| o != stem) {
            continue;
        }
        let path = dir.join(format!("{stem}-{label}.{ext}"));
        // Same arguments, same bytes: an existing file of the right size is reused.
        if !force && std::fs::metadata(&path).is_ok_and(|m| m.len() >= size.saturating_sub(4096)) {
            println!("{} (kept)", path.display());
            continue;
        }
        let start = std::time::Instant::now();
        match write_one(&path, size, generate, seed) {
            Ok(n) => println!(
                "{} {} bytes in {:.2}s",
                path.display(),
                n,
                start.elapsed().as_secs_f64()
            ),
            Err(e) => {
                eprintln!("gen: writing {}: {e}", path.display());
                return ExitCode::from(2);
            }
        }
    }
    ExitCode::SUCCESS
}
