//! `spill hook HARNESS`: read the harness's hook JSON on stdin, answer on stdout.

use std::io::Read;
use std::path::PathBuf;

use crate::cli::{Global, Harness, HookArgs};
use crate::error::{Error, Result};
use crate::hook::{self, claude, codex, gemini, opencode};
use crate::store::{Store, binding};
use crate::wrap::{self, Capture, WrapOptions};
use crate::{diag, output};

use super::Outcome;

/// Runs `spill hook`.
pub fn run(global: &Global, args: HookArgs) -> Result<Outcome> {
    let mut input = Vec::new();
    std::io::stdin()
        .lock()
        .read_to_end(&mut input)
        .map_err(|e| Error::stream("read the hook input from stdin", e))?;
    let prefix = match args.harness {
        Harness::ClaudeCode => claude::SCOPE_PREFIX,
        Harness::Codex => codex::SCOPE_PREFIX,
        Harness::Gemini => gemini::SCOPE_PREFIX,
        Harness::Opencode => opencode::SCOPE_PREFIX,
    };
    let answer = match args.harness {
        Harness::ClaudeCode => claude_code(&input)?,
        Harness::Codex => codex(&input)?,
        Harness::Gemini => gemini_cli(&input)?,
        Harness::Opencode => opencode_plugin(&input)?,
    };
    // Input spill cannot read never blocks the call: every harness reads exit 0 with nothing
    // on stdout as "no decision", and a non-zero exit (Claude Code's and Gemini CLI's 2) as
    // "block it". So the call runs unwrapped and the reason goes to stderr.
    let response = match answer {
        Ok(response) => response,
        Err(why) => {
            diag::warning(&format!("{why}; the call goes through unchanged"));
            hook::Response::default()
        }
    };
    if let Some(note) = &response.note {
        diag::note(note);
    }
    if response.remove_scope.is_none()
        && let Some(scope) = hook::conversation_scope(&input, prefix)
    {
        bind(global, &scope);
    }
    if let Some(scope) = &response.remove_scope {
        let mut config = super::store_config(global)?;
        config.scope = scope.clone();
        let store = Store::new(config);
        for entry in store.entries()? {
            store.remove(&entry.reference, "removed")?;
        }
    }
    let mut stdout = response.stdout;
    if let Some(notice) = &response.notice
        && stdout.is_empty()
        && first_notice(global, &input, prefix)
    {
        stdout = format!("{}\n", serde_json::json!({ "systemMessage": notice }));
    }
    if let Some(request) = response.spill {
        let mut config = super::store_config(global)?;
        config.scope = request.scope;
        let max_inline = super::env_parsed("SPILL_MAX_INLINE", crate::limits::parse_size, true)?
            .unwrap_or(crate::limits::MAX_INLINE);
        let opts = WrapOptions {
            max_inline,
            label: Some(request.label),
            ..WrapOptions::default()
        };
        if let Capture::Spilled(spilled) =
            wrap::capture(&mut &request.bytes[..], &opts, &config, &|| false)?
        {
            let mut envelope = wrap::envelope(&spilled, &opts, None, config.restricted);
            if let Some(cut) = &request.cut {
                // The store holds what the harness passed on, not the whole result: the
                // envelope must not say "in full" (README, "Gemini CLI").
                envelope.complete = Some(false);
                envelope.hint = envelope.hint.map(|h| {
                    h.replacen(
                        "Stored in full as ",
                        &format!("Holds only {cut}. Stored as "),
                        1,
                    )
                });
            }
            stdout = request.reply.render(&envelope.to_json());
        }
    }
    let mut out = output::stdout();
    output::write_all(&mut out, stdout.as_bytes())?;
    output::flush(&mut out)?;
    Ok(Outcome::Found)
}

/// Records that the harness process above this hook (and the shells in between) is in the
/// conversation `scope`, for the `spill mcp` server it started (ARCHITECTURE.md, "Conversation
/// bindings"). A failure is a warning: it never blocks the call.
fn bind(global: &Global, scope: &str) {
    let chain = binding::harness_chain();
    let recorded =
        super::store_config(global).and_then(|c| binding::record(&c.root, &chain, scope));
    if let Err(e) = recorded {
        diag::warning(&format!(
            "cannot record the conversation for spill mcp: {e}"
        ));
    }
}

/// Whether this conversation has not been shown a notice yet; marks it shown. Without a store
/// or a session the notice is shown (better twice than never).
fn first_notice(global: &Global, input: &[u8], prefix: &str) -> bool {
    let Some(scope) = hook::conversation_scope(input, prefix) else {
        return true;
    };
    match super::store_config(global) {
        Ok(config) => binding::first_notice(&config.root, &scope),
        Err(_) => true,
    }
}

/// The path of this spill binary, for the rewritten command.
fn spill_path() -> Result<String> {
    Ok(std::env::current_exe()
        .map_err(|e| Error::stream("find the spill binary", e))?
        .to_string_lossy()
        .into_owned())
}

fn codex(input: &[u8]) -> Result<std::result::Result<hook::Response, String>> {
    let spill = spill_path()?;
    let home = super::init::codex_home().ok();
    let restricted = |cwd: &std::path::Path| -> std::result::Result<Vec<String>, String> {
        let mut prefixes = Vec::new();
        for file in codex::rule_files(home.as_deref(), cwd) {
            let text = std::fs::read_to_string(&file)
                .map_err(|e| format!("cannot read {}: {e}", file.display()))?;
            prefixes.extend(
                codex::restricted_prefixes(&text)
                    .map_err(|why| format!("cannot read {}: {why}", file.display()))?,
            );
        }
        Ok(prefixes)
    };
    let ctx = codex::Context {
        spill: &spill,
        restricted: &restricted,
    };
    Ok(codex::respond(input, &ctx))
}

