//! Kilo Code: spill's plugin (opencode's, under Kilo Code's names) hands each `bash` call to
//! `spill hook kilo`, which answers as opencode's hook does, in `kilo-SESSION`, with the rules
//! of every file Kilo Code reads its configuration from.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::super::opencode::hook as opencode;
use crate::hook::{Response, through};

/// The scope prefix of Kilo Code sessions.
pub const SCOPE_PREFIX: &str = "kilo";

/// The variable that sets Kilo Code's bash timeout for calls that give none (milliseconds).
pub const DEFAULT_TIMEOUT_VAR: &str = "KILO_EXPERIMENTAL_BASH_DEFAULT_TIMEOUT_MS";

/// The variable that caps every command's timeout (milliseconds).
pub const TIMEOUT_CAP_VAR: &str = "KILO_COMMAND_TIMEOUT_MAX_MS";

/// The files of Kilo Code's global configuration directory, in the order it reads them.
pub const GLOBAL_FILES: [&str; 5] = [
    "config.json",
    "kilo.json",
    "kilo.jsonc",
    "opencode.json",
    "opencode.jsonc",
];

/// The files Kilo Code reads in a project directory and in each other configuration directory
/// (`.kilo/`, `.kilocode/`, `~/.kilo/`, `$KILO_CONFIG_DIR`, `/etc/kilo`).
const DIR_FILES: [&str; 4] = ["kilo.json", "kilo.jsonc", "opencode.json", "opencode.jsonc"];

/// The directory of the configuration an administrator manages on Linux, which Kilo Code reads
/// last (its rules win).
const MANAGED_DIR: &str = "/etc/kilo";

/// Where Kilo Code's configuration is, as its variables and HOME say.
pub struct Files {
    /// The global configuration directory (`~/.config/kilo`).
    pub global: Option<PathBuf>,
    /// HOME, for `~/.kilo` and `~/.kilocode`.
    pub home: Option<PathBuf>,
    /// `KILO_CONFIG`: one more file.
    pub config: Option<PathBuf>,
    /// `KILO_CONFIG_DIR`: one more directory.
    pub config_dir: Option<PathBuf>,
    /// Whether the project's files count (`KILO_DISABLE_PROJECT_CONFIG` unset).
    pub project: bool,
}

impl Files {
    /// The configuration files Kilo Code reads for a session in `cwd`, those that exist: the
    /// global ones, `~/.kilo/` and `~/.kilocode/`, `$KILO_CONFIG`, `$KILO_CONFIG_DIR`, the
    /// project's (`cwd` and each directory above it, and their `.kilo/` and `.kilocode/`) and
    /// the managed ones.
    pub fn existing(&self, cwd: &Path) -> Vec<PathBuf> {
        let mut files: Vec<PathBuf> = Vec::new();
        let dir_files = |dir: &Path, files: &mut Vec<PathBuf>| {
            files.extend(DIR_FILES.iter().map(|n| dir.join(n)));
        };
        if let Some(dir) = &self.global {
            files.extend(GLOBAL_FILES.iter().map(|n| dir.join(n)));
        }
        if let Some(home) = &self.home {
            dir_files(&home.join(".kilo"), &mut files);
            dir_files(&home.join(".kilocode"), &mut files);
        }
        files.extend(self.config.clone());
        if let Some(dir) = &self.config_dir {
            dir_files(dir, &mut files);
        }
        if self.project {
            for dir in cwd.ancestors() {
                dir_files(dir, &mut files);
                dir_files(&dir.join(".kilo"), &mut files);
                dir_files(&dir.join(".kilocode"), &mut files);
            }
        }
        dir_files(Path::new(MANAGED_DIR), &mut files);
        files.retain(|f| f.is_file());
        files
    }
}

/// The agents whose bash rules are Kilo Code's defaults under the user's own: its default agent
/// (`code`, called `build` before). Its other built-in agents (`plan`, `ask`, `explore`, …) fix
/// rules of their own that the user's cannot widen (`plan` denies every command but read-only
/// ones), under which the rewritten command would be refused where the original was allowed.
const DEFAULT_AGENTS: [&str; 2] = ["code", "build"];

