//! The module layering of ARCHITECTURE.md ("Code map", "Invariants"), checked over the text of
//! `src/`: library modules never reach the command-line layer (`cmd`, `cli`), never write to the
//! process's stdout or stderr and never read its environment. Only the command-line files do.

use std::path::{Path, PathBuf};

/// Files (or folders, ending in `/`) of the command-line layer: they parse arguments, read the
/// environment and print. Paths are relative to `src/`.
const CLI_FILES: &[&str] = &[
    "cmd/",
    "cli.rs",
    "output.rs",
    "diag.rs",
    "main.rs",
    // `run`: parses the command line, prints clap's help and maps errors to exit codes.
    "lib.rs",
];

/// Library files that still break a rule, with the text that breaks it. Each entry is a known
/// debt, not a permission: remove it with the code, and never add one.
const KNOWN_VIOLATIONS: &[(&str, &str)] = &[];

/// What a library file must not contain, and why.
const FORBIDDEN: &[(&str, &str)] = &[
    ("crate::cmd", "uses the command layer"),
    ("crate::cli", "uses the clap definition"),
    ("super::cmd", "uses the command layer"),
    ("crate::output", "writes to stdout"),
    ("stdout()", "writes to stdout"),
    ("stderr()", "writes to stderr"),
    ("print!(", "writes to stdout"),
    ("println!(", "writes to stdout"),
    ("eprint!(", "writes to stderr"),
    ("eprintln!(", "writes to stderr"),
    ("dbg!(", "writes to stderr"),
    ("process::exit", "exits the process"),
    ("env::var", "reads the environment"),
    ("env::vars", "reads the environment"),
    // diag's writers; its pure helpers (escape, cut, caret_lines, …) are shared
    ("diag::error(", "writes to stderr"),
    ("diag::usage(", "writes to stderr"),
    ("diag::message(", "writes to stderr"),
    ("diag::warning(", "writes to stderr"),
    ("diag::note(", "writes to stderr"),
    ("diag::notice(", "writes to stderr"),
];

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Every `.rs` file below `dir`, as paths relative to `src/` with `/` separators.
fn rust_files(dir: &Path, out: &mut Vec<String>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("read {}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|x| x == "rs") {
            let rel = path.strip_prefix(src()).unwrap();
            out.push(rel.to_string_lossy().replace('\\', "/"));
        }
    }
}

fn is_cli_file(rel: &str) -> bool {
    CLI_FILES.iter().any(|f| match f.strip_suffix('/') {
        Some(dir) => rel.starts_with(&format!("{dir}/")),
        None => rel == *f,
    })
}

/// The shipped code of a file: its lines up to its inline `#[cfg(test)] mod … {` (test code may
/// print its report), without comment lines. Files of a `tests` folder hold only tests.
fn shipped_lines(rel: &str, text: &str) -> Vec<(usize, String)> {
    if rel.split('/').any(|part| part == "tests") {
        return Vec::new();
    }
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let t = line.trim();
        if t == "#[cfg(test)]"
            && lines[i + 1..]
                .iter()
                .map(|l| l.trim())
                .find(|l| !l.is_empty())
                .is_some_and(|l| {
                    (l.starts_with("mod ") || l.starts_with("pub(crate) mod ")) && l.ends_with('{')
                })
        {
            break;
        }
        if t.starts_with("//") {
            continue;
        }
        out.push((i + 1, line.to_string()));
    }
    out
}

/// `crate::{a, b::c, …}` imports name their modules after the brace: `crate::{cli, …}` is as much
/// a use of `cli` as `crate::cli` is.
fn grouped_crate_imports(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(at) = line.find("crate::{") {
        let rest = &line[at + "crate::{".len()..];
        for name in rest.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':')) {
            if let Some(first) = name.split("::").next()
                && !first.is_empty()
            {
                out.push(format!("crate::{first}"));
            }
        }
    }
    out
}

