//! The numbers ARCHITECTURE.md states about the tree, checked against the tree (its
//! "Conventions" say which): dependency counts by `cargo tree`, file sizes given as "about N
//! lines" within a quarter, and the sizes the design names against the constants in the code.
//! So a fact that drifts fails here instead of misleading the next reader.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// ARCHITECTURE.md with its white space (line breaks included) as single spaces.
fn architecture() -> String {
    let text = std::fs::read_to_string(root().join("ARCHITECTURE.md")).unwrap();
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The number written right after `marker` in `text` (digits, `,` separators allowed).
#[track_caller]
fn number_after(text: &str, marker: &str) -> u64 {
    let at = text
        .find(marker)
        .unwrap_or_else(|| panic!("ARCHITECTURE.md no longer says {marker:?}"))
        + marker.len();
    let digits: String = text[at..]
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == ',')
        .filter(|c| c.is_ascii_digit())
        .collect();
    digits
        .parse()
        .unwrap_or_else(|_| panic!("no number after {marker:?}"))
}

/// The distinct packages of `cargo tree -e normal --prefix none` (the crate itself included),
/// with `features`. `--locked`: the tree of Cargo.lock, never a newer one.
fn dependency_count(features: &[&str]) -> u64 {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let out = Command::new(cargo)
        .args([
            "tree",
            "-e",
            "normal",
            "--prefix",
            "none",
            "--locked",
            "--manifest-path",
        ])
        .arg(root().join("Cargo.toml"))
        .args(features)
        .output()
        .expect("run cargo tree");
    assert!(
        out.status.success(),
        "cargo tree {features:?} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut packages: Vec<String> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| l.trim_end_matches(" (*)").to_string())
        .filter(|l| !l.is_empty())
        .collect();
    packages.sort();
    packages.dedup();
    packages.len() as u64
}

#[test]
fn the_dependency_counts_are_cargo_trees() {
    let text = architecture();
    let default = number_after(&text, "the default build's dependency tree has ");
    let s3 = number_after(&text, "`--features s3` makes it ");
    let more = number_after(&text, &format!("makes it {s3} crates (+"));
    let measured = (
        dependency_count(&[]),
        dependency_count(&["--features", "s3"]),
    );
    assert_eq!(
        (default, s3, more),
        (measured.0, measured.1, measured.1 - measured.0),
        "ARCHITECTURE.md's dependency counts (default, --features s3, difference) are not \
         cargo tree's: write {} and {} (+{})",
        measured.0,
        measured.1,
        measured.1 - measured.0
    );
}

/// Every "`PATH` (about N lines" of ARCHITECTURE.md (`PATH` under `src/`), as (PATH, N).
fn file_sizes(text: &str) -> Vec<(String, u64)> {
    const MARKER: &str = "` (about ";
    let mut found = Vec::new();
    for (at, _) in text.match_indices(MARKER) {
        let before = &text[..at];
        let name = &before[before.rfind('`').map_or(0, |i| i + 1)..];
        let mut words = text[at + MARKER.len()..].split(' ');
        if let (Some(n), Some(unit)) = (words.next(), words.next())
            && unit.starts_with("lines")
        {
            found.push((name.to_string(), number_after(&text[at..], MARKER)));
            let _ = n;
        }
    }
    found
}

/// The one file under `src/` whose path ends with `name` (ARCHITECTURE.md writes
/// `remote/sigv4.rs` inside the section on `store/`).
fn find_source(name: &str) -> PathBuf {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, out);
            } else {
                out.push(path);
            }
        }
    }
    let mut files = Vec::new();
    walk(&root().join("src"), &mut files);
    let matching: Vec<PathBuf> = files.into_iter().filter(|p| p.ends_with(name)).collect();
    match matching.as_slice() {
        [one] => one.clone(),
        other => panic!(
            "ARCHITECTURE.md names {name}: {} files under src/ match",
            other.len()
        ),
    }
}

#[test]
fn file_sizes_are_within_a_quarter_of_the_files() {
    let text = architecture();
    let sizes = file_sizes(&text);
    assert!(
        sizes.iter().any(|(name, _)| name == "remote/sigv4.rs"),
        "{sizes:?}"
    );
    for (name, stated) in sizes {
        let path = find_source(&name);
        let lines = std::fs::read_to_string(&path).unwrap().lines().count() as u64;
        assert!(
            lines * 4 >= stated * 3 && lines * 4 <= stated * 5,
            "ARCHITECTURE.md says {name} is about {stated} lines; it has {lines}"
        );
    }
}

/// The sizes the design names, each with the constant that makes it true.
const SIZES: &[(&str, &str, &str)] = &[
    (
        "read in 1 MiB chunks",
        "src/wrap/capture.rs",
        "const CHUNK: usize = 1 << 20;",
    ),
    (
        "a pipe enlarged to 1 MiB",
        "src/wrap/signals.rs",
        "F_SETPIPE_SZ, 1 << 20)",
    ),
    (
        "the line start at or after every 64 KiB boundary",
        "src/store/remote/window.rs",
        "pub const BLOCK: u64 = 64 << 10;",
    ),
    (
        "(64 KiB doubling to 1 MiB)",
        "src/store/remote/window.rs",
        "pub const FIRST_CHUNK: u64 = 64 << 10;",
    ),
    (
        "(64 KiB doubling to 1 MiB)",
        "src/store/remote/window.rs",
        "pub const MAX_CHUNK: u64 = 1 << 20;",
    ),
    (
        "payloads of at most 1 MiB (one request",
        "src/store/remote/window.rs",
        "pub const RANGED_FROM: u64 = 1 << 20;",
    ),
    (
        "does not bound to 16 MiB",
        "src/store/remote/window.rs",
        "pub const MAX_WINDOW: u64 = 16 << 20;",
    ),
];

#[test]
fn the_sizes_the_design_names_are_the_codes_constants() {
    let text = architecture();
    for (said, file, code) in SIZES {
        assert!(
            text.contains(said),
            "ARCHITECTURE.md no longer says {said:?}"
        );
        let source = std::fs::read_to_string(Path::new(&root()).join(file)).unwrap();
        assert!(
            source.contains(code),
            "ARCHITECTURE.md says {said:?}, but {file} no longer has `{code}`"
        );
    }
}
