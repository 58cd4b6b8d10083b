//! README, `spill --help` and the man pages say the same about colour, paging and short refs.
//! Each of these is stated once, as a constant in `src/cli.rs` (`COLOUR_STATEMENT`,
//! `PAGING_STATEMENT`, `SHORT_REFS_STATEMENT`) that the top-level help renders (and the man page
//! `spill.1` with it); the README must hold the same sentences, no text may hold a phrase that
//! contradicts one, and the statements themselves are checked against the binary.

use std::path::PathBuf;

use clap::CommandFactory;

use crate::common::Sandbox;

/// The statements, by topic.
const STATEMENTS: [(&str, &str); 3] = [
    ("colour", spill::cli::COLOUR_STATEMENT),
    ("paging", spill::cli::PAGING_STATEMENT),
    ("short refs", spill::cli::SHORT_REFS_STATEMENT),
];

/// Phrases that contradict a statement, by topic. Each was written once (README, `--help` or
/// the man page said it while the binary did otherwise) or is the plain negation of a
/// statement's sentence; matched without case, backticks or line breaks.
const CONTRADICTIONS: &[(&str, &str)] = &[
    ("colour", "never coloured"),
    ("colour", "never colored"),
    ("colour", "json output is never"),
    ("colour", "json is never colo"),
    ("colour", "json is not colo"),
    ("colour", "only human text"),
    ("colour", "--color applies to human text"),
    ("paging", "extract never page"),
    ("paging", "shape never page"),
    ("paging", "search never page"),
    ("paging", "cat never page"),
    ("paging", "wrap pages"),
    ("short refs", "not short forms"),
    ("short refs", "stay paths"),
    ("short refs", "opened as files"),
    ("short refs", "@0 is a file"),
];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Text as the comparison sees it: lower case, without backticks and Markdown emphasis, white
/// space (line breaks included) as single spaces.
fn normal(text: &str) -> String {
    text.replace(['`', '*'], "")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// A man page's text: requests dropped, escapes undone.
fn man_text(roff: &str) -> String {
    roff.lines()
        .filter(|l| !l.starts_with('.'))
        .collect::<Vec<_>>()
        .join("\n")
        .replace("\\-", "-")
        .replace("\\*(Aq", "'")
        .replace("\\(aq", "'")
        .replace("\\fB", "")
        .replace("\\fI", "")
        .replace("\\fR", "")
        .replace("\\e", "\\")
        .replace("\\\\", "\\")
}

/// Every text a user reads about spill: the README, `--help` of every command, every man page.
fn texts() -> Vec<(String, String)> {
    let mut texts = vec![(
        "README.md".to_string(),
        std::fs::read_to_string(root().join("README.md")).unwrap(),
    )];
    let s = Sandbox::new();
    let mut cmd = spill::cli::Cli::command();
    cmd.build();
    let mut names = vec![String::new()];
    names.extend(
        cmd.get_subcommands()
            .map(|c| c.get_name().to_string())
            .filter(|n| n != "help"),
    );
    for name in names {
        let args: Vec<&str> = [name.as_str(), "--help"]
            .into_iter()
            .filter(|a| !a.is_empty())
            .collect();
        let help = s.run(&args, []);
        help.status(0);
        texts.push((format!("spill {name} --help"), help.out()));
    }
    for entry in std::fs::read_dir(root().join("man")).unwrap() {
        let path = entry.unwrap().path();
        let roff = std::fs::read_to_string(&path).unwrap();
        texts.push((path.display().to_string(), man_text(&roff)));
    }
    texts
}

#[test]
fn readme_help_and_man_page_make_each_statement_word_for_word() {
    let texts = texts();
    let find = |name: &str| {
        let (_, text) = texts.iter().find(|(n, _)| n.ends_with(name)).unwrap();
        normal(text)
    };
    for (topic, statement) in STATEMENTS {
        let want = normal(statement);
        for place in ["README.md", "spill  --help", "man/spill.1"] {
            assert!(
                find(place).contains(&want),
                "{place} does not say, word for word, what src/cli.rs says about {topic}:\n  {statement}"
            );
        }
    }
}

#[test]
fn no_text_contradicts_a_statement() {
    for (place, text) in texts() {
        let text = normal(&text);
        for (topic, phrase) in CONTRADICTIONS {
            let statement = STATEMENTS.iter().find(|(t, _)| t == topic).unwrap().1;
            assert!(
                !text.contains(phrase),
                "{place} says {phrase:?}, which contradicts what spill does ({topic}):\n  {statement}"
            );
        }
    }
}

/// The command names of a list written as `a, b, c and d`.
fn names(list: &str) -> Vec<String> {
    list.replace(" and ", ", ")
        .split(", ")
        .map(|n| n.trim().to_string())
        .collect()
}

#[test]
fn the_paging_statement_names_the_commands_that_page() {
    let statement = spill::cli::PAGING_STATEMENT;
    let paging = names(statement.split(" show their output").next().unwrap());
    let never = statement
        .split("; ")
        .find_map(|part| {
            part.strip_suffix(
                " and the harness commands never page, and nothing is paged in restricted mode.",
            )
        })
        .map(names)
        .expect("the statement names the commands that never page");
    // Every command is in one of the lists, or is view (its own pager) or a harness command.
    let mut cmd = spill::cli::Cli::command();
    cmd.build();
    for sub in cmd.get_subcommands().map(|c| c.get_name()) {
        assert!(
            paging.iter().chain(&never).any(|n| n == sub)
                || ["view", "hook", "init", "mcp", "doctor", "help"].contains(&sub),
            "PAGING_STATEMENT does not say whether `spill {sub}` pages"
        );
    }
    let s = Sandbox::new();
    let file = s.file("doc.json", r#"{"a":[1,2]}"#);
    let file = file.to_str().unwrap();
    // An entry for ls to list (rm --all, in the second list, takes it away).
    crate::common::spilled(
        s.cmd(&["wrap", "--max-inline", "0"])
            .stdin(b"entry\n".to_vec()),
    );
    fn argv<'a>(name: &'a str, file: &'a str) -> Vec<&'a str> {
        match name {
            "cat" | "shape" => vec![name, file],
            "extract" => vec![name, file, "$"],
            "search" => vec![name, file, "a"],
            "ls" | "schema" | "gc" | "wrap" | "stats" => vec![name],
            "rm" => vec![name, "--all"],
            // wait and stop act on a running entry only (tests/live.rs runs them); here they
            // answer the file's path with exit 2 and must still not start the pager.
            "wait" | "stop" => vec![name, "@1"],
            other => panic!("no invocation for {other}"),
        }
    }
    for (name, pages) in paging
        .iter()
        .map(|n| (n, true))
        .chain(never.iter().map(|n| (n, false)))
    {
        let mut args = vec!["--paging", "always"];
        args.extend(argv(name, file));
        let run = s
            .cmd(&args)
            .env("SPILL_PAGER", "sed s/^/PAGED:/")
            .stdin(b"short\n".to_vec())
            .run();
        if !["wait", "stop"].contains(&name.as_str()) {
            run.status(0);
        }
        assert_eq!(
            run.out().starts_with("PAGED:"),
            pages,
            "spill {name} --paging always: {}",
            run.out()
        );
    }
}

#[test]
fn the_colour_statement_is_what_the_binary_does() {
    let s = Sandbox::new();
    let file = s.file("doc.json", r#"{"a":["x",2,null]}"#);
    let file = file.to_str().unwrap();
    let stored = crate::common::spilled(
        s.cmd(&["wrap", "--max-inline", "0"])
            .stdin(br#"{"a":["x",2,null]}"#.to_vec()),
    );
    let coloured = |args: &[&str]| {
        let mut argv = vec!["--color", "always", "--paging", "never"];
        argv.extend(args);
        let run = s.cmd(&argv).stdin(vec![b'x'; 40_000]).run();
        assert!(run.code.is_some_and(|c| c < 2), "{args:?}: {}", run.stderr);
        run.out().contains('\x1b')
    };
    // JSON that extract and shape print is coloured ...
    assert!(coloured(&["extract", file, "$"]));
    assert!(coloured(&["shape", file]));
    // ... extract -r, envelopes, --json output and schemas are not.
    assert!(!coloured(&["extract", file, "$.a[0]", "-r"]));
    assert!(!coloured(&["wrap"]));
    assert!(!coloured(&["search", &stored, "x", "--json"]));
    assert!(!coloured(&["ls", "--json"]));
    assert!(!coloured(&["schema", "envelope"]));
}
