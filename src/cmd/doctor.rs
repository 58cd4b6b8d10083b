//! `spill doctor`: for each harness found, what spill does there and what to do about the rest.
//! Read-only: it reads files (PATH, the harnesses' settings, their npm package.json), runs no
//! harness, and starts each registered `spill mcp` once to see that it answers `initialize`.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::error::Result;
use crate::harness::{self, Facts, Harness, McpFormat};
use crate::output;

use super::Outcome;

/// Runs `spill doctor`.
pub fn run() -> Result<Outcome> {
    let spill = std::env::current_exe().ok();
    let mut report = String::new();
    if let Some(spill) = &spill {
        report.push_str(&format!(
            "spill {} at {}\n",
            env!("CARGO_PKG_VERSION"),
            spill.display()
        ));
    }
    let mut found = 0;
    let mut binaries = Vec::new();
    for &harness in harness::ALL {
        let facts = (harness.doctor)(&super::Process);
        binaries.push(facts.binary);
        let binary = which(facts.binary);
        let configured = facts.config_dir.as_ref().is_some_and(|d| d.is_dir());
        if binary.is_none() && !configured {
            continue;
        }
        found += 1;
        report.push('\n');
        report.push_str(&describe(harness, &facts, binary.as_deref()));
    }
    if found == 0 {
        report.push_str(&format!(
            "\nno harness found ({} on PATH, or its configuration directory)\n",
            harness::in_words(&binaries, "or")
        ));
    }
    let mut out = output::stdout();
    output::write_all(&mut out, report.as_bytes())?;
    output::flush(&mut out)?;
    Ok(Outcome::Found)
}

