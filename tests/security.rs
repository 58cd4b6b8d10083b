//! Security claims of SECURITY.md that no other module pins: permissions whatever the umask,
//! payload files swapped for symbolic links, restricted mode confined to its scope, and
//! untrusted text escaped in error messages.

use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::process::Stdio;

use crate::common::{Sandbox, lines_of_text};

#[test]
fn permissions_hold_under_a_permissive_umask() {
    let s = Sandbox::new();
    let mut cmd = s.cmd(&["wrap"]).into_command();
    // SAFETY: umask(2) is async-signal-safe and only affects the child.
    unsafe {
        cmd.pre_exec(|| {
            libc::umask(0);
            Ok(())
        });
    }
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let input = lines_of_text(3000);
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), &input).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let env: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(env["spilled"], true, "{env}");
    let root = s.store_root();
    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&root), 0o700);
    assert_eq!(mode(&root.join("default")), 0o700);
    for e in std::fs::read_dir(root.join("default")).unwrap().flatten() {
        if e.file_type().unwrap().is_file() {
            assert_eq!(
                mode(&e.path()) & 0o077,
                0,
                "{} is open to others",
                e.path().display()
            );
        }
    }
}

#[test]
fn a_payload_replaced_by_a_symbolic_link_is_refused() {
    let s = Sandbox::new();
    let env = s.run(&["wrap"], lines_of_text(3000)).status(0).json();
    let r = env["ref"].as_str().unwrap();
    let payload = s.store_root().join("default").join(&r[3..]);
    let victim = s.file("victim", "private contents\n");
    std::fs::remove_file(&payload).unwrap();
    std::os::unix::fs::symlink(&victim, &payload).unwrap();
    for args in [vec!["cat", r], vec!["shape", r]] {
        let run = s.run(&args, "");
        run.status(2);
        assert!(run.stderr.starts_with("spill: "), "{}", run.stderr);
        assert!(!run.out().contains("private contents"), "{args:?}");
    }
}

#[test]
fn restricted_mode_cannot_reach_outside_its_scope() {
    let s = Sandbox::new();
    let env = s
        .cmd(&["wrap"])
        .env("SPILL_SCOPE", "bob")
        .stdin(lines_of_text(3000))
        .run()
        .json();
    let r = env["ref"].as_str().unwrap().to_string();
    let hex = &r[3..];
    let restricted = |args: &[&str]| {
        s.cmd(args)
            .env("SPILL_RESTRICTED", "1")
            .env("SPILL_SCOPE", "alice")
            .run()
    };
    // Bob's ref is unknown in Alice's scope.
    let run = restricted(&["cat", &r]);
    run.status(2);
    assert!(run.stderr.contains("unknown ref"), "{}", run.stderr);
    // Paths, traversal and the store flags are refused before anything is read.
    let traversal = format!("../bob/{hex}");
    let absolute = s.store_root().join("bob").join(hex);
    for args in [
        vec!["cat", traversal.as_str()],
        vec!["cat", absolute.to_str().unwrap()],
        vec!["cat", &r, "--scope", "bob"],
        vec!["cat", &r, "--dir", "/"],
        vec!["shape", "/etc/passwd"],
        vec!["ls", "--all-scopes"],
    ] {
        let run = restricted(&args);
        run.status(2);
        assert!(
            run.stderr.contains("restricted mode"),
            "{args:?}: {}",
            run.stderr
        );
        assert!(run.stdout.is_empty(), "{args:?}");
    }
    // Near-refs are not refs: no file access by a mangled name.
    for bad in [
        "sp_../../etc/passwd",
        "sp_0123456789ABCDEF",
        "sp_0123456789abcde",
    ] {
        let run = restricted(&["cat", bad]);
        run.status(2);
        assert!(run.stdout.is_empty(), "{bad}");
    }
}

#[test]
fn untrusted_text_in_messages_is_escaped() {
    let s = Sandbox::new();
    let evil = "no-such-\x1b]0;owned\x07-file\x1b[2J";
    // A bad flag is a usage error; wrap never loses its input to the environment: a bad
    // SPILL_SCOPE stores nothing, with a warning, and the input still gets its envelope.
    for (args, code, env) in [
        (vec!["cat", evil], 2, "default"),
        (vec!["shape", evil], 2, "default"),
        (vec!["ls", "--scope", evil], 2, "default"),
        (vec!["wrap", "--scope", evil], 2, "default"),
        (vec!["wrap", "--max-inline", "0"], 0, evil),
    ] {
        let run = s.cmd(&args).env("SPILL_SCOPE", env).stdin("x\n").run();
        run.status(code);
        assert!(
            run.stderr.starts_with("spill: "),
            "{args:?}: {}",
            run.stderr
        );
        assert!(
            !run.stderr.contains('\x1b') && !run.stderr.contains('\x07'),
            "{args:?}: raw control characters in {:?}",
            run.stderr
        );
    }
}
