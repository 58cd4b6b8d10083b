//! opencode's plugin (`plugin.js` beside this file): spill's own file in opencode's plugin
//! directory, written, replaced and removed whole, and only while it is byte for byte what
//! `init` writes for some spill binary.

use serde_json::Value;

use crate::init::{Change, Edit, Entries};

/// spill's plugin, as `spill init` writes and removes it: a file that is spill's own.
pub struct Plugin;

impl Entries for Plugin {
    fn install(&self, text: &str, spill: &str, _file: &str) -> Change {
        install(text, spill)
    }

    fn uninstall(&self, text: &str, _backup: Option<&str>) -> Change {
        uninstall(text)
    }

    fn owns_file(&self) -> bool {
        true
    }
}

/// spill's opencode plugin, with `@SPILL@` standing for the spill binary's path.
const PLUGIN: &str = include_str!("plugin.js");

/// The first line of spill's opencode plugin, by which `init` knows the file is spill's.
const MARKER: &str = "// spill's opencode plugin:";

/// spill's opencode plugin for this spill binary.
fn plugin(spill: &str) -> String {
    let quoted = Value::from(spill).to_string();
    PLUGIN.replace("\"@SPILL@\"", &quoted)
}

/// Whether `text` is, byte for byte, the plugin `spill init opencode` writes (for any spill).
fn is_plugin(text: &str) -> bool {
    text.lines()
        .find_map(|l| l.strip_prefix("const SPILL = ")?.strip_suffix(';'))
        .and_then(|s| serde_json::from_str::<String>(s).ok())
        .is_some_and(|spill| plugin(&spill) == text)
}

/// The text of spill's opencode plugin for this spill binary, or `None` when `text` (the
/// plugin file as it is) is exactly that. A file there that is not spill's plugin, or is
/// spill's plugin with someone's changes, is refused.
pub fn install(text: &str, spill: &str) -> Change {
    if !text.is_empty() {
        if !text.starts_with(MARKER) {
            return Err("the file exists and is not spill's plugin".into());
        }
        if !is_plugin(text) {
            return Err(
                "the file is spill's plugin changed since spill wrote it, and spill does \
                        not overwrite those changes: move them to a plugin of your own, or remove \
                        the file"
                    .into(),
            );
        }
    }
    let new = plugin(spill);
    Ok((new != text).then(|| Edit::plain(new)))
}

/// Nothing (the file goes) when `text` is exactly spill's plugin; `None` when it is not spill's.
/// spill's plugin with someone's changes is refused, kept as it is.
pub fn uninstall(text: &str) -> Change {
    if !text.starts_with(MARKER) {
        return Ok(None);
    }
    if !is_plugin(text) {
        return Err(
            "the plugin was changed since `spill init opencode` wrote it, so spill does \
                    not remove it: delete it by hand if the changes are not needed"
                .into(),
        );
    }
    Ok(Some(Edit::plain(String::new())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_opencode_plugin_names_this_spill_and_is_installed_once() {
        let plugin = install("", "/opt/my \"spill\"/spill")
            .unwrap()
            .unwrap()
            .text;
        assert!(plugin.starts_with(MARKER));
        assert!(
            plugin.contains(r#"const SPILL = "/opt/my \"spill\"/spill";"#),
            "{plugin}"
        );
        assert!(!plugin.contains("@SPILL@"));
        assert_eq!(install(&plugin, "/opt/my \"spill\"/spill").unwrap(), None);
        assert!(install(&plugin, "/usr/bin/spill").unwrap().is_some());
        assert!(install("export const Mine = 1;\n", "spill").is_err());
        assert_eq!(uninstall(&plugin).unwrap().unwrap().text, "");
        assert_eq!(uninstall("mine").unwrap(), None);
    }
}
