//! `spill init HARNESS`: find the settings file, merge or remove spill's hooks, back it up,
//! write it atomically (or print the diff).

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::cli::{Harness, InitArgs};
use crate::error::{Error, Result};
use crate::{init, output};

use super::Outcome;

/// The backup's name: the settings file's with this appended.
pub const BACKUP_SUFFIX: &str = ".spill-backup";

/// Runs `spill init`.
pub fn run(args: InitArgs) -> Result<Outcome> {
    let file = match args.harness {
        Harness::ClaudeCode => claude_settings(args.project)?,
        Harness::Codex => codex_config(args.project)?,
        Harness::Gemini => gemini_settings(args.project)?,
        Harness::Opencode => opencode_plugin(args.project)?,
    };
    let backup = PathBuf::from(format!("{}{BACKUP_SUFFIX}", file.display()));
    let existing = read_optional(&file)?;
    let text = existing.clone().unwrap_or_default();
    let spill = std::env::current_exe()
        .map_err(|e| Error::stream("find the spill binary", e))?
        .to_string_lossy()
        .into_owned();
    let bad = |why: String| Error::Usage(format!("{}: {why}; nothing changed", file.display()));
    let saved = read_optional(&backup)?;
    let saved = saved.as_deref();
    let new = match (args.harness, args.uninstall) {
        (Harness::ClaudeCode, true) => init::claude_uninstall(&text, saved),
        (Harness::ClaudeCode, false) => init::claude_install(&text, &spill),
        (Harness::Codex, true) => init::codex::uninstall(&text, saved),
        (Harness::Codex, false) => init::codex::install(&text, &spill, &file.display().to_string()),
        (Harness::Gemini, true) => init::gemini_uninstall(&text, saved),
        (Harness::Gemini, false) => init::gemini_install(&text, &spill),
        (Harness::Opencode, true) => init::opencode_uninstall(&text),
        (Harness::Opencode, false) => init::opencode_install(&text, &spill),
    }
    .map_err(bad)?;
    let mut out = output::stdout();
    let Some(new) = new else {
        let what = if args.uninstall {
            "has no spill hooks"
        } else {
            "already has spill's hooks"
        };
        output::write_all(
            &mut out,
            format!("{} {what}; nothing changed\n", file.display()).as_bytes(),
        )?;
        output::flush(&mut out)?;
        return Ok(Outcome::Found);
    };
    let name = file.display().to_string();
    if args.dry_run {
        output::write_all(&mut out, init::diff(&text, &new, &name, &name).as_bytes())?;
        output::flush(&mut out)?;
        return Ok(Outcome::Found);
    }
    let mut message = String::new();
    if args.uninstall {
        // The backup holds the file as it was before the first `init` (empty: there was none).
        let restored = read_optional(&backup)?.is_some_and(|saved| saved == new);
        if restored && new.is_empty() {
            std::fs::remove_file(&file).map_err(|e| Error::io("remove", &file, e))?;
            message.push_str(&format!("removed {name} (spill had created it)\n"));
        } else {
            write_atomic(&file, new.as_bytes())?;
            message.push_str(&format!("removed spill's hooks from {name}\n"));
        }
        if restored {
            std::fs::remove_file(&backup).map_err(|e| Error::io("remove", &backup, e))?;
        }
    } else {
        if !backup.exists() {
            write_atomic(&backup, text.as_bytes())?;
            let what = if existing.is_some() {
                "backed up"
            } else {
                "recorded the absence of"
            };
            message.push_str(&format!("{what} {name} in {}\n", backup.display()));
        }
        write_atomic(&file, new.as_bytes())?;
        message.push_str(&format!("added spill's hooks to {name}\n"));
    }
    output::write_all(&mut out, message.as_bytes())?;
    output::flush(&mut out)?;
    Ok(Outcome::Found)
}

/// `~/.claude/settings.json` (or `$CLAUDE_CONFIG_DIR/settings.json`), or the project's
/// `.claude/settings.json` with `--project`.
pub fn claude_settings(project: bool) -> Result<PathBuf> {
    if project {
        let cwd =
            std::env::current_dir().map_err(|e| Error::stream("read the current directory", e))?;
        return Ok(cwd.join(".claude/settings.json"));
    }
    let dir = match super::env_text("CLAUDE_CONFIG_DIR").ok().flatten() {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(super::env_text("HOME").ok().flatten().ok_or_else(|| {
            Error::Usage(
                "HOME is not set: cannot find ~/.claude/settings.json (use --project)".into(),
            )
        })?)
        .join(".claude"),
    };
    Ok(dir.join("settings.json"))
}

