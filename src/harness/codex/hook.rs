//! Codex (`codex`): `PreToolUse` for its shell tool runs the command under `spill wrap`.
//!
//! Codex hands hooks its shell tool (`exec_command {cmd}`) as `tool_name: "Bash"` with
//! `tool_input: {"command": …}`, and the conversation's `session_id` and `turn_id`
//! (measured with codex-cli 0.171.0). It applies `updatedInput` only together with
//! `permissionDecision: "allow"`, and in Codex that answer grants nothing else: a hook's
//! outcome is "block" or "rewrite", the sandbox still applies to the rewritten command and an
//! escalation request is still refused where it was refused before (measured; README, "Codex").
//!
//! What the rewrite does change is what Codex's exec policy (`prefix_rule`s in `*.rules` files)
//! sees: it parses the shell script it is about to run into commands, and the original command
//! is one quoted argument of `bash -c` in the rewritten one, so a `forbidden` rule for
//! `printf` no longer matches (measured). The hook therefore reads the rules itself and lets
//! every command that a `forbidden` or `prompt` rule could match through unchanged, so Codex
//! applies the rule exactly as without spill. Codex has no session-end hook: a conversation's
//! scope is left to the store's expiry (`spill gc`).

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::hook::{
    Live, Response, detach_after, normalise, open_call, shell_command, through, too_long,
    wrapped_command_detaching,
};
use crate::wrap::shell_quote;

/// How long Codex's `exec_command` waits for a command before it answers with the output so far
/// and leaves the process running (`yield_time_ms`'s default; measured with codex-cli 0.171.0:
/// "Wall time: 10.0006 seconds / Process running with session ID …"). Under `wrap` that answer
/// would be empty (wrap prints at the end), so `wrap` prints the running envelope of a command
/// still running at 8 s (`--report-after`) and goes on; Codex's later reads of the process
/// (`write_stdin`) get the final envelope and the status. Not `--detach-after`: Codex ends
/// what is left of a call's processes when the call's process exits, supervisor and command
/// with them (measured with 0.171.0 in `workspace-write`: the supervisor died at once). The
/// hook input does not carry the call's own `yield_time_ms` (README, "Codex").
pub const YIELD_MS: u64 = 10_000;

/// The scope prefix of Codex conversations.
pub const SCOPE_PREFIX: &str = "codex";

/// What the hook knows besides its input.
pub struct Context<'a> {
    /// The spill binary the rewritten command runs.
    pub spill: &'a str,
    /// The command prefixes that a `forbidden` or `prompt` exec-policy rule names, for a session
    /// working in this directory, or why they cannot be read.
    pub restricted: &'a dyn Fn(&Path) -> std::result::Result<Vec<String>, String>,
}

/// Answers one Codex hook call.
pub fn respond(input: &[u8], ctx: &Context) -> std::result::Result<Response, String> {
    let (input, event, scope) = match open_call(input, SCOPE_PREFIX)? {
        Ok(call) => call,
        Err(through) => return Ok(through),
    };
    if event != "PreToolUse" {
        return Ok(through(format!(
            "{event:?} is not an event spill handles for Codex; nothing done"
        )));
    }
    if input["tool_name"] != "Bash" {
        return Ok(Response::default());
    }
    let (tool_input, command) = match shell_command(&input["tool_input"]) {
        Ok(call) => call,
        Err(through) => return Ok(*through),
    };
    let cwd = PathBuf::from(input["cwd"].as_str().unwrap_or("."));
    let restricted = match (ctx.restricted)(&cwd) {
        Ok(prefixes) => prefixes,
        Err(why) => return Ok(through(format!("{why}; the command runs without spill"))),
    };
    let text = normalise(command);
    if let Some(prefix) = restricted.iter().find(|p| text.contains(p.as_str())) {
        return Ok(through(format!(
            "an exec-policy rule for {prefix:?} may apply to this command; it runs without spill so Codex applies the rule"
        )));
    }
    let turn = input["turn_id"].as_str();
    // Codex runs commands in a login shell (`bash -lc`), whose profile sets PATH anew: spill's
    // own directory is appended (never put first, so it shadows nothing) for the model's
    // `spill cat` calls.
    let dir = Path::new(ctx.spill)
        .parent()
        .map(|d| d.to_string_lossy().into_owned());
    let path = match dir.filter(|d| !d.is_empty()) {
        Some(dir) => format!("PATH=\"$PATH\":{} ", shell_quote(&dir)),
        None => String::new(),
    };
    let rewritten = format!(
        "{path}{}",
        // SPILL_HARNESS: in a read-only sandbox nothing can be stored, and the output then
        // passes through for Codex to cut as without spill (README, "Codex").
        wrapped_command_detaching(
            ctx.spill,
            &scope,
            turn,
            Some(super::HARNESS.name),
            detach_after(YIELD_MS).map(Live::Report),
            command
        )
    );
    // Codex runs it as `bash -lc CMD`: one argument.
    if let Some(unchanged) = too_long(&rewritten) {
        return Ok(unchanged);
    }
    let mut updated: Map<String, Value> = tool_input.clone();
    updated.insert("command".into(), Value::String(rewritten));
    let reply = serde_json::json!({
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "allow",
            "permissionDecisionReason": "spill: output over 16 KiB is stored and replaced by an envelope",
            "updatedInput": Value::Object(updated),
        }
    });
    Ok(Response {
        stdout: format!("{reply}\n"),
        ..Response::default()
    })
}

