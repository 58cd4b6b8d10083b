//! Times JSONPath queries over the engine on a file: `cargo run --release --example
//! jsonpath_bench -- FILE QUERY…` prints, per query, the nodes selected and the time taken.
#![allow(clippy::print_stdout)]

use std::ops::ControlFlow;
use std::time::Instant;

use spill::json::path::{JsonDoc, Query};

fn main() {
    let mut args = std::env::args().skip(1);
    let file = args.next().expect("usage: jsonpath_bench FILE QUERY…");
    let f = std::fs::File::open(&file).expect("open");
    // SAFETY: the benchmark file is not modified while mapped.
    let map = unsafe { memmap2::Mmap::map(&f) }.expect("mmap");
    let (doc, root) = JsonDoc::open(&map, false).expect("root");
    for q in args {
        let query = Query::parse_lenient(&q).expect("query");
        let start = Instant::now();
        let mut n = 0u64;
        let mut bytes = 0usize;
        let _ = query
            .select(&doc, root, |_, v| {
                n += 1;
                bytes += v.raw().map_or(0, <[u8]>::len);
                ControlFlow::Continue(())
            })
            .expect("valid");
        let t = start.elapsed();
        println!(
            "{q:40} {n:>10} nodes {bytes:>12} bytes {:>10.1} ms",
            t.as_secs_f64() * 1e3
        );
    }
}
