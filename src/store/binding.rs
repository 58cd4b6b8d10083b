//! Conversation bindings: which scope the conversation of a running harness process uses, so
//! that a `spill mcp` server the harness started (which the harness tells nothing about the
//! conversation) reads the scope its hooks write (ARCHITECTURE.md, "Conversation bindings").
//!
//! A binding is one small file in `ROOT/@bindings/` (a name no scope can have), named after a
//! process — its pid and its start time (field 22 of `/proc/PID/stat`), so a reused pid never
//! inherits a binding — and holding the scope name. A hook records one for each of its
//! ancestors up to the harness process (the first that is not a shell); the server looks for
//! the nearest of its own ancestors that has one, which is the harness process itself, distinct
//! per conversation. Bindings are written atomically (a temporary file renamed over the name)
//! and only when they change; `gc` removes those whose process is gone.

use std::fs;
use std::path::{Path, PathBuf};

use super::{check_dir, files, make_private_dir, validate_scope};
use crate::error::Result;

/// The directory under the root that holds the bindings.
pub const DIR: &str = "@bindings";

/// How many ancestors are looked at, at most (a harness is a few levels up).
const MAX_DEPTH: usize = 16;

/// A running process as `/proc` shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Process {
    /// Its pid.
    pub pid: u32,
    /// Its start time (clock ticks after boot): with the pid, a name no later process has.
    pub start: u64,
    /// Its parent's pid.
    pub parent: u32,
    /// Its command name (`comm`, at most 15 bytes).
    pub name: String,
}

impl Process {
    /// The process `pid`, or `None` when it is gone (or `/proc` is not there).
    pub fn of(pid: u32) -> Option<Process> {
        use std::io::Read;
        // One read of a small file, parsed by hand: this runs on every hook call.
        let mut buf = [0u8; 1024];
        let mut file = fs::File::open(format!("/proc/{pid}/stat")).ok()?;
        let n = file.read(&mut buf).ok()?;
        let stat = &buf[..n];
        // `pid (comm) state ppid …`: comm may hold spaces and parentheses, so split at the last ')'.
        let open = memchr::memchr(b'(', stat)?;
        let close = memchr::memrchr(b')', stat)?;
        let name = String::from_utf8_lossy(stat.get(open + 1..close)?).into_owned();
        let mut fields = stat.get(close + 2..)?.split(|&b| b == b' ');
        // The first field after comm is field 3 (state); field 4 is the parent, 22 the start.
        let number = |field: Option<&[u8]>| -> Option<u64> {
            let digits = field?;
            if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
                return None;
            }
            digits.iter().try_fold(0u64, |n, d| {
                n.checked_mul(10)?.checked_add(u64::from(d - b'0'))
            })
        };
        let parent = number(fields.nth(1))?;
        let start = number(fields.nth(17))?;
        Some(Process {
            pid,
            start,
            parent: u32::try_from(parent).ok()?,
            name,
        })
    }

    /// Whether this process is a shell (a hook's or a server's own `sh -c` in between).
    pub fn is_shell(&self) -> bool {
        matches!(
            self.name.as_str(),
            "sh" | "bash" | "dash" | "zsh" | "ksh" | "mksh" | "fish" | "busybox"
        )
    }

    fn file_name(&self) -> String {
        format!("{}-{}", self.pid, self.start)
    }
}

/// The ancestors of the calling process, its parent first, up to (not including) init, and
/// ending early after the first for which `last` is true.
pub fn ancestors(last: impl Fn(&Process) -> bool) -> Vec<Process> {
    let mut out = Vec::new();
    // SAFETY: getppid has no preconditions and cannot fail.
    let mut pid = unsafe { libc::getppid() } as u32;
    while pid > 1 && out.len() < MAX_DEPTH {
        let Some(p) = Process::of(pid) else { break };
        pid = p.parent;
        let stop = last(&p);
        out.push(p);
        if stop {
            break;
        }
    }
    out
}

/// The processes a hook binds: its ancestors up to and including the first that is not a shell
/// (the harness). Empty when the harness cannot be found.
pub fn harness_chain() -> Vec<Process> {
    let chain = ancestors(|p| !p.is_shell());
    match chain.last() {
        Some(p) if !p.is_shell() => chain,
        _ => Vec::new(),
    }
}

