//! Claude Code: `PreToolUse` (Bash) runs the command under `spill wrap`; `PostToolUse` (MCP
//! tools) replaces a large result by spill's envelope; `SessionEnd` drops the conversation's
//! scope.
//!
//! An MCP tool's `tool_response` (measured with 2.1.332) is its content blocks when the result
//! is under Claude Code's own limit, and a message naming the file Claude Code saved the whole
//! result to when it is over (`…Output has been saved to PATH.`, under the session's
//! `tool-results` directory). Either way the hook hands `spill wrap` the full text and answers
//! with `updatedMCPToolOutput` as one text block holding the envelope. Other tools' results are
//! left alone: Bash's is handled before the call, and the built-in tools' output types are
//! Claude Code's own.
//!
//! Claude Code evaluates its permission rules against the command a hook hands back, so a
//! rewritten command would no longer match the user's `deny`, `ask` or `allow` rules (measured
//! with 2.1.332: a `Bash(echo:*)` deny rule did not stop `echo` once rewritten, and an allow
//! rule no longer allowed it). The hook therefore judges the original command against the
//! rules itself, conservatively, before it rewrites (README, "Claude Code"):
//!
//! - a `deny` or `ask` rule that could match any part of the command: the call goes through
//!   unchanged, so Claude Code applies that rule exactly as without spill;
//! - an `allow` rule that matches the whole (simple) command, or `bypassPermissions` mode:
//!   rewritten with `permissionDecision: "allow"`, which is what Claude Code would have done;
//! - no rule: interactive sessions get the rewrite with `"ask"` (the prompt the user would have
//!   had anyway); headless sessions (`-p`), which cannot prompt, get the call unchanged;
//! - rules that cannot be read (a broken settings file, no `/proc/PID/cmdline` for the
//!   `--allowedTools`/`--disallowedTools` flags): unchanged.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::hook::{
    Exports, Reply, Response, SpillRequest, in_shell_command_in, normalise, open_call,
    shell_command, through,
};

/// The scope prefix of Claude Code conversations.
pub const SCOPE_PREFIX: &str = "claude";

/// The Bash permission rules in force, gathered from settings files and the command line.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Rules {
    /// `permissions.allow` and `--allowedTools`.
    pub allow: Vec<String>,
    /// `permissions.ask`.
    pub ask: Vec<String>,
    /// `permissions.deny` and `--disallowedTools`.
    pub deny: Vec<String>,
}

/// What the hook knows besides its input.
pub struct Context<'a> {
    /// The spill binary the rewritten command runs.
    pub spill: &'a str,
    /// True when Claude Code cannot prompt (`-p`, the SDK).
    pub headless: bool,
    /// The rules for a session working in this directory, or why they cannot be read.
    pub rules: &'a dyn Fn(&Path) -> std::result::Result<Rules, String>,
    /// The store root the hook resolved, exported to the command as `SPILL_DIR`: inside Claude
    /// Code's sandbox the shell has Claude Code's own `TMPDIR`, so the root it would resolve
    /// is not the one the other hooks and `spill mcp` use (README, "Claude Code": its sandbox).
    pub root: Option<&'a str>,
    /// `BASH_DEFAULT_TIMEOUT_MS`, when set: the Bash tool's timeout for a call that gives none.
    pub default_timeout_ms: Option<u64>,
}

/// Claude Code's Bash timeout when neither the call nor `BASH_DEFAULT_TIMEOUT_MS` gives one.
const DEFAULT_TIMEOUT_MS: u64 = 120_000;

/// When the running envelope of a call Claude Code runs in the background from the start
/// (`run_in_background`) is written to its output file, if the command is still running then.
const BACKGROUND_REPORT_MS: u64 = 1_000;