/// The report for one harness.
fn describe(harness: &Harness, h: &Facts, binary: Option<&Path>) -> String {
    let name = harness.name;
    let mut todo: Vec<String> = Vec::new();
    let mut out = format!("{name}:\n");
    match binary {
        Some(bin) => {
            let version = npm_version(bin).unwrap_or_else(|| "unknown version".into());
            out.push_str(&format!("  binary:    {} ({version})\n", bin.display()));
            if let Some((line, fix)) = harness.wraps.map(|wraps| wraps(&version)) {
                out.push_str(&format!("  wraps:     {line}\n"));
                todo.extend(fix);
            }
        }
        None => out.push_str(&format!("  binary:    {} not on PATH\n", h.binary)),
    }
    if let Some((line, fix)) = &h.idle {
        out.push_str(&format!("  wraps:     {line}\n"));
        todo.push(fix.clone());
    }
    match harness
        .entries
        .hookless()
        .map_or_else(|| hook_state(harness, h), |why| Ok(format!("none: {why}")))
    {
        Ok(state) => out.push_str(&format!("  hooks:     {state}\n")),
        Err(state) => {
            out.push_str(&format!("  hooks:     {state}\n"));
            todo.push(format!("spill init {name}"));
        }
    }
    let all = mcp_servers(&h.mcp_files);
    // The store variables set here that a server of spill's would not get (Codex passes a
    // server only the variables its entry names): it would read or store under another root.
    let set: Vec<&str> = STORE_VARS
        .into_iter()
        .filter(|v| super::env_text(v).ok().flatten().is_some())
        .collect();
    for s in &all {
        let missing: Vec<&str> = set
            .iter()
            .copied()
            .filter(|v| s.unpassed.contains(v))
            .collect();
        if missing.is_empty() || !matches!(s.kind, Kind::Spill { .. } | Kind::Proxied) {
            continue;
        }
        let what = harness::in_words(&missing, "and");
        out.push_str(&format!(
            "  env:       {what} set here but not passed to MCP server {:?} (its entry's env_vars \
             does not name it): it uses another store than the hooks\n",
            s.name
        ));
        todo.push(format!(
            "pass {what} to MCP server {:?} in {}: env_vars = [{}]{}",
            s.name,
            s.file.display(),
            missing
                .iter()
                .map(|v| format!("{v:?}"))
                .collect::<Vec<_>>()
                .join(", "),
            if s.kind == Kind::Proxied {
                format!(" (`spill init {name} --proxy-mcp` adds spill's to the routes it wrote)")
            } else {
                String::new()
            }
        ));
    }
    let servers: Vec<(&PathBuf, &String, bool, &[String])> = all
        .iter()
        .filter_map(|s| match s.kind {
            Kind::Spill { follows } => Some((&s.file, &s.name, follows, s.words.as_slice())),
            _ => None,
        })
        .collect();
    if h.mcp_files.is_empty() {
        out.push_str(&format!("  spill mcp: {name} has no MCP client\n"));
    } else if servers.is_empty() {
        out.push_str("  spill mcp: not registered\n");
        // config.toml's servers (Codex's) get only the variables their entry names.
        let passed = if h.mcp_files.iter().any(|(_, f)| *f == McpFormat::Toml) {
            ", with env_vars naming spill's variables (README)"
        } else {
            ""
        };
        todo.push(match harness.mcp_server {
            Some(_) => format!(
                "spill init {name} --mcp (registers `spill mcp`, which follows the conversation{passed}, to read refs through MCP tools)"
            ),
            None => format!(
                "register `spill mcp` in {name} (no SPILL_SCOPE: it follows the conversation{passed}) to read refs through MCP tools"
            ),
        });
    } else {
        for (file, server, follows, words) in servers {
            let how = if follows {
                "follows the conversation's scope"
            } else {
                "serves a fixed scope (SPILL_SCOPE or --scope): refs from the hooks' envelopes are not found there"
            };
            out.push_str(&format!(
                "  spill mcp: registered as {server:?} in {}; {how}\n",
                file.display()
            ));
            match connects(words) {
                Ok(answer) => {
                    out.push_str(&format!("  connects:  yes: {answer} answered initialize\n"))
                }
                Err(why) => {
                    out.push_str(&format!("  connects:  no: {why}\n"));
                    todo.push(format!(
                        "fix the command of MCP server {server:?} in {} so that it starts spill mcp",
                        file.display()
                    ));
                }
            }
        }
    }
    if let Some(sandbox) = &h.sandbox {
        out.push_str(&format!("  sandbox:   {}\n", sandbox.mode));
        match &sandbox.stores {
            Ok(how) => out.push_str(&format!("  stores:    yes: {how}\n")),
            Err(why) => {
                out.push_str(&format!("  stores:    no: {why}\n"));
                todo.push(format!("{} (to let spill store)", sandbox.allow));
            }
        }
    }
    let mut uncovered = h.uncovered;
    if let Some(routed) = h.routed {
        let names = |kind: Kind| -> Vec<&str> {
            all.iter()
                .filter(|s| s.kind == kind)
                .map(|s| s.name.as_str())
                .collect()
        };
        let (through, direct) = (names(Kind::Proxied), names(Kind::Stdio));
        let listed = |n: &[&str]| {
            n.iter()
                .map(|n| format!("{n:?}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let mut line = match through.len() {
            0 => "no MCP server goes through spill mcp proxy".to_string(),
            _ => format!("through spill mcp proxy: {}", listed(&through)),
        };
        if !direct.is_empty() {
            line.push_str(&format!("; not routed: {}", listed(&direct)));
            todo.push(format!(
                "spill init {name} --proxy-mcp (routes {} through spill mcp proxy)",
                listed(&direct)
            ));
        } else {
            uncovered = routed;
        }
        out.push_str(&format!("  routes:    {line}\n"));
    }
    out.push_str(&format!("  covered:   {}\n", h.covered));
    out.push_str(&format!("  not:       {uncovered}\n"));
    for item in todo {
        out.push_str(&format!("  to do:     {item}\n"));
    }
    out
}

/// `Ok(what is installed)` when spill's hooks are in place and their spill exists; `Err(why not)`.
fn hook_state(harness: &Harness, h: &Facts) -> std::result::Result<String, String> {
    let Some(file) = &h.hook_file else {
        return Err("cannot name the settings file (HOME not set)".into());
    };
    let text = match std::fs::read_to_string(file) {
        Ok(text) => text,
        Err(_) => return Err(format!("not installed ({} does not exist)", file.display())),
    };
    let marker = format!(" hook {}", harness.name);
    if harness.entries.owns_file() {
        return Ok(format!("spill's plugin at {}", file.display()));
    }
    let Some(at) = text.find(&marker) else {
        return Err(format!("not installed in {}", file.display()));
    };
    // The spill path is the word before ` hook NAME`, possibly quoted.
    let before = &text[..at];
    let start = before.rfind(['"', '\n', '=']).map_or(0, |i| i + 1);
    let spill = before[start..]
        .trim()
        .trim_matches('\'')
        .replace("\\\"", "");
    let exists = Path::new(&spill).is_file();
    let state = format!(
        "installed in {} (runs {spill}{})",
        file.display(),
        if exists { "" } else { ", which does not exist" }
    );
    if exists { Ok(state) } else { Err(state) }
}

/// Whether a registered `spill mcp` answers as its harness would start it (its command and
/// arguments, in this environment): one `initialize` request on its stdin, which then closes,
/// so the server answers and ends; `Ok(NAME VERSION)` of the answer's `serverInfo`. The server
/// writes nothing for it (no store is opened before a tool is called).
fn connects(words: &[String]) -> std::result::Result<String, String> {
    use std::io::{Read, Write};
    use std::process::{Command, Stdio};
    let (program, args) = words.split_first().ok_or("no command")?;
    let path = if program.contains('/') {
        PathBuf::from(program)
    } else {
        which(program).ok_or_else(|| format!("{program} is not on PATH"))?
    };
    let mut child = Command::new(&path)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", path.display()))?;
    let request = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"spill doctor","version":"1"}}}"#;
    if let Some(mut stdin) = child.stdin.take() {
        let _ = writeln!(stdin, "{request}");
    }
    let mut stdout = child.stdout.take().ok_or("no stdout")?;
    let (send, answer) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stdout.read_to_string(&mut text);
        let _ = send.send(text);
    });
    let text = answer.recv_timeout(std::time::Duration::from_secs(5));
    if text.is_err() {
        let _ = child.kill();
    }
    let _ = child.wait();
    let text = text.map_err(|_| "no answer to initialize within 5 s".to_string())?;
    let reply: Option<Value> = text.lines().find_map(|l| serde_json::from_str(l).ok());
    let info = reply.as_ref().map(|r| &r["result"]["serverInfo"]);
    match info.map(|i| (i["name"].as_str(), i["version"].as_str())) {
        Some((Some(name), Some(version))) => Ok(format!("{name} {version}")),
        _ => Err(format!(
            "{} did not answer initialize as an MCP server",
            path.display()
        )),
    }
}

