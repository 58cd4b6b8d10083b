//! Gemini CLI (`gemini`): `BeforeTool` runs its shell tool's command under `spill wrap`;
//! `AfterTool` stores another tool's large result and answers with the envelope; `SessionEnd`
//! drops the conversation's scope.
//!
//! Measured with Gemini CLI 0.61.0: a `BeforeTool` hook's `hookSpecificOutput.tool_input` is
//! merged into the call's arguments; Gemini then appends `[System] Tool input parameters were
//! modified by a hook before execution.` to the result the model reads. It evaluates its
//! policy rules *after* the hook, on the rewritten command, and a `deny` rule for `printf` did
//! not stop `bash -c 'printf …'` (the form `spill wrap -- bash -c CMD` has). So the hook lets
//! the command through unchanged whenever a user, project or system policy rule or a
//! `tools.exclude` / `tools.allowed` / `tools.core` setting may concern the shell tool: Gemini
//! then applies it exactly as without spill (README, "Gemini CLI").
//!
//! Gemini also refuses a command holding `$()`, backticks, `<()` or `>()` before it runs; in
//! the rewrite those sit inside single quotes, where its check did not see them (measured: the
//! command ran), so such a command is left unchanged too.
//!
//! `AfterTool` hands the hook the tool's whole result (`tool_response.llmContent`); the only
//! answer that replaces it is a block decision, whose reason becomes the result the model reads
//! (`Tool result blocked: REASON`, marked as an error).

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::hook::{
    Exports, Reply, Response, SpillRequest, detach_after, in_shell_command_in, open_call,
    shell_command, through,
};

/// The scope prefix of Gemini CLI conversations.
pub const SCOPE_PREFIX: &str = "gemini";

/// The shell tool's name (Qwen Code's too).
pub const SHELL: &str = "run_shell_command";

/// What the hook knows besides its input.
pub struct Context<'a> {
    /// The spill binary the rewritten command runs.
    pub spill: &'a str,
    /// `Some(why)` when a policy rule or setting may concern the shell tool for a session in
    /// this directory (or cannot be read); `None` when none does.
    pub shell_rule: &'a dyn Fn(&Path) -> Option<String>,
    /// Gemini CLI's inactivity timeout for a session in this directory, in milliseconds (0:
    /// off); see [`RuleSources::inactivity_ms`].
    pub inactivity_ms: &'a dyn Fn(&Path) -> u64,
}

/// Answers one Gemini CLI hook call.
pub fn respond(input: &[u8], ctx: &Context) -> std::result::Result<Response, String> {
    let (input, event, scope) = match open_call(input, SCOPE_PREFIX)? {
        Ok(call) => call,
        Err(through) => return Ok(through),
    };
    match event.as_str() {
        "BeforeTool" => Ok(before_tool(&input, &scope, ctx)),
        "AfterTool" => Ok(after_tool(
            &input,
            scope,
            Reply(after_tool_reply),
            read_file_cut,
        )),
        "SessionEnd" => Ok(Response {
            remove_scope: Some(scope),
            ..Response::default()
        }),
        other => Ok(through(format!(
            "{other:?} is not an event spill handles for Gemini CLI; nothing done"
        ))),
    }
}

fn before_tool(input: &Value, scope: &str, ctx: &Context) -> Response {
    if input["tool_name"] != SHELL {
        return Response::default();
    }
    let (tool_input, command) = match shell_command(&input["tool_input"]) {
        Ok(call) => call,
        Err(through) => return *through,
    };
    // Gemini CLI refuses a command with a substitution ("Command injection detected"); inside
    // the rewrite's quotes its check would no longer see it (measured), so such a command goes
    // through unchanged and is refused as without spill.
    if ["$(", "`", "<(", ">("].iter().any(|s| command.contains(s)) {
        return through(
            "the command has a substitution Gemini CLI checks; it runs without spill".into(),
        );
    }
    let cwd = PathBuf::from(input["cwd"].as_str().unwrap_or("."));
    if let Some(why) = (ctx.shell_rule)(&cwd) {
        return through(format!(
            "{why}; the command runs without spill so Gemini CLI applies its rules"
        ));
    }
    // Gemini CLI cancels a command that prints nothing for its inactivity timeout; under the
    // hook the command's output goes to `wrap`, so `wrap` reports while the output grows: the
    // running envelope a little before the timeout, then a line at each such interval in
    // which the command printed (a silent command stays silent, and is cancelled as without
    // spill, at most one interval later).
    let every = detach_after((ctx.inactivity_ms)(&cwd));
    let mut updated: Map<String, Value> = tool_input.clone();
    updated.insert(
        "command".into(),
        Value::String(in_shell_command_in(
            ctx.spill,
            &Exports {
                report_after: every,
                report_every: every,
                ..Exports::new(scope, None)
            },
            command,
        )),
    );
    let reply = serde_json::json!({
        "hookSpecificOutput": {"hookEventName": "BeforeTool", "tool_input": Value::Object(updated)}
    });
    Response {
        stdout: format!("{reply}\n"),
        ..Response::default()
    }
}

