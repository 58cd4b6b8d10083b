//! `spill hook` and `spill init` through the binary: the answer Claude Code gets, the rewritten
//! command run by a real shell, the conversation cleanup, and the settings merge.

use crate::common::{Run, Sandbox};

const SESSION: &str = "9c248b37-6480-4724-8b4a-4b4f84959f63";

fn pre_tool_use(session: &str, command: &str) -> String {
    serde_json::json!({
        "session_id": session, "prompt_id": "p-1", "cwd": "/nonexistent",
        "permission_mode": "default", "hook_event_name": "PreToolUse", "tool_name": "Bash",
        "tool_input": {"command": command, "description": "test", "timeout": 60000},
        "tool_use_id": "toolu_1"
    })
    .to_string()
}

/// `spill hook claude-code` as Claude Code runs it: headless, its pid known, settings that
/// allow Bash (plus `extra` permissions) in HOME.
fn hook(sb: &Sandbox, input: &str, permissions: &str) -> crate::common::Run {
    let dir = sb.path().join(".claude");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("settings.json"),
        format!(r#"{{"permissions": {permissions}}}"#),
    )
    .unwrap();
    sb.cmd(&["hook", "claude-code"])
        .env("CLAUDE_PID", std::process::id().to_string())
        .env("CLAUDE_CODE_ENTRYPOINT", "sdk-cli")
        .stdin(input)
        .run()
}

/// The rewritten command of a hook answer.
fn rewritten(run: &crate::common::Run) -> String {
    let v = run.json();
    assert_eq!(
        v["hookSpecificOutput"]["permissionDecision"], "allow",
        "{v}"
    );
    assert_eq!(
        v["hookSpecificOutput"]["updatedInput"]["description"],
        "test"
    );
    assert_eq!(v["hookSpecificOutput"]["updatedInput"]["timeout"], 60000);
    v["hookSpecificOutput"]["updatedInput"]["command"]
        .as_str()
        .unwrap()
        .to_string()
}

#[test]
fn the_rewritten_command_spills_big_output_in_the_session_scope_and_keeps_the_status() {
    let sb = Sandbox::new();
    let big = "seq 1 100000; echo 'error: boom' >&2; exit 7";
    let run = hook(&sb, &pre_tool_use(SESSION, big), r#"{"allow": ["Bash"]}"#);
    run.status(0);
    let command = rewritten(&run);
    assert!(
        command.contains(&format!(
            "export SPILL_SCOPE=claude-{SESSION} SPILL_TURN=p-1 SPILL_HARNESS=claude-code SPILL_DIR={}/spill-{}\n",
            sb.path().display(),
            unsafe { libc::getuid() }
        )),
        "{command}"
    );
    // In Claude Code's own shell the harness sees the command's status itself (and shows it
    // to the model); the envelope is the output.
    let (out, _) = harness_shell(&sb, &command, sb.path());
    out.status(7);
    let envelope = out.json();
    assert_eq!(envelope["spilled"], true);
    // Where the shell is not bash 5 the command runs under `wrap --`, whose envelope carries
    // the status too.
    let out = sb.shell(&command);
    out.status(7);
    let envelope = out.json();
    assert_eq!(envelope["spilled"], true);
    assert_eq!(envelope["exitCode"], 7);
    let reference = envelope["ref"].as_str().unwrap();
    // The same scope reads it back, from inside a compound command too; another scope does not.
    let inner = rewritten(&hook(
        &sb,
        &pre_tool_use(
            SESSION,
            &format!("true && spill search {reference} -F 'error: boom'"),
        ),
        r#"{"allow": ["Bash"]}"#,
    ));
    let found = sb.shell(&inner);
    found.status(0);
    assert!(found.out().contains("error: boom"), "{}", found.out());
    let other = rewritten(&hook(
        &sb,
        &pre_tool_use("another-session", &format!("spill cat {reference}")),
        r#"{"allow": ["Bash"]}"#,
    ));
    let refused = sb.shell(&other);
    refused.status(2);
    // A `spill …` command is not wrapped: its error is on stderr, as without spill.
    assert!(refused.stderr.contains("unknown ref"), "{}", refused.stderr);
}

#[test]
fn a_full_page_of_spill_cat_reaches_the_model_instead_of_being_stored_again() {
    let sb = Sandbox::new();
    let scope = format!("claude-{SESSION}");
    // Long lines: the first page is cat's whole 16 KiB, which `wrap` would store again.
    let pad = "x".repeat(100);
    let lines: String = (1..=20_000)
        .map(|i| format!("line {i} of a long log {pad}\n"))
        .collect();
    let stored = sb.run(&["wrap", "--scope", &scope], lines).json();
    let reference = stored["ref"].as_str().unwrap();
    let read = format!("spill cat {reference}");
    let command = rewritten(&hook(
        &sb,
        &pre_tool_use(SESSION, &read),
        r#"{"allow": ["Bash"]}"#,
    ));
    let page = sb.shell(&command);
    page.status(0);
    assert!(
        page.out().starts_with("line 1 of a long log x"),
        "{}",
        page.out()
    );
    assert!(!page.out().contains("\"spilled\""), "{}", page.out());
    assert!(page.stderr.contains("next: --lines"), "{}", page.stderr);
}

#[test]
fn a_small_output_and_an_awkward_command_run_unchanged() {
    let sb = Sandbox::new();
    let awkward =
        "printf '%s\\n' \"a \\\"b\\\" 'c'\" \"$(echo sub)\" 'é ✓'\necho 'line two'; exit 3";
    let plain = sb.shell(awkward);
    let command = rewritten(&hook(
        &sb,
        &pre_tool_use(SESSION, awkward),
        r#"{"allow": ["Bash"]}"#,
    ));
    let wrapped = sb.shell(&command);
    assert_eq!(wrapped.code, plain.code);
    assert_eq!(wrapped.code, Some(3));
    assert_eq!(wrapped.stdout, plain.stdout);
    assert_eq!(wrapped.out(), "a \"b\" 'c'\nsub\né ✓\nline two\n");
}

#[test]
fn a_deny_rule_or_a_missing_session_lets_the_call_through_unchanged() {
    let sb = Sandbox::new();
    let run = hook(
        &sb,
        &pre_tool_use(SESSION, "rm -rf build"),
        r#"{"allow": ["Bash"], "deny": ["Bash(rm:*)"]}"#,
    );
    run.status(0);
    assert_eq!(run.out(), "");
    assert!(run.stderr.contains("Bash(rm:*)"), "{}", run.stderr);
    for session in ["", "   "] {
        let run = hook(&sb, &pre_tool_use(session, "ls"), r#"{"allow": ["Bash"]}"#);
        run.status(0);
        assert_eq!(run.out(), "");
        assert!(run.stderr.contains("no session_id"), "{}", run.stderr);
    }
    // Without CLAUDE_PID (Claude Code 2.1.197 and older set none) the process that ran the hook
    // is Claude Code: its command line gives the rules, here none, so the settings' allow rule
    // holds.
    let found = sb
        .cmd(&["hook", "claude-code"])
        .env("CLAUDE_CODE_ENTRYPOINT", "sdk-cli")
        .stdin(pre_tool_use(SESSION, "ls"))
        .run();
    found.status(0);
    assert!(found.out().contains("updatedInput"), "{}", found.stderr);
    // Rules spill cannot read: through, unchanged, and the user is told once per conversation,
    // where Claude Code shows hook messages.
    std::fs::write(sb.path().join(".claude/settings.json"), "{broken").unwrap();
    for (session, told) in [(SESSION, true), (SESSION, false), ("another", true)] {
        let run = sb
            .cmd(&["hook", "claude-code"])
            .env("CLAUDE_PID", std::process::id().to_string())
            .stdin(pre_tool_use(session, "ls"))
            .run();
        run.status(0);
        assert!(run.stderr.contains("cannot parse"), "{}", run.stderr);
        if told {
            let message = run.json()["systemMessage"].as_str().unwrap().to_string();
            assert!(message.contains("run without spill"), "{message}");
            assert!(!run.out().contains("updatedInput"));
        } else {
            assert_eq!(run.out(), "");
        }
    }
}

#[test]
fn hook_input_spill_cannot_parse_lets_the_call_through_with_a_warning() {
    let sb = Sandbox::new();
    // Exit 2 is "block this call" to Claude Code and Gemini CLI: never that for bad input.
    for harness in [
        "claude-code",
        "codex",
        "gemini",
        "opencode",
        "pi",
        "qwen-code",
        "copilot",
    ] {
        for input in ["{not json", "", "\u{feff}\u{0}"] {
            let run = sb.run(&["hook", harness], input);
            run.status(0);
            assert_eq!(run.out(), "", "{harness} {input:?}");
            assert!(
                run.stderr.contains("warning") && run.stderr.contains("unchanged"),
                "{harness}: {}",
                run.stderr
            );
        }
    }
}

#[test]
fn session_end_removes_that_conversation_only() {
    let sb = Sandbox::new();
    let scope = format!("claude-{SESSION}");
    let big = "x".repeat(100_000);
    let mine = sb.run(&["wrap", "--scope", &scope], big.clone()).json();
    let default = sb.run(&["wrap"], big.clone() + "y").json();
    let end =
        format!(r#"{{"session_id":"{SESSION}","hook_event_name":"SessionEnd","reason":"exit"}}"#);
    sb.run(&["hook", "claude-code"], end).status(0);
    let gone = sb.run(
        &["cat", "--scope", &scope, mine["ref"].as_str().unwrap()],
        "",
    );
    gone.status(2);
    assert!(gone.stderr.contains("removed"), "{}", gone.stderr);
    sb.run(&["cat", default["ref"].as_str().unwrap()], "")
        .status(0);
    // No session id: nothing is removed, not even the default scope.
    sb.run(
        &["hook", "claude-code"],
        r#"{"hook_event_name":"SessionEnd"}"#,
    )
    .status(0);
    sb.run(&["cat", default["ref"].as_str().unwrap()], "")
        .status(0);
}

#[test]
fn session_end_stops_that_conversations_running_commands_and_removes_them() {
    let sb = Sandbox::new();
    let scope = format!("claude-{SESSION}");
    let detach =
        |scope: &str| crate::live::detach_in(&sb, scope, "echo started; exec sleep 10000042");
    let mine = detach(&scope);
    let other = detach("another-conversation");
    let sleeping = || {
        std::fs::read_dir("/proc")
            .unwrap()
            .flatten()
            .filter(|e| {
                std::fs::read(e.path().join("cmdline"))
                    .is_ok_and(|c| c.split(|&b| b == 0).any(|w| w == b"10000042"))
            })
            .count()
    };
    assert_eq!(sleeping(), 2);
    let end =
        format!(r#"{{"session_id":"{SESSION}","hook_event_name":"SessionEnd","reason":"exit"}}"#);
    let ended = sb.run(&["hook", "claude-code"], end);
    ended.status(0);
    assert!(
        ended.stderr.contains(&format!("stopped {mine}")),
        "{}",
        ended.stderr
    );
    // The conversation's command is gone (stop waits for its end), the other one runs on.
    assert_eq!(sleeping(), 1);
    let gone = sb.cmd(&["ls", "--json"]).env("SPILL_SCOPE", &scope).run();
    gone.status(0);
    assert_eq!(
        gone.json()["entries"],
        serde_json::json!([]),
        "{}",
        gone.out()
    );
    let still = sb
        .cmd(&["stop", &other])
        .env("SPILL_SCOPE", "another-conversation")
        .run();
    still.status(0);
    assert_eq!(sleeping(), 0);
}

#[test]
fn init_merges_is_idempotent_and_uninstall_restores_the_file() {
    let sb = Sandbox::new();
    let settings = sb.path().join(".claude/settings.json");
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    let original = "{\n  \"theme\": \"dark\",\n  \"permissions\": {\n    \"allow\": [\"Bash\"]\n  },\n  \"zeta\": true\n}\n";
    std::fs::write(&settings, original).unwrap();
    let dry = sb.run(&["init", "claude-code", "--dry-run"], "");
    dry.status(0);
    assert!(
        dry.out().contains("+        \"matcher\": \"Bash\""),
        "{}",
        dry.out()
    );
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), original);
    sb.run(&["init", "claude-code"], "").status(0);
    let once = std::fs::read_to_string(&settings).unwrap();
    let v: serde_json::Value = serde_json::from_str(&once).unwrap();
    let keys: Vec<&String> = v.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["theme", "permissions", "zeta", "hooks", "sandbox"]);
    let root = sb
        .path()
        .join(format!("spill-{}", unsafe { libc::getuid() }));
    assert_eq!(
        v["sandbox"],
        serde_json::json!({"filesystem": {"allowWrite": [root.to_str().unwrap()]}})
    );
    let command = v["hooks"]["PreToolUse"][0]["hooks"][0]["command"]
        .as_str()
        .unwrap();
    assert!(command.ends_with("spill hook claude-code"), "{command}");
    assert_eq!(v["hooks"]["SessionEnd"][0]["hooks"][0]["command"], command);
    let backup = sb.path().join(".claude/settings.json.spill-backup");
    assert_eq!(std::fs::read_to_string(&backup).unwrap(), original);
    let again = sb.run(&["init", "claude-code"], "");
    again.status(0);
    assert!(again.out().contains("nothing changed"));
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), once);
    sb.run(&["init", "claude-code", "--uninstall"], "")
        .status(0);
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), original);
    assert!(!backup.exists());
    // A file init created, uninstall removes.
    let project = sb.path().join("proj");
    std::fs::create_dir(&project).unwrap();
    let mut cmd = sb.cmd(&["init", "claude-code", "--project"]).into_command();
    assert!(cmd.current_dir(&project).status().unwrap().success());
    assert!(project.join(".claude/settings.json").exists());
    let mut cmd = sb
        .cmd(&["init", "claude-code", "--project", "--uninstall"])
        .into_command();
    assert!(cmd.current_dir(&project).status().unwrap().success());
    assert!(!project.join(".claude/settings.json").exists());
}

