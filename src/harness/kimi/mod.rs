//! Kimi CLI (`kimi`, `kimi-cli` on PyPI, archived): no hook (`hook.rs` says why, with the
//! evidence), so spill covers its MCP tool results only, through `spill mcp proxy`: `spill init
//! kimi --proxy-mcp` routes each stdio server of `~/.kimi/mcp.json` (`route.rs`).
//!
//! One conversation, one scope: Kimi CLI starts its MCP servers per process (a `kimi` run, one
//! session), and every proxy it starts stores in the one scope of that process
//! (`binding::proxy_scope`), which it claims; spill run in Kimi CLI's shell (a child of the same
//! process) without a chosen scope reads that scope (`binding::claimed_for_self`), so the
//! envelope's commands find its refs there, and another `kimi` process's shell does not
//! (README, "Kimi CLI").

pub mod hook;
pub mod init;
pub mod route;

use std::path::PathBuf;

use super::{Answer, Facts, Harness, Host, McpFormat, McpProxy, McpServer};
use crate::error::{Error, Result};

/// Kimi CLI.
pub static HARNESS: Harness = Harness {
    name: "kimi",
    product: "Kimi CLI",
    about: "Kimi CLI (`kimi`): no hook; its MCP servers through spill mcp proxy",
    hook_help: "no hook: its hooks can only allow or block a call, so this lets every call\n\
through unchanged. Its MCP results go through `spill init kimi --proxy-mcp`.",
    init_help: "no hook (it could not act); with --proxy-mcp, each stdio MCP server of\n\
~/.kimi/mcp.json ($KIMI_SHARE_DIR/mcp.json) routed through spill mcp proxy (user only).",
    scope_prefix: "kimi",
    shell_session: None,
    hook_env: None,
    hook: answer,
    init_file,
    entries: &init::NO_HOOK,
    doctor,
    wraps: None,
    mcp_proxy: Some(McpProxy {
        file: init_file,
        routes: &route::ROUTES,
    }),
    mcp_server: Some(McpServer {
        file: init_file,
        entry: &route::MCP,
    }),
};

/// Answers a hook call: through, always (`hook.rs`).
fn answer(_input: &[u8], _host: &dyn Host) -> Answer {
    Ok(Ok(hook::respond()))
}

/// `mcp.json` in Kimi CLI's share directory, the one file it reads MCP servers from (besides
/// `--mcp-config-file`); it has no project file, so `--project` is refused.
fn init_file(project: bool, host: &dyn Host) -> Result<PathBuf> {
    if project {
        return Err(Error::Usage(
            "Kimi CLI reads its MCP servers only from the user's ~/.kimi/mcp.json (or \
             --mcp-config-file), so run `spill init kimi` without --project"
                .into(),
        ));
    }
    Ok(share_dir(host)?.join("mcp.json"))
}

/// What `spill doctor` looks at and says here.
fn doctor(host: &dyn Host) -> Facts {
    let dir = share_dir(host).ok();
    Facts {
        binary: "kimi",
        hook_file: None,
        mcp_files: dir
            .iter()
            .map(|d| (d.join("mcp.json"), McpFormat::Json))
            .collect(),
        config_dir: dir,
        covered: "MCP tool results, through spill mcp proxy (`spill init kimi --proxy-mcp`)",
        uncovered: "shell output, file reads and MCP results (Kimi CLI cuts an MCP result at \
                    100,000 characters; its hooks can only allow or block a call, so none can \
                    rewrite a command or replace a result): run `spill init kimi --proxy-mcp` to \
                    route each stdio MCP server through `spill mcp proxy`",
        routed: Some(
            "shell output and file reads (Kimi CLI's own cut: its hooks can only allow or block a \
             call), and remote (url) MCP servers' results; a server added later needs `spill init \
             kimi --proxy-mcp` again",
        ),
        sandbox: None,
        idle: None,
    }
}

/// Kimi CLI's share directory, as it finds it: `$KIMI_SHARE_DIR`, else `~/.kimi`.
fn share_dir(host: &dyn Host) -> Result<PathBuf> {
    if let Some(dir) = host.text("KIMI_SHARE_DIR").ok().flatten() {
        return Ok(PathBuf::from(dir));
    }
    Ok(super::home(host, "~/.kimi (set KIMI_SHARE_DIR)")?.join(".kimi"))
}
