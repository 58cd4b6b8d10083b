//! Claude Code (`claude`): hooks in `settings.json` (`init.rs`), answered by `hook.rs`.

pub mod hook;
pub mod init;

use std::path::PathBuf;

use super::{Answer, Facts, Harness, Host, McpFormat, McpServer, Sandbox, Verdict};
use crate::error::Result;
use crate::store::binding;

/// Claude Code.
pub static HARNESS: Harness = Harness {
    name: "claude-code",
    product: "Claude Code",
    about: "Claude Code (`claude`): hooks in settings.json",
    hook_help: "a `PreToolUse` call for Bash answers with the command rewritten to run under\n\
`spill wrap` in the conversation's scope (`claude-SESSION`), with SPILL_SCOPE and SPILL_TURN\n\
exported to it; a `SessionEnd` call removes that scope's entries.",
    init_help: "PreToolUse (Bash), PostToolUse (MCP tools) and SessionEnd hooks, and the store\n\
root in sandbox.filesystem.allowWrite (for Claude Code's sandbox).",
    scope_prefix: hook::SCOPE_PREFIX,
    shell_session: None,
    hook_env: None,
    hook: answer,
    init_file,
    entries: &init::SETTINGS,
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
    let spill = host.spill()?;
    let home = host.var_os("HOME").map(PathBuf::from);
    let sources = hook::RuleSources {
        config_dir: host
            .var_os("CLAUDE_CONFIG_DIR")
            .filter(|d| !d.is_empty())
            .map(PathBuf::from)
            .or_else(|| home.map(|h| h.join(".claude"))),
        project_dir: host
            .var_os("CLAUDE_PROJECT_DIR")
            .filter(|d| !d.is_empty())
            .map(PathBuf::from),
        managed: PathBuf::from("/etc/claude-code/managed-settings.json"),
        argv: claude_argv(host),
    };
    let headless = host
        .text("CLAUDE_CODE_ENTRYPOINT")
        .ok()
        .flatten()
        .is_some_and(|e| e.starts_with("sdk"))
        || host
            .text("CLAUDE_CODE_SESSION_ATTENDED")
            .ok()
            .flatten()
            .is_some_and(|a| a == "0");
    let root = super::store_root(host);
    let ctx = hook::Context {
        spill: &spill,
        headless,
        rules: &|cwd| sources.gather(cwd),
        root: root.to_str(),
        default_timeout_ms: host
            .text("BASH_DEFAULT_TIMEOUT_MS")
            .ok()
            .flatten()
            .and_then(|v| v.trim().parse().ok()),
    };
    Ok(hook::respond(input, &ctx))
}

/// `~/.claude/settings.json` (or `$CLAUDE_CONFIG_DIR/settings.json`), or the project's
/// `.claude/settings.json` with `--project`.
fn init_file(project: bool, host: &dyn Host) -> Result<PathBuf> {
    if project {
        return Ok(host.cwd()?.join(".claude/settings.json"));
    }
    Ok(config_dir(host)?.join("settings.json"))
}

/// Where Claude Code keeps the MCP servers of the user scope, `.claude.json` in
/// `$CLAUDE_CONFIG_DIR` or the home directory (as `claude mcp add --scope user` writes them), or
/// the project's `.mcp.json` with `--project`.
fn mcp_file(project: bool, host: &dyn Host) -> Result<PathBuf> {
    if project {
        return Ok(host.cwd()?.join(".mcp.json"));
    }
    let dir = match host.text("CLAUDE_CONFIG_DIR")? {
        Some(dir) => PathBuf::from(dir),
        None => super::home(host, "~/.claude.json (use --project)")?,
    };
    Ok(dir.join(".claude.json"))
}

/// What `spill doctor` looks at and says here.
fn doctor(host: &dyn Host) -> Facts {
    let config_dir = config_dir(host).ok();
    let mut mcp_files: Vec<(PathBuf, McpFormat)> = mcp_file(false, host)
        .ok()
        .map(|f| (f, McpFormat::Json))
        .into_iter()
        .collect();
    mcp_files.extend(
        host.current_dir()
            .ok()
            .map(|c| (c.join(".mcp.json"), McpFormat::Json)),
    );
    Facts {
        binary: "claude",
        hook_file: config_dir.as_ref().map(|d| d.join("settings.json")),
        config_dir,
        mcp_files,
        covered: "Bash output (PreToolUse), MCP tool results (PostToolUse)",
        uncovered: "the built-in tools' results (Read, Grep, WebFetch) stay Claude Code's own",
        routed: None,
        sandbox: Some(sandbox(host)),
        idle: None,
    }
}

