//! GitHub Copilot CLI (`copilot`): `PostToolUse` stores a large result of any tool, its shell
//! included, and answers with the envelope; `SessionEnd` drops the conversation's scope.
//!
//! Copilot CLI reads hooks in Claude Code's layout (PascalCase events, `matcher` and nested
//! `hooks`) and then sends Claude-style input: `{"hook_event_name", "session_id", "cwd",
//! "tool_name", "tool_input", "tool_result": {"result_type", "text_result_for_llm"}}`, its shell
//! tool named `Bash` (`bash` in 1.0.22). Measured with `@github/copilot` 1.0.67 to 1.0.102: 1.0.49
//! and older ignore the answer that replaces a result (1.0.22 to 1.0.49 send this input, 1.0.20
//! and older camelCase fields spill does not read). A `PostToolUse`
//! answer `{"modifiedResult": {"resultType", "textResultForLlm"}}` replaces the result the model
//! reads.
//!
//! **Its shell is not rewritten.** Copilot CLI checks its permission rules on the command a
//! `PreToolUse` hook hands back (`modifiedArgs`), and a command under `spill wrap` is one it
//! cannot analyse: measured with 1.0.102, `--allow-tool 'shell(echo)'` then no longer allows
//! `echo hi`, and any `--deny-tool` denies every rewritten command, even with
//! `--allow-all-tools`. It does not need to be: Copilot CLI saves every result over 20,480
//! bytes whole to `$TMPDIR/<ms>-copilot-tool-output-<id>.txt` before the hook runs and hands
//! the hook (and the model) a notice with a 500-character preview instead ("Output too large to
//! read at once (SIZE). Saved to: PATH …"). The hook stores the result from that file, or from
//! the text itself when Copilot CLI kept it, so the working directory, the environment, the
//! exit status and the permissions are Copilot CLI's own, untouched. The shell's status line
//! (`<shellId: N completed with exit code X>`) stays after the envelope.
//!
//! The model reads the stored result back in the same conversation: the reply names the scope
//! (`spill --scope copilot-ID …`), and from about 1.0.40 on Copilot CLI exports the session's id
//! to its shell (`COPILOT_AGENT_SESSION_ID`, the hook's `session_id`), which spill reads as the
//! scope `copilot-ID` when no other scope is chosen (`Harness::shell_session`), so the
//! envelope's own commands work as written there.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::hook::{Reply, Response, SpillRequest, open_call, through};

/// The scope prefix of Copilot CLI conversations.
pub const SCOPE_PREFIX: &str = "copilot";

/// The notice Copilot CLI puts in place of a result it saved to a file (1.0.22 to 1.0.102).
const SAVED: &str = "Output too large to read at once (";
/// Where the saved file's path starts in that notice.
const SAVED_TO: &str = "). Saved to: ";
/// Where its preview of the saved result starts.
const PREVIEW: &str = "\n\nPreview (first 500 chars):\n";

/// What the hook knows besides its input.
pub struct Context {
    /// The directories Copilot CLI saves large results in: its temporary directory
    /// (`$TMPDIR`, else `/tmp`).
    pub temp_dirs: Vec<PathBuf>,
}