/// The variables that choose the store: a server of spill's without them uses another one
/// than the hooks.
const STORE_VARS: [&str; 2] = ["SPILL_DIR", "SPILL_STORE"];

/// An MCP server a harness's file registers.
#[derive(Debug, PartialEq, Eq)]
struct Server {
    file: PathBuf,
    name: String,
    kind: Kind,
    /// Which of [`STORE_VARS`] the harness does not pass it: in Codex's config.toml, those its
    /// entry does not name (`env_vars`, `env`); none where a server inherits the environment.
    unpassed: Vec<&'static str>,
    /// Its command and arguments (none for a remote server).
    words: Vec<String>,
}

/// What a registered MCP server is, for spill.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// `spill mcp`: whether it follows the conversation (no fixed scope).
    Spill { follows: bool },
    /// A server started through `spill mcp proxy --` (its results spilled).
    Proxied,
    /// Another stdio server (a command).
    Stdio,
    /// A remote server (a URL, no command).
    Remote,
}

/// The MCP servers the harness's files register, in file order.
fn mcp_servers(files: &[(PathBuf, McpFormat)]) -> Vec<Server> {
    let mut out = Vec::new();
    for (file, format) in files {
        let Ok(text) = std::fs::read_to_string(file) else {
            continue;
        };
        let mut push = |name: String, kind: Kind, unpassed: Vec<&'static str>, words: &[String]| {
            out.push(Server {
                file: file.clone(),
                name,
                kind,
                unpassed,
                words: words.to_vec(),
            })
        };
        match format {
            McpFormat::Json | McpFormat::Opencode => {
                let Ok(doc) = serde_json::from_str::<Value>(&text) else {
                    continue;
                };
                let mut tables = vec![&doc["mcpServers"], &doc["mcp"]];
                if let Some(projects) = doc["projects"].as_object() {
                    tables.extend(projects.values().map(|p| &p["mcpServers"]));
                }
                for table in tables {
                    for (name, server) in table.as_object().into_iter().flatten() {
                        let mut words: Vec<String> = match &server["command"] {
                            Value::String(c) => vec![c.clone()],
                            Value::Array(a) => a
                                .iter()
                                .filter_map(|w| w.as_str().map(String::from))
                                .collect(),
                            _ if server.get("url").or(server.get("httpUrl")).is_some() => {
                                push(name.clone(), Kind::Remote, Vec::new(), &[]);
                                continue;
                            }
                            _ => continue,
                        };
                        words.extend(
                            server["args"]
                                .as_array()
                                .into_iter()
                                .flatten()
                                .filter_map(|w| w.as_str().map(String::from)),
                        );
                        let env = server.get("env").or(server.get("environment"));
                        let scoped = env.is_some_and(|e| e.get("SPILL_SCOPE").is_some());
                        push(name.clone(), kind_of(&words, scoped), Vec::new(), &words);
                    }
                }
            }
            McpFormat::Toml => {
                // `[mcp_servers.NAME]` with `command = "…"`, `args = […]` or `url = "…"` lines:
                // read as text (the doctor needs no TOML parser for three keys). A store
                // variable named on a line of the entry (`env_vars`, `env`) is passed to it.
                let mut name: Option<String> = None;
                let mut words: Vec<String> = Vec::new();
                let mut scoped = false;
                let mut url = false;
                let mut named: Vec<&'static str> = Vec::new();
                let mut flush = |name: &mut Option<String>,
                                 words: &mut Vec<String>,
                                 scoped: &mut bool,
                                 url: &mut bool,
                                 named: &mut Vec<&'static str>| {
                    if let Some(n) = name.take() {
                        let unpassed = STORE_VARS
                            .into_iter()
                            .filter(|v| !named.contains(v))
                            .collect();
                        if !words.is_empty() {
                            push(n, kind_of(words, *scoped), unpassed, words);
                        } else if *url {
                            push(n, Kind::Remote, Vec::new(), &[]);
                        }
                    }
                    words.clear();
                    named.clear();
                    *scoped = false;
                    *url = false;
                };
                for line in text.lines().map(str::trim) {
                    // The entry's `[mcp_servers.NAME.env]` table is still the entry.
                    let env_of = line
                        .strip_prefix("[mcp_servers.")
                        .and_then(|r| r.strip_suffix(".env]"))
                        .map(|n| n.trim_matches('"'));
                    if env_of.is_some() && env_of == name.as_deref() {
                        continue;
                    }
                    if line.starts_with('[') {
                        flush(&mut name, &mut words, &mut scoped, &mut url, &mut named);
                        name = line
                            .strip_prefix("[mcp_servers.")
                            .and_then(|r| r.strip_suffix(']'))
                            .filter(|n| !n.contains('.'))
                            .map(|n| n.trim_matches('"').to_string());
                    } else if name.is_some() {
                        let quoted = |v: &str| -> Vec<String> {
                            v.split('"').skip(1).step_by(2).map(String::from).collect()
                        };
                        let key = |k: &str| {
                            line.strip_prefix(k)
                                .filter(|r| r.trim_start().starts_with('='))
                        };
                        if let Some(v) = key("command") {
                            let mut c = quoted(v);
                            c.append(&mut words);
                            words = c;
                        } else if let Some(v) = key("args") {
                            words.extend(quoted(v));
                        } else if key("url").is_some() {
                            url = true;
                        } else if line.contains("SPILL_SCOPE") {
                            scoped = true;
                        }
                        named.extend(STORE_VARS.into_iter().filter(|v| line.contains(v)));
                    }
                }
                flush(&mut name, &mut words, &mut scoped, &mut url, &mut named);
            }
        }
    }
    out
}