/// The exec-policy files Codex reads for a session in `cwd`: `CODEX_HOME/rules/*.rules` and
/// `.codex/rules/*.rules` in `cwd` and each directory above it.
pub fn rule_files(codex_home: Option<&Path>, cwd: &Path) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = codex_home.map(|h| h.join("rules")).into_iter().collect();
    dirs.extend(cwd.ancestors().map(|d| d.join(".codex/rules")));
    let mut files = Vec::new();
    for dir in dirs {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut found: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "rules"))
            .collect();
        found.sort();
        files.extend(found);
    }
    files
}

/// The command prefixes (white space as one space, quotes gone) of every `prefix_rule` in `text`
/// whose decision is not `"allow"`. A rule spill cannot read makes the whole file unreadable
/// (`Err`): the hook then wraps nothing rather than guess.
pub fn restricted_prefixes(text: &str) -> std::result::Result<Vec<String>, String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(at) = find_call(rest) {
        let call = &rest[at + "prefix_rule".len()..];
        let (args, after) = balanced(call).ok_or("a prefix_rule( without its closing )")?;
        rest = after;
        let decision = match keyword(args, "decision") {
            None => None,
            Some(value) => Some(
                string_literal(value)
                    .ok_or("a prefix_rule whose decision is not a string")?
                    .0,
            ),
        };
        if decision.as_deref() == Some("allow") {
            continue;
        }
        let pattern = keyword(args, "pattern").ok_or("a prefix_rule without a pattern")?;
        let tokens = list_of_tokens(pattern).ok_or("a prefix_rule pattern spill cannot read")?;
        out.extend(expand(&tokens));
    }
    Ok(out)
}

/// Where the next `prefix_rule(` call starts (not inside a `#` comment).
fn find_call(text: &str) -> Option<usize> {
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let code = line.split('#').next().unwrap_or("");
        if let Some(at) = code.find("prefix_rule") {
            let after = code[at + "prefix_rule".len()..].trim_start();
            if after.starts_with('(') {
                return Some(offset + at);
            }
        }
        offset += line.len();
    }
    None
}

/// The text inside the parentheses that open `text` (after white space), and what follows.
fn balanced(text: &str) -> Option<(&str, &str)> {
    let text = text.trim_start().strip_prefix('(')?;
    let mut depth = 0usize;
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for (i, c) in text.char_indices() {
        if let Some(q) = quote {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == q {
                quote = None;
            }
            continue;
        }
        match c {
            '"' | '\'' => quote = Some(c),
            '(' | '[' => depth += 1,
            ']' => depth = depth.checked_sub(1)?,
            ')' if depth == 0 => return Some((&text[..i], &text[i + 1..])),
            ')' => depth -= 1,
            _ => {}
        }
    }
    None
}

/// The value text after `name =` among a call's top-level arguments.
fn keyword<'a>(args: &'a str, name: &str) -> Option<&'a str> {
    let mut search = args;
    while let Some(at) = search.find(name) {
        let before_ok = search[..at]
            .chars()
            .next_back()
            .is_none_or(|c| !(c.is_alphanumeric() || c == '_'));
        let after = search[at + name.len()..].trim_start();
        if before_ok && let Some(value) = after.strip_prefix('=') {
            return Some(value.trim_start());
        }
        search = &search[at + name.len()..];
    }
    None
}

