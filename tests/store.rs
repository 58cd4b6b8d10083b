//! The store: permissions, unsafe roots (the degraded envelope), restricted mode, scopes,
//! refs, ls and rm.

use std::os::unix::fs::{MetadataExt, PermissionsExt};

use crate::common::{Sandbox, lines_of_text};

fn mode(path: &std::path::Path) -> u32 {
    std::fs::metadata(path).unwrap().mode() & 0o777
}

#[test]
fn directories_are_0700_and_files_0600() {
    let s = Sandbox::new();
    let env = s.run(&["wrap"], lines_of_text(2000)).json();
    let root = s.store_root();
    assert_eq!(mode(&root), 0o700);
    assert_eq!(mode(&root.join("default")), 0o700);
    let payload = std::path::PathBuf::from(env["path"].as_str().unwrap());
    assert_eq!(payload.parent().unwrap(), root.join("default"));
    assert_eq!(mode(&payload), 0o600);
    assert_eq!(mode(&payload.with_extension("meta")), 0o600);
    assert_eq!(
        std::fs::read_to_string(root.join("VERSION")).unwrap(),
        "1\n"
    );
    let leftovers: Vec<_> = std::fs::read_dir(root.join("default"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.starts_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

/// Asserts the degraded envelope: not stored, a reason, a preview, one warning, exit 0.
#[track_caller]
fn assert_degraded(r: &crate::common::Run, reason: &str) {
    r.status(0);
    let env = r.json();
    assert_eq!(env["spilled"], false);
    assert!(env["error"].as_str().unwrap().contains(reason), "{env}");
    assert!(env.get("ref").is_none() && env.get("path").is_none() && env.get("hint").is_none());
    assert_eq!(env["lines"], 3000);
    assert!(
        env["preview"]["tail"]
            .as_array()
            .is_some_and(|t| !t.is_empty())
    );
    assert_eq!(
        r.stderr.matches("spill: warning: ").count(),
        1,
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("SPILL_DIR"), "{}", r.stderr);
}

#[test]
fn unsafe_or_unusable_roots_give_the_degraded_envelope() {
    let s = Sandbox::new();
    let input = lines_of_text(3000);
    // A symbolic link, never followed.
    let real = s.path().join("real");
    std::fs::create_dir(&real).unwrap();
    std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o700)).unwrap();
    let link = s.path().join("link");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    assert_degraded(
        &s.cmd(&["wrap"])
            .env("SPILL_DIR", &link)
            .stdin(input.clone())
            .run(),
        "symbolic link",
    );
    assert_eq!(std::fs::read_dir(&real).unwrap().count(), 0);
    // A file.
    let file = s.file("a-file", "x");
    assert_degraded(
        &s.cmd(&["wrap"])
            .env("SPILL_DIR", &file)
            .stdin(input.clone())
            .run(),
        "not a directory",
    );
    // Writable by others.
    let open = s.path().join("open");
    std::fs::create_dir(&open).unwrap();
    std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o777)).unwrap();
    assert_degraded(
        &s.cmd(&["wrap"])
            .env("SPILL_DIR", &open)
            .stdin(input.clone())
            .run(),
        "writable by group or others",
    );
    // Not creatable: its parent is a file.
    assert_degraded(
        &s.cmd(&["wrap"])
            .env("SPILL_DIR", file.join("sub"))
            .stdin(input.clone())
            .run(),
        "a-file/sub",
    );
    // A scope directory that is a symlink.
    let root = s.path().join("root");
    std::fs::create_dir(&root).unwrap();
    std::fs::set_permissions(&root, std::fs::Permissions::from_mode(0o700)).unwrap();
    std::os::unix::fs::symlink(&real, root.join("default")).unwrap();
    assert_degraded(
        &s.cmd(&["wrap"])
            .env("SPILL_DIR", &root)
            .stdin(input.clone())
            .run(),
        "symbolic link",
    );
    // Owned by another user (only root can make one).
    if unsafe { libc::geteuid() } == 0 {
        let theirs = s.path().join("theirs");
        std::fs::create_dir(&theirs).unwrap();
        std::fs::set_permissions(&theirs, std::fs::Permissions::from_mode(0o700)).unwrap();
        std::os::unix::fs::chown(&theirs, Some(4242), Some(4242)).unwrap();
        assert_degraded(
            &s.cmd(&["wrap"])
                .env("SPILL_DIR", &theirs)
                .stdin(input.clone())
                .run(),
            "owned by uid 4242",
        );
        // Not writable even for root: a directory in /proc.
        assert_degraded(
            &s.cmd(&["wrap"])
                .env("SPILL_DIR", "/proc/1")
                .stdin(input.clone())
                .run(),
            "cannot create",
        );
    }
}