#[test]
fn init_refuses_a_broken_settings_file_and_leaves_it_alone() {
    let sb = Sandbox::new();
    let settings = sb.path().join(".claude/settings.json");
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    std::fs::write(&settings, "{\"theme\": ").unwrap();
    let run = sb.run(&["init", "claude-code"], "");
    run.status(2);
    assert!(
        run.stderr.contains("not valid JSON") && run.stderr.contains("nothing changed"),
        "{}",
        run.stderr
    );
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), "{\"theme\": ");
    assert!(
        !sb.path()
            .join(".claude/settings.json.spill-backup")
            .exists()
    );
}

#[test]
fn a_large_mcp_result_becomes_the_envelope_and_a_small_one_is_left_alone() {
    let sb = Sandbox::new();
    let post = |text: &str| {
        serde_json::json!({
            "session_id": SESSION, "hook_event_name": "PostToolUse", "tool_name": "mcp__fake__big",
            "transcript_path": sb.path().join("t.jsonl"), "tool_input": {},
            "tool_response": [{"type": "text", "text": text}]
        })
        .to_string()
    };
    let big = "row of an MCP result\n".repeat(5000);
    let run = sb.run(&["hook", "claude-code"], post(&big));
    run.status(0);
    let reply = run.json();
    let blocks = &reply["hookSpecificOutput"]["updatedMCPToolOutput"];
    assert_eq!(blocks[0]["type"], "text");
    let envelope: serde_json::Value =
        serde_json::from_str(blocks[0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(envelope["sizeBytes"], big.len());
    assert_eq!(envelope["label"], "mcp__fake__big");
    // The ref is the hash of the stored bytes: the whole result was stored, in the scope.
    let hash = blake3::hash(big.as_bytes()).to_hex();
    assert_eq!(envelope["ref"], format!("sp_{}", &hash[..16]));
    let scope = format!("claude-{SESSION}");
    let count = sb.run(
        &[
            "search",
            "--scope",
            &scope,
            envelope["ref"].as_str().unwrap(),
            "-F",
            "MCP",
            "--count",
        ],
        "",
    );
    count.status(0);
    assert_eq!(count.out().trim(), "5000");
    let small = sb.run(&["hook", "claude-code"], post("small result"));
    small.status(0);
    assert_eq!(small.out(), "");
    // The result counts in the conversation's tally: what the tool returned, the envelope the
    // model got instead, and the search that read it.
    let stats = sb.run(&["--scope", &scope, "stats", "--json"], "");
    stats.status(0);
    let tally = &stats.json()["scopes"][0];
    assert_eq!(tally["outputs"], 1, "{tally}");
    assert_eq!(tally["printedBytes"], big.len(), "{tally}");
    assert_eq!(
        tally["sentBytes"],
        blocks[0]["text"].as_str().unwrap().len(),
        "{tally}"
    );
    assert_eq!(tally["reads"], 1, "{tally}");
}

const CODEX_SESSION: &str = "01a2315c-8f68-79e3-bc22-bbb7cfe0a188";

/// A Codex `PreToolUse` call for its shell tool, as codex-cli 0.171.0 sends it.
fn codex_pre_tool_use(session: &str, command: &str) -> String {
    serde_json::json!({
        "session_id": session, "turn_id": "turn-1", "transcript_path": null,
        "cwd": "/nonexistent", "hook_event_name": "PreToolUse", "model": "gpt-5",
        "permission_mode": "default", "tool_name": "Bash",
        "tool_input": {"command": command}, "tool_use_id": "call_1"
    })
    .to_string()
}

/// The rewritten command of a Codex hook answer (which must carry `allow`: Codex applies
/// `updatedInput` only with it).
fn codex_rewritten(run: &crate::common::Run) -> String {
    let v = run.json();
    assert_eq!(
        v["hookSpecificOutput"]["permissionDecision"], "allow",
        "{v}"
    );
    v["hookSpecificOutput"]["updatedInput"]["command"]
        .as_str()
        .unwrap()
        .to_string()
}

#[test]
fn codex_shell_calls_run_under_wrap_in_the_session_scope_and_keep_the_status() {
    let sb = Sandbox::new();
    let run = sb.run(
        &["hook", "codex"],
        codex_pre_tool_use(
            CODEX_SESSION,
            "seq 1 100000; echo 'error: boom' >&2; exit 7",
        ),
    );
    run.status(0);
    let command = codex_rewritten(&run);
    assert!(
        command.contains(&format!(
            "SPILL_SCOPE=codex-{CODEX_SESSION} SPILL_TURN=turn-1 SPILL_HARNESS=codex SPILL_ALLOW_RUN=1 "
        )),
        "{command}"
    );
    // Codex runs it in a login shell whose profile resets PATH: spill is still found.
    let out = sb.shell(&format!("PATH=/usr/bin:/bin; {command}"));
    out.status(7);
    let envelope = out.json();
    assert_eq!(envelope["spilled"], true);
    let reference = envelope["ref"].as_str().unwrap();
    let read = codex_rewritten(&sb.run(
        &["hook", "codex"],
        codex_pre_tool_use(CODEX_SESSION, &format!("spill search {reference} -F boom")),
    ));
    let found = sb.shell(&format!("PATH=/usr/bin:/bin; {read}"));
    found.status(0);
    assert!(found.out().contains("error: boom"), "{}", found.out());
    let other = codex_rewritten(&sb.run(
        &["hook", "codex"],
        codex_pre_tool_use("another", &format!("spill cat {reference}")),
    ));
    let refused = sb.shell(&other);
    refused.status(2);
    assert!(refused.stderr.contains("unknown ref"), "{}", refused.stderr);
    // A small output and an awkward command come out as without spill.
    let awkward = "printf '%s\\n' \"a \\\"b\\\" 'c'\" \"$(echo sub)\" 'é ✓'\necho two; exit 3";
    let plain = sb.shell(awkward);
    let wrapped = sb.shell(&codex_rewritten(&sb.run(
        &["hook", "codex"],
        codex_pre_tool_use(CODEX_SESSION, awkward),
    )));
    assert_eq!((wrapped.code, &wrapped.stdout), (plain.code, &plain.stdout));
    assert_eq!(wrapped.code, Some(3));
}

/// The one line spill adds after an output it could not store, and everything before it.
fn split_unstored_line(stdout: &[u8]) -> (&[u8], String) {
    let body = stdout
        .strip_suffix(b"\n")
        .expect("the line ends the output");
    let at = body.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    (
        &stdout[..at],
        String::from_utf8_lossy(&body[at..]).into_owned(),
    )
}

#[test]
fn codex_output_that_cannot_be_stored_passes_through_unchanged_with_one_line_naming_the_sandbox() {
    let sb = Sandbox::new();
    // Codex's read-only sandbox: the store cannot be created. Root ignores permission bits, so
    // the root is a path below a regular file, which nobody can create.
    let blocker = sb.file("not-a-directory", b"");
    let root = blocker.join("store");
    let step = "seq 1 100000; echo 'error: boom' >&2; exit 7";
    let command =
        codex_rewritten(&sb.run(&["hook", "codex"], codex_pre_tool_use(CODEX_SESSION, step)));
    let plain = sb.shell(&format!("{{ {step}; }} 2>&1"));
    plain.status(7);
    let run = sb.shell(&format!(
        "SPILL_DIR={}; export SPILL_DIR; {command}",
        root.display()
    ));
    run.status(7);
    let (before, line) = split_unstored_line(&run.stdout);
    // Every byte the command printed, as it printed them: Codex cuts it as without spill.
    assert_eq!(before, &plain.stdout[..], "the output changed");
    let size = plain.stdout.len().to_string();
    let grouped: Vec<&str> = size
        .as_bytes()
        .rchunks(3)
        .rev()
        .map(|c| std::str::from_utf8(c).unwrap())
        .collect();
    assert_eq!(
        line,
        format!(
            "[spill: {} bytes not stored (not a directory), shown as printed; to store: run Codex with -s \
             workspace-write, or set sandbox_mode = \"workspace-write\" in ~/.codex/config.toml]",
            grouped.join(",")
        )
    );
    assert!(!run.stderr.contains("preview only"), "{}", run.stderr);
    assert!(!root.exists());
    // Output that ends without a newline still gets the line on a line of its own.
    let command = codex_rewritten(&sb.run(
        &["hook", "codex"],
        codex_pre_tool_use(CODEX_SESSION, "head -c 40000 /dev/zero | tr '\\0' x"),
    ));
    let run = sb.shell(&format!(
        "SPILL_DIR={}; export SPILL_DIR; {command}",
        root.display()
    ));
    run.status(0);
    let (before, line) = split_unstored_line(&run.stdout);
    assert_eq!(before.len(), 40_001, "{line}");
    assert!(before[..40_000].iter().all(|&b| b == b'x') && before[40_000] == b'\n');
    assert!(
        line.starts_with("[spill: 40,000 bytes not stored ("),
        "{line}"
    );
    // A small output is unchanged, with no line.
    let command = codex_rewritten(&sb.run(
        &["hook", "codex"],
        codex_pre_tool_use(CODEX_SESSION, "echo small"),
    ));
    let run = sb.shell(&format!(
        "SPILL_DIR={}; export SPILL_DIR; {command}",
        root.display()
    ));
    assert_eq!(run.out(), "small\n");
}

#[test]
fn doctor_reports_gemini_clis_sandbox_and_that_spill_does_not_act_in_its_container() {
    let sb = Sandbox::new();
    let settings = sb.path().join(".gemini/settings.json");
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    std::fs::write(
        &settings,
        "{\n  // mine\n  \"tools\": {\"sandbox\": \"docker\"}\n}\n",
    )
    .unwrap();
    let out = sb.cmd(&["doctor"]).run().out();
    assert!(out.contains("gemini:\n"), "{out}");
    assert!(
        out.contains("  sandbox:   docker (from tools.sandbox in "),
        "{out}"
    );
    assert!(
        out.contains("  stores:    no: Gemini CLI runs itself in a container")
            && out.contains("  to do:     leave Gemini CLI's sandbox off"),
        "{out}"
    );
    // GEMINI_SANDBOX comes first.
    let out = sb
        .cmd(&["doctor"])
        .env("GEMINI_SANDBOX", "false")
        .run()
        .out();
    assert!(
        out.contains("  sandbox:   off (from GEMINI_SANDBOX)")
            && out.contains("  stores:    yes: no sandbox"),
        "{out}"
    );
}

#[test]
fn doctor_reports_codexs_sandbox_mode_and_whether_spill_can_store_under_it() {
    let sb = Sandbox::new();
    let config = sb.path().join(".codex/config.toml");
    std::fs::create_dir_all(config.parent().unwrap()).unwrap();
    let doctor = || {
        let run = sb.cmd(&["doctor"]).run();
        run.status(0);
        run.out()
    };
    std::fs::write(&config, "model = \"m\"\n").unwrap();
    let out = doctor();
    assert!(out.contains("codex:\n"), "{out}");
    assert!(
        out.contains("  to do:     spill init codex --mcp (registers `spill mcp`, which follows the conversation, with env_vars naming spill's variables (README), to read refs through MCP tools)\n"),
        "{out}"
    );
    assert!(
        out.contains("  sandbox:   read-only (no sandbox_mode in "),
        "{out}"
    );
    assert!(
        out.contains("  stores:    no: commands may write nothing"),
        "{out}"
    );
    assert!(
        out.contains("  to do:     run Codex with -s workspace-write, or set sandbox_mode = \"workspace-write\" in ~/.codex/config.toml (to let spill store)"),
        "{out}"
    );
    // workspace-write: the default root is under TMPDIR, which Codex lets commands write.
    std::fs::write(&config, "sandbox_mode = \"workspace-write\"\n").unwrap();
    let out = doctor();
    assert!(out.contains("  sandbox:   workspace-write (from "), "{out}");
    assert!(out.contains("  stores:    yes: the store root "), "{out}");
    assert!(
        !out.contains("sandbox_mode = \"workspace-write\" in"),
        "{out}"
    );
    // ... unless /tmp and TMPDIR are excluded: then the writable root to add.
    std::fs::write(
        &config,
        "sandbox_mode = \"workspace-write\"\n[sandbox_workspace_write]\nexclude_tmpdir_env_var = true\nexclude_slash_tmp = true\n",
    )
    .unwrap();
    let run = sb
        .cmd(&["doctor"])
        .env("SPILL_DIR", sb.path().join("store"))
        .run();
    let out = run.out();
    assert!(out.contains("  stores:    no: the store root "), "{out}");
    assert!(
        out.contains("  to do:     add \"")
            && out.contains("to writable_roots under [sandbox_workspace_write]"),
        "{out}"
    );
}

#[test]
fn doctor_says_when_codex_would_not_pass_spill_dir_to_spills_mcp_servers() {
    let sb = Sandbox::new();
    let config = sb.path().join(".codex/config.toml");
    std::fs::create_dir_all(config.parent().unwrap()).unwrap();
    let doctor = |dir: bool| {
        let mut cmd = sb.cmd(&["doctor"]);
        if dir {
            cmd = cmd.env("SPILL_DIR", sb.path().join("store"));
        }
        let run = cmd.run();
        run.status(0);
        run.out()
    };
    let entries = "[mcp_servers.spill]\ncommand = \"spill\"\nargs = [\"mcp\"]\n\n\
                   [mcp_servers.files]\ncommand = \"/x/spill\"\nargs = [\"mcp\", \"proxy\", \"--\", \"npx\"]\n\n\
                   [mcp_servers.other]\ncommand = \"npx\"\n";
    std::fs::write(&config, entries).unwrap();
    let out = doctor(true);
    assert!(
        out.contains("  env:       SPILL_DIR set here but not passed to MCP server \"spill\" (its entry's env_vars does not name it): it uses another store than the hooks\n"),
        "{out}"
    );
    assert!(
        out.contains(&format!(
            "  to do:     pass SPILL_DIR to MCP server \"spill\" in {}: env_vars = [\"SPILL_DIR\"]\n",
            config.display()
        )),
        "{out}"
    );
    assert!(
        out.contains("  to do:     pass SPILL_DIR to MCP server \"files\" in ")
            && out.contains("(`spill init codex --proxy-mcp` adds spill's to the routes it wrote)"),
        "{out}"
    );
    // Another server is no concern of spill's; nor is any of them when SPILL_DIR is not set.
    assert!(!out.contains("MCP server \"other\""), "{out}");
    assert!(!doctor(false).contains("  env:  "));
    // Named in env_vars (or set in env), it is passed.
    std::fs::write(
        &config,
        entries
            .replace(
                "args = [\"mcp\"]\n",
                "args = [\"mcp\"]\nenv_vars = [\"SPILL_DIR\"]\n",
            )
            .replace(
                "\"npx\"]\n",
                "\"npx\"]\n[mcp_servers.files.env]\nSPILL_DIR = \"/s\"\n",
            ),
    )
    .unwrap();
    let out = doctor(true);
    assert!(
        !out.contains("  env:  ") && !out.contains("pass SPILL_DIR"),
        "{out}"
    );
}

#[test]
fn a_command_whose_rewrite_would_not_fit_in_one_argument_runs_unwrapped() {
    let sb = Sandbox::new();
    // 91 KB of quoted words: one argument as it is, so the harness's `bash -c CMD` runs it; quoted
    // once more for `wrap -- bash -c` (each ' becomes '\'') it would pass 128 KiB and fail to
    // start with "Argument list too long".
    let command = format!(": {}; echo ran", "'xxxxxxxxxx' ".repeat(7_000));
    let plain = std::process::Command::new("bash")
        .args(["-c", &command])
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&plain.stdout), "ran\n");
    let pi_cwd = sb.path().join("project");
    std::fs::create_dir_all(&pi_cwd).unwrap();
    for (harness, call) in [
        ("codex", codex_pre_tool_use(CODEX_SESSION, &command)),
        // (Kilo Code's hook is opencode's.)
        ("opencode", opencode_call("ses_1", &command)),
        ("pi", pi_call("s1", &pi_cwd, &command)),
    ] {
        let run = sb.run(&["hook", harness], call);
        run.status(0);
        assert_eq!(run.out(), "", "{harness}: the call goes through unchanged");
        assert!(
            run.stderr.contains("bytes once wrapped, more than one argument may have (131071); it runs without spill"),
            "{harness}: {}",
            run.stderr
        );
    }
    // A third of it still fits once quoted, and is wrapped.
    let shorter = format!(": {}; echo ran", "'xxxxxxxxxx' ".repeat(2_300));
    let rewritten = codex_rewritten(&sb.run(
        &["hook", "codex"],
        codex_pre_tool_use(CODEX_SESSION, &shorter),
    ));
    assert!(rewritten.len() > shorter.len() && rewritten.len() <= 131_071);
    let out = sb.shell(&rewritten);
    out.status(0);
    assert_eq!(out.out(), "ran\n");
}