/// When `wrap` prints the running envelope of a Bash call still running: Claude Code moves a
/// call to the background at its timeout (the call's `timeout`, else `BASH_DEFAULT_TIMEOUT_MS`,
/// else 2 minutes) and shows the model what the command printed so far, which under `wrap`
/// (it prints at the end) was nothing: "No output had been read from it when it was moved"
/// (measured with 2.1.332). So the envelope comes a fifth of the timeout before it (1 to 5 s;
/// `hook::detach_after`), and the final envelope at the end goes to the background task's
/// output file. A call run in the background from the start gets it after 1 s, so the model's
/// reads of that file while it runs see the ref and the cursor.
fn report_after(tool_input: &Map<String, Value>, ctx: &Context) -> Option<std::time::Duration> {
    if tool_input.get("run_in_background").and_then(Value::as_bool) == Some(true) {
        return Some(std::time::Duration::from_millis(BACKGROUND_REPORT_MS));
    }
    let timeout =
        crate::hook::call_timeout_ms(tool_input, ctx.default_timeout_ms, DEFAULT_TIMEOUT_MS);
    crate::hook::detach_after(timeout)
}

/// Answers one Claude Code hook call (any event; the input says which).
pub fn respond(input: &[u8], ctx: &Context) -> std::result::Result<Response, String> {
    let (input, event, scope) = match open_call(input, SCOPE_PREFIX)? {
        Ok(call) => call,
        Err(through) => return Ok(through),
    };
    match event.as_str() {
        "PreToolUse" => pre_tool_use(&input, &scope, ctx),
        "PostToolUse" => Ok(post_tool_use(&input, scope)),
        "SessionEnd" => Ok(Response {
            remove_scope: Some(scope),
            ..Response::default()
        }),
        other => Ok(through(format!(
            "{other:?} is not an event spill handles; nothing done"
        ))),
    }
}

fn pre_tool_use(
    input: &Value,
    scope: &str,
    ctx: &Context,
) -> std::result::Result<Response, String> {
    if input["tool_name"] != "Bash" {
        return Ok(Response::default());
    }
    let (tool_input, command) = match shell_command(&input["tool_input"]) {
        Ok(call) => call,
        Err(through) => return Ok(*through),
    };
    let mode = input["permission_mode"].as_str().unwrap_or("default");
    if mode == "plan" {
        return Ok(Response::default());
    }
    let cwd = PathBuf::from(input["cwd"].as_str().unwrap_or("."));
    let rules = match (ctx.rules)(&cwd) {
        Ok(rules) => rules,
        Err(why) => {
            return Ok(Response {
                notice: Some(format!(
                    "spill: Bash calls in this conversation run without spill ({why}): spill \
                     rewrites a command only where it can check Claude Code's permission rules \
                     for it. Fix the settings file, or use a Claude Code whose command line \
                     /proc shows (2.1.113 and later); README, \"Claude Code\"."
                )),
                ..through(format!("{why}; the command runs without spill"))
            });
        }
    };
    if let Some(rule) = rules
        .deny
        .iter()
        .chain(&rules.ask)
        .find(|r| could_match(r, command))
    {
        return Ok(through(format!(
            "the permission rule {rule:?} may apply to this command; it runs without spill so Claude Code applies the rule"
        )));
    }
    let decision = if mode == "bypassPermissions" || rules.allow.iter().any(|r| allows(r, command))
    {
        "allow"
    } else if ctx.headless || mode == "dontAsk" {
        return Ok(through(
            "no allow rule for this command and no prompt possible; it runs without spill".into(),
        ));
    } else {
        "ask"
    };
    let turn = input["prompt_id"].as_str();
    let mut updated: Map<String, Value> = tool_input.clone();
    updated.insert(
        "command".into(),
        Value::String(in_shell_command_in(
            ctx.spill,
            &Exports {
                harness: Some(super::HARNESS.name),
                root: ctx.root,
                report_after: report_after(tool_input, ctx),
                ..Exports::new(scope, turn)
            },
            command,
        )),
    );
    let reply = serde_json::json!({
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": decision,
            "permissionDecisionReason": "spill: output over 16 KiB is stored and replaced by an envelope",
            "updatedInput": Value::Object(updated),
        }
    });
    Ok(Response {
        stdout: format!("{reply}\n"),
        ..Response::default()
    })
}