/// Claude Code's sandbox as its settings files choose it (`sandbox.enabled`, the last file in
/// Claude Code's order of precedence that sets it: user, project, local, managed), and whether a
/// sandboxed command can write the store root: when the root is under one of the files'
/// `sandbox.filesystem.allowWrite` paths (what `spill init claude-code` adds) or the project.
fn sandbox(host: &dyn Host) -> Sandbox {
    let home = host.text("HOME").ok().flatten().map(PathBuf::from);
    let cwd = host.current_dir().ok();
    let mut files: Vec<PathBuf> = config_dir(host)
        .ok()
        .map(|d| d.join("settings.json"))
        .into_iter()
        .collect();
    if let Some(cwd) = &cwd {
        files.push(cwd.join(".claude/settings.json"));
        files.push(cwd.join(".claude/settings.local.json"));
    }
    files.push(PathBuf::from("/etc/claude-code/managed-settings.json"));
    let mut enabled: Option<(bool, PathBuf)> = None;
    let mut grants: Vec<PathBuf> = cwd.iter().cloned().collect();
    for file in &files {
        let Ok(bytes) = std::fs::read(file) else {
            continue;
        };
        let Ok(settings) = serde_json::from_slice::<serde_json::Value>(&bytes) else {
            continue;
        };
        let box_ = &settings["sandbox"];
        if let Some(on) = box_["enabled"].as_bool() {
            enabled = Some((on, file.clone()));
        }
        for path in box_["filesystem"]["allowWrite"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|p| p.as_str())
        {
            let path = match (path.strip_prefix("~/"), &home) {
                (Some(rest), Some(home)) => home.join(rest),
                _ => PathBuf::from(
                    path.strip_prefix('/')
                        .filter(|p| p.starts_with('/'))
                        .unwrap_or(path),
                ),
            };
            if path.is_absolute() {
                grants.push(path);
            }
        }
    }
    let root = super::store_root(host);
    let shown = root.display();
    let allow = format!(
        "add {shown} to sandbox.filesystem.allowWrite in ~/.claude/settings.json (`spill init claude-code` does)"
    );
    let Some((true, file)) = enabled else {
        let mode = match enabled {
            Some((_, file)) => format!("off (sandbox.enabled is false in {})", file.display()),
            None => "off (no settings file sets sandbox.enabled)".into(),
        };
        return Sandbox {
            mode,
            stores: Ok("commands run unsandboxed: spill stores as anywhere".into()),
            allow,
        };
    };
    let mode = format!("on (sandbox.enabled in {})", file.display());
    let stores = match grants.iter().find(|g| root.starts_with(g)) {
        Some(grant) => Ok(format!(
            "sandboxed commands may write {} (sandbox.filesystem.allowWrite or the project), which holds the store {shown}",
            grant.display()
        )),
        None => Err(format!(
            "sandboxed commands may write only the project, Claude Code's temporary directory and sandbox.filesystem.allowWrite, not the store {shown}: large outputs pass through unstored"
        )),
    };
    Sandbox {
        mode,
        stores,
        allow,
    }
}

/// `$CLAUDE_CONFIG_DIR`, else `~/.claude`.
fn config_dir(host: &dyn Host) -> Result<PathBuf> {
    match host.text("CLAUDE_CONFIG_DIR").ok().flatten() {
        Some(dir) => Ok(PathBuf::from(dir)),
        None => Ok(super::home(host, "~/.claude/settings.json (use --project)")?.join(".claude")),
    }
}

/// Whether spill's hooks can wrap in this Claude Code version (`NAME X.Y.Z`), and what to do.
fn wraps(version: &str) -> Verdict {
    let numbers: Vec<u64> = version
        .rsplit(' ')
        .next()
        .unwrap_or("")
        .split('.')
        .map_while(|n| n.parse().ok())
        .collect();
    let update = Some("update Claude Code to 2.1.113 or later".to_string());
    match numbers.as_slice() {
        [major, minor, patch, ..] if (*major, *minor, *patch) < (2, 0, 10) => (
            "no: before 2.0.10 a PreToolUse hook cannot replace a command".into(),
            update,
        ),
        // npm's package runs `cli.js` on node up to 2.1.112 and a native binary from 2.1.113
        // (`npm view @anthropic-ai/claude-code@V bin`); measured with tests/e2e/e2e.py's big
        // command: 2.1.112 unwrapped, 2.1.113 wrapped.
        [major, minor, patch, ..] if (*major, *minor, *patch) < (2, 1, 113) => (
            "no: Claude Code before 2.1.113 runs on node, which overwrites its command line, so \
             spill cannot read its permission flags and lets Bash calls through unwrapped \
             (saying so once per conversation)"
                .into(),
            update,
        ),
        [_, _, _, ..] => (
            "yes, where spill can check the permission rules for a command (README, \"Claude Code\")"
                .into(),
            None,
        ),
        _ => ("unknown (no version found)".into(), None),
    }
}

