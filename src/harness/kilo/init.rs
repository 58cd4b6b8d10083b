//! Kilo Code's plugin: opencode's (`../opencode/plugin.js`) under Kilo Code's names, spill's
//! own file in Kilo Code's plugin directory.

use super::super::opencode::init::Plugin;

/// spill's Kilo Code plugin.
pub static PLUGIN: Plugin = Plugin {
    name: "kilo",
    product: "Kilo Code",
    agent: true,
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::init::Entries;

    #[test]
    fn the_kilo_plugin_calls_spill_hook_kilo_and_is_spill_s_own() {
        let plugin = PLUGIN
            .install("", "/usr/bin/spill", "f")
            .unwrap()
            .unwrap()
            .text;
        assert!(plugin.starts_with(
            "// spill's Kilo Code plugin: written by `spill init kilo`, removed by `spill init kilo --uninstall`.\n"
        ));
        assert!(
            plugin.contains(r#"spawnSync(SPILL, ["hook", "kilo"]"#),
            "{plugin}"
        );
        assert!(!plugin.contains('@') && !plugin.contains("//+"), "{plugin}");
        assert!(
            plugin.contains("agent: agents.get(input.sessionID),"),
            "{plugin}"
        );
        assert_eq!(
            PLUGIN.install(&plugin, "/usr/bin/spill", "f").unwrap(),
            None
        );
        assert_eq!(PLUGIN.uninstall(&plugin, None).unwrap().unwrap().text, "");
        // opencode's plugin is not Kilo Code's, nor the other way round.
        let opencode = super::super::super::opencode::init::OPENCODE
            .install("", "/usr/bin/spill", "f")
            .unwrap()
            .unwrap()
            .text;
        assert!(PLUGIN.install(&opencode, "/usr/bin/spill", "f").is_err());
        assert_eq!(PLUGIN.uninstall(&opencode, None).unwrap(), None);
    }
}
