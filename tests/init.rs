//! `spill init` and the user's own files, through the binary: the user's hooks that run spill
//! stay, every byte that is not spill's stays, links stay links, modes and read-only files are
//! respected, and `--uninstall` gives back exactly the file `init` found (a property test over
//! generated settings files, for every harness).

use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};

use proptest::prelude::*;

use crate::common::{Run, Sandbox};

const SPILL: &str = env!("CARGO_BIN_EXE_spill");

/// Every harness `spill init` takes.
const HARNESSES: [&str; 7] = [
    "claude-code",
    "gemini",
    "codex",
    "opencode",
    "pi",
    "qwen-code",
    "copilot",
];

/// Where `spill init HARNESS` writes, in a sandbox's HOME.
fn target(sb: &Sandbox, harness: &str) -> PathBuf {
    let rel = match harness {
        "claude-code" => ".claude/settings.json",
        "gemini" => ".gemini/settings.json",
        "codex" => ".codex/config.toml",
        "opencode" => ".config/opencode/plugin/spill.js",
        "pi" => ".pi/agent/extensions/spill.js",
        "qwen-code" => ".qwen/settings.json",
        "copilot" => ".copilot/hooks/spill.json",
        _ => unreachable!("{harness}"),
    };
    let path = sb.path().join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    path
}

fn init(sb: &Sandbox, harness: &str, uninstall: bool) -> Run {
    let mut args = vec!["init", harness];
    if uninstall {
        args.push("--uninstall");
    }
    sb.run(&args, "")
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()))
}

fn is_link(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink())
}

fn mode_of(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o7777
}

fn backup(path: &Path) -> PathBuf {
    PathBuf::from(format!("{}.spill-backup", path.display()))
}

