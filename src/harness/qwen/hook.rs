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
//!
//! Qwen Code cuts a large result of any tool before the hook sees it (`truncateToolOutput`:
//! over 25,000 characters, a head and tail of about 2,500 under a header naming the file that
//! holds the whole result, in its runtime directory's `tmp/`). Such a result is stored from that
//! file, whole, when the file is where Qwen Code writes them (see [`Context::saved_output`]);
//! otherwise the call is left as Qwen Code made it.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::harness::gemini::hook::{after_tool, lines_shown};
use crate::hook::{Reply, Response, open_call, through};

/// The scope prefix of Qwen Code conversations.
pub const SCOPE_PREFIX: &str = "qwen";

/// The first lines of a result Qwen Code cut (`@qwen-code/qwen-code` 0.24.4,
/// `truncateAndSaveToFile`), before the saved file's path.
const CUT_HEADER: &str =
    "Tool output was too large and has been truncated.\nThe full output has been saved to: ";

/// What the hook knows besides its input.
pub struct Context {
    /// The directories Qwen Code saves the whole of a cut result under: `tmp/` of its runtime
    /// directory (`$QWEN_RUNTIME_DIR`, `$QWEN_HOME`, `~/.qwen`).
    pub saved_dirs: Vec<PathBuf>,
}

impl Context {
    /// The whole result Qwen Code saved for a call of `tool` whose result it cut to `text`:
    /// `Ok(None)` when it did not cut it; `Err(why)` when the file it names cannot be taken —
    /// not a regular file named `TOOL_HEX.output` inside one of [`saved_dirs`](Self::saved_dirs)
    /// (a tool's own text could name any file), or unreadable.
    pub fn saved_output(
        &self,
        tool: &str,
        text: &[u8],
    ) -> std::result::Result<Option<Vec<u8>>, String> {
        let Some(rest) = text.strip_prefix(CUT_HEADER.as_bytes()) else {
            return Ok(None);
        };
        let line = rest.split(|&b| b == b'\n').next().unwrap_or_default();
        let named = std::str::from_utf8(line)
            .map_err(|_| "the saved file's name is not UTF-8".to_string())?;
        let path = Path::new(named);
        let why = |what: &str| Err(format!("Qwen Code's saved output {named}: {what}"));
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default();
        let hex = name
            .strip_prefix(tool)
            .and_then(|n| n.strip_prefix('_'))
            .and_then(|n| n.strip_suffix(".output"));
        if !hex.is_some_and(|h| !h.is_empty() && h.bytes().all(|b| b.is_ascii_hexdigit())) {
            return why("not a name Qwen Code gives the tool's saved output");
        }
        match std::fs::symlink_metadata(path) {
            Ok(meta) if meta.file_type().is_file() => {}
            Ok(_) => return why("not a regular file"),
            Err(e) => return why(&e.to_string()),
        }
        let Ok(real) = std::fs::canonicalize(path) else {
            return why("cannot be resolved");
        };
        let inside = self.saved_dirs.iter().any(|dir| {
            std::fs::canonicalize(dir)
                .is_ok_and(|dir| real.parent().is_some_and(|p| p.parent() == Some(&dir)))
        });
        if !inside {
            return why("not in Qwen Code's tmp directory");
        }
        std::fs::read(&real)
            .map(Some)
            .or_else(|e| why(&e.to_string()))
    }
}

/// Answers one Qwen Code hook call.
pub fn respond(input: &[u8], ctx: &Context) -> std::result::Result<Response, String> {
    let (input, event, scope) = match open_call(input, SCOPE_PREFIX)? {
        Ok(call) => call,
        Err(through) => return Ok(through),
    };
    match event.as_str() {
        "PostToolUse" => Ok(post_tool_use(&input, scope, ctx)),
        "SessionEnd" => Ok(Response {
            remove_scope: Some(scope),
            ..Response::default()
        }),
        other => Ok(through(format!(
            "{other:?} is not an event spill handles for Qwen Code; nothing done"
        ))),
    }
}