#[test]
fn codex_commands_an_exec_policy_rule_may_match_go_through_unchanged() {
    let sb = Sandbox::new();
    let rules = sb.path().join(".codex/rules");
    std::fs::create_dir_all(&rules).unwrap();
    std::fs::write(
        rules.join("default.rules"),
        "prefix_rule(pattern = [\"git\", [\"push\", \"fetch\"]], decision = \"forbidden\")\n\
         prefix_rule(pattern = [\"ls\"], decision = \"allow\")\n",
    )
    .unwrap();
    let run = sb.run(
        &["hook", "codex"],
        codex_pre_tool_use(CODEX_SESSION, "cd x && git  push origin"),
    );
    run.status(0);
    assert_eq!(run.out(), "");
    assert!(run.stderr.contains("\"git push\""), "{}", run.stderr);
    codex_rewritten(&sb.run(&["hook", "codex"], codex_pre_tool_use(CODEX_SESSION, "ls")));
    // A rules file spill cannot read: nothing is wrapped.
    std::fs::write(rules.join("odd.rules"), "prefix_rule(pattern = PATTERNS)\n").unwrap();
    let run = sb.run(&["hook", "codex"], codex_pre_tool_use(CODEX_SESSION, "ls"));
    run.status(0);
    assert_eq!(run.out(), "");
    assert!(run.stderr.contains("odd.rules"), "{}", run.stderr);
    // No session id: through, and says so.
    let run = sb.run(&["hook", "codex"], codex_pre_tool_use("", "ls"));
    assert_eq!(run.out(), "");
    assert!(run.stderr.contains("no session_id"), "{}", run.stderr);
}

#[test]
fn codex_init_appends_a_trusted_hook_is_idempotent_and_uninstall_restores_the_file() {
    let sb = Sandbox::new();
    let config = sb.path().join(".codex/config.toml");
    std::fs::create_dir_all(config.parent().unwrap()).unwrap();
    let original = "# mine\nmodel = \"o3\"  # keep this comment\n\n[[hooks.PreToolUse]]\nmatcher = \"apply_patch\"\n[[hooks.PreToolUse.hooks]]\ntype = \"command\"\ncommand = \"lint\"\n";
    std::fs::write(&config, original).unwrap();
    let dry = sb.run(&["init", "codex", "--dry-run"], "");
    dry.status(0);
    assert!(dry.out().contains("+[[hooks.PreToolUse]]"), "{}", dry.out());
    assert_eq!(std::fs::read_to_string(&config).unwrap(), original);
    sb.run(&["init", "codex"], "").status(0);
    let once = std::fs::read_to_string(&config).unwrap();
    assert!(once.starts_with(original), "{once}");
    // The trust key names this file and the hook's position after the user's own group.
    let key = format!("[hooks.state.\"{}:pre_tool_use:1:0\"]", config.display());
    assert!(once.contains(&key), "{once}");
    assert!(once.contains("spill hook codex\"\n"), "{once}");
    let backup = sb.path().join(".codex/config.toml.spill-backup");
    assert_eq!(std::fs::read_to_string(&backup).unwrap(), original);
    let again = sb.run(&["init", "codex"], "");
    again.status(0);
    assert!(again.out().contains("nothing changed"));
    assert_eq!(std::fs::read_to_string(&config).unwrap(), once);
    sb.run(&["init", "codex", "--uninstall"], "").status(0);
    assert_eq!(std::fs::read_to_string(&config).unwrap(), original);
    assert!(!backup.exists());
    // CODEX_HOME names the directory (resolved as Codex resolves it); --project is refused.
    let home = sb.path().join("elsewhere");
    std::fs::create_dir(&home).unwrap();
    sb.cmd(&["init", "codex"])
        .env("CODEX_HOME", &home)
        .run()
        .status(0);
    assert!(home.join("config.toml").exists());
    let project = sb.run(&["init", "codex", "--project"], "");
    project.status(2);
    assert!(project.stderr.contains("--project"), "{}", project.stderr);
}

