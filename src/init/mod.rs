//! `spill init`: merging spill's hooks into a harness's settings, and taking them out again.
//!
//! The functions here take a file's text and return the new text; reading, backing up and
//! writing are the command layer's. JSON is parsed keeping the order of keys and written back
//! as Claude Code writes its own settings (two-space indentation), so a file Claude Code wrote
//! changes only where spill's entries go.

pub mod codex;

use serde_json::{Map, Value};

/// A harness whose settings hold hooks as `hooks[EVENT] = [{matcher?, hooks: [{type, command}]}]`
/// (Claude Code and Gemini CLI share the shape).
struct HookSet {
    /// The events spill registers, with their matchers (regular expressions on the tool name).
    events: &'static [(&'static str, Option<&'static str>)],
    /// The harness's name as `spill hook` takes it.
    harness: &'static str,
}

/// Claude Code's events.
const CLAUDE: HookSet = HookSet {
    events: &[
        ("PreToolUse", Some("Bash")),
        ("PostToolUse", Some("mcp__.*")),
        ("SessionEnd", None),
    ],
    harness: "claude-code",
};

/// Gemini CLI's events: the shell tool before it runs, every other tool after it ran (the hook
/// skips the shell tool there), and the end of the session.
const GEMINI: HookSet = HookSet {
    events: &[
        ("BeforeTool", Some("^run_shell_command$")),
        ("AfterTool", Some(".*")),
        ("SessionEnd", None),
    ],
    harness: "gemini",
};

/// The hook command `spill init` registers for Claude Code.
pub fn claude_command(spill: &str) -> String {
    CLAUDE.command(spill)
}

impl HookSet {
    /// The hook command `spill init` registers.
    fn command(&self, spill: &str) -> String {
        format!("{} hook {}", crate::wrap::shell_quote(spill), self.harness)
    }

    /// Whether a hook command is one of spill's (`…spill hook HARNESS`, any spill path).
    fn is_ours(&self, hook: &Value) -> bool {
        let suffix = format!(" hook {}", self.harness);
        hook["command"]
            .as_str()
            .and_then(|c| c.trim_end().strip_suffix(suffix.as_str()))
            .is_some_and(|program| program.trim_matches('\'').ends_with("spill"))
    }
}

/// Parses a settings file; an empty or whitespace-only file is an empty object.
fn parse(text: &str) -> std::result::Result<Map<String, Value>, String> {
    if text.trim().is_empty() {
        return Ok(Map::new());
    }
    match serde_json::from_str(text) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(_) => Err("the settings file does not hold a JSON object".into()),
        Err(e) => Err(format!("the settings file is not valid JSON: {e}")),
    }
}

fn render(map: &Map<String, Value>) -> String {
    let mut text = serde_json::to_string_pretty(map).expect("a JSON value serialises");
    text.push('\n');
    text
}

/// Removes spill's hooks from `hooks[EVENT][*].hooks`, then the matcher groups, event lists and
/// `hooks` object that this left empty (only those). True when anything was removed.
fn remove_ours(settings: &mut Map<String, Value>, set: &HookSet) -> bool {
    let Some(Value::Object(hooks)) = settings.get_mut("hooks") else {
        return false;
    };
    let mut removed = false;
    for (_, groups) in hooks.iter_mut() {
        let Value::Array(groups) = groups else {
            continue;
        };
        groups.retain_mut(|group| {
            let Some(Value::Array(list)) = group.get_mut("hooks") else {
                return true;
            };
            let before = list.len();
            list.retain(|h| !set.is_ours(h));
            removed |= list.len() != before;
            !(list.is_empty() && before > 0)
        });
    }
    if removed {
        hooks.retain(|_, groups| !matches!(groups, Value::Array(g) if g.is_empty()));
        if hooks.is_empty() {
            settings.remove("hooks");
        }
    }
    removed
}

/// The settings text with spill's Claude Code hooks, or `None` when `text` already has exactly
/// them (nothing to write).
pub fn claude_install(text: &str, spill: &str) -> std::result::Result<Option<String>, String> {
    install(text, spill, &CLAUDE, |_| Ok(()))
}

