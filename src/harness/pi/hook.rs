//! Pi: its extension (`extension.js` beside this file, installed by `spill init pi`) hands each
//! `bash` call to `spill hook pi`, which answers with the input to run.
//!
//! The extension sends `{"hook_event_name": "tool_call", "session_id", "tool", "call_id", "cwd",
//! "input"}` for a tool call (`tool_call` of Pi's extension API, whose `event.input` the
//! extension changes in place) and `{"hook_event_name": "session_shutdown", "session_id",
//! "reason"}` when the extension's session ends; the answer is `{"input": {…}}` (the extension
//! takes its `command`) or nothing. Every other tool's result comes as `{"hook_event_name":
//! "tool_result", "session_id", "tool", "call_id", "cwd", "content", "is_error"}` (`tool_result`,
//! whose answer patches the result): a text result over `--max-inline` is answered with
//! `{"content": [{"type": "text", "text": ENVELOPE}]}`, which replaces it.
//!
//! Pi's bash tool runs each call as a fresh `bash -c COMMAND` (`createLocalBashOperations` in
//! 0.73.1), so nothing of a call's shell carries over to the next, and `spill wrap -- bash -c`
//! runs the command as Pi would. Two settings change that shell: `shellCommandPrefix` (a script
//! Pi puts before every command, such as `shopt -s expand_aliases` and aliases) and `shellPath`
//! (another shell). With either set, the command is run inside Pi's own shell
//! (`hook::in_shell_command`), after the prefix, so what the prefix sets reaches the command.
//! Pi has no permission rules to respect (README, "Pi").

use serde_json::{Map, Value};

use crate::hook::{
    Exports, Live, Reply, Response, SpillRequest, detach_after, in_shell_command_in, open_call,
    shell_command, through, too_long, wrapped_command_detaching,
};

/// The scope prefix of Pi sessions.
pub const SCOPE_PREFIX: &str = "pi";

/// What the hook knows besides its input.
pub struct Context<'a> {
    /// The spill binary the rewritten command runs.
    pub spill: &'a str,
    /// The Pi setting that changes its shell (`shellCommandPrefix` or `shellPath`) when one is
    /// set for a session in this directory, or why the settings cannot be read.
    pub own_shell: &'a dyn Fn(&str) -> std::result::Result<Option<String>, String>,
}

/// Answers one call of spill's Pi extension.
pub fn respond(input: &[u8], ctx: &Context) -> std::result::Result<Response, String> {
    let (input, event, scope) = match open_call(input, SCOPE_PREFIX)? {
        Ok(call) => call,
        Err(through) => return Ok(through),
    };
    match event.as_str() {
        "tool_call" => Ok(tool_call(&input, &scope, ctx)),
        "tool_result" => Ok(tool_result(&input, scope)),
        "session_shutdown" => Ok(shutdown(&input, scope)),
        other => Ok(through(format!(
            "{other:?} is not an event spill handles for Pi; nothing done"
        ))),
    }
}

fn tool_call(input: &Value, scope: &str, ctx: &Context) -> Response {
    if input["tool"] != "bash" {
        return Response::default();
    }
    let (args, command) = match shell_command(&input["input"]) {
        Ok(call) => call,
        Err(through) => return *through,
    };
    let own_shell = match (ctx.own_shell)(input["cwd"].as_str().unwrap_or(".")) {
        Ok(setting) => setting.is_some(),
        // Pi's shell is then unknown: running the command inside it is right for both kinds.
        Err(_) => true,
    };
    // Pi kills a call at its `timeout` (seconds, the model's own; none by default) and shows
    // the output so far, which under `wrap` is nothing: `wrap` prints the running envelope a
    // fifth before it (the output so far, stored), and a `spill wait` gets the same deadline.
    // The command still dies at the timeout, as without spill (Pi's kill ends `wrap`, and the
    // supervisor then stops CMD).
    let report = args
        .get("timeout")
        .and_then(Value::as_f64)
        .filter(|t| *t > 0.0)
        .and_then(|t| detach_after((t * 1000.0).min(u64::MAX as f64) as u64));
    let command = if own_shell {
        in_shell_command_in(
            ctx.spill,
            &Exports {
                report_after: report,
                ..Exports::new(scope, None)
            },
            command,
        )
    } else {
        wrapped_command_detaching(
            ctx.spill,
            scope,
            None,
            None,
            report.map(Live::Report),
            command,
        )
    };
    // Pi runs it as `bash -c CMD` (or its own shell's): one argument.
    if let Some(unchanged) = too_long(&command) {
        return unchanged;
    }
    let mut updated: Map<String, Value> = args.clone();
    updated.insert("command".into(), Value::String(command));
    let reply = serde_json::json!({ "input": Value::Object(updated) });
    Response {
        stdout: format!("{reply}\n"),
        ..Response::default()
    }
}

