//! Generated files: shell completions (`completions/`) and man pages (`man/`) rendered from the
//! clap definition, compared byte for byte with the committed copies. `SPILL_BLESS=1` rewrites
//! them (and removes pages of commands that no longer exist).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use clap::CommandFactory;
use clap_complete::{Generator, Shell};

/// The repository root.
fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn blessing() -> bool {
    std::env::var_os("SPILL_BLESS").is_some_and(|v| v == "1")
}

/// Every completion script, by file name.
fn completions() -> BTreeMap<String, Vec<u8>> {
    let mut files = BTreeMap::new();
    for shell in [
        Shell::Bash,
        Shell::Zsh,
        Shell::Fish,
        Shell::Elvish,
        Shell::PowerShell,
    ] {
        let mut cmd = spill::cli::Cli::command();
        let mut buf = Vec::new();
        clap_complete::generate(shell, &mut cmd, "spill", &mut buf);
        let buf = with_stored_refs(shell, String::from_utf8(buf).expect("UTF-8 script"));
        files.insert(shell.file_name("spill"), buf.into_bytes());
    }
    files
}

/// The subcommands whose first operand is a SOURCE, and `rm`, whose operands are refs.
const TAKE_REFS: &str = "cat shape extract search rm";

/// Bash: after clap's completion, the stored refs of the scope (`spill ls --complete`) are
/// offered for the first operand of a reading command and every operand of `rm`; a word
/// starting with `@` completes the short refs (`@last`, `@1` … `@N` for the scope's N entries)
/// and nothing else, never bash's host names. The words are split from the line at white space,
/// since COMP_WORDS also splits at `@`, `=` and `:`.
const BASH_REFS: &str = r#"
# Stored refs of the current scope (`spill ls --complete`) for the SOURCE of the reading
# commands and the REFs of rm, beside the files clap's completion offers; @… completes the
# short refs @last, @1 … @N only.
_spill_with_refs() {
    _spill "$@"
    local line="${COMP_LINE:0:COMP_POINT}" sub="" i
    local -a words
    read -ra words <<< "$line"
    [[ -z $line || $line == *[[:space:]] ]] && words+=("")
    local n=$((${#words[@]} - 1))
    local cur="${words[n]}"
    for ((i = 1; i < n; i++)); do
        case "${words[i]}" in -*) ;; *) sub="${words[i]}"; break ;; esac
    done
    case " TAKE_REFS " in *" $sub "*) ;; *) return 0 ;; esac
    [[ $cur == -* ]] && return 0
    [[ $sub == rm || ${words[n-1]} == "$sub" ]] || return 0
    local IFS=$'
'
    if [[ $cur == @* ]]; then
        local count k short="@last"
        count=$(command spill ls --complete 2>/dev/null | wc -l)
        for ((k = 1; k <= count; k++)); do short+=$'
'"@$k"; done
        COMPREPLY=($(compgen -W "$short" -- "$cur"))
        compopt +o bashdefault +o default 2>/dev/null
        return 0
    fi
    COMPREPLY+=($(compgen -W "$(command spill ls --complete 2>/dev/null | cut -f1)" -- "$cur"))
}
if [[ "${BASH_VERSINFO[0]}" -eq 4 && "${BASH_VERSINFO[1]}" -ge 4 || "${BASH_VERSINFO[0]}" -gt 4 ]]; then
    complete -F _spill_with_refs -o nosort -o bashdefault -o default spill
else
    complete -F _spill_with_refs -o bashdefault -o default spill
fi
"#;

/// Zsh: SOURCE and rm's REFs complete stored refs, described by their labels, beside files.
const ZSH_REFS: &str = r#"(( $+functions[_spill_refs] )) ||
_spill_refs() {
    local -a refs
    refs=("${(@f)$(command spill ls --complete 2>/dev/null)}")
    refs=("${(@)refs//:/\\:}")
    refs=("${(@)refs//$'\t'/:}")
    _describe -t refs 'stored output' refs
}
(( $+functions[_spill_source] )) ||
_spill_source() {
    _alternative 'refs:stored output:_spill_refs' 'files:file:_default'
}