/// A Starlark string literal at the start of `text`, and what follows it.
fn string_literal(text: &str) -> Option<(String, &str)> {
    let quote = text.chars().next().filter(|c| *c == '"' || *c == '\'')?;
    let mut out = String::new();
    let mut chars = text[1..].char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '\\' => out.push(chars.next()?.1),
            c if c == quote => return Some((out, &text[1 + i + 1..])),
            c => out.push(c),
        }
    }
    None
}

/// `["git", ["push", "fetch"]]`: each position's alternatives.
fn list_of_tokens(text: &str) -> Option<Vec<Vec<String>>> {
    let mut rest = text.strip_prefix('[')?.trim_start();
    let mut tokens = Vec::new();
    loop {
        if rest.starts_with(']') {
            return Some(tokens);
        }
        if let Some(inner) = rest.strip_prefix('[') {
            let mut alternatives = Vec::new();
            let mut r = inner.trim_start();
            loop {
                if let Some(after) = r.strip_prefix(']') {
                    r = after;
                    break;
                }
                let (s, after) = string_literal(r)?;
                alternatives.push(s);
                r = after.trim_start();
                r = r.strip_prefix(',').unwrap_or(r).trim_start();
            }
            tokens.push(alternatives);
            rest = r.trim_start();
        } else {
            let (s, after) = string_literal(rest)?;
            tokens.push(vec![s]);
            rest = after.trim_start();
        }
        rest = rest.strip_prefix(',').unwrap_or(rest).trim_start();
    }
}

