//! The module layering of ARCHITECTURE.md ("Code map", "Invariants"), checked over the text of
//! `src/`: library modules never reach the command-line layer (`cmd`, `cli`), never write to the
//! process's stdout or stderr and never read its environment. Only the command-line files do.
//! And one place per harness ("Adding a harness"): nothing outside a harness's folder
//! `src/harness/NAME/` names it but its registry line in `src/harness/mod.rs`.

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

/// The harnesses: the folders of `src/harness/`.
fn harness_folders() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(src().join("harness"))
        .unwrap_or_else(|e| panic!("read src/harness: {e}"))
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// The harness a shipped line of `rel` names although it may not: outside `harness/`, any path
/// through `harness::NAME` (or a `harness::{…}` group holding it); in the registry
/// (`harness/mod.rs`), anything but the line declaring the folder and the line listing it.
/// A harness's folder may use another's (a fork builds on the harness it forked).
fn misplaced_harness<'n>(rel: &str, line: &str, names: &'n [String]) -> Option<&'n str> {
    let t = line.trim();
    names
        .iter()
        .find(|name| {
            if rel == "harness/mod.rs" {
                t != format!("pub mod {name};")
                    && !t.starts_with(&format!("&{name}::"))
                    && (contains_word(t, &format!("{name}::"))
                        || contains_word(t, &format!("mod {name}")))
            } else if rel.starts_with("harness/") {
                false
            } else {
                let grouped = t.find("harness::{").is_some_and(|at| {
                    t[at..]
                        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                        .any(|w| w == name.as_str())
                });
                contains_word(t, &format!("harness::{name}")) || grouped
            }
        })
        .map(String::as_str)
}

#[test]
fn each_harness_lives_in_its_folder_and_its_registry_line() {
    let names = harness_folders();
    assert!(names.len() >= 4, "only {names:?} under src/harness/");
    let registry = std::fs::read_to_string(src().join("harness/mod.rs")).unwrap();
    for name in &names {
        assert!(
            src().join("harness").join(name).join("mod.rs").is_file(),
            "src/harness/{name}/ has no mod.rs"
        );
        assert!(
            registry
                .lines()
                .any(|l| l.trim() == format!("pub mod {name};")),
            "src/harness/mod.rs does not declare `pub mod {name};`"
        );
        assert!(
            registry
                .lines()
                .any(|l| l.trim().starts_with(&format!("&{name}::"))),
            "src/harness/{name}/ has no line in the registry (harness::ALL)"
        );
    }
    // A harness is a folder: no `harness/NAME.rs` beside them.
    for line in registry.lines() {
        if let Some(module) = line
            .trim()
            .strip_prefix("pub mod ")
            .and_then(|m| m.strip_suffix(';'))
        {
            assert!(
                names.iter().any(|n| n == module),
                "src/harness/{module} is not a folder"
            );
        }
    }
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    let mut found = Vec::new();
    for rel in &files {
        let text = std::fs::read_to_string(src().join(rel)).unwrap();
        for (n, line) in shipped_lines(rel, &text) {
            if let Some(name) = misplaced_harness(rel, &line, &names) {
                found.push(format!("src/{rel}:{n}: names {name}: {}", line.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "a harness's code belongs in its folder, reached through the registry \
         (harness::ALL, harness::find; ARCHITECTURE.md, \"Adding a harness\"):\n{}",
        found.join("\n")
    );
}

/// The harness check itself.
#[test]
fn the_harness_check_finds_a_harness_named_outside_its_folder() {
    let names = ["claude".to_string(), "codex".to_string()];
    let at = |rel: &str, line: &str| misplaced_harness(rel, line, &names);
    assert_eq!(
        at("cmd/hook.rs", "use crate::harness::claude::hook;"),
        Some("claude")
    );
    assert_eq!(
        at("cmd/init.rs", "use crate::harness::{self, codex};"),
        Some("codex")
    );
    assert_eq!(
        at("hook/mod.rs", "crate::harness::claude::hook::mcp_reply"),
        Some("claude")
    );
    assert_eq!(
        at("cmd/hook.rs", "use crate::harness::{self, Harness};"),
        None
    );
    assert_eq!(at("cmd/hook.rs", "let claude = 1;"), None);
    assert_eq!(at("harness/mod.rs", "pub mod claude;"), None);
    assert_eq!(at("harness/mod.rs", "    &claude::ClaudeCode,"), None);
    assert_eq!(at("harness/mod.rs", "use claude::hook;"), Some("claude"));
    assert_eq!(
        at("harness/mod.rs", "fn f() { codex::init::install() }"),
        Some("codex")
    );
    assert_eq!(at("harness/codex/mod.rs", "use super::claude::hook;"), None);
}
