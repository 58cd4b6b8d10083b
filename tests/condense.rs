//! `wrap --condense` through the real binary: a mid-size output of repeated lines is printed as
//! its condensed view, every line it leaves out is stored and printed by the command its marker
//! names, and anything that does not halve passes through byte for byte.

use std::path::PathBuf;

use serde_json::Value;

use crate::common::Sandbox;

/// 120 `Compiling` lines and the end of a build, as `cargo build` prints them (9.4 KB).
fn build_log() -> Vec<u8> {
    let mut out = Vec::new();
    for i in 0..120 {
        out.extend_from_slice(format!("   Compiling dependency_{i} v1.{i}.0\n").as_bytes());
    }
    out.extend_from_slice(b"   Compiling app v0.1.0 (/work/app)\n");
    out.extend_from_slice(
        b"    Finished `dev` profile [unoptimized + debuginfo] target(s) in 41.20s\n",
    );
    out
}

/// The ref a view's closing line names.
fn ref_of(view: &str) -> String {
    let at = view.rfind("spill cat sp_").expect(view) + "spill cat ".len();
    view[at..at + 19].to_string()
}

/// Checks that the view with every marker replaced by the lines its command prints is the
/// output itself, line for line; returns the number of markers.
#[track_caller]
fn expands_to(sb: &Sandbox, view: &str, output: &[u8]) -> usize {
    let mut rebuilt = Vec::new();
    let mut markers = 0;
    let mut lines: Vec<&str> = view.lines().collect();
    let closing = lines.pop().expect("a closing line");
    assert!(closing.starts_with("[spill: condensed "), "{closing}");
    for line in lines {
        match line.find(": spill cat sp_") {
            Some(at) if line.starts_with("[spill: ") && line.ends_with(']') => {
                let command = &line[at + 2..line.len() - 1];
                let args: Vec<&str> = command.split(' ').skip(1).collect();
                let run = sb.cmd(&args).run();
                run.status(0);
                rebuilt.extend_from_slice(&run.stdout);
                markers += 1;
            }
            _ => {
                rebuilt.extend_from_slice(line.as_bytes());
                rebuilt.push(b'\n');
            }
        }
    }
    assert_eq!(
        String::from_utf8_lossy(&rebuilt),
        String::from_utf8_lossy(output)
    );
    markers
}

#[test]
fn a_build_log_of_repeated_lines_is_its_condensed_view_and_loses_nothing() {
    let sb = Sandbox::new();
    let log = build_log();
    let run = sb.run(&["wrap", "--condense"], log.clone());
    run.status(0);
    let view = run.out();
    assert!(view.len() * 2 <= log.len(), "{view}");
    let lines: Vec<&str> = view.lines().collect();
    assert_eq!(lines[0], "   Compiling dependency_0 v1.0.0");
    assert!(
        lines[1].starts_with("[spill: 118 more similar lines, 2-119: spill cat sp_"),
        "{view}"
    );
    assert_eq!(lines[2], "   Compiling dependency_119 v1.119.0");
    assert!(
        lines.iter().any(|l| l.contains("Finished `dev` profile")),
        "{view}"
    );
    // The whole is stored under the ref the view names, and the markers print the rest.
    let cat = sb.cmd(&["cat", &ref_of(&view)]).run();
    cat.status(0);
    assert_eq!(cat.stdout, log);
    assert_eq!(expands_to(&sb, &view, &log), 1);
    // The variable turns it on as the flag does (a hook's environment), and its off is off.
    let by_env = sb
        .cmd(&["wrap"])
        .env("SPILL_CONDENSE", "1")
        .stdin(log.clone())
        .run();
    by_env.status(0);
    assert_eq!(by_env.out(), view);
    let off = sb
        .cmd(&["wrap"])
        .env("SPILL_CONDENSE", "0")
        .stdin(log.clone())
        .run();
    assert_eq!(off.stdout, log);
}

#[test]
fn without_condense_or_when_it_would_not_halve_the_output_passes_through() {
    let sb = Sandbox::new();
    let log = build_log();
    let plain = sb.run(&["wrap"], log.clone());
    plain.status(0);
    assert_eq!(plain.stdout, log);
    // Lines that differ from each other: nothing collapses, nothing is stored.
    let varied: Vec<u8> = (0..60)
        .flat_map(|i| format!("{} line {i}\n", ["alpha", "beta", "gamma"][i % 3]).into_bytes())
        .collect();
    let run = sb.run(&["wrap", "--condense"], varied.clone());
    assert_eq!(run.stdout, varied);
    // Below 1 KiB, and a JSON document: as without --condense.
    let small = &log[..log[..1000].iter().rposition(|&b| b == b'\n').unwrap() + 1];
    let run = sb.run(&["wrap", "--condense"], small.to_vec());
    assert_eq!(run.stdout, small);
    let json: Vec<u8> = format!(
        "[{}]\n",
        (0..200)
            .map(|i| format!("{{\"id\": {i}}}"))
            .collect::<Vec<_>>()
            .join(",\n")
    )
    .into_bytes();
    let run = sb.run(&["wrap", "--condense"], json.clone());
    assert_eq!(run.stdout, json);
    let ls = sb.cmd(&["ls", "--json"]).run();
    assert_eq!(
        ls.json()["entries"].as_array().map(Vec::len),
        Some(0),
        "{}",
        ls.out()
    );
    // Over --max-inline the envelope, as always.
    let big = sb.run(&["wrap", "--condense", "--max-inline", "4K"], log.clone());
    assert_eq!(big.json()["spilled"], true, "{}", big.out());
}

