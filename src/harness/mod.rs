//! The agent harnesses spill knows, one folder each, and [`ALL`], the one registry that
//! `spill hook NAME`, `spill init NAME`, `spill doctor` and the command line's list of harness
//! names go through.
//!
//! A harness's folder holds everything that is its own: `hook.rs` (its hook JSON in, a
//! [`Response`] out), `init.rs` (its [`Entries`]: spill's entries in its settings, in and out
//! again), its assets (opencode's plugin), and `mod.rs`, whose `HARNESS` is its [`Harness`]: its
//! name, where its files are, how its hook's context is read from the process ([`Host`]), and
//! what `spill doctor` says of it. What every harness shares stays outside the folders: the
//! hook's [`Response`], scopes and rewritten commands in `crate::hook`; settings splicing, the
//! edit and the diff in `crate::init`. Nothing outside a harness's folder names it, except its
//! registry line here (`tests/layering.rs` checks it). Like every library module, a harness
//! reads no environment variable itself: the command layer hands it a [`Host`].

use std::ffi::OsString;
use std::path::PathBuf;

use crate::error::{Error, Result};
use crate::hook::Response;
use crate::init::Entries;

pub mod claude;
pub mod codex;
pub mod copilot;
pub mod gemini;
pub mod kilo;
pub mod kimi;
pub mod opencode;
pub mod pi;
pub mod qwen;

/// Every harness, in the order help texts, completions and `spill doctor` list them. Adding a
/// harness is its folder and one line here.
pub static ALL: &[&Harness] = &[
    &claude::HARNESS,
    &codex::HARNESS,
    &gemini::HARNESS,
    &opencode::HARNESS,
    &pi::HARNESS,
    &qwen::HARNESS,
    &kilo::HARNESS,
    &copilot::HARNESS,
    &kimi::HARNESS,
];

/// The scope of the conversation whose shell this is, for a harness that names it in its shell's
/// environment ([`Harness::shell_session`]); `var` reads a variable (`Host::text`).
pub fn shell_scope(var: &dyn Fn(&str) -> Option<String>) -> Option<String> {
    ALL.iter().find_map(|h| {
        let session = var(h.shell_session?)?;
        crate::hook::scope_for(h.scope_prefix, &session)
    })
}

/// The harness that runs a `spill hook NAMED` call: the one whose [`Harness::hook_env`] is set
/// (`var` reads a variable), else `named`.
pub fn running_hook(
    named: &'static Harness,
    var: &dyn Fn(&str) -> Option<String>,
) -> &'static Harness {
    ALL.iter()
        .copied()
        .find(|h| h.hook_env.is_some_and(|v| var(v).is_some()))
        .unwrap_or(named)
}

/// The harness `spill hook`/`spill init` call `name`.
pub fn find(name: &str) -> Option<&'static Harness> {
    ALL.iter().copied().find(|h| h.name == name)
}

/// What a harness's code asks of the process it runs in, passed in by the command layer (which
/// alone reads the environment) and by tests.
pub trait Host {
    /// An environment variable as the process has it (`std::env::var_os`).
    fn var_os(&self, name: &str) -> Option<OsString>;
    /// The current directory.
    fn current_dir(&self) -> std::io::Result<PathBuf>;
    /// The path of the running spill binary, which hooks and `init` write into commands.
    fn spill(&self) -> Result<String>;

    /// An environment variable's text: `None` when it is unset or empty, an error when it is
    /// not UTF-8.
    fn text(&self, name: &str) -> Result<Option<String>> {
        match self.var_os(name) {
            None => Ok(None),
            Some(v) if v.is_empty() => Ok(None),
            Some(v) => v
                .into_string()
                .map(Some)
                .map_err(|_| Error::Usage(format!("{name}: the value is not valid UTF-8"))),
        }
    }

    /// The current directory, or the error naming what failed.
    fn cwd(&self) -> Result<PathBuf> {
        self.current_dir()
            .map_err(|e| Error::stream("read the current directory", e))
    }
}