#[test]
fn codex_init_refuses_inline_hooks_and_leaves_the_file_alone() {
    let sb = Sandbox::new();
    let config = sb.path().join(".codex/config.toml");
    std::fs::create_dir_all(config.parent().unwrap()).unwrap();
    let inline = "[hooks]\nPreToolUse = [{ matcher = \"x\", hooks = [] }]\n";
    std::fs::write(&config, inline).unwrap();
    let run = sb.run(&["init", "codex"], "");
    run.status(2);
    assert!(
        run.stderr.contains("inline value") && run.stderr.contains("nothing changed"),
        "{}",
        run.stderr
    );
    assert_eq!(std::fs::read_to_string(&config).unwrap(), inline);
    assert!(!sb.path().join(".codex/config.toml.spill-backup").exists());
}

const GEMINI_SESSION: &str = "6de72b63-9500-4e37-b5e6-adb6ec6bfe7a";

fn gemini_call(event: &str, tool: &str, extra: serde_json::Value) -> String {
    let mut v = serde_json::json!({
        "session_id": GEMINI_SESSION, "transcript_path": "/nonexistent/t.jsonl",
        "cwd": "/nonexistent", "hook_event_name": event,
        "timestamp": "2026-12-01T11:52:25.042Z", "tool_name": tool
    });
    v.as_object_mut()
        .unwrap()
        .extend(extra.as_object().unwrap().clone());
    v.to_string()
}

#[test]
fn gemini_shell_calls_are_rewritten_and_other_tools_large_results_become_the_envelope() {
    let sb = Sandbox::new();
    let before = gemini_call(
        "BeforeTool",
        "run_shell_command",
        serde_json::json!({"tool_input": {"command": "seq 1 100000; exit 4", "description": "d"}}),
    );
    let run = sb.run(&["hook", "gemini"], before);
    run.status(0);
    let v = run.json();
    let input = &v["hookSpecificOutput"]["tool_input"];
    assert_eq!(input["description"], "d");
    let out = sb.shell(input["command"].as_str().unwrap());
    out.status(4);
    assert_eq!(out.json()["spilled"], true);
    // A substitution stays for Gemini CLI's own check.
    let sub = gemini_call(
        "BeforeTool",
        "run_shell_command",
        serde_json::json!({"tool_input": {"command": "echo $(id)"}}),
    );
    let run = sb.run(&["hook", "gemini"], sub);
    assert_eq!(run.out(), "");
    assert!(run.stderr.contains("substitution"), "{}", run.stderr);
    // A policy rule that may concern the shell: through, unchanged.
    let policies = sb.path().join(".gemini/policies");
    std::fs::create_dir_all(&policies).unwrap();
    std::fs::write(
        policies.join("p.toml"),
        "[[rule]]\ntoolName = \"run_shell_command\"\ncommandPrefix = \"rm\"\ndecision = \"deny\"\n",
    )
    .unwrap();
    let ls = gemini_call(
        "BeforeTool",
        "run_shell_command",
        serde_json::json!({"tool_input": {"command": "ls"}}),
    );
    let run = sb.run(&["hook", "gemini"], ls);
    assert_eq!(run.out(), "");
    assert!(run.stderr.contains("p.toml"), "{}", run.stderr);
    // AfterTool: a large read_file result is stored in the session's scope.
    let big = "a line of a large file\n".repeat(5000);
    let after = gemini_call(
        "AfterTool",
        "read_file",
        serde_json::json!({"tool_input": {"file_path": "x"}, "tool_response": {"llmContent": big}}),
    );
    let run = sb.run(&["hook", "gemini"], after);
    run.status(0);
    let reply = run.json();
    assert_eq!(reply["decision"], "block");
    let reason = reply["reason"].as_str().unwrap();
    let envelope: serde_json::Value =
        serde_json::from_str(&reason[reason.find('{').unwrap()..]).unwrap();
    assert_eq!(envelope["sizeBytes"], big.len());
    let scope = format!("gemini-{GEMINI_SESSION}");
    let reference = envelope["ref"].as_str().unwrap();
    sb.run(&["cat", "--scope", &scope, reference], "").status(0);
    assert!(
        envelope["hint"]
            .as_str()
            .unwrap()
            .starts_with("Stored in full as"),
        "{envelope}"
    );
    assert_eq!(envelope.get("complete"), None);
    // A file Gemini CLI cut to 2,000 lines before the hook saw it: the envelope says what it
    // holds, never "in full".
    let shown: String = (1..=2000)
        .map(|i| format!("line {i} of a long file\n"))
        .collect();
    let cut = format!(
        "\nIMPORTANT: The file content has been truncated.\nStatus: Showing lines 1-2000 of 18002 total lines.\nAction: To read more of the file, you can use the 'start_line' and 'end_line' parameters in a subsequent 'read_file' call. For example, to read the next section of the file, use start_line: 2001.\n\n--- FILE CONTENT (truncated) ---\n{shown}"
    );
    let run = sb.run(
        &["hook", "gemini"],
        gemini_call(
            "AfterTool",
            "read_file",
            serde_json::json!({"tool_input": {"file_path": "x"}, "tool_response": {"llmContent": cut}}),
        ),
    );
    run.status(0);
    let reason = run.json()["reason"].as_str().unwrap().to_string();
    let envelope: serde_json::Value =
        serde_json::from_str(&reason[reason.find('{').unwrap()..]).unwrap();
    let hint = envelope["hint"].as_str().unwrap();
    assert!(
        hint.starts_with("Holds only lines 1-2000 of the file's 18002: Gemini CLI cut the rest"),
        "{hint}"
    );
    assert!(!reason.contains("in full"), "{reason}");
    assert_eq!(envelope["complete"], false);
    let small = gemini_call(
        "AfterTool",
        "read_file",
        serde_json::json!({"tool_response": {"llmContent": "small"}}),
    );
    assert_eq!(sb.run(&["hook", "gemini"], small).out(), "");
    // SessionEnd drops the scope.
    sb.run(
        &["hook", "gemini"],
        gemini_call("SessionEnd", "", serde_json::json!({})),
    )
    .status(0);
    sb.run(&["cat", "--scope", &scope, reference], "").status(2);
}

/// `spill init HARNESS` on a settings file at `rel` in HOME holding `original`: the file keeps
/// its first bytes (`lead`, a comment for a JSONC file), a second run changes nothing, and
/// `--uninstall` gives `original` back byte for byte. Returns the settings `init` wrote.
fn settings_init_round_trip(
    harness: &str,
    rel: &str,
    original: &str,
    lead: &str,
) -> serde_json::Value {
    let sb = Sandbox::new();
    let settings = sb.path().join(rel);
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    std::fs::write(&settings, original).unwrap();
    sb.run(&["init", harness], "").status(0);
    let once = std::fs::read_to_string(&settings).unwrap();
    assert!(once.starts_with(lead), "{once}");
    let v: serde_json::Value = serde_json::from_str(&once[lead.len()..]).unwrap();
    let again = sb.run(&["init", harness], "");
    assert!(again.out().contains("nothing changed"));
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), once);
    sb.run(&["init", harness, "--uninstall"], "").status(0);
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), original);
    v
}

#[test]
fn gemini_init_enables_hooks_is_idempotent_and_uninstall_restores_the_file() {
    let original = "{\n  \"security\": {\n    \"auth\": {\n      \"selectedType\": \"gemini-api-key\"\n    }\n  }\n}\n";
    let v = settings_init_round_trip("gemini", ".gemini/settings.json", original, "");
    assert_eq!(v["hooksConfig"]["enabled"], true);
    assert_spill_hook(&v, "BeforeTool", Some("^run_shell_command$"), "gemini");
    assert_spill_hook(&v, "AfterTool", Some(".*"), "gemini");
    assert_spill_hook(&v, "SessionEnd", None, "gemini");
}

/// The first hook group of `event` in settings `v`: spill's command hook for `harness`, under
/// `matcher`.
fn assert_spill_hook(v: &serde_json::Value, event: &str, matcher: Option<&str>, harness: &str) {
    let group = &v["hooks"][event][0];
    assert_eq!(group["matcher"].as_str(), matcher, "{event}: {v}");
    assert_eq!(group["hooks"][0]["type"], "command", "{event}: {v}");
    let command = group["hooks"][0]["command"].as_str().unwrap();
    assert!(
        command.ends_with(&format!("spill hook {harness}")),
        "{event}: {command}"
    );
}

const QWEN_SESSION: &str = "a99e147a-88af-4cfe-9750-af39774b52df";

fn qwen_call(event: &str, tool: &str, extra: serde_json::Value) -> String {
    let mut v = serde_json::json!({
        "session_id": QWEN_SESSION, "transcript_path": "/nonexistent/t.jsonl",
        "cwd": "/nonexistent", "hook_event_name": event, "permission_mode": "yolo",
        "timestamp": "2026-12-02T01:40:00.000Z", "tool_name": tool
    });
    v.as_object_mut()
        .unwrap()
        .extend(extra.as_object().unwrap().clone());
    v.to_string()
}

/// The envelope inside a Qwen Code `PostToolUse` answer, and the answer's text before it.
fn qwen_envelope(run: &crate::common::Run) -> (serde_json::Value, String) {
    let reply = run.json();
    assert_eq!(reply["continue"], false, "{reply}");
    let reason = reply["stopReason"].as_str().unwrap().to_string();
    let at = reason.find('{').unwrap();
    (
        serde_json::from_str(&reason[at..]).unwrap(),
        reason[..at].to_string(),
    )
}