#[test]
fn init_keeps_the_users_own_hooks_that_run_spill_and_every_byte() {
    let sb = Sandbox::new();
    let path = target(&sb, "claude-code");
    // The issue's reproduction, verbatim.
    let original = r#"{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"nice spill hook claude-code"}]}]},"n":1e3}"#;
    std::fs::write(&path, original).unwrap();
    init(&sb, "claude-code", false).status(0);
    let once = read(&path);
    assert!(
        once.starts_with(r#"{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"nice spill hook claude-code"}]}],"#),
        "{once}"
    );
    // The store root (the sandbox's TMPDIR's `spill-UID`) is granted to Claude Code's sandbox.
    let root = sb
        .path()
        .join(format!("spill-{}", unsafe { libc::getuid() }));
    assert!(
        once.ends_with(&format!(
            r#"}},"n":1e3,"sandbox":{{"filesystem":{{"allowWrite":["{}"]}}}}}}"#,
            root.display()
        )),
        "{once}"
    );
    assert_eq!(
        once.matches(&format!("{SPILL} hook claude-code")).count(),
        3
    );
    init(&sb, "claude-code", true).status(0);
    assert_eq!(read(&path), original);

    // The user's hook in one of spill's events, and a change of theirs since `init`: only
    // spill's bytes go, even without the backup's help.
    let theirs = "{\n    \"hooks\": {\n        \"PreToolUse\": [\n            {\n                \"matcher\": \"Bash\",\n                \"hooks\": [\n                    {\"type\": \"command\", \"command\": \"SPILL_MAX_INLINE=4096 spill hook claude-code\"}\n                ]\n            }\n        ]\n    },\n    \"big\": 12345678901234567890123,\n    \"s\": \"\\u00e9\\/\"\n}\n";
    std::fs::write(&path, theirs).unwrap();
    init(&sb, "claude-code", false).status(0);
    let once = read(&path);
    assert!(
        once.contains("SPILL_MAX_INLINE=4096 spill hook claude-code")
            && once.contains("12345678901234567890123")
            && once.contains("\\u00e9\\/"),
        "{once}"
    );
    let mine = "\"mine\": 2E+3,\n    \"big\"";
    std::fs::write(&path, once.replacen("\"big\"", mine, 1)).unwrap();
    init(&sb, "claude-code", true).status(0);
    assert_eq!(read(&path), theirs.replacen("\"big\"", mine, 1));
}

/// The trust hash `spill init codex` writes for this spill (it does not depend on the path).
fn codex_trust_hash(sb: &Sandbox) -> String {
    let home = sb.path().join("other-codex");
    std::fs::create_dir_all(&home).unwrap();
    sb.cmd(&["init", "codex"])
        .env("CODEX_HOME", &home)
        .run()
        .status(0);
    let text = read(&home.join("config.toml"));
    let line = text
        .lines()
        .find(|l| l.starts_with("trusted_hash = "))
        .unwrap();
    line["trusted_hash = ".len()..].to_string()
}

#[test]
fn codex_init_never_writes_a_second_trust_record_or_into_a_broken_file() {
    let sb = Sandbox::new();
    let path = target(&sb, "codex");
    let key = format!("{}:pre_tool_use:0:0", path.display());
    // A stale record for the position spill's hook takes: refused, unchanged.
    let stale =
        format!("model = \"o3\"\n\n[hooks.state.\"{key}\"]\ntrusted_hash = \"sha256:00\"\n");
    std::fs::write(&path, &stale).unwrap();
    let run = init(&sb, "codex", false);
    run.status(2);
    assert!(
        run.stderr.contains("[hooks.state.") && run.stderr.contains("nothing changed"),
        "{}",
        run.stderr
    );
    assert_eq!(read(&path), stale);
    assert!(!backup(&path).exists());
    // A record that already trusts exactly spill's hook is the user's: no second one.
    let hash = codex_trust_hash(&sb);
    let trusted = format!("model = \"o3\"\n\n[hooks.state.\"{key}\"]\ntrusted_hash = {hash}\n");
    std::fs::write(&path, &trusted).unwrap();
    init(&sb, "codex", false).status(0);
    let once = read(&path);
    assert!(once.starts_with(&trusted), "{once}");
    assert_eq!(once.matches("[hooks.state.").count(), 1, "{once}");
    assert!(once.contains(" hook codex\"\n"), "{once}");
    init(&sb, "codex", true).status(0);
    assert_eq!(read(&path), trusted);
    // Not TOML: refused, unchanged, no backup.
    let broken = "model = \"o3\n[[hooks.PreToolUse]]\n";
    std::fs::write(&path, broken).unwrap();
    let run = init(&sb, "codex", false);
    run.status(2);
    assert!(
        run.stderr.contains("not valid TOML") && run.stderr.contains("nothing changed"),
        "{}",
        run.stderr
    );
    assert_eq!(read(&path), broken);
    assert!(!backup(&path).exists());
}

#[test]
fn init_writes_through_a_link_and_uninstall_leaves_the_link() {
    for harness in HARNESSES {
        let sb = Sandbox::new();
        let path = target(&sb, harness);
        let dotfiles = sb.path().join("dotfiles");
        std::fs::create_dir(&dotfiles).unwrap();
        let real = dotfiles.join("settings");
        // Dotfiles not checked out yet: the link dangles.
        std::os::unix::fs::symlink(&real, &path).unwrap();
        init(&sb, harness, false).status(0);
        assert!(is_link(&path), "{harness}: the link was replaced");
        assert!(read(&real).contains("hook"), "{harness}");
        init(&sb, harness, true).status(0);
        assert!(is_link(&path), "{harness}: the link was removed");
        assert!(!real.exists(), "{harness}: the file init created stays");
        if harness == "opencode" || harness == "pi" {
            continue;
        }
        // A link to a file of the user's (a relative one): the file comes back, the link stays.
        let original = if harness == "codex" {
            "model = \"o3\" # mine\n"
        } else {
            "{\"theme\": \"dark\", \"n\": 1e3}\n"
        };
        std::fs::write(&real, original).unwrap();
        std::fs::remove_file(&path).unwrap();
        let up = "../".repeat(path.strip_prefix(sb.path()).unwrap().components().count() - 1);
        std::os::unix::fs::symlink(format!("{up}dotfiles/settings"), &path).unwrap();
        init(&sb, harness, false).status(0);
        assert!(is_link(&path), "{harness}");
        assert_ne!(read(&real), original, "{harness}");
        init(&sb, harness, true).status(0);
        assert!(is_link(&path), "{harness}");
        assert_eq!(read(&real), original, "{harness}");
    }
    // A link into a directory that does not exist: refused, nothing created.
    let sb = Sandbox::new();
    let path = target(&sb, "claude-code");
    let missing = sb.path().join("missing/dir/settings.json");
    std::os::unix::fs::symlink(&missing, &path).unwrap();
    let run = init(&sb, "claude-code", false);
    run.status(2);
    assert!(
        run.stderr.contains("does not exist") && run.stderr.contains("nothing changed"),
        "{}",
        run.stderr
    );
    assert!(is_link(&path) && !sb.path().join("missing").exists());
}

#[test]
fn gemini_uninstall_keeps_hooks_enabled_while_the_users_hooks_need_them() {
    let sb = Sandbox::new();
    let path = target(&sb, "gemini");
    let original = "{\n  \"hooksConfig\": {\n    \"enabled\": false\n  }\n}\n";
    std::fs::write(&path, original).unwrap();
    init(&sb, "gemini", false).status(0);
    let once = read(&path);
    assert!(once.contains("\"enabled\": true"), "{once}");
    // The user adds a hook of their own after `init`.
    let edited = once.replacen(
        "\"hooks\": {",
        "\"hooks\": {\n    \"BeforeAgent\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"my-audit\"}]}],",
        1,
    );
    assert_ne!(edited, once);
    std::fs::write(&path, &edited).unwrap();
    let run = init(&sb, "gemini", true);
    run.status(0);
    assert!(
        run.out().contains("left hooksConfig.enabled on"),
        "{}",
        run.out()
    );
    let v: serde_json::Value = serde_json::from_str(&read(&path)).unwrap();
    assert_eq!(v["hooksConfig"]["enabled"], true, "{v}");
    assert_eq!(
        v["hooks"]["BeforeAgent"][0]["hooks"][0]["command"],
        "my-audit"
    );
    assert!(!read(&path).contains("hook gemini"), "{v}");
    // Without hooks of the user's, the backup's value comes back.
    std::fs::write(&path, &once).unwrap();
    init(&sb, "gemini", true).status(0);
    assert_eq!(read(&path), original);
}

#[test]
fn gemini_settings_with_comments_are_set_up_and_given_back() {
    let sb = Sandbox::new();
    let path = target(&sb, "gemini");
    let original = "// Gemini CLI settings\n{\n  /* auth */\n  \"security\": {\"auth\": {\"selectedType\": \"gemini-api-key\"}}, // trailing\n  \"n\": 1.50\n}\n";
    std::fs::write(&path, original).unwrap();
    init(&sb, "gemini", false).status(0);
    let once = read(&path);
    assert!(
        once.starts_with("// Gemini CLI settings\n{\n  /* auth */\n  \"security\": {\"auth\": {\"selectedType\": \"gemini-api-key\"}}, // trailing\n  \"n\": 1.50,\n"),
        "{once}"
    );
    assert_eq!(once.matches(" hook gemini\"").count(), 3, "{once}");
    assert!(once.contains("\"enabled\": true"), "{once}");
    let again = init(&sb, "gemini", false);
    assert!(again.out().contains("nothing changed"), "{}", again.out());
    init(&sb, "gemini", true).status(0);
    assert_eq!(read(&path), original);
    // A comment that never ends is refused, unchanged.
    std::fs::write(&path, "{} /* open").unwrap();
    let run = init(&sb, "gemini", false);
    run.status(2);
    assert!(run.stderr.contains("never ends"), "{}", run.stderr);
    assert_eq!(read(&path), "{} /* open");
}

#[test]
fn opencode_and_pi_leave_a_plugin_the_user_changed() {
    for harness in ["opencode", "pi"] {
        let sb = Sandbox::new();
        let path = target(&sb, harness);
        init(&sb, harness, false).status(0);
        let changed = format!("{}// my own addition\n", read(&path));
        std::fs::write(&path, &changed).unwrap();
        for uninstall in [true, false] {
            let run = init(&sb, harness, uninstall);
            run.status(2);
            assert!(
                run.stderr.contains("changed since") && run.stderr.contains("nothing changed"),
                "{harness}: {}",
                run.stderr
            );
            assert_eq!(read(&path), changed, "{harness}");
        }
    }
}

#[test]
fn init_refuses_a_read_only_file_and_leaves_it_alone() {
    for harness in HARNESSES {
        let sb = Sandbox::new();
        let path = target(&sb, harness);
        let original = match harness {
            "codex" => "model = \"o3\"\n".to_string(),
            "opencode" | "pi" => {
                init(&sb, harness, false).status(0);
                std::fs::remove_file(backup(&path)).unwrap();
                read(&path)
            }
            _ => "{\"theme\": \"dark\"}\n".to_string(),
        };
        std::fs::write(&path, &original).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o444)).unwrap();
        let run = init(&sb, harness, harness == "opencode" || harness == "pi");
        run.status(2);
        assert!(
            run.stderr.contains("read-only") && run.stderr.contains("nothing changed"),
            "{harness}: {}",
            run.stderr
        );
        assert_eq!(read(&path), original, "{harness}");
        assert_eq!(mode_of(&path), 0o444, "{harness}");
        assert!(!backup(&path).exists(), "{harness}");
    }
}

// ---- The property: every byte that is not spill's stays, and uninstall gives the file back.

/// A JSON value as the user spelled it.
#[derive(Clone, Debug)]
enum J {
    Raw(String),
    Obj(Vec<(String, J)>),
    Arr(Vec<J>),
}

/// How a generated file is laid out.
#[derive(Clone, Debug)]
struct Layout {
    /// One indentation level; `None`: everything on one line.
    indent: Option<&'static str>,
    newline: &'static str,
    /// JSONC comments before members (Gemini only).
    comments: bool,
}

