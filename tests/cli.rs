//! The top-level command line: help, version, usage errors and exit codes.

use crate::common::Sandbox;

#[test]
fn no_arguments_prints_help_and_exits_2() {
    let s = Sandbox::new();
    let r = s.run(&[], "");
    r.status(2);
    assert!(r.stderr.contains("Usage:"), "{}", r.stderr);
}

#[test]
fn version_is_printed_on_stdout() {
    let s = Sandbox::new();
    let r = s.run(&["--version"], "");
    r.status(0);
    assert_eq!(r.out(), format!("spill {}\n", env!("CARGO_PKG_VERSION")));
}

#[test]
fn unknown_flags_are_usage_errors_with_the_spill_prefix() {
    let s = Sandbox::new();
    let r = s.run(&["cat", "--no-such-flag", "x"], "");
    r.status(2);
    assert!(r.stderr.starts_with("spill: "), "{}", r.stderr);
}

#[test]
fn invalid_scope_names_are_refused() {
    let s = Sandbox::new();
    for bad in ["..", "a/b", "", &"x".repeat(65)] {
        let r = s.run(&["ls", "--scope", bad], "");
        r.status(2);
        assert!(
            r.stderr.contains("invalid scope name"),
            "{bad}: {}",
            r.stderr
        );
    }
}

#[test]
fn restricted_mode_refuses_store_flags_and_paths() {
    let s = Sandbox::new();
    let f = s.file("x.txt", "hello\n");
    for args in [
        vec!["ls", "--dir", "/tmp"],
        vec!["ls", "--scope", "x"],
        vec!["ls", "--all-scopes"],
        vec!["cat", "x", "--ttl", "1h"],
    ] {
        let r = s.cmd(&args).env("SPILL_RESTRICTED", "1").run();
        r.status(2);
        assert!(
            r.stderr.contains("restricted mode"),
            "{args:?}: {}",
            r.stderr
        );
    }
    let r = s
        .cmd(&["cat", f.to_str().unwrap()])
        .env("SPILL_RESTRICTED", "1")
        .run();
    r.status(2);
    assert!(r.stderr.contains("restricted mode"), "{}", r.stderr);
}