/// Gemini CLI's `AfterTool` reading of the result, with the whole of a result Qwen Code cut
/// taken from the file it saved.
fn post_tool_use(input: &Value, scope: String, ctx: &Context) -> Response {
    let mut response = after_tool(input, scope, Reply(post_tool_use_reply), read_file_cut);
    if let Some(request) = &mut response.spill {
        match ctx.saved_output(&request.label, &request.bytes) {
            Ok(Some(whole)) => request.bytes = whole,
            Ok(None) => {}
            Err(why) => return through(format!("{why}; the result stays as Qwen Code cut it")),
        }
    }
    response
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

    fn nowhere() -> Context {
        Context {
            saved_dirs: Vec::new(),
        }
    }

    #[test]
    fn a_result_qwen_cut_is_stored_whole_from_the_file_it_saved() {
        let home = tempfile::tempdir().unwrap();
        let tmp = home.path().join(".qwen/tmp");
        let project = tmp.join("bec17b4a");
        std::fs::create_dir_all(&project).unwrap();
        let saved = project.join("mcp__fake__big_874cad7dd6cb.output");
        std::fs::write(&saved, "row 1\nthe whole result\n").unwrap();
        let ctx = Context {
            saved_dirs: vec![home.path().join("nothing/tmp"), tmp.clone()],
        };
        let cut = |path: &Path| {
            format!(
                "{CUT_HEADER}{}\nTo read the complete output, ...\n\nTruncated part of the output:\nrow 1\n",
                path.display()
            )
        };
        let post = |tool: &str, text: String, ctx: &Context| {
            respond(
                &input(
                    "PostToolUse",
                    tool,
                    serde_json::json!({"tool_response": {"llmContent": [{"text": text}]}}),
                ),
                ctx,
            )
            .unwrap()
        };
        let whole = post("mcp__fake__big", cut(&saved), &ctx).spill.unwrap();
        assert_eq!(whole.bytes, b"row 1\nthe whole result\n");
        assert_eq!(whole.cut, None);
        // Anything else is left as Qwen Code cut it: another tool's name, a file outside its
        // tmp directory (a tool's own text may name any file), a link, a missing file.
        let outside = home.path().join("mcp__fake__big_874cad7dd6cc.output");
        std::fs::write(&outside, "a secret\n").unwrap();
        let link = project.join("mcp__fake__big_874cad7dd6cd.output");
        std::os::unix::fs::symlink(&outside, &link).unwrap();
        for (tool, path) in [
            ("mcp__fake__other", saved.clone()),
            ("mcp__fake__big", outside.clone()),
            ("mcp__fake__big", link),
            (
                "mcp__fake__big",
                project.join("mcp__fake__big_000000000000.output"),
            ),
            ("mcp__fake__big", project.join("mcp__fake__big_.output")),
        ] {
            let reply = post(tool, cut(&path), &ctx);
            assert_eq!(reply.spill, None, "{tool} {}", path.display());
            assert!(reply.note.unwrap().contains("as Qwen Code cut it"));
        }
        assert_eq!(post("mcp__fake__big", cut(&saved), &nowhere()).spill, None);
        // A result Qwen Code did not cut is the result.
        let plain = post("mcp__fake__big", "plain".into(), &ctx).spill.unwrap();
        assert_eq!(plain.bytes, b"plain");
    }

    #[test]
    fn post_tool_use_hands_other_tools_text_results_to_wrap() {
        let after = |tool: &str, response: Value| {
            respond(
                &input(
                    "PostToolUse",
                    tool,
                    serde_json::json!({"tool_input": {}, "tool_response": response}),
                ),
                &nowhere(),
            )
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
        let end = respond(&input("SessionEnd", "", serde_json::json!({})), &nowhere()).unwrap();
        assert_eq!(
            end.remove_scope.as_deref(),
            Some("qwen-a99e147a-88af-4cfe-9750-af39774b52df")
        );
        let pre = respond(
            &input(
                "PreToolUse",
                "run_shell_command",
                serde_json::json!({"tool_input": {"command": "ls"}}),
            ),
            &nowhere(),
        )
        .unwrap();
        assert_eq!(pre.stdout, "");
        assert!(pre.note.unwrap().contains("PreToolUse"));
    }
}
