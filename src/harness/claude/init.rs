//! Claude Code's `settings.json`: spill's `PreToolUse` (Bash), `PostToolUse` (MCP tools) and
//! `SessionEnd` hooks, spliced in and cut out by the shared [`HookSet`].

use crate::init::HookSet;

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
}