"#;

/// Fish: the stored refs with their labels for the reading commands and rm.
const FISH_REFS: &str = r#"
# Stored refs of the current scope, described by their labels (`spill ls --complete`).
complete -c spill -n "__fish_seen_subcommand_from TAKE_REFS" -k -a "(command spill ls --complete 2>/dev/null)"
"#;

/// Adds stored-ref completion to clap's script for the shells that can run a command while
/// completing (bash, zsh, fish); the others are clap's as generated.
fn with_stored_refs(shell: Shell, script: String) -> String {
    match shell {
        Shell::Bash => script + &BASH_REFS.replace("TAKE_REFS", TAKE_REFS),
        Shell::Fish => script + &FISH_REFS.replace("TAKE_REFS", TAKE_REFS),
        Shell::Zsh => {
            // SOURCE operands (required, or optional as search's is beside --all) and rm's REF
            // operands complete through _spill_source.
            let mut out = String::new();
            for line in script.split_inclusive('\n') {
                if ["':source -- ", "'::source -- ", "'*::refs -- "]
                    .iter()
                    .any(|start| line.starts_with(start))
                    && line.contains(":_default' \\")
                {
                    out.push_str(&line.replacen(":_default' \\", ":_spill_source' \\", 1));
                } else {
                    out.push_str(line);
                }
            }
            let tail = "if [ \"$funcstack[1]\" = \"_spill\" ]; then";
            let at = out.rfind(tail).expect("zsh script ends with its dispatch");
            out.insert_str(at, ZSH_REFS);
            out
        }
        _ => script,
    }
}

/// `spill.1` and one page per command (`spill-wrap.1`, …), by file name.
fn man_pages() -> BTreeMap<String, Vec<u8>> {
    // As clap_mangen::generate_to does: build once so that subcommands know their full names
    // (`spill-wrap`) and carry the global options; no page for the `help` pseudo-command.
    let mut cmd = spill::cli::Cli::command().disable_help_subcommand(true);
    cmd.build();
    let mut pages = BTreeMap::new();
    let mut commands = vec![cmd.clone()];
    commands.extend(cmd.get_subcommands().filter(|s| !s.is_hide_set()).cloned());
    for command in commands {
        // Every page's footer names the package and its version, as spill.1's does.
        let man = clap_mangen::Man::new(command.clone())
            .source(format!("spill {}", env!("CARGO_PKG_VERSION")));
        let mut buf = Vec::new();
        render(&man, &command, &mut buf).expect("render a man page");
        pages.insert(man.get_filename(), buf);
    }
    pages
}

/// clap_mangen's sections, except that the text after the options (`after_long_help`) becomes
/// real sections (EXAMPLES, EXIT STATUS, …) instead of clap_mangen's single "EXTRA".
fn render(man: &clap_mangen::Man, cmd: &clap::Command, out: &mut Vec<u8>) -> std::io::Result<()> {
    man.render_title(out)?;
    man.render_name_section(out)?;
    man.render_synopsis_section(out)?;
    man.render_description_section(out)?;
    if cmd.get_arguments().any(|a| !a.is_hide_set()) {
        man.render_options_section(out)?;
    }
    if cmd.has_subcommands() {
        man.render_subcommands_section(out)?;
    }
    if let Some(after) = cmd.get_after_long_help() {
        out.extend_from_slice(after_help_sections(&after.to_string()).as_bytes());
    }
    if cmd.get_version().is_some() {
        man.render_version_section(out)?;
    }
    Ok(())
}