#[test]
fn a_failure_or_an_outlier_in_a_run_is_shown_where_it_stands() {
    let sb = Sandbox::new();
    let mut tests = Vec::new();
    for i in 0..150 {
        tests.extend_from_slice(format!("test tests::error_paths_{i} ... ok\n").as_bytes());
        if i == 70 {
            tests.extend_from_slice(b"test tests::parse_header ... FAILED\n");
        }
    }
    let run = sb.run(&["wrap", "--condense"], tests.clone());
    let view = run.out();
    assert!(
        view.contains("\ntest tests::parse_header ... FAILED\n"),
        "{view}"
    );
    assert_eq!(expands_to(&sb, &view, &tests), 2);
    // One 45 MB file among 4 KB ones (`du -ah`): the extreme of the size column stays.
    let mut du = Vec::new();
    for i in 0..400 {
        let size = if i == 250 { "45M" } else { "4.0K" };
        du.extend_from_slice(format!("{size}\t./src/module_{i}/part.txt\n").as_bytes());
    }
    let run = sb.run(&["wrap", "--condense"], du.clone());
    let view = run.out();
    assert!(view.len() < du.len() / 2, "{view}");
    assert!(
        view.contains("\n45M\t./src/module_250/part.txt\n"),
        "{view}"
    );
    expands_to(&sb, &view, &du);
}

#[test]
fn with_an_unusable_store_the_output_passes_through() {
    let sb = Sandbox::new();
    let log = build_log();
    let run = sb
        .cmd(&["wrap", "--condense"])
        .env("SPILL_SCOPE", "../escape")
        .stdin(log.clone())
        .run();
    assert_eq!(run.stdout, log);
}

fn corpus_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/signals")
}

/// `whole`'s lines from `from` (0-based) on, at most 16 KiB of them.
fn window(whole: &[u8], from: usize) -> &[u8] {
    let start = whole
        .split_inclusive(|&b| b == b'\n')
        .take(from)
        .map(<[u8]>::len)
        .sum::<usize>();
    let rest = &whole[start..];
    let cut = rest[..rest.len().min(16 << 10)]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |at| at + 1);
    &rest[..cut]
}

/// The corpus of real outputs, cut to mid-size windows (at most 16 KiB, at line breaks): the
/// start of each, and the lines from 100 before each decisive line on. Every view expands back
/// to its window through its markers' commands, and a decisive line in the window is shown.
#[test]
fn on_the_real_outputs_every_view_expands_back_and_shows_the_decisive_lines() {
    let sb = Sandbox::new();
    let manifest: Value =
        serde_json::from_str(&std::fs::read_to_string(corpus_dir().join("manifest.json")).unwrap())
            .unwrap();
    let (mut condensed, mut bytes_in, mut bytes_out, mut decisive) = (0, 0, 0, 0);
    for case in manifest["cases"].as_array().unwrap() {
        let name = case["name"].as_str().unwrap();
        let whole = std::fs::read(corpus_dir().join(format!("cases/{name}.txt"))).unwrap();
        let mut starts = vec![0];
        for d in case["decisive"].as_array().unwrap() {
            starts.push((d["line"].as_u64().unwrap() as usize).saturating_sub(101));
        }
        for from in starts {
            let prefix = window(&whole, from);
            let run = sb.run(&["wrap", "--condense"], prefix.to_vec());
            run.status(0);
            if run.stdout.as_slice() == prefix {
                continue;
            }
            condensed += 1;
            bytes_in += prefix.len();
            bytes_out += run.stdout.len();
            let view = run.out();
            expands_to(&sb, &view, prefix);
            let text = String::from_utf8_lossy(prefix);
            for d in case["decisive"].as_array().unwrap() {
                let words: Vec<&str> = d["words"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|w| w.as_str().unwrap())
                    .collect();
                let holds = |l: &str| words.iter().all(|w| l.contains(w));
                if text.lines().any(holds) {
                    decisive += 1;
                    assert!(
                        view.lines().any(holds),
                        "{name}: {words:?} is hidden:\n{view}"
                    );
                }
            }
        }
    }
    // Some of the corpus condenses (listings, test runs, logs); numbers for the README.
    assert!(condensed >= 10, "{condensed} cases condensed");
    eprintln!(
        "condensed {condensed} mid-size cases: {bytes_in} bytes to {bytes_out}; {decisive} decisive lines in them, all shown"
    );
}