fn gemini_cli(input: &[u8]) -> Result<std::result::Result<hook::Response, String>> {
    let spill = spill_path()?;
    let sources = gemini::RuleSources {
        user_dir: super::env_text("HOME")
            .ok()
            .flatten()
            .map(|h| PathBuf::from(h).join(".gemini")),
        system_dir: PathBuf::from("/etc/gemini-cli"),
    };
    let ctx = gemini::Context {
        spill: &spill,
        shell_rule: &|cwd| sources.shell_rule(cwd),
    };
    Ok(gemini::respond(input, &ctx))
}

fn opencode_plugin(input: &[u8]) -> Result<std::result::Result<hook::Response, String>> {
    let spill = spill_path()?;
    let config_dir = super::init::opencode_config_dir().ok();
    let extra = super::env_text("OPENCODE_CONFIG")
        .ok()
        .flatten()
        .map(PathBuf::from);
    let inline = super::env_text("OPENCODE_CONFIG_CONTENT").ok().flatten();
    let permissions =
        |cwd: &std::path::Path| -> std::result::Result<Vec<serde_json::Value>, String> {
            let mut out = Vec::new();
            if let Some(text) = &inline {
                out.extend(opencode::permissions_of(text, "OPENCODE_CONFIG_CONTENT")?);
            }
            for file in opencode::config_files(config_dir.as_deref(), extra.as_deref(), cwd) {
                let text = std::fs::read_to_string(&file)
                    .map_err(|e| format!("cannot read {}: {e}", file.display()))?;
                out.extend(opencode::permissions_of(
                    &text,
                    &file.display().to_string(),
                )?);
            }
            Ok(out)
        };
    let ctx = opencode::Context {
        spill: &spill,
        permissions: &permissions,
    };
    Ok(opencode::respond(input, &ctx))
}

fn claude_code(input: &[u8]) -> Result<std::result::Result<hook::Response, String>> {
    let spill = spill_path()?;
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let sources = claude::RuleSources {
        config_dir: std::env::var_os("CLAUDE_CONFIG_DIR")
            .filter(|d| !d.is_empty())
            .map(PathBuf::from)
            .or_else(|| home.map(|h| h.join(".claude"))),
        project_dir: std::env::var_os("CLAUDE_PROJECT_DIR")
            .filter(|d| !d.is_empty())
            .map(PathBuf::from),
        managed: PathBuf::from("/etc/claude-code/managed-settings.json"),
        argv: claude_argv(),
    };
    let headless = super::env_text("CLAUDE_CODE_ENTRYPOINT")
        .ok()
        .flatten()
        .is_some_and(|e| e.starts_with("sdk"))
        || super::env_text("CLAUDE_CODE_SESSION_ATTENDED")
            .ok()
            .flatten()
            .is_some_and(|a| a == "0");
    let ctx = claude::Context {
        spill: &spill,
        headless,
        rules: &|cwd| sources.gather(cwd),
    };
    Ok(claude::respond(input, &ctx))
}

/// Claude Code's own arguments, for the permission flags it was started with: from
/// `/proc/$CLAUDE_PID/cmdline`, or, where Claude Code sets no `CLAUDE_PID` (2.1.197 and older),
/// from the hook's nearest ancestor that is not a shell, which is the Claude Code process that
/// ran the hook. A Claude Code that runs on node (2.0) overwrites its command line with its
/// process title (`claude` and the rest NUL bytes): its flags are then unknown.
fn claude_argv() -> std::result::Result<Vec<String>, String> {
    let unknown = "so Claude Code's --allowedTools/--disallowedTools are unknown";
    let pid = match super::env_text("CLAUDE_PID")
        .ok()
        .flatten()
        .filter(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
    {
        Some(pid) => pid,
        None => match binding::harness_chain().last() {
            Some(process) => process.pid.to_string(),
            None => {
                return Err(format!(
                    "neither CLAUDE_PID nor a Claude Code process above the hook was found, {unknown}"
                ));
            }
        },
    };
    let path = format!("/proc/{pid}/cmdline");
    let bytes = std::fs::read(&path).map_err(|e| format!("cannot read {path} ({e}), {unknown}"))?;
    argv_of(&bytes).ok_or_else(|| {
        format!("Claude Code replaced its command line with its process title, {unknown}")
    })
}

/// The words of a `/proc/PID/cmdline`; `None` when only the first is left and the rest are NUL
/// bytes, as a process title written over the arguments leaves them.
fn argv_of(bytes: &[u8]) -> Option<Vec<String>> {
    let words: Vec<&[u8]> = bytes
        .strip_suffix(b"\0")
        .unwrap_or(bytes)
        .split(|&b| b == 0)
        .collect();
    if words.len() > 1 && words[1..].iter().all(|w| w.is_empty()) {
        return None;
    }
    Some(
        words
            .iter()
            .filter(|a| !a.is_empty())
            .map(|a| String::from_utf8_lossy(a).into_owned())
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_command_line_overwritten_by_a_process_title_is_unknown() {
        assert_eq!(
            argv_of(b"claude\0-p\0--allowedTools\0Bash\0").unwrap(),
            ["claude", "-p", "--allowedTools", "Bash"]
        );
        assert_eq!(argv_of(b"claude\0").unwrap(), ["claude"]);
        assert_eq!(argv_of(b"claude").unwrap(), ["claude"]);
        assert_eq!(argv_of(b"claude\0\0\0\0\0\0"), None);
    }
}
