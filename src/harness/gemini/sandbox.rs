//! Gemini CLI's sandbox as its settings and environment choose it, and whether spill can store
//! under it (README, "Gemini CLI": its sandbox).
//!
//! Gemini CLI reads the sandbox from `-s`/`--sandbox` on its command line (which wins, and which
//! spill cannot see), else `GEMINI_SANDBOX`, else `tools.sandbox` of its settings (the project's
//! `.gemini/settings.json` over the user's; an older top-level `sandbox` too): `true` (docker or
//! podman, whichever is on PATH; `sandbox-exec` on macOS), a command (`docker`, `podman`,
//! `sandbox-exec`, `runsc`, …), or an object `{enabled, command}`.
//!
//! - **macOS Seatbelt (`sandbox-exec`):** Gemini CLI runs itself, its hooks and its shell under
//!   one profile (`SEATBELT_PROFILE`, `permissive-open` by default). Every profile it ships lets
//!   commands write the temporary directory, the project and `~/.cache` (read in 0.61.0's
//!   `sandbox-macos-*.sb`), so spill stores where its root is under one of them, as the default
//!   root (under `TMPDIR`) is.
//! - **A container (`docker`, `podman`, `runsc`):** Gemini CLI runs itself in the container.
//!   0.61.0 removes the user settings' `hooks` from the copy the container reads
//!   (`sanitizeSettingsForSandbox`), and the container holds no spill binary for a project's
//!   hooks to run: spill does not act there, and every output reaches the model as Gemini CLI's
//!   own cut, as without spill. Not run here: no container runtime runs in CI's machine.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::harness::Sandbox;

/// What the doctor reads for Gemini CLI's sandbox.
pub struct Inputs<'a> {
    /// `GEMINI_SANDBOX`, when set.
    pub env: Option<&'a str>,
    /// `SEATBELT_PROFILE`, when set.
    pub profile: Option<&'a str>,
    /// The settings files in Gemini CLI's order (user, then project), with their text.
    pub settings: &'a [(PathBuf, Option<String>)],
    /// The store root a command would use.
    pub root: &'a Path,
    /// The temporary directory (`TMPDIR`, else `/tmp`).
    pub tmpdir: &'a Path,
    /// The project: the current directory.
    pub project: Option<&'a Path>,
    /// The home directory.
    pub home: Option<&'a Path>,
    /// Whether this is macOS (where `true` means `sandbox-exec`).
    pub macos: bool,
}

/// The sandbox value of one settings text: `tools.sandbox`, else the older top-level `sandbox`.
fn setting(text: &str) -> Option<Value> {
    let plain = crate::init::splice::blank_comments(text).ok()?;
    let doc: Value =
        serde_json::from_str(&crate::init::splice::blank_trailing_commas(&plain)).ok()?;
    doc.get("tools")
        .and_then(|t| t.get("sandbox"))
        .or_else(|| doc.get("sandbox"))
        .cloned()
}

/// The command a sandbox value names: `None` for no sandbox, `Some("true")` for Gemini CLI's
/// own choice.
fn command(value: &Value) -> Option<String> {
    match value {
        Value::Bool(true) => Some("true".into()),
        Value::String(s) => match s.trim().to_lowercase().as_str() {
            "" | "0" | "false" => None,
            "1" | "true" => Some("true".into()),
            other => Some(other.to_string()),
        },
        Value::Object(o) if o.get("enabled").and_then(Value::as_bool) == Some(true) => {
            o.get("command").map_or(Some("true".into()), command)
        }
        _ => None,
    }
}

