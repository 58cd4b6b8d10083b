//! Gemini CLI (`gemini`): hooks in `settings.json` (`init.rs`), answered by `hook.rs`.

pub mod hook;
pub mod init;

use std::path::{Path, PathBuf};

use super::{Facts, Harness, Host, McpFormat};
use crate::error::Result;
use crate::hook::Response;
use crate::init::Edit;

/// Gemini CLI.
pub struct Gemini;

impl Harness for Gemini {
    fn name(&self) -> &'static str {
        "gemini"
    }

    fn about(&self) -> &'static str {
        "Gemini CLI (`gemini`): hooks in settings.json"
    }

    fn scope_prefix(&self) -> &'static str {
        hook::SCOPE_PREFIX
    }

    fn hook(&self, input: &[u8], host: &dyn Host) -> Result<std::result::Result<Response, String>> {
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
    fn init_file(&self, project: bool, host: &dyn Host) -> Result<PathBuf> {
        let dir = if project {
            host.cwd()?
        } else {
            super::home(host, "~/.gemini/settings.json (use --project)")?
        };
        Ok(dir.join(".gemini/settings.json"))
    }

    fn install(
        &self,
        text: &str,
        spill: &str,
        _file: &str,
    ) -> std::result::Result<Option<Edit>, String> {
        init::install(text, spill)
    }

    fn uninstall(
        &self,
        text: &str,
        backup: Option<&str>,
    ) -> std::result::Result<Option<Edit>, String> {
        init::uninstall(text, backup)
    }

    fn doctor(&self, host: &dyn Host) -> Facts {
        let settings = self.init_file(false, host).ok();
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
        }
    }
}