/// Names as a phrase: `a, b and c` (`last` is the word before the last name).
pub fn in_words(names: &[&str], last: &str) -> String {
    match names.split_last() {
        Some((only, [])) => only.to_string(),
        Some((end, rest)) => format!("{} {last} {end}", rest.join(", ")),
        None => String::new(),
    }
}

/// A hook's answer: `Err(why)` inside when the input cannot be read (the command layer lets the
/// call through unchanged, with a warning); the outer error when the hook's context cannot be
/// had (the spill binary's path).
pub type Answer = Result<std::result::Result<Response, String>>;

/// One agent harness: its hook, its `spill init` and what `spill doctor` reports of it, each
/// its folder's.
pub struct Harness {
    /// The name `spill hook` and `spill init` take (`claude-code`).
    pub name: &'static str,
    /// The product's name as help texts write it (`Claude Code`).
    pub product: &'static str,
    /// One line for the command line's list of harnesses: the product, its binary, where
    /// spill's hooks go.
    pub about: &'static str,
    /// What its hook does, for `spill hook --help`: lines of at most 95 characters after the
    /// product's name and a colon.
    pub hook_help: &'static str,
    /// What `spill init` writes where, for `spill init --help`, laid out as `hook_help`.
    pub init_help: &'static str,
    /// The prefix of its conversations' scopes (`claude` in `claude-SESSION`).
    pub scope_prefix: &'static str,
    /// The environment variable the harness sets in the shell it runs commands in to its
    /// conversation's session id (the hook's `session_id`), where its hook cannot export
    /// `SPILL_SCOPE` into a rewritten command: spill run there without `--scope` or
    /// `SPILL_SCOPE` uses that conversation's scope (`PREFIX-SESSION`), so an envelope's
    /// commands read what the hook stored (Copilot CLI's `COPILOT_AGENT_SESSION_ID`).
    pub shell_session: Option<&'static str>,
    /// An environment variable the harness sets for the hook commands it runs (and not in its
    /// shell), for a harness that also runs hook commands spill wrote for another harness:
    /// `spill hook OTHER` run with it set answers as this harness ([`running_hook`]; Copilot
    /// CLI runs a project's Claude Code hooks, whose answer would ask for every command).
    pub hook_env: Option<&'static str>,
    /// Answers one hook call.
    pub hook: fn(input: &[u8], host: &dyn Host) -> Answer,
    /// The file `spill init` edits: the user's, or with `project` the current directory's.
    pub init_file: fn(project: bool, host: &dyn Host) -> Result<PathBuf>,
    /// How `spill init` changes that file.
    pub entries: &'static dyn Entries,
    /// What `spill doctor` looks at and says for this harness.
    pub doctor: fn(host: &dyn Host) -> Facts,
    /// Whether spill's hooks can wrap in a version of the harness (`PACKAGE X.Y.Z`, or
    /// "unknown version"), and what to do when they cannot; `None` when the version does not
    /// matter.
    pub wraps: Option<fn(version: &str) -> Verdict>,
    /// Where `spill init --proxy-mcp` routes the harness's stdio MCP servers through
    /// `spill mcp proxy`; `None` where a hook replaces MCP results (or none are configured).
    pub mcp_proxy: Option<McpProxy>,
    /// Where `spill init --mcp` registers `spill mcp` as the harness's MCP server `spill`
    /// (`crate::init::server`); `None` for a harness with no MCP client (Pi).
    pub mcp_server: Option<McpServer>,
}

/// The file where a harness registers its MCP servers, and spill's own server entry in it.
pub struct McpServer {
    /// The file: the user's, or with `project` the current directory's (an error says why a
    /// harness has none for that choice).
    pub file: fn(project: bool, host: &dyn Host) -> Result<PathBuf>,
    /// `spill mcp`'s entry there: `install` adds it, `uninstall` takes it out again.
    pub entry: &'static dyn Entries,
}

