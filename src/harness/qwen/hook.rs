//! Qwen Code (`qwen`): `PostToolUse` stores another tool's large result and answers with the
//! envelope; `SessionEnd` drops the conversation's scope. Qwen Code is a fork of Gemini CLI with
//! Claude Code's event names: its `tool_response` is Gemini's (`llmContent`), so the result is
//! read by Gemini's [`after_tool`].
//!
//! Its shell tool is not wrapped: measured with Qwen Code 0.24.4 (and read in 0.15.10 and
//! 0.21.10, `firePreToolUseHook`), a `PreToolUse` answer's `hookSpecificOutput.updatedInput` is
//! ignored — the hook can allow, deny or ask, never change the command; only a
//! `PermissionRequest` hook's `updatedInput` is applied, and that event fires only where an
//! interactive session would show an approval dialog. Qwen Code bounds a large shell output
//! itself (its head and tail, the whole output saved to a file it names), and `PostToolUse`
//! hands the hook only that cut, so spill leaves the shell's result alone (README, "Qwen
//! Code").
//!
//! `PostToolUse` replaces a result only through `continue: false`: its `stopReason` becomes the
//! result the model reads, marked as an error (a `decision` is ignored for this event).

use std::path::Path;

use serde_json::Value;

use crate::harness::gemini::hook::{after_tool, lines_shown};
use crate::hook::{Reply, Response, open_call, through};

/// The scope prefix of Qwen Code conversations.
pub const SCOPE_PREFIX: &str = "qwen";

/// Answers one Qwen Code hook call.
pub fn respond(input: &[u8]) -> std::result::Result<Response, String> {
    let (input, event, scope) = match open_call(input, SCOPE_PREFIX)? {
        Ok(call) => call,
        Err(through) => return Ok(through),
    };
    match event.as_str() {
        "PostToolUse" => Ok(after_tool(
            &input,
            scope,
            Reply(post_tool_use_reply),
            read_file_cut,
        )),
        "SessionEnd" => Ok(Response {
            remove_scope: Some(scope),
            ..Response::default()
        }),
        other => Ok(through(format!(
            "{other:?} is not an event spill handles for Qwen Code; nothing done"
        ))),
    }
}

/// What Qwen Code kept of a file it cut before the hook ran: `read_file` of a file over its
/// limit hands the hook the lines it shows under its own header (`Showing lines S-E of T total
/// lines.`, or `of at least T` when it did not count them all; `@qwen-code/qwen-code` 0.24.4).
/// `None` for a whole result.
fn read_file_cut(tool: &str, text: &str) -> Option<String> {
    if tool != "read_file" {
        return None;
    }
    let rest = text.strip_prefix("Showing lines ")?;
    let (rest, at_least) = match rest.split_once(" of at least ") {
        Some((range, total)) => (format!("{range} of {total}"), "at least "),
        None => (rest.to_string(), ""),
    };
    let (start, end, total) = lines_shown(&rest)?;
    Some(format!(
        "lines {start}-{end} of the file's {at_least}{total}: Qwen Code cut the rest before spill saw it"
    ))
}