impl Context {
    /// The whole result Copilot CLI saved for `text`, the notice it put in its place: `Ok(None)`
    /// when `text` is no such notice; `Err(why)` when the file it names cannot be taken — not a
    /// regular file named as Copilot CLI names them, directly inside one of
    /// [`temp_dirs`](Self::temp_dirs), starting with the notice's preview (a tool's own text
    /// could name any file), or unreadable.
    pub fn saved_output(&self, text: &str) -> std::result::Result<Option<Vec<u8>>, String> {
        let Some(rest) = text.strip_prefix(SAVED) else {
            return Ok(None);
        };
        let Some((_, rest)) = rest.split_once(SAVED_TO) else {
            return Ok(None);
        };
        let named = rest.split('\n').next().unwrap_or_default();
        let why = |what: &str| Err(format!("Copilot CLI's saved output {named}: {what}"));
        let path = Path::new(named);
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default();
        if !is_saved_name(name) {
            return why("not a name Copilot CLI gives a saved output");
        }
        match std::fs::symlink_metadata(path) {
            Ok(meta) if meta.file_type().is_file() => {}
            Ok(_) => return why("not a regular file"),
            Err(e) => return why(&e.to_string()),
        }
        let Ok(real) = std::fs::canonicalize(path) else {
            return why("cannot be resolved");
        };
        let inside = self.temp_dirs.iter().any(|dir| {
            std::fs::canonicalize(dir).is_ok_and(|dir| real.parent() == Some(dir.as_path()))
        });
        if !inside {
            return why("not in Copilot CLI's temporary directory");
        }
        let bytes = match std::fs::read(&real) {
            Ok(bytes) => bytes,
            Err(e) => return why(&e.to_string()),
        };
        // The preview is the file's first 500 characters (as JavaScript counts them, so a cut
        // through a character's UTF-16 pair ends it in a replacement character).
        let preview = match rest.split_once(PREVIEW) {
            Some((_, preview)) => preview.trim_end_matches('\u{fffd}'),
            None => return why("the notice has no preview"),
        };
        if preview.is_empty() || !String::from_utf8_lossy(&bytes).starts_with(preview) {
            return why("its text is not the notice's preview");
        }
        Ok(Some(bytes))
    }
}

/// Whether `name` is one Copilot CLI gives a saved result: `<ms>-copilot-tool-output-<id>.txt`
/// (1.0.102: `<pid>-<uuid>` for its shell, 32 hex digits for other tools; 1.0.22: six letters
/// and digits) or, for its shell in 1.0.22, `copilot-tool-output-<ms>-<id>.txt`.
fn is_saved_name(name: &str) -> bool {
    let Some(stem) = name.strip_suffix(".txt") else {
        return false;
    };
    let digits = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
    let id = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-');
    if let Some((ms, rest)) = stem.split_once("-copilot-tool-output-") {
        return digits(ms) && id(rest);
    }
    stem.strip_prefix("copilot-tool-output-")
        .and_then(|rest| rest.split_once('-'))
        .is_some_and(|(ms, rest)| digits(ms) && id(rest))
}

/// The length of a shell output Copilot CLI saved without the end marker of its own shell that
/// 1.0.22 leaves after the command's output in the file (`___BEGIN___COMMAND_DONE_MARKER___N`
/// as the last line), which the command never printed.
fn without_done_marker(bytes: &[u8]) -> usize {
    const MARKER: &[u8] = b"___BEGIN___COMMAND_DONE_MARKER___";
    let body = bytes.strip_suffix(b"\n").unwrap_or(bytes);
    let start = body.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    let last = &body[start..];
    let code = last.strip_prefix(MARKER).unwrap_or_default();
    if !code.is_empty() && code.iter().all(u8::is_ascii_digit) {
        start
    } else {
        bytes.len()
    }
}

/// A shell result's text without its status line, and the line: Copilot CLI ends each shell
/// result with `<shellId: N completed with exit code X>` (1.0.102; another `<shellId: …>` line
/// for a command still running) or `<exited with exit code X>` (1.0.22 to 1.0.49).
fn shell_status(text: &str) -> (&str, Option<&str>) {
    let is_status = |line: &str| {
        line.ends_with('>')
            && (line.starts_with("<shellId: ") || line.starts_with("<exited with exit code "))
    };
    let body = text.strip_suffix('\n').unwrap_or(text);
    match body.rsplit_once('\n') {
        Some((before, last)) if is_status(last) => (before, Some(last)),
        None if is_status(body) => ("", Some(body)),
        _ => (text, None),
    }
}

/// Answers one Copilot CLI hook call.
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
            "{other:?} is not an event spill handles for Copilot CLI; nothing done"
        ))),
    }
}

