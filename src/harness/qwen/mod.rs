//! Qwen Code (`qwen`, a fork of Gemini CLI): hooks in `settings.json` (`init.rs`), answered by
//! `hook.rs`, which builds on Gemini CLI's.

pub mod hook;
pub mod init;

use std::path::PathBuf;

use super::{Answer, Facts, Harness, Host, McpServer};
use crate::error::Result;

/// Qwen Code.
pub static HARNESS: Harness = Harness {
    name: "qwen-code",
    product: "Qwen Code",
    about: "Qwen Code (`qwen`): hooks in settings.json",
    hook_help: "`PostToolUse` replaces another tool's result over --max-inline by the envelope\n\
in `qwen-SESSION`, and `SessionEnd` removes the scope's entries. Its shell is not wrapped: Qwen\n\
Code's `PreToolUse` cannot change a command.",
    init_help: "PostToolUse (every tool but its shell) and SessionEnd hooks, in\n\
~/.qwen/settings.json (.qwen/settings.json with --project).",
    scope_prefix: hook::SCOPE_PREFIX,
    shell_session: None,
    hook_env: None,
    hook: answer,
    init_file,
    entries: &init::HOOKS,
    doctor,
    wraps: None,
    mcp_proxy: None,
    mcp_server: Some(McpServer {
        file: init_file,
        entry: &super::gemini::init::MCP,
    }),
};

/// Answers a hook call: its context read from the process, then `hook::respond`.
fn answer(input: &[u8], host: &dyn Host) -> Answer {
    let home = host
        .text("HOME")
        .ok()
        .flatten()
        .map(|h| PathBuf::from(h).join(".qwen"));
    let dirs = [host.text("QWEN_RUNTIME_DIR"), host.text("QWEN_HOME")]
        .into_iter()
        .filter_map(|v| v.ok().flatten().map(PathBuf::from));
    let ctx = hook::Context {
        saved_dirs: dirs.chain(home).map(|d| d.join("tmp")).collect(),
    };
    Ok(hook::respond(input, &ctx))
}

/// `~/.qwen/settings.json`, or the project's `.qwen/settings.json` with `--project`.
fn init_file(project: bool, host: &dyn Host) -> Result<PathBuf> {
    super::gemini::settings_file(".qwen", project, host)
}

/// What `spill doctor` looks at and says here.
fn doctor(host: &dyn Host) -> Facts {
    super::gemini::settings_facts(
        init_file(false, host).ok(),
        "qwen",
        "other tools' results over --max-inline (PostToolUse: every tool but the shell; a \
         result Qwen Code cut is taken whole from the file it saved, read_file as it cut it)",
        "shell output: Qwen Code's PreToolUse cannot change a command, so spill does not wrap \
         it (Qwen Code keeps a large output's head and tail and saves the whole of it to a file)",
    )
}
