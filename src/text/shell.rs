//! The one shell quoting rule: how every command spill prints for someone to paste (the
//! envelope's hint, `extract`'s continuations, the harness hooks' rewritten commands) spells a
//! word.

/// Quotes `word` for a POSIX shell (sh, bash, dash, zsh) only when it needs it; the result is
/// always safe to paste, as an argument or as the command itself, and reads back as exactly
/// `word`.
///
/// A word is written as it is when it is not empty, is made only of ASCII letters, digits and
/// `_ - . / : @ % + = ,`, does not start with `=` (zsh expands `=cmd` to a path) or `%` (a job
/// in the command position), and does not read as an assignment (`NAME=…`, which a shell takes
/// for one in the command position). Every other word is put in single quotes, inside which
/// nothing is special, with each `'` written as `'\''`; newlines and non-ASCII text stay as they
/// are inside the quotes.
pub fn quote(word: &str) -> String {
    if is_plain(word) {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

/// True when `word` reads as itself unquoted, in any position (see [`quote`]).
fn is_plain(word: &str) -> bool {
    let bytes = word.as_bytes();
    let Some(&first) = bytes.first() else {
        return false;
    };
    let safe = bytes
        .iter()
        .all(|b| b.is_ascii_alphanumeric() || b"_-./:@%+=,".contains(b));
    safe && first != b'=' && first != b'%' && !is_assignment(bytes)
}

/// `NAME=…` with a valid shell name before the first `=`.
fn is_assignment(bytes: &[u8]) -> bool {
    let Some(eq) = bytes.iter().position(|&b| b == b'=') else {
        return false;
    };
    let name = &bytes[..eq];
    !name.is_empty()
        && !name[0].is_ascii_digit()
        && name.iter().all(|b| b.is_ascii_alphanumeric() || *b == b'_')
}

#[cfg(test)]
mod tests {
    use super::quote;

    #[test]
    fn plain_words_stay_as_they_are() {
        for word in [
            "sp_d99cda3e1346a6f6",
            "/usr/local/bin/spill",
            "-",
            "FAILED",
            "claude-9c248b37",
            "a,b:c@d+e%f",
            "./x=1.json",
            "1=2",
        ] {
            assert_eq!(quote(word), word, "{word}");
        }
    }

    #[test]
    fn everything_else_is_single_quoted() {
        let cases = [
            ("", "''"),
            ("it's", r"'it'\''s'"),
            ("'", r"''\'''"),
            ("a b", "'a b'"),
            ("$.items[0:5]", "'$.items[0:5]'"),
            ("$HOME", "'$HOME'"),
            ("echo hi!", "'echo hi!'"),
            ("two\nlines", "'two\nlines'"),
            ("héllo ✓", "'héllo ✓'"),
            ("error[E0308]", "'error[E0308]'"),
            ("~/x", "'~/x'"),
            ("#x", "'#x'"),
            ("a*b", "'a*b'"),
            ("`id`", "'`id`'"),
            ("a\\b", "'a\\b'"),
            ("=ls", "'=ls'"),
            ("%1", "'%1'"),
            ("FOO=bar", "'FOO=bar'"),
            ("_x1=", "'_x1='"),
        ];
        for (word, quoted) in cases {
            assert_eq!(quote(word), quoted, "{word:?}");
        }
    }

    #[test]
    fn a_shell_reads_back_the_word() {
        let words = [
            "",
            "plain",
            "it's",
            "'",
            "''",
            "a b",
            "$HOME",
            "!",
            "two\nlines",
            "héllo ✓",
            "FOO=bar",
            "=ls",
            "%1",
            "a\\b",
        ];
        let mut script = String::new();
        for w in words {
            script.push_str(&format!("printf '%s\\0' {}\n", quote(w)));
        }
        let out = std::process::Command::new("sh")
            .arg("-c")
            .arg(&script)
            .output()
            .expect("sh runs");
        assert!(out.status.success(), "{out:?}");
        let got: Vec<&[u8]> = out.stdout.split(|&b| b == 0).collect();
        let want: Vec<&[u8]> = words
            .iter()
            .map(|w| w.as_bytes())
            .chain([&b""[..]])
            .collect();
        assert_eq!(got, want);
    }
}
