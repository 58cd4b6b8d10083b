//! `spill init HARNESS`: find the settings file, merge or remove spill's hooks, back it up,
//! write it atomically (or print the diff).

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::cli::InitArgs;
use crate::error::{Error, Result};
use crate::harness::Host as _;
use crate::{init, output};

use super::Outcome;

/// The backup's name: the settings file's with this appended.
pub const BACKUP_SUFFIX: &str = ".spill-backup";

/// Runs `spill init`.
pub fn run(args: InitArgs) -> Result<Outcome> {
    let harness = args.harness;
    let file = (harness.init_file)(args.project, &super::Process)?;
    let name = file.display().to_string();
    let bad = |why: String| Error::Usage(format!("{name}: {why}; nothing changed"));
    let backup = PathBuf::from(format!("{name}{BACKUP_SUFFIX}"));
    // A symbolic link (a dotfiles checkout) stays a link: spill reads and writes what it names.
    let real = resolve_links(&file)?;
    let existing = read_optional(&real)?;
    if existing.is_some() {
        writable(&real).map_err(bad)?;
    } else if real != file && !real.parent().is_some_and(Path::is_dir) {
        return Err(bad(format!(
            "it is a link to {}, whose directory does not exist",
            real.display()
        )));
    }
    let text = existing.clone().unwrap_or_default();
    let spill = super::Process.spill()?;
    let saved = read_optional(&backup)?;
    let saved = saved.as_deref();
    // The root a command the harness runs would store in, for a sandbox that must be told.
    let root = crate::harness::store_root(&super::Process);
    let root = root.to_str().ok_or_else(|| {
        Error::Usage(format!(
            "the store root {} is not valid UTF-8: settings files cannot name it; set SPILL_DIR",
            root.display()
        ))
    })?;
    let edit = if args.uninstall {
        harness.entries.uninstall_at(&text, saved, root)
    } else {
        harness.entries.install_at(&text, &spill, &name, root)
    }
    .map_err(bad)?;
    let mut out = output::stdout();
    let Some(edit) = edit else {
        let what = if args.uninstall {
            "has no spill hooks"
        } else {
            "already has spill's hooks"
        };
        output::write_all(
            &mut out,
            format!("{name} {what}; nothing changed\n").as_bytes(),
        )?;
        output::flush(&mut out)?;
        return Ok(Outcome::Found);
    };
    let new = edit.text;
    if args.dry_run {
        output::write_all(&mut out, init::diff(&text, &new, &name, &name).as_bytes())?;
        output::flush(&mut out)?;
        return Ok(Outcome::Found);
    }
    let through = if real == file {
        String::new()
    } else {
        format!(" (through the link, in {})", real.display())
    };
    let mut message = String::new();
    if args.uninstall {
        // The backup holds the file as it was before the first `init` (empty: there was none).
        let restored = saved.is_some_and(|saved| saved == new);
        // Nothing left: the file was spill's (created by init, or spill's opencode plugin).
        if new.is_empty() && (restored || harness.entries.owns_file()) {
            std::fs::remove_file(&real).map_err(|e| Error::io("remove", &real, e))?;
            message.push_str(&format!("removed {name}{through} (spill had created it)\n"));
        } else {
            write_atomic(&real, new.as_bytes())?;
            message.push_str(&format!("removed spill's hooks from {name}{through}\n"));
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
        write_atomic(&real, new.as_bytes())?;
        message.push_str(&format!("added spill's hooks to {name}{through}\n"));
    }
    for note in &edit.notes {
        message.push_str(&format!("{note}\n"));
    }
    output::write_all(&mut out, message.as_bytes())?;
    output::flush(&mut out)?;
    Ok(Outcome::Found)
}

/// The file a path names once its symbolic links are followed (the path itself when it is no
/// link); a link that dangles names the file it would create.
fn resolve_links(path: &Path) -> Result<PathBuf> {
    let mut at = path.to_path_buf();
    for _ in 0..40 {
        match std::fs::symlink_metadata(&at) {
            Ok(meta) if meta.file_type().is_symlink() => {
                let target =
                    std::fs::read_link(&at).map_err(|e| Error::io("read the link", &at, e))?;
                at = match at.parent() {
                    Some(dir) => dir.join(target),
                    None => target,
                };
            }
            _ => return Ok(at),
        }
    }
    Err(Error::Usage(format!(
        "{}: too many levels of symbolic links; nothing changed",
        path.display()
    )))
}

/// Refuses a file its owner made read-only, or that this user may not write: replacing it by a
/// rename would succeed anyway (the directory is writable), and undo the owner's choice.
fn writable(path: &Path) -> std::result::Result<(), String> {
    use std::os::unix::fs::PermissionsExt as _;
    let mode = std::fs::metadata(path)
        .map_err(|e| format!("cannot read its mode ({e})"))?
        .permissions()
        .mode();
    if mode & 0o222 == 0 {
        return Err(format!(
            "the file is read-only (mode {:04o}); make it writable (chmod u+w) for spill to change it",
            mode & 0o7777
        ));
    }
    match std::fs::OpenOptions::new().write(true).open(path) {
        Ok(_) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::PermissionDenied => {
            Err("this user may not write the file".into())
        }
        Err(_) => Ok(()),
    }
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
/// the file it replaces. `path` is never a link (`resolve_links` followed them).
fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(|e| Error::io("create directory", dir, e))?;
    let mut tmp = tempfile::NamedTempFile::new_in(dir)
        .map_err(|e| Error::io("create temporary file in", dir, e))?;
    tmp.write_all(bytes)
        .map_err(|e| Error::io("write", tmp.path().to_path_buf(), e))?;
    if let Ok(meta) = std::fs::metadata(path) {
        std::fs::set_permissions(tmp.path(), meta.permissions())
            .map_err(|e| Error::io("set the mode of", tmp.path().to_path_buf(), e))?;
    }
    tmp.persist(path)
        .map_err(|e| Error::io("rename into", path, e.error))?;
    Ok(())
}