/// The scope bound to the nearest ancestor of the calling process (see [`resolve`]).
pub fn resolve_for_self(root: &Path) -> Option<String> {
    resolve(root, &ancestors(|_| false))
}

fn dir(root: &Path) -> PathBuf {
    root.join(DIR)
}

/// Records that the conversation of each of `chain` uses `scope`. Creates the root and the
/// bindings directory (0700) where missing; a binding that already says `scope` is not
/// rewritten, so the usual call reads one small file per process and writes nothing.
pub fn record(root: &Path, chain: &[Process], scope: &str) -> Result<()> {
    if chain.is_empty() || validate_scope(scope).is_err() {
        return Ok(());
    }
    let dir = dir(root);
    let wanted = format!("{scope}\n");
    let mut ready = false;
    for process in chain {
        let path = dir.join(process.file_name());
        if files::read_small(&path, 256).is_ok_and(|held| held == wanted.as_bytes()) {
            continue;
        }
        if !ready {
            record_dir(root)?;
            ready = true;
        }
        // A proxy that stored results for this process before it was bound: they join the
        // conversation's scope first, so every ref the model was given reads from it.
        let claims = claims(root, process);
        if !claims.is_empty() {
            let store = super::Store::new(super::StoreConfig::new(root.into(), scope.into()));
            for (claim, from) in &claims {
                store.adopt(from)?;
                let _ = fs::remove_file(claim);
            }
        }
        files::replace(&dir, &path, wanted.as_bytes(), "write")?;
    }
    Ok(())
}

/// Records that a `spill mcp proxy` stored results in `scope` (its own) for the conversation
/// of `process` before any hook bound it: an empty file `PID-START+SCOPE` beside the bindings.
/// The hook call that binds `process` moves that scope's entries into the conversation's
/// ([`record`], `Store::adopt`), so the refs the proxy gave out before the conversation's first
/// shell command read from its shell and its `spill mcp` tools too.
pub fn claim(root: &Path, process: &Process, scope: &str) -> Result<()> {
    if validate_scope(scope).is_err() {
        return Ok(());
    }
    record_dir(root)?;
    let dir = dir(root);
    let path = dir.join(format!("{}+{scope}", process.file_name()));
    if matches!(files::look(&path), files::Found::File(_)) {
        return Ok(());
    }
    let mark = dir.join(CLAIMS_MARK);
    if !matches!(files::look(&mark), files::Found::File(_)) {
        files::replace(&dir, &mark, b"", "write")?;
    }
    files::replace(&dir, &path, b"", "write")
}

/// An empty file beside the bindings once any proxy has made a claim ([`claim`]): until then
/// [`claimed_for_self`], which every command without a chosen scope asks, answers without
/// reading the process tree, so `wrap`'s start-up pays one `lstat` for it (measured: walking
/// the tree on each bare `spill wrap` cost 0.2 ms a call, 20% of it). `sweep` keeps it.
const CLAIMS_MARK: &str = "claims";

/// The scope every `spill mcp proxy` started by `harness` stores in until a hook binds that
/// process's conversation: `mcp-` and 12 hex digits of a hash of the process's name (its pid and
/// start time). One harness process, one such scope, whichever of its servers stored first; and
/// a reading command run in the harness's shell can name it too ([`claimed_for_self`]).
pub fn proxy_scope(harness: &Process) -> String {
    let hash = blake3::hash(harness.file_name().as_bytes()).to_hex();
    format!("mcp-{}", &hash[..12])
}

/// The scope a `spill mcp proxy` claimed for the harness process of the calling process (its
/// nearest ancestor that is not a shell, as for a hook: [`harness_chain`]) and that no hook call
/// has taken over since: the proxy's scope ([`proxy_scope`]) while the claim is there. Where
/// the harness runs no hook of spill's at all (Kimi CLI), this is its conversation's scope, and
/// the envelope's commands run in its shell read the proxy's refs through it. `None` when there
/// is no such claim (or the bindings directory is not safe to read).
pub fn claimed_for_self(root: &Path) -> Option<String> {
    let dir = dir(root);
    if !matches!(files::look(&dir.join(CLAIMS_MARK)), files::Found::File(_)) {
        return None;
    }
    let harness = harness_chain().pop()?;
    if !check_dir(root, "root").ok()? || !check_dir(&dir, "bindings directory").ok()? {
        return None;
    }
    let scope = proxy_scope(&harness);
    let claim = dir.join(format!("{}+{scope}", harness.file_name()));
    matches!(files::look(&claim), files::Found::File(_)).then_some(scope)
}

