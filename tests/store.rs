//! The store: permissions, unsafe roots (the degraded envelope), restricted mode, scopes,
//! refs, ls and rm.

use std::os::unix::fs::{MetadataExt, PermissionsExt};

use crate::common::{Sandbox, lines_of_text, ref_of, spilled};

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

// Planted links and half-written entries: every file the store writes or reads is opened
// without following links, and an entry is complete (payload and record) or invisible.

use std::fs;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, UNIX_EPOCH};

/// A file outside the store that a planted link points at: its bytes and mtime must survive.
struct Victim {
    path: PathBuf,
    bytes: Vec<u8>,
}

impl Victim {
    fn new(s: &Sandbox, name: &str, bytes: &[u8]) -> Victim {
        let path = s.file(name, bytes);
        fs::set_permissions(&path, fs::Permissions::from_mode(0o644)).unwrap();
        // An mtime far in the past, so a touch through a link would show.
        fs::File::options()
            .write(true)
            .open(&path)
            .unwrap()
            .set_modified(UNIX_EPOCH + Duration::from_secs(1_000_000_000))
            .unwrap();
        Victim {
            path,
            bytes: bytes.to_vec(),
        }
    }

    #[track_caller]
    fn assert_untouched(&self) {
        assert_eq!(
            fs::read(&self.path).unwrap(),
            self.bytes,
            "victim rewritten"
        );
        let m = fs::metadata(&self.path).unwrap();
        assert_eq!(
            m.modified().unwrap(),
            UNIX_EPOCH + Duration::from_secs(1_000_000_000),
            "victim's mtime changed"
        );
        assert_eq!(m.mode() & 0o777, 0o644, "victim's mode changed");
    }
}

fn symlink(target: &Path, at: &Path) {
    let _ = fs::remove_file(at);
    std::os::unix::fs::symlink(target, at).unwrap();
}

/// Asserts that `path` is a regular file (not a link) of mode 0600.
#[track_caller]
fn assert_private_file(path: &Path) {
    let m = fs::symlink_metadata(path).unwrap();
    assert!(m.is_file(), "{} is not a regular file", path.display());
    assert_eq!(m.mode() & 0o777, 0o600, "{}", path.display());
}

/// Stores `input` in `scope` and returns its ref.
fn stored(s: &Sandbox, scope: &str, input: &[u8]) -> String {
    spilled(
        s.cmd(&["wrap", "--max-inline", "0", "--scope", scope])
            .stdin(input.to_vec()),
    )
}

/// A store with one entry, and a victim file outside it for links to point at.
fn store_and_victim() -> (Sandbox, Victim) {
    let s = Sandbox::new();
    stored(&s, "default", &lines_of_text(2000));
    let victim = Victim::new(&s, "victim", b"7\n");
    (s, victim)
}

fn cat_all(s: &Sandbox, r: &str) -> crate::common::Run {
    s.run(
        &["cat", r, "--raw", "--bytes", "0:", "--max-bytes", "64M"],
        "",
    )
}

#[test]
fn tombstones_replace_planted_links_and_are_0600_under_any_umask() {
    let s = Sandbox::new();
    let victim = Victim::new(&s, "victim", b"keep me\n");
    // spill rm: the tombstone's name is a link to the victim.
    let r = stored(&s, "default", &lines_of_text(2000));
    let gone = s
        .store_root()
        .join("default")
        .join(format!("{}.gone", &r[3..]));
    symlink(&victim.path, &gone);
    let mut cmd = s.cmd(&["rm", &r]).into_command();
    // SAFETY: umask(2) is async-signal-safe and only affects the child.
    unsafe {
        cmd.pre_exec(|| {
            libc::umask(0);
            Ok(())
        });
    }
    assert!(
        cmd.stdout(std::process::Stdio::null())
            .status()
            .unwrap()
            .success()
    );
    victim.assert_untouched();
    assert_private_file(&gone);
    let run = s.run(&["cat", &r], "");
    run.status(2);
    assert!(run.stderr.contains("has been removed"), "{}", run.stderr);
    // Eviction from another scope: a writer in scope a evicts b's entry, whose tombstone name
    // is a link (and, for a second entry, a hard link) to a file outside the store.
    let hard_victim = Victim::new(&s, "hard-victim", b"keep me too\n");
    let b1 = stored(&s, "b", &lines_of_text(3000));
    let b2 = stored(&s, "b", &lines_of_text(3001));
    let b_dir = s.store_root().join("b");
    symlink(&victim.path, &b_dir.join(format!("{}.gone", &b1[3..])));
    fs::hard_link(&hard_victim.path, b_dir.join(format!("{}.gone", &b2[3..]))).unwrap();
    let big = lines_of_text(5000);
    let env = s
        .cmd(&[
            "wrap",
            "--scope",
            "a",
            "--quota",
            &format!("{}", big.len() + 1000),
        ])
        .stdin(big)
        .run()
        .status(0)
        .json();
    assert_eq!(env["spilled"], true, "{env}");
    victim.assert_untouched();
    hard_victim.assert_untouched();
    for b in [&b1, &b2] {
        assert_private_file(&b_dir.join(format!("{}.gone", &b[3..])));
        let run = s.run(&["cat", b, "--scope", "b"], "");
        run.status(2);
        assert!(run.stderr.contains("has been evicted"), "{}", run.stderr);
    }
}

