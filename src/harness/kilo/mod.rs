//! Kilo Code (`kilo`, `@kilocode/cli`, a fork of opencode): spill's opencode plugin under Kilo
//! Code's names in its plugin directory (`init.rs`), answered by opencode's hook with Kilo
//! Code's scope, configuration files and variables (`hook.rs`).
//!
//! Kilo Code loads opencode's plugins unchanged and, like opencode, checks its `permission`
//! rules after `tool.execute.before`, on the rewritten command (measured with 7.7.7: a
//! `"printf *": "deny"` rule in kilo.json did not stop the rewritten command). So the hook reads
//! every file Kilo Code reads its rules from, and rewrites only when all of them allow the
//! command (README, "Kilo Code").

pub mod hook;
pub mod init;

use std::path::PathBuf;

use super::opencode::{self, route};
use super::{Answer, Facts, Harness, Host, McpFormat, McpProxy, McpServer};
use crate::error::Result;

/// Kilo Code.
pub static HARNESS: Harness = Harness {
    name: "kilo",
    product: "Kilo Code",
    about: "Kilo Code (`kilo`): a plugin in its plugin directory",
    hook_help: "spill's plugin hands each bash call to this command and runs the command it\n\
answers with, in `kilo-SESSION`.",
    init_help: "spill's plugin as ~/.config/kilo/plugin/spill.js (.kilo/plugin/spill.js with\n\
--project), which Kilo Code loads by itself.",
    scope_prefix: hook::SCOPE_PREFIX,
    shell_session: None,
    hook_env: None,
    hook: answer,
    init_file,
    entries: &init::PLUGIN,
    doctor,
    wraps: None,
    mcp_proxy: Some(McpProxy {
        file: mcp_file,
        routes: &route::ROUTES,
    }),
    mcp_server: Some(McpServer {
        file: mcp_file,
        entry: &opencode::route::MCP,
    }),
};

/// Answers a hook call: its context read from the process, then opencode's hook.
fn answer(input: &[u8], host: &dyn Host) -> Answer {
    let spill = host.spill()?;
    let text = |name: &str| host.text(name).ok().flatten();
    let (files, inline) = sources(host);
    let number = |name: &str| text(name).and_then(|v| v.trim().parse::<u64>().ok());
    Ok(hook::respond(
        input,
        &spill,
        &files,
        &inline,
        number(hook::DEFAULT_TIMEOUT_VAR),
        number(hook::TIMEOUT_CAP_VAR),
    ))
}

/// Where Kilo Code's configuration comes from, as its hook reads it: its files, and the
/// variables that hold a configuration (`KILO_CONFIG_CONTENT`) or a `permission` value
/// (`KILO_PERMISSION`).
fn sources(host: &dyn Host) -> (hook::Files, [(&'static str, Option<String>); 2]) {
    let text = |name: &str| host.text(name).ok().flatten();
    let files = hook::Files {
        global: config_dir(host).ok(),
        home: text("HOME").map(PathBuf::from),
        config: text("KILO_CONFIG").map(PathBuf::from),
        config_dir: text("KILO_CONFIG_DIR").map(PathBuf::from),
        project: text("KILO_DISABLE_PROJECT_CONFIG")
            .is_none_or(|v| !matches!(v.as_str(), "1" | "true")),
    };
    let inline = [
        ("KILO_CONFIG_CONTENT", text("KILO_CONFIG_CONTENT")),
        ("KILO_PERMISSION", text("KILO_PERMISSION")),
    ];
    (files, inline)
}

/// spill's plugin in Kilo Code's global plugin directory, or the project's `.kilo/plugin`.
fn init_file(project: bool, host: &dyn Host) -> Result<PathBuf> {
    opencode::plugin_file(project, host, "kilo")
}

/// The config that registers Kilo Code's MCP servers, chosen as `kilo mcp add` chooses it: the
/// first of `kilo.jsonc`, `kilo.json`, `opencode.jsonc` and `opencode.json` that exists in the
/// global configuration directory (or, `project`, the current directory's `.kilo/`,
/// `.kilocode/` and the directory itself), else `kilo.json` there.
fn mcp_file(project: bool, host: &dyn Host) -> Result<PathBuf> {
    let names = ["kilo.jsonc", "kilo.json", "opencode.jsonc", "opencode.json"];
    let dirs = if project {
        let cwd = host.cwd()?;
        vec![cwd.join(".kilo"), cwd.join(".kilocode"), cwd]
    } else {
        vec![config_dir(host)?]
    };
    let fallback = dirs[dirs.len() - 1].join("kilo.json");
    Ok(dirs
        .iter()
        .flat_map(|d| names.map(|n| d.join(n)))
        .find(|f| f.is_file())
        .unwrap_or(fallback))
}

/// What `spill doctor` looks at and says here.
fn doctor(host: &dyn Host) -> Facts {
    let dir = config_dir(host).ok();
    Facts {
        binary: "kilo",
        hook_file: dir.as_ref().map(|d| d.join("plugin/spill.js")),
        mcp_files: dir
            .iter()
            .flat_map(|d| hook::GLOBAL_FILES.map(|n| (d.join(n), McpFormat::Opencode)))
            .collect(),
        config_dir: dir,
        covered: "bash output (the plugin)",
        uncovered: "MCP and file-read results (Kilo Code cuts them at about 51 KB, no hook \
                    replaces them): run `spill init kilo --proxy-mcp` to route each local MCP server through `spill mcp proxy`",
        routed: Some(
            "file-read results and remote MCP servers' results (Kilo Code cuts them at about 51 KB); a server added later needs `spill init kilo --proxy-mcp` again",
        ),
        sandbox: None,
        idle: {
            let (files, inline) = sources(host);
            let cwd = host.current_dir().unwrap_or_else(|_| PathBuf::from("."));
            hook::idle(&files, &inline, &cwd)
        },
    }
}

/// Kilo Code's global configuration directory: `$XDG_CONFIG_HOME/kilo`, else `~/.config/kilo`.
fn config_dir(host: &dyn Host) -> Result<PathBuf> {
    opencode::config_dir_of(host, "kilo")
}
