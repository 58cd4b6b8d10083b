//! Pi's extension (`extension.js` beside this file): spill's own file in Pi's extensions
//! directory, written, replaced and removed whole, and only while it is byte for byte what
//! `init` writes for some spill binary.
//!
//! [`OwnedFile`] is the rule for any such file (a template naming the spill binary once, as
//! `const SPILL = "@SPILL@";`, and a first line by which spill knows it); it is the rule of
//! opencode's plugin too.

use serde_json::Value;

use crate::init::{Change, Edit, Entries};

/// A file that is spill's own, as `spill init` writes and removes it: `template` with
/// `"@SPILL@"` replaced by the spill binary's path as a JSON string, known by its first line
/// `marker`.
pub struct OwnedFile {
    /// The file's text for any spill binary.
    pub template: &'static str,
    /// The start of its first line, by which `init` knows the file is spill's.
    pub marker: &'static str,
    /// What the file is, for messages ("plugin", "extension").
    pub what: &'static str,
    /// The `spill init` command that wrote it, for messages.
    pub command: &'static str,
}

/// spill's Pi extension.
pub static EXTENSION: OwnedFile = OwnedFile {
    template: include_str!("extension.js"),
    marker: "// spill's pi extension:",
    what: "extension",
    command: "spill init pi",
};

impl Entries for OwnedFile {
    fn install(&self, text: &str, spill: &str, _file: &str) -> Change {
        if !text.is_empty() {
            if !text.starts_with(self.marker) {
                return Err(format!("the file exists and is not spill's {}", self.what));
            }
            if !self.is_written(text) {
                return Err(format!(
                    "the file is spill's {} changed since spill wrote it, and spill does not \
                     overwrite those changes: move them to {} of your own, or remove the file",
                    self.what,
                    article(self.what),
                ));
            }
        }
        let new = self.text(spill);
        Ok((new != text).then(|| Edit::plain(new)))
    }

    fn uninstall(&self, text: &str, _backup: Option<&str>) -> Change {
        if !text.starts_with(self.marker) {
            return Ok(None);
        }
        if !self.is_written(text) {
            return Err(format!(
                "the {} was changed since `{}` wrote it, so spill does not remove it: delete it \
                 by hand if the changes are not needed",
                self.what, self.command
            ));
        }
        Ok(Some(Edit::plain(String::new())))
    }

    fn owns_file(&self) -> bool {
        true
    }
}

impl OwnedFile {
    /// The file for this spill binary.
    fn text(&self, spill: &str) -> String {
        let quoted = Value::from(spill).to_string();
        self.template.replace("\"@SPILL@\"", &quoted)
    }

    /// Whether `text` is, byte for byte, the file `init` writes (for any spill).
    fn is_written(&self, text: &str) -> bool {
        text.lines()
            .find_map(|l| l.strip_prefix("const SPILL = ")?.strip_suffix(';'))
            .and_then(|s| serde_json::from_str::<String>(s).ok())
            .is_some_and(|spill| self.text(&spill) == text)
    }
}

/// `what` with its indefinite article.
fn article(what: &str) -> String {
    let an = what.starts_with(['a', 'e', 'i', 'o', 'u']);
    format!("{} {what}", if an { "an" } else { "a" })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_extension_names_this_spill_and_is_installed_once() {
        let spill = "/opt/my \"spill\"/spill";
        let text = EXTENSION.install("", spill, "f").unwrap().unwrap().text;
        assert!(text.starts_with(EXTENSION.marker));
        assert!(
            text.contains(r#"const SPILL = "/opt/my \"spill\"/spill";"#),
            "{text}"
        );
        assert!(!text.contains("@SPILL@"));
        assert_eq!(EXTENSION.install(&text, spill, "f").unwrap(), None);
        assert!(
            EXTENSION
                .install(&text, "/usr/bin/spill", "f")
                .unwrap()
                .is_some()
        );
        assert!(
            EXTENSION
                .install("export default () => {};\n", "spill", "f")
                .is_err()
        );
        let changed = text.replace("10000", "20000");
        let refused = EXTENSION.install(&changed, spill, "f").unwrap_err();
        assert!(refused.contains("an extension of your own"), "{refused}");
        assert!(EXTENSION.uninstall(&changed, None).is_err());
        assert_eq!(EXTENSION.uninstall(&text, None).unwrap().unwrap().text, "");
        assert_eq!(EXTENSION.uninstall("mine", None).unwrap(), None);
    }
}