/// The claims on `process` ([`claim`]): each file and the scope it names.
fn claims(root: &Path, process: &Process) -> Vec<(PathBuf, String)> {
    let dir = dir(root);
    let prefix = format!("{}+", process.file_name());
    let Ok(listing) = fs::read_dir(&dir) else {
        return Vec::new();
    };
    listing
        .flatten()
        .filter_map(|item| {
            let name = item.file_name().into_string().ok()?;
            let scope = name.strip_prefix(&prefix)?;
            validate_scope(scope).ok()?;
            Some((item.path(), scope.to_string()))
        })
        .collect()
}

/// The scope bound to the nearest of `chain` whose binding names it and who still runs with
/// the same start time; `None` when there is none (or the directory is not safe to read).
pub fn resolve(root: &Path, chain: &[Process]) -> Option<String> {
    let dir = dir(root);
    if !check_dir(root, "root").ok()? || !check_dir(&dir, "bindings directory").ok()? {
        return None;
    }
    chain.iter().find_map(|process| {
        let held = files::read_small(&dir.join(process.file_name()), 256).ok()?;
        let scope = std::str::from_utf8(&held).ok()?.strip_suffix('\n')?;
        validate_scope(scope).is_ok().then(|| scope.to_string())
    })
}

/// Whether the conversation `scope` has not been told spill cannot act in it yet; marks it
/// told (a file `SCOPE.told` beside the bindings, swept by `gc` after an hour). True when the
/// mark cannot be made: a notice shown twice beats one never shown.
pub fn first_notice(root: &Path, scope: &str) -> bool {
    if validate_scope(scope).is_err() || record_dir(root).is_err() {
        return true;
    }
    let path = dir(root).join(format!("{scope}.told"));
    match fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&path)
    {
        Ok(_) => true,
        Err(e) => e.kind() != std::io::ErrorKind::AlreadyExists,
    }
}

/// Creates the root and the bindings directory (0700) where missing, and checks both.
fn record_dir(root: &Path) -> Result<()> {
    let dir = dir(root);
    if !check_dir(root, "root")? {
        if let Some(parent) = root.parent().filter(|p| !p.as_os_str().is_empty()) {
            fs::create_dir_all(parent)
                .map_err(|e| crate::error::Error::io("create directory", parent, e))?;
        }
        make_private_dir(root)?;
        check_dir(root, "root")?;
    }
    if !check_dir(&dir, "bindings directory")? {
        make_private_dir(&dir)?;
        check_dir(&dir, "bindings directory")?;
    }
    Ok(())
}

/// Removes the bindings of processes that are gone (or whose pid now names another process),
/// and temporary files left for over an hour; returns how many were removed. With `dry_run`,
/// only counts them.
pub fn sweep(root: &Path, dry_run: bool) -> usize {
    let dir = dir(root);
    if !check_dir(&dir, "bindings directory").unwrap_or(false) {
        return 0;
    }
    let Ok(entries) = fs::read_dir(&dir) else {
        return 0;
    };
    let mut removed = 0;
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name == CLAIMS_MARK {
            continue;
        }
        // `PID-START`, a binding, or `PID-START+SCOPE`, a proxy's claim.
        let process = name.split_once('+').map_or(name.as_str(), |(p, _)| p);
        let stale = match process
            .split_once('-')
            .and_then(|(p, s)| Some((p.parse::<u32>().ok()?, s.parse::<u64>().ok()?)))
        {
            Some((pid, start)) => Process::of(pid).is_none_or(|p| p.start != start),
            None => entry
                .metadata()
                .ok()
                .and_then(|m| m.modified().ok())
                .and_then(|t| t.elapsed().ok())
                .is_some_and(|age| age > std::time::Duration::from_secs(3600)),
        };
        if stale && (dry_run || fs::remove_file(entry.path()).is_ok()) {
            removed += 1;
        }
    }
    removed
}