fn post_tool_use(input: &Value, scope: String) -> Response {
    let tool = input["tool_name"].as_str().unwrap_or("");
    if !tool.starts_with("mcp__") {
        return Response::default();
    }
    let bytes = match &input["tool_response"] {
        Value::Array(blocks) => {
            // Only text: images and resources are left to Claude Code.
            let texts: Option<Vec<&str>> = blocks
                .iter()
                .map(|b| (b["type"] == "text").then(|| b["text"].as_str()).flatten())
                .collect();
            match texts {
                Some(texts) if !texts.is_empty() => texts.join("\n").into_bytes(),
                _ => return Response::default(),
            }
        }
        Value::String(message) => match saved_result(input, message) {
            Some(bytes) => bytes,
            None => return Response::default(),
        },
        _ => return Response::default(),
    };
    Response {
        spill: Some(SpillRequest {
            scope,
            bytes,
            label: tool.to_string(),
            reply: Reply(mcp_reply),
            cut: None,
            after: None,
        }),
        ..Response::default()
    }
}

/// The whole result Claude Code saved to a file, when `message` names one in this session's
/// `tool-results` directory (any other path is ignored: the message is the tool's to forge).
fn saved_result(input: &Value, message: &str) -> Option<Vec<u8>> {
    let transcript = Path::new(input["transcript_path"].as_str()?);
    let session = input["session_id"].as_str()?;
    let dir = transcript.parent()?.join(session).join("tool-results");
    let dir = std::fs::canonicalize(dir).ok()?;
    let prefix = format!("{}/", dir.display());
    let start = message.find(&prefix)?;
    let path = message[start..]
        .split_whitespace()
        .next()?
        .trim_end_matches('.');
    let path = std::fs::canonicalize(path).ok()?;
    if !path.starts_with(&dir) {
        return None;
    }
    std::fs::read(path).ok()
}

/// `updatedMCPToolOutput`: the envelope as the tool's only content block.
pub fn mcp_reply(envelope: &str) -> String {
    let reply = serde_json::json!({
        "hookSpecificOutput": {
            "hookEventName": "PostToolUse",
            "updatedMCPToolOutput": [{"type": "text", "text": envelope}],
        }
    });
    format!("{reply}\n")
}

/// What a rule says about Bash: `None` for another tool's rule, `Some(None)` for all of Bash
/// (`Bash`, `Bash()`, `Bash(*)`), `Some(Some(pattern))` for `Bash(pattern)`.
fn bash_rule(rule: &str) -> Option<Option<&str>> {
    let rule = rule.trim();
    if rule == "Bash" {
        return Some(None);
    }
    let inner = rule.strip_prefix("Bash(")?.strip_suffix(')')?.trim();
    Some(if inner.is_empty() || inner == "*" || inner == ":*" {
        None
    } else {
        Some(inner)
    })
}

/// Whether a deny or ask rule could apply to any part of the command. Over-approximates: any
/// match of a rule needs the rule's text before its first `*` at the start of some
/// subcommand, so that text appearing anywhere in the command counts.
fn could_match(rule: &str, command: &str) -> bool {
    match bash_rule(rule) {
        None => false,
        Some(None) => true,
        Some(Some(pattern)) => {
            let literal = pattern.strip_suffix(":*").unwrap_or(pattern);
            let literal = normalise(literal.split('*').next().unwrap_or(""));
            literal.is_empty() || normalise(command).contains(&literal)
        }
    }
}

