//! Times the search library's ways of reading a file: `cargo run --release --example
//! search_bench -- FILE PATTERN` prints the best of 3 for the streamed and the mapped count, and
//! for a `-C 2` page (which also counts every match).

use std::fs::File;
use std::time::{Duration, Instant};

use spill::search::{self, Page, Pattern, PatternOptions};

fn best_of_3(mut f: impl FnMut() -> u64) -> (Duration, u64) {
    let mut best = Duration::MAX;
    let mut value = 0;
    for _ in 0..3 {
        let start = Instant::now();
        value = f();
        best = best.min(start.elapsed());
    }
    (best, value)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, path, pattern] = &args[..] else {
        eprintln!("usage: search_bench FILE PATTERN");
        std::process::exit(2);
    };
    let file = File::open(path).expect("open");
    let pattern = Pattern::new(&PatternOptions {
        patterns: vec![pattern.clone()],
        ..Default::default()
    })
    .expect("pattern");
    // A fresh map per run, so that each run pays its page faults as the command does.
    // SAFETY: a benchmark over a file nobody else writes.
    let map = || unsafe { memmap2::Mmap::map(&file) }.expect("map");
    let page = Page {
        before_context: 2,
        after_context: 2,
        ..Page::default()
    };
    report("count_file (streamed unless one line)", || {
        search::count_file(&file, &pattern).unwrap()
    });
    report("count_slice (mapped)", || {
        search::count_slice(&map(), &pattern).unwrap()
    });
    report("search_file -C 2 page", || {
        search::search_file(&file, &pattern, &page)
            .unwrap()
            .total_matches
    });
    report("search_slice -C 2 page", || {
        search::search_slice(&map(), &pattern, &page)
            .unwrap()
            .total_matches
    });
}

fn report(name: &str, run: impl FnMut() -> u64) {
    let (time, total) = best_of_3(run);
    println!(
        "{name:40} {:>8.1} ms  {total} matches",
        time.as_secs_f64() * 1e3
    );
}
