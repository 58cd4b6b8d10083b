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
    let spill = super::Process.spill()?;
    // A harness with no hook that could act (Kimi CLI) gets none: only its MCP routes.
    let hookless = harness.entries.hookless();
    if let Some(why) = hookless
        && !args.proxy_mcp
        && !args.mcp
        && !args.uninstall
    {
        return Err(Error::Usage(format!(
            "init: {why}; `spill init {} --proxy-mcp` routes its stdio MCP servers through \
             `spill mcp proxy`, which covers their results",
            harness.name
        )));
    }
    // Each file with the entries that change it, in order: spill's routes come out of a file
    // before its hooks, so each part's backup comparison sees the file as that part left it.
    let mut plan: Vec<(PathBuf, Vec<&'static dyn init::Entries>)> = Vec::new();
    if hookless.is_none() {
        plan.push((
            (harness.init_file)(args.project, &super::Process)?,
            vec![harness.entries],
        ));
    }
    let mut unrouted = None;
    match &harness.mcp_proxy {
        Some(proxy) if args.proxy_mcp || args.uninstall => {
            let file = (proxy.file)(args.project, &super::Process)?;
            place(&mut plan, file, proxy.routes, args.uninstall);
        }
        Some(proxy) => unrouted = Some(proxy),
        None if args.proxy_mcp => {
            let routed: Vec<&str> = crate::harness::ALL
                .iter()
                .filter(|h| h.mcp_proxy.is_some())
                .map(|h| h.product)
                .collect();
            return Err(Error::Usage(format!(
                "init: --proxy-mcp routes MCP servers where no hook can replace their results \
                 ({}); {}'s hooks replace them already",
                routed.join(", "),
                harness.product
            )));
        }
        None => {}
    }
    // `spill mcp` as the harness's MCP server: before the hooks in a file both change (Codex's
    // hook block stays last, where `init` appends it), and out with `--uninstall` always.
    match &harness.mcp_server {
        Some(server) if args.mcp || args.uninstall => {
            let file = match (server.file)(args.project, &super::Process) {
                Ok(file) => file,
                // A harness with no such file for this choice has no entry of spill's there.
                Err(_) if args.uninstall && !args.mcp => PathBuf::new(),
                Err(e) => return Err(e),
            };
            if !file.as_os_str().is_empty() {
                place(&mut plan, file, server.entry, true);
            }
        }
        None if args.mcp => {
            return Err(Error::Usage(format!(
                "init: --mcp registers `spill mcp` among a harness's MCP servers; {} has no MCP \
                 client (an MCP server an extension connects to can run `spill mcp` itself)",
                harness.product
            )));
        }
        _ => {}
    }
    // Every file's edit is made before any is written: a file refused leaves all as they were.
    let edits = plan
        .iter()
        .map(|(file, entries)| prepare(file, entries, &args, &spill))
        .collect::<Result<Vec<_>>>()?;
    let mut out = output::stdout();
    for edit in edits {
        let message = finish(edit, &args)?;
        output::write_all(&mut out, message.as_bytes())?;
    }
    // Without --proxy-mcp, say once that the harness cuts the results of servers left unrouted.
    if let Some(proxy) = unrouted {
        let file = (proxy.file)(args.project, &super::Process)?;
        let text = read_optional(&resolve_links(&file)?)?.unwrap_or_default();
        if let Ok(Some(edit)) = proxy.routes.install(&text, &spill, "")
            && edit.text != text
        {
            let note = format!(
                "note: {} has stdio MCP servers whose large results {} cuts, with no hook that \
                 can replace them; `spill init {} --proxy-mcp` routes them through `spill mcp proxy`\n",
                file.display(),
                harness.product,
                harness.name,
            );
            output::write_all(&mut out, note.as_bytes())?;
        }
    }
    output::flush(&mut out)?;
    if !args.uninstall {
        warn_if_unhookable(harness);
    }
    Ok(Outcome::Found)
}