/// `Heading:` lines at the left margin start sections (`Exit status:` → `EXIT STATUS`; a
/// parenthesis after the heading is dropped); the indented lines under them are kept as they
/// are (`.nf`), so examples stay one command per line.
fn after_help_sections(text: &str) -> String {
    let mut roff = roff::Roff::new();
    let mut open = false;
    for line in text.lines() {
        if !line.starts_with(' ') && line.ends_with(':') {
            if open {
                roff.control("fi", []);
            }
            let heading = line.trim_end_matches(':');
            let heading = heading.split(" (").next().unwrap_or(heading).to_uppercase();
            roff.control("SH", [heading.as_str()]);
            roff.control("nf", []);
            open = true;
        } else {
            roff.text([roff::roman(line)]);
        }
    }
    if open {
        roff.control("fi", []);
    }
    roff.to_roff()
}

/// Compares `want` with the files of `dir` (or rewrites them when blessing); returns what is
/// stale.
fn check_dir(dir: &Path, want: &BTreeMap<String, Vec<u8>>) -> Vec<String> {
    let mut stale = Vec::new();
    if blessing() {
        std::fs::create_dir_all(dir).unwrap();
    }
    for (name, bytes) in want {
        let path = dir.join(name);
        if std::fs::read(&path).ok().as_deref() != Some(bytes.as_slice()) {
            if blessing() {
                std::fs::write(&path, bytes).unwrap();
            } else {
                stale.push(path.display().to_string());
            }
        }
    }
    for entry in std::fs::read_dir(dir).into_iter().flatten() {
        let entry = entry.unwrap();
        let name = entry.file_name().to_string_lossy().into_owned();
        if !want.contains_key(&name) {
            if blessing() {
                std::fs::remove_file(entry.path()).unwrap();
            } else {
                stale.push(format!("{} (no longer generated)", entry.path().display()));
            }
        }
    }
    stale
}

#[track_caller]
fn assert_fresh(stale: Vec<String>) {
    assert!(
        stale.is_empty(),
        "stale generated files (rewrite them with `SPILL_BLESS=1 cargo test --test integration packaging`):\n  {}",
        stale.join("\n  ")
    );
}

#[test]
fn completions_are_current() {
    let files = completions();
    assert_eq!(files.len(), 5);
    assert_fresh(check_dir(&root().join("completions"), &files));
}

#[test]
fn man_pages_are_current() {
    let pages = man_pages();
    for page in ["spill.1", "spill-wrap.1", "spill-cat.1", "spill-shape.1"] {
        assert!(
            pages.contains_key(page),
            "{page} missing: {:?}",
            pages.keys()
        );
    }
    assert!(!pages.contains_key("spill-help.1"));
    assert_fresh(check_dir(&root().join("man"), &pages));
}

#[test]
fn every_command_has_a_man_page_with_examples_and_every_option_explained() {
    let mut cmd = spill::cli::Cli::command();
    cmd.build();
    for sub in cmd.get_subcommands().filter(|s| s.get_name() != "help") {
        let name = sub.get_name();
        // The long help ends with the examples (after the options), one command a line.
        let after = sub
            .get_after_long_help()
            .map(|s| s.to_string())
            .unwrap_or_default();
        let examples = after.strip_prefix("Examples:\n");
        assert!(
            examples.is_some_and(|e| e
                .lines()
                .all(|l| l.starts_with("  ") && l.contains("spill "))),
            "`spill {name} --help` does not end with examples:\n{after}"
        );
        for arg in sub.get_arguments() {
            let id = arg.get_id().as_str();
            if id == "help" || id == "version" {
                continue;
            }
            assert!(
                arg.get_help()
                    .is_some_and(|h| !h.to_string().trim().is_empty()),
                "spill {name}: {id} has no help text"
            );
        }
    }
    let top = cmd
        .get_after_long_help()
        .map(|s| s.to_string())
        .unwrap_or_default();
    for part in ["Exit status:", "Streams:", "Environment", "Examples:"] {
        assert!(top.contains(part), "top-level --help lacks {part:?}");
    }
}
