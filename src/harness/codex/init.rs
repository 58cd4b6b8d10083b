//! Codex's `config.toml`: spill's `[[hooks.PreToolUse]]` entry and the trust state that lets
//! Codex run it, added and removed as one marked block of text.
//!
//! Codex skips a user's hook silently until it is trusted: `[hooks.state."KEY"]` must hold
//! `trusted_hash`, where KEY is `CONFIG_PATH:pre_tool_use:GROUP:HANDLER` (the config file's
//! path and the hook's position in it) and the hash is SHA-256 over the hook's normalised
//! identity as compact JSON with sorted keys (`event_name`, `matcher`, and the handler with
//! Codex's default timeout of 600 s), checked against the hash codex-cli 0.171.0 reports in its
//! `hooks/list` answer. `spill init codex` writes both, so the hook runs without a review step;
//! running it again after the file's other hooks moved recomputes the position.
//!
//! The file is edited as text, not parsed and rewritten: spill's lines are appended at the end
//! between two marker comments, so every other byte, comment and layout stays as it was, and
//! `--uninstall` removes exactly those lines. The rest of the file is read with `toml_edit`
//! (only to read it): a file that is not valid TOML is refused, the user's own
//! `[[hooks.PreToolUse]]` groups give the position of spill's, a trust record already there for
//! that position is reused when it trusts spill's hook and refused otherwise (TOML allows one
//! table per key), and the result is parsed again before it is written, so spill never writes a
//! config.toml Codex cannot read.

use sha2::Digest as _;

use crate::init::{Change, Edit, Entries};

/// spill's block in `config.toml`, as `spill init` changes it.
pub struct Block;

impl Entries for Block {
    fn install(&self, text: &str, spill: &str, file: &str) -> Change {
        install(text, spill, file).map(|t| t.map(Edit::from))
    }

    fn uninstall(&self, text: &str, backup: Option<&str>) -> Change {
        uninstall(text, backup).map(|t| t.map(Edit::from))
    }
}

/// The first line of spill's block.
const BEGIN: &str =
    "# spill: begin (written by `spill init codex`; `spill init codex --uninstall` removes it)";
/// The last line of spill's block.
const END: &str = "# spill: end";
/// The matcher of spill's hook: Codex's shell tool, by the name its hooks see.
const MATCHER: &str = "^Bash$";
/// Codex's timeout for a command hook without one, part of the trusted identity.
const DEFAULT_TIMEOUT: u64 = 600;

/// The hook command `spill init` registers for Codex.
pub fn command(spill: &str) -> String {
    format!("{} hook codex", crate::wrap::shell_quote(spill))
}

/// The config text with spill's block for the config file at `config_path` (as Codex names
/// it), or `None` when it already has exactly that block.
pub fn install(
    text: &str,
    spill: &str,
    config_path: &str,
) -> std::result::Result<Option<String>, String> {
    let (rest, _) = without_block(text)?;
    let doc = parse(&rest).map_err(|e| format!("config.toml is not valid TOML: {e}"))?;
    let groups = pre_tool_use_groups(&doc)?;
    let command = command(spill);
    let key = format!("{config_path}:pre_tool_use:{groups}:0");
    let hash = trust_hash(MATCHER, &command);
    let trust = match trust_record(&doc, &key) {
        None => format!(
            "\n# Codex runs a hook only once it is trusted; this is the hash its own review records.\n\
             [hooks.state.{}]\ntrusted_hash = {}\n",
            basic_string(&key),
            basic_string(&hash),
        ),
        // The user's own record already trusts exactly this hook: it stays theirs.
        Some(Some(theirs)) if theirs == hash => String::new(),
        Some(theirs) => {
            return Err(format!(
                "config.toml already holds the trust record [hooks.state.{}] (trusted_hash {}), \
                 left by a hook that was at the position spill's takes; TOML allows one table per \
                 key, so remove that table (Codex records it again when you review a hook)",
                basic_string(&key),
                theirs.map_or("missing".into(), |h| basic_string(&h)),
            ));
        }
    };
    let new = append(
        &rest,
        &format!(
            "{BEGIN}\n[[hooks.PreToolUse]]\nmatcher = {}\n\n[[hooks.PreToolUse.hooks]]\ntype = \"command\"\ncommand = {}\n{trust}{END}\n",
            basic_string(MATCHER),
            basic_string(&command),
        ),
    );
    if let Err(e) = parse(&new) {
        return Err(format!(
            "spill's block after this config.toml would not be valid TOML ({e}); \
             `spill init codex --dry-run` shows the block"
        ));
    }
    Ok((new != text).then_some(new))
}

