//! Pi (`pi`, `@mariozechner/pi-coding-agent`): spill's extension in its extensions directory
//! (`init.rs`, `extension.js`), which hands each bash call and every other tool's result to
//! `hook.rs`.

pub mod hook;
pub mod init;

use std::path::{Path, PathBuf};

use super::{Answer, Facts, Harness, Host};
use crate::error::Result;

/// Pi.
pub static HARNESS: Harness = Harness {
    name: "pi",
    product: "Pi",
    about: "Pi (`pi`): an extension in its extensions directory",
    hook_help: "spill's extension hands each bash call to this command and runs the command it\n\
answers with, in `pi-SESSION`; another tool's result over --max-inline is replaced by the\n\
envelope, and the session's end removes the scope's entries.",
    init_help: "spill's extension as ~/.pi/agent/extensions/spill.js (.pi/extensions/spill.js\n\
with --project), which Pi loads by itself.",
    scope_prefix: hook::SCOPE_PREFIX,
    shell_session: None,
    hook_env: None,
    hook: answer,
    init_file,
    entries: &init::EXTENSION,
    doctor,
    wraps: None,
    mcp_proxy: None,
    mcp_server: None,
};

/// Answers a hook call: its context read from the process, then `hook::respond`.
fn answer(input: &[u8], host: &dyn Host) -> Answer {
    let spill = host.spill()?;
    let agent = agent_dir(host).ok();
    let own_shell = |cwd: &str| {
        let files = agent.iter().map(|d| d.join("settings.json"));
        let project = Path::new(cwd).join(".pi/settings.json");
        shell_setting(files.chain([project]))
    };
    let ctx = hook::Context {
        spill: &spill,
        own_shell: &own_shell,
    };
    Ok(hook::respond(input, &ctx))
}

/// The first of Pi's settings that change its shell (`shellCommandPrefix`, `shellPath`: a
/// string that is not empty) in these settings files (those that exist), or why one cannot be
/// read.
fn shell_setting(
    files: impl IntoIterator<Item = PathBuf>,
) -> std::result::Result<Option<String>, String> {
    for file in files {
        let text = match std::fs::read_to_string(&file) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => return Err(format!("cannot read {}: {e}", file.display())),
        };
        let doc: serde_json::Value = serde_json::from_str(&text)
            .map_err(|e| format!("cannot parse {}: {e}", file.display()))?;
        for key in ["shellCommandPrefix", "shellPath"] {
            if doc[key].as_str().is_some_and(|v| !v.is_empty()) {
                return Ok(Some(key.to_string()));
            }
        }
    }
    Ok(None)
}

/// spill's extension in Pi's global extensions directory, or the project's `.pi/extensions`.
fn init_file(project: bool, host: &dyn Host) -> Result<PathBuf> {
    let dir = if project {
        host.cwd()?.join(".pi")
    } else {
        agent_dir(host)?
    };
    Ok(dir.join("extensions/spill.js"))
}

/// What `spill doctor` looks at and says here.
fn doctor(host: &dyn Host) -> Facts {
    let dir = agent_dir(host).ok();
    Facts {
        binary: "pi",
        hook_file: dir.as_ref().map(|d| d.join("extensions/spill.js")),
        mcp_files: Vec::new(),
        config_dir: dir,
        covered: "bash output and other tools' text results over --max-inline (the extension; \
                  a read Pi cut is stored as it cut it)",
        uncovered: "results with images, and errors, which stay as Pi has them; Pi has no MCP \
                    client of its own: an MCP server an extension connects to can run as \
                    `spill mcp proxy -- CMD ARGS`",
        routed: None,
        sandbox: None,
        idle: None,
    }
}

/// Pi's agent directory: `$PI_CODING_AGENT_DIR` (a leading `~/` is the home directory, as Pi
/// reads it), else `~/.pi/agent`.
fn agent_dir(host: &dyn Host) -> Result<PathBuf> {
    if let Some(dir) = host.text("PI_CODING_AGENT_DIR").ok().flatten() {
        if dir == "~" || dir.starts_with("~/") {
            let home = super::home(host, "PI_CODING_AGENT_DIR's ~")?;
            return Ok(home.join(dir.trim_start_matches('~').trim_start_matches('/')));
        }
        return Ok(PathBuf::from(dir));
    }
    Ok(super::home(host, "~/.pi/agent (use --project)")?.join(".pi/agent"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shell_setting_in_either_settings_file_is_found() {
        let dir = tempfile::tempdir().unwrap();
        let global = dir.path().join("global.json");
        let project = dir.path().join("project.json");
        let missing = dir.path().join("missing.json");
        std::fs::write(&global, r#"{"theme": "dark", "shellCommandPrefix": ""}"#).unwrap();
        std::fs::write(&project, r#"{"shellPath": "/bin/zsh"}"#).unwrap();
        assert_eq!(shell_setting([missing.clone(), global.clone()]), Ok(None));
        assert_eq!(
            shell_setting([global.clone(), project.clone()]),
            Ok(Some("shellPath".into()))
        );
        std::fs::write(&global, "{ not json").unwrap();
        assert!(
            shell_setting([global, project])
                .unwrap_err()
                .contains("cannot parse")
        );
    }
}
