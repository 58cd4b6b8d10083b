//! Codex (`codex`): a hook and its trust in `$CODEX_HOME/config.toml` (`init.rs`), answered by
//! `hook.rs`.

pub mod hook;
pub mod init;
pub mod route;
pub mod sandbox;

use std::path::{Path, PathBuf};

use super::{Answer, Facts, Harness, Host, McpFormat, McpProxy, McpServer};
use crate::error::{Error, Result};

/// Codex.
pub static HARNESS: Harness = Harness {
    name: "codex",
    product: "Codex",
    about: "Codex (`codex`): a hook and its trust in $CODEX_HOME/config.toml",
    hook_help: "a `PreToolUse` call for its shell tool is rewritten the same way, in\n\
`codex-SESSION` (Codex has no session-end hook).",
    init_help: "a PreToolUse hook (its shell tool) and its trust, in $CODEX_HOME/config.toml\n\
(user only), appended as one marked block.",
    scope_prefix: hook::SCOPE_PREFIX,
    shell_session: None,
    hook_env: None,
    hook: answer,
    init_file,
    entries: &init::Block,
    doctor,
    wraps: Some(wraps),
    mcp_proxy: Some(McpProxy {
        file: init_file,
        routes: &route::ROUTES,
    }),
    mcp_server: Some(McpServer {
        file: init_file,
        entry: &init::McpBlock,
    }),
};

/// Whether spill's hook runs in this Codex version: 0.131.0 is the oldest that runs it (0.129.0
/// and 0.130.0 read the same config.toml and never run the trusted hook; `tests/e2e/e2e.py`).
fn wraps(version: &str) -> super::Verdict {
    super::wraps_from(
        version,
        (0, 131, 0),
        "Codex",
        "Codex before 0.131.0 does not run the trusted PreToolUse hook spill writes, so shell \
         output reaches the model as Codex's own cut",
    )
}

/// Answers a hook call: its context read from the process, then `hook::respond`.
fn answer(input: &[u8], host: &dyn Host) -> Answer {
    let spill = host.spill()?;
    let home = codex_home(host).ok();
    let restricted = |cwd: &Path| -> std::result::Result<Vec<String>, String> {
        let mut prefixes = Vec::new();
        for file in hook::rule_files(home.as_deref(), cwd) {
            let text = std::fs::read_to_string(&file)
                .map_err(|e| format!("cannot read {}: {e}", file.display()))?;
            prefixes.extend(
                hook::restricted_prefixes(&text)
                    .map_err(|why| format!("cannot read {}: {why}", file.display()))?,
            );
        }
        Ok(prefixes)
    };
    let ctx = hook::Context {
        spill: &spill,
        restricted: &restricted,
    };
    Ok(hook::respond(input, &ctx))
}

/// `$CODEX_HOME/config.toml`. Codex reads hook trust only from the user's config, so a
/// project's hook would need both files; `--project` is refused instead.
fn init_file(project: bool, host: &dyn Host) -> Result<PathBuf> {
    if project {
        return Err(Error::Usage(
            "Codex reads a hook's trust only from the user's config.toml, so spill's Codex hook is installed \
             for the user: run `spill init codex` without --project"
                .into(),
        ));
    }
    Ok(codex_home(host)?.join("config.toml"))
}

/// What `spill doctor` looks at and says here.
fn doctor(host: &dyn Host) -> Facts {
    let home = codex_home(host).ok();
    Facts {
        binary: "codex",
        hook_file: home.as_ref().map(|d| d.join("config.toml")),
        mcp_files: home
            .iter()
            .map(|d| (d.join("config.toml"), McpFormat::Toml))
            .collect(),
        config_dir: home.clone(),
        covered: "shell output (PreToolUse)",
        uncovered: "MCP tool results (Codex cuts them at about 12 KB and has no hook that \
                    replaces them): run `spill init codex --proxy-mcp` to route each stdio MCP server through `spill mcp proxy`",
        routed: Some(
            "results of remote (url) MCP servers, which Codex cuts at about 12 KB; a server added later needs `spill init codex --proxy-mcp` again",
        ),
        sandbox: home.as_ref().map(|d| {
            let file = d.join("config.toml");
            let text = std::fs::read_to_string(&file).ok();
            let tmpdir = host.var_os("TMPDIR").filter(|v| !v.is_empty());
            // The root spill would use in a command Codex runs: SPILL_DIR, else the default one.
            let root = super::store_root(host);
            // `~/.codex/config.toml` where it is (the line `wrap` prints is kept short).
            let home = host.text("HOME").ok().flatten().map(PathBuf::from);
            let shown = match home.as_deref().and_then(|h| file.strip_prefix(h).ok()) {
                Some(rest) => format!("~/{}", rest.display()),
                None => file.display().to_string(),
            };
            sandbox::sandbox(
                text.as_deref(),
                &shown,
                &root,
                tmpdir.as_deref().map(Path::new),
            )
        }),
        idle: None,
    }
}

/// Codex's home, as Codex finds it: `$CODEX_HOME` (which must exist; Codex resolves it to its
/// canonical path, and that path is part of the hook's trust key), else `~/.codex`.
fn codex_home(host: &dyn Host) -> Result<PathBuf> {
    if let Some(dir) = host.text("CODEX_HOME").ok().flatten() {
        return std::fs::canonicalize(&dir).map_err(|e| {
            Error::Usage(format!(
                "CODEX_HOME is {dir}, which Codex cannot use either ({e}); create it or unset it"
            ))
        });
    }
    Ok(super::home(host, "~/.codex (set CODEX_HOME)")?.join(".codex"))
}