/// `spill mcp` as Codex's MCP server `spill` (`spill init codex --mcp`): a `[mcp_servers.spill]`
/// table appended to `config.toml` as a marked block of its own, beside the hook's, and cut out
/// again by `--uninstall`. Its `env_vars` names spill's variables ([`super::route::PASSED`]):
/// Codex passes an MCP server no other, and without them the server would read another store
/// than the hook when `SPILL_DIR` or `SPILL_STORE` is set. Its tools are approved in advance
/// (`default_tools_approval_mode = "approve"`): they only read the conversation's own stored
/// outputs, wait on its commands and stop them, and `codex exec` would otherwise refuse each
/// call. A server of the user's that already runs `spill mcp`, or any server named `spill`,
/// is left as it is and said so.
pub struct McpBlock;

/// The first line of the MCP server's block.
const MCP_BEGIN: &str = "# spill mcp: begin (written by `spill init codex --mcp`; `spill init codex --uninstall` removes it)";
/// The last line of the MCP server's block.
const MCP_END: &str = "# spill mcp: end";

impl Entries for McpBlock {
    fn install(&self, text: &str, spill: &str, _file: &str) -> Change {
        let block = format!(
            "{MCP_BEGIN}\n[mcp_servers.spill]\ncommand = {}\nargs = [\"mcp\"]\nenv_vars = [{}]\n\
             default_tools_approval_mode = \"approve\"\n{MCP_END}\n",
            basic_string(spill),
            super::route::passed_items(),
        );
        // Where the block stands does not matter to a table of its own (the hook's block, which
        // `init` appends after it, moves; this one stays).
        if text.contains(&block) {
            return Ok(None);
        }
        let (rest, _) = without(text, MCP_BEGIN, MCP_END)?;
        let doc = parse(&rest).map_err(|e| format!("config.toml is not valid TOML: {e}"))?;
        let servers = doc.get("mcp_servers").and_then(|s| s.as_table_like());
        let left = |why: String| {
            Ok(Some(Edit {
                text: text.to_string(),
                notes: vec![format!("{why}; `spill mcp` not added to config.toml")],
            }))
        };
        for (name, server) in servers.iter().flat_map(|s| s.iter()) {
            let word = |v: &toml_edit::Item| v.as_str().map(String::from);
            let mut words: Vec<String> = server.get("command").and_then(word).into_iter().collect();
            if let Some(args) = server.get("args").and_then(|a| a.as_array()) {
                words.extend(args.iter().filter_map(|a| a.as_str().map(String::from)));
            }
            if crate::init::server::serves_store(&words) {
                return left(format!(
                    "MCP server {name:?} already runs `spill mcp` (your entry, left as it is)"
                ));
            }
        }
        if servers.is_some_and(|s| s.contains_key(crate::init::server::NAME)) {
            return left(
                "an MCP server named \"spill\" is registered and is not `spill mcp` (rename it \
                 to let spill register its own)"
                    .into(),
            );
        }
        let new = append(&rest, &block);
        if let Err(e) = parse(&new) {
            return Err(format!(
                "spill's [mcp_servers.spill] after this config.toml would not be valid TOML \
                 ({e}); `spill init codex --mcp --dry-run` shows the block"
            ));
        }
        Ok((new != text).then(|| Edit::plain(new)))
    }

    fn uninstall(&self, text: &str, backup: Option<&str>) -> Change {
        unappend(text, backup, MCP_BEGIN, MCP_END).map(|t| t.map(Edit::from))
    }

    fn what(&self) -> &'static str {
        "MCP server (`spill mcp`)"
    }
}

/// `text` with `block` appended after a blank line (none in an empty file).
fn append(text: &str, block: &str) -> String {
    let mut new = text.to_string();
    if !new.is_empty() {
        if !new.ends_with('\n') {
            new.push('\n');
        }
        new.push('\n');
    }
    new.push_str(block);
    new
}

