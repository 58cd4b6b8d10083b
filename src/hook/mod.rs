//! Harness hooks: translating a harness's hook JSON into spill calls (`spill hook HARNESS`).
//!
//! Each harness has its own file. A hook reads one JSON document, decides, and answers with
//! a [`Response`]: the bytes the harness expects on stdout, a note for stderr, and any store
//! work (dropping a finished conversation's scope) for the command layer to do. Nothing here
//! prints or exits, so the translation is tested directly.

pub mod claude;
pub mod codex;
pub mod gemini;
pub mod opencode;

use crate::wrap::shell_quote;

/// What a hook answers.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Response {
    /// Written to stdout as it is (the harness's hook output format); empty lets the call through.
    pub stdout: String,
    /// One line for stderr: why the call went through unchanged.
    pub note: Option<String>,
    /// A scope whose entries the command layer removes (the conversation has ended).
    pub remove_scope: Option<String>,
    /// A tool result for the command layer to wrap in `scope`: when it spills, the reply
    /// built from its envelope replaces `stdout`.
    pub spill: Option<SpillRequest>,
}

/// A tool result to pass through `wrap` in a conversation's scope.
#[derive(Debug, PartialEq, Eq)]
pub struct SpillRequest {
    /// The conversation's scope.
    pub scope: String,
    /// The result's bytes.
    pub bytes: Vec<u8>,
    /// The envelope's label (the tool's name).
    pub label: String,
    /// How the hook's answer carries the envelope.
    pub reply: Reply,
}

/// The answer formats that carry an envelope.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reply {
    /// Claude Code's `updatedMCPToolOutput`.
    ClaudeMcp,
    /// Gemini CLI's `AfterTool` block decision, the envelope as its reason.
    GeminiAfterTool,
}

impl Reply {
    /// The hook's answer (stdout) for this envelope JSON.
    pub fn render(self, envelope: &str) -> String {
        match self {
            Reply::ClaudeMcp => claude::mcp_reply(envelope),
            Reply::GeminiAfterTool => gemini::after_tool_reply(envelope),
        }
    }
}

/// A hook call as every harness's starts: its JSON, its event name and the conversation's scope
/// (`PREFIX-SESSION`), or (`Err` inside) the response that lets the call through because the
/// input names no session.
type Call = std::result::Result<(serde_json::Value, String, String), Response>;

/// Parses a hook call; `Err` when the input is not JSON.
fn open_call(input: &[u8], prefix: &str) -> std::result::Result<Call, String> {
    let input: serde_json::Value =
        serde_json::from_slice(input).map_err(|e| format!("hook input is not JSON: {e}"))?;
    let event = input["hook_event_name"].as_str().unwrap_or("").to_string();
    let session = input["session_id"].as_str().unwrap_or("");
    Ok(match scope_for(prefix, session) {
        Some(scope) => Ok((input, event, scope)),
        None => Err(through(format!(
            "{event}: no session_id in the hook input, so no conversation scope; the call goes through unchanged"
        ))),
    })
}

/// The arguments of a shell call and their `command`; or the response that lets the call
/// through (no arguments or command: saying so; an empty command: silently).
fn shell_command(
    args: &serde_json::Value,
) -> std::result::Result<(&serde_json::Map<String, serde_json::Value>, &str), Box<Response>> {
    let Some(map) = args.as_object() else {
        return Err(Box::new(through(
            "shell call without arguments; unchanged".into(),
        )));
    };
    let Some(command) = map.get("command").and_then(serde_json::Value::as_str) else {
        return Err(Box::new(through(
            "shell call without a command; unchanged".into(),
        )));
    };
    if command.trim().is_empty() {
        return Err(Box::default());
    }
    Ok((map, command))
}

/// A response that lets the call through unchanged, saying why.
fn through(note: String) -> Response {
    Response {
        note: Some(note),
        ..Response::default()
    }
}

