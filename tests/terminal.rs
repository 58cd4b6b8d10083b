//! At a terminal (README "At a terminal"): JSON in jq's colours, the pager, `spill view`.
//! The real-terminal side (less in tmux) is tests/terminal/pager.py; here the binary runs with
//! pipes, `--color always` and `--paging always`.

use std::path::PathBuf;

use crate::common::{Sandbox, spilled};

fn golden(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden/color")
        .join(name)
}

/// Compares coloured bytes with a golden file (`SPILL_BLESS=1` rewrites it).
#[track_caller]
fn assert_golden(name: &str, got: &[u8]) {
    let path = golden(name);
    if std::env::var_os("SPILL_BLESS").is_some_and(|v| v == "1") {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, got).unwrap();
        return;
    }
    let want = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert_eq!(
        String::from_utf8_lossy(got),
        String::from_utf8_lossy(&want),
        "{name} differs from its golden file"
    );
}

const DOC: &str = r#"{"items":[{"id":1,"name":"a\"b","ok":true,"err":null},{"id":-2.5e3,"name":"ü","ok":false,"err":"x"}],"next":null}"#;

fn stored(s: &Sandbox) -> String {
    spilled(
        s.cmd(&["wrap", "--max-inline", "0"])
            .stdin(DOC.as_bytes().to_vec()),
    )
}

/// The text with its SGR sequences taken out.
fn strip(bytes: &[u8]) -> Vec<u8> {
    let text = String::from_utf8(bytes.to_vec()).unwrap();
    let mut out = String::new();
    let mut rest = text.as_str();
    while let Some(at) = rest.find("\x1b[") {
        out.push_str(&rest[..at]);
        let after = &rest[at + 2..];
        rest = &after[after.find('m').unwrap() + 1..];
    }
    out.push_str(rest);
    out.into_bytes()
}

#[test]
fn extract_and_shape_colour_json_like_jq_and_the_plain_bytes_are_unchanged() {
    let s = Sandbox::new();
    let r = stored(&s);
    for (name, args) in [
        ("extract-values.ansi", vec!["extract", &r, "$.items[*]"]),
        (
            "extract-nodes.ansi",
            vec!["extract", &r, "$..name", "--nodes"],
        ),
        ("extract-pretty.ansi", vec!["extract", &r, "$.items[0]"]),
        ("shape.ansi", vec!["shape", &r]),
    ] {
        let plain = s.run(&args, []);
        plain.status(0);
        assert!(
            !plain.stdout.contains(&0x1b),
            "{name}: piped output is never coloured"
        );
        let mut coloured = args.clone();
        coloured.push("--color");
        coloured.push("always");
        let run = s.run(&coloured, []);
        run.status(0);
        assert!(run.stdout.contains(&0x1b), "{name}: not coloured");
        assert_eq!(
            strip(&run.stdout),
            plain.stdout,
            "{name}: colour changed the text"
        );
        assert_golden(name, &run.stdout);
    }
    // Raw strings are not JSON: never coloured.
    let raw = s.run(&["extract", &r, "$..name", "-r", "--color", "always"], []);
    raw.status(0);
    assert_eq!(raw.out(), "a\"b\nü\n");
}

#[test]
fn spill_colors_sets_the_colours_in_jq_colors_format() {
    let s = Sandbox::new();
    let r = stored(&s);
    let run = s
        .cmd(&["extract", &r, "$.next", "--color", "always"])
        .env("SPILL_COLORS", "1;31")
        .run();
    run.status(0);
    assert_eq!(run.stdout, b"\x1b[1;31mnull\x1b[0m\n");
    let key = s
        .cmd(&[
            "extract",
            &r,
            "$.items[0].id",
            "--nodes",
            "--color",
            "always",
        ])
        .env("SPILL_COLORS", "::::::: 4")
        .run();
    key.status(0);
    assert!(
        key.stderr.contains("SPILL_COLORS") && key.stderr.contains("field 8"),
        "{}",
        key.stderr
    );
    assert!(
        key.out().contains("\x1b[34;1m\""),
        "defaults kept: {:?}",
        key.out()
    );
}

#[test]
fn the_pager_gets_stdout_and_messages_come_after_it() {
    let s = Sandbox::new();
    let text: String = (1..=500).map(|i| format!("line {i}\n")).collect();
    let r = spilled(
        s.cmd(&["wrap", "--max-inline", "0"])
            .stdin(text.into_bytes()),
    );
    // The pager takes its time; the footer must still follow everything it showed.
    let run = s.shell(&format!(
        "SPILL_PAGER='sleep 0.3; tr a-z A-Z' spill --paging always cat {r} 2>&1"
    ));
    run.status(0);
    let out = run.out();
    assert!(out.starts_with("LINE 1\nLINE 2\n"), "{out}");
    let last = out.lines().last().unwrap();
    assert!(
        last.contains("next: --lines 201:400"),
        "the footer comes last: {out}"
    );
    assert!(
        !last.contains("LINES"),
        "the footer does not go through the pager: {out}"
    );
    // An error after the output is held back the same way.
    let missing =
        s.shell("SPILL_PAGER='sleep 0.3; cat' spill --paging always cat sp_0000000000000000 2>&1");
    missing.status(2);
    assert!(missing.out().contains("unknown ref"), "{}", missing.out());
    // PAGER when SPILL_PAGER is unset; `never` and a pipe under `auto` use none.
    let pager = s.shell(&format!(
        "PAGER='tr a-z A-Z' spill --paging always cat {r} --lines 1:1"
    ));
    assert_eq!(pager.out(), "LINE 1\n");
    let never = s.shell(&format!(
        "PAGER='tr a-z A-Z' spill --paging never cat {r} --lines 1:1"
    ));
    assert_eq!(never.out(), "line 1\n");
    let auto = s.shell(&format!("PAGER='tr a-z A-Z' spill cat {r} --lines 1:1"));
    assert_eq!(auto.out(), "line 1\n");
}

