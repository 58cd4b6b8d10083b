//! Codex's sandbox as `config.toml` chooses it, and whether spill can store under it (README,
//! "Codex": inside Codex's sandbox).
//!
//! Codex's modes (`sandbox_mode`, or `-s`/`--sandbox` on its command line, which wins):
//! `read-only`, what `codex exec` runs with unless told otherwise, where a command may write
//! nothing, so spill cannot create its store; `workspace-write`, where the working directory,
//! `/tmp` and `$TMPDIR` are writable (unless `[sandbox_workspace_write]` sets
//! `exclude_slash_tmp` or `exclude_tmpdir_env_var`) besides the `writable_roots` listed there;
//! and `danger-full-access`, no sandbox. A `profile` chooses `[profiles.NAME]`, whose
//! `sandbox_mode` comes before the top-level one.

use std::path::{Path, PathBuf};

use crate::harness::Sandbox;

/// Codex's sandbox for a `config.toml` (its text, `None` when it does not exist; `shown`, its
/// path as messages show it), spill's store `root` and the process's `TMPDIR`. `allow` is kept
/// short: `wrap`'s line after an unstored output takes its length from Codex's own cut.
pub fn sandbox(config: Option<&str>, shown: &str, root: &Path, tmpdir: Option<&Path>) -> Sandbox {
    let to_write = format!(
        "run Codex with -s workspace-write, or set sandbox_mode = \"workspace-write\" in {shown}"
    );
    let doc = match config.map(str::parse::<toml_edit::DocumentMut>) {
        None => None,
        Some(Ok(doc)) => Some(doc),
        Some(Err(e)) => {
            let text = e.to_string();
            let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
            return Sandbox {
                mode: format!("unknown ({shown} is not valid TOML: {})", first.trim()),
                stores: Err("Codex cannot start with this config.toml either".into()),
                allow: to_write,
            };
        }
    };
    let top = doc.as_ref().map(|d| d.as_table());
    let profile = top.and_then(|t| t.get("profile")).and_then(|v| v.as_str());
    let from_profile = profile.and_then(|p| {
        top?.get("profiles")?
            .get(p)?
            .get("sandbox_mode")?
            .as_str()
            .map(|m| (m, format!("profile {p:?} in {shown}")))
    });
    let chosen = from_profile.or_else(|| {
        top?.get("sandbox_mode")?
            .as_str()
            .map(|m| (m, shown.to_string()))
    });
    let Some((mode, source)) = chosen else {
        return Sandbox {
            mode: format!(
                "read-only (no sandbox_mode in {shown}: `codex exec` runs read-only unless `-s` says otherwise)"
            ),
            stores: Err(read_only_effect()),
            allow: to_write,
        };
    };
    let mode_line = format!("{mode} (from {source}; `-s` on Codex's command line wins)");
    match mode {
        "danger-full-access" => Sandbox {
            mode: mode_line,
            stores: Ok("no sandbox: spill stores as anywhere".into()),
            allow: to_write,
        },
        "workspace-write" => {
            let options = top.and_then(|t| t.get("sandbox_workspace_write"));
            let flag = |name: &str| {
                options
                    .and_then(|o| o.get(name))
                    .and_then(|v| v.as_bool())
                    .unwrap_or(false)
            };
            let mut roots: Vec<PathBuf> = Vec::new();
            if !flag("exclude_slash_tmp") {
                roots.push(PathBuf::from("/tmp"));
            }
            if !flag("exclude_tmpdir_env_var") {
                roots.extend(tmpdir.map(Path::to_path_buf));
            }
            if let Some(listed) = options
                .and_then(|o| o.get("writable_roots"))
                .and_then(|v| v.as_array())
            {
                roots.extend(listed.iter().filter_map(|v| v.as_str()).map(PathBuf::from));
            }
            match roots.iter().find(|r| under(root, r)) {
                Some(r) => Sandbox {
                    mode: mode_line,
                    stores: Ok(format!(
                        "the store root {} is under {}, which workspace-write lets commands write",
                        root.display(),
                        r.display()
                    )),
                    allow: to_write,
                },
                None => Sandbox {
                    mode: mode_line,
                    stores: Err(format!(
                        "the store root {} is outside the roots workspace-write lets commands write \
                         (the working directory, /tmp and TMPDIR unless excluded, writable_roots)",
                        root.display()
                    )),
                    allow: format!(
                        "add {} to writable_roots under [sandbox_workspace_write] in {shown} (or set SPILL_DIR under /tmp)",
                        super::init::basic_string(&root.display().to_string())
                    ),
                },
            }
        }
        "read-only" => Sandbox {
            mode: mode_line,
            stores: Err(read_only_effect()),
            allow: to_write,
        },
        other => Sandbox {
            mode: format!("{other:?}, which Codex does not know (from {source})"),
            stores: Err("Codex refuses this sandbox_mode".into()),
            allow: to_write,
        },
    }
}

