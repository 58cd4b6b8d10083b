//! Claude Code's `settings.json`: spill's `PreToolUse` (Bash), `PostToolUse` (MCP tools) and
//! `SessionEnd` hooks, spliced in and cut out by the shared [`HookSet`], and the store root in
//! `sandbox.filesystem.allowWrite` ([`SETTINGS`]).

use crate::init::server::JsonServer;
use crate::init::{self, Change, Edit, Entries, HookSet};

/// `spill mcp` among Claude Code's MCP servers (`spill init claude-code --mcp`), as `claude mcp
/// add spill -- SPILL mcp` writes it.
pub static MCP: JsonServer = JsonServer {
    table: "mcpServers",
    comments: false,
    entry: |spill, _| serde_json::json!({"type": "stdio", "command": spill, "args": ["mcp"], "env": {}}),
};

/// Where Claude Code's sandbox (bubblewrap on Linux, Seatbelt on macOS) reads the paths a
/// sandboxed command may write besides the project and Claude Code's own temporary directory.
pub const ALLOW_WRITE: &[&str] = &["sandbox", "filesystem", "allowWrite"];

/// What `spill init claude-code` writes: the [`HOOKS`], and the store root as one
/// `sandbox.filesystem.allowWrite` path, so a command the sandbox runs can store its output in
/// the root the hooks and `spill mcp` read (the hook exports that root to the command as
/// `SPILL_DIR`: the sandboxed shell's own `TMPDIR` is Claude Code's). The grant is that one
/// directory; it does nothing while the sandbox is off. `--uninstall` takes out the path it
/// added (the one equal to the store root spill resolves then) with the hooks.
pub static SETTINGS: Settings = Settings;

/// See [`SETTINGS`].
pub struct Settings;

impl Entries for Settings {
    fn install(&self, text: &str, spill: &str, _file: &str) -> Change {
        HOOKS.install(text, spill)
    }

    fn uninstall(&self, text: &str, backup: Option<&str>) -> Change {
        HOOKS.uninstall(text, backup)
    }

    fn install_at(&self, text: &str, spill: &str, _file: &str, root: &str) -> Change {
        let hooked = HOOKS.install(text, spill)?;
        let base = hooked.as_ref().map_or(text, |e| e.text.as_str());
        match init::grant(base, HOOKS.comments, ALLOW_WRITE, root)? {
            Some(granted) => Ok(Some(Edit::plain(granted))),
            None => Ok(hooked),
        }
    }

    fn uninstall_at(&self, text: &str, backup: Option<&str>, root: &str) -> Change {
        // The grant first: what is left is then what `HookSet::install` made of the backup,
        // which `uninstall` recognises and answers with the backup's bytes.
        let revoked = init::revoke(text, HOOKS.comments, ALLOW_WRITE, root, backup)?;
        let base = revoked.as_deref().unwrap_or(text);
        match HOOKS.uninstall(base, backup)? {
            Some(edit) => Ok(Some(edit)),
            None => Ok(revoked.map(Edit::plain)),
        }
    }
}