/// What a stdio server's command words make it.
fn kind_of(words: &[String], scoped_env: bool) -> Kind {
    match spill_mcp(words, scoped_env) {
        Some(follows) => Kind::Spill { follows },
        None if is_proxy(words) => Kind::Proxied,
        None => Kind::Stdio,
    }
}

/// Whether the words start `spill mcp proxy` (`--` then the server it starts).
fn is_proxy(words: &[String]) -> bool {
    let spill = words
        .first()
        .and_then(|p| Path::new(p).file_name())
        .is_some_and(|n| n == "spill");
    spill && words.get(1).is_some_and(|w| w == "mcp") && words.get(2).is_some_and(|w| w == "proxy")
}

/// For a server's command words: `Some(follows the conversation)` when it is `spill mcp` (not
/// the proxy), `None` otherwise.
fn spill_mcp(words: &[String], scoped_env: bool) -> Option<bool> {
    let (program, args) = words.split_first()?;
    let name = Path::new(program).file_name()?.to_str()?;
    if name != "spill" || args.first().map(String::as_str) != Some("mcp") {
        return None;
    }
    if args.iter().any(|a| a == "proxy") {
        return None;
    }
    Some(
        !scoped_env
            && !args
                .iter()
                .any(|a| a == "--scope" || a.starts_with("--scope=")),
    )
}

/// The first `binary` on PATH.
pub(super) fn which(binary: &str) -> Option<PathBuf> {
    let path = super::env_text("PATH").ok().flatten()?;
    path.split(':')
        .filter(|d| !d.is_empty())
        .map(|d| Path::new(d).join(binary))
        .find(|p| p.is_file())
}