/// Whether an allow rule certainly allows the whole command. Under-approximates: only exact and
/// `prefix:*` rules, and only commands without shell operators, expansions or redirections.
fn allows(rule: &str, command: &str) -> bool {
    match bash_rule(rule) {
        None => false,
        Some(None) => true,
        Some(Some(pattern)) => {
            let command = command.trim();
            if command.contains(|c: char| ";&|<>$`()\n\r\\{}*?[]~!#".contains(c)) {
                return false;
            }
            match pattern.strip_suffix(":*") {
                Some(prefix) if !prefix.contains('*') => {
                    command == prefix.trim()
                        || command
                            .strip_prefix(prefix.trim())
                            .is_some_and(|rest| rest.starts_with(' '))
                }
                Some(_) => false,
                None => !pattern.contains('*') && command == pattern,
            }
        }
    }
}

/// Where the rules come from: the settings files Claude Code reads and its own command line.
pub struct RuleSources {
    /// `~/.claude` (or `$CLAUDE_CONFIG_DIR`).
    pub config_dir: Option<PathBuf>,
    /// The project directory (`$CLAUDE_PROJECT_DIR`, else the session's working directory).
    pub project_dir: Option<PathBuf>,
    /// The managed settings file.
    pub managed: PathBuf,
    /// Claude Code's arguments (from `/proc/$CLAUDE_PID/cmdline`), or why they are unknown.
    pub argv: std::result::Result<Vec<String>, String>,
}

impl RuleSources {
    /// Gathers the rules: every settings file that exists, then `--allowedTools`,
    /// `--disallowedTools` and `--settings` from the command line. A file that exists but
    /// cannot be read or parsed makes the rules unknown.
    pub fn gather(&self, cwd: &Path) -> std::result::Result<Rules, String> {
        let mut rules = Rules::default();
        let mut files = vec![self.managed.clone()];
        if let Some(dir) = &self.config_dir {
            files.push(dir.join("settings.json"));
        }
        let project = self
            .project_dir
            .clone()
            .unwrap_or_else(|| cwd.to_path_buf());
        files.push(project.join(".claude/settings.json"));
        files.push(project.join(".claude/settings.local.json"));
        for file in files {
            match std::fs::read(&file) {
                Ok(bytes) => add_settings(&mut rules, &bytes, &file.display().to_string())?,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(format!("cannot read {}: {e}", file.display())),
            }
        }
        let argv = self.argv.as_ref().map_err(Clone::clone)?;
        let mut words = argv.iter().skip(1);
        let mut list: Option<bool> = None; // Some(true): allow values follow; Some(false): deny
        while let Some(word) = words.next() {
            let (flag, inline) = match word.split_once('=') {
                Some((f, v)) if f.starts_with("--") => (f, Some(v.to_string())),
                _ => (word.as_str(), None),
            };
            match flag {
                "--allowedTools" | "--allowed-tools" => list = Some(true),
                "--disallowedTools" | "--disallowed-tools" => list = Some(false),
                "--settings" => {
                    list = None;
                    let Some(value) = inline.or_else(|| words.next().cloned()) else {
                        continue;
                    };
                    if value.trim_start().starts_with('{') {
                        add_settings(&mut rules, value.as_bytes(), "--settings")?;
                    } else {
                        let bytes = std::fs::read(&value)
                            .map_err(|e| format!("cannot read --settings {value}: {e}"))?;
                        add_settings(&mut rules, &bytes, &value)?;
                    }
                    continue;
                }
                _ if word.starts_with('-') => {
                    list = None;
                    continue;
                }
                _ => {}
            }
            let values: Vec<String> = match (inline, flag.starts_with("--")) {
                (Some(v), _) => split_tools(&v),
                (None, true) => continue,
                (None, false) => split_tools(word),
            };
            match list {
                Some(true) => rules.allow.extend(values),
                Some(false) => rules.deny.extend(values),
                None => {}
            }
        }
        Ok(rules)
    }
}