/// Answers one call of spill's plugin in Kilo Code. `inline` holds `KILO_CONFIG_CONTENT` (a
/// configuration document) and `KILO_PERMISSION` (a `permission` value), when set.
///
/// Beyond opencode's rule, a bash call is rewritten only in Kilo Code's default agent and only
/// when some configuration allows every bash command (`"permission": {"bash": "allow"}`, which
/// Kilo Code itself writes into an existing user's configuration): without one, Kilo Code's
/// built-in rules ask before any command but a list of read-only ones, and would ask before
/// the rewritten form of an allowed `ls` too.
pub fn respond(
    input: &[u8],
    spill: &str,
    files: &Files,
    inline: &[(&str, Option<String>); 2],
    default_timeout_ms: Option<u64>,
    timeout_cap_ms: Option<u64>,
) -> std::result::Result<Response, String> {
    let mut read = None;
    if let Ok(call) = serde_json::from_slice::<Value>(input)
        && call["hook_event_name"] == "tool.execute.before"
        && call["tool"] == "bash"
    {
        match call["agent"].as_str() {
            Some(agent) if DEFAULT_AGENTS.contains(&agent) => {}
            Some(agent) => {
                return Ok(through(format!(
                    "Kilo Code's agent {agent:?} has bash rules of its own; the command runs without spill"
                )));
            }
            None => {
                return Ok(through(
                    "spill's plugin did not learn the session's agent, so its bash rules are unknown; the command runs without spill".into(),
                ));
            }
        }
        let cwd = PathBuf::from(call["cwd"].as_str().unwrap_or("."));
        match read_permissions(files, inline, &cwd) {
            Err(why) => return Ok(through(format!("{why}; the command runs without spill"))),
            Ok(values) if !values.iter().any(allows_every_command) => {
                return Ok(through(
                    "no Kilo Code configuration allows every bash command (`\"permission\": {\"bash\": \"allow\"}`), so Kilo Code's own rules, which ask before most commands, apply; the command runs without spill".into(),
                ));
            }
            Ok(values) => read = Some(values),
        }
    }
    // The rules just read, for opencode's check of each of them against the command.
    let permissions = |cwd: &Path| match &read {
        Some(values) => Ok(values.clone()),
        None => read_permissions(files, inline, cwd),
    };
    let ctx = opencode::Context {
        spill,
        scope_prefix: SCOPE_PREFIX,
        product: "Kilo Code",
        permissions: &permissions,
        default_timeout_ms,
        timeout_cap_ms,
    };
    opencode::respond(input, &ctx)
}

/// Why the hook leaves every bash call alone under the configuration read for a session in
/// `cwd`, and what would let it wrap, for `spill doctor`; `None` when some configuration allows
/// every bash command (or the configuration cannot be read: the hook says why at each call).
pub fn idle(
    files: &Files,
    inline: &[(&str, Option<String>); 2],
    cwd: &Path,
) -> Option<(String, String)> {
    let values = read_permissions(files, inline, cwd).ok()?;
    if values.iter().any(allows_every_command) {
        return None;
    }
    Some((
        "no: no Kilo Code configuration allows every bash command, so Kilo Code's own rules, \
         which ask before most commands, apply, and bash commands run without spill"
            .into(),
        "to have spill wrap Kilo Code's bash commands, allow them in kilo.json \
         (`\"permission\": {\"bash\": \"allow\"}`, what Kilo Code writes for an existing \
         user); spill's plugin then still leaves a command a deny or ask rule may match alone"
            .into(),
    ))
}

/// Whether a `permission` value allows every bash command: `"allow"`, `{"bash": "allow"}`,
/// `{"bash": {"*": "allow", …}}` or `{"*": "allow"}` without a `bash` key.
fn allows_every_command(permission: &Value) -> bool {
    let bash = &permission["bash"];
    permission == "allow"
        || bash == "allow"
        || bash["*"] == "allow"
        || (bash.is_null() && permission["*"] == "allow")
}