/// Gemini CLI's sandbox as `spill doctor` reports it.
pub fn sandbox(i: &Inputs) -> Sandbox {
    let off = "leave Gemini CLI's sandbox off (no -s, GEMINI_SANDBOX or tools.sandbox) for \
               spill's hooks to act";
    let from_env = i
        .env
        .map(|e| (command(&Value::from(e)), "GEMINI_SANDBOX".to_string()));
    let from_settings = || {
        i.settings.iter().rev().find_map(|(file, text)| {
            let value = setting(text.as_deref()?)?;
            Some((
                command(&value),
                format!("tools.sandbox in {}", file.display()),
            ))
        })
    };
    let Some((chosen, source)) = from_env.or_else(from_settings) else {
        return Sandbox {
            mode: "off (no GEMINI_SANDBOX or tools.sandbox; `-s` on Gemini CLI's command line \
                   would turn it on)"
                .into(),
            stores: Ok("no sandbox: spill stores as anywhere".into()),
            allow: off.into(),
        };
    };
    let Some(chosen) = chosen else {
        return Sandbox {
            mode: format!("off (from {source})"),
            stores: Ok("no sandbox: spill stores as anywhere".into()),
            allow: off.into(),
        };
    };
    let chosen = match chosen.as_str() {
        "true" if i.macos => "sandbox-exec".to_string(),
        "true" => "docker or podman (whichever is on PATH)".to_string(),
        other => other.to_string(),
    };
    let mode = format!("{chosen} (from {source}; `-s` on Gemini CLI's command line wins)");
    if chosen == "sandbox-exec" {
        let profile = i.profile.unwrap_or("permissive-open");
        let mut writable: Vec<PathBuf> = vec![i.tmpdir.to_path_buf()];
        writable.extend(i.project.map(Path::to_path_buf));
        writable.extend(i.home.map(|h| h.join(".cache")));
        let mode = format!("sandbox-exec, profile {profile} ({mode})");
        return match writable.iter().find(|w| i.root.starts_with(w)) {
            Some(w) => Sandbox {
                mode,
                stores: Ok(format!(
                    "the store root {} is under {}, which every Seatbelt profile of Gemini CLI \
                     lets commands write",
                    i.root.display(),
                    w.display()
                )),
                allow: off.into(),
            },
            None => Sandbox {
                mode,
                stores: Err(format!(
                    "the store root {} is outside what Gemini CLI's Seatbelt profiles let \
                     commands write (the temporary directory, the project, ~/.cache)",
                    i.root.display()
                )),
                allow: "unset SPILL_DIR, or set it under TMPDIR, the project or ~/.cache".into(),
            },
        };
    }
    Sandbox {
        mode,
        stores: Err(
            "Gemini CLI runs itself in a container, which gets no hooks of the user's settings \
             (0.61.0 removes them) and no spill binary: output reaches the model as Gemini CLI's \
             own cut, as without spill"
                .into(),
        ),
        allow: off.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(env: Option<&str>, user: Option<&str>, project: Option<&str>, root: &str) -> Sandbox {
        let settings = vec![
            (
                PathBuf::from("/h/.gemini/settings.json"),
                user.map(String::from),
            ),
            (
                PathBuf::from("/p/.gemini/settings.json"),
                project.map(String::from),
            ),
        ];
        sandbox(&Inputs {
            env,
            profile: None,
            settings: &settings,
            root: Path::new(root),
            tmpdir: Path::new("/tmp"),
            project: Some(Path::new("/p")),
            home: Some(Path::new("/h")),
            macos: false,
        })
    }

    #[test]
    fn the_environment_comes_before_the_project_before_the_user() {
        let on = r#"{"tools": {"sandbox": "docker"}}"#;
        let off = "{\n  // mine\n  \"tools\": {\"sandbox\": false,},\n}";
        let s = run(None, Some(on), None, "/tmp/spill-1");
        assert!(
            s.mode.starts_with("docker (from tools.sandbox in /h/"),
            "{s:?}"
        );
        assert!(s.stores.unwrap_err().contains("container"));
        let s = run(None, Some(on), Some(off), "/tmp/spill-1");
        assert!(
            s.mode.starts_with("off (from tools.sandbox in /p/"),
            "{s:?}"
        );
        assert!(s.stores.is_ok());
        let s = run(Some("podman"), None, Some(off), "/tmp/spill-1");
        assert!(s.mode.starts_with("podman (from GEMINI_SANDBOX"), "{s:?}");
        let s = run(Some("0"), Some(on), None, "/tmp/spill-1");
        assert!(s.mode.starts_with("off (from GEMINI_SANDBOX"), "{s:?}");
        let s = run(None, None, None, "/tmp/spill-1");
        assert!(s.mode.starts_with("off (no GEMINI_SANDBOX"), "{s:?}");
        // The older top-level key, and the object form.
        let s = run(None, Some(r#"{"sandbox": true}"#), None, "/tmp/spill-1");
        assert!(s.mode.starts_with("docker or podman"), "{s:?}");
        let s = run(
            None,
            Some(r#"{"tools": {"sandbox": {"enabled": true, "command": "runsc"}}}"#),
            None,
            "/x",
        );
        assert!(s.mode.starts_with("runsc"), "{s:?}");
        let s = run(
            None,
            Some(r#"{"tools": {"sandbox": {"enabled": false}}}"#),
            None,
            "/x",
        );
        assert!(s.mode.starts_with("off"), "{s:?}");
    }

    #[test]
    fn seatbelt_stores_where_its_profiles_let_commands_write() {
        let settings = vec![(PathBuf::from("/h/.gemini/settings.json"), None)];
        let at = |root: &str| {
            sandbox(&Inputs {
                env: Some("sandbox-exec"),
                profile: Some("strict-open"),
                settings: &settings,
                root: Path::new(root),
                tmpdir: Path::new("/var/folders/t"),
                project: Some(Path::new("/p")),
                home: Some(Path::new("/h")),
                macos: true,
            })
        };
        for root in ["/var/folders/t/spill-501", "/p/.spill", "/h/.cache/spill"] {
            let s = at(root);
            assert!(
                s.mode.starts_with("sandbox-exec, profile strict-open"),
                "{s:?}"
            );
            assert!(s.stores.is_ok(), "{root}: {s:?}");
        }
        let s = at("/h/spill");
        assert!(s.stores.unwrap_err().contains("outside"));
        assert!(s.allow.contains("SPILL_DIR"));
    }
}
