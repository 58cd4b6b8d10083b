//! opencode's plugin (`plugin.js` beside this file): spill's own file in opencode's plugin
//! directory, written, replaced and removed whole, and only while it is byte for byte what
//! `init` writes for some spill binary. A fork that loads opencode's plugins (Kilo Code) writes
//! the same plugin under its own names.

use serde_json::Value;

use crate::init::{Change, Edit, Entries};

/// spill's plugin for one harness, as `spill init` writes and removes it: a file that is
/// spill's own.
pub struct Plugin {
    /// The harness's name as `spill hook` and `spill init` take it (`opencode`).
    pub name: &'static str,
    /// Its product's name, in the plugin's first line (`opencode`).
    pub product: &'static str,
    /// Whether the plugin tells the hook each session's agent (the template's `//+agent `
    /// lines, left out otherwise): Kilo Code's agents have bash rules of their own.
    pub agent: bool,
}

/// spill's opencode plugin.
pub static OPENCODE: Plugin = Plugin {
    name: "opencode",
    product: "opencode",
    agent: false,
};

impl Entries for Plugin {
    fn install(&self, text: &str, spill: &str, _file: &str) -> Change {
        self.install_text(text, spill)
    }

    fn uninstall(&self, text: &str, _backup: Option<&str>) -> Change {
        self.uninstall_text(text)
    }

    fn owns_file(&self) -> bool {
        true
    }
}

/// spill's plugin, with `@SPILL@` standing for the spill binary's path, `@NAME@` for the
/// harness's name and `@PRODUCT@` for its product's; lines starting `//+agent ` are written
/// (without that start) only where `agent` is set.
const PLUGIN: &str = include_str!("plugin.js");

impl Plugin {
    /// The first line of the plugin up to its colon, by which `init` knows the file is spill's.
    fn marker(&self) -> String {
        format!("// spill's {} plugin:", self.product)
    }

    /// The plugin for this spill binary.
    fn plugin(&self, spill: &str) -> String {
        let quoted = Value::from(spill).to_string();
        let lines: String = PLUGIN
            .split_inclusive('\n')
            .filter_map(|line| match line.strip_prefix("//+agent ") {
                Some(line) => self.agent.then_some(line),
                None => Some(line),
            })
            .collect();
        lines
            .replace("@PRODUCT@", self.product)
            .replace("@NAME@", self.name)
            .replace("\"@SPILL@\"", &quoted)
    }

    /// Whether `text` is, byte for byte, the plugin `init` writes (for any spill).
    fn is_plugin(&self, text: &str) -> bool {
        text.lines()
            .find_map(|l| l.strip_prefix("const SPILL = ")?.strip_suffix(';'))
            .and_then(|s| serde_json::from_str::<String>(s).ok())
            .is_some_and(|spill| self.plugin(&spill) == text)
    }

    /// The text of spill's plugin for this spill binary, or `None` when `text` (the plugin
    /// file as it is) is exactly that. A file there that is not spill's plugin, or is spill's
    /// plugin with someone's changes, is refused.
    pub fn install_text(&self, text: &str, spill: &str) -> Change {
        if !text.is_empty() {
            if !text.starts_with(&self.marker()) {
                return Err("the file exists and is not spill's plugin".into());
            }
            if !self.is_plugin(text) {
                return Err(
                    "the file is spill's plugin changed since spill wrote it, and spill does \
                            not overwrite those changes: move them to a plugin of your own, or remove \
                            the file"
                        .into(),
                );
            }
        }
        let new = self.plugin(spill);
        Ok((new != text).then(|| Edit::plain(new)))
    }

    /// Nothing (the file goes) when `text` is exactly spill's plugin; `None` when it is not
    /// spill's. spill's plugin with someone's changes is refused, kept as it is.
    pub fn uninstall_text(&self, text: &str) -> Change {
        if !text.starts_with(&self.marker()) {
            return Ok(None);
        }
        if !self.is_plugin(text) {
            return Err(format!(
                "the plugin was changed since `spill init {}` wrote it, so spill does not \
                 remove it: delete it by hand if the changes are not needed",
                self.name
            ));
        }
        Ok(Some(Edit::plain(String::new())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_opencode_plugin_names_this_spill_and_is_installed_once() {
        let p = &OPENCODE;
        let plugin = p
            .install_text("", "/opt/my \"spill\"/spill")
            .unwrap()
            .unwrap()
            .text;
        assert!(
            plugin.starts_with("// spill's opencode plugin: written by `spill init opencode`,")
        );
        assert!(
            plugin.contains(r#"spawnSync(SPILL, ["hook", "opencode"]"#),
            "{plugin}"
        );
        assert!(
            plugin.contains(r#"const SPILL = "/opt/my \"spill\"/spill";"#),
            "{plugin}"
        );
        assert!(!plugin.contains("@SPILL@"));
        assert!(!plugin.contains("agent"), "{plugin}");
        assert_eq!(
            p.install_text(&plugin, "/opt/my \"spill\"/spill").unwrap(),
            None
        );
        assert!(p.install_text(&plugin, "/usr/bin/spill").unwrap().is_some());
        assert!(p.install_text("export const Mine = 1;\n", "spill").is_err());
        assert_eq!(p.uninstall_text(&plugin).unwrap().unwrap().text, "");
        assert_eq!(p.uninstall_text("mine").unwrap(), None);
    }
}