#[test]
fn a_planted_payload_link_is_refused_on_read_and_replaced_by_wrap() {
    let s = Sandbox::new();
    let victim = Victim::new(&s, "passwd", b"root:x:0:0:root:/root:/bin/sh\n");
    stored(&s, "default", b"something else\n");
    // The attack from the issue: a payload link to a private file, with a record that names
    // the hash of the content about to be wrapped.
    let input = lines_of_text(3000);
    let r = ref_of(&input);
    let dir = s.store_root().join("default");
    let payload = dir.join(&r[3..]);
    symlink(&victim.path, &payload);
    let record = serde_json::json!({
        "hash": blake3::hash(&input).to_hex().to_string(),
        "sizeBytes": input.len(), "storedBytes": input.len(), "mimeType": "text/plain",
        "lines": 3000, "summary": "planted", "created": 1.0
    });
    fs::write(dir.join(format!("{}.meta", &r[3..])), record.to_string()).unwrap();
    // Reading through it: a clear error naming the ref, never the linked bytes.
    let run = cat_all(&s, &r);
    run.status(2);
    assert!(
        run.stderr
            .contains(&format!("the payload of {r} is a symbolic link")),
        "{}",
        run.stderr
    );
    assert!(!run.out().contains("root:x"));
    // Wrapping the content: the link is reported and replaced; the new bytes are stored.
    let run = s.run(&["wrap", "--max-inline", "0"], input.clone());
    run.status(0);
    let env = run.json();
    assert_eq!(env["spilled"], true, "{env}");
    assert_eq!(env["ref"], r.as_str());
    assert_eq!(env["path"], payload.to_str().unwrap());
    assert!(
        run.stderr.contains(&format!(
            "spill: warning: a symbolic link stood where the payload of {r} belongs"
        )),
        "{}",
        run.stderr
    );
    assert_private_file(&payload);
    assert_eq!(cat_all(&s, &r).status(0).stdout, input);
    victim.assert_untouched();
}

#[test]
fn a_planted_metadata_link_is_refused_on_read_and_replaced_by_wrap() {
    let s = Sandbox::new();
    let input = lines_of_text(3000);
    let r = stored(&s, "default", &input);
    let dir = s.store_root().join("default");
    let record = dir.join(format!("{}.meta", &r[3..]));
    // The victim holds a valid record, so a reader that followed the link would trust it
    // (and refresh the victim's mtime as the entry's last access).
    let victim = Victim::new(&s, "victim", &fs::read(&record).unwrap());
    symlink(&victim.path, &record);
    let run = cat_all(&s, &r);
    run.status(2);
    assert!(
        run.stderr
            .contains(&format!("the metadata record of {r} is a symbolic link")),
        "{}",
        run.stderr
    );
    assert_eq!(s.run(&["ls", "--json"], "").status(0).json()["count"], 0);
    victim.assert_untouched();
    let run = s.run(&["wrap", "--max-inline", "0"], input.clone());
    let env = run.json();
    assert_eq!(env["spilled"], true, "{env}");
    assert!(
        run.stderr.contains(&format!(
            "spill: warning: a symbolic link stood where the metadata record of {r} belongs"
        )),
        "{}",
        run.stderr
    );
    assert_private_file(&record);
    assert_eq!(cat_all(&s, &r).status(0).stdout, input);
    assert_eq!(s.run(&["ls", "--json"], "").json()["count"], 1);
    victim.assert_untouched();
}