/// A tool's result: its whole text (from the file Copilot CLI saved it to, when it did), for the
/// command layer to pass through `wrap`. A failed call's result is left to Copilot CLI.
fn post_tool_use(input: &Value, scope: String, ctx: &Context) -> Response {
    let result = &input["tool_result"];
    if result["result_type"] != "success" {
        return Response::default();
    }
    let Some(text) = result["text_result_for_llm"].as_str() else {
        return Response::default();
    };
    let tool = input["tool_name"].as_str().unwrap_or("tool");
    // `Bash` from 1.0.24 on, `bash` in 1.0.22.
    let shell = tool.eq_ignore_ascii_case("bash");
    let (text, status) = if shell {
        shell_status(text)
    } else {
        (text, None)
    };
    let bytes = match ctx.saved_output(text) {
        Ok(Some(mut whole)) => {
            if shell {
                whole.truncate(without_done_marker(&whole));
            }
            whole
        }
        Ok(None) => text.as_bytes().to_vec(),
        Err(why) => return through(format!("{why}; the result stays as Copilot CLI made it")),
    };
    let label = match (shell, input["tool_input"]["command"].as_str()) {
        (true, Some(command)) => command,
        _ => tool,
    };
    Response {
        spill: Some(SpillRequest {
            scope,
            bytes,
            label: label.chars().take(200).collect(),
            reply: Reply(post_tool_use_reply),
            cut: None,
            after: status.map(str::to_string),
        }),
        ..Response::default()
    }
}

