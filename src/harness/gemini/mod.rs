//! Gemini CLI (`gemini`): hooks in `settings.json` (`init.rs`), answered by `hook.rs`.

pub mod hook;
pub mod init;
pub mod sandbox;

use std::path::{Path, PathBuf};

use super::{Answer, Facts, Harness, Host, McpFormat, McpServer};
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
    shell_session: None,
    hook_env: None,
    hook: answer,
    init_file,
    entries: &init::HOOKS,
    doctor,
    wraps: Some(wraps),
    mcp_proxy: None,
    mcp_server: Some(McpServer {
        file: init_file,
        entry: &init::MCP,
    }),
};

/// Whether spill's hooks can wrap in this Gemini CLI version: 0.36.0 is the first whose
/// BeforeTool hook can change the tool's input (`hookSpecificOutput.tool_input`).
fn wraps(version: &str) -> super::Verdict {
    super::wraps_from(
        version,
        (0, 36, 0),
        "Gemini CLI",
        "before 0.36.0 a BeforeTool hook cannot change a command, so shell output reaches the \
         model as Gemini CLI's own cut (other tools' results are still replaced)",
    )
}

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
        inactivity_ms: &|cwd| sources.inactivity_ms(cwd),
    };
    Ok(hook::respond(input, &ctx))
}

/// `~/.gemini/settings.json`, or the project's `.gemini/settings.json` with `--project`.
fn init_file(project: bool, host: &dyn Host) -> Result<PathBuf> {
    settings_file(".gemini", project, host)
}

/// `~/DIR/settings.json`, or the project's `DIR/settings.json` with `--project` (Gemini CLI's
/// layout, kept by its forks).
pub(crate) fn settings_file(dir: &str, project: bool, host: &dyn Host) -> Result<PathBuf> {
    let base = if project {
        host.cwd()?
    } else {
        super::home(host, &format!("~/{dir}/settings.json (use --project)"))?
    };
    Ok(base.join(dir).join("settings.json"))
}

/// What `spill doctor` looks at and says here.
fn doctor(host: &dyn Host) -> Facts {
    let mut facts = settings_facts(
        init_file(false, host).ok(),
        "gemini",
        "shell output (BeforeTool), other tools' results (AfterTool; read_file only \
         as Gemini cut it, 2,000 lines)",
        "nothing else known",
    );
    let settings: Vec<(PathBuf, Option<String>)> = [false, true]
        .iter()
        .filter_map(|&project| init_file(project, host).ok())
        .map(|f| {
            let text = std::fs::read_to_string(&f).ok();
            (f, text)
        })
        .collect();
    let tmpdir = host
        .var_os("TMPDIR")
        .filter(|v| !v.is_empty())
        .map_or_else(|| PathBuf::from("/tmp"), PathBuf::from);
    let env = host.text("GEMINI_SANDBOX").ok().flatten();
    let profile = host.text("SEATBELT_PROFILE").ok().flatten();
    let project = host.current_dir().ok();
    let home = host.text("HOME").ok().flatten().map(PathBuf::from);
    facts.sandbox = Some(sandbox::sandbox(&sandbox::Inputs {
        env: env.as_deref(),
        profile: profile.as_deref(),
        settings: &settings,
        root: &super::store_root(host),
        tmpdir: &tmpdir,
        project: project.as_deref(),
        home: home.as_deref(),
        macos: cfg!(target_os = "macos"),
    }));
    facts
}

/// The doctor's facts of a harness whose one `settings.json` holds its hooks and its MCP
/// servers (Gemini CLI and its forks).
pub(crate) fn settings_facts(
    settings: Option<PathBuf>,
    binary: &'static str,
    covered: &'static str,
    uncovered: &'static str,
) -> Facts {
    Facts {
        binary,
        config_dir: settings
            .as_ref()
            .and_then(|f| f.parent().map(Path::to_path_buf)),
        mcp_files: settings
            .iter()
            .map(|f| (f.clone(), McpFormat::Json))
            .collect(),
        hook_file: settings,
        covered,
        uncovered,
        routed: None,
        sandbox: None,
        idle: None,
    }
}