#[test]
fn qwen_code_large_results_become_the_envelope_and_its_shell_is_left_alone() {
    let sb = Sandbox::new();
    let scope = format!("qwen-{QWEN_SESSION}");
    // The shell cannot be rewritten (Qwen Code ignores updatedInput): no answer at all.
    for event in ["PreToolUse", "PostToolUse"] {
        let shell = qwen_call(
            event,
            "run_shell_command",
            serde_json::json!({"tool_input": {"command": "seq 1 100000"},
                               "tool_response": {"llmContent": "x".repeat(100_000)}}),
        );
        let run = sb.run(&["hook", "qwen-code"], shell);
        run.status(0);
        assert_eq!(run.out(), "", "{event}");
    }
    // An MCP tool's large result: stored in the conversation's scope, read with --scope.
    let big = "a line of a large result\n".repeat(5000);
    let run = sb.run(
        &["hook", "qwen-code"],
        qwen_call(
            "PostToolUse",
            "mcp__fake__big",
            serde_json::json!({"tool_input": {}, "tool_response": {"llmContent": [{"text": big}], "returnDisplay": "x"}}),
        ),
    );
    run.status(0);
    let (envelope, before) = qwen_envelope(&run);
    assert_eq!(envelope["sizeBytes"], big.len());
    assert!(
        before.contains(&format!("spill --scope {scope} cat/search REF")),
        "{before}"
    );
    let reference = envelope["ref"].as_str().unwrap().to_string();
    sb.run(&["cat", "--scope", &scope, &reference], "")
        .status(0);
    // A result Qwen Code cut: stored whole, from the file it saved in its tmp directory.
    let saved_dir = sb.path().join(".qwen/tmp/65800a23");
    std::fs::create_dir_all(&saved_dir).unwrap();
    let saved = saved_dir.join("mcp__fake__big_01061f1641b0.output");
    let whole = "row of the whole result\n".repeat(20_000);
    std::fs::write(&saved, &whole).unwrap();
    let cut = format!(
        "Tool output was too large and has been truncated.\nThe full output has been saved to: {}\nTo read the complete output, use the read_file tool with the absolute file path above.\n\nTruncated part of the output:\nrow of the whole result\n",
        saved.display()
    );
    let cut_call = |cut: &str| {
        qwen_call(
            "PostToolUse",
            "mcp__fake__big",
            serde_json::json!({"tool_response": {"llmContent": [{"text": cut}]}}),
        )
    };
    let run = sb.run(&["hook", "qwen-code"], cut_call(&cut));
    run.status(0);
    let (envelope, _) = qwen_envelope(&run);
    assert_eq!(envelope["sizeBytes"], whole.len());
    assert!(
        envelope["hint"]
            .as_str()
            .unwrap()
            .starts_with("Stored in full as"),
        "{envelope}"
    );
    // The same header naming a file outside Qwen Code's tmp directory: left as it is.
    let secret = sb.path().join("mcp__fake__big_01061f1641b1.output");
    std::fs::write(&secret, "a secret\n".repeat(5000)).unwrap();
    let run = sb.run(
        &["hook", "qwen-code"],
        cut_call(&cut.replace(&saved.display().to_string(), &secret.display().to_string())),
    );
    run.status(0);
    assert_eq!(run.out(), "");
    assert!(run.stderr.contains("as Qwen Code cut it"), "{}", run.stderr);
    // A small result is the result; SessionEnd drops the scope.
    let small = qwen_call(
        "PostToolUse",
        "read_file",
        serde_json::json!({"tool_response": {"llmContent": "small"}}),
    );
    assert_eq!(sb.run(&["hook", "qwen-code"], small).out(), "");
    sb.run(
        &["hook", "qwen-code"],
        qwen_call(
            "SessionEnd",
            "",
            serde_json::json!({"reason": "prompt_input_exit"}),
        ),
    )
    .status(0);
    sb.run(&["cat", "--scope", &scope, &reference], "")
        .status(2);
}

#[test]
fn qwen_code_init_is_idempotent_and_uninstall_restores_the_file() {
    let original =
        "// Qwen Code\n{\n  \"security\": {\"auth\": {\"selectedType\": \"openai\"}}\n}\n";
    let v = settings_init_round_trip(
        "qwen-code",
        ".qwen/settings.json",
        original,
        "// Qwen Code\n",
    );
    assert_spill_hook(
        &v,
        "PostToolUse",
        Some("^(?!run_shell_command$).*$"),
        "qwen-code",
    );
    assert_spill_hook(&v, "SessionEnd", None, "qwen-code");
    assert!(
        v.get("hooksConfig").is_none() && v["hooks"].get("PreToolUse").is_none(),
        "{v}"
    );
}

/// `spill ARGS` in the sandbox with `stdin` and these variables set.
fn run_env(sb: &Sandbox, args: &[&str], stdin: impl Into<Vec<u8>>, vars: &[(&str, &str)]) -> Run {
    let mut cmd = sb.cmd(args).stdin(stdin);
    for (k, v) in vars {
        cmd = cmd.env(k, v);
    }
    cmd.run()
}

const COPILOT_SESSION: &str = "c1a8c11c-07bb-4d39-8f72-23f6fbbd5c9f";

fn copilot_call(tool: &str, text: &str) -> String {
    serde_json::json!({
        "hook_event_name": "PostToolUse", "session_id": COPILOT_SESSION,
        "timestamp": "2026-12-03T19:08:59.213Z", "cwd": "/nonexistent", "tool_name": tool,
        "tool_input": {"command": "seq 1 30000; exit 3", "description": "scripted command"},
        "tool_result": {"result_type": "success", "text_result_for_llm": text}
    })
    .to_string()
}

#[test]
fn copilot_results_become_the_envelope_read_back_in_its_shell_without_a_scope() {
    let sb = Sandbox::new();
    let scope = format!("copilot-{COPILOT_SESSION}");
    // Copilot CLI saves into its TMPDIR, which is the sandbox's, as the hook's.
    let tmp = sb.path();
    // A shell result Copilot CLI saved to a file: stored whole from it, the status line kept
    // after the envelope.
    let whole: String = (1..=30000).map(|i| format!("{i}\n")).collect();
    let saved = tmp
        .join("1796325100342-copilot-tool-output-28213-19adf5dc-15e4-4805-ba23-da458500bd1c.txt");
    std::fs::write(&saved, &whole).unwrap();
    let preview: String = whole.chars().take(500).collect();
    let notice = format!(
        "Output too large to read at once (164.9 KB). Saved to: {}\nConsider using tools like grep (for searching), head/tail (for viewing start/end), view with view_range (for specific sections), or jq (for JSON) to examine portions of the output.\n\nPreview (first 500 chars):\n{preview}\n<shellId: 1 completed with exit code 3>",
        saved.display()
    );
    let run = sb.run(&["hook", "copilot"], copilot_call("Bash", &notice));
    run.status(0);
    let reply = run.json();
    assert_eq!(reply["modifiedResult"]["resultType"], "success", "{reply}");
    let text = reply["modifiedResult"]["textResultForLlm"]
        .as_str()
        .unwrap();
    let (envelope, status) = text.rsplit_once('\n').unwrap();
    assert_eq!(status, "<shellId: 1 completed with exit code 3>");
    // The scope is named for a shell that does not name its session (before 1.0.40).
    let (how, envelope) = envelope.split_once('{').unwrap();
    assert!(
        how.contains(&format!("spill --scope {scope} cat/search REF")),
        "{how}"
    );
    let envelope: serde_json::Value = serde_json::from_str(&format!("{{{envelope}")).unwrap();
    assert_eq!(envelope["sizeBytes"], whole.len(), "{envelope}");
    // The envelope shows the output's last line.
    assert!(text.contains("30000"), "{text}");
    let reference = envelope["ref"].as_str().unwrap().to_string();
    // Copilot CLI's shell names the session: spill there reads the conversation's scope.
    let read = run_env(
        &sb,
        &["cat", &reference, "--lines", "29999:30000"],
        "",
        &[("COPILOT_AGENT_SESSION_ID", COPILOT_SESSION)],
    );
    read.status(0);
    assert_eq!(read.out(), "29999\n30000\n");
    sb.run(&["cat", &reference], "").status(2);
    sb.run(&["cat", "--scope", &scope, &reference], "")
        .status(0);
    // Another conversation's shell cannot read it; SPILL_SCOPE still wins over the session.
    run_env(
        &sb,
        &["cat", &reference],
        "",
        &[(
            "COPILOT_AGENT_SESSION_ID",
            "0e0e0e0e-07bb-4d39-8f72-23f6fbbd5c9f",
        )],
    )
    .status(2);
    run_env(
        &sb,
        &["cat", &reference],
        "",
        &[
            ("COPILOT_AGENT_SESSION_ID", COPILOT_SESSION),
            ("SPILL_SCOPE", "default"),
        ],
    )
    .status(2);
    // A notice naming a file Copilot CLI did not save there is left as it is.
    let secret = sb
        .path()
        .join("1796325100342-copilot-tool-output-28213.txt");
    std::fs::write(&secret, &whole).unwrap();
    let forged = notice.replace(&saved.display().to_string(), &secret.display().to_string());
    let run = sb.run(&["hook", "copilot"], copilot_call("fake-big", &forged));
    run.status(0);
    assert_eq!(run.out(), "");
    assert!(
        run.stderr.contains("as Copilot CLI made it"),
        "{}",
        run.stderr
    );
    // An MCP tool's large text is stored from the text; a small one is the result.
    let big = "a line of a large result\n".repeat(1000);
    let run = sb.run(&["hook", "copilot"], copilot_call("fake-medium", &big));
    let text = run.json()["modifiedResult"]["textResultForLlm"]
        .as_str()
        .unwrap()
        .to_string();
    let envelope: serde_json::Value =
        serde_json::from_str(&text[text.find('{').unwrap()..]).unwrap();
    assert_eq!(envelope["sizeBytes"], big.len());
    let small = copilot_call("Bash", "small\n<shellId: 2 completed with exit code 0>");
    assert_eq!(sb.run(&["hook", "copilot"], small).out(), "");
    // SessionEnd drops the scope.
    let end = serde_json::json!({"hook_event_name": "SessionEnd", "session_id": COPILOT_SESSION,
                                 "cwd": "/nonexistent", "reason": "complete"});
    sb.run(&["hook", "copilot"], end.to_string()).status(0);
    sb.run(&["cat", "--scope", &scope, &reference], "")
        .status(2);
}

#[test]
fn claude_code_hooks_run_by_copilot_answer_as_copilots() {
    // Copilot CLI runs a trusted project's .claude/settings.json hooks, with COPILOT_PROJECT_DIR
    // set: Claude Code's answer (a rewritten command with "ask") would have it ask for, or deny,
    // every command. It is answered as `spill hook copilot` instead.
    let sb = Sandbox::new();
    let pre = serde_json::json!({
        "hook_event_name": "PreToolUse", "session_id": COPILOT_SESSION, "cwd": "/nonexistent",
        "tool_name": "Bash", "tool_input": {"command": "seq 1 30000", "description": "d"}
    });
    let copilot = [("COPILOT_PROJECT_DIR", "/nonexistent")];
    let run = run_env(&sb, &["hook", "claude-code"], pre.to_string(), &copilot);
    run.status(0);
    assert_eq!(run.out(), "");
    assert!(
        run.stderr.contains("run by GitHub Copilot CLI"),
        "{}",
        run.stderr
    );
    // Without it, the same input is Claude Code's.
    assert!(
        sb.run(&["hook", "claude-code"], pre.to_string())
            .out()
            .contains("updatedInput")
    );
    let big = "a line of a large result\n".repeat(1000);
    let run = run_env(
        &sb,
        &["hook", "claude-code"],
        copilot_call("fake-medium", &big),
        &copilot,
    );
    assert!(
        run.json()["modifiedResult"]["textResultForLlm"]
            .as_str()
            .unwrap()
            .contains(&format!("--scope copilot-{COPILOT_SESSION}"))
    );
}

#[test]
fn copilot_init_creates_its_own_hooks_file_and_uninstall_removes_it() {
    let sb = Sandbox::new();
    let file = sb.path().join(".copilot/hooks/spill.json");
    sb.run(&["init", "copilot"], "").status(0);
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_spill_hook(&v, "PostToolUse", Some(".*"), "copilot");
    assert_spill_hook(&v, "SessionEnd", None, "copilot");
    assert!(v["hooks"].get("PreToolUse").is_none(), "{v}");
    assert!(
        sb.run(&["init", "copilot"], "")
            .out()
            .contains("nothing changed")
    );
    sb.run(&["init", "copilot", "--uninstall"], "").status(0);
    assert!(!file.exists());
    // COPILOT_HOME moves it; --project writes the repository's .github/hooks.
    let home = sb.path().join("copilot-home");
    let at = home.display().to_string();
    run_env(
        &sb,
        &["init", "copilot"],
        "",
        &[("COPILOT_HOME", at.as_str())],
    )
    .status(0);
    assert!(home.join("hooks/spill.json").is_file());
    let original = "{\n  \"version\": 1,\n  \"hooks\": {}\n}\n";
    let v = settings_init_round_trip("copilot", ".copilot/hooks/spill.json", original, "");
    assert_spill_hook(&v, "PostToolUse", Some(".*"), "copilot");
}