/// Another tool's result (bash's own output is `wrap`'s already): its text, for the command
/// layer to pass through `wrap`; a result with an image, an error or no text is left to Pi.
fn tool_result(input: &Value, scope: String) -> Response {
    let tool = input["tool"].as_str().unwrap_or("");
    if tool == "bash" || input["is_error"] == true {
        return Response::default();
    }
    let Some(parts) = input["content"].as_array() else {
        return Response::default();
    };
    let texts: Option<Vec<&str>> = parts
        .iter()
        .map(|p| (p["type"] == "text").then(|| p["text"].as_str()).flatten())
        .collect();
    let text = match texts {
        Some(texts) if !texts.is_empty() => texts.concat(),
        _ => return Response::default(),
    };
    let cut = (tool == "read").then(|| read_cut(&text)).flatten();
    Response {
        spill: Some(SpillRequest {
            scope,
            bytes: text.into_bytes(),
            label: tool.to_string(),
            reply: Reply(tool_result_reply),
            cut,
            after: None,
        }),
        ..Response::default()
    }
}

/// What Pi's `read` kept of a file it cut before the hook ran (0.73.1, `tools/read.js`: at
/// 2,000 lines or 50 KB it ends the text with `[Showing lines S-E of T. Use offset=N to
/// continue.]`, or with `[N more lines in file. Use offset=…]` when a `limit` stopped it).
fn read_cut(text: &str) -> Option<String> {
    let (_, last) = text.trim_end().rsplit_once("\n\n[")?;
    if !last.ends_with("to continue.]") {
        return None;
    }
    if let Some(status) = last.strip_prefix("Showing lines ") {
        let (range, rest) = status.split_once(" of ")?;
        let total: String = rest.chars().take_while(char::is_ascii_digit).collect();
        return Some(format!(
            "lines {range} of the file's {total}: Pi cut the rest before spill saw it"
        ));
    }
    let more = last.split_once(" more lines in file.")?.0;
    more.parse::<u64>().ok().map(|n| {
        format!("the lines read, with {n} more in the file: Pi cut them before spill saw it")
    })
}

/// The `tool_result` answer that replaces a result by the envelope.
fn tool_result_reply(envelope: &str) -> String {
    let reply = serde_json::json!({ "content": [{"type": "text", "text": envelope}] });
    format!("{reply}\n")
}