#[cfg(test)]
mod tests {
    use super::*;

    fn me() -> Process {
        Process::of(std::process::id()).unwrap()
    }

    #[test]
    fn a_proxys_claim_names_the_scope_of_its_harness_process_and_outlives_a_sweep() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("store");
        // No claim yet (not even the mark): none, without reading the process tree.
        assert_eq!(claimed_for_self(&root), None);
        let Some(harness) = harness_chain().pop() else {
            return; // run with no harness process above it (a shell at the top)
        };
        let scope = proxy_scope(&harness);
        assert!(scope.starts_with("mcp-") && scope.len() == 16, "{scope}");
        claim(&root, &harness, &scope).unwrap();
        assert!(dir(&root).join(CLAIMS_MARK).is_file());
        assert_eq!(claimed_for_self(&root).as_deref(), Some(scope.as_str()));
        // The mark is no stale temporary file; the live process's claim stays too.
        sweep(&root, false);
        assert!(dir(&root).join(CLAIMS_MARK).is_file());
        assert_eq!(claimed_for_self(&root).as_deref(), Some(scope.as_str()));
        // Another process's claim is not this one's.
        std::fs::remove_file(dir(&root).join(format!("{}+{scope}", harness.file_name()))).unwrap();
        claim(&root, &me(), &proxy_scope(&me())).unwrap();
        assert_eq!(claimed_for_self(&root), None);
    }

    #[test]
    fn a_process_is_read_from_proc_and_its_parent_chain_found() {
        let own = me();
        assert_eq!(own.pid, std::process::id());
        assert!(own.start > 0);
        let chain = ancestors(|_| false);
        assert_eq!(chain.first().map(|p| p.pid), Some(own.parent));
        assert_eq!(ancestors(|_| true).len(), 1);
        assert!(Process::of(u32::MAX).is_none());
    }

    #[test]
    fn bindings_resolve_to_the_nearest_live_process_and_are_swept_when_it_is_gone() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("store");
        let own = me();
        let parent = Process::of(own.parent).unwrap();
        record(&root, std::slice::from_ref(&parent), "claude-outer").unwrap();
        assert_eq!(
            resolve(&root, &[own.clone(), parent.clone()]).as_deref(),
            Some("claude-outer")
        );
        record(&root, std::slice::from_ref(&own), "claude-inner").unwrap();
        assert_eq!(
            resolve(&root, &[own.clone(), parent.clone()]).as_deref(),
            Some("claude-inner")
        );
        // A rebinding replaces the scope; an invalid scope is never written.
        record(&root, std::slice::from_ref(&own), "claude-next").unwrap();
        record(&root, std::slice::from_ref(&own), "../x").unwrap();
        assert_eq!(
            resolve(&root, std::slice::from_ref(&own)).as_deref(),
            Some("claude-next")
        );
        // The same pid with another start time is another process: not bound.
        let reused = Process {
            start: own.start + 1,
            ..own.clone()
        };
        assert_eq!(resolve(&root, std::slice::from_ref(&reused)), None);
        // A binding whose process is gone is swept; live ones stay.
        record(&root, &[reused], "claude-dead").unwrap();
        assert_eq!(sweep(&root, true), 1);
        assert_eq!(sweep(&root, false), 1);
        assert_eq!(sweep(&root, false), 0);
        assert_eq!(resolve(&root, &[own]).as_deref(), Some("claude-next"));
        // A notice is given once per conversation.
        assert!(first_notice(&root, "claude-x"));
        assert!(!first_notice(&root, "claude-x"));
        assert!(first_notice(&root, "claude-y"));
        // The bindings directory is no scope.
        assert!(validate_scope(DIR).is_err());
    }

    #[test]
    fn shells_are_told_from_harnesses() {
        let p = |name: &str| Process {
            pid: 2,
            start: 1,
            parent: 1,
            name: name.into(),
        };
        assert!(p("sh").is_shell() && p("bash").is_shell() && p("dash").is_shell());
        assert!(!p("claude").is_shell() && !p("node").is_shell() && !p("codex").is_shell());
    }
}
