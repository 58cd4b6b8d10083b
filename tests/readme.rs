//! The README's examples are real: every fenced block marked ```console is run in a sandbox,
//! command by command (`$ ` lines, in order, sharing one store and one working directory), and
//! what it prints (stdout and stderr together, as `2>&1` shows them) is compared with the lines
//! that follow the command. The sandbox's paths are written as `/tmp` in the README, the store
//! root as `/tmp/spill-1000`; `[..]` in an expected line matches any text within the line (ages,
//! timings). `SPILL_BLESS=1` rewrites the outputs that differ (keeping those that match).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// One `$ ` command of a console block and the output lines written under it.
#[derive(Debug)]
struct Example {
    /// Line index (0-based) of the `$ ` line in the README.
    line: usize,
    /// The command (continuation lines ending in `\` joined).
    command: String,
    /// Index of the first expected-output line and how many there are.
    output_start: usize,
    output_len: usize,
}

fn readme_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")
}

/// Finds every example of every console block, in document order.
fn examples(lines: &[&str]) -> Vec<Example> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if lines[i].trim_end() != "```console" {
            i += 1;
            continue;
        }
        i += 1;
        while i < lines.len() && lines[i].trim_end() != "```" {
            let Some(first) = command_line(lines[i]) else {
                panic!(
                    "README.md:{}: a console block must start with a `$ ` command",
                    i + 1
                );
            };
            let line = i;
            let mut command = first.to_string();
            while command.ends_with('\\') && i + 1 < lines.len() {
                command.pop();
                command.push('\n');
                i += 1;
                command.push_str(lines[i]);
            }
            i += 1;
            let output_start = i;
            while i < lines.len()
                && command_line(lines[i]).is_none()
                && lines[i].trim_end() != "```"
            {
                i += 1;
            }
            out.push(Example {
                line,
                command,
                output_start,
                output_len: i - output_start,
            });
        }
        i += 1;
    }
    out
}

/// The command of a `$ ` line. A command never starts with a space, so output lines such as
/// `$  object  1` (the root path in `shape --paths`) stay output.
fn command_line(line: &str) -> Option<&str> {
    line.strip_prefix("$ ")
        .filter(|c| !c.starts_with(' ') && !c.is_empty())
}

/// True when `actual` matches `expected`, where `[..]` in `expected` matches any text.
fn line_matches(expected: &str, actual: &str) -> bool {
    let parts: Vec<&str> = expected.split("[..]").collect();
    if parts.len() == 1 {
        return expected == actual;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !actual.starts_with(first) || actual.len() < first.len() + last.len() {
        return false;
    }
    let mut rest = &actual[first.len()..];
    for middle in &parts[1..parts.len() - 1] {
        match rest.find(middle) {
            Some(at) => rest = &rest[at + middle.len()..],
            None => return false,
        }
    }
    rest.ends_with(last)
}

fn output_matches(expected: &[&str], actual: &[String]) -> bool {
    expected.len() == actual.len() && expected.iter().zip(actual).all(|(e, a)| line_matches(e, a))
}

/// Runs one command line with `sh` in the sandbox; stdout and stderr share one pipe.
fn run(sandbox: &Path, work: &Path, command: &str) -> Vec<String> {
    let bin = Path::new(env!("CARGO_BIN_EXE_spill")).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let output = Command::new("sh")
        .arg("-c")
        .arg(format!("exec 2>&1\n{command}"))
        .current_dir(work)
        .env_clear()
        .env("PATH", path)
        .env("HOME", sandbox)
        .env("TMPDIR", sandbox)
        .env("LANG", "C.UTF-8")
        .stdin(Stdio::null())
        .stderr(Stdio::inherit())
        .output()
        .expect("run sh");
    let text = String::from_utf8_lossy(&output.stdout);
    // SAFETY: geteuid has no preconditions.
    let uid = unsafe { libc::geteuid() };
    let root = format!("{}/spill-{uid}", sandbox.display());
    let text = text
        .replace(&root, "/tmp/spill-1000")
        .replace(&sandbox.display().to_string(), "/tmp");
    text.lines().map(str::to_string).collect()
}

#[test]
fn the_readme_examples_print_what_the_readme_says() {
    let readme = std::fs::read_to_string(readme_path()).unwrap();
    let lines: Vec<&str> = readme.lines().collect();
    let examples = examples(&lines);
    assert!(
        examples.len() >= 10,
        "only {} console examples",
        examples.len()
    );
    let sandbox = tempfile::Builder::new()
        .prefix("spill-readme-")
        .tempdir()
        .unwrap();
    let work = sandbox.path().join("work");
    std::fs::create_dir(&work).unwrap();

    let bless = std::env::var_os("SPILL_BLESS").is_some_and(|v| v == "1");
    let mut failures = Vec::new();
    // Rewrites collected as (start, len, new lines), applied from the end when blessing.
    let mut rewrites: Vec<(usize, usize, Vec<String>)> = Vec::new();
    for ex in &examples {
        let actual = run(sandbox.path(), &work, &ex.command);
        let expected = &lines[ex.output_start..ex.output_start + ex.output_len];
        if !output_matches(expected, &actual) {
            failures.push(format!(
                "README.md:{}: $ {}\n--- expected\n{}\n--- actual\n{}",
                ex.line + 1,
                ex.command,
                expected.join("\n"),
                actual.join("\n")
            ));
            rewrites.push((ex.output_start, ex.output_len, actual));
        }
    }
    if bless && !rewrites.is_empty() {
        let mut new: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
        for (start, len, actual) in rewrites.into_iter().rev() {
            new.splice(start..start + len, actual);
        }
        std::fs::write(readme_path(), new.join("\n") + "\n").unwrap();
        return;
    }
    assert!(
        failures.is_empty(),
        "{} README example(s) differ (SPILL_BLESS=1 rewrites them):\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

#[test]
fn wildcards_match_only_within_a_line() {
    assert_eq!(command_line("$ spill ls"), Some("spill ls"));
    assert_eq!(command_line("$  object  1"), None);
    assert_eq!(command_line("$.items  array  1"), None);
    assert!(line_matches("sp_[..]  0s", "sp_12  0s"));
    assert!(line_matches("[..]", ""));
    assert!(line_matches("a[..]b[..]c", "axxbyyc"));
    assert!(!line_matches("a[..]b", "ab c"));
    assert!(!line_matches("abc", "abd"));
    assert!(!line_matches("a[..]a", "a"));
    assert!(!output_matches(&["x"], &["x".to_string(), "y".to_string()]));
}
