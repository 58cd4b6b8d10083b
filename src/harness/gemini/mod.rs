//! Gemini CLI (`gemini`): hooks in `settings.json` (`init.rs`), answered by `hook.rs`.

pub mod hook;
pub mod init;

use std::path::{Path, PathBuf};

use super::{Answer, Facts, Harness, Host, McpFormat};
use crate::error::Result;

/// Gemini CLI.
pub static HARNESS: Harness = Harness {
    name: "gemini",
    product: "Gemini CLI",
    about: "Gemini CLI (`gemini`): hooks in settings.json",
    hook_help: "`BeforeTool` rewrites its shell tool's command in `gemini-SESSION`, `AfterTool`\n\
replaces another tool's result over --max-inline by the envelope, and `SessionEnd` removes\n\
the scope's entries.",
    init_help: "BeforeTool (its shell tool), AfterTool (other tools) and SessionEnd hooks, and\n\
hooksConfig.enabled, in ~/.gemini/settings.json (.gemini/settings.json with --project).",
    scope_prefix: hook::SCOPE_PREFIX,
    hook: answer,
    init_file,
    entries: &init::HOOKS,
    doctor,
    wraps: None,
};

/// Answers a hook call: its context read from the process, then `hook::respond`.
fn answer(input: &[u8], host: &dyn Host) -> Answer {
    let spill = host.spill()?;
    let sources = hook::RuleSources {
        user_dir: host
            .text("HOME")
            .ok()
            .flatten()
            .map(|h| PathBuf::from(h).join(".gemini")),
        system_dir: PathBuf::from("/etc/gemini-cli"),
    };
    let ctx = hook::Context {
        spill: &spill,
        shell_rule: &|cwd| sources.shell_rule(cwd),
    };
    Ok(hook::respond(input, &ctx))
}

/// `~/.gemini/settings.json`, or the project's `.gemini/settings.json` with `--project`.
fn init_file(project: bool, host: &dyn Host) -> Result<PathBuf> {
    let dir = if project {
        host.cwd()?
    } else {
        super::home(host, "~/.gemini/settings.json (use --project)")?
    };
    Ok(dir.join(".gemini/settings.json"))
}

/// What `spill doctor` looks at and says here.
fn doctor(host: &dyn Host) -> Facts {
    let settings = init_file(false, host).ok();
    Facts {
        binary: "gemini",
        config_dir: settings
            .as_ref()
            .and_then(|f| f.parent().map(Path::to_path_buf)),
        mcp_files: settings
            .iter()
            .map(|f| (f.clone(), McpFormat::Json))
            .collect(),
        hook_file: settings,
        covered: "shell output (BeforeTool), other tools' results (AfterTool; read_file only \
                  as Gemini cut it, 2,000 lines)",
        uncovered: "nothing else known",
        sandbox: None,
    }
}