/// The file read as TOML (only read: the text is never rendered back). The error is
/// `line L, column C: REASON`, on one line.
fn parse(text: &str) -> std::result::Result<toml_edit::DocumentMut, String> {
    text.parse::<toml_edit::DocumentMut>().map_err(|e| {
        let full = e.to_string();
        let lines: Vec<&str> = full.lines().collect();
        let at = lines
            .first()
            .map_or("", |l| l.trim_start_matches("TOML parse error at "));
        let why = match lines.iter().rposition(|l| l.contains('^')) {
            Some(caret) => {
                let mut why = vec![lines[caret].rsplit_once('^').map_or("", |(_, r)| r)];
                why.extend(&lines[caret + 1..]);
                why.iter().map(|l| l.trim()).collect::<Vec<_>>().join(" ")
            }
            None => lines.get(1..).unwrap_or(&[]).join(" "),
        };
        format!("{at}: {}", why.trim())
    })
}

/// `[hooks.state."KEY"]` when the file has it: `Some(trusted_hash)` (itself `None` when the
/// record holds none).
fn trust_record(doc: &toml_edit::DocumentMut, key: &str) -> Option<Option<String>> {
    let record = doc
        .get("hooks")?
        .as_table_like()?
        .get("state")?
        .as_table_like()?
        .get(key)?;
    Some(
        record
            .as_table_like()
            .and_then(|r| r.get("trusted_hash"))
            .and_then(|h| h.as_str())
            .map(str::to_string),
    )
}

/// The config text without spill's block, or `None` when it has none. When the result equals
/// `backup`, the backup's bytes are returned.
pub fn uninstall(text: &str, backup: Option<&str>) -> std::result::Result<Option<String>, String> {
    unappend(text, backup, BEGIN, END)
}

/// The config text without the block between the lines `begin` and `end`, or `None` when it
/// has none; the backup's bytes when the rest is the backup.
fn unappend(
    text: &str,
    backup: Option<&str>,
    begin: &str,
    end: &str,
) -> std::result::Result<Option<String>, String> {
    let (rest, found) = without(text, begin, end)?;
    if !found {
        return Ok(None);
    }
    if let Some(old) = backup
        && old.trim_end() == rest.trim_end()
    {
        return Ok(Some(old.to_string()));
    }
    Ok(Some(rest))
}

/// The text with spill's block (and the blank line `install` put before it) cut out, and
/// whether there was one.
fn without_block(text: &str) -> std::result::Result<(String, bool), String> {
    without(text, BEGIN, END)
}

/// The text with the block between the lines `begin` and `end` (and the blank line before it)
/// cut out, and whether there was one.
fn without(text: &str, begin: &str, end: &str) -> std::result::Result<(String, bool), String> {
    let Some(start) = line_start(text, begin) else {
        return Ok((text.to_string(), false));
    };
    let end = line_start(&text[start..], end)
        .map(|at| start + at + end.len())
        .ok_or(format!(
            "spill's block in config.toml has no end line (`{end}`); fix it by hand"
        ))?;
    let end = if text[end..].starts_with('\n') {
        end + 1
    } else {
        end
    };
    let mut before = &text[..start];
    if before.ends_with("\n\n") {
        before = &before[..before.len() - 1];
    }
    Ok((format!("{before}{}", &text[end..]), true))
}

/// Where a line that is exactly `line` starts.
fn line_start(text: &str, line: &str) -> Option<usize> {
    let mut at = 0;
    for l in text.split_inclusive('\n') {
        if l.trim_end_matches(['\n', '\r']) == line {
            return Some(at);
        }
        at += l.len();
    }
    None
}

/// How many `[[hooks.PreToolUse]]` groups the file defines, refusing files that define
/// `hooks`, `hooks.PreToolUse` or `hooks.state` as an inline value (or `hooks.PreToolUse` as one
/// plain table): spill's tables cannot be appended to those.
fn pre_tool_use_groups(doc: &toml_edit::DocumentMut) -> std::result::Result<usize, String> {
    use toml_edit::Item;
    let inline = |path: &str| {
        format!(
            "config.toml defines `{path}` as an inline value or a plain table, so spill cannot append \
             its hook as a [[hooks.PreToolUse]] table; rewrite it as [[hooks.PreToolUse]] tables \
             (`spill init codex --dry-run` shows spill's)"
        )
    };
    let hooks = match doc.get("hooks") {
        None => return Ok(0),
        Some(Item::Table(hooks)) => hooks,
        Some(_) => return Err(inline("hooks")),
    };
    if matches!(
        hooks.get("state"),
        Some(Item::Value(_) | Item::ArrayOfTables(_))
    ) {
        return Err(inline("hooks.state"));
    }
    match hooks.get("PreToolUse") {
        None => Ok(0),
        Some(Item::ArrayOfTables(groups)) => Ok(groups.len()),
        Some(_) => Err(inline("hooks.PreToolUse")),
    }
}

