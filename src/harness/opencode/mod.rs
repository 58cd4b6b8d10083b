//! opencode (`opencode`): spill's plugin in its plugin directory (`init.rs`, `plugin.js`),
//! which hands each bash call to `hook.rs`.

pub mod hook;
pub mod init;
pub mod route;

use std::path::{Path, PathBuf};

use super::{Answer, Facts, Harness, Host, McpFormat, McpProxy, McpServer};
use crate::error::Result;

/// opencode.
pub static HARNESS: Harness = Harness {
    name: "opencode",
    product: "opencode",
    about: "opencode (`opencode`): a plugin in its plugin directory",
    hook_help: "spill's plugin hands each bash call to this command and runs the command it\n\
answers with, in `opencode-SESSION`.",
    init_help: "spill's plugin as ~/.config/opencode/plugin/spill.js (.opencode/plugin/spill.js\n\
with --project), which opencode loads by itself.",
    scope_prefix: hook::SCOPE_PREFIX,
    shell_session: None,
    hook_env: None,
    hook: answer,
    init_file,
    entries: &init::OPENCODE,
    doctor,
    wraps: None,
    mcp_proxy: Some(McpProxy {
        file: mcp_file,
        routes: &route::ROUTES,
    }),
    mcp_server: Some(McpServer {
        file: mcp_file,
        entry: &route::MCP,
    }),
};

/// Answers a hook call: its context read from the process, then `hook::respond`.
fn answer(input: &[u8], host: &dyn Host) -> Answer {
    let spill = host.spill()?;
    let config_dir = config_dir(host).ok();
    let extra = host
        .text("OPENCODE_CONFIG")
        .ok()
        .flatten()
        .map(PathBuf::from);
    let inline = host.text("OPENCODE_CONFIG_CONTENT").ok().flatten();
    let permissions = |cwd: &Path| -> std::result::Result<Vec<serde_json::Value>, String> {
        let mut out = Vec::new();
        if let Some(text) = &inline {
            out.extend(hook::permissions_of(text, "OPENCODE_CONFIG_CONTENT")?);
        }
        for file in hook::config_files(config_dir.as_deref(), extra.as_deref(), cwd) {
            let text = std::fs::read_to_string(&file)
                .map_err(|e| format!("cannot read {}: {e}", file.display()))?;
            out.extend(hook::permissions_of(&text, &file.display().to_string())?);
        }
        Ok(out)
    };
    let default_timeout = host
        .text(hook::DEFAULT_TIMEOUT_VAR)
        .ok()
        .flatten()
        .and_then(|v| v.trim().parse::<u64>().ok());
    let ctx = hook::Context {
        spill: &spill,
        scope_prefix: hook::SCOPE_PREFIX,
        product: "opencode",
        permissions: &permissions,
        default_timeout_ms: default_timeout,
        timeout_cap_ms: None,
    };
    Ok(hook::respond(input, &ctx))
}

/// spill's plugin in opencode's global plugin directory, or the project's
/// `.opencode/plugin`.
fn init_file(project: bool, host: &dyn Host) -> Result<PathBuf> {
    plugin_file(project, host, "opencode")
}

/// spill's plugin of opencode or a fork named `name`: `plugin/spill.js` in its global
/// configuration directory, or in the current directory's `.NAME/` (`project`).
pub(super) fn plugin_file(project: bool, host: &dyn Host, name: &str) -> Result<PathBuf> {
    let dir = if project {
        host.cwd()?.join(format!(".{name}"))
    } else {
        config_dir_of(host, name)?
    };
    Ok(dir.join("plugin/spill.js"))
}

/// The config that registers opencode's MCP servers: `opencode.jsonc` where it exists, else
/// `opencode.json`, in the global configuration directory or (`project`) the current one.
fn mcp_file(project: bool, host: &dyn Host) -> Result<PathBuf> {
    let dir = if project {
        host.cwd()?
    } else {
        config_dir(host)?
    };
    let jsonc = dir.join("opencode.jsonc");
    Ok(if jsonc.exists() {
        jsonc
    } else {
        dir.join("opencode.json")
    })
}

/// What `spill doctor` looks at and says here.
fn doctor(host: &dyn Host) -> Facts {
    let dir = config_dir(host).ok();
    Facts {
        binary: "opencode",
        hook_file: dir.as_ref().map(|d| d.join("plugin/spill.js")),
        mcp_files: dir
            .iter()
            .flat_map(|d| {
                ["opencode.json", "opencode.jsonc"].map(|n| (d.join(n), McpFormat::Opencode))
            })
            .collect(),
        config_dir: dir,
        covered: "bash output (the plugin)",
        uncovered: "MCP and file-read results (opencode cuts them at about 51 KB, no hook \
                    replaces them): run `spill init opencode --proxy-mcp` to route each local MCP server through `spill mcp proxy`",
        routed: Some(
            "file-read results and remote MCP servers' results (opencode cuts them at about 51 KB); a server added later needs `spill init opencode --proxy-mcp` again",
        ),
        sandbox: None,
        idle: None,
    }
}

/// opencode's global configuration directory: `$XDG_CONFIG_HOME/opencode`, else
/// `~/.config/opencode`.
fn config_dir(host: &dyn Host) -> Result<PathBuf> {
    config_dir_of(host, "opencode")
}

/// The global configuration directory of opencode or a fork named `name`:
/// `$XDG_CONFIG_HOME/NAME`, else `~/.config/NAME`.
pub(super) fn config_dir_of(host: &dyn Host, name: &str) -> Result<PathBuf> {
    if let Some(dir) = host.text("XDG_CONFIG_HOME").ok().flatten() {
        return Ok(PathBuf::from(dir).join(name));
    }
    let dir = format!(".config/{name}");
    Ok(super::home(host, &format!("~/{dir} (use --project)"))?.join(dir))
}