/// The file that registers a harness's MCP servers, and how `spill init --proxy-mcp` routes
/// them through `spill mcp proxy` and back.
pub struct McpProxy {
    /// The file: the user's, or with `project` the current directory's (`None`: there is no
    /// such file for that choice).
    pub file: fn(project: bool, host: &dyn Host) -> Result<PathBuf>,
    /// The routes in that file, as `Entries`: `install` routes every stdio server, `uninstall`
    /// takes spill's routes out again.
    pub routes: &'static dyn Entries,
}

/// Whether spill's hooks wrap, as a line of `spill doctor`'s report, and what to do when they
/// cannot.
pub type Verdict = (String, Option<String>);

impl std::fmt::Debug for Harness {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name)
    }
}

/// What `spill doctor` reads for a harness.
pub struct Facts {
    /// Its binary on PATH.
    pub binary: &'static str,
    /// Its configuration directory, when it can be named.
    pub config_dir: Option<PathBuf>,
    /// The file `spill init` writes its hooks to.
    pub hook_file: Option<PathBuf>,
    /// The files that may register MCP servers, and how they are read; none for a harness
    /// with no MCP client (Pi), of which the report says so instead of a to-do.
    pub mcp_files: Vec<(PathBuf, McpFormat)>,
    /// What spill covers there (README, per harness).
    pub covered: &'static str,
    /// What it does not, and what to do about it.
    pub uncovered: &'static str,
    /// For a harness whose MCP results only `spill mcp proxy` can cover (`spill init NAME
    /// --proxy-mcp`): what is still not covered once every stdio server it has goes through
    /// the proxy. `spill doctor` then reads the servers and says which are routed.
    pub routed: Option<&'static str>,
    /// Its sandbox, where it has one spill knows how to read.
    pub sandbox: Option<Sandbox>,
    /// Why spill's hooks leave its shell alone under the settings read now, and what would let
    /// them act (Kilo Code wraps only where a configuration allows every bash command): a
    /// `wraps: no` line and a to-do of `spill doctor`, so the user is told where the hook can
    /// only say it on stderr.
    pub idle: Option<(String, String)>,
}

/// A harness's sandbox as its settings choose it, and what it means for spill's store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sandbox {
    /// The mode and where it comes from, as `spill doctor` shows it.
    pub mode: String,
    /// `Ok(why)` when spill can store under it, `Err(why not)` when it cannot.
    pub stores: std::result::Result<String, String>,
    /// The setting that lets spill store, as one sentence: `spill doctor`'s to-do when it
    /// cannot, and the end of the one line `wrap` prints when an output it could not store
    /// passed through unchanged (`SPILL_HARNESS`).
    pub allow: String,
}

/// How a file registers MCP servers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum McpFormat {
    /// `{"mcpServers": {NAME: {"command", "args", "env"}}}` (Claude Code also per project).
    Json,
    /// opencode: `{"mcp": {NAME: {"command": [..], "environment"}}}`.
    Opencode,
    /// Codex: `[mcp_servers.NAME]` tables in config.toml.
    Toml,
}

/// The `X.Y.Z` of a version as `spill doctor` reads it (`PACKAGE X.Y.Z`), when it has one.
pub fn version_numbers(version: &str) -> Option<(u64, u64, u64)> {
    let numbers: Vec<u64> = version
        .rsplit(' ')
        .next()
        .unwrap_or("")
        .split('.')
        // `0-beta.2`'s digits count: a pre-release is read as its release.
        .map_while(|n| {
            let digits = n.len() - n.trim_start_matches(|c: char| c.is_ascii_digit()).len();
            n[..digits].parse().ok()
        })
        .collect();
    match numbers.as_slice() {
        [major, minor, patch, ..] => Some((*major, *minor, *patch)),
        _ => None,
    }
}

/// The verdict of a harness whose hooks spill can use from version `first` on: before it, `no:`
/// and `why`, and the update to do.
pub fn wraps_from(version: &str, first: (u64, u64, u64), product: &str, why: &str) -> Verdict {
    let (a, b, c) = first;
    match version_numbers(version) {
        Some(v) if v < first => (
            format!("no: {why}"),
            Some(format!("update {product} to {a}.{b}.{c} or later")),
        ),
        Some(_) => ("yes".into(), None),
        None => ("unknown (no version found)".into(), None),
    }
}