/// The `PostToolUse` answer that replaces a result by the envelope. Qwen Code's shell does not
/// run in the conversation's scope (spill cannot rewrite its commands), so the answer names the
/// scope for the envelope's `spill` commands: the directory that holds the entry (the store
/// keeps an entry at `ROOT/SCOPE/HASH`, the envelope's `path`). Without a path (a restricted
/// store) it points to `spill mcp`, which follows the conversation.
pub fn post_tool_use_reply(envelope: &str) -> String {
    let scope = serde_json::from_str::<Value>(envelope)
        .ok()
        .and_then(|e| {
            let path = Path::new(e["path"].as_str()?);
            Some(path.parent()?.file_name()?.to_str()?.to_string())
        })
        .filter(|s| s.starts_with(&format!("{SCOPE_PREFIX}-")));
    let how = match scope {
        Some(scope) => format!(
            "in the shell, add --scope {scope} to its spill commands (spill --scope {scope} cat/search REF), or use the spill MCP server's tools"
        ),
        None => {
            "use the spill MCP server's tools (spill mcp), which follow this conversation".into()
        }
    };
    let reply = serde_json::json!({
        "continue": false,
        "stopReason": format!("the result was stored by spill instead of shown; to read it {how}: {envelope}"),
    });
    format!("{reply}\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(event: &str, tool: &str, extra: Value) -> Vec<u8> {
        let mut v = serde_json::json!({
            "session_id": "a99e147a-88af-4cfe-9750-af39774b52df",
            "transcript_path": "/tmp/t.jsonl", "cwd": "/tmp", "hook_event_name": event,
            "timestamp": "2026-12-02T01:40:00.000Z", "permission_mode": "yolo",
            "tool_name": tool,
        });
        v.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        v.to_string().into_bytes()
    }

    #[test]
    fn post_tool_use_hands_other_tools_text_results_to_wrap() {
        let after = |tool: &str, response: Value| {
            respond(&input(
                "PostToolUse",
                tool,
                serde_json::json!({"tool_input": {}, "tool_response": response}),
            ))
            .unwrap()
        };
        let request = after(
            "mcp__fake__big",
            serde_json::json!({"llmContent": [{"text": "a"}, {"text": "b"}], "returnDisplay": "ab"}),
        )
        .spill
        .unwrap();
        assert_eq!(request.bytes, b"ab");
        assert_eq!(request.scope, "qwen-a99e147a-88af-4cfe-9750-af39774b52df");
        assert_eq!(request.label, "mcp__fake__big");
        assert_eq!(request.reply, Reply(post_tool_use_reply));
        assert_eq!(request.cut, None);
        // The shell's result is Qwen Code's own, already bounded: left alone.
        assert_eq!(
            after(
                "run_shell_command",
                serde_json::json!({"llmContent": "Command: ls\nOutput: x"})
            ),
            Response::default()
        );
        let cut = after(
            "read_file",
            serde_json::json!({"llmContent": "Showing lines 1-2000 of 18002 total lines.\n\n---\n\nrow 1\n"}),
        );
        assert_eq!(
            cut.spill.unwrap().cut.as_deref(),
            Some("lines 1-2000 of the file's 18002: Qwen Code cut the rest before spill saw it")
        );
    }

    #[test]
    fn a_read_file_result_qwen_cut_is_known_for_what_it_holds() {
        let cut = "Showing lines 1-2000 of at least 5000 total lines.\n\n---\n\nrow 1\n";
        assert_eq!(
            read_file_cut("read_file", cut).as_deref(),
            Some(
                "lines 1-2000 of the file's at least 5000: Qwen Code cut the rest before spill saw it"
            )
        );
        assert_eq!(read_file_cut("grep_search", cut), None);
        assert_eq!(
            read_file_cut("read_file", "row 1\nShowing lines 1-2 of 3 total lines."),
            None
        );
        assert_eq!(
            read_file_cut("read_file", "Showing lines x-2 of 3 total lines."),
            None
        );
    }

    #[test]
    fn the_reply_replaces_the_result_and_names_the_scope() {
        let envelope = r#"{"spilled":true,"ref":"sp_0123456789abcdef","path":"/tmp/spill-0/qwen-a99e/0123456789abcdef"}"#;
        let reply: Value = serde_json::from_str(&post_tool_use_reply(envelope)).unwrap();
        assert_eq!(reply["continue"], false);
        let reason = reply["stopReason"].as_str().unwrap();
        assert!(
            reason.contains("spill --scope qwen-a99e cat/search REF"),
            "{reason}"
        );
        assert!(reason.ends_with(envelope));
        // No path (a restricted store), or not a Qwen Code scope: the MCP server instead.
        for envelope in [
            r#"{"spilled":true,"ref":"sp_0123456789abcdef"}"#,
            r#"{"spilled":true,"path":"/tmp/spill-0/default/0123456789abcdef"}"#,
        ] {
            let reply: Value = serde_json::from_str(&post_tool_use_reply(envelope)).unwrap();
            let reason = reply["stopReason"].as_str().unwrap();
            assert!(!reason.contains("--scope"), "{reason}");
            assert!(reason.contains("spill mcp"), "{reason}");
        }
    }

    #[test]
    fn session_end_removes_the_scope_and_other_events_pass() {
        let end = respond(&input("SessionEnd", "", serde_json::json!({}))).unwrap();
        assert_eq!(
            end.remove_scope.as_deref(),
            Some("qwen-a99e147a-88af-4cfe-9750-af39774b52df")
        );
        let pre = respond(&input(
            "PreToolUse",
            "run_shell_command",
            serde_json::json!({"tool_input": {"command": "ls"}}),
        ))
        .unwrap();
        assert_eq!(pre.stdout, "");
        assert!(pre.note.unwrap().contains("PreToolUse"));
    }
}