fn opencode_call(session: &str, command: &str) -> String {
    serde_json::json!({
        "hook_event_name": "tool.execute.before", "session_id": session, "tool": "bash",
        "call_id": "call_1", "cwd": "/nonexistent",
        "args": {"command": command, "description": "d", "timeout": 5000}
    })
    .to_string()
}

#[test]
fn opencode_bash_calls_are_rewritten_unless_a_permission_rule_may_apply() {
    let sb = Sandbox::new();
    let session = "ses_dce800ec4fferoOMpB9FxDdv0C";
    let run = sb.run(
        &["hook", "opencode"],
        opencode_call(session, "seq 1 100000; exit 5"),
    );
    run.status(0);
    let v = run.json();
    assert_eq!(v["args"]["description"], "d");
    assert_eq!(v["args"]["timeout"], 5000);
    let out = sb.shell(v["args"]["command"].as_str().unwrap());
    out.status(5);
    let envelope = out.json();
    let reference = envelope["ref"].as_str().unwrap();
    let scope = format!("opencode-{session}");
    sb.run(&["cat", "--scope", &scope, reference], "").status(0);
    // A deny rule in the global opencode.json: through, unchanged.
    let config = sb.path().join(".config/opencode/opencode.json");
    std::fs::create_dir_all(config.parent().unwrap()).unwrap();
    std::fs::write(
        &config,
        r#"{"permission": {"bash": {"*": "allow", "rm *": "deny"}}}"#,
    )
    .unwrap();
    let run = sb.run(&["hook", "opencode"], opencode_call(session, "rm -rf x"));
    assert_eq!(run.out(), "");
    assert!(run.stderr.contains("rm *"), "{}", run.stderr);
    assert!(
        !sb.run(&["hook", "opencode"], opencode_call(session, "ls"))
            .out()
            .is_empty()
    );
    // opencode reads its files as JSONC: comments and trailing commas do not hide a rule.
    std::fs::write(
        &config,
        "// mine\n{\"permission\": {\"bash\": {\"*\": \"allow\", /* no */ \"rm *\": \"deny\",},},}",
    )
    .unwrap();
    let run = sb.run(&["hook", "opencode"], opencode_call(session, "rm -rf x"));
    assert_eq!(run.out(), "");
    assert!(run.stderr.contains("rm *"), "{}", run.stderr);
    // A configuration spill cannot parse: nothing is wrapped.
    std::fs::write(&config, "{not json").unwrap();
    let run = sb.run(&["hook", "opencode"], opencode_call(session, "ls"));
    assert_eq!(run.out(), "");
    assert!(run.stderr.contains("cannot parse"), "{}", run.stderr);
    // A deleted session's entries go.
    sb.run(
        &["hook", "opencode"],
        format!(r#"{{"hook_event_name":"session.deleted","session_id":"{session}"}}"#),
    )
    .status(0);
    sb.run(&["cat", "--scope", &scope, reference], "").status(2);
}

/// opencode's plugin call as Kilo Code's plugin makes it: with the session's agent.
fn kilo_call(session: &str, agent: &str, command: &str) -> String {
    let mut call: serde_json::Value =
        serde_json::from_str(&opencode_call(session, command)).unwrap();
    call["agent"] = agent.into();
    call.to_string()
}

#[test]
fn kilo_bash_calls_are_rewritten_in_the_default_agent_once_bash_is_allowed() {
    let sb = Sandbox::new();
    let session = "ses_dc42f50b2ffeaRLZs3GSrS2ucE";
    // A new user's Kilo Code: no rule allows bash, its own rules ask; nothing is rewritten.
    let run = sb.run(&["hook", "kilo"], kilo_call(session, "code", "ls"));
    run.status(0);
    assert_eq!(run.out(), "");
    assert!(
        run.stderr.contains("ask before most commands"),
        "{}",
        run.stderr
    );
    // The rule Kilo Code writes for an existing user, in its global kilo.json.
    let config = sb.path().join(".config/kilo/kilo.json");
    std::fs::create_dir_all(config.parent().unwrap()).unwrap();
    std::fs::write(
        &config,
        "{\n  \"permission\": {\n    \"bash\": \"allow\"\n  }\n}",
    )
    .unwrap();
    let run = sb.run(
        &["hook", "kilo"],
        kilo_call(session, "code", "seq 1 100000; exit 5"),
    );
    run.status(0);
    let v = run.json();
    assert_eq!(v["args"]["timeout"], 5000);
    let out = sb.shell(v["args"]["command"].as_str().unwrap());
    out.status(5);
    let reference = out.json()["ref"].as_str().unwrap().to_string();
    let scope = format!("kilo-{session}");
    sb.run(&["cat", "--scope", &scope, &reference], "")
        .status(0);
    // Not in opencode's scope, and not in another agent than the default one.
    sb.run(
        &["cat", "--scope", &format!("opencode-{session}"), &reference],
        "",
    )
    .status(2);
    let run = sb.run(&["hook", "kilo"], kilo_call(session, "plan", "ls"));
    assert_eq!(run.out(), "");
    assert!(run.stderr.contains("\"plan\""), "{}", run.stderr);
    // A deny rule in $KILO_PERMISSION: unchanged.
    let run = sb
        .cmd(&["hook", "kilo"])
        .env(
            "KILO_PERMISSION",
            r#"{"bash": {"*": "allow", "rm *": "deny"}}"#,
        )
        .stdin(kilo_call(session, "code", "rm -rf x"))
        .run();
    assert_eq!(run.out(), "");
    assert!(run.stderr.contains("rm *"), "{}", run.stderr);
    sb.run(
        &["hook", "kilo"],
        format!(r#"{{"hook_event_name":"session.deleted","session_id":"{session}"}}"#),
    )
    .status(0);
    sb.run(&["cat", "--scope", &scope, &reference], "")
        .status(2);
}

fn pi_call(session: &str, cwd: &std::path::Path, command: &str) -> String {
    serde_json::json!({
        "hook_event_name": "tool_call", "session_id": session, "tool": "bash",
        "call_id": "call_1", "cwd": cwd, "input": {"command": command, "timeout": 5}
    })
    .to_string()
}

#[test]
fn pi_bash_calls_run_under_wrap_in_pis_shell_after_its_prefix_and_results_are_spilled() {
    let sb = Sandbox::new();
    let session = "01a23515-426c-7470-bf37-e2a830f7d970";
    let project = sb.path().join("project");
    std::fs::create_dir_all(&project).unwrap();
    let run = sb.run(
        &["hook", "pi"],
        pi_call(session, &project, "seq 1 100000; exit 5"),
    );
    run.status(0);
    let v = run.json();
    assert_eq!(v["input"]["timeout"], 5);
    let command = v["input"]["command"].as_str().unwrap();
    assert!(command.contains(" wrap --label "), "{command}");
    let out = sb.shell(command);
    out.status(5);
    let reference = out.json()["ref"].as_str().unwrap().to_string();
    let scope = format!("pi-{session}");
    sb.run(&["cat", "--scope", &scope, &reference], "")
        .status(0);
    // A shellCommandPrefix in the project's settings: the command runs in Pi's shell, after the
    // prefix, so the prefix's alias reaches it (as Pi runs it: `bash -c "PREFIX\nCOMMAND"`).
    let settings = project.join(".pi/settings.json");
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    let prefix = "shopt -s expand_aliases\nalias greet='echo hello from the prefix'";
    std::fs::write(
        &settings,
        serde_json::json!({ "shellCommandPrefix": prefix }).to_string(),
    )
    .unwrap();
    let run = sb.run(&["hook", "pi"], pi_call(session, &project, "greet; exit 4"));
    let command = run.json()["input"]["command"].as_str().unwrap().to_string();
    let script = sb.path().join("pi-command");
    std::fs::write(&script, format!("{prefix}\n{command}")).unwrap();
    let out = sb.shell(&format!("bash -c \"$(cat '{}')\"", script.display()));
    out.status(4);
    assert_eq!(out.out(), "hello from the prefix\n");
    // Another tool's result: over --max-inline, the envelope replaces it; a small one stays.
    let result = |text: &str| {
        serde_json::json!({
            "hook_event_name": "tool_result", "session_id": session, "tool": "mcp_big",
            "call_id": "c", "cwd": project, "content": [{"type": "text", "text": text}],
            "is_error": false
        })
        .to_string()
    };
    let big = "mcp row of a big result\n".repeat(5000);
    let run = sb.run(&["hook", "pi"], result(&big));
    run.status(0);
    let content = run.json()["content"].clone();
    let envelope: serde_json::Value =
        serde_json::from_str(content[0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(envelope["sizeBytes"], big.len());
    let stored = envelope["ref"].as_str().unwrap();
    let cat = sb.run(&["cat", "--scope", &scope, stored, "--lines", "1:1"], "");
    assert!(
        cat.out().contains("mcp row of a big result"),
        "{}",
        cat.out()
    );
    assert_eq!(sb.run(&["hook", "pi"], result("small\n")).out(), "");
    // The session's end: `reload` keeps the scope, `quit` removes it.
    let end = |reason: &str| {
        format!(
            r#"{{"hook_event_name":"session_shutdown","session_id":"{session}","reason":"{reason}"}}"#
        )
    };
    sb.run(&["hook", "pi"], end("reload")).status(0);
    sb.run(&["cat", "--scope", &scope, &reference], "")
        .status(0);
    sb.run(&["hook", "pi"], end("quit")).status(0);
    sb.run(&["cat", "--scope", &scope, &reference], "")
        .status(2);
}

#[test]
fn opencode_and_pi_init_install_spills_file_once_and_uninstall_removes_it() {
    for (harness, rel, handler, what) in [
        (
            "opencode",
            ".config/opencode/plugin/spill.js",
            "\"tool.execute.before\"",
            "plugin",
        ),
        (
            "kilo",
            ".config/kilo/plugin/spill.js",
            "\"chat.params\"",
            "plugin",
        ),
        (
            "pi",
            ".pi/agent/extensions/spill.js",
            "pi.on(\"tool_call\"",
            "extension",
        ),
    ] {
        let sb = Sandbox::new();
        let file = sb.path().join(rel);
        sb.run(&["init", harness], "").status(0);
        let text = std::fs::read_to_string(&file).unwrap();
        assert!(text.contains(&format!(
            "const SPILL = {};",
            serde_json::Value::from(env!("CARGO_BIN_EXE_spill"))
        )));
        assert!(text.contains(handler), "{harness}");
        let again = sb.run(&["init", harness], "");
        assert!(again.out().contains("nothing changed"), "{harness}");
        sb.run(&["init", harness, "--uninstall"], "").status(0);
        assert!(!file.exists(), "{harness}");
        // Someone else's file at that path is left alone.
        std::fs::write(&file, "export const Mine = 1;\n").unwrap();
        let run = sb.run(&["init", harness], "");
        run.status(2);
        let refusal = format!("not spill's {what}");
        assert!(run.stderr.contains(&refusal), "{}", run.stderr);
        assert_eq!(
            std::fs::read_to_string(&file).unwrap(),
            "export const Mine = 1;\n"
        );
    }
}

/// Runs `command` the way Claude Code runs a Bash call, in bash: see [`harness_shell_in`].
fn harness_shell(
    sb: &Sandbox,
    command: &str,
    cwd: &std::path::Path,
) -> (crate::common::Run, String) {
    harness_shell_in("bash", sb, command, cwd)
}

/// Runs `command` the way Claude Code runs a Bash call: `SHELL -c` (bash, or zsh where `SHELL`
/// does not name bash) with the command quoted into `eval '…' < /dev/null`, then `pwd -P` into a
/// file, which Claude Code reads as the next call's working directory; stdout and stderr are one
/// file, as Claude Code's are. Returns the run and that file's text (empty when the chain
/// stopped before it). The shell must be installed: a test that needs it fails without it.
fn harness_shell_in(
    shell: &str,
    sb: &Sandbox,
    command: &str,
    cwd: &std::path::Path,
) -> (crate::common::Run, String) {
    let cwd_file = sb.path().join("claude-cwd");
    let _ = std::fs::remove_file(&cwd_file);
    let quoted = format!("'{}'", command.replace('\'', r"'\''"));
    let line = format!(
        "exec 2>&1; eval {quoted} < /dev/null && pwd -P >| '{}'",
        cwd_file.display()
    );
    let bin_dir = std::path::Path::new(env!("CARGO_BIN_EXE_spill"))
        .parent()
        .unwrap();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = std::process::Command::new(shell)
        .args(["-c", &line])
        .current_dir(cwd)
        .env_clear()
        .env("PATH", path)
        .env("HOME", sb.path())
        .env("TMPDIR", sb.path())
        .env("LANG", "C.UTF-8")
        .output()
        .unwrap_or_else(|e| panic!("run {shell} (the hook tests need bash and zsh): {e}"));
    use std::os::unix::process::ExitStatusExt;
    let run = crate::common::Run {
        code: out.status.code().or(out.status.signal().map(|s| -s)),
        stdout: out.stdout,
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    };
    (run, std::fs::read_to_string(&cwd_file).unwrap_or_default())
}

/// The rewritten command for `command`, allowed by a `Bash` rule.
fn claude_rewrite(sb: &Sandbox, command: &str) -> String {
    rewritten(&hook(
        sb,
        &pre_tool_use(SESSION, command),
        r#"{"allow": ["Bash"]}"#,
    ))
}

#[test]
fn claude_code_keeps_the_working_directory_the_status_and_the_death_as_without_spill() {
    let sb = Sandbox::new();
    let project = sb.path().join("project");
    std::fs::create_dir_all(project.join("sub")).unwrap();
    let project = project.canonicalize().unwrap();
    // Claude Code runs bash when SHELL names bash and zsh otherwise (macOS's default): both.
    for shell in ["bash", "zsh"] {
        for command in [
            "cd sub",
            "cd sub && pwd",
            "cd sub; false",
            "cd sub\nexport X=1; echo \"$X\"",
            "false",
            "echo out; echo err >&2; exit 3",
            "exit 0",
            "echo 'unterminated",
            "f() { cd sub; }; f",
            "seq 1 100000 >/dev/null; cd sub; echo done",
            // The command's own EXIT trap is kept (spill's does not clear it).
            "trap 'echo bye' EXIT; echo hi",
            // The command's own `wait` waits for its jobs, not for `wrap`.
            "sleep 0.1 & wait; echo waited",
            "wait; echo none",
            "sleep 0.1 & wait $!; echo $?",
            // It reads no input, as without spill (Claude Code gives it /dev/null).
            "cat; read x; echo \"read: $x\"",
        ] {
            let (plain, plain_cwd) = harness_shell_in(shell, &sb, command, &project);
            let (wrapped, wrapped_cwd) =
                harness_shell_in(shell, &sb, &claude_rewrite(&sb, command), &project);
            assert_eq!(
                wrapped.code, plain.code,
                "{shell} {command:?}: {}",
                wrapped.stderr
            );
            assert_eq!(wrapped_cwd, plain_cwd, "{shell} {command:?}");
            // bash names the line of the `eval` in a syntax error, which the script moves.
            if !(shell == "bash" && command.contains("unterminated")) {
                assert_eq!(wrapped.out(), plain.out(), "{shell} {command:?}");
            }
        }
        let (_, cwd) = harness_shell_in(shell, &sb, &claude_rewrite(&sb, "cd sub"), &project);
        assert_eq!(
            cwd.trim_end(),
            project.join("sub").display().to_string(),
            "{shell}"
        );
        // `kill -9 $$` kills the harness's own shell, with spill as without.
        let (plain, _) = harness_shell_in(shell, &sb, "echo before; kill -9 $$", &project);
        let (wrapped, cwd) = harness_shell_in(
            shell,
            &sb,
            &claude_rewrite(&sb, "echo before; kill -9 $$"),
            &project,
        );
        assert_eq!(plain.code, Some(-9), "{shell}");
        assert_eq!(wrapped.code, Some(-9), "{shell}: {}", wrapped.stderr);
        assert_eq!(cwd, "", "{shell}");
        // A large output of a failing command: the envelope, and the status as without spill.
        let (big, _) = harness_shell_in(
            shell,
            &sb,
            &claude_rewrite(&sb, "seq 1 100000; exit 5"),
            &project,
        );
        big.status(5);
        assert_eq!(big.json()["spilled"], true, "{shell}");
    }
}

#[test]
fn a_command_that_ran_without_spill_does_not_fail_for_its_length() {
    let sb = Sandbox::new();
    // 65 KB of quoted words: Claude Code's own quoting makes them 95 KB, under the 128 KiB a
    // single argument may have; quoted once more (as `bash -c 'CMD'`) they would be 185 KB.
    let command = format!(": {}; echo ran", "'xxxxxxxxxx' ".repeat(5_000));
    let (plain, _) = harness_shell(&sb, &command, sb.path());
    plain.status(0);
    assert_eq!(plain.out(), "ran\n");
    let rewritten = claude_rewrite(&sb, &command);
    // A constant more: the script around it and a label of at most 200 characters.
    assert!(
        rewritten.len() < command.len() + 2048,
        "{}",
        rewritten.len()
    );
    let (wrapped, _) = harness_shell(&sb, &rewritten, sb.path());
    wrapped.status(0);
    assert_eq!(wrapped.out(), "ran\n");
}

#[test]
fn deny_rules_see_the_command_as_bash_joins_and_unquotes_it() {
    let sb = Sandbox::new();
    for command in [
        "rm -r\\\nf x",
        "rm -\\rf x",
        "r'm' \"-rf\" x",
        "$'\\x72m' -rf x",
        "rm \\\n  -rf x",
    ] {
        let run = hook(
            &sb,
            &pre_tool_use(SESSION, command),
            r#"{"allow": ["Bash"], "deny": ["Bash(rm -rf:*)"]}"#,
        );
        run.status(0);
        assert_eq!(run.out(), "", "{command:?} was rewritten");
        assert!(
            run.stderr.contains("Bash(rm -rf:*)"),
            "{command:?}: {}",
            run.stderr
        );
    }
    // Inside single quotes a backslash-newline is two characters, not a join.
    let quoted = hook(
        &sb,
        &pre_tool_use(SESSION, "echo 'rm -r\\\nf x'"),
        r#"{"allow": ["Bash"], "deny": ["Bash(rm -rf:*)"]}"#,
    );
    assert!(quoted.out().contains("updatedInput"), "{}", quoted.stderr);
}

/// `spill hook` under a harness process records the conversation, and the `spill mcp` server
/// that harness starts (no scope chosen) reads that conversation's refs, and only its own.
#[test]
fn the_mcp_server_a_harness_started_reads_the_conversation_its_hooks_bound() {
    let sb = Sandbox::new();
    let text: String = (1..=3000)
        .map(|i| format!("row {i} of the hook's output\n"))
        .collect();
    let reference = sb
        .cmd(&["wrap", "--scope", &format!("claude-{SESSION}")])
        .stdin(text)
        .run()
        .json()["ref"]
        .as_str()
        .unwrap()
        .to_string();
    let rpc = [
        r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#.to_string(),
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.to_string(),
        serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "search", "arguments": {"source": reference, "pattern": "row 2999 "}}})
        .to_string(),
    ];
    std::fs::write(sb.path().join("rpc"), rpc.join("\n") + "\n").unwrap();
    // Each `timeout` is a harness process: its hook and its server are its descendants, with a
    // shell in between as a harness has.
    let conversation = |session: &str| {
        let event = serde_json::json!({"session_id": session, "hook_event_name": "PostToolUse",
            "tool_name": "Read", "tool_input": {}, "tool_response": "x"});
        let file = sb.path().join(format!("event-{session}"));
        std::fs::write(&file, event.to_string()).unwrap();
        let out = sb.shell(&format!(
            "timeout 60 sh -c 'spill hook claude-code < {} > /dev/null && spill mcp < {}'",
            file.display(),
            sb.path().join("rpc").display()
        ));
        out.status(0);
        out.out()
    };
    let own = conversation(SESSION);
    assert!(own.contains("row 2999 of the hook"), "{own}");
    let other = conversation("another-conversation");
    assert!(other.contains("unknown ref"), "{other}");
    assert!(!other.contains("row 2999 of the hook"), "{other}");
    // Without a harness binding (or with a scope chosen) the server reads its own scope.
    let unbound = sb.cmd(&["mcp"]).stdin(rpc.join("\n") + "\n").run();
    assert!(unbound.out().contains("unknown ref"), "{}", unbound.out());
    // The bindings of both harnesses are gone with them: gc removes them.
    let bindings = sb
        .path()
        .join(format!("spill-{}", unsafe_uid()))
        .join("@bindings");
    assert!(std::fs::read_dir(&bindings).unwrap().count() >= 2);
    sb.run(&["gc"], "").status(0);
    assert_eq!(std::fs::read_dir(&bindings).unwrap().count(), 0);
}

/// A `spill mcp proxy` that stores a result before the conversation's first hook call (no
/// binding yet) claims the harness process for its own scope; the hook call that binds the
/// conversation moves the result into the conversation's scope, so the ref the model was given
/// reads from its shell, and from no other conversation.
#[test]
fn a_result_the_proxy_stored_before_the_first_hook_call_joins_the_conversation() {
    let sb = Sandbox::new();
    let downstream =
        std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/mcp/downstream.py");
    let rpc = [
        r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#.to_string(),
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.to_string(),
        serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "text", "arguments": {"n": 5000}}})
        .to_string(),
    ];
    std::fs::write(sb.path().join("rpc"), rpc.join("\n") + "\n").unwrap();
    let event = serde_json::json!({"session_id": SESSION, "hook_event_name": "PostToolUse",
        "tool_name": "Read", "tool_input": {}, "tool_response": "x"});
    std::fs::write(sb.path().join("event"), event.to_string()).unwrap();
    let answer = sb.path().join("answer");
    // `timeout` is the harness process: the proxy and the hook are its descendants.
    let run = sb.shell(&format!(
        "timeout 60 sh -c 'spill mcp proxy -- python3 {} normal < {} > {} && spill hook claude-code < {} > /dev/null'",
        downstream.display(),
        sb.path().join("rpc").display(),
        answer.display(),
        sb.path().join("event").display(),
    ));
    run.status(0);
    let answer = std::fs::read_to_string(&answer).unwrap();
    let line = answer
        .lines()
        .find(|l| l.contains(r#""id":1"#))
        .unwrap_or_else(|| panic!("no answer: {answer}\n{}", run.stderr));
    let reference = regex::Regex::new(r"sp_[0-9a-f]{16}")
        .unwrap()
        .find(line)
        .unwrap_or_else(|| panic!("no ref in {line}"))
        .as_str()
        .to_string();
    let own = sb
        .cmd(&["search", &reference, "-F", "MARKER"])
        .env("SPILL_SCOPE", format!("claude-{SESSION}"))
        .run();
    assert!(own.out().starts_with("2501:1:MARKER"), "{}", own.out());
    let other = sb
        .cmd(&["search", &reference, "-F", "MARKER"])
        .env("SPILL_SCOPE", "claude-another-conversation")
        .run();
    assert!(other.stderr.contains("unknown ref"), "{}", other.stderr);
    // Moved, not copied: the proxy's own scope no longer lists it, and the claim is gone.
    let root = sb.path().join(format!("spill-{}", unsafe_uid()));
    let scopes: Vec<String> = std::fs::read_dir(&root)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("mcp-"))
        .collect();
    assert_eq!(scopes.len(), 1, "{scopes:?}");
    let left = sb.cmd(&["ls"]).env("SPILL_SCOPE", &scopes[0]).run();
    assert!(!left.out().contains(&reference), "{}", left.out());
    let claims = std::fs::read_dir(root.join("@bindings"))
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().contains('+'))
        .count();
    assert_eq!(claims, 0);
}