/// A tool's result after it ran (`tool_name`, `tool_response.llmContent`, `tool_response.error`
/// as Gemini CLI and its fork Qwen Code hand it over): every tool's text result but the shell's
/// goes to `wrap` in `scope`, answered with `reply`; `cut` says what the harness kept of a result
/// it cut before the hook saw it (tool name, text).
pub fn after_tool(
    input: &Value,
    scope: String,
    reply: Reply,
    cut: fn(&str, &str) -> Option<String>,
) -> Response {
    let tool = input["tool_name"].as_str().unwrap_or("");
    if tool == SHELL || !input["tool_response"]["error"].is_null() {
        return Response::default();
    }
    let text = match &input["tool_response"]["llmContent"] {
        Value::String(text) => text.clone(),
        Value::Array(parts) => {
            // Text parts only: inline data (images) is left to Gemini CLI.
            let texts: Option<Vec<&str>> = parts.iter().map(|p| p["text"].as_str()).collect();
            match texts {
                Some(texts) if !texts.is_empty() => texts.concat(),
                _ => return Response::default(),
            }
        }
        Value::Object(part) => match part.get("text").and_then(Value::as_str) {
            Some(text) => text.to_string(),
            None => return Response::default(),
        },
        _ => return Response::default(),
    };
    let cut = cut(tool, &text);
    Response {
        spill: Some(SpillRequest {
            scope,
            bytes: text.into_bytes(),
            label: tool.to_string(),
            reply,
            cut,
            after: None,
        }),
        ..Response::default()
    }
}

/// What Gemini CLI kept of a file it cut before the hook ran: `read_file` of a file over its
/// limit (2,000 lines in 0.61) hands the hook only the lines it shows, under a header it writes
/// itself (`IMPORTANT: The file content has been truncated.` / `Status: Showing lines S-E of T
/// total lines.`, measured in `@google/gemini-cli-core` 0.61.0, `tools/read-file.js`). `None` for
/// a whole result.
fn read_file_cut(tool: &str, text: &str) -> Option<String> {
    if tool != "read_file" {
        return None;
    }
    let rest = text
        .trim_start_matches('\n')
        .strip_prefix("IMPORTANT: The file content has been truncated.\nStatus: Showing lines ")?;
    let (start, end, total) = lines_shown(rest)?;
    Some(format!(
        "lines {start}-{end} of the file's {total}: Gemini CLI cut the rest before spill saw it"
    ))
}

/// The numbers of a `read_file` header's `S-E of T total lines.` (after its `Showing lines `),
/// which Gemini CLI and Qwen Code both write.
pub fn lines_shown(status: &str) -> Option<(u64, u64, u64)> {
    let status = status.split_once(" total lines.")?.0;
    let (range, total) = status.split_once(" of ")?;
    let (start, end) = range.split_once('-')?;
    let number = |s: &str| s.trim().parse::<u64>().ok();
    Some((number(start)?, number(end)?, number(total)?))
}

/// The `AfterTool` answer that replaces a result by the envelope.
pub fn after_tool_reply(envelope: &str) -> String {
    let reply = serde_json::json!({
        "decision": "block",
        "reason": format!("the result was stored by spill instead of shown; read it with spill cat/search REF: {envelope}"),
        "hookSpecificOutput": {"hookEventName": "AfterTool"},
    });
    format!("{reply}\n")
}