fn render(j: &J, layout: &Layout, depth: usize, out: &mut String) {
    let (open, close, items): (char, char, Vec<(Option<&String>, &J)>) = match j {
        J::Raw(raw) => return out.push_str(raw),
        J::Obj(members) => (
            '{',
            '}',
            members.iter().map(|(k, v)| (Some(k), v)).collect(),
        ),
        J::Arr(elements) => ('[', ']', elements.iter().map(|v| (None, v)).collect()),
    };
    out.push(open);
    for (i, (key, value)) in items.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        if let Some(unit) = layout.indent {
            out.push_str(layout.newline);
            out.push_str(&unit.repeat(depth + 1));
        }
        if let Some(key) = key {
            if layout.comments {
                out.push_str(&format!("/* {key} */ "));
            }
            out.push_str(&serde_json::Value::from(key.as_str()).to_string());
            out.push_str(if layout.indent.is_some() { ": " } else { ":" });
        }
        render(value, layout, depth + 1, out);
    }
    if let (Some(unit), false) = (layout.indent, items.is_empty()) {
        out.push_str(layout.newline);
        out.push_str(&unit.repeat(depth));
    }
    out.push(close);
}

/// Hook commands of the user's that mention spill (none is the command spill writes).
fn user_command(harness: &'static str) -> impl Strategy<Value = String> {
    prop::sample::select(vec![
        "nice spill hook HARNESS",
        "SPILL_MAX_INLINE=4096 spill hook HARNESS",
        "spill hook HARNESS",
        "env spill hook HARNESS",
        "/usr/local/bin/spill hook HARNESS --verbose",
        "'/usr/bin/spill' hook HARNESS",
        "echo \"spill hook HARNESS\"",
        "/opt/bin/spill hook other-harness",
        "my-linter --fix",
    ])
    .prop_map(move |c| c.replace("HARNESS", harness))
}

fn json_string(s: &str) -> J {
    J::Raw(serde_json::Value::from(s).to_string())
}

/// A settings file of a JSON harness: the user's hooks (in spill's events and others, empty
/// lists too), numbers and strings in spellings a re-serialiser would change, any key order.
/// Also says whether Gemini's hooks stay enabled after an uninstall that cannot restore the
/// backup (the user's hooks were off), and whether init turns `enabled: false` on.
fn settings(harness: &'static str) -> impl Strategy<Value = (J, (bool, bool))> {
    let events: Vec<&str> = if harness == "gemini" {
        vec!["BeforeTool", "AfterTool", "SessionEnd", "BeforeAgent"]
    } else {
        vec!["PreToolUse", "PostToolUse", "SessionEnd", "Stop"]
    };
    let hook = (
        user_command(harness),
        any::<bool>(),
        prop::sample::select(vec!["command", "\\u0063ommand"]),
    )
        .prop_map(|(command, timeout, kind)| {
            let mut members = vec![
                ("type".to_string(), J::Raw(format!("\"{kind}\""))),
                ("command".to_string(), json_string(&command)),
            ];
            if timeout {
                members.push(("timeout".into(), J::Raw("3e1".into())));
            }
            J::Obj(members)
        });
    let group = (
        prop::option::of(prop::sample::select(vec![
            "Bash",
            ".*",
            "^run_shell_command$",
        ])),
        prop::collection::vec(hook, 1..3),
    )
        .prop_map(|(matcher, hooks)| {
            let mut members = Vec::new();
            if let Some(m) = matcher {
                members.push(("matcher".to_string(), json_string(m)));
            }
            members.push(("hooks".to_string(), J::Arr(hooks)));
            J::Obj(members)
        });
    let hooks = prop::collection::vec(
        (
            prop::sample::select(events),
            prop::collection::vec(group, 0..3),
        ),
        0..4,
    )
    .prop_map(|events| {
        let mut seen = Vec::new();
        J::Obj(
            events
                .into_iter()
                .filter(|(e, _)| {
                    let new = !seen.contains(e);
                    seen.push(e);
                    new
                })
                .map(|(e, groups)| (e.to_string(), J::Arr(groups)))
                .collect(),
        )
    });
    let number = prop::sample::select(vec![
        "1e3",
        "1000.0",
        "-0",
        "12345678901234567890123",
        "1.50",
        "2E-7",
    ]);
    let string = prop::sample::select(vec!["\"\\u00e9\"", "\"a\\/b\"", "\"tab\\t\"", "\"é\""]);
    let enabled = prop::sample::select(vec!["none", "empty", "true", "false"]);
    (
        prop::option::of(hooks),
        number,
        string,
        enabled,
        any::<prop::sample::Index>(),
    )
        .prop_map(move |(hooks, number, string, enabled, at)| {
            let mut members = vec![
                ("model".to_string(), json_string("opus")),
                ("n".to_string(), J::Raw(number.into())),
                ("s".to_string(), J::Raw(string.into())),
            ];
            let mut has_user_hooks = false;
            if let Some(hooks) = hooks {
                if let J::Obj(events) = &hooks {
                    has_user_hooks = events
                        .iter()
                        .any(|(_, groups)| matches!(groups, J::Arr(g) if !g.is_empty()));
                }
                members.insert(at.index(members.len() + 1), ("hooks".into(), hooks));
            }
            let mut enabled_true = false;
            let off = harness == "gemini" && enabled == "false";
            if harness == "gemini" {
                let config = match enabled {
                    "none" => None,
                    "empty" => Some(J::Obj(Vec::new())),
                    value => {
                        enabled_true = value == "true";
                        Some(J::Obj(vec![("enabled".into(), J::Raw(value.into()))]))
                    }
                };
                if let Some(config) = config {
                    members.push(("hooksConfig".into(), config));
                }
            }
            // Gemini turns hooks on for spill; with hooks of the user's that were off, they stay
            // on after uninstall unless the file is as init left it (the backup comes back).
            (J::Obj(members), (has_user_hooks && !enabled_true, off))
        })
}

fn layout(comments: bool) -> impl Strategy<Value = Layout> {
    (
        prop::sample::select(vec![None, Some("  "), Some("    "), Some("\t")]),
        prop::sample::select(vec!["\n", "\r\n"]),
        any::<bool>(),
    )
        .prop_map(move |(indent, newline, c)| Layout {
            indent,
            newline,
            comments: comments && c,
        })
}

/// Whether `small`'s bytes all appear in `big`, in order.
fn is_subsequence(small: &str, big: &str) -> bool {
    let mut big = big.bytes();
    small.bytes().all(|b| big.any(|c| c == b))
}

/// The file the property starts from: at `path` itself, or behind a link to a dotfiles
/// directory; with `mode`.
/// A generated JSONC settings file (Gemini CLI's, Qwen Code's) after `lead` (a comment or
/// nothing).
fn jsonc(lead: &str, file: &J, layout: &Layout) -> String {
    let mut text = lead.to_string();
    render(file, layout, 0, &mut text);
    text
}

/// The user's edit of a JSONC settings file between `init` and `--uninstall`.
const JSONC_EDIT: (&str, &str) = ("\"model\"", "\"mine\": 2E+1, \"model\"");

fn place(sb: &Sandbox, path: &Path, text: &str, link: bool, mode: u32) -> PathBuf {
    let real = if link {
        let dir = sb.path().join("dotfiles");
        std::fs::create_dir_all(&dir).unwrap();
        let real = dir.join("file");
        std::os::unix::fs::symlink(&real, path).unwrap();
        real
    } else {
        path.to_path_buf()
    };
    std::fs::write(&real, text).unwrap();
    std::fs::set_permissions(&real, std::fs::Permissions::from_mode(mode)).unwrap();
    real
}