/// What a read-only sandbox does to spill.
fn read_only_effect() -> String {
    "commands may write nothing, so spill cannot store: a large output passes through unchanged \
     (Codex cuts it as without spill), followed by one line saying so"
        .into()
}

/// True when `path` is `dir` or inside it (lexically, and by their canonical paths when both
/// exist: `/tmp` may be a link).
fn under(path: &Path, dir: &Path) -> bool {
    if path.starts_with(dir) {
        return true;
    }
    let canonical_dir = std::fs::canonicalize(dir);
    let existing = path.ancestors().find(|p| p.exists());
    match (canonical_dir, existing.map(std::fs::canonicalize)) {
        (Ok(d), Some(Ok(p))) => p.starts_with(d),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = "/h/.codex/config.toml";

    fn of(config: Option<&str>, root: &str, tmpdir: Option<&str>) -> Sandbox {
        sandbox(config, FILE, Path::new(root), tmpdir.map(Path::new))
    }

    #[test]
    fn no_sandbox_mode_is_read_only_and_spill_cannot_store() {
        for config in [None, Some(""), Some("model = \"m\"\n")] {
            let s = of(config, "/tmp/spill-0", None);
            assert!(s.mode.starts_with("read-only (no sandbox_mode"), "{s:?}");
            assert!(s.stores.is_err());
            assert!(s.allow.contains("-s workspace-write"), "{}", s.allow);
            assert!(s.allow.contains(FILE), "{}", s.allow);
        }
        let s = of(Some("sandbox_mode = \"read-only\"\n"), "/tmp/spill-0", None);
        assert!(s.mode.starts_with("read-only (from /h/.codex"), "{s:?}");
        assert!(s.stores.is_err());
    }

    #[test]
    fn workspace_write_stores_under_tmp_tmpdir_or_a_writable_root() {
        let ww = "sandbox_mode = \"workspace-write\"\n";
        assert!(of(Some(ww), "/tmp/spill-0", None).stores.is_ok());
        assert!(
            of(Some(ww), "/var/t/spill-0", Some("/var/t"))
                .stores
                .is_ok()
        );
        let outside = of(Some(ww), "/srv/store", Some("/var/t"));
        assert!(outside.stores.is_err(), "{outside:?}");
        assert!(
            outside
                .allow
                .starts_with("add \"/srv/store\" to writable_roots"),
            "{}",
            outside.allow
        );
        let listed = format!("{ww}[sandbox_workspace_write]\nwritable_roots = [\"/srv\"]\n");
        assert!(of(Some(&listed), "/srv/store", None).stores.is_ok());
        let excluded = format!(
            "{ww}[sandbox_workspace_write]\nexclude_slash_tmp = true\nexclude_tmpdir_env_var = true\n"
        );
        assert!(of(Some(&excluded), "/tmp/spill-0", None).stores.is_err());
        assert!(
            of(Some(&excluded), "/var/t/spill-0", Some("/var/t"))
                .stores
                .is_err()
        );
    }

    #[test]
    fn a_profile_comes_before_the_top_level_mode_and_odd_files_are_named() {
        let text = "profile = \"w\"\nsandbox_mode = \"read-only\"\n[profiles.w]\nsandbox_mode = \"danger-full-access\"\n";
        let s = of(Some(text), "/x", None);
        assert!(
            s.mode.starts_with("danger-full-access (from profile \"w\""),
            "{s:?}"
        );
        assert!(s.stores.is_ok());
        // A profile without its own mode: the top-level one.
        let text =
            "profile = \"p\"\nsandbox_mode = \"workspace-write\"\n[profiles.p]\nmodel = \"m\"\n";
        assert!(of(Some(text), "/tmp/s", None).stores.is_ok());
        let bad = of(Some("sandbox_mode = \n"), "/tmp/s", None);
        assert!(bad.mode.starts_with("unknown ("), "{bad:?}");
        assert!(bad.stores.is_err());
        let odd = of(Some("sandbox_mode = \"sometimes\"\n"), "/tmp/s", None);
        assert!(odd.mode.contains("does not know"), "{odd:?}");
    }
}