/// Claude Code's events: spill's hooks in its settings, or `None` from `install` when the text
/// already has exactly them (nothing to write), from `uninstall` when it has none.
pub static HOOKS: HookSet = HookSet {
    events: &[
        ("PreToolUse", Some("Bash")),
        ("PostToolUse", Some("mcp__.*")),
        ("SessionEnd", None),
    ],
    harness: "claude-code",
    comments: false,
    needs_enabled: false,
};

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    const SPILL: &str = "/usr/local/bin/spill";

    #[test]
    fn install_keeps_other_settings_in_order_and_is_idempotent() {
        let user = "{\n  \"model\": \"opus\",\n  \"permissions\": {\n    \"allow\": [\n      \"Bash\"\n    ]\n  },\n  \"hooks\": {\n    \"PreToolUse\": [\n      {\n        \"matcher\": \"Edit\",\n        \"hooks\": [\n          {\n            \"type\": \"command\",\n            \"command\": \"lint\"\n          }\n        ]\n      }\n    ]\n  },\n  \"alpha\": 1\n}\n";
        let once = HOOKS.install(user, SPILL).unwrap().unwrap().text;
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
        assert_eq!(HOOKS.install(&once, SPILL).unwrap(), None);
        // A new spill path replaces the old entries instead of adding more.
        let moved = HOOKS
            .install(&once, "/opt/my spill/spill")
            .unwrap()
            .unwrap()
            .text;
        assert_eq!(moved.matches("hook claude-code").count(), 3);
        assert!(moved.contains("'/opt/my spill/spill' hook claude-code"));
        // Uninstall with the backup restores the original bytes.
        assert_eq!(
            HOOKS.uninstall(&once, Some(user)).unwrap().unwrap().text,
            user
        );
        assert_eq!(
            HOOKS.uninstall(&moved, Some(user)).unwrap().unwrap().text,
            user
        );
        assert_eq!(HOOKS.uninstall(user, Some(user)).unwrap(), None);
    }

    #[test]
    fn uninstall_without_backup_removes_only_what_spill_added() {
        let fresh = HOOKS.install("", SPILL).unwrap().unwrap().text;
        assert_eq!(HOOKS.uninstall(&fresh, None).unwrap().unwrap().text, "{}\n");
        let mut v: Value = serde_json::from_str(&fresh).unwrap();
        v["hooks"]["SessionEnd"][0]["hooks"]
            .as_array_mut()
            .unwrap()
            .push(serde_json::json!({"type": "command", "command": "mine"}));
        v["theme"] = "dark".into();
        let edited = serde_json::to_string_pretty(&v).unwrap();
        let out: Value =
            serde_json::from_str(&HOOKS.uninstall(&edited, Some("{}")).unwrap().unwrap().text)
                .unwrap();
        assert_eq!(
            out,
            serde_json::json!({"hooks": {"SessionEnd": [{"hooks": [{"type": "command", "command": "mine"}]}]}, "theme": "dark"})
        );
    }

    #[test]
    fn bad_settings_are_refused() {
        assert!(
            HOOKS
                .install("{", SPILL)
                .unwrap_err()
                .contains("not valid JSON")
        );
        assert!(HOOKS.install("[]", SPILL).unwrap_err().contains("object"));
        assert!(
            HOOKS
                .install(r#"{"hooks": 3}"#, SPILL)
                .unwrap_err()
                .contains("hooks")
        );
        assert!(
            HOOKS
                .install(r#"{"hooks": {"SessionEnd": {}}}"#, SPILL)
                .unwrap_err()
                .contains("SessionEnd")
        );
    }

    const ROOT: &str = "/tmp/spill-1000";

    #[test]
    fn the_store_root_is_granted_to_the_sandbox_and_taken_back_byte_for_byte() {
        let originals = [
            "",
            "{}\n",
            "{\n  \"theme\": \"dark\"\n}\n",
            // A sandbox section of the user's own, with other grants, in another layout.
            "{\n    \"sandbox\": {\n        \"enabled\": true,\n        \"filesystem\": {\n            \"allowWrite\": [\"~/.cache\"]\n        }\n    }\n}\n",
            "{\"sandbox\":{\"enabled\":true},\"model\":\"opus\"}",
            "{\n  \"sandbox\": {\n    \"filesystem\": {\n      \"denyRead\": [\"/secret\"]\n    }\n  }\n}\n",
        ];
        for original in originals {
            let once = SETTINGS
                .install_at(original, SPILL, "f", ROOT)
                .unwrap()
                .unwrap()
                .text;
            let v: Value = serde_json::from_str(&once).unwrap();
            let grants = v["sandbox"]["filesystem"]["allowWrite"].as_array().unwrap();
            assert_eq!(grants.last().unwrap(), ROOT, "{once}");
            assert_eq!(
                grants.iter().filter(|g| *g == ROOT).count(),
                1,
                "{original:?}"
            );
            // Idempotent, and the hooks are there too.
            assert_eq!(SETTINGS.install_at(&once, SPILL, "f", ROOT).unwrap(), None);
            assert_eq!(once.matches("hook claude-code").count(), 3);
            // With the backup: the original bytes; without it: only spill's entries cut out.
            let back = SETTINGS
                .uninstall_at(&once, Some(original), ROOT)
                .unwrap()
                .unwrap()
                .text;
            assert_eq!(back, original, "{once}");
            let cut = SETTINGS
                .uninstall_at(&once, None, ROOT)
                .unwrap()
                .unwrap()
                .text;
            assert!(
                !cut.contains(ROOT) && !cut.contains("hook claude-code"),
                "{cut}"
            );
            let was: Value =
                serde_json::from_str(if original.is_empty() { "{}" } else { original }).unwrap();
            assert_eq!(serde_json::from_str::<Value>(&cut).unwrap(), was, "{cut}");
        }
    }

    #[test]
    fn a_grant_the_user_had_stays_and_odd_shapes_are_refused() {
        let mine = "{\"sandbox\": {\"filesystem\": {\"allowWrite\": [\"/tmp/spill-1000\"]}}}\n";
        let once = SETTINGS
            .install_at(mine, SPILL, "f", ROOT)
            .unwrap()
            .unwrap()
            .text;
        assert_eq!(once.matches(ROOT).count(), 1);
        let back = SETTINGS
            .uninstall_at(&once, Some(mine), ROOT)
            .unwrap()
            .unwrap()
            .text;
        assert_eq!(back, mine);
        // The file changed since `init` (a key added): the user's grant is still kept.
        let edited = once.replacen('{', "{\"theme\": \"dark\", ", 1);
        let cut = SETTINGS
            .uninstall_at(&edited, Some(mine), ROOT)
            .unwrap()
            .unwrap()
            .text;
        assert!(
            cut.contains(ROOT) && !cut.contains("hook claude-code"),
            "{cut}"
        );
        for bad in [
            r#"{"sandbox": true}"#,
            r#"{"sandbox": {"filesystem": []}}"#,
            r#"{"sandbox": {"filesystem": {"allowWrite": "/tmp"}}}"#,
        ] {
            let why = SETTINGS.install_at(bad, SPILL, "f", ROOT).unwrap_err();
            assert!(why.contains("sandbox"), "{bad}: {why}");
        }
    }
}