#[test]
fn restricted_mode_never_pages_and_refuses_view() {
    let s = Sandbox::new();
    let r = spilled(
        s.cmd(&["wrap", "--max-inline", "0"])
            .stdin(b"secret\n".to_vec()),
    );
    let run = s.shell(&format!(
        "SPILL_RESTRICTED=1 SPILL_PAGER='tr a-z A-Z' spill --paging always cat {r}"
    ));
    run.status(0);
    assert_eq!(run.out(), "secret\n");
    let view = s.cmd(&["view", &r]).env("SPILL_RESTRICTED", "1").run();
    view.status(2);
    assert!(view.stderr.contains("restricted mode"), "{}", view.stderr);
}

#[test]
fn view_opens_json_in_the_viewer_and_text_in_the_pager() {
    let s = Sandbox::new();
    let json = stored(&s);
    let text = spilled(
        s.cmd(&["wrap", "--max-inline", "0"])
            .stdin(b"plain text\n".to_vec()),
    );
    // The viewer gets the stored file itself as its last argument.
    let viewed = s.shell(&format!(
        "SPILL_VIEWER='wc -c <' PAGER='false' spill view {json}"
    ));
    viewed.status(0);
    assert_eq!(viewed.out().trim(), DOC.len().to_string());
    let paged = s.shell(&format!(
        "SPILL_VIEWER='false' PAGER='tr a-z A-Z <' spill view {text}"
    ));
    paged.status(0);
    assert_eq!(paged.out(), "PLAIN TEXT\n");
    // No viewer installed and none chosen: see the next test.
    // A file path works as well; stdin and missing files are errors.
    let file = s.file("notes.txt", "some notes\n");
    let f = s.shell(&format!("PAGER='cat <' spill view {}", file.display()));
    assert_eq!(f.out(), "some notes\n");
    s.run(&["view", "-"], []).status(2);
    let gone = s.run(&["view", "no-such-file"], []);
    gone.status(2);
    assert!(gone.stderr.contains("no such file"), "{}", gone.stderr);
    // A viewer that fails is an error naming it.
    let failed = s.shell(&format!("SPILL_VIEWER='false' spill view {json}"));
    failed.status(2);
    assert!(
        failed.stderr.contains("viewer (false)"),
        "{}",
        failed.stderr
    );
}

#[test]
fn view_without_a_json_viewer_pages_json_pretty_and_coloured_and_binary_as_hex() {
    let s = Sandbox::new();
    let json = stored(&s);
    // A PATH with no jless or fx on it, and a pager that shows what it is given.
    let bin = s.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    for (name, target) in [
        ("sh", PathBuf::from("/bin/sh")),
        ("cat", which("cat")),
        ("spill", PathBuf::from(env!("CARGO_BIN_EXE_spill"))),
    ] {
        std::os::unix::fs::symlink(target, bin.join(name)).unwrap();
    }
    let view = |args: &str| {
        s.shell(&format!(
            "PATH={} PAGER='cat -u' spill {args}",
            bin.display()
        ))
    };
    // The whole document, as extract prints it unbounded: pretty, exact, one value.
    let want = s.run(&["extract", &json, "$", "--unbounded"], []);
    want.status(0);
    let paged = view(&format!("view {json}"));
    paged.status(0);
    assert_eq!(paged.out(), want.out());
    assert!(
        paged.out().contains("\n  \"items\": [\n"),
        "{}",
        paged.out()
    );
    assert!(!paged.out().contains('\x1b'), "piped: no colour");
    // Coloured as extract colours it; without the colours, the same text.
    let coloured = view(&format!("--color always view {json}"));
    coloured.status(0);
    let extract = s.run(
        &["--color", "always", "extract", &json, "$", "--unbounded"],
        [],
    );
    assert_eq!(coloured.out(), extract.out());
    assert!(coloured.out().contains("\x1b["), "{:?}", coloured.out());
    assert_eq!(strip(&coloured.stdout), want.stdout);

    // Binary: the hex dump cat shows, all of it, across the chunks it is written in.
    let bytes: Vec<u8> = (0..200_000u32).map(|i| (i * 7 % 256) as u8).collect();
    let binary = spilled(s.cmd(&["wrap", "--max-inline", "0"]).stdin(bytes.clone()));
    let hex = view(&format!("view {binary}"));
    hex.status(0);
    assert!(hex.stderr.is_empty(), "{}", hex.stderr);
    let dump = s.run(
        &["cat", &binary, "--hex", "--bytes", "0:", "--max-bytes", "0"],
        [],
    );
    dump.status(0);
    assert_eq!(hex.out(), dump.out());
    assert_eq!(hex.out().lines().count(), 200_000 / 16 + 1);
    assert!(hex.out().ends_with(&format!("{:08x}\n", bytes.len())));
}

/// The absolute path of a program on the PATH.
fn which(name: &str) -> PathBuf {
    std::env::split_paths(&std::env::var_os("PATH").unwrap())
        .map(|dir| dir.join(name))
        .find(|p| p.is_file())
        .unwrap_or_else(|| panic!("{name} is not on the PATH"))
}