/// The `permission` values of every configuration Kilo Code reads for a session in `cwd`, or
/// why one cannot be read.
fn read_permissions(
    files: &Files,
    inline: &[(&str, Option<String>); 2],
    cwd: &Path,
) -> std::result::Result<Vec<Value>, String> {
    let mut out = Vec::new();
    if let (name, Some(text)) = &inline[0] {
        out.extend(opencode::permissions_of(text, name)?);
    }
    if let (name, Some(text)) = &inline[1] {
        let doc = format!("{{\"permission\": {text}}}");
        out.extend(opencode::permissions_of(&doc, name)?);
    }
    for file in files.existing(cwd) {
        let text = std::fs::read_to_string(&file)
            .map_err(|e| format!("cannot read {}: {e}", file.display()))?;
        out.extend(opencode::permissions_of(
            &text,
            &file.display().to_string(),
        )?);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call_in(agent: Option<&str>, cwd: &Path, command: &str, timeout: Option<u64>) -> Vec<u8> {
        let mut args = serde_json::json!({"command": command, "description": "d"});
        if let Some(t) = timeout {
            args["timeout"] = t.into();
        }
        serde_json::json!({
            "hook_event_name": "tool.execute.before", "session_id": "ses_1",
            "tool": "bash", "call_id": "c", "cwd": cwd, "agent": agent, "args": args
        })
        .to_string()
        .into_bytes()
    }

    fn call(cwd: &Path, command: &str, timeout: Option<u64>) -> Vec<u8> {
        call_in(Some("code"), cwd, command, timeout)
    }

    /// The global kilo.json as Kilo Code leaves an existing user's: bash allowed.
    fn allow_bash(root: &Path) {
        let dir = root.join("home/.config/kilo");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("kilo.json"),
            r#"{"permission": {"bash": "allow"}}"#,
        )
        .unwrap();
    }

    fn files_in(root: &Path, project: bool) -> Files {
        Files {
            global: Some(root.join("home/.config/kilo")),
            home: Some(root.join("home")),
            config: Some(root.join("extra.json")),
            config_dir: Some(root.join("dir")),
            project,
        }
    }

    fn command(reply: &Response) -> Option<String> {
        let v: Value = serde_json::from_str(&reply.stdout).ok()?;
        v["args"]["command"].as_str().map(str::to_string)
    }

    #[test]
    fn a_bash_call_runs_in_the_kilo_scope_unless_a_rule_in_any_of_kilo_s_files_may_apply() {
        let root = tempfile::tempdir().unwrap();
        let cwd = root.path().join("repo/sub");
        std::fs::create_dir_all(&cwd).unwrap();
        let no = [("KILO_CONFIG_CONTENT", None), ("KILO_PERMISSION", None)];
        allow_bash(root.path());
        let reply = respond(
            &call(&cwd, "ls", None),
            "/usr/bin/spill",
            &files_in(root.path(), true),
            &no,
            None,
            None,
        )
        .unwrap();
        assert_eq!(
            command(&reply).unwrap(),
            "SPILL_SCOPE=kilo-ses_1 SPILL_ALLOW_RUN=1 \
             /usr/bin/spill wrap --label ls --detach-after 115000ms -- bash -c ls"
        );
        let deny = r#"{"permission": {"bash": {"*": "allow", "printf *": "deny"}}}"#;
        for file in [
            "home/.config/kilo/config.json",
            "home/.config/kilo/kilo.jsonc",
            "home/.kilo/kilo.json",
            "home/.kilocode/opencode.jsonc",
            "extra.json",
            "dir/kilo.json",
            "repo/kilo.json",
            "repo/.kilocode/kilo.json",
            "repo/sub/.kilo/opencode.json",
        ] {
            let path = root.path().join(file);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, deny).unwrap();
            let files = files_in(root.path(), true);
            let go = |command: &str| {
                respond(&call(&cwd, command, None), "s", &files, &no, None, None).unwrap()
            };
            let kept = go("printf x");
            assert_eq!(kept.stdout, "", "{file}");
            assert!(
                kept.note.unwrap().contains("Kilo Code applies the rule"),
                "{file}"
            );
            assert!(!go("ls").stdout.is_empty(), "{file}");
            std::fs::remove_file(&path).unwrap();
        }
        // The project's files do not count when Kilo Code is told to skip them.
        let path = root.path().join("repo/kilo.json");
        std::fs::write(&path, deny).unwrap();
        let skip = files_in(root.path(), false);
        let reply = respond(&call(&cwd, "printf x", None), "s", &skip, &no, None, None).unwrap();
        assert!(command(&reply).is_some());
        std::fs::remove_file(&path).unwrap();
        // The variables: a document, and a permission value.
        for inline in [
            [
                ("KILO_CONFIG_CONTENT", Some(deny.to_string())),
                ("KILO_PERMISSION", None),
            ],
            [
                ("KILO_CONFIG_CONTENT", None),
                ("KILO_PERMISSION", Some(r#"{"bash": "ask"}"#.to_string())),
            ],
        ] {
            let files = files_in(root.path(), true);
            let reply = respond(
                &call(&cwd, "printf x", None),
                "s",
                &files,
                &inline,
                None,
                None,
            )
            .unwrap();
            assert_eq!(reply.stdout, "", "{inline:?}");
        }
        // Another agent than the default one, or none known: unwrapped, saying why.
        for agent in [Some("plan"), Some("explore"), None] {
            let files = files_in(root.path(), true);
            let reply = respond(
                &call_in(agent, &cwd, "ls", None),
                "s",
                &files,
                &no,
                None,
                None,
            )
            .unwrap();
            assert_eq!(reply.stdout, "", "{agent:?}");
            assert!(reply.note.unwrap().contains("agent"), "{agent:?}");
        }
        let build = call_in(Some("build"), &cwd, "ls", None);
        let files = files_in(root.path(), true);
        assert!(
            !respond(&build, "s", &files, &no, None, None)
                .unwrap()
                .stdout
                .is_empty()
        );
        // A file Kilo Code reads that spill cannot: unwrapped, saying why.
        let path = root.path().join("home/.config/kilo/kilo.json");
        std::fs::write(&path, "{not json").unwrap();
        let files = files_in(root.path(), true);
        let reply = respond(&call(&cwd, "ls", None), "s", &files, &no, None, None).unwrap();
        assert_eq!(reply.stdout, "");
        assert!(reply.note.unwrap().contains("kilo.json"));
        // No configuration that allows bash (a new user's Kilo Code): its own rules ask, so
        // the command runs unwrapped; a rule for some commands only is not enough.
        for text in ["{}", r#"{"permission": {"bash": {"ls *": "allow"}}}"#] {
            std::fs::write(&path, text).unwrap();
            let reply = respond(&call(&cwd, "ls", None), "s", &files, &no, None, None).unwrap();
            assert_eq!(reply.stdout, "", "{text}");
            assert!(
                reply.note.unwrap().contains("ask before most commands"),
                "{text}"
            );
        }
        for allowed in [
            r#""allow""#,
            r#"{"*": "allow"}"#,
            r#"{"bash": {"*": "allow"}}"#,
        ] {
            let inline = [
                ("KILO_CONFIG_CONTENT", None),
                ("KILO_PERMISSION", Some(allowed.into())),
            ];
            let reply = respond(&call(&cwd, "ls", None), "s", &files, &inline, None, None).unwrap();
            assert!(command(&reply).is_some(), "{allowed}");
        }
    }

    #[test]
    fn the_timeout_is_kilo_s_default_the_variable_or_the_call_s_within_kilo_s_cap() {
        let root = tempfile::tempdir().unwrap();
        let no = [("KILO_CONFIG_CONTENT", None), ("KILO_PERMISSION", None)];
        allow_bash(root.path());
        let files = files_in(root.path(), false);
        let go = |timeout, default, cap| {
            let reply = respond(
                &call(root.path(), "make", timeout),
                "s",
                &files,
                &no,
                default,
                cap,
            )
            .unwrap();
            command(&reply).unwrap()
        };
        assert!(go(None, None, None).contains(" --detach-after 115000ms "));
        assert!(go(None, Some(60_000), None).contains(" --detach-after 55000ms "));
        assert!(go(Some(6_000), Some(60_000), None).contains(" --detach-after 4800ms "));
        assert!(go(Some(600_000), None, Some(6_000)).contains(" --detach-after 4800ms "));
        let gone = br#"{"hook_event_name":"session.deleted","session_id":"ses_1"}"#;
        let reply = respond(gone, "s", &files, &no, None, None).unwrap();
        assert_eq!(reply.remove_scope.as_deref(), Some("kilo-ses_1"));
    }
}