/// Whitespace runs as one space, quotes and backslashes gone: a rule's text and a command
/// compared this way cannot differ by quoting alone.
fn normalise(text: &str) -> String {
    let kept: String = text
        .chars()
        .filter(|c| !matches!(c, '\'' | '"' | '\\'))
        .collect();
    kept.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The store scope of a conversation: `PREFIX-` and the harness's session id with every byte
/// outside `A-Z a-z 0-9 . _ -` replaced by `_`. When that changed the id or made it longer
/// than a scope may be, the first 16 hex digits of the id's BLAKE3 hash end the name instead,
/// so two different ids never share a scope. `None` for an empty or blank id.
pub fn scope_for(prefix: &str, session_id: &str) -> Option<String> {
    if session_id.trim().is_empty() {
        return None;
    }
    let clean: String = session_id
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect();
    let plain = format!("{prefix}-{clean}");
    if clean == session_id && plain.len() <= crate::store::MAX_SCOPE_LEN {
        return Some(plain);
    }
    let hash = blake3::hash(session_id.as_bytes()).to_hex();
    // prefix, '-', at most 40 bytes of the cleaned id (ASCII by now), '-', 16 hex digits.
    let keep = 40.min(clean.len());
    Some(format!("{prefix}-{}-{}", &clean[..keep], &hash[..16]))
}

/// The shell command that runs `command` under `spill wrap` in `scope` (and `turn`), with the
/// scope and turn exported to it, so `spill` calls inside the command read the same scope.
/// `wrap -- bash -c` exits with the command's status; `SPILL_ALLOW_RUN=1` lets `wrap -- CMD`
/// run even where the harness sets `SPILL_RESTRICTED`.
///
/// A command that starts with `spill ` (the model reading a spill) runs in the same
/// environment but not under `wrap`: its output is bounded already, and a full page (16 KiB
/// plus its `next:` line) would otherwise be stored again instead of shown.
pub fn wrapped_command(spill: &str, scope: &str, turn: Option<&str>, command: &str) -> String {
    let mut env = format!("SPILL_SCOPE={}", shell_quote(scope));
    if let Some(turn) = turn.filter(|t| !t.is_empty()) {
        env.push_str(&format!(" SPILL_TURN={}", shell_quote(turn)));
    }
    if command.trim_start().starts_with("spill ") {
        return format!("{env} SPILL_ALLOW_RUN=1 bash -c {}", shell_quote(command));
    }
    format!(
        "{env} SPILL_ALLOW_RUN=1 {} wrap --label {} -- bash -c {}",
        shell_quote(spill),
        shell_quote(label(command)),
        shell_quote(command)
    )
}

/// The envelope label of a command: at most 200 characters of it (the envelope's own limit).
fn label(command: &str) -> &str {
    match command.char_indices().nth(200) {
        Some((at, _)) => &command[..at],
        None => command,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scope_keeps_a_uuid_and_hashes_anything_it_had_to_change() {
        let uuid = "9c248b37-6480-4724-8b4a-4b4f84959f63";
        assert_eq!(scope_for("cc", uuid).unwrap(), format!("cc-{uuid}"));
        let odd = scope_for("cc", "a/b c").unwrap();
        assert!(odd.starts_with("cc-a_b_c-"), "{odd}");
        assert_ne!(odd, scope_for("cc", "a_b_c").unwrap());
        assert_ne!(odd, scope_for("cc", "a/b_c").unwrap());
        let long = scope_for("cc", &"x".repeat(300)).unwrap();
        assert!(crate::store::validate_scope(&long).is_ok(), "{long}");
        for id in ["..", ".", "é", "a\nb", "a\0b", &"ü".repeat(40)] {
            let scope = scope_for("cc", id).unwrap();
            assert!(
                crate::store::validate_scope(&scope).is_ok(),
                "{id:?} -> {scope}"
            );
        }
        assert_eq!(scope_for("cc", ""), None);
        assert_eq!(scope_for("cc", " \t"), None);
    }

    #[test]
    fn the_wrapped_command_survives_the_shell() {
        let nasty = "printf '%s\\n' \"a b\" 'c' $(printf x) `echo y`\n\\ é ✓ '\\''";
        let plain = std::process::Command::new("bash")
            .arg("-c")
            .arg(nasty)
            .output()
            .unwrap();
        // The words after `--` are the command wrap runs: a shell running them does what
        // the original command does.
        let wrapped = wrapped_command("spill", "s", Some("t"), nasty);
        let after = wrapped.split_once(" -- ").unwrap().1;
        let out = std::process::Command::new("sh")
            .arg("-c")
            .arg(after)
            .output()
            .unwrap();
        assert_eq!(out.stdout, plain.stdout);
        assert!(!plain.stdout.is_empty());
    }

    #[test]
    fn the_label_is_cut_on_a_character() {
        let long = "é".repeat(300);
        assert_eq!(label(&long).chars().count(), 200);
        assert_eq!(label("ls"), "ls");
    }
}