/// The end of an extension's session: its scope goes, unless Pi goes on with the same session
/// (`reload`) or gives a reason spill does not know (the entries then stay until they expire).
/// `quit` ends Pi, `new`, `resume` and `fork` leave the session for another one; a session
/// resumed later starts without its spilled outputs, as a Claude Code session does after its
/// `SessionEnd`.
fn shutdown(input: &Value, scope: String) -> Response {
    match input["reason"].as_str() {
        Some("quit" | "new" | "resume" | "fork") => Response {
            remove_scope: Some(scope),
            ..Response::default()
        },
        Some("reload") => Response::default(),
        other => through(format!(
            "session_shutdown with the reason {other:?}, which spill does not know: the \
             session's entries stay until they expire"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(command: &str) -> Vec<u8> {
        call_with(command, serde_json::json!(5))
    }

    fn call_with(command: &str, timeout: Value) -> Vec<u8> {
        serde_json::json!({
            "hook_event_name": "tool_call", "session_id": "01a23515-426c-7470-bf37-e2a830f7d970",
            "tool": "bash", "call_id": "call_1", "cwd": "/tmp/p",
            "input": {"command": command, "timeout": timeout}
        })
        .to_string()
        .into_bytes()
    }

    fn answer(input: &[u8], setting: std::result::Result<Option<String>, String>) -> Response {
        let get = move |cwd: &str| {
            assert_eq!(cwd, "/tmp/p");
            setting.clone()
        };
        let ctx = Context {
            spill: "/usr/bin/spill",
            own_shell: &get,
        };
        respond(input, &ctx).unwrap()
    }

    #[test]
    fn a_bash_call_runs_under_wrap_in_the_session_scope() {
        let reply = answer(&call("ls -l"), Ok(None));
        let v: Value = serde_json::from_str(&reply.stdout).unwrap();
        assert_eq!(v["input"]["timeout"], 5);
        // The call's timeout, 5 s: the running envelope at 4 s, before Pi kills the call.
        assert_eq!(
            v["input"]["command"],
            "SPILL_SCOPE=pi-01a23515-426c-7470-bf37-e2a830f7d970 SPILL_ALLOW_RUN=1 \
             /usr/bin/spill wrap --label 'ls -l' --report-after 4000ms -- bash -c 'ls -l'"
        );
        // Without a timeout (Pi has none by default), or one of 2 s or less: no flag.
        for t in [Value::Null, serde_json::json!(2), serde_json::json!(0)] {
            let reply = answer(&call_with("ls -l", t), Ok(None));
            let v: Value = serde_json::from_str(&reply.stdout).unwrap();
            assert_eq!(
                v["input"]["command"],
                "SPILL_SCOPE=pi-01a23515-426c-7470-bf37-e2a830f7d970 SPILL_ALLOW_RUN=1 \
                 /usr/bin/spill wrap --label 'ls -l' -- bash -c 'ls -l'"
            );
        }
        // A `spill wait` gets the same deadline, so it answers before Pi's kill.
        let reply = answer(&call("spill wait sp_0123456789abcdef"), Ok(None));
        let v: Value = serde_json::from_str(&reply.stdout).unwrap();
        assert!(
            v["input"]["command"]
                .as_str()
                .unwrap()
                .contains("spill wait sp_0123456789abcdef --timeout 4000ms"),
            "{}",
            v["input"]["command"]
        );
    }

    #[test]
    fn with_a_shell_setting_the_command_runs_in_pis_own_shell() {
        let want = in_shell_command_in(
            "/usr/bin/spill",
            &Exports {
                report_after: Some(std::time::Duration::from_millis(4_000)),
                ..Exports::new("pi-01a23515-426c-7470-bf37-e2a830f7d970", None)
            },
            "ll",
        );
        for setting in [Ok(Some("shellCommandPrefix".into())), Err("bad".into())] {
            let reply = answer(&call("ll"), setting);
            let v: Value = serde_json::from_str(&reply.stdout).unwrap();
            assert_eq!(v["input"]["command"], want.as_str());
        }
    }

    #[test]
    fn other_tools_empty_commands_and_sessions_go_through() {
        let read = br#"{"hook_event_name":"tool_call","session_id":"s","tool":"read","cwd":"/tmp/p","input":{"path":"a"}}"#;
        assert_eq!(answer(read, Ok(None)), Response::default());
        assert_eq!(answer(&call("  "), Ok(None)), Response::default());
        let none = br#"{"hook_event_name":"tool_call","session_id":"s","tool":"bash","cwd":"/tmp/p","input":{}}"#;
        assert!(
            answer(none, Ok(None))
                .note
                .unwrap()
                .contains("without a command")
        );
        let anonymous =
            br#"{"hook_event_name":"tool_call","tool":"bash","input":{"command":"ls"}}"#;
        let reply = answer(anonymous, Ok(None));
        assert_eq!(reply.stdout, "");
        assert!(reply.note.unwrap().contains("no session_id"));
        let other = br#"{"hook_event_name":"turn_end","session_id":"s"}"#;
        assert!(answer(other, Ok(None)).note.is_some());
        let get = |_: &str| Ok(None);
        let ctx = Context {
            spill: "spill",
            own_shell: &get,
        };
        assert!(respond(b"{not json", &ctx).is_err());
    }

    #[test]
    fn other_tools_text_results_go_to_wrap_and_the_reply_replaces_them() {
        let result = |tool: &str, content: Value, error: bool| {
            let input = serde_json::json!({
                "hook_event_name": "tool_result", "session_id": "s", "tool": tool,
                "call_id": "c", "cwd": "/tmp/p", "content": content, "is_error": error
            });
            answer(input.to_string().as_bytes(), Ok(None))
        };
        let two = serde_json::json!([{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]);
        let reply = result("mcp_big", two.clone(), false);
        let spill = reply.spill.unwrap();
        assert_eq!(
            (spill.scope.as_str(), spill.bytes.as_slice()),
            ("pi-s", &b"ab"[..])
        );
        assert_eq!(spill.label, "mcp_big");
        assert_eq!(spill.cut, None);
        let v: Value = serde_json::from_str(&spill.reply.render("{\"ref\":1}")).unwrap();
        assert_eq!(v["content"][0]["text"], "{\"ref\":1}");
        assert_eq!(result("bash", two.clone(), false), Response::default());
        assert_eq!(result("grep", two, true), Response::default());
        let image =
            serde_json::json!([{"type": "text", "text": "a"}, {"type": "image", "data": "x"}]);
        assert_eq!(result("read", image, false), Response::default());
        assert_eq!(
            result("read", serde_json::json!([]), false),
            Response::default()
        );
        let cut = serde_json::json!([{"type": "text", "text":
            "row 1\nrow 2\n\n[Showing lines 1-2000 of 18003 (50.0KB limit). Use offset=2001 to continue.]"}]);
        assert_eq!(
            result("read", cut, false).spill.unwrap().cut.as_deref(),
            Some("lines 1-2000 of the file's 18003: Pi cut the rest before spill saw it")
        );
        let limited = serde_json::json!([{"type": "text", "text":
            "row 1\n\n[17 more lines in file. Use offset=2 to continue.]"}]);
        assert!(
            result("read", limited, false)
                .spill
                .unwrap()
                .cut
                .unwrap()
                .contains("17 more")
        );
        let plain = serde_json::json!([{"type": "text", "text": "x\n\n[not a cut]"}]);
        assert_eq!(result("read", plain, false).spill.unwrap().cut, None);
    }

    #[test]
    fn the_session_scope_goes_when_the_session_is_left_not_on_reload() {
        let end = |reason: &str| {
            let input = serde_json::json!({
                "hook_event_name": "session_shutdown", "session_id": "s", "reason": reason
            });
            answer(input.to_string().as_bytes(), Ok(None))
        };
        for reason in ["quit", "new", "resume", "fork"] {
            assert_eq!(
                end(reason).remove_scope.as_deref(),
                Some("pi-s"),
                "{reason}"
            );
        }
        assert_eq!(end("reload"), Response::default());
        let unknown = end("later");
        assert_eq!(unknown.remove_scope, None);
        assert!(unknown.note.unwrap().contains("stay until they expire"));
    }
}