/// Every prefix a pattern stands for (at most 64; beyond that its first word only, which
/// matches more commands, never fewer).
fn expand(tokens: &[Vec<String>]) -> Vec<String> {
    let count = tokens
        .iter()
        .try_fold(1usize, |n, alts| n.checked_mul(alts.len().max(1)))
        .unwrap_or(usize::MAX);
    let tokens = if count > 64 { &tokens[..1] } else { tokens };
    let mut out = vec![String::new()];
    for alternatives in tokens {
        out = out
            .iter()
            .flat_map(|prefix| {
                alternatives.iter().map(move |alt| {
                    if prefix.is_empty() {
                        alt.clone()
                    } else {
                        format!("{prefix} {alt}")
                    }
                })
            })
            .collect();
    }
    out.into_iter()
        .map(|p| normalise(&p))
        .filter(|p| !p.is_empty())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pre(command: &str) -> Vec<u8> {
        serde_json::json!({
            "session_id": "01a2315c-8f68-79e3-bc22-bbb7cfe0a188",
            "turn_id": "01a2315c-8fec-7613-b879-8c16f32c6a4f",
            "transcript_path": "/tmp/x.jsonl", "cwd": "/tmp", "hook_event_name": "PreToolUse",
            "model": "m", "permission_mode": "bypassPermissions", "tool_name": "Bash",
            "tool_input": {"command": command}, "tool_use_id": "call_5"
        })
        .to_string()
        .into_bytes()
    }

    fn answer(command: &str, restricted: &[&str]) -> Response {
        let list: Vec<String> = restricted.iter().map(|s| s.to_string()).collect();
        let get = move |_: &Path| Ok(list.clone());
        let ctx = Context {
            spill: "/usr/bin/spill",
            restricted: &get,
        };
        respond(&pre(command), &ctx).unwrap()
    }

    #[test]
    fn a_shell_call_is_rewritten_with_allow_in_the_session_scope() {
        let v: Value = serde_json::from_str(&answer("ls -l", &[]).stdout).unwrap();
        let out = &v["hookSpecificOutput"];
        assert_eq!(out["permissionDecision"], "allow");
        assert_eq!(
            out["updatedInput"]["command"],
            "PATH=\"$PATH\":/usr/bin SPILL_SCOPE=codex-01a2315c-8f68-79e3-bc22-bbb7cfe0a188 \
             SPILL_TURN=01a2315c-8fec-7613-b879-8c16f32c6a4f SPILL_HARNESS=codex SPILL_ALLOW_RUN=1 \
             /usr/bin/spill wrap --label 'ls -l' --report-after 8000ms -- bash -c 'ls -l'"
        );
        // The model's wait on a running ref answers before Codex's own yield.
        let v: Value =
            serde_json::from_str(&answer("spill wait sp_0123456789abcdef", &[]).stdout).unwrap();
        let command = v["hookSpecificOutput"]["updatedInput"]["command"]
            .as_str()
            .unwrap();
        assert!(
            command.ends_with("bash -c 'spill wait sp_0123456789abcdef --timeout 8000ms'"),
            "{command}"
        );
    }

    #[test]
    fn a_command_a_restrictive_rule_could_match_goes_through() {
        let reply = answer("cd x && 'git'  push origin", &["git push"]);
        assert_eq!(reply.stdout, "");
        assert!(reply.note.unwrap().contains("git push"));
        assert!(!answer("git status", &["git push"]).stdout.is_empty());
        let broken = |_: &Path| Err("cannot read default.rules".to_string());
        let ctx = Context {
            spill: "spill",
            restricted: &broken,
        };
        let reply = respond(&pre("ls"), &ctx).unwrap();
        assert_eq!(reply.stdout, "");
        assert!(reply.note.unwrap().contains("default.rules"));
    }

    #[test]
    fn missing_sessions_other_tools_and_events_pass() {
        let get = |_: &Path| Ok(Vec::new());
        let ctx = Context {
            spill: "spill",
            restricted: &get,
        };
        let mut input: Value = serde_json::from_slice(&pre("ls")).unwrap();
        input["session_id"] = "".into();
        let reply = respond(input.to_string().as_bytes(), &ctx).unwrap();
        assert_eq!(reply.stdout, "");
        assert!(reply.note.unwrap().contains("no session_id"));
        input["session_id"] = "s".into();
        input["tool_name"] = "apply_patch".into();
        assert_eq!(
            respond(input.to_string().as_bytes(), &ctx).unwrap(),
            Response::default()
        );
        input["hook_event_name"] = "Stop".into();
        assert!(
            respond(input.to_string().as_bytes(), &ctx)
                .unwrap()
                .note
                .is_some()
        );
        assert!(respond(b"[", &ctx).is_err());
    }

    #[test]
    fn exec_policy_rules_are_read_conservatively() {
        let rules = r#"
# prefix_rule(pattern = ["commented"], decision = "forbidden")
prefix_rule(pattern = ["git", ["push", "fetch"]], decision = "forbidden")
prefix_rule(
    pattern = ["npm", "publish"],
    decision = "prompt",
    justification = "ask first (really)",
)
prefix_rule(pattern=['ls'], decision="allow")
prefix_rule(pattern = ["rm"])
"#;
        assert_eq!(
            restricted_prefixes(rules).unwrap(),
            ["git push", "git fetch", "npm publish", "rm"]
        );
        assert!(restricted_prefixes("prefix_rule(pattern = [\"a\"], decision = \"x\"").is_err());
        assert!(restricted_prefixes("prefix_rule(pattern = some_list)").is_err());
        assert!(restricted_prefixes("prefix_rule(decision = \"forbidden\")").is_err());
        assert_eq!(restricted_prefixes("").unwrap(), Vec::<String>::new());
        let many: Vec<Vec<String>> = (0..4)
            .map(|i| (0..5).map(|j| format!("w{i}{j}")).collect())
            .collect();
        assert_eq!(expand(&many).len(), 5);
    }

    #[test]
    fn rule_files_come_from_codex_home_and_the_project_upwards() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        let project = dir.path().join("p/sub");
        std::fs::create_dir_all(home.join("rules")).unwrap();
        std::fs::create_dir_all(dir.path().join("p/.codex/rules")).unwrap();
        std::fs::create_dir_all(&project).unwrap();
        std::fs::write(home.join("rules/default.rules"), "").unwrap();
        std::fs::write(home.join("rules/notes.txt"), "").unwrap();
        std::fs::write(dir.path().join("p/.codex/rules/p.rules"), "").unwrap();
        let files = rule_files(Some(&home), &project);
        assert_eq!(
            files,
            [
                home.join("rules/default.rules"),
                dir.path().join("p/.codex/rules/p.rules")
            ]
        );
    }
}