/// Claude Code's own arguments, for the permission flags it was started with: from
/// `/proc/$CLAUDE_PID/cmdline`, or, where Claude Code sets no `CLAUDE_PID` (2.1.197 and older),
/// from the hook's nearest ancestor that is not a shell, which is the Claude Code process that
/// ran the hook. A Claude Code that runs on node (before 2.1.113) overwrites its command line with its
/// process title (`claude` and the rest NUL bytes): its flags are then unknown.
fn claude_argv(host: &dyn Host) -> std::result::Result<Vec<String>, String> {
    let unknown = "so Claude Code's --allowedTools/--disallowedTools are unknown";
    let pid = match host
        .text("CLAUDE_PID")
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

    /// A process whose environment and current directory a test chooses.
    struct Fake {
        vars: Vec<(&'static str, String)>,
        cwd: PathBuf,
    }

    impl Host for Fake {
        fn var_os(&self, name: &str) -> Option<std::ffi::OsString> {
            self.vars
                .iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| v.into())
        }
        fn current_dir(&self) -> std::io::Result<PathBuf> {
            Ok(self.cwd.clone())
        }
        fn spill(&self) -> Result<String> {
            Ok("/usr/bin/spill".into())
        }
    }

    #[test]
    fn the_sandbox_is_read_from_the_settings_files_in_their_order() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        let project = dir.path().join("project");
        std::fs::create_dir_all(home.join(".claude")).unwrap();
        std::fs::create_dir_all(project.join(".claude")).unwrap();
        let host = Fake {
            vars: vec![
                ("HOME", home.display().to_string()),
                ("SPILL_DIR", home.join("store").display().to_string()),
            ],
            cwd: project.clone(),
        };
        let user = home.join(".claude/settings.json");
        assert!(sandbox(&host).mode.starts_with("off (no settings file"));
        std::fs::write(&user, r#"{"sandbox": {"enabled": true}}"#).unwrap();
        let s = sandbox(&host);
        assert!(s.mode.starts_with("on (sandbox.enabled in"), "{s:?}");
        assert!(s.stores.is_err(), "{s:?}");
        assert!(s.allow.contains("sandbox.filesystem.allowWrite"), "{s:?}");
        // A grant of the root, or of a directory above it, written with `~/`.
        std::fs::write(
            &user,
            r#"{"sandbox": {"enabled": true, "filesystem": {"allowWrite": ["~/store"]}}}"#,
        )
        .unwrap();
        assert!(sandbox(&host).stores.is_ok());
        std::fs::write(
            &user,
            r#"{"sandbox": {"enabled": true, "filesystem": {"allowWrite": ["~/stor"]}}}"#,
        )
        .unwrap();
        assert!(
            sandbox(&host).stores.is_err(),
            "a prefix of a name is no grant"
        );
        // The project's local file comes after the user's.
        std::fs::write(
            project.join(".claude/settings.local.json"),
            r#"{"sandbox": {"enabled": false}}"#,
        )
        .unwrap();
        let s = sandbox(&host);
        assert!(
            s.mode.starts_with("off (sandbox.enabled is false in"),
            "{s:?}"
        );
        assert!(s.stores.is_ok());
    }

    #[test]
    fn claude_code_versions_are_told_apart() {
        assert!(
            wraps("@anthropic-ai/claude-code 2.0.9")
                .0
                .starts_with("no: before")
        );
        for node in ["2.0.10", "2.0.77", "2.1.0", "2.1.112"] {
            let (line, fix) = wraps(&format!("@anthropic-ai/claude-code {node}"));
            assert!(
                line.contains("runs on node, which overwrites"),
                "{node}: {line}"
            );
            assert_eq!(
                fix.as_deref(),
                Some("update Claude Code to 2.1.113 or later")
            );
        }
        assert!(
            wraps("@anthropic-ai/claude-code 2.1.113")
                .0
                .starts_with("yes")
        );
        assert!(
            wraps("@anthropic-ai/claude-code 2.1.197")
                .0
                .starts_with("yes")
        );
        assert!(wraps("@anthropic-ai/claude-code 1.0.128").1.is_some());
        assert!(wraps("unknown").0.starts_with("unknown"));
    }
}