/// init, init again, uninstall; then init, a change of the user's (`edit`: the first `from`
/// becomes `to`), uninstall, which gives `after_edit` (`None`: Gemini's hooks stay enabled for
/// the user's, with a note). `inserts_only`: init only adds bytes (it changes none).
fn round_trip(
    harness: &str,
    text: &str,
    (link, mode): (bool, u32),
    (from, to): (&str, &str),
    inserts_only: bool,
    after_edit: Option<String>,
) {
    let sb = Sandbox::new();
    let path = target(&sb, harness);
    let real = place(&sb, &path, text, link, mode);
    let run = init(&sb, harness, false);
    run.status(0);
    let once = read(&real);
    assert!(is_link(&path) == link && mode_of(&real) == mode, "{once}");
    assert!(once.contains(&format!("{SPILL} hook {harness}")), "{once}");
    if harness == "codex" {
        assert!(once.starts_with(text), "{once}");
    } else if inserts_only {
        assert!(is_subsequence(text, &once), "{once}");
    }
    let again = init(&sb, harness, false);
    assert!(again.out().contains("nothing changed"), "{}", again.out());
    assert_eq!(read(&real), once);
    init(&sb, harness, true).status(0);
    assert_eq!(read(&real), text, "after {once}");
    assert!(is_link(&path) == link && mode_of(&real) == mode);
    assert!(!backup(&path).exists());

    init(&sb, harness, false).status(0);
    let once = read(&real);
    std::fs::write(&real, once.replacen(from, to, 1)).unwrap();
    let run = init(&sb, harness, true);
    run.status(0);
    let back = read(&real);
    assert!(!back.contains(&format!("{SPILL} hook")), "{back}");
    if let Some(want) = after_edit {
        assert_eq!(back, want, "after {once}");
    } else {
        assert!(
            run.out().contains("left hooksConfig.enabled on"),
            "{}",
            run.out()
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn claude_code_settings_come_back_byte_for_byte(
        (file, _) in settings("claude-code"),
        layout in layout(false),
        link in any::<bool>(),
        mode in prop::sample::select(vec![0o600u32, 0o644, 0o640]),
    ) {
        let mut text = String::new();
        render(&file, &layout, 0, &mut text);
        text.push_str(layout.newline);
        let edit = ("{", "{\"mine\": 2E+1,");
        let after = text.replacen(edit.0, edit.1, 1);
        round_trip("claude-code", &text, (link, mode), edit, true, Some(after));
    }

    #[test]
    fn gemini_settings_come_back_byte_for_byte(
        (file, (enabled_stays, off)) in settings("gemini"),
        layout in layout(true),
        link in any::<bool>(),
        lead in prop::sample::select(vec!["", "// settings\n", "/* a { b */\n"]),
    ) {
        let text = jsonc(lead, &file, &layout);
        let after = (!enabled_stays).then(|| text.replacen(JSONC_EDIT.0, JSONC_EDIT.1, 1));
        round_trip("gemini", &text, (link, 0o644), JSONC_EDIT, !off, after);
    }

    #[test]
    fn qwen_code_settings_come_back_byte_for_byte(
        (file, _) in settings("qwen-code"),
        layout in layout(true),
        link in any::<bool>(),
        lead in prop::sample::select(vec!["", "// settings\n", "/* a { b */\n"]),
    ) {
        let text = jsonc(lead, &file, &layout);
        let after = text.replacen(JSONC_EDIT.0, JSONC_EDIT.1, 1);
        round_trip("qwen-code", &text, (link, 0o644), JSONC_EDIT, true, Some(after));
    }

    #[test]
    fn codex_config_comes_back_byte_for_byte(
        keys in prop::sample::subsequence(vec![
            "model = \"o3\"   # pinned",
            "n = 1e3",
            "hex = 0x1F",
            "big = 9_223_372_036_854_775_807",
            "note = \"\"\"\n[[hooks.PreToolUse]]\n\"\"\"",
        ], 0..5),
        groups in prop::collection::vec(user_command("codex"), 0..3),
        other_state in any::<bool>(),
        final_newline in any::<bool>(),
        link in any::<bool>(),
    ) {
        let mut text = String::from("# my codex config\n");
        for key in &keys {
            text.push_str(key);
            text.push('\n');
        }
        for command in &groups {
            text.push_str(&format!(
                "\n[[hooks.PreToolUse]]\nmatcher = \"^Bash$\"\n[[hooks.PreToolUse.hooks]]\ntype = \"command\"\ncommand = {}\n",
                serde_json::Value::from(command.as_str())
            ));
        }
        if other_state {
            text.push_str("\n[hooks.state.\"elsewhere:pre_tool_use:9:0\"]\ntrusted_hash = \"sha256:1\"\n");
        }
        if !final_newline {
            text.pop();
        }
        let edit = ("# my codex", "# mine\n# my codex");
        // Without the backup, a block's blank line cannot tell whether the file had a final
        // newline: a changed file without one gets one.
        let mut after = text.replacen(edit.0, edit.1, 1);
        if !final_newline {
            after.push('\n');
        }
        round_trip("codex", &text, (link, 0o600), edit, true, Some(after));
    }

    #[test]
    fn opencode_and_pi_never_take_a_file_that_is_not_exactly_their_plugin(
        pi in any::<bool>(),
        link in any::<bool>(),
        theirs in "[a-z ;=(){}\n]{1,80}",
        line in "// [a-z ]{0,20}\n",
        at in any::<prop::sample::Index>(),
    ) {
        let harness = if pi { "pi" } else { "opencode" };
        let sb = Sandbox::new();
        let path = target(&sb, harness);
        // Absent (or a dangling link): init, uninstall, absent again.
        let real = if link {
            let real = sb.path().join("dotfiles-plugin.js");
            std::os::unix::fs::symlink(&real, &path).unwrap();
            real
        } else {
            path.clone()
        };
        init(&sb, harness, false).status(0);
        let plugin = read(&real);
        init(&sb, harness, true).status(0);
        prop_assert!(!real.exists() && is_link(&path) == link);
        // Someone else's file: refused, unchanged.
        std::fs::write(&real, &theirs).unwrap();
        init(&sb, harness, false).status(2);
        prop_assert_eq!(read(&real), theirs.clone());
        init(&sb, harness, true).status(0);
        prop_assert_eq!(read(&real), theirs);
        // spill's plugin with a line of the user's anywhere after the first: kept, both ways.
        let starts: Vec<usize> = plugin.match_indices('\n').map(|(i, _)| i + 1).collect();
        let cut = starts[at.index(starts.len())];
        let changed = format!("{}{line}{}", &plugin[..cut], &plugin[cut..]);
        std::fs::write(&real, &changed).unwrap();
        init(&sb, harness, true).status(2);
        init(&sb, harness, false).status(2);
        prop_assert_eq!(read(&real), changed);
    }
}

/// `spill init HARNESS` with more arguments.
fn init_with(sb: &Sandbox, harness: &str, flags: &[&str]) -> Run {
    let mut args = vec!["init", harness];
    args.extend_from_slice(flags);
    sb.run(&args, "")
}

/// A Codex config.toml with every form a server entry takes, comments and odd layout: a
/// table with args and comments, one without args and with an env table, an inline table with
/// an empty args list, a remote server, the user's own `spill mcp` and the user's own proxy
/// route through a bare `spill` (both left as they are).
const CODEX_SERVERS: &str = "# my Codex\nmodel = \"o3\"   # pinned\n\n[mcp_servers.files]\ncommand = 'npx'    # the runner\nargs = [\n  \"-y\", # quiet\n  \"@modelcontextprotocol/server-filesystem\",\n  \"/srv/data\",\n]\ncwd = \"/srv\"\n\n[mcp_servers.db]\ncommand = \"db-mcp\"\n\n[mcp_servers.db.env]\nTOKEN = \"x\"\n\n[mcp_servers]\nquick = {command=\"quick\",args=[]}\n\n[mcp_servers.web]\nurl = \"https://example.com/mcp\"\n\n[mcp_servers.store]\ncommand = \"spill\"\nargs = [\"mcp\"]\n\n[mcp_servers.mine]\ncommand = \"spill\"\nargs = [\"mcp\", \"proxy\", \"--\", \"mine\"]\n";

#[test]
fn codex_proxy_mcp_routes_each_stdio_server_and_uninstall_gives_the_file_back() {
    let sb = Sandbox::new();
    let path = target(&sb, "codex");
    std::fs::write(&path, CODEX_SERVERS).unwrap();
    // --dry-run: the diff and what is left alone, nothing written.
    let dry = init_with(&sb, "codex", &["--proxy-mcp", "--dry-run"]);
    dry.status(0);
    let diff = dry.out();
    assert!(
        diff.contains(&format!("+command = \"{SPILL}\"    # the runner")),
        "{diff}"
    );
    assert!(
        diff.contains("+  \"mcp\", \"proxy\", \"--\", 'npx', \"-y\", # quiet"),
        "{diff}"
    );
    assert!(
        diff.contains("MCP server web is remote (url): not routed"),
        "{diff}"
    );
    assert!(
        diff.contains("MCP server store already runs spill: not routed"),
        "{diff}"
    );
    assert_eq!(read(&path), CODEX_SERVERS);
    assert!(!backup(&path).exists());
    init_with(&sb, "codex", &["--proxy-mcp"]).status(0);
    let routed = read(&path);
    let doc: toml_edit::DocumentMut = routed.parse().unwrap();
    let servers = &doc["mcp_servers"];
    let words = |name: &str| -> Vec<String> {
        let mut all = vec![servers[name]["command"].as_str().unwrap().to_string()];
        all.extend(
            servers[name]["args"]
                .as_array()
                .map(|a| {
                    a.iter()
                        .map(|v| v.as_str().unwrap().to_string())
                        .collect::<Vec<_>>()
                })
                .unwrap_or_default(),
        );
        all
    };
    let proxy = |rest: &[&str]| -> Vec<String> {
        [SPILL, "mcp", "proxy", "--"]
            .iter()
            .chain(rest)
            .map(|s| s.to_string())
            .collect()
    };
    assert_eq!(
        words("files"),
        proxy(&[
            "npx",
            "-y",
            "@modelcontextprotocol/server-filesystem",
            "/srv/data"
        ])
    );
    assert_eq!(words("db"), proxy(&["db-mcp"]));
    assert_eq!(words("quick"), proxy(&["quick"]));
    // Each route passes spill's variables: Codex gives a server only those its env_vars names.
    let passed = |name: &str| -> Option<Vec<String>> {
        let list = servers[name].get("env_vars")?.as_array().unwrap();
        Some(
            list.iter()
                .map(|v| v.as_str().unwrap().to_string())
                .collect(),
        )
    };
    let spill_vars = [
        "SPILL_DIR",
        "SPILL_STORE",
        "SPILL_TTL",
        "SPILL_QUOTA",
        "SPILL_MAX_FILE",
        "SPILL_MAX_INLINE",
    ];
    for name in ["files", "db", "quick"] {
        assert_eq!(passed(name).unwrap(), spill_vars, "{name}: {routed}");
    }
    for name in ["web", "store", "mine"] {
        assert_eq!(passed(name), None, "{name}: {routed}");
    }
    // Every other key stays as it was.
    assert_eq!(servers["files"]["cwd"].as_str(), Some("/srv"));
    assert_eq!(servers["db"]["env"]["TOKEN"].as_str(), Some("x"));
    assert_eq!(
        servers["web"]["url"].as_str(),
        Some("https://example.com/mcp")
    );
    assert_eq!(words("store"), ["spill", "mcp"]);
    assert_eq!(words("mine"), ["spill", "mcp", "proxy", "--", "mine"]);
    assert!(routed.contains(" hook codex\"\n"), "{routed}");
    // Idempotent, and the hook alone changes nothing either.
    for flags in [&["--proxy-mcp"][..], &[]] {
        let again = init_with(&sb, "codex", flags);
        again.status(0);
        assert!(again.out().contains("nothing changed"), "{}", again.out());
        assert_eq!(read(&path), routed);
    }
    // Byte for byte back, with the backup and without it.
    init(&sb, "codex", true).status(0);
    assert_eq!(read(&path), CODEX_SERVERS);
    assert!(!backup(&path).exists());
    init_with(&sb, "codex", &["--proxy-mcp"]).status(0);
    std::fs::remove_file(backup(&path)).unwrap();
    init(&sb, "codex", true).status(0);
    assert_eq!(read(&path), CODEX_SERVERS);
}

#[test]
fn a_route_another_spill_binary_wrote_runs_this_one_and_still_comes_out() {
    let sb = Sandbox::new();
    let path = target(&sb, "codex");
    // A route another spill binary wrote (an absolute path) is spill's: it runs this one now.
    let other = "[mcp_servers.f]\ncommand = \"/opt/old/spill\"\nargs = [\"mcp\", \"proxy\", \"--\", \"srv\", \"-v\"]\n";
    std::fs::write(&path, other).unwrap();
    init_with(&sb, "codex", &["--proxy-mcp"]).status(0);
    let moved = read(&path);
    assert!(moved.starts_with(&format!("[mcp_servers.f]\ncommand = \"{SPILL}\"\nargs = [\"mcp\", \"proxy\", \"--\", \"srv\", \"-v\"]\n")), "{moved}");
    // The backup names the old binary, so --uninstall takes the route out by its words.
    init(&sb, "codex", true).status(0);
    assert_eq!(
        read(&path),
        "[mcp_servers.f]\ncommand = \"srv\"\nargs = [\"-v\"]\n"
    );
}

/// opencode's config with comments and odd layout: a local server over several lines, one on
/// one line, a remote one.
const OPENCODE_SERVERS: &str = "{\n  // my opencode\n  \"$schema\": \"https://opencode.ai/config.json\",\n  \"mcp\": {\n    \"files\": {\n      \"type\": \"local\",\n      \"command\": [\n        \"npx\", /* quiet */ \"-y\",\n        \"@modelcontextprotocol/server-filesystem\"\n      ],\n      \"environment\": {\"A\": \"1\"},\n      \"enabled\": true\n    },\n    \"quick\": {\"type\":\"local\",\"command\":[\"quick\"]},\n    \"web\": {\"type\": \"remote\", \"url\": \"https://example.com/mcp\"}\n  }\n}\n";

#[test]
fn opencode_proxy_mcp_routes_local_servers_and_uninstall_gives_both_files_back() {
    let sb = Sandbox::new();
    let plugin = target(&sb, "opencode");
    let config = plugin
        .parent()
        .unwrap()
        .parent()
        .unwrap()
        .join("opencode.json");
    std::fs::write(&config, OPENCODE_SERVERS).unwrap();
    let plain = init(&sb, "opencode", false);
    plain.status(0);
    assert!(
        plain.out().contains("opencode --proxy-mcp` routes them"),
        "{}",
        plain.out()
    );
    assert_eq!(read(&config), OPENCODE_SERVERS);
    let dry = init_with(&sb, "opencode", &["--proxy-mcp", "--dry-run"]);
    dry.status(0);
    assert!(
        dry.out().contains(&format!(
            "+        \"{SPILL}\", \"mcp\", \"proxy\", \"--\", \"npx\", /* quiet */ \"-y\","
        )),
        "{}",
        dry.out()
    );
    assert!(
        dry.out()
            .contains("MCP server web is remote (url): not routed")
    );
    assert_eq!(read(&config), OPENCODE_SERVERS);
    init_with(&sb, "opencode", &["--proxy-mcp"]).status(0);
    let routed = read(&config);
    let v: serde_json::Value = serde_json::from_str(
        &routed
            .replace("// my opencode", "")
            .replace("/* quiet */", ""),
    )
    .unwrap();
    assert_eq!(
        v["mcp"]["files"]["command"],
        serde_json::json!([
            SPILL,
            "mcp",
            "proxy",
            "--",
            "npx",
            "-y",
            "@modelcontextprotocol/server-filesystem"
        ])
    );
    assert_eq!(
        v["mcp"]["quick"]["command"],
        serde_json::json!([SPILL, "mcp", "proxy", "--", "quick"])
    );
    assert_eq!(v["mcp"]["files"]["environment"]["A"], "1");
    assert_eq!(v["mcp"]["web"]["url"], "https://example.com/mcp");
    let again = init_with(&sb, "opencode", &["--proxy-mcp"]);
    again.status(0);
    assert_eq!(read(&config), routed);
    assert!(
        again.out().matches("nothing changed").count() == 2,
        "{}",
        again.out()
    );
    init(&sb, "opencode", true).status(0);
    assert_eq!(read(&config), OPENCODE_SERVERS);
    assert!(!plugin.exists());
    assert!(!backup(&config).exists());
    // A project's opencode.jsonc is the one routed with --project.
    let project = sb.path().join("proj");
    std::fs::create_dir_all(&project).unwrap();
    let jsonc = project.join("opencode.jsonc");
    std::fs::write(&jsonc, OPENCODE_SERVERS).unwrap();
    let run = sb
        .cmd(&["init", "opencode", "--project", "--proxy-mcp"])
        .current_dir(&project)
        .run();
    run.status(0);
    assert!(read(&jsonc).contains(&format!(
        "\"{SPILL}\", \"mcp\", \"proxy\", \"--\", \"quick\""
    )));
    sb.cmd(&["init", "opencode", "--project", "--uninstall"])
        .current_dir(&project)
        .run()
        .status(0);
    assert_eq!(read(&jsonc), OPENCODE_SERVERS);
}

/// Where `spill init HARNESS --mcp` registers `spill mcp`, in a sandbox's HOME, and the server
/// entry's words there.
const MCP_FILES: [(&str, &str); 8] = [
    ("claude-code", ".claude.json"),
    ("gemini", ".gemini/settings.json"),
    ("codex", ".codex/config.toml"),
    ("opencode", ".config/opencode/opencode.json"),
    ("qwen-code", ".qwen/settings.json"),
    ("copilot", ".copilot/mcp-config.json"),
    ("kilo", ".config/kilo/kilo.json"),
    ("kimi", ".kimi/mcp.json"),
];

#[test]
fn init_mcp_registers_spill_mcp_which_doctor_finds_connecting_and_uninstall_takes_it_out() {
    for (harness, rel) in MCP_FILES {
        let sb = Sandbox::new();
        let file = sb.path().join(rel);
        // A file of the user's where the harness keeps MCP servers too (Claude Code's state
        // file holds more), or none at all.
        let original = match harness {
            "claude-code" => Some(
                "{\n  \"numStartups\": 3,\n  \"mcpServers\": {\n    \"fake\": {\"command\": \"x\"}\n  }\n}\n",
            ),
            "codex" => Some("model = \"o3\"\n\n[mcp_servers.fake]\ncommand = \"x\"\n"),
            _ => None,
        };
        if let Some(text) = original {
            std::fs::create_dir_all(file.parent().unwrap()).unwrap();
            std::fs::write(&file, text).unwrap();
        }
        let run = init_with(&sb, harness, &["--mcp"]);
        run.status(0);
        assert!(
            run.out().contains("MCP server (`spill mcp`)"),
            "{harness}: {}",
            run.out()
        );
        let text = read(&file);
        let words: Vec<String> = if harness == "codex" {
            let doc: toml_edit::DocumentMut = text.parse().unwrap();
            let server = &doc["mcp_servers"]["spill"];
            assert_eq!(server["env_vars"].as_array().unwrap().len(), 6, "{text}");
            std::iter::once(server["command"].as_str().unwrap().to_string())
                .chain(
                    server["args"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|a| a.as_str().unwrap().to_string()),
                )
                .collect()
        } else {
            let doc: serde_json::Value = serde_json::from_str(&text).unwrap();
            let table = if ["opencode", "kilo"].contains(&harness) {
                "mcp"
            } else {
                "mcpServers"
            };
            let server = &doc[table]["spill"];
            assert!(server.is_object(), "{harness}: {text}");
            if harness == "claude-code" {
                assert_eq!(doc["numStartups"], 3);
                assert_eq!(doc["mcpServers"]["fake"]["command"], "x");
            }
            let mut words: Vec<String> = match &server["command"] {
                serde_json::Value::Array(a) => {
                    a.iter().map(|w| w.as_str().unwrap().to_string()).collect()
                }
                c => vec![c.as_str().unwrap().to_string()],
            };
            words.extend(
                server["args"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|a| a.as_str().unwrap().to_string()),
            );
            words
        };
        // Kimi CLI starts its servers without TMPDIR or SPILL_DIR: its entry names the root.
        // SAFETY: geteuid has no preconditions.
        let root = sb
            .path()
            .join(format!("spill-{}", unsafe { libc::geteuid() }));
        let want: Vec<String> = if harness == "kimi" {
            vec![
                SPILL.into(),
                "mcp".into(),
                "--dir".into(),
                root.display().to_string(),
            ]
        } else {
            vec![SPILL.into(), "mcp".into()]
        };
        assert_eq!(words, want, "{harness}: {text}");
        // Again: nothing changes.
        let again = init_with(&sb, harness, &["--mcp"]);
        again.status(0);
        assert_eq!(
            read(&file),
            text,
            "{harness}: a second init changed the file"
        );
        // The doctor finds it, following the conversation, and it answers initialize.
        let out = sb.cmd(&["doctor"]).env("PATH", "/usr/bin:/bin").run().out();
        assert!(
            out.contains(&format!(
                "spill mcp: registered as \"spill\" in {}",
                file.display()
            )) && out.contains("follows the conversation's scope")
                && out.contains("  connects:  yes: spill "),
            "{harness}: {out}"
        );
        // Out again, with the hooks: the file as it was, or gone as it was.
        init_with(&sb, harness, &["--uninstall"]).status(0);
        match original {
            Some(text) => assert_eq!(read(&file), text, "{harness}"),
            None => assert!(!file.exists(), "{harness}: {}", read(&file)),
        }
    }
}

#[test]
fn init_mcp_is_refused_where_there_is_no_mcp_client_or_file() {
    let sb = Sandbox::new();
    let run = init_with(&sb, "pi", &["--mcp"]);
    run.status(2);
    assert!(run.stderr.contains("no MCP client"), "{}", run.stderr);
    assert!(!target(&sb, "pi").exists());
    let run = init_with(&sb, "copilot", &["--mcp", "--project"]);
    run.status(2);
    assert!(run.stderr.contains("without --project"), "{}", run.stderr);
    // --uninstall --project there is no error: there is nothing of spill's to take out.
    init_with(&sb, "copilot", &["--uninstall", "--project"]).status(0);
}

/// Kimi CLI's `mcp.json`, as `kimi mcp add` writes it (two spaces, no final newline), with a
/// server without `args`, one with `"args": []` and a remote one.
const KIMI_SERVERS: &str = "{\n  \"mcpServers\": {\n    \"files\": {\n      \"command\": \"npx\",\n      \"args\": [\n        \"-y\",\n        \"srv\"\n      ],\n      \"env\": {\n        \"A\": \"1\"\n      }\n    },\n    \"quick\": {\n      \"command\": \"quick\"\n    },\n    \"empty\": {\"command\": \"e\", \"args\": []},\n    \"web\": {\n      \"url\": \"https://example.com/mcp\",\n      \"transport\": \"http\"\n    }\n  }\n}";

/// Kimi CLI: no hook is written (`init` without --proxy-mcp refuses, saying why), and its stdio
/// MCP servers are routed with the store root named, once, and given back byte for byte.
#[test]
fn kimi_gets_no_hook_and_its_mcp_servers_routed_with_the_store_root() {
    let sb = Sandbox::new();
    let config = sb.path().join(".kimi/mcp.json");
    std::fs::create_dir_all(config.parent().unwrap()).unwrap();
    std::fs::write(&config, KIMI_SERVERS).unwrap();
    let refused = init(&sb, "kimi", false);
    refused.status(2);
    assert!(
        refused.stderr.contains("only allow or block") && refused.stderr.contains("--proxy-mcp"),
        "{}",
        refused.stderr
    );
    init_with(&sb, "kimi", &["--project", "--proxy-mcp"]).status(2);
    assert_eq!(read(&config), KIMI_SERVERS);
    assert_eq!(
        std::fs::read_dir(config.parent().unwrap()).unwrap().count(),
        1
    );
    let root = sb
        .cmd(&["init", "kimi", "--proxy-mcp"])
        .env("SPILL_DIR", "/the/root")
        .run();
    root.status(0);
    assert!(
        root.out()
            .contains("MCP server web is remote (url): not routed"),
        "{}",
        root.out()
    );
    let routed = read(&config);
    let v: serde_json::Value = serde_json::from_str(&routed).unwrap();
    let head = [SPILL, "mcp", "proxy", "--dir", "/the/root", "--"];
    for (name, rest) in [
        ("files", &["npx", "-y", "srv"][..]),
        ("quick", &["quick"]),
        ("empty", &["e"]),
    ] {
        let server = &v["mcpServers"][name];
        let args: Vec<&str> = server["args"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a.as_str().unwrap())
            .collect();
        assert_eq!(server["command"], head[0], "{routed}");
        assert_eq!(args, [&head[1..], rest].concat(), "{routed}");
    }
    assert_eq!(v["mcpServers"]["files"]["env"]["A"], "1");
    let again = sb
        .cmd(&["init", "kimi", "--proxy-mcp"])
        .env("SPILL_DIR", "/the/root")
        .run();
    again.status(0);
    assert_eq!(read(&config), routed);
    init(&sb, "kimi", true).status(0);
    assert_eq!(read(&config), KIMI_SERVERS);
    assert!(!backup(&config).exists());
    // `spill hook kimi` lets any call through, never blocking it.
    let hook = sb.run(
        &["hook", "kimi"],
        r#"{"hook_event_name":"PreToolUse","tool_name":"Shell","tool_input":{"command":"ls"}}"#,
    );
    hook.status(0);
    assert_eq!(hook.out(), "");
}

#[test]
fn proxy_mcp_is_refused_where_hooks_replace_mcp_results() {
    let sb = Sandbox::new();
    let path = target(&sb, "claude-code");
    let run = init_with(&sb, "claude-code", &["--proxy-mcp"]);
    run.status(2);
    assert!(run.stderr.contains("--proxy-mcp"), "{}", run.stderr);
    assert!(!path.exists());
}

/// Codex's config with one stdio server (`rows`, the MCP test downstream) routed by
/// `init codex --proxy-mcp`: the names its route's `env_vars` holds, and the route's command
/// line, quoted for `sh`.
fn routed_rows_server(sb: &Sandbox) -> (Vec<String>, String) {
    let path = target(sb, "codex");
    let downstream = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/mcp/downstream.py");
    std::fs::write(
        &path,
        format!(
            "[mcp_servers.rows]\ncommand = \"python3\"\nargs = [{}, \"normal\"]\n",
            serde_json::Value::from(downstream.to_str().unwrap())
        ),
    )
    .unwrap();
    init_with(sb, "codex", &["--proxy-mcp"]).status(0);
    let doc: toml_edit::DocumentMut = read(&path).parse().unwrap();
    let server = &doc["mcp_servers"]["rows"];
    let words = |key: &str| -> Vec<String> {
        server[key]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a.as_str().unwrap().to_string())
            .collect()
    };
    let mut argv = vec![server["command"].as_str().unwrap().to_string()];
    argv.extend(words("args"));
    let command = argv
        .iter()
        .map(|a| format!("'{a}'"))
        .collect::<Vec<_>>()
        .join(" ");
    (words("env_vars"), command)
}

/// The client's side of a session that calls the downstream's `text` tool for 5,000 lines.
fn text_call_rpc(sb: &Sandbox) -> PathBuf {
    let rpc = [
        r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"text","arguments":{"n":5000}}}"#,
    ];
    sb.file("rpc", rpc.join("\n") + "\n")
}