/// Adds a settings document's `permissions` lists.
fn add_settings(rules: &mut Rules, bytes: &[u8], name: &str) -> std::result::Result<(), String> {
    let doc: Value =
        serde_json::from_slice(bytes).map_err(|e| format!("cannot parse {name}: {e}"))?;
    let list = |key: &str| -> Vec<String> {
        doc["permissions"][key]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(Value::as_str)
                    .map(String::from)
                    .collect()
            })
            .unwrap_or_default()
    };
    rules.allow.extend(list("allow"));
    rules.ask.extend(list("ask"));
    rules.deny.extend(list("deny"));
    Ok(())
}

/// `--allowedTools "Bash(git diff:*) Edit,Read"`: tools split at commas and spaces outside
/// parentheses.
fn split_tools(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth = 0usize;
    let mut current = String::new();
    for c in text.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            ',' | ' ' if depth == 0 => {
                if !current.is_empty() {
                    out.push(std::mem::take(&mut current));
                }
                continue;
            }
            _ => {}
        }
        current.push(c);
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx_with<'a>(
        rules: &'a dyn Fn(&Path) -> std::result::Result<Rules, String>,
        headless: bool,
    ) -> Context<'a> {
        Context {
            spill: "/usr/bin/spill",
            headless,
            rules,
            root: Some("/tmp/spill-1000"),
            default_timeout_ms: None,
        }
    }

    fn pre(command: &str, mode: &str) -> Vec<u8> {
        serde_json::json!({
            "session_id": "9c248b37-6480-4724-8b4a-4b4f84959f63",
            "prompt_id": "774c2c40",
            "cwd": "/tmp",
            "permission_mode": mode,
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": command, "description": "d", "timeout": 5000},
            "tool_use_id": "toolu_1"
        })
        .to_string()
        .into_bytes()
    }

    fn rules(allow: &[&str], ask: &[&str], deny: &[&str]) -> Rules {
        let own = |l: &[&str]| l.iter().map(|s| s.to_string()).collect();
        Rules {
            allow: own(allow),
            ask: own(ask),
            deny: own(deny),
        }
    }

    fn answer(command: &str, r: Rules, headless: bool) -> Response {
        let get = move |_: &Path| Ok(r.clone());
        respond(&pre(command, "default"), &ctx_with(&get, headless)).unwrap()
    }

    #[test]
    fn an_allowed_command_is_rewritten_keeping_every_other_field() {
        let reply = answer("echo hi", rules(&["Bash"], &[], &[]), true);
        let v: Value = serde_json::from_str(&reply.stdout).unwrap();
        let out = &v["hookSpecificOutput"];
        assert_eq!(out["hookEventName"], "PreToolUse");
        assert_eq!(out["permissionDecision"], "allow");
        assert_eq!(out["updatedInput"]["description"], "d");
        assert_eq!(out["updatedInput"]["timeout"], 5000);
        assert_eq!(
            out["updatedInput"]["command"],
            in_shell_command_in(
                "/usr/bin/spill",
                &Exports {
                    harness: Some("claude-code"),
                    root: Some("/tmp/spill-1000"),
                    // The call's timeout, 5 s: the running envelope at 4 s.
                    report_after: Some(std::time::Duration::from_millis(4_000)),
                    ..Exports::new(
                        "claude-9c248b37-6480-4724-8b4a-4b4f84959f63",
                        Some("774c2c40")
                    )
                },
                "echo hi"
            )
        );
    }

    #[test]
    fn deny_and_ask_rules_keep_the_command_unchanged() {
        for r in [
            rules(&["Bash"], &[], &["Bash(rm:*)"]),
            rules(&["Bash"], &["Bash(rm -rf:*)"], &[]),
            rules(&[], &[], &["Bash"]),
            rules(&["Bash"], &[], &["Bash(git push * --force)"]),
        ] {
            for cmd in [
                "ls; rm -rf /x",
                "echo $(rm  -rf x)",
                "cd a && 'rm' -rf b",
                "git push origin --force",
            ] {
                let reply = answer(cmd, r.clone(), false);
                let matches = r
                    .deny
                    .iter()
                    .chain(&r.ask)
                    .any(|rule| could_match(rule, cmd));
                if matches {
                    assert_eq!(reply.stdout, "", "{cmd} {r:?}");
                    assert!(reply.note.unwrap().contains("may apply"));
                }
            }
        }
        assert!(could_match("Bash(rm -rf:*)", "echo $(rm  -rf x)"));
        assert!(could_match("Bash(rm -rf:*)", "cd a && 'rm' -rf b"));
        assert!(could_match(
            "Bash(git push * --force)",
            "git push origin --force"
        ));
        assert!(!could_match("Read(./secret)", "cat secret"));
        assert!(!could_match("Bash(rm:*)", "ls"));
    }

    #[test]
    fn allow_rules_are_matched_exactly_and_only_on_simple_commands() {
        assert!(allows("Bash(npm test:*)", "npm test"));
        assert!(allows("Bash(npm test:*)", "npm test --verbose"));
        assert!(!allows("Bash(npm test:*)", "npm testing"));
        assert!(!allows("Bash(npm test:*)", "npm test; curl evil"));
        assert!(!allows("Bash(npm test:*)", "npm test $(curl evil)"));
        assert!(allows("Bash(make)", "make"));
        assert!(!allows("Bash(make)", "make install"));
        assert!(allows("Bash(*)", "anything | at all"));
        assert!(!allows("Edit", "ls"));
    }

    #[test]
    fn without_a_rule_interactive_asks_and_headless_goes_through() {
        let v: Value =
            serde_json::from_str(&answer("ls", rules(&[], &[], &[]), false).stdout).unwrap();
        assert_eq!(v["hookSpecificOutput"]["permissionDecision"], "ask");
        let reply = answer("ls", rules(&[], &[], &[]), true);
        assert_eq!(reply.stdout, "");
        assert!(reply.note.is_some());
        let get = |_: &Path| Ok(Rules::default());
        let bypass = respond(&pre("ls", "bypassPermissions"), &ctx_with(&get, true)).unwrap();
        assert!(bypass.stdout.contains("\"allow\""));
        let plan = respond(&pre("ls", "plan"), &ctx_with(&get, false)).unwrap();
        assert_eq!(plan, Response::default());
    }

    #[test]
    fn unreadable_rules_and_missing_sessions_let_the_call_through() {
        let broken = |_: &Path| Err("cannot parse settings.json".to_string());
        let reply = respond(&pre("ls", "default"), &ctx_with(&broken, false)).unwrap();
        assert_eq!(reply.stdout, "");
        assert!(reply.note.unwrap().contains("cannot parse"));
        let get = |_: &Path| Ok(rules(&["Bash"], &[], &[]));
        for session in [serde_json::json!(""), Value::Null] {
            let mut input: Value = serde_json::from_slice(&pre("ls", "default")).unwrap();
            input["session_id"] = session;
            let reply = respond(input.to_string().as_bytes(), &ctx_with(&get, false)).unwrap();
            assert_eq!(reply.stdout, "");
            assert_eq!(reply.remove_scope, None);
            assert!(reply.note.unwrap().contains("no session_id"));
        }
        assert!(respond(b"{not json", &ctx_with(&get, false)).is_err());
    }

    #[test]
    fn session_end_removes_the_conversation_scope_only() {
        let get = |_: &Path| Ok(Rules::default());
        let input = br#"{"session_id":"abc","hook_event_name":"SessionEnd","reason":"other"}"#;
        let reply = respond(input, &ctx_with(&get, false)).unwrap();
        assert_eq!(reply.remove_scope.as_deref(), Some("claude-abc"));
        let input = br#"{"session_id":"","hook_event_name":"SessionEnd"}"#;
        assert_eq!(
            respond(input, &ctx_with(&get, false)).unwrap().remove_scope,
            None
        );
    }

    #[test]
    fn other_tools_pass_untouched() {
        let get = |_: &Path| Ok(rules(&["Bash"], &[], &[]));
        let input = br#"{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{"file_path":"/x"}}"#;
        assert_eq!(
            respond(input, &ctx_with(&get, false)).unwrap(),
            Response::default()
        );
    }

    #[test]
    fn mcp_results_are_handed_to_wrap_from_blocks_or_the_saved_file_only() {
        let dir = tempfile::tempdir().unwrap();
        let results = dir.path().join("s1/tool-results");
        std::fs::create_dir_all(&results).unwrap();
        std::fs::write(results.join("big.txt"), "the whole result").unwrap();
        std::fs::write(dir.path().join("secret"), "not a tool result").unwrap();
        let get = |_: &Path| Ok(Rules::default());
        let post = |tool: &str, response: Value| {
            let input = serde_json::json!({
                "session_id": "s1", "hook_event_name": "PostToolUse", "tool_name": tool,
                "transcript_path": dir.path().join("s1.jsonl"), "tool_response": response,
            });
            respond(input.to_string().as_bytes(), &ctx_with(&get, true)).unwrap()
        };
        let blocks = post(
            "mcp__x__y",
            serde_json::json!([{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]),
        );
        let request = blocks.spill.unwrap();
        assert_eq!(
            (
                request.scope.as_str(),
                &request.bytes[..],
                request.label.as_str()
            ),
            ("claude-s1", &b"a\nb"[..], "mcp__x__y")
        );
        let reply: Value =
            serde_json::from_str(&request.reply.render("{\"spilled\":true}")).unwrap();
        assert_eq!(
            reply["hookSpecificOutput"]["updatedMCPToolOutput"][0]["text"],
            "{\"spilled\":true}"
        );
        let saved = format!(
            "Error: result exceeds maximum allowed tokens. Output has been saved to {}/big.txt.\nFormat: Plain text",
            results.display()
        );
        assert_eq!(
            post("mcp__x__y", saved.into()).spill.unwrap().bytes,
            b"the whole result"
        );
        let elsewhere = format!(
            "Output has been saved to {}.",
            dir.path().join("secret").display()
        );
        assert_eq!(post("mcp__x__y", elsewhere.into()).spill, None);
        let escape = format!(
            "Output has been saved to {}/../../secret.",
            results.display()
        );
        assert_eq!(post("mcp__x__y", escape.into()).spill, None);
        assert_eq!(
            post(
                "mcp__x__y",
                serde_json::json!([{"type": "image", "data": "x"}])
            )
            .spill,
            None
        );
        assert_eq!(
            post("Read", serde_json::json!([{"type": "text", "text": "a"}])).spill,
            None
        );
    }

    #[test]
    fn command_line_rules_are_read() {
        let dir = tempfile::tempdir().unwrap();
        let sources = RuleSources {
            config_dir: Some(dir.path().to_path_buf()),
            project_dir: None,
            managed: dir.path().join("none.json"),
            argv: Ok([
                "claude",
                "-p",
                "--allowedTools",
                "Bash(git diff:*),Edit",
                "Read",
                "--disallowed-tools=Bash(rm:*)",
                "--model",
                "x",
                "prompt",
            ]
            .map(String::from)
            .to_vec()),
        };
        std::fs::write(
            dir.path().join("settings.json"),
            r#"{"permissions":{"ask":["Bash(curl:*)"]}}"#,
        )
        .unwrap();
        let r = sources.gather(dir.path()).unwrap();
        assert_eq!(r.allow, ["Bash(git diff:*)", "Edit", "Read"]);
        assert_eq!(r.deny, ["Bash(rm:*)"]);
        assert_eq!(r.ask, ["Bash(curl:*)"]);
        std::fs::write(dir.path().join("settings.json"), "{broken").unwrap();
        assert!(
            sources
                .gather(dir.path())
                .unwrap_err()
                .contains("cannot parse")
        );
        let unknown = RuleSources {
            argv: Err("no CLAUDE_PID".into()),
            config_dir: None,
            ..sources
        };
        assert_eq!(unknown.gather(dir.path()).unwrap_err(), "no CLAUDE_PID");
    }
}