/// Puts `entries` into the plan for `file`: before the entries already there (`first`) or after
/// them, or as the file's own step when it has none yet.
fn place(
    plan: &mut Vec<(PathBuf, Vec<&'static dyn init::Entries>)>,
    file: PathBuf,
    entries: &'static dyn init::Entries,
    first: bool,
) {
    match plan.iter_mut().find(|(f, _)| *f == file) {
        Some((_, list)) if first => list.insert(0, entries),
        Some((_, list)) => list.push(entries),
        None => plan.push((file, vec![entries])),
    }
}

/// Says so when the harness on PATH is a version whose hooks spill cannot use (the doctor's
/// verdict): the hooks are installed anyway, for when it is updated.
fn warn_if_unhookable(harness: &crate::harness::Harness) {
    let Some(wraps) = harness.wraps else {
        return;
    };
    let binary = (harness.doctor)(&super::Process).binary;
    let Some(version) = super::doctor::which(binary).and_then(|b| super::doctor::npm_version(&b))
    else {
        return;
    };
    if let (line, Some(fix)) = wraps(&version)
        && let Some(why) = line.strip_prefix("no: ")
    {
        crate::diag::warning(&format!(
            "{binary} on PATH is {version}: spill's hooks cannot wrap there ({why}); {fix}"
        ));
    }
}

/// One file's edit, made and not yet written.
struct Prepared {
    file: PathBuf,
    real: PathBuf,
    name: String,
    what: String,
    existed: bool,
    text: String,
    saved: Option<String>,
    new: String,
    notes: Vec<String>,
    owns_file: bool,
}

/// Applies `entries` to one file's text (in or out, as `args` says), writing nothing.
fn prepare(
    file: &Path,
    entries: &[&'static dyn init::Entries],
    args: &InitArgs,
    spill: &str,
) -> Result<Prepared> {
    let name = file.display().to_string();
    let what = entries
        .iter()
        .map(|e| e.what())
        .collect::<Vec<_>>()
        .join(" and ");
    let bad = |why: String| Error::Usage(format!("{name}: {why}; nothing changed"));
    let backup = PathBuf::from(format!("{name}{BACKUP_SUFFIX}"));
    // A symbolic link (a dotfiles checkout) stays a link: spill reads and writes what it names.
    let real = resolve_links(file)?;
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
    let mut new = text.clone();
    let mut notes = Vec::new();
    for entries in entries {
        let edit = if args.uninstall {
            entries.uninstall_at(&new, saved, root)
        } else {
            entries.install_at(&new, spill, &name, root)
        }
        .map_err(bad)?;
        if let Some(edit) = edit {
            new = edit.text;
            notes.extend(edit.notes);
        }
    }
    let owns_file = entries.iter().all(|e| e.owns_file());
    Ok(Prepared {
        file: file.to_path_buf(),
        real,
        existed: existing.is_some(),
        text,
        saved: saved.map(str::to_string),
        new,
        notes,
        owns_file,
        name,
        what,
    })
}

/// Writes a prepared edit (backing the file up first) or, with `--dry-run`, prints its diff.
/// Returns what to tell the user.
fn finish(edit: Prepared, args: &InitArgs) -> Result<String> {
    let Prepared {
        file,
        real,
        name,
        what,
        existed,
        text,
        saved,
        new,
        notes,
        owns_file,
    } = edit;
    let saved = saved.as_deref();
    let backup = PathBuf::from(format!("{name}{BACKUP_SUFFIX}"));
    let mut message = String::new();
    let told = |mut message: String| {
        for note in &notes {
            message.push_str(&format!("{note}\n"));
        }
        message
    };
    if new == text {
        let state = if args.uninstall {
            format!("has no spill {what}")
        } else {
            format!("already has spill's {what} (where they apply)")
        };
        return Ok(told(format!("{name} {state}; nothing changed\n")));
    }
    if args.dry_run {
        return Ok(told(init::diff(&text, &new, &name, &name)));
    }
    let through = if real == file {
        String::new()
    } else {
        format!(" (through the link, in {})", real.display())
    };
    if args.uninstall {
        // The backup holds the file as it was before the first `init` (empty: there was none).
        let restored = saved.is_some_and(|saved| saved == new);
        // Nothing left: the file was spill's (created by init, or spill's opencode plugin).
        if new.is_empty() && (restored || owns_file) {
            std::fs::remove_file(&real).map_err(|e| Error::io("remove", &real, e))?;
            message.push_str(&format!("removed {name}{through} (spill had created it)\n"));
        } else {
            write_atomic(&real, new.as_bytes())?;
            message.push_str(&format!("removed spill's {what} from {name}{through}\n"));
        }
        if restored {
            std::fs::remove_file(&backup).map_err(|e| Error::io("remove", &backup, e))?;
        }
    } else {
        if !backup.exists() {
            write_atomic(&backup, text.as_bytes())?;
            let what = if existed {
                "backed up"
            } else {
                "recorded the absence of"
            };
            message.push_str(&format!("{what} {name} in {}\n", backup.display()));
        }
        write_atomic(&real, new.as_bytes())?;
        message.push_str(&format!("added spill's {what} to {name}{through}\n"));
    }
    Ok(told(message))
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