/// The ref of the envelope the proxy answered the `text` call (id 1) with.
fn envelope_ref(out: &Run) -> String {
    let answer = out
        .out()
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .find(|v| v["id"] == 1)
        .unwrap();
    let envelope: serde_json::Value =
        serde_json::from_str(answer["result"]["content"][0]["text"].as_str().unwrap()).unwrap();
    envelope["ref"].as_str().unwrap().to_string()
}

/// The server `init --proxy-mcp` routed, started by a harness process, stores a large result in
/// the conversation the harness's hook bound, so the envelope's shell commands (which run in
/// that scope) read it; another conversation's does not see it.
#[test]
fn a_routed_server_stores_in_the_conversation_its_hooks_bound() {
    let sb = Sandbox::new();
    let (_, command) = routed_rows_server(&sb);
    let rpc_file = text_call_rpc(&sb);
    // Each `timeout` is a harness process; its hook call and the server are its descendants.
    let conversation = |session: &str| -> String {
        let event = serde_json::json!({"session_id": session, "turn_id": "t", "cwd": "/",
            "hook_event_name": "PreToolUse", "tool_name": "Bash",
            "tool_input": {"command": "true"}, "tool_use_id": "c"});
        let event = sb.file(&format!("event-{session}"), event.to_string());
        let out = sb.shell(&format!(
            "timeout 60 sh -c 'spill hook codex < {} > /dev/null && {command} < {}'",
            event.display(),
            rpc_file.display()
        ));
        out.status(0);
        envelope_ref(&out)
    };
    let reference = conversation("conversation-one");
    let read_in = |session: &str| {
        sb.cmd(&["search", &reference, "-F", "MARKER"])
            .env("SPILL_SCOPE", format!("codex-{session}"))
            .run()
    };
    let found = read_in("conversation-one");
    found.status(0);
    assert!(found.out().contains("MARKER"), "{}", found.out());
    let other = read_in("conversation-two");
    other.status(2);
    assert!(other.stderr.contains("unknown ref"), "{}", other.stderr);
}