#[test]
fn a_planted_expiry_stamp_link_is_replaced_never_touched_through() {
    let (s, victim) = store_and_victim();
    // A symbolic link, then a hard link (due either way: the victim's mtime is old): replaced
    // by a fresh regular stamp, the victim's mtime untouched.
    let stamp = s.store_root().join(".expiry-stamp");
    symlink(&victim.path, &stamp);
    stored(&s, "default", &lines_of_text(2001));
    victim.assert_untouched();
    assert_private_file(&stamp);
    fs::remove_file(&stamp).unwrap();
    fs::hard_link(&victim.path, &stamp).unwrap();
    stored(&s, "default", &lines_of_text(2002));
    victim.assert_untouched();
    assert_eq!(fs::metadata(&stamp).unwrap().nlink(), 1);
}

#[test]
fn a_planted_temporary_file_link_is_removed_never_followed() {
    let (s, victim) = store_and_victim();
    let temp = s.store_root().join("default").join(".tmp-planted");
    symlink(&victim.path, &temp);
    let gc = s.run(&["gc"], "").status(0).out();
    assert!(gc.contains(".tmp-planted  default  0 B  temp"), "{gc}");
    assert!(fs::symlink_metadata(&temp).is_err());
    victim.assert_untouched();
}

#[test]
fn a_planted_version_link_is_never_read_and_is_replaced() {
    let (s, victim) = store_and_victim();
    // Readers treat it as missing (no linked bytes reach a message); the next writer replaces it.
    let version = s.store_root().join("VERSION");
    symlink(&victim.path, &version);
    let ls = s.run(&["ls"], "");
    ls.status(0);
    assert!(!ls.stderr.contains("\"7\""), "{}", ls.stderr);
    stored(&s, "default", &lines_of_text(2003));
    assert_private_file(&version);
    assert_eq!(fs::read_to_string(&version).unwrap(), "1\n");
    victim.assert_untouched();
}

#[test]
fn an_entry_whose_record_cannot_be_written_is_not_readable() {
    let s = Sandbox::new();
    stored(&s, "default", b"the store exists\n");
    let input = lines_of_text(3000);
    let r = ref_of(&input);
    let dir = s.store_root().join("default");
    // A directory where the record belongs: renaming the record into place fails, as on a
    // disk that fills up between the payload and its record.
    fs::create_dir(dir.join(format!("{}.meta", &r[3..]))).unwrap();
    let run = s.run(&["wrap", "--max-inline", "0"], input);
    run.status(0);
    let env = run.json();
    assert_eq!(env["spilled"], false, "{env}");
    assert!(run.stderr.contains("spill: warning: "), "{}", run.stderr);
    // Nothing readable by ref, nothing under the payload's name, no temporary file.
    let read = cat_all(&s, &r);
    read.status(2);
    assert!(read.stdout.is_empty());
    assert!(fs::symlink_metadata(dir.join(&r[3..])).is_err());
    let names: Vec<String> = fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".tmp-"))
        .collect();
    assert!(names.is_empty(), "{names:?}");
}

/// The names in a scope directory that are payloads, records or temporary files.
fn entry_files(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| !n.ends_with(".gone"))
        .collect();
    names.sort();
    names
}

/// Leaves a payload without its record, a record without its payload, a payload link with its
/// record, and a crashed writer's temporary file in `scope`; returns their refs.
fn plant_leftovers(s: &Sandbox, scope: &str, seed: usize) -> [String; 3] {
    let dir = s.store_root().join(scope);
    let a = stored(s, scope, &lines_of_text(1000 + seed));
    let b = stored(s, scope, &lines_of_text(1100 + seed));
    let c = stored(s, scope, &lines_of_text(1200 + seed));
    fs::remove_file(dir.join(format!("{}.meta", &a[3..]))).unwrap();
    fs::remove_file(dir.join(&b[3..])).unwrap();
    symlink(&s.path().join("nowhere"), &dir.join(&c[3..]));
    fs::write(dir.join(".tmp-crashed"), b"partial").unwrap();
    [a, b, c]
}