/// `modifiedResult`: the envelope (and the shell's status line after it) as the result's text,
/// after one sentence naming the conversation's scope for the shell: Copilot CLI exports
/// `COPILOT_AGENT_SESSION_ID` to its shell only from about 1.0.40 on (measured: not in 1.0.24,
/// in 1.0.40), so in an older one the envelope's commands need `--scope`. Without a path (a
/// restricted store) it points to `spill mcp`, which follows the conversation.
pub fn post_tool_use_reply(shown: &str) -> String {
    let envelope = shown.split('\n').next().unwrap_or(shown);
    let scope = serde_json::from_str::<Value>(envelope)
        .ok()
        .and_then(|e| {
            let path = Path::new(e["path"].as_str()?);
            Some(path.parent()?.file_name()?.to_str()?.to_string())
        })
        .filter(|s| s.starts_with(&format!("{SCOPE_PREFIX}-")));
    let how = match scope {
        Some(scope) => format!(
            "in the shell, spill --scope {scope} cat/search REF (or the spill MCP server's tools)"
        ),
        None => {
            "use the spill MCP server's tools (spill mcp), which follow this conversation".into()
        }
    };
    let reply = serde_json::json!({
        "modifiedResult": {
            "resultType": "success",
            "textResultForLlm": format!("spill stored this result; to read it {how}: {shown}"),
        },
    });
    format!("{reply}\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    const SESSION: &str = "c1a8c11c-07bb-4d39-8f72-23f6fbbd5c9f";

    fn post(tool: &str, text: &str) -> Vec<u8> {
        serde_json::json!({
            "hook_event_name": "PostToolUse", "session_id": SESSION,
            "timestamp": "2026-12-03T19:08:59.213Z", "cwd": "/tmp/p", "tool_name": tool,
            "tool_input": {"command": "seq 1 30000", "description": "scripted command"},
            "tool_result": {"result_type": "success", "text_result_for_llm": text},
        })
        .to_string()
        .into_bytes()
    }

    fn notice(path: &Path, preview: &str, status: &str) -> String {
        format!(
            "Output too large to read at once (164.9 KB). Saved to: {}\nConsider using tools \
             like grep (for searching), head/tail (for viewing start/end), view with view_range \
             (for specific sections), or jq (for JSON) to examine portions of the \
             output.\n\nPreview (first 500 chars):\n{preview}{status}",
            path.display()
        )
    }

    fn in_dir(dir: &Path) -> Context {
        Context {
            temp_dirs: vec![dir.to_path_buf()],
        }
    }

    #[test]
    fn a_shell_result_copilot_saved_is_stored_whole_with_its_status_after_the_envelope() {
        let tmp = tempfile::tempdir().unwrap();
        let whole: String = (1..=30000).map(|i| format!("{i}\n")).collect();
        let file = tmp.path().join(
            "1796324939207-copilot-tool-output-26787-1713f5ea-9a36-41b5-aced-5e3bfa7715cb.txt",
        );
        std::fs::write(&file, &whole).unwrap();
        let preview: String = whole.chars().take(500).collect();
        let text = notice(&file, &preview, "\n<shellId: 1 completed with exit code 3>");
        let r = respond(&post("Bash", &text), &in_dir(tmp.path())).unwrap();
        let request = r.spill.unwrap();
        assert_eq!(request.scope, format!("copilot-{SESSION}"));
        assert_eq!(request.bytes, whole.as_bytes());
        assert_eq!(request.label, "seq 1 30000");
        assert_eq!(
            request.after.as_deref(),
            Some("<shellId: 1 completed with exit code 3>")
        );
        assert_eq!(request.reply, Reply(post_tool_use_reply));
        // An MCP tool's result: no status line, the tool's name as the label.
        let file = tmp
            .path()
            .join("1796324939622-copilot-tool-output-cf9cf55aeae24fb98355886d846de8be.txt");
        std::fs::write(&file, &whole).unwrap();
        let r = respond(
            &post("fake-big", &notice(&file, &preview, "")),
            &in_dir(tmp.path()),
        );
        let request = r.unwrap().spill.unwrap();
        assert_eq!((request.label.as_str(), request.after), ("fake-big", None));
        assert_eq!(request.bytes, whole.as_bytes());
    }

    #[test]
    fn a_result_copilot_kept_is_stored_from_its_text() {
        let r = respond(
            &post("Bash", "x\ny\n<shellId: 2 completed with exit code 4>"),
            &in_dir(Path::new("/nonexistent")),
        )
        .unwrap();
        let request = r.spill.unwrap();
        assert_eq!(request.bytes, b"x\ny");
        assert_eq!(
            request.after.as_deref(),
            Some("<shellId: 2 completed with exit code 4>")
        );
        // Only the shell's results have a status line; another tool's text is kept whole.
        let r = respond(&post("view", "a\n<shellId: 2>"), &in_dir(Path::new("/x"))).unwrap();
        assert_eq!(r.spill.unwrap().bytes, b"a\n<shellId: 2>");
        // 1.0.11's status line; a command with no output at all.
        assert_eq!(
            shell_status("a\n<exited with exit code 0>"),
            ("a", Some("<exited with exit code 0>"))
        );
        assert_eq!(
            shell_status("<shellId: 0 completed with exit code 0>"),
            ("", Some("<shellId: 0 completed with exit code 0>"))
        );
    }

    #[test]
    fn a_named_file_that_copilot_did_not_save_is_not_read() {
        let tmp = tempfile::tempdir().unwrap();
        let other = tempfile::tempdir().unwrap();
        let secret = "the secret file's text\n";
        let name = "1796324939207-copilot-tool-output-26787.txt";
        let check = |path: &Path, ctx: &Context, preview: &str, want: &str| {
            let r = respond(&post("fake-big", &notice(path, preview, "")), ctx).unwrap();
            assert!(r.spill.is_none(), "{}", path.display());
            let note = r.note.unwrap();
            assert!(note.contains(want), "{note}");
        };
        // Another name, another directory, a symbolic link, a preview that is not the file's.
        let elsewhere = tmp.path().join("secret.txt");
        std::fs::write(&elsewhere, secret).unwrap();
        check(&elsewhere, &in_dir(tmp.path()), secret, "not a name");
        let outside = other.path().join(name);
        std::fs::write(&outside, secret).unwrap();
        check(&outside, &in_dir(tmp.path()), secret, "temporary directory");
        let deeper = tmp.path().join("sub");
        std::fs::create_dir(&deeper).unwrap();
        std::fs::write(deeper.join(name), secret).unwrap();
        check(
            &deeper.join(name),
            &in_dir(tmp.path()),
            secret,
            "temporary directory",
        );
        let link = tmp.path().join(name);
        std::os::unix::fs::symlink(&elsewhere, &link).unwrap();
        check(&link, &in_dir(tmp.path()), secret, "not a regular file");
        std::fs::remove_file(&link).unwrap();
        std::fs::write(&link, secret).unwrap();
        check(
            &link,
            &in_dir(tmp.path()),
            "another preview",
            "not the notice's preview",
        );
        check(
            &tmp.path().join("1-copilot-tool-output-ab.txt"),
            &in_dir(tmp.path()),
            "",
            "No such file",
        );
        // The same file with its own preview is taken.
        let r = respond(
            &post("fake-big", &notice(&link, secret, "")),
            &in_dir(tmp.path()),
        );
        assert_eq!(r.unwrap().spill.unwrap().bytes, secret.as_bytes());
    }

    #[test]
    fn the_end_marker_copilot_leaves_in_a_saved_shell_output_is_not_stored() {
        assert_eq!(
            without_done_marker(b"1\n2\n___BEGIN___COMMAND_DONE_MARKER___0"),
            4
        );
        assert_eq!(
            without_done_marker(b"___BEGIN___COMMAND_DONE_MARKER___17"),
            0
        );
        for kept in [
            &b"1\n2\n"[..],
            b"1\n___BEGIN___COMMAND_DONE_MARKER___",
            b"x___BEGIN___COMMAND_DONE_MARKER___0",
        ] {
            assert_eq!(without_done_marker(kept), kept.len());
        }
    }

    #[test]
    fn saved_files_are_named_as_each_version_names_them() {
        for name in [
            "1796324939207-copilot-tool-output-26787-1713f5ea-9a36-41b5-aced-5e3bfa7715cb.txt",
            "1796324939622-copilot-tool-output-cf9cf55aeae24fb98355886d846de8be.txt",
            "1796327568021-copilot-tool-output-5c9w45.txt",
            "copilot-tool-output-1796327561266-tn6ryf.txt",
        ] {
            assert!(is_saved_name(name), "{name}");
        }
        for name in [
            "copilot-tool-output-.txt",
            "x-copilot-tool-output-ab.txt",
            "1-copilot-tool-output-ab.txt.sh",
            "1-copilot-tool-output-a/b.txt",
            "copilot-tool-output-12.txt",
            "secret.txt",
        ] {
            assert!(!is_saved_name(name), "{name}");
        }
    }

    #[test]
    fn failed_calls_and_other_events_are_left_alone() {
        let failed = serde_json::json!({
            "hook_event_name": "PostToolUse", "session_id": SESSION, "tool_name": "Bash",
            "tool_result": {"result_type": "failure", "text_result_for_llm": "denied"},
        });
        let ctx = in_dir(Path::new("/tmp"));
        assert_eq!(
            respond(failed.to_string().as_bytes(), &ctx).unwrap(),
            Response::default()
        );
        let end = serde_json::json!({
            "hook_event_name": "SessionEnd", "session_id": SESSION, "reason": "complete",
        });
        assert_eq!(
            respond(end.to_string().as_bytes(), &ctx)
                .unwrap()
                .remove_scope,
            Some(format!("copilot-{SESSION}"))
        );
        let pre = serde_json::json!({"hook_event_name": "PreToolUse", "session_id": SESSION});
        let r = respond(pre.to_string().as_bytes(), &ctx).unwrap();
        assert!(r.stdout.is_empty() && r.note.unwrap().contains("PreToolUse"));
        assert!(respond(b"not json", &ctx).is_err());
    }

    #[test]
    fn the_reply_replaces_the_result_text_and_names_the_scope() {
        let envelope =
            format!("{{\"ref\":\"sp_1\",\"path\":\"/tmp/spill-0/copilot-{SESSION}/0a1b\"}}");
        let reply = post_tool_use_reply(&format!("{envelope}\n<shellId: 1>"));
        let v: Value = serde_json::from_str(&reply).unwrap();
        assert_eq!(v["modifiedResult"]["resultType"], "success");
        let text = v["modifiedResult"]["textResultForLlm"].as_str().unwrap();
        assert!(
            text.ends_with(&format!("{envelope}\n<shellId: 1>")),
            "{text}"
        );
        assert!(
            text.contains(&format!("spill --scope copilot-{SESSION} cat/search REF")),
            "{text}"
        );
        let v: Value = serde_json::from_str(&post_tool_use_reply("{\"ref\":1}")).unwrap();
        let text = v["modifiedResult"]["textResultForLlm"].as_str().unwrap();
        assert!(
            text.contains("spill mcp") && text.ends_with("{\"ref\":1}"),
            "{text}"
        );
    }
}