#[test]
fn readers_refuse_unsafe_roots_with_exit_2() {
    let s = Sandbox::new();
    let open = s.path().join("open");
    std::fs::create_dir(&open).unwrap();
    std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o777)).unwrap();
    let r = s
        .cmd(&["cat", "sp_0123456789abcdef"])
        .env("SPILL_DIR", &open)
        .run();
    r.status(2);
    assert!(
        r.stderr.starts_with("spill: unsafe store root"),
        "{}",
        r.stderr
    );
    let r = s.cmd(&["ls"]).env("SPILL_DIR", &open).run();
    r.status(2);
}

#[test]
fn restricted_mode_omits_paths_and_reads_by_ref_only() {
    let s = Sandbox::new();
    let r = s
        .cmd(&["wrap"])
        .env("SPILL_RESTRICTED", "1")
        .stdin(lines_of_text(2000))
        .run();
    let env = r.json();
    assert!(env.get("path").is_none(), "{env}");
    let reference = env["ref"].as_str().unwrap();
    let r = s
        .cmd(&["cat", reference, "--lines", "1:1"])
        .env("SPILL_RESTRICTED", "1")
        .run();
    r.status(0);
    assert_eq!(
        r.out(),
        "line 000000 the quick brown fox jumps over the lazy dog\n"
    );
    let r = s
        .cmd(&["wrap", "--dir", "/tmp/x"])
        .env("SPILL_RESTRICTED", "1")
        .stdin("x")
        .run();
    r.status(2);
    assert!(
        r.stderr.contains("--dir is refused in restricted mode"),
        "{}",
        r.stderr
    );
}

#[test]
fn scopes_are_isolated() {
    let s = Sandbox::new();
    let env = s
        .cmd(&["wrap"])
        .env("SPILL_SCOPE", "alice")
        .stdin(lines_of_text(2000))
        .run()
        .json();
    let reference = env["ref"].as_str().unwrap();
    let r = s.cmd(&["cat", reference]).env("SPILL_SCOPE", "bob").run();
    r.status(2);
    assert!(r.stderr.contains("unknown ref"), "{}", r.stderr);
    s.cmd(&["cat", reference, "--scope", "alice"])
        .run()
        .status(0);
    assert_eq!(
        s.cmd(&["ls", "--json"])
            .env("SPILL_SCOPE", "bob")
            .run()
            .json()["count"],
        0
    );
    let all = s
        .cmd(&["ls", "--json", "--all-scopes"])
        .env("SPILL_SCOPE", "bob")
        .run()
        .json();
    assert_eq!(all["entries"][0]["scope"], "alice");
}

#[test]
fn refs_are_validated_before_any_file_access() {
    let s = Sandbox::new();
    for bad in ["sp_../../etc/pass", "sp_0123456789ABCDEF"] {
        let r = s.run(&["rm", bad], "");
        r.status(2);
        assert!(r.stderr.contains("not removed"), "{}", r.stderr);
    }
}

#[test]
fn ls_lists_newest_first_and_rm_removes_with_a_tombstone() {
    let s = Sandbox::new();
    let a = s.run(&["wrap", "--label", "a"], lines_of_text(2000)).json();
    std::thread::sleep(std::time::Duration::from_millis(20));
    let b = s.run(&["wrap", "--label", "b"], lines_of_text(2001)).json();
    let ls = s.run(&["ls", "--json"], "").json();
    assert_eq!(ls["count"], 2);
    assert_eq!(ls["entries"][0]["ref"], b["ref"]);
    assert_eq!(ls["entries"][1]["ref"], a["ref"]);
    let text = s.run(&["ls"], "").out();
    assert!(
        text.lines()
            .next()
            .unwrap()
            .starts_with(b["ref"].as_str().unwrap()),
        "{text}"
    );
    let a_ref = a["ref"].as_str().unwrap();
    let r = s.run(&["rm", a_ref], "");
    r.status(0);
    assert_eq!(r.out(), format!("removed {a_ref}\n"));
    let r = s.run(&["cat", a_ref], "");
    r.status(2);
    assert!(r.stderr.contains("has been removed"), "{}", r.stderr);
    let r = s.run(
        &[
            "rm",
            "--json",
            "sp_0000000000000000",
            b["ref"].as_str().unwrap(),
        ],
        "",
    );
    r.status(2);
    assert_eq!(r.json()["removed"][0], b["ref"]);
    assert_eq!(r.json()["unknown"][0], "sp_0000000000000000");
    s.run(&["wrap"], lines_of_text(2002));
    s.run(&["rm", "--all"], "").status(0);
    assert_eq!(s.run(&["ls", "--json"], "").json()["count"], 0);
}