#[test]
fn gc_and_rm_all_remove_incomplete_entries_and_stale_temporary_files() {
    let s = Sandbox::new();
    let keep = stored(&s, "default", &lines_of_text(5000));
    let [a, b, c] = plant_leftovers(&s, "default", 0);
    // A payload without its record is not an entry: not listed, not readable.
    let read = cat_all(&s, &a);
    read.status(2);
    assert!(
        read.stderr.contains(&format!("{a} is incomplete")),
        "{}",
        read.stderr
    );
    assert_eq!(s.run(&["ls", "--json"], "").json()["count"], 1);
    let gc = s.run(&["gc", "--json"], "").status(0).json();
    let mut removed: Vec<(String, String)> = gc["removed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| {
            (
                x["file"].as_str().unwrap().to_string(),
                x["reason"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    removed.sort();
    let mut want = vec![
        (a[3..].to_string(), "incomplete".to_string()),
        (format!("{}.meta", &b[3..]), "incomplete".to_string()),
        (c[3..].to_string(), "incomplete".to_string()),
        (format!("{}.meta", &c[3..]), "incomplete".to_string()),
        (".tmp-crashed".to_string(), "temp".to_string()),
    ];
    want.sort();
    assert_eq!(removed, want);
    let dir = s.store_root().join("default");
    assert_eq!(
        entry_files(&dir),
        [keep[3..].to_string(), format!("{}.meta", &keep[3..])]
    );
    assert_eq!(cat_all(&s, &keep).status(0).stdout, lines_of_text(5000));
    // rm --all: every entry, and every leftover, of the scope.
    plant_leftovers(&s, "default", 7);
    s.run(&["rm", "--all"], "").status(0);
    assert_eq!(entry_files(&dir), Vec::<String>::new());
}

/// README "A store shared across machines": a binary built without the `s3` feature refuses an
/// s3:// store with the install line that enables it; `wrap` still keeps nothing it cannot
/// store and says why (the degraded envelope). Another scheme is not a store URL.
#[cfg(not(feature = "s3"))]
#[test]
fn an_object_store_needs_the_s3_feature() {
    let sb = Sandbox::new();
    for command in [vec!["ls"], vec!["cat", "sp_0123456789abcdef"], vec!["gc"]] {
        let run = sb
            .cmd(&command)
            .env("SPILL_STORE", "s3://bucket/prefix")
            .run();
        run.status(2);
        assert!(run.stderr.contains("--features s3"), "{}", run.stderr);
    }
    let env = sb
        .cmd(&["wrap", "--store", "s3://bucket/prefix"])
        .stdin(lines_of_text(5_000))
        .run()
        .status(0)
        .json();
    assert_eq!(env["spilled"], false, "{env}");
    assert!(env["error"].as_str().unwrap().contains("s3"), "{env}");
    assert!(
        !sb.store_root().exists(),
        "nothing was stored locally instead"
    );
    let run = sb.cmd(&["ls", "--store", "/tmp/somewhere"]).run();
    run.status(2);
    assert!(run.stderr.contains("not an s3:// URL"), "{}", run.stderr);
}

/// Without `--dir` or `SPILL_DIR` the root is `$TMPDIR/spill-<uid>` (README, "The store"): the
/// command layer reads `TMPDIR` and hands it to the library, for the writer and the readers alike.
#[test]
fn the_default_root_follows_tmpdir() {
    let s = Sandbox::new();
    let tmp = s.path().join("other-tmp");
    std::fs::create_dir(&tmp).unwrap();
    let root = tmp.join(format!("spill-{}", unsafe { libc::geteuid() }));
    let input = lines_of_text(3000);
    let env = s
        .cmd(&["wrap"])
        .env("TMPDIR", &tmp)
        .stdin(input.clone())
        .run()
        .status(0)
        .json();
    let r = env["ref"].as_str().unwrap().to_string();
    assert_eq!(
        env["path"].as_str(),
        root.join("default").join(&r[3..]).to_str(),
        "{env}"
    );
    assert!(root.join("VERSION").is_file());
    assert!(
        !s.store_root().exists(),
        "nothing under the sandbox's own TMPDIR"
    );
    let cat = s
        .cmd(&["cat", &r, "--bytes", ":"])
        .env("TMPDIR", &tmp)
        .run();
    assert_eq!(cat.status(0).stdout, input);
    let ls = s.cmd(&["ls", "--json"]).env("TMPDIR", &tmp).run();
    assert_eq!(ls.status(0).json()["entries"][0]["ref"], r.as_str());
    // Another TMPDIR is another store.
    s.cmd(&["cat", &r]).run().status(2);
    assert_eq!(s.cmd(&["ls", "--json"]).run().status(0).json()["count"], 0);
}