/// The store root a command run by the harness would use as spill resolves it here:
/// `SPILL_DIR` (a relative one against the current directory), else the default root for
/// `TMPDIR`.
pub fn store_root(host: &dyn Host) -> PathBuf {
    let tmpdir = host.var_os("TMPDIR").filter(|v| !v.is_empty());
    match host.text("SPILL_DIR").ok().flatten().map(PathBuf::from) {
        Some(dir) if dir.is_relative() => match host.current_dir() {
            Ok(cwd) => cwd.join(dir),
            Err(_) => dir,
        },
        Some(dir) => dir,
        None => crate::store::StoreConfig::default_root(tmpdir.as_deref()),
    }
}

/// `$HOME` as a path, or the usage error saying what cannot be found without it.
fn home(host: &dyn Host, what: &str) -> Result<PathBuf> {
    host.text("HOME")
        .ok()
        .flatten()
        .map(PathBuf::from)
        .ok_or_else(|| Error::Usage(format!("HOME is not set: cannot find {what}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_harness_has_one_name_and_one_scope_prefix() {
        for (i, h) in ALL.iter().enumerate() {
            assert!(std::ptr::eq(find(h.name).unwrap(), *h));
            for other in &ALL[i + 1..] {
                assert_ne!(h.name, other.name);
                assert_ne!(h.scope_prefix, other.scope_prefix);
            }
        }
        assert!(find("claude").is_none());
    }

    #[test]
    fn versions_before_the_first_hookable_one_are_told() {
        let v = |version| wraps_from(version, (0, 131, 0), "Codex", "why");
        assert_eq!(v("@openai/codex 0.130.0").0, "no: why");
        assert_eq!(
            v("@openai/codex 0.9.5").1.as_deref(),
            Some("update Codex to 0.131.0 or later")
        );
        assert_eq!(v("@openai/codex 0.131.0"), ("yes".into(), None));
        assert_eq!(v("@openai/codex 1.0.0-beta.2"), ("yes".into(), None));
        assert!(v("unknown version").0.starts_with("unknown"));
    }

    #[test]
    fn a_hook_is_answered_by_the_harness_that_runs_it() {
        let none = |_: &str| None;
        assert!(std::ptr::eq(
            running_hook(&claude::HARNESS, &none),
            &claude::HARNESS
        ));
        let copilot = |name: &str| (name == "COPILOT_PROJECT_DIR").then(|| "/p".to_string());
        assert!(std::ptr::eq(
            running_hook(&claude::HARNESS, &copilot),
            &copilot::HARNESS
        ));
        assert!(std::ptr::eq(
            running_hook(&copilot::HARNESS, &copilot),
            &copilot::HARNESS
        ));
        // The shell's session variable names the conversation's scope.
        let shell = |name: &str| (name == "COPILOT_AGENT_SESSION_ID").then(|| "a-b".to_string());
        assert_eq!(shell_scope(&shell).as_deref(), Some("copilot-a-b"));
        assert_eq!(shell_scope(&none), None);
    }

    #[test]
    fn names_read_as_a_phrase() {
        assert_eq!(in_words(&["a", "b", "c"], "or"), "a, b or c");
        assert_eq!(in_words(&["a", "b"], "and"), "a and b");
        assert_eq!(in_words(&["a"], "and"), "a");
        assert_eq!(in_words(&[], "and"), "");
    }

    #[test]
    fn help_lines_fit_the_help_width() {
        for h in ALL {
            let first = format!("{}: ", h.product);
            for text in [h.hook_help, h.init_help] {
                for (i, line) in text.lines().enumerate() {
                    let width = line.chars().count() + if i == 0 { first.len() } else { 0 };
                    assert!(width <= 95, "{}: {width} characters: {line}", h.name);
                }
            }
        }
    }
}