/// The files whose rules may concern the shell tool: settings (user, project, system) and
/// policy directories (`policies/*.toml` beside each).
pub struct RuleSources {
    /// `~/.gemini`.
    pub user_dir: Option<PathBuf>,
    /// The system settings directory (`/etc/gemini-cli`).
    pub system_dir: PathBuf,
}

impl RuleSources {
    /// Why a rule may concern the shell tool for a session in `cwd`, or `None`.
    pub fn shell_rule(&self, cwd: &Path) -> Option<String> {
        let mut dirs: Vec<PathBuf> = self.user_dir.iter().cloned().collect();
        dirs.push(cwd.join(".gemini"));
        dirs.push(self.system_dir.clone());
        for dir in dirs {
            let settings = dir.join("settings.json");
            match std::fs::read(&settings) {
                Ok(bytes) => {
                    if let Some(why) = settings_rule(&bytes) {
                        return Some(format!("{}: {why}", settings.display()));
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Some(format!("cannot read {}: {e}", settings.display())),
            }
            let Ok(entries) = std::fs::read_dir(dir.join("policies")) else {
                continue;
            };
            for path in entries.filter_map(|e| e.ok().map(|e| e.path())) {
                if path.extension().is_none_or(|x| x != "toml") {
                    continue;
                }
                match std::fs::read_to_string(&path) {
                    Ok(text) => {
                        if let Some(why) = policy_rule(&text) {
                            return Some(format!("{}: {why}", path.display()));
                        }
                    }
                    Err(e) => return Some(format!("cannot read {}: {e}", path.display())),
                }
            }
        }
        None
    }

    /// `tools.shell.inactivityTimeout` (seconds) for a session in `cwd`, in milliseconds, as
    /// Gemini CLI merges its settings: the system file's value, else the project's, else the
    /// user's, else its default of 300 s; 0 for a value of 0 or less (no timeout). A file that
    /// cannot be read or parsed is skipped (the shell rule check lets no command through
    /// unchanged past such a file anyway).
    pub fn inactivity_ms(&self, cwd: &Path) -> u64 {
        let mut dirs = vec![self.system_dir.clone(), cwd.join(".gemini")];
        dirs.extend(self.user_dir.iter().cloned());
        for dir in dirs {
            let Ok(bytes) = std::fs::read(dir.join("settings.json")) else {
                continue;
            };
            let Ok(doc) = serde_json::from_slice::<Value>(&bytes) else {
                continue;
            };
            if let Some(secs) = doc["tools"]["shell"]["inactivityTimeout"].as_f64() {
                return if secs > 0.0 {
                    (secs * 1000.0).min(u64::MAX as f64) as u64
                } else {
                    0
                };
            }
        }
        INACTIVITY_DEFAULT_MS
    }
}

/// Gemini CLI's default `tools.shell.inactivityTimeout`: 5 minutes (0.36.0 to 0.61.0).
pub const INACTIVITY_DEFAULT_MS: u64 = 300_000;

/// A settings file's tool lists that name the shell tool.
fn settings_rule(bytes: &[u8]) -> Option<String> {
    let doc: Value = match serde_json::from_slice(bytes) {
        Ok(doc) => doc,
        Err(e) => return Some(format!("not valid JSON ({e})")),
    };
    for key in ["exclude", "allowed", "core"] {
        let names = doc["tools"][key].as_array().into_iter().flatten();
        if names
            .filter_map(Value::as_str)
            .any(|n| n.starts_with(SHELL) || n.starts_with("ShellTool"))
        {
            return Some(format!("tools.{key} names the shell tool"));
        }
    }
    None
}

/// A policy file's first `[[rule]]` that names the shell tool or no tool (so every tool).
fn policy_rule(text: &str) -> Option<String> {
    let mut blocks = text.split("[[rule]]").skip(1);
    blocks.find_map(|block| {
        let block = block.split("\n[").next().unwrap_or(block);
        let names_tool = block.lines().any(|l| {
            let l = l.trim_start();
            l.starts_with("toolName") || l.starts_with("mcpName")
        });
        (!names_tool || block.contains(SHELL))
            .then(|| "a [[rule]] that may concern the shell tool".to_string())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_read_file_result_gemini_cut_is_known_for_what_it_holds() {
        let cut = "\nIMPORTANT: The file content has been truncated.\nStatus: Showing lines 1-2000 of 18002 total lines.\nAction: To read more ...\n\n--- FILE CONTENT (truncated) ---\nrow 1\n";
        assert_eq!(
            read_file_cut("read_file", cut).as_deref(),
            Some("lines 1-2000 of the file's 18002: Gemini CLI cut the rest before spill saw it")
        );
        assert_eq!(read_file_cut("read_many_files", cut), None);
        assert_eq!(read_file_cut("read_file", "row 1\nrow 2\n"), None);
        assert_eq!(
            read_file_cut("read_file", &cut.replace("1-2000", "x-2000")),
            None
        );
    }

    fn input(event: &str, tool: &str, extra: Value) -> Vec<u8> {
        let mut v = serde_json::json!({
            "session_id": "6de72b63-9500-4e37-b5e6-adb6ec6bfe7a",
            "transcript_path": "/tmp/t.jsonl", "cwd": "/tmp", "hook_event_name": event,
            "timestamp": "2026-12-01T11:52:25.042Z", "tool_name": tool,
        });
        v.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        v.to_string().into_bytes()
    }

    fn ctx<'a>(rule: &'a dyn Fn(&Path) -> Option<String>) -> Context<'a> {
        Context {
            spill: "/usr/bin/spill",
            shell_rule: rule,
            inactivity_ms: &|_| INACTIVITY_DEFAULT_MS,
        }
    }

    #[test]
    fn the_inactivity_timeout_is_read_as_gemini_merges_its_settings() {
        let root = tempfile::tempdir().unwrap();
        let (system, project, user) = (
            root.path().join("etc"),
            root.path().join("work"),
            root.path().join("home/.gemini"),
        );
        let sources = RuleSources {
            user_dir: Some(user.clone()),
            system_dir: system.clone(),
        };
        let write = |dir: &Path, text: &str| {
            std::fs::create_dir_all(dir).unwrap();
            std::fs::write(dir.join("settings.json"), text).unwrap();
        };
        assert_eq!(sources.inactivity_ms(&project), INACTIVITY_DEFAULT_MS);
        write(&user, r#"{"tools":{"shell":{"inactivityTimeout":4}}}"#);
        assert_eq!(sources.inactivity_ms(&project), 4_000);
        write(
            &project.join(".gemini"),
            r#"{"tools":{"shell":{"inactivityTimeout":1.5}}}"#,
        );
        assert_eq!(sources.inactivity_ms(&project), 1_500);
        write(&system, r#"{"tools":{"shell":{"inactivityTimeout":0}}}"#);
        assert_eq!(sources.inactivity_ms(&project), 0);
        // A timeout of 2 s or less is left to Gemini: no reporting flags.
        assert_eq!(detach_after(sources.inactivity_ms(&project)), None);
    }

    #[test]
    fn the_shell_command_is_rewritten_keeping_the_other_arguments() {
        let none = |_: &Path| None;
        let call = input(
            "BeforeTool",
            SHELL,
            serde_json::json!({"tool_input": {"command": "ls", "description": "list"}}),
        );
        let v: Value = serde_json::from_str(&respond(&call, &ctx(&none)).unwrap().stdout).unwrap();
        let out = &v["hookSpecificOutput"];
        assert_eq!(out["hookEventName"], "BeforeTool");
        assert_eq!(out["tool_input"]["description"], "list");
        // Run in Gemini CLI's own shell, so `$$` and its death are the shell's, as without spill.
        // Reporting before Gemini's inactivity timeout (300 s): at 295 s, then every 295 s.
        let every = Some(std::time::Duration::from_secs(295));
        assert_eq!(
            out["tool_input"]["command"],
            crate::hook::in_shell_command_in(
                "/usr/bin/spill",
                &Exports {
                    report_after: every,
                    report_every: every,
                    ..Exports::new("gemini-6de72b63-9500-4e37-b5e6-adb6ec6bfe7a", None)
                },
                "ls"
            )
        );
        assert!(
            out["tool_input"]["command"]
                .as_str()
                .unwrap()
                .contains("wrap --report-after 295000ms --report-every 295000ms --label"),
            "{}",
            out["tool_input"]["command"]
        );
        assert!(
            !out["tool_input"]["command"]
                .as_str()
                .unwrap()
                .contains("$("),
            "Gemini CLI refuses a substitution"
        );
        for sub in ["echo $(id)", "echo `id`", "diff <(a) b", "tee >(x)"] {
            let call = input(
                "BeforeTool",
                SHELL,
                serde_json::json!({"tool_input": {"command": sub}}),
            );
            let reply = respond(&call, &ctx(&none)).unwrap();
            assert_eq!(reply.stdout, "", "{sub}");
            assert!(reply.note.unwrap().contains("substitution"));
        }
        let rule = |_: &Path| Some("policies/x.toml: a [[rule]]".to_string());
        let reply = respond(&call, &ctx(&rule)).unwrap();
        assert_eq!(reply.stdout, "");
        assert!(reply.note.unwrap().contains("x.toml"));
    }

    #[test]
    fn after_tool_hands_other_tools_text_results_to_wrap() {
        let none = |_: &Path| None;
        let after = |tool: &str, response: Value| {
            respond(
                &input(
                    "AfterTool",
                    tool,
                    serde_json::json!({"tool_response": response}),
                ),
                &ctx(&none),
            )
            .unwrap()
        };
        let request = after(
            "read_file",
            serde_json::json!({"llmContent": "a whole file"}),
        )
        .spill
        .unwrap();
        assert_eq!(request.bytes, b"a whole file");
        assert_eq!(request.scope, "gemini-6de72b63-9500-4e37-b5e6-adb6ec6bfe7a");
        let parts = after(
            "mcp_x",
            serde_json::json!({"llmContent": [{"text": "a"}, {"text": "b"}]}),
        );
        assert_eq!(parts.spill.unwrap().bytes, b"ab");
        assert_eq!(
            after(SHELL, serde_json::json!({"llmContent": "x"})),
            Response::default()
        );
        assert_eq!(
            after(
                "read_file",
                serde_json::json!({"llmContent": "x", "error": {"message": "no"}})
            ),
            Response::default()
        );
        assert_eq!(
            after(
                "read_file",
                serde_json::json!({"llmContent": [{"inlineData": {}}]})
            ),
            Response::default()
        );
        let reply: Value = serde_json::from_str(&after_tool_reply("{\"spilled\":true}")).unwrap();
        assert_eq!(reply["decision"], "block");
        assert!(
            reply["reason"]
                .as_str()
                .unwrap()
                .ends_with("{\"spilled\":true}")
        );
    }

    #[test]
    fn session_end_removes_the_scope_and_no_session_is_refused() {
        let none = |_: &Path| None;
        let end = respond(&input("SessionEnd", "", serde_json::json!({})), &ctx(&none)).unwrap();
        assert_eq!(
            end.remove_scope.as_deref(),
            Some("gemini-6de72b63-9500-4e37-b5e6-adb6ec6bfe7a")
        );
        let blank = br#"{"session_id":"","hook_event_name":"SessionEnd"}"#;
        let reply = respond(blank, &ctx(&none)).unwrap();
        assert_eq!(reply.remove_scope, None);
        assert!(reply.note.unwrap().contains("no session_id"));
    }

    #[test]
    fn rules_that_may_concern_the_shell_are_found() {
        assert!(policy_rule("[[rule]]\ntoolName = \"run_shell_command\"\ncommandPrefix = \"rm\"\ndecision = \"deny\"\n").is_some());
        assert!(policy_rule("[[rule]]\ndecision = \"deny\"\npriority = 1\n").is_some());
        assert!(
            policy_rule("[[rule]]\ntoolName = \"read_file\"\ndecision = \"allow\"\n").is_none()
        );
        assert!(policy_rule("# nothing\n").is_none());
        assert!(settings_rule(br#"{"tools": {"exclude": ["run_shell_command(rm)"]}}"#).is_some());
        assert!(settings_rule(br#"{"tools": {"exclude": ["web_fetch"]}}"#).is_none());
        assert!(settings_rule(b"{broken").is_some());
    }
}
