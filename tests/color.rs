//! `--color` and `NO_COLOR`: the `spill:` prefix of diagnostics is coloured only on a terminal
//! (or when asked), and pass-through and JSON bytes never go through the colour machinery.

use std::process::Stdio;

use crate::common::{Sandbox, lines_of_text};

/// What an error looks like with colour: `spill:` in bold red, then the plain message.
const RED_PREFIX: &str = "\x1b[1m\x1b[31mspill:\x1b[0m ";

/// Runs `spill ARGS…` with stderr on a pseudo-terminal; returns what the terminal received.
fn stderr_on_terminal(s: &Sandbox, args: &[&str], env: &[(&str, &str)]) -> String {
    let (mut master, slave) = crate::common::openpty();
    let mut cmd = s.cmd(args);
    for (k, v) in env {
        cmd = cmd.env(k, v);
    }
    let mut command = cmd.into_command();
    command
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::from(slave));
    let mut child = command.spawn().unwrap();
    // Only the child holds the slave now, so the master reads EIO once it exits.
    drop(command);
    child.wait().unwrap();
    crate::common::read_terminal(&mut master)
}

#[test]
fn diagnostics_are_plain_through_a_pipe_and_coloured_when_asked() {
    let s = Sandbox::new();
    let r = s.run(&["cat", "sp_0123456789abcdef"], "");
    r.status(2);
    assert!(r.stderr.starts_with("spill: "), "{:?}", r.stderr);
    assert!(!r.stderr.contains('\x1b'), "{:?}", r.stderr);

    for args in [
        ["--color", "always", "cat", "sp_0123456789abcdef"],
        ["cat", "sp_0123456789abcdef", "--color", "always"],
    ] {
        let r = s.run(&args, "");
        r.status(2);
        assert!(r.stderr.starts_with(RED_PREFIX), "{:?}", r.stderr);
        assert_eq!(r.stderr.matches('\x1b').count(), 3, "{:?}", r.stderr);
    }
    // An explicit --color always wins over NO_COLOR, which only turns off `auto`.
    let r = s
        .cmd(&["--color", "always", "cat", "sp_0123456789abcdef"])
        .env("NO_COLOR", "1")
        .run();
    assert!(r.stderr.starts_with(RED_PREFIX), "{:?}", r.stderr);
    let r = s.run(&["--color", "never", "cat", "sp_0123456789abcdef"], "");
    assert!(!r.stderr.contains('\x1b'), "{:?}", r.stderr);
}

#[test]
fn a_line_that_does_not_parse_still_honours_its_color_flag() {
    let s = Sandbox::new();
    for args in [
        vec!["--color", "always", "cat", "--no-such-flag", "x"],
        vec!["cat", "--color=always", "x", "--no-such-flag"],
    ] {
        let r = s.run(&args, "");
        r.status(2);
        assert!(r.stderr.starts_with(RED_PREFIX), "{args:?}: {:?}", r.stderr);
    }
    let term = ("TERM", "xterm-256color");
    let shown = stderr_on_terminal(&s, &["--color", "never", "cat", "--no-such-flag"], &[term]);
    assert!(
        shown.starts_with("spill: ") && !shown.contains('\x1b'),
        "{shown:?}"
    );
    let shown = stderr_on_terminal(&s, &["cat", "--no-such-flag"], &[term]);
    assert!(shown.starts_with(RED_PREFIX), "{shown:?}");
}

#[test]
fn warnings_and_notes_colour_their_prefix_only() {
    let s = Sandbox::new();
    let r = s
        .cmd(&["--color", "always", "wrap"])
        .env("SPILL_MAX_INLINE", "lots")
        .stdin("hello\n")
        .run();
    r.status(0);
    assert_eq!(r.out(), "hello\n");
    assert!(
        r.stderr.starts_with(
            "\x1b[1mspill:\x1b[0m \x1b[1m\x1b[33mwarning:\x1b[0m ignoring SPILL_MAX_INLINE"
        ),
        "{:?}",
        r.stderr
    );
}

#[test]
fn on_a_terminal_auto_colours_unless_no_color_or_never() {
    let s = Sandbox::new();
    let args = ["cat", "sp_0123456789abcdef"];
    let term = ("TERM", "xterm-256color");
    let shown = stderr_on_terminal(&s, &args, &[term]);
    assert!(shown.starts_with(RED_PREFIX), "{shown:?}");
    let shown = stderr_on_terminal(&s, &args, &[term, ("NO_COLOR", "1")]);
    assert!(
        shown.starts_with("spill: ") && !shown.contains('\x1b'),
        "{shown:?}"
    );
    let shown = stderr_on_terminal(
        &s,
        &["--color", "never", "cat", "sp_0123456789abcdef"],
        &[term],
    );
    assert!(
        shown.starts_with("spill: ") && !shown.contains('\x1b'),
        "{shown:?}"
    );
    // A dumb terminal gets no colour either.
    let shown = stderr_on_terminal(&s, &args, &[("TERM", "dumb")]);
    assert!(!shown.contains('\x1b'), "{shown:?}");
}

#[test]
fn pass_through_and_json_bytes_never_go_through_the_colour_layer() {
    let s = Sandbox::new();
    // Escape sequences in a small output pass through byte for byte, whatever --color says
    // (anstream's stripper would remove them).
    let coloured = "\x1b[31mred\x1b[0m and \x1b]0;title\x07\n";
    for when in ["always", "never", "auto"] {
        let r = s.run(&["--color", when, "wrap"], coloured);
        r.status(0);
        assert_eq!(r.out(), coloured, "--color {when}");
    }
    // Envelopes and other JSON carry no styling.
    let mut big = lines_of_text(500);
    big.extend_from_slice(b"\x1b[31merror: failed\x1b[0m\n");
    big.extend_from_slice(&lines_of_text(500));
    let r = s.run(&["--color", "always", "wrap"], big);
    r.status(0);
    assert!(!r.out().contains('\x1b'), "{}", r.out());
    r.json();
    let r = s.run(&["--color", "always", "ls", "--json"], "");
    assert!(!r.out().contains('\x1b'));
    let r = s.run(&["--color", "always", "schema", "envelope"], "");
    assert!(!r.out().contains('\x1b'));
}

#[test]
fn untrusted_text_in_a_coloured_error_is_still_escaped() {
    let s = Sandbox::new();
    let r = s.run(&["--color", "always", "cat", "no\x1b]0;pwned\x07file"], "");
    r.status(2);
    assert!(r.stderr.starts_with(RED_PREFIX), "{:?}", r.stderr);
    // Only our three style sequences; the message's ESC and BEL are shown escaped.
    assert_eq!(r.stderr.matches('\x1b').count(), 3, "{:?}", r.stderr);
    assert!(!r.stderr.contains('\x07'), "{:?}", r.stderr);
}