/// The version of the npm package a binary belongs to: the nearest `package.json` above the
/// file its PATH entry resolves to.
pub(super) fn npm_version(binary: &Path) -> Option<String> {
    let real = std::fs::canonicalize(binary).ok()?;
    for dir in real.ancestors().skip(1).take(6) {
        let Ok(text) = std::fs::read_to_string(dir.join("package.json")) else {
            continue;
        };
        let doc: Value = serde_json::from_str(&text).ok()?;
        let name = doc["name"].as_str().unwrap_or("?");
        return Some(format!("{name} {}", doc["version"].as_str()?));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spill_mcp_servers_are_told_from_proxies_and_other_servers() {
        let w = |s: &str| s.split(' ').map(String::from).collect::<Vec<_>>();
        assert_eq!(spill_mcp(&w("/usr/bin/spill mcp"), false), Some(true));
        assert_eq!(spill_mcp(&w("spill mcp --scope x"), false), Some(false));
        assert_eq!(spill_mcp(&w("spill mcp"), true), Some(false));
        assert_eq!(spill_mcp(&w("spill mcp proxy -- x"), false), None);
        assert_eq!(spill_mcp(&w("node server.js"), false), None);
    }

    #[test]
    fn registered_servers_are_found_in_json_and_toml() {
        let dir = tempfile::tempdir().unwrap();
        let json = dir.path().join("c.json");
        std::fs::write(
            &json,
            r#"{"projects": {"/p": {"mcpServers": {"s": {"command": "/x/spill", "args": ["mcp"]}}}},
                "mcpServers": {"o": {"command": "node", "args": ["a.js"]},
                               "p": {"command": "/b/spill", "args": ["mcp", "proxy", "--", "node", "a.js"]},
                               "r": {"type": "http", "url": "https://x/mcp"},
                               "f": {"command": "spill", "args": ["mcp"], "env": {"SPILL_SCOPE": "x"}}}}"#,
        )
        .unwrap();
        let toml = dir.path().join("config.toml");
        std::fs::write(
            &toml,
            "[mcp_servers.spill]\ncommand = \"/x/spill\"\nargs = [\"mcp\"]\n\n[mcp_servers.other]\ncommand = \"node\"\n\n\
             [mcp_servers.routed]\ncommand = \"/x/spill\"\nargs = [\"mcp\", \"proxy\", \"--\", \"node\"]\n\n\
             [mcp_servers.far]\nurl = \"https://x/mcp\"\nurl_env = 1\n",
        )
        .unwrap();
        let found = mcp_servers(&[(json, McpFormat::Json), (toml.clone(), McpFormat::Toml)]);
        let names: Vec<(&str, Kind)> = found.iter().map(|s| (s.name.as_str(), s.kind)).collect();
        let spill = |follows| Kind::Spill { follows };
        assert_eq!(
            names,
            [
                ("o", Kind::Stdio),
                ("p", Kind::Proxied),
                ("r", Kind::Remote),
                ("f", spill(false)),
                ("s", spill(true)),
                ("spill", spill(true)),
                ("other", Kind::Stdio),
                ("routed", Kind::Proxied),
                ("far", Kind::Remote),
            ]
        );
        // In config.toml a server gets the store variables its entry names, and only those.
        let unpassed: Vec<&[&str]> = found.iter().map(|s| s.unpassed.as_slice()).collect();
        let both: &[&str] = &["SPILL_DIR", "SPILL_STORE"];
        assert_eq!(
            unpassed,
            [&[][..], &[], &[], &[], &[], both, both, both, &[]]
        );
        std::fs::write(
            &toml,
            "[mcp_servers.a]\ncommand = \"spill\"\nargs = [\"mcp\"]\nenv_vars = [\"SPILL_DIR\", \"SPILL_TTL\"]\n\n\
             [mcp_servers.b]\ncommand = \"/x/spill\"\nargs = [\"mcp\", \"proxy\", \"--\", \"n\"]\nenv_vars = [\n  \"SPILL_STORE\",\n]\n\n\
             [mcp_servers.c]\ncommand = \"spill\"\nargs = [\"mcp\"]\n\n[mcp_servers.c.env]\nSPILL_DIR = \"/s\"\nSPILL_STORE = \"s3://b/p\"\n\n\
             [mcp_servers.d]\ncommand = \"spill\"\nargs = [\"mcp\"]\nenv = { SPILL_SCOPE = \"x\" }\n",
        )
        .unwrap();
        let found = mcp_servers(&[(toml, McpFormat::Toml)]);
        let seen: Vec<(&str, Kind, &[&str])> = found
            .iter()
            .map(|s| (s.name.as_str(), s.kind, s.unpassed.as_slice()))
            .collect();
        assert_eq!(
            seen,
            [
                ("a", spill(true), &["SPILL_STORE"][..]),
                ("b", Kind::Proxied, &["SPILL_DIR"]),
                ("c", spill(true), &[]),
                ("d", spill(false), both),
            ]
        );
    }
}