/// True when `pattern` occurs in `line` not as the tail of a longer name (`println!(` is not
/// in `eprintln!(`, nor `crate::cli` in `spill_crate::cli`).
fn contains_word(line: &str, pattern: &str) -> bool {
    line.match_indices(pattern).any(|(at, _)| {
        !line[..at]
            .chars()
            .next_back()
            .is_some_and(|c| c.is_alphanumeric() || c == '_')
    })
}

/// The rule violations in the library files: `(file, line, text, why)`.
fn violations() -> Vec<(String, usize, String, &'static str)> {
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    assert!(files.len() > 50, "only {} source files found", files.len());
    let mut found = Vec::new();
    for rel in files.iter().filter(|f| !is_cli_file(f)) {
        let text = std::fs::read_to_string(src().join(rel)).unwrap();
        for (n, line) in shipped_lines(rel, &text) {
            let grouped = grouped_crate_imports(&line);
            for (pattern, why) in FORBIDDEN {
                let hit = contains_word(&line, pattern) || grouped.iter().any(|g| g == pattern);
                if hit {
                    found.push((rel.clone(), n, line.trim().to_string(), *why));
                }
            }
        }
    }
    found
}

#[test]
fn library_modules_keep_out_of_the_command_line_layer() {
    let mut unexpected = Vec::new();
    let mut used = vec![false; KNOWN_VIOLATIONS.len()];
    for (file, line, text, why) in violations() {
        match KNOWN_VIOLATIONS
            .iter()
            .position(|(f, t)| *f == file && text.contains(t))
        {
            Some(i) => used[i] = true,
            None => unexpected.push(format!("src/{file}:{line}: {why}: {text}")),
        }
    }
    assert!(
        unexpected.is_empty(),
        "library code must not print, read the environment or use cmd/cli \
         (ARCHITECTURE.md, Code map); return values and let src/cmd/ print:\n{}",
        unexpected.join("\n")
    );
    // A fixed debt leaves the list with its code.
    for (i, (file, text)) in KNOWN_VIOLATIONS.iter().enumerate() {
        assert!(
            used[i],
            "src/{file} no longer contains {text:?}: remove it from KNOWN_VIOLATIONS"
        );
    }
}

/// The checker itself: each rule is found in shipped code, and test code and comments are not
/// shipped.
#[test]
fn the_layering_check_finds_what_it_forbids() {
    let shipped = |text: &str| -> Vec<String> {
        shipped_lines("json/x.rs", text)
            .into_iter()
            .map(|(_, l)| l)
            .collect()
    };
    let code = "use crate::{cli, json};\nfn f() {\n    // println!(\"a comment\");\n    \
                let _ = std::env::var(\"X\");\n}\n#[cfg(test)]\nmod tests {\n    \
                fn g() { eprintln!(\"report\"); }\n}\n";
    let lines = shipped(code);
    assert_eq!(
        lines,
        [
            "use crate::{cli, json};",
            "fn f() {",
            "    let _ = std::env::var(\"X\");",
            "}"
        ]
    );
    assert!(grouped_crate_imports(&lines[0]).contains(&"crate::cli".to_string()));
    assert!(lines[2].contains("env::var"));
    assert!(shipped_lines("json/path/tests/cts.rs", "eprintln!(\"x\");").is_empty());
    // A test module in its own file ends nothing: the code after it ships.
    assert_eq!(
        shipped("#[cfg(test)]\nmod tests;\nfn h() {}\n")
            .last()
            .unwrap(),
        "fn h() {}"
    );
    assert!(contains_word("eprintln!(\"x\")", "eprintln!("));
    assert!(!contains_word("eprintln!(\"x\")", "println!("));
    assert!(contains_word("let _ = std::env::var(\"X\");", "env::var"));
    assert!(is_cli_file("cmd/cat.rs") && is_cli_file("cli.rs") && !is_cli_file("json/shape.rs"));
}