/// The settings text with spill's Gemini CLI hooks and `hooksConfig.enabled = true` (Gemini runs
/// no hooks without it), or `None` when `text` already has exactly them.
pub fn gemini_install(text: &str, spill: &str) -> std::result::Result<Option<String>, String> {
    install(text, spill, &GEMINI, |settings| {
        let config = settings
            .entry("hooksConfig")
            .or_insert_with(|| Value::Object(Map::new()));
        let Value::Object(config) = config else {
            return Err("\"hooksConfig\" in the settings file is not an object".into());
        };
        config.insert("enabled".into(), Value::Bool(true));
        Ok(())
    })
}

/// The settings text without spill's Gemini CLI hooks, or `None` when it has none.
/// `hooksConfig.enabled` goes back to what the backup had (absent included); without a backup
/// it is left on.
pub fn gemini_uninstall(
    text: &str,
    backup: Option<&str>,
) -> std::result::Result<Option<String>, String> {
    uninstall(text, backup, &GEMINI, |settings, old| {
        let Some(old) = old else { return };
        let before = old
            .get("hooksConfig")
            .and_then(|c| c.get("enabled"))
            .cloned();
        let Some(Value::Object(config)) = settings.get_mut("hooksConfig") else {
            return;
        };
        match before {
            Some(v) => {
                config.insert("enabled".into(), v);
            }
            None => {
                config.remove("enabled");
                if config.is_empty() && !old.contains_key("hooksConfig") {
                    settings.remove("hooksConfig");
                }
            }
        }
    })
}

/// Adds `set`'s hooks (after `extra` changes the settings) and renders the result.
fn install(
    text: &str,
    spill: &str,
    set: &HookSet,
    extra: impl Fn(&mut Map<String, Value>) -> std::result::Result<(), String>,
) -> std::result::Result<Option<String>, String> {
    let original = parse(text)?;
    let mut settings = original.clone();
    if !matches!(settings.get("hooks"), None | Some(Value::Object(_))) {
        return Err("\"hooks\" in the settings file is not an object".into());
    }
    extra(&mut settings)?;
    remove_ours(&mut settings, set);
    let hooks = settings
        .entry("hooks")
        .or_insert_with(|| Value::Object(Map::new()))
        .as_object_mut()
        .expect("checked above");
    for &(event, matcher) in set.events {
        let groups = hooks
            .entry(event)
            .or_insert_with(|| Value::Array(Vec::new()));
        let Value::Array(groups) = groups else {
            return Err(format!(
                "\"hooks.{event}\" in the settings file is not an array"
            ));
        };
        let mut group = Map::new();
        if let Some(m) = matcher {
            group.insert("matcher".into(), Value::String(m.into()));
        }
        group.insert(
            "hooks".into(),
            serde_json::json!([{"type": "command", "command": set.command(spill)}]),
        );
        groups.push(Value::Object(group));
    }
    // An unchanged value is not rewritten, so a second `init` leaves the file's bytes alone.
    Ok((settings != original).then(|| render(&settings)))
}

/// The settings text without spill's hooks, or `None` when it has none. When the result
/// equals `backup` (what the file was before the first `init`), the backup's bytes are
/// returned, so the file comes back byte for byte.
pub fn claude_uninstall(
    text: &str,
    backup: Option<&str>,
) -> std::result::Result<Option<String>, String> {
    uninstall(text, backup, &CLAUDE, |_, _| {})
}

/// Removes `set`'s hooks (then lets `extra` undo its other changes, given the backup).
fn uninstall(
    text: &str,
    backup: Option<&str>,
    set: &HookSet,
    extra: impl Fn(&mut Map<String, Value>, Option<&Map<String, Value>>),
) -> std::result::Result<Option<String>, String> {
    let mut settings = parse(text)?;
    if !remove_ours(&mut settings, set) {
        return Ok(None);
    }
    let old = backup.and_then(|b| parse(b).ok());
    extra(&mut settings, old.as_ref());
    if let (Some(text), Some(old)) = (backup, old)
        && old == settings
    {
        return Ok(Some(text.to_string()));
    }
    Ok(Some(render(&settings)))
}

/// spill's opencode plugin, with `@SPILL@` standing for the spill binary's path.
const OPENCODE_PLUGIN: &str = include_str!("opencode-plugin.js");

/// The first line of spill's opencode plugin, by which `init` knows the file is spill's.
const OPENCODE_MARKER: &str = "// spill's opencode plugin:";