#[test]
fn a_routed_server_started_with_codexs_environment_uses_the_hooks_spill_dir() {
    // Codex gives a stdio MCP server a few variables of its own (HOME, PATH, TMPDIR, …) and
    // those its entry's env_vars names, while its hooks get its whole environment.
    let sb = Sandbox::new();
    let (env_vars, command) = routed_rows_server(&sb);
    let store = sb.path().join("store");
    let rpc_file = text_call_rpc(&sb);
    // The conversation's hook call with SPILL_DIR set, then the server as Codex starts it:
    // from `names`, only those the user's environment has (here SPILL_DIR).
    let conversation = |session: &str, names: &[String]| -> String {
        let event = serde_json::json!({"session_id": session, "turn_id": "t", "cwd": "/",
            "hook_event_name": "PreToolUse", "tool_name": "Bash",
            "tool_input": {"command": "true"}, "tool_use_id": "c"});
        let event = sb.file(&format!("event-{session}"), event.to_string());
        let passed: String = names
            .iter()
            .filter(|n| *n == "SPILL_DIR")
            .map(|n| format!(" {n}={}", store.display()))
            .collect();
        let out = sb.shell(&format!(
            "SPILL_DIR={} timeout 60 sh -c 'spill hook codex < {} > /dev/null && \
             env -i HOME=\"$HOME\" PATH=\"$PATH\" TMPDIR=\"$TMPDIR\"{passed} {command} < {}'",
            store.display(),
            event.display(),
            rpc_file.display()
        ));
        out.status(0);
        envelope_ref(&out)
    };
    let read_in = |reference: &str, session: &str| {
        sb.cmd(&["search", reference, "-F", "MARKER"])
            .env("SPILL_DIR", &store)
            .env("SPILL_SCOPE", format!("codex-{session}"))
            .run()
    };
    // The names init wrote: the shell of the same conversation reads the proxy's ref.
    let reference = conversation("with-names", &env_vars);
    let found = read_in(&reference, "with-names");
    found.status(0);
    assert!(found.out().contains("MARKER"), "{}", found.out());
    read_in(&reference, "another").status(2);
    // Without them the proxy stores under the default root: the shell's store has no such ref.
    let reference = conversation("without-names", &[]);
    let lost = read_in(&reference, "without-names");
    lost.status(2);
    assert!(lost.stderr.contains("unknown ref"), "{}", lost.stderr);
}