/// A TOML basic string.
pub(super) fn basic_string(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The `trusted_hash` Codex records for a `PreToolUse` command hook with this matcher.
pub fn trust_hash(matcher: &str, command: &str) -> String {
    // Keys in sorted order, compact, as Codex serialises its canonical JSON.
    let identity = format!(
        "{{\"event_name\":\"pre_tool_use\",\"hooks\":[{{\"async\":false,\"command\":{},\"timeout\":{DEFAULT_TIMEOUT},\"type\":\"command\"}}],\"matcher\":{}}}",
        serde_json::Value::from(command),
        serde_json::Value::from(matcher),
    );
    let digest = sha2::Sha256::digest(identity.as_bytes());
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    format!("sha256:{hex}")
}

#[cfg(test)]
mod tests {
    use super::*;

    const CONFIG: &str = "/home/u/.codex/config.toml";

    #[test]
    fn the_trust_hash_is_the_one_codex_reports() {
        // `hooks/list` of codex-cli 0.171.0 for this hook (matcher "^Bash$").
        assert_eq!(
            trust_hash("^Bash$", "/tmp/cx/probe_hook.py"),
            "sha256:6a676852e6bd1f35ff14460526895fb4493e4ca2987f02844613d01af1953d7d"
        );
    }

    #[test]
    fn install_appends_one_block_keeps_every_other_byte_and_is_idempotent() {
        let user = "# my settings\nmodel = \"o3\"   # pinned\n\n[[hooks.PreToolUse]]\nmatcher = \"apply_patch\"\n[[hooks.PreToolUse.hooks]]\ntype = \"command\"\ncommand = \"lint\"\n\n[profiles.x]\nnote = \"\"\"\n[[hooks.PreToolUse]]\n\"\"\"\nlist = [\n  [\"a\"],\n]\n";
        let once = install(user, "/usr/bin/spill", CONFIG).unwrap().unwrap();
        assert!(once.starts_with(user), "{once}");
        assert!(
            once.contains(&format!(
                "[hooks.state.\"{CONFIG}:pre_tool_use:1:0\"]\ntrusted_hash = \"sha256:"
            )),
            "{once}"
        );
        assert!(once.contains("command = \"/usr/bin/spill hook codex\""));
        assert_eq!(install(&once, "/usr/bin/spill", CONFIG).unwrap(), None);
        let moved = install(&once, "/opt/s p/spill", CONFIG).unwrap().unwrap();
        assert_eq!(moved.matches(BEGIN).count(), 1);
        assert!(moved.contains("'/opt/s p/spill' hook codex"));
        assert_eq!(uninstall(&once, Some(user)).unwrap().unwrap(), user);
        assert_eq!(uninstall(&moved, None).unwrap().unwrap(), user);
        assert_eq!(uninstall(user, Some(user)).unwrap(), None);
        let fresh = install("", "spill", CONFIG).unwrap().unwrap();
        assert!(fresh.starts_with(BEGIN));
        assert!(fresh.contains(":pre_tool_use:0:0"));
        assert_eq!(uninstall(&fresh, Some("")).unwrap().unwrap(), "");
        // A file without a final newline gets one before the block, and keeps its bytes.
        let bare = "model = \"o3\"";
        let with = install(bare, "spill", CONFIG).unwrap().unwrap();
        assert!(with.starts_with("model = \"o3\"\n\n# spill: begin"));
        assert_eq!(uninstall(&with, Some(bare)).unwrap().unwrap(), bare);
    }

    #[test]
    fn inline_hooks_and_a_broken_block_are_refused() {
        for text in [
            "hooks = { PreToolUse = [] }\n",
            "[hooks]\nPreToolUse = []\n",
            "hooks.PreToolUse = [\n  {matcher = \"x\"},\n]\n",
            "[hooks.PreToolUse]\nmatcher = \"x\"\n",
            "[hooks]\nstate = {}\n",
        ] {
            let err = install(text, "spill", CONFIG).unwrap_err();
            assert!(err.contains("inline value"), "{text}: {err}");
        }
        let broken = format!("{BEGIN}\n[[hooks.PreToolUse]]\n");
        assert!(
            install(&broken, "spill", CONFIG)
                .unwrap_err()
                .contains("no end line")
        );
        // Keys elsewhere that merely look alike are fine.
        let fine = "[hooks_other]\nPreToolUse = 1\n[x]\nhooks = 2\n[[hooks.PreToolUse]]\nmatcher = \"a\"\n";
        assert!(
            install(fine, "spill", CONFIG)
                .unwrap()
                .unwrap()
                .contains(":pre_tool_use:1:0")
        );
    }

    #[test]
    fn a_trust_record_already_there_is_reused_or_refused_and_bad_toml_is_refused() {
        let hash = trust_hash(MATCHER, &command("/usr/bin/spill"));
        let key = format!("{CONFIG}:pre_tool_use:0:0");
        let ours = format!("[hooks.state.\"{key}\"]\ntrusted_hash = \"{hash}\"\n");
        let with = install(&ours, "/usr/bin/spill", CONFIG).unwrap().unwrap();
        assert_eq!(with.matches("[hooks.state.").count(), 1, "{with}");
        assert!(parse(&with).is_ok());
        assert_eq!(uninstall(&with, None).unwrap().unwrap(), ours);
        let stale = ours.replace(&hash, "sha256:00");
        let err = install(&stale, "/usr/bin/spill", CONFIG).unwrap_err();
        assert!(err.contains("\"sha256:00\"") && err.contains(&key), "{err}");
        let err = install("a = 1\n[x]\n[x]\n", "spill", CONFIG).unwrap_err();
        assert_eq!(
            err,
            "config.toml is not valid TOML: line 3, column 2: duplicate key"
        );
    }

    #[test]
    fn the_mcp_server_block_goes_in_beside_the_hook_and_out_byte_for_byte() {
        let spill = "/usr/bin/spill";
        for user in [
            "",
            "model = \"o3\"\n",
            "[mcp_servers.files]\ncommand = \"npx\"\nargs = [\"-y\", \"fs\"]",
        ] {
            // As `spill init codex --mcp` applies them: the server's block, then the hook's.
            let served = McpBlock.install(user, spill, CONFIG).unwrap().unwrap().text;
            let both = install(&served, spill, CONFIG).unwrap().unwrap();
            let doc = parse(&both).unwrap();
            let server = &doc["mcp_servers"]["spill"];
            assert_eq!(server["command"].as_str(), Some(spill));
            assert_eq!(server["args"].as_array().unwrap().len(), 1);
            assert_eq!(server["env_vars"].as_array().unwrap().len(), 6);
            assert!(
                both.ends_with(&format!("{END}\n")),
                "the hook's block stays last"
            );
            // Again, in either order: nothing changes.
            assert_eq!(McpBlock.install(&both, spill, CONFIG).unwrap(), None);
            assert_eq!(install(&both, spill, CONFIG).unwrap(), None);
            // Out (the server's first, as `--uninstall` does): the backup's bytes, and without
            // it the same text.
            for backup in [Some(user), None] {
                let rest = McpBlock.uninstall(&both, backup).unwrap().unwrap().text;
                let back = uninstall(&rest, backup).unwrap().unwrap();
                assert_eq!(back.trim_end(), user.trim_end());
                if backup.is_some() {
                    assert_eq!(back, user);
                }
            }
        }
        // A server of the user's that runs spill mcp, or another one named spill: left, said so.
        for theirs in [
            "[mcp_servers.store]\ncommand = \"spill\"\nargs = [\"mcp\"]\n",
            "[mcp_servers.spill]\ncommand = \"npx\"\n",
        ] {
            let edit = McpBlock.install(theirs, spill, CONFIG).unwrap().unwrap();
            assert_eq!(edit.text, theirs);
            assert!(edit.notes[0].contains("not added"), "{edit:?}");
        }
        // The proxy is not spill's server; an inline table of servers cannot take the block.
        let routed =
            "[mcp_servers.f]\ncommand = \"/x/spill\"\nargs = [\"mcp\", \"proxy\", \"--\", \"y\"]\n";
        assert!(McpBlock.install(routed, spill, CONFIG).unwrap().is_some());
        let inline = "mcp_servers = { f = { command = \"y\" } }\n";
        assert!(
            McpBlock
                .install(inline, spill, CONFIG)
                .unwrap_err()
                .contains("not be valid TOML")
        );
    }

    #[test]
    fn strings_are_escaped_for_toml() {
        assert_eq!(
            basic_string("a\"b\\c\nd\u{1}"),
            "\"a\\\"b\\\\c\\nd\\u0001\""
        );
        assert_eq!(basic_string("é"), "\"é\"");
    }
}