/// The text of spill's opencode plugin for this spill binary, or `None` when `text` (the
/// plugin file as it is) is exactly that. A file there that is not spill's plugin is refused.
pub fn opencode_install(text: &str, spill: &str) -> std::result::Result<Option<String>, String> {
    if !text.is_empty() && !text.starts_with(OPENCODE_MARKER) {
        return Err("the file exists and is not spill's plugin".into());
    }
    let quoted = serde_json::Value::from(spill).to_string();
    let new = OPENCODE_PLUGIN.replace("\"@SPILL@\"", &quoted);
    Ok((new != text).then_some(new))
}

/// Nothing (the file goes) when `text` is spill's plugin; `None` when it is not.
pub fn opencode_uninstall(text: &str) -> std::result::Result<Option<String>, String> {
    Ok(text.starts_with(OPENCODE_MARKER).then(String::new))
}

/// A unified diff of two texts (whole-line hunks with 3 lines of context), for `--dry-run`.
pub fn diff(old: &str, new: &str, old_name: &str, new_name: &str) -> String {
    let a: Vec<&str> = old.lines().collect();
    let b: Vec<&str> = new.lines().collect();
    // Longest common subsequence table; settings files are small (a bound keeps it so).
    if a.len().saturating_mul(b.len()) > 25_000_000 {
        return format!(
            "--- {old_name}\n+++ {new_name}\n(files too large to compare: {} and {} lines)\n",
            a.len(),
            b.len()
        );
    }
    let mut lcs = vec![vec![0u32; b.len() + 1]; a.len() + 1];
    for i in (0..a.len()).rev() {
        for j in (0..b.len()).rev() {
            lcs[i][j] = if a[i] == b[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    // The edit script: (tag, old line index, new line index).
    let mut ops: Vec<(char, usize, usize)> = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        if i < a.len() && j < b.len() && a[i] == b[j] {
            ops.push((' ', i, j));
            i += 1;
            j += 1;
        } else if i < a.len() && (j == b.len() || lcs[i + 1][j] >= lcs[i][j + 1]) {
            ops.push(('-', i, j));
            i += 1;
        } else {
            ops.push(('+', i, j));
            j += 1;
        }
    }
    let mut out = format!("--- {old_name}\n+++ {new_name}\n");
    let changed: Vec<usize> = (0..ops.len()).filter(|&k| ops[k].0 != ' ').collect();
    let mut k = 0;
    while k < changed.len() {
        let start = changed[k].saturating_sub(3);
        let mut end = changed[k];
        while k < changed.len() && changed[k] <= end + 6 {
            end = changed[k];
            k += 1;
        }
        let end = (end + 4).min(ops.len());
        let hunk = &ops[start..end];
        let old_len = hunk.iter().filter(|o| o.0 != '+').count();
        let new_len = hunk.iter().filter(|o| o.0 != '-').count();
        let old_start = hunk[0].1 + usize::from(old_len > 0);
        let new_start = hunk[0].2 + usize::from(new_len > 0);
        out.push_str(&format!(
            "@@ -{old_start},{old_len} +{new_start},{new_len} @@\n"
        ));
        for &(tag, oi, nj) in hunk {
            let line = if tag == '+' { b[nj] } else { a[oi] };
            out.push(tag);
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPILL: &str = "/usr/local/bin/spill";

    #[test]
    fn install_keeps_other_settings_in_order_and_is_idempotent() {
        let user = "{\n  \"model\": \"opus\",\n  \"permissions\": {\n    \"allow\": [\n      \"Bash\"\n    ]\n  },\n  \"hooks\": {\n    \"PreToolUse\": [\n      {\n        \"matcher\": \"Edit\",\n        \"hooks\": [\n          {\n            \"type\": \"command\",\n            \"command\": \"lint\"\n          }\n        ]\n      }\n    ]\n  },\n  \"alpha\": 1\n}\n";
        let once = claude_install(user, SPILL).unwrap().unwrap();
        assert!(
            once.starts_with(&user[..user.find("  \"hooks\"").unwrap()]),
            "{once}"
        );
        let v: Value = serde_json::from_str(&once).unwrap();
        let keys: Vec<&String> = v.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["model", "permissions", "hooks", "alpha"]);
        assert_eq!(v["hooks"]["PreToolUse"][0]["matcher"], "Edit");
        assert_eq!(v["hooks"]["PreToolUse"][1]["matcher"], "Bash");
        assert_eq!(
            v["hooks"]["PreToolUse"][1]["hooks"][0]["command"],
            "/usr/local/bin/spill hook claude-code"
        );
        assert_eq!(v["hooks"]["SessionEnd"][0]["hooks"][0]["type"], "command");
        assert_eq!(claude_install(&once, SPILL).unwrap(), None);
        // A new spill path replaces the old entries instead of adding more.
        let moved = claude_install(&once, "/opt/my spill/spill")
            .unwrap()
            .unwrap();
        assert_eq!(moved.matches("hook claude-code").count(), 3);
        assert!(moved.contains("'/opt/my spill/spill' hook claude-code"));
        // Uninstall with the backup restores the original bytes.
        assert_eq!(claude_uninstall(&once, Some(user)).unwrap().unwrap(), user);
        assert_eq!(claude_uninstall(&moved, Some(user)).unwrap().unwrap(), user);
        assert_eq!(claude_uninstall(user, Some(user)).unwrap(), None);
    }

    #[test]
    fn uninstall_without_backup_removes_only_what_spill_added() {
        let fresh = claude_install("", SPILL).unwrap().unwrap();
        assert_eq!(claude_uninstall(&fresh, None).unwrap().unwrap(), "{}\n");
        let mut v: Value = serde_json::from_str(&fresh).unwrap();
        v["hooks"]["SessionEnd"][0]["hooks"]
            .as_array_mut()
            .unwrap()
            .push(serde_json::json!({"type": "command", "command": "mine"}));
        v["theme"] = "dark".into();
        let edited = serde_json::to_string_pretty(&v).unwrap();
        let out: Value =
            serde_json::from_str(&claude_uninstall(&edited, Some("{}")).unwrap().unwrap()).unwrap();
        assert_eq!(
            out,
            serde_json::json!({"hooks": {"SessionEnd": [{"hooks": [{"type": "command", "command": "mine"}]}]}, "theme": "dark"})
        );
    }

    #[test]
    fn bad_settings_are_refused() {
        assert!(
            claude_install("{", SPILL)
                .unwrap_err()
                .contains("not valid JSON")
        );
        assert!(claude_install("[]", SPILL).unwrap_err().contains("object"));
        assert!(
            claude_install(r#"{"hooks": 3}"#, SPILL)
                .unwrap_err()
                .contains("hooks")
        );
        assert!(
            claude_install(r#"{"hooks": {"SessionEnd": {}}}"#, SPILL)
                .unwrap_err()
                .contains("SessionEnd")
        );
    }

    #[test]
    fn the_opencode_plugin_names_this_spill_and_is_installed_once() {
        let plugin = opencode_install("", "/opt/my \"spill\"/spill")
            .unwrap()
            .unwrap();
        assert!(plugin.starts_with(OPENCODE_MARKER));
        assert!(
            plugin.contains(r#"const SPILL = "/opt/my \"spill\"/spill";"#),
            "{plugin}"
        );
        assert!(!plugin.contains("@SPILL@"));
        assert_eq!(
            opencode_install(&plugin, "/opt/my \"spill\"/spill").unwrap(),
            None
        );
        assert!(
            opencode_install(&plugin, "/usr/bin/spill")
                .unwrap()
                .is_some()
        );
        assert!(opencode_install("export const Mine = 1;\n", "spill").is_err());
        assert_eq!(opencode_uninstall(&plugin).unwrap().as_deref(), Some(""));
        assert_eq!(opencode_uninstall("mine").unwrap(), None);
    }

    #[test]
    fn the_diff_is_unified() {
        let d = diff("a\nb\nc\n", "a\nB\nc\nd\n", "old", "new");
        assert_eq!(d, "--- old\n+++ new\n@@ -1,3 +1,4 @@\n a\n-b\n+B\n c\n+d\n");
        assert_eq!(
            diff("", "x\n", "o", "n"),
            "--- o\n+++ n\n@@ -0,0 +1,1 @@\n+x\n"
        );
        assert_eq!(diff("same\n", "same\n", "o", "n"), "--- o\n+++ n\n");
    }
}