/// A harness binary as npm installs it, at `version`: a PATH directory holding its link.
fn npm_harness(sb: &Sandbox, package: &str, version: &str, binary: &str) -> PathBuf {
    let dir = sb
        .path()
        .join(format!("npm-{binary}/node_modules/{package}"));
    std::fs::create_dir_all(dir.join("bin")).unwrap();
    std::fs::write(
        dir.join("package.json"),
        format!(r#"{{"name": "{package}", "version": "{version}"}}"#),
    )
    .unwrap();
    std::fs::write(dir.join("bin/run"), "#!/bin/sh\nexit 99\n").unwrap();
    let bin = sb.path().join(format!("npm-{binary}/bin"));
    std::fs::create_dir_all(&bin).unwrap();
    std::os::unix::fs::symlink(dir.join("bin/run"), bin.join(binary)).unwrap();
    bin
}

#[test]
fn init_and_doctor_say_when_the_harness_is_older_than_spill_can_hook() {
    for (harness, package, binary, old, first) in [
        ("codex", "@openai/codex", "codex", "0.130.0", "0.131.0"),
        ("gemini", "@google/gemini-cli", "gemini", "0.35.3", "0.36.0"),
    ] {
        for (version, told) in [(old, true), (first, false)] {
            let sb = Sandbox::new();
            let bin = npm_harness(&sb, package, version, binary);
            let path = format!("{}:/usr/bin:/bin", bin.display());
            let run = sb.cmd(&["init", harness]).env("PATH", &path).run();
            run.status(0);
            assert_eq!(
                run.stderr.contains(&format!(
                    "update {} to {first} or later",
                    if harness == "codex" {
                        "Codex"
                    } else {
                        "Gemini CLI"
                    }
                )),
                told,
                "{harness} {version}: {}",
                run.stderr
            );
            // The hooks are installed all the same, for when it is updated.
            assert!(read(&target(&sb, harness)).contains(&format!(" hook {harness}")));
            let doctor = sb.cmd(&["doctor"]).env("PATH", &path).run();
            let out = doctor.out();
            assert!(out.contains(&format!("({package} {version})")), "{out}");
            assert_eq!(out.contains("wraps:     no: "), told, "{out}");
            assert_eq!(!told, out.contains("wraps:     yes"), "{out}");
        }
    }
}

#[test]
fn a_broken_mcp_config_stops_proxy_mcp_before_anything_is_written_and_never_uninstall() {
    let sb = Sandbox::new();
    let plugin = target(&sb, "opencode");
    let config = plugin
        .parent()
        .unwrap()
        .parent()
        .unwrap()
        .join("opencode.json");
    let broken = "{\"mcp\": {\"x\": ";
    std::fs::write(&config, broken).unwrap();
    let run = init_with(&sb, "opencode", &["--proxy-mcp"]);
    run.status(2);
    assert!(run.stderr.contains("opencode.json"), "{}", run.stderr);
    // Neither file was written: the plugin waits until both edits can be made.
    assert!(!plugin.exists());
    assert_eq!(read(&config), broken);
    // Without the option the plugin goes in and out, whatever opencode.json holds.
    init(&sb, "opencode", false).status(0);
    assert!(plugin.exists());
    init(&sb, "opencode", true).status(0);
    assert!(!plugin.exists());
    assert_eq!(read(&config), broken);
}
