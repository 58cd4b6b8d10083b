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
//! `--uninstall` removes exactly those lines. A light line scanner counts the user's own
//! `[[hooks.PreToolUse]]` groups (the position of spill's) and refuses files where appending
//! tables would not be valid TOML (hooks written as inline values).

use sha2::Digest as _;

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
    let groups = pre_tool_use_groups(&rest)?;
    let mut new = rest.clone();
    if !new.is_empty() {
        if !new.ends_with('\n') {
            new.push('\n');
        }
        new.push('\n');
    }
    let command = command(spill);
    let key = format!("{config_path}:pre_tool_use:{groups}:0");
    new.push_str(&format!(
        "{BEGIN}\n[[hooks.PreToolUse]]\nmatcher = {}\n\n[[hooks.PreToolUse.hooks]]\ntype = \"command\"\ncommand = {}\n\n\
         # Codex runs a hook only once it is trusted; this is the hash its own review records.\n\
         [hooks.state.{}]\ntrusted_hash = {}\n{END}\n",
        basic_string(MATCHER),
        basic_string(&command),
        basic_string(&key),
        basic_string(&trust_hash(MATCHER, &command)),
    ));
    Ok((new != text).then_some(new))
}

/// The config text without spill's block, or `None` when it has none. When the result equals
/// `backup`, the backup's bytes are returned.
pub fn uninstall(text: &str, backup: Option<&str>) -> std::result::Result<Option<String>, String> {
    let (rest, found) = without_block(text)?;
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
    let Some(start) = line_start(text, BEGIN) else {
        return Ok((text.to_string(), false));
    };
    let end = line_start(&text[start..], END)
        .map(|at| start + at + END.len())
        .ok_or("spill's block in config.toml has no end line (`# spill: end`); fix it by hand")?;
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

/// How many `[[hooks.PreToolUse]]` groups the file defines, refusing inline definitions of
/// `hooks`, `hooks.PreToolUse` or `hooks.state` (tables cannot be appended to those).
fn pre_tool_use_groups(text: &str) -> std::result::Result<usize, String> {
    let inline = |path: &[String]| {
        format!(
            "config.toml defines `{}` as an inline value, so spill cannot append its hook as a table; \
             rewrite it as [[hooks.PreToolUse]] tables (`spill init codex --dry-run` shows spill's)",
            path.join(".")
        )
    };
    let mut groups = 0;
    let mut table: Vec<String> = Vec::new();
    let mut open: Option<&str> = None; // the delimiter of a multi-line string being read
    let mut depth = 0usize; // brackets of a multi-line array or inline table being read
    for line in text.lines() {
        if let Some(delimiter) = open {
            if let Some(at) = line.find(delimiter) {
                open = None;
                depth = value_depth(&line[at + 3..], depth, &mut open);
            }
            continue;
        }
        if depth > 0 {
            depth = value_depth(line, depth, &mut open);
            continue;
        }
        let trimmed = line.trim_start();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        if let Some(header) = trimmed.strip_prefix("[[") {
            table = dotted_key(header.split("]]").next().unwrap_or(""));
            if table == ["hooks", "PreToolUse"] {
                groups += 1;
            }
            continue;
        }
        if let Some(header) = trimmed.strip_prefix('[') {
            table = dotted_key(header.split(']').next().unwrap_or(""));
            if table == ["hooks", "PreToolUse"] {
                return Err(inline(&table));
            }
            continue;
        }
        let Some((key, value)) = split_key(trimmed) else {
            continue;
        };
        let mut path = table.clone();
        path.extend(dotted_key(key));
        let hooks = |tail: &[&str]| {
            path.len() == 1 + tail.len() && path[0] == "hooks" && path[1..].iter().eq(tail)
        };
        if hooks(&[]) || hooks(&["PreToolUse"]) || hooks(&["state"]) {
            return Err(inline(&path));
        }
        depth = value_depth(value, 0, &mut open);
    }
    Ok(groups)
}

/// `key = value` split at the first `=` outside quotes.
fn split_key(line: &str) -> Option<(&str, &str)> {
    let mut quote: Option<char> = None;
    for (i, c) in line.char_indices() {
        match (quote, c) {
            (None, '"' | '\'') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            (None, '=') => return Some((&line[..i], &line[i + 1..])),
            _ => {}
        }
    }
    None
}

/// A dotted key's parts, quotes removed (`hooks."PreToolUse"` is `["hooks", "PreToolUse"]`).
fn dotted_key(key: &str) -> Vec<String> {
    let mut parts = Vec::new();
    let mut current = String::new();
    let mut quote: Option<char> = None;
    for c in key.chars() {
        match (quote, c) {
            (None, '"' | '\'') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            (None, '.') => parts.push(std::mem::take(&mut current).trim().to_string()),
            _ => current.push(c),
        }
    }
    parts.push(current.trim().to_string());
    parts
}

/// The bracket depth after reading `value` from `depth`, skipping strings and comments; sets
/// `open` when a multi-line string starts and does not end on this line.
fn value_depth<'a>(value: &str, mut depth: usize, open: &mut Option<&'a str>) -> usize {
    let bytes = value.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'#' => break,
            b'[' | b'{' => depth += 1,
            b']' | b'}' => depth = depth.saturating_sub(1),
            q @ (b'"' | b'\'') => {
                let delimiter: &'a str = if q == b'"' { "\"\"\"" } else { "'''" };
                if value[i..].starts_with(delimiter) {
                    match value[i + 3..].find(delimiter) {
                        Some(at) => i += 3 + at + 2,
                        None => {
                            *open = Some(delimiter);
                            return depth;
                        }
                    }
                } else {
                    i += 1;
                    while i < bytes.len() && bytes[i] != q {
                        if q == b'"' && bytes[i] == b'\\' {
                            i += 1;
                        }
                        i += 1;
                    }
                }
            }
            _ => {}
        }
        i += 1;
    }
    depth
}

/// A TOML basic string.
fn basic_string(text: &str) -> String {
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
    fn strings_are_escaped_for_toml() {
        assert_eq!(
            basic_string("a\"b\\c\nd\u{1}"),
            "\"a\\\"b\\\\c\\nd\\u0001\""
        );
        assert_eq!(basic_string("é"), "\"é\"");
    }
}