/// opencode's global configuration directory: `$XDG_CONFIG_HOME/opencode`, else
/// `~/.config/opencode`.
pub fn opencode_config_dir() -> Result<PathBuf> {
    if let Some(dir) = super::env_text("XDG_CONFIG_HOME").ok().flatten() {
        return Ok(PathBuf::from(dir).join("opencode"));
    }
    let home = super::env_text("HOME").ok().flatten().ok_or_else(|| {
        Error::Usage("HOME is not set: cannot find ~/.config/opencode (use --project)".into())
    })?;
    Ok(PathBuf::from(home).join(".config/opencode"))
}

/// spill's plugin in opencode's global plugin directory, or the project's `.opencode/plugin`.
fn opencode_plugin(project: bool) -> Result<PathBuf> {
    let dir = if project {
        std::env::current_dir()
            .map_err(|e| Error::stream("read the current directory", e))?
            .join(".opencode")
    } else {
        opencode_config_dir()?
    };
    Ok(dir.join("plugin/spill.js"))
}

/// `~/.gemini/settings.json`, or the project's `.gemini/settings.json` with `--project`.
pub fn gemini_settings(project: bool) -> Result<PathBuf> {
    let dir = if project {
        std::env::current_dir().map_err(|e| Error::stream("read the current directory", e))?
    } else {
        PathBuf::from(super::env_text("HOME").ok().flatten().ok_or_else(|| {
            Error::Usage(
                "HOME is not set: cannot find ~/.gemini/settings.json (use --project)".into(),
            )
        })?)
    };
    Ok(dir.join(".gemini/settings.json"))
}

/// Codex's home, as Codex finds it: `$CODEX_HOME` (which must exist; Codex resolves it to its
/// canonical path, and that path is part of the hook's trust key), else `~/.codex`.
pub fn codex_home() -> Result<PathBuf> {
    if let Some(dir) = super::env_text("CODEX_HOME").ok().flatten() {
        return std::fs::canonicalize(&dir).map_err(|e| {
            Error::Usage(format!(
                "CODEX_HOME is {dir}, which Codex cannot use either ({e}); create it or unset it"
            ))
        });
    }
    let home = super::env_text("HOME").ok().flatten().ok_or_else(|| {
        Error::Usage("HOME is not set: cannot find ~/.codex (set CODEX_HOME)".into())
    })?;
    Ok(PathBuf::from(home).join(".codex"))
}

/// `$CODEX_HOME/config.toml`. Codex reads hook trust only from the user's config, so a
/// project's hook would need both files; `--project` is refused instead.
fn codex_config(project: bool) -> Result<PathBuf> {
    if project {
        return Err(Error::Usage(
            "Codex reads a hook's trust only from the user's config.toml, so spill's Codex hook is installed \
             for the user: run `spill init codex` without --project"
                .into(),
        ));
    }
    Ok(codex_home()?.join("config.toml"))
}

fn read_optional(path: &Path) -> Result<Option<String>> {
    match std::fs::read(path) {
        Ok(bytes) => String::from_utf8(bytes).map(Some).map_err(|_| {
            Error::Usage(format!(
                "{}: not UTF-8 text; nothing changed",
                path.display()
            ))
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(Error::io("read", path, e)),
    }
}

/// Writes a file through a temporary file in its directory and a rename, keeping the mode of
/// the file it replaces (a symbolic link is followed, so the file it names is the one replaced).
fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let target = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let dir = target.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(|e| Error::io("create directory", dir, e))?;
    let mut tmp = tempfile::NamedTempFile::new_in(dir)
        .map_err(|e| Error::io("create temporary file in", dir, e))?;
    tmp.write_all(bytes)
        .map_err(|e| Error::io("write", tmp.path().to_path_buf(), e))?;
    if let Ok(meta) = std::fs::metadata(&target) {
        std::fs::set_permissions(tmp.path(), meta.permissions())
            .map_err(|e| Error::io("set the mode of", tmp.path().to_path_buf(), e))?;
    }
    tmp.persist(&target)
        .map_err(|e| Error::io("rename into", &target, e.error))?;
    Ok(())
}
