//! GitHub Copilot CLI (`copilot`, `@github/copilot`): hooks in spill's own file of its hooks
//! directory (`init.rs`), answered by `hook.rs`.

pub mod hook;
pub mod init;

use std::path::PathBuf;

use super::{Answer, Facts, Harness, Host, McpFormat, McpServer, Verdict};
use crate::error::Result;

/// The variable Copilot CLI sets in its shell to the session's id (from 1.0.40 or a little
/// earlier: not in 1.0.24).
pub const SESSION_VAR: &str = "COPILOT_AGENT_SESSION_ID";

/// The variable Copilot CLI sets for the hooks it runs, not in its shell (1.0.67 and 1.0.102).
pub const HOOK_VAR: &str = "COPILOT_PROJECT_DIR";

/// GitHub Copilot CLI.
pub static HARNESS: Harness = Harness {
    name: "copilot",
    product: "GitHub Copilot CLI",
    about: "GitHub Copilot CLI (`copilot`): hooks in its hooks directory",
    hook_help: "`PostToolUse` replaces a result over --max-inline (its shell's too)\n\
by the envelope in `copilot-SESSION`, taken whole from the file Copilot CLI saved it to, and\n\
`SessionEnd` removes the scope's entries. Commands are not rewritten: Copilot CLI checks its\n\
permission rules on the command a hook hands back.",
    init_help: "PostToolUse (every tool) and SessionEnd hooks, in\n\
~/.copilot/hooks/spill.json ($COPILOT_HOME/hooks; .github/hooks/spill.json with --project).",
    scope_prefix: hook::SCOPE_PREFIX,
    shell_session: Some(SESSION_VAR),
    hook_env: Some(HOOK_VAR),
    hook: answer,
    init_file,
    entries: &init::HOOKS,
    doctor,
    wraps: Some(wraps),
    mcp_proxy: None,
    mcp_server: Some(McpServer {
        file: mcp_file,
        entry: &init::MCP,
    }),
};

/// Answers a hook call: its context read from the process, then `hook::respond`.
fn answer(input: &[u8], host: &dyn Host) -> Answer {
    // Copilot CLI saves large results in `os.tmpdir()`: `$TMPDIR`, else `/tmp`.
    let tmp = host
        .text("TMPDIR")
        .ok()
        .flatten()
        .map_or_else(|| PathBuf::from("/tmp"), PathBuf::from);
    let ctx = hook::Context {
        temp_dirs: vec![tmp],
    };
    Ok(hook::respond(input, &ctx))
}

/// `~/.copilot/hooks/spill.json` (or under `$COPILOT_HOME`), or the project's
/// `.github/hooks/spill.json` with `--project`.
fn init_file(project: bool, host: &dyn Host) -> Result<PathBuf> {
    if project {
        return Ok(host.cwd()?.join(".github/hooks/spill.json"));
    }
    Ok(config_dir(host)?.join("hooks/spill.json"))
}

/// `mcp-config.json` in Copilot CLI's directory, where it keeps the user's MCP servers; spill
/// registers none for a project.
fn mcp_file(project: bool, host: &dyn Host) -> Result<PathBuf> {
    if project {
        return Err(crate::error::Error::Usage(
            "init: --mcp registers `spill mcp` in GitHub Copilot CLI's own mcp-config.json, \
             which is the user's; run it without --project"
                .into(),
        ));
    }
    Ok(config_dir(host)?.join("mcp-config.json"))
}

/// Whether spill's hooks work in this Copilot CLI version: 1.0.67 is the oldest measured that
/// replaces a result by a `PostToolUse` hook's `modifiedResult` (1.0.49 and older ignore it;
/// versions between could not be run here: they need Node 24 or ship no Linux binary).
fn wraps(version: &str) -> Verdict {
    let (line, fix) = super::wraps_from(
        version,
        (1, 0, 67),
        "GitHub Copilot CLI",
        "before 1.0.67 Copilot CLI ignores the hook's answer that replaces a result (measured \
         with 1.0.49), so results stay as Copilot CLI has them",
    );
    match line.as_str() {
        "yes" => (
            "yes, through PostToolUse: large results are stored and replaced (commands are \
             not rewritten)"
                .into(),
            fix,
        ),
        _ => (line, fix),
    }
}

/// What `spill doctor` looks at and says here.
fn doctor(host: &dyn Host) -> Facts {
    let dir = config_dir(host).ok();
    Facts {
        binary: "copilot",
        hook_file: dir.as_ref().map(|d| d.join("hooks/spill.json")),
        mcp_files: dir
            .iter()
            .map(|d| (d.join("mcp-config.json"), McpFormat::Json))
            .collect(),
        config_dir: dir,
        covered: "every tool's result over --max-inline, its shell's and MCP tools' included \
                  (PostToolUse; a result over 20 KB is taken whole from the file Copilot CLI \
                  saved it to)",
        uncovered: "a failed call's result, which stays as Copilot CLI has it; shell commands \
                    run as Copilot CLI runs them (not under spill wrap), so a running command \
                    is read with Copilot CLI's own read_bash",
        routed: None,
        sandbox: None,
        idle: None,
    }
}

/// `$COPILOT_HOME`, else `~/.copilot`.
fn config_dir(host: &dyn Host) -> Result<PathBuf> {
    match host.text("COPILOT_HOME").ok().flatten() {
        Some(dir) => Ok(PathBuf::from(dir)),
        None => Ok(super::home(host, "~/.copilot (use --project)")?.join(".copilot")),
    }
}