fn unsafe_uid() -> u32 {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() }
}

/// Every file under `dir` with its bytes, for "nothing changed" checks.
fn snapshot(dir: &std::path::Path) -> Vec<(std::path::PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if e.file_type().unwrap().is_dir() {
                stack.push(p);
            } else {
                let bytes = std::fs::read(&p).unwrap_or_default();
                out.push((p, bytes));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn doctor_reports_each_harness_found_and_changes_nothing() {
    let sb = Sandbox::new();
    // A Claude Code as npm installs it: a PATH entry pointing into its package.
    let package = sb.path().join("npm/node_modules/@anthropic-ai/claude-code");
    std::fs::create_dir_all(package.join("bin")).unwrap();
    std::fs::write(
        package.join("package.json"),
        r#"{"name": "@anthropic-ai/claude-code", "version": "2.1.332"}"#,
    )
    .unwrap();
    std::fs::write(package.join("bin/claude.exe"), "#!/bin/sh\nexit 99\n").unwrap();
    let bin = sb.path().join("npm/bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::os::unix::fs::symlink(package.join("bin/claude.exe"), bin.join("claude")).unwrap();
    sb.run(&["init", "claude-code"], "").status(0);
    std::fs::write(
        sb.path().join(".claude.json"),
        r#"{"mcpServers": {"spill": {"command": "spill", "args": ["mcp"]}}}"#,
    )
    .unwrap();
    let before = snapshot(sb.path());
    let run = sb
        .cmd(&["doctor"])
        .env("PATH", format!("{}:/usr/bin:/bin", bin.display()))
        .run();
    run.status(0);
    let out = run.out();
    assert!(out.contains("claude-code:\n"), "{out}");
    assert!(out.contains("(@anthropic-ai/claude-code 2.1.332)"), "{out}");
    assert!(out.contains("wraps:     yes"), "{out}");
    assert!(out.contains("hooks:     installed in"), "{out}");
    assert!(
        out.contains("spill mcp: registered as \"spill\"")
            && out.contains("follows the conversation"),
        "{out}"
    );
    assert!(out.contains("covered:   Bash output"), "{out}");
    // No Codex, Gemini CLI or opencode here: not reported.
    assert!(!out.contains("codex:") && !out.contains("gemini:"), "{out}");
    // The registered `spill` is not on this PATH: it would not start.
    assert!(
        out.contains("  connects:  no: spill is not on PATH\n")
            && out.contains("  to do:     fix the command of MCP server \"spill\" in "),
        "{out}"
    );
    assert_eq!(snapshot(sb.path()), before, "doctor changed a file");
    // Registered by its path, it answers initialize, and still nothing is written.
    std::fs::write(
        sb.path().join(".claude.json"),
        serde_json::json!({"mcpServers": {"spill": {"command": env!("CARGO_BIN_EXE_spill"), "args": ["mcp"]}}})
            .to_string(),
    )
    .unwrap();
    let before = snapshot(sb.path());
    let run = sb
        .cmd(&["doctor"])
        .env("PATH", format!("{}:/usr/bin:/bin", bin.display()))
        .run();
    let out = run.out();
    assert!(
        out.contains(&format!(
            "  connects:  yes: spill {} answered initialize\n",
            env!("CARGO_PKG_VERSION")
        )) && !out.contains("fix the command"),
        "{out}"
    );
    assert_eq!(snapshot(sb.path()), before, "doctor changed a file");
    // Without the hooks, it says what to do.
    sb.run(&["init", "claude-code", "--uninstall"], "")
        .status(0);
    let run = sb
        .cmd(&["doctor"])
        .env("PATH", format!("{}:/usr/bin:/bin", bin.display()))
        .run();
    assert!(
        run.out().contains("to do:     spill init claude-code"),
        "{}",
        run.out()
    );
}

#[test]
fn doctor_reports_pi_with_its_extension_and_no_mcp_to_do() {
    let sb = Sandbox::new();
    let package = sb
        .path()
        .join("npm/node_modules/@mariozechner/pi-coding-agent");
    std::fs::create_dir_all(package.join("dist")).unwrap();
    std::fs::write(
        package.join("package.json"),
        r#"{"name": "@mariozechner/pi-coding-agent", "version": "0.73.1"}"#,
    )
    .unwrap();
    std::fs::write(package.join("dist/cli.js"), "#!/bin/sh\nexit 99\n").unwrap();
    let bin = sb.path().join("npm/bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::os::unix::fs::symlink(package.join("dist/cli.js"), bin.join("pi")).unwrap();
    sb.run(&["init", "pi"], "").status(0);
    let run = sb
        .cmd(&["doctor"])
        .env("PATH", format!("{}:/usr/bin:/bin", bin.display()))
        .run();
    run.status(0);
    let out = run.out();
    assert!(out.contains("pi:\n"), "{out}");
    assert!(
        out.contains("(@mariozechner/pi-coding-agent 0.73.1)"),
        "{out}"
    );
    assert!(out.contains(".pi/agent/extensions/spill.js"), "{out}");
    assert!(out.contains("spill mcp: pi has no MCP client"), "{out}");
    assert!(!out.contains("to do:"), "{out}");
}

/// Runs a rewritten Claude Code command as Claude Code's sandbox does: bash with the sandbox's
/// own `TMPDIR` (`claude-UID` under the real one), so the default root a shell would resolve
/// is not the hooks'.
fn sandboxed_shell(sb: &Sandbox, command: &str) -> crate::common::Run {
    let tmp = sb.path().join("claude-sandbox-tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let bin_dir = std::path::Path::new(env!("CARGO_BIN_EXE_spill"))
        .parent()
        .unwrap();
    let out = std::process::Command::new("bash")
        .args([
            "-c",
            &format!(
                "exec 2>&1; eval '{}' < /dev/null",
                command.replace('\'', r"'\''")
            ),
        ])
        .current_dir(sb.path())
        .env_clear()
        .env("PATH", format!("{}:/usr/bin:/bin", bin_dir.display()))
        .env("HOME", sb.path())
        .env("TMPDIR", &tmp)
        .output()
        .unwrap();
    crate::common::Run {
        code: out.status.code(),
        stdout: out.stdout,
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

#[test]
fn inside_claude_codes_sandbox_the_shell_stores_in_the_hooks_root() {
    let sb = Sandbox::new();
    let command = claude_rewrite(&sb, "seq 1 100000; echo 'error: boom'");
    let out = sandboxed_shell(&sb, &command);
    out.status(0);
    let envelope = out.json();
    let reference = envelope["ref"].as_str().unwrap().to_string();
    // Read back as the other hooks and `spill mcp` would, with the hooks' own TMPDIR.
    let read = sb
        .cmd(&["cat", &reference, "--lines", "100001:100001"])
        .env("SPILL_SCOPE", format!("claude-{SESSION}"))
        .run();
    read.status(0);
    assert!(read.out().contains("error: boom"), "{}", read.out());
    assert!(
        !sb.path()
            .join("claude-sandbox-tmp")
            .join(format!("spill-{}", unsafe { libc::getuid() }))
            .exists()
    );
}

#[test]
fn where_claude_codes_sandbox_forbids_the_store_the_output_passes_through_with_one_line() {
    let sb = Sandbox::new();
    // A root that cannot be made (under a file), as a sandbox that does not grant it.
    let file = sb.path().join("not-a-dir");
    std::fs::write(&file, "").unwrap();
    let root = file.join("root");
    let dir = sb.path().join(".claude");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("settings.json"),
        r#"{"permissions": {"allow": ["Bash"]}, "sandbox": {"enabled": true}}"#,
    )
    .unwrap();
    let run = sb
        .cmd(&["hook", "claude-code"])
        .env("CLAUDE_PID", std::process::id().to_string())
        .env("CLAUDE_CODE_ENTRYPOINT", "sdk-cli")
        .env("SPILL_DIR", &root)
        .stdin(pre_tool_use(SESSION, "seq 1 100000"))
        .run();
    let command = rewritten(&run);
    let out = sandboxed_shell(&sb, &command);
    out.status(0);
    let text = out.out();
    let expected: String = (1..=100000).map(|n| format!("{n}\n")).collect();
    assert!(
        text.starts_with(&expected),
        "{}",
        &text[..200.min(text.len())]
    );
    let line = &text[expected.len()..];
    assert!(
        line.starts_with("[spill: 588,895 bytes not stored (")
            && line.contains(&format!(
                "to store: add {} to sandbox.filesystem.allowWrite in ~/.claude/settings.json",
                root.display()
            ))
            && line.ends_with("]\n")
            && line.lines().count() == 1,
        "{line}"
    );
}

#[test]
fn doctor_says_when_kilo_codes_rules_leave_bash_unwrapped() {
    // A new Kilo Code user's configuration allows no bash command outright: the plugin leaves
    // every command alone, and says so only on the hook's stderr. `spill doctor` says it too.
    let sb = Sandbox::new();
    sb.run(&["init", "kilo"], "").status(0);
    let report = |sb: &Sandbox| {
        let run = sb.cmd(&["doctor"]).current_dir(sb.path()).run();
        run.status(0);
        let out = run.out();
        let kilo = out[out.find("kilo:\n").expect(&out)..].to_string();
        kilo[..kilo.find("\n\n").unwrap_or(kilo.len())].to_string()
    };
    let out = report(&sb);
    assert!(
        out.contains("wraps:     no: no Kilo Code configuration allows every bash command"),
        "{out}"
    );
    assert!(
        out.contains("\"permission\": {\"bash\": \"allow\"}"),
        "{out}"
    );
    std::fs::write(
        sb.path().join(".config/kilo/kilo.json"),
        r#"{"permission": {"bash": "allow"}}"#,
    )
    .unwrap();
    let out = report(&sb);
    assert!(!out.contains("wraps:"), "{out}");
}
