//! The store's lifecycle: TTL from last access (and its refresh), the opportunistic expiry
//! pass, gc (dry run vs real, temporary files, tombstones, JSON), quota eviction order, and the
//! expired / evicted / unknown messages.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use crate::common::{Run, Sandbox};

/// `n` bytes of text that differ with `seed`.
fn text(seed: usize, n: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(n + 64);
    let mut i = 0;
    while out.len() < n {
        out.extend_from_slice(
            format!("seed {seed} line {i:06} some words to fill it\n").as_bytes(),
        );
        i += 1;
    }
    out.truncate(n);
    out
}

fn wrap(s: &Sandbox, args: &[&str], input: Vec<u8>) -> String {
    let mut all = vec!["wrap", "--max-inline", "1K"];
    all.extend_from_slice(args);
    let env = s.run(&all, input).status(0).json();
    env["ref"]
        .as_str()
        .unwrap_or_else(|| panic!("not stored: {env}"))
        .to_string()
}

fn scope_dir(s: &Sandbox, scope: &str) -> PathBuf {
    s.store_root().join(scope)
}

fn meta_of(s: &Sandbox, scope: &str, r: &str) -> PathBuf {
    scope_dir(s, scope).join(format!("{}.meta", &r[3..]))
}

fn payload_of(s: &Sandbox, scope: &str, r: &str) -> PathBuf {
    scope_dir(s, scope).join(&r[3..])
}

/// Sets a file's mtime to `ago` before now.
fn age(path: &Path, ago: Duration) {
    fs::File::options()
        .write(true)
        .open(path)
        .unwrap()
        .set_modified(SystemTime::now() - ago)
        .unwrap();
}

fn mtime_ago(path: &Path) -> Duration {
    SystemTime::now()
        .duration_since(fs::metadata(path).unwrap().modified().unwrap())
        .unwrap_or_default()
}

#[track_caller]
fn assert_gone(r: &Run, how: &str) {
    r.status(2);
    assert!(r.stderr.starts_with("spill: "), "{}", r.stderr);
    assert!(r.stderr.contains(how), "want {how:?}: {}", r.stderr);
}

#[test]
fn entries_expire_after_the_ttl_from_their_last_read_and_reads_refresh_them() {
    let s = Sandbox::new();
    let a = wrap(&s, &[], text(1, 50_000));
    // Read 60 s after its last access with a 90 s TTL: still there, and refreshed.
    age(&meta_of(&s, "default", &a), Duration::from_secs(60));
    s.run(&["cat", &a, "--ttl", "90s", "--lines", "1:1"], "")
        .status(0);
    assert!(mtime_ago(&meta_of(&s, "default", &a)) < Duration::from_secs(5));
    // The same age again is fine: the read above restarted the clock.
    age(&meta_of(&s, "default", &a), Duration::from_secs(60));
    s.cmd(&["cat", &a, "--lines", "1:1"])
        .env("SPILL_TTL", "90s")
        .run()
        .status(0);
    // Unread for longer than the TTL: expired, also before any gc ran (and not listed).
    age(&meta_of(&s, "default", &a), Duration::from_secs(100));
    assert_eq!(s.run(&["ls", "--json"], "").json()["count"], 1);
    assert_eq!(
        s.run(&["ls", "--json", "--ttl", "90s"], "").json()["count"],
        0
    );
    assert_gone(&s.run(&["cat", &a, "--ttl", "90s"], ""), "has expired");
    assert!(!payload_of(&s, "default", &a).exists());
    // ... and it stays expired (a tombstone), whatever the TTL of the next reader.
    assert_gone(&s.run(&["cat", &a], ""), "has expired");
}

#[test]
fn expired_evicted_removed_and_unknown_refs_are_told_apart() {
    let s = Sandbox::new();
    let expired = wrap(&s, &[], text(1, 40_000));
    let evicted = wrap(&s, &[], text(2, 40_000));
    let removed = wrap(&s, &[], text(3, 40_000));
    let kept = wrap(&s, &[], text(4, 40_000));
    age(
        &meta_of(&s, "default", &expired),
        Duration::from_secs(3 * 86400),
    );
    age(&meta_of(&s, "default", &evicted), Duration::from_secs(3600));
    s.run(&["rm", &removed], "").status(0);
    // A quota that holds one entry: gc expires the first and evicts the second.
    s.run(&["gc", "--quota", "50K"], "").status(0);
    assert_gone(&s.run(&["cat", &expired], ""), "has expired");
    assert_gone(&s.run(&["cat", &evicted], ""), "has been evicted");
    assert_gone(&s.run(&["cat", &removed], ""), "has been removed");
    s.run(&["cat", &kept, "--lines", "1:1"], "").status(0);
    let never = s.run(&["cat", "sp_0123456789abcdef"], "");
    assert_gone(&never, "unknown ref sp_0123456789abcdef");
    assert!(!never.stderr.contains("expired") && !never.stderr.contains("evicted"));
}

#[test]
fn wrap_expires_old_entries_at_most_once_a_minute_and_never_when_passing_through() {
    let s = Sandbox::new();
    // Passing through touches no store at all.
    s.run(&["wrap"], "small\n").status(0);
    assert!(!s.store_root().exists());
    let a = wrap(&s, &[], text(1, 30_000));
    let stamp = s.store_root().join(".expiry-stamp");
    assert!(stamp.exists(), "the first spill runs the pass");
    let b = wrap(&s, &[], text(2, 30_000));
    age(&meta_of(&s, "default", &a), Duration::from_secs(2 * 86400));
    age(&meta_of(&s, "default", &b), Duration::from_secs(2 * 86400));
    // Within a minute of the last pass: nothing expires yet.
    wrap(&s, &[], text(3, 30_000));
    assert!(payload_of(&s, "default", &a).exists());
    // A minute later, the next spill (of any scope) expires both.
    age(&stamp, Duration::from_secs(61));
    wrap(&s, &["--scope", "elsewhere"], text(4, 30_000));
    assert!(!payload_of(&s, "default", &a).exists());
    assert!(!payload_of(&s, "default", &b).exists());
    assert_gone(&s.run(&["cat", &b], ""), "has expired");
}

#[test]
fn quota_evicts_least_recently_used_entries_of_any_scope_ties_by_creation() {
    let s = Sandbox::new();
    let quota = ["--quota", "300K"];
    let a = wrap(&s, &quota, text(1, 100_000));
    let b = wrap(
        &s,
        &[&quota[..], &["--scope", "other"]].concat(),
        text(2, 100_000),
    );
    let c = wrap(&s, &quota, text(3, 100_000));
    // a was read last; b and c were last read at the same moment, b created first.
    let t = SystemTime::now() - Duration::from_secs(600);
    for (scope, r) in [("other", &b), ("default", &c)] {
        fs::File::options()
            .write(true)
            .open(meta_of(&s, scope, r))
            .unwrap()
            .set_modified(t)
            .unwrap();
    }
    age(&payload_of(&s, "other", &b), Duration::from_secs(900));
    age(&payload_of(&s, "default", &c), Duration::from_secs(800));
    let d = wrap(&s, &quota, text(4, 100_000));
    assert_gone(
        &s.run(&["cat", &b, "--scope", "other"], ""),
        "has been evicted",
    );
    for r in [&a, &c, &d] {
        s.run(&["cat", r, "--lines", "1:1"], "").status(0);
    }
    // The next one evicts the least recently read: a (c and d were just read after it).
    let e = wrap(&s, &quota, text(5, 100_000));
    assert_gone(&s.run(&["cat", &a], ""), "has been evicted");
    let ls = s.run(&["ls", "--json", "--all-scopes"], "").json();
    let mut refs: Vec<&str> = ls["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["ref"].as_str().unwrap())
        .collect();
    refs.sort();
    let mut want = vec![c.as_str(), d.as_str(), e.as_str()];
    want.sort();
    assert_eq!(refs, want);
}

#[test]
fn the_quota_counts_stored_bytes_and_refuses_what_can_never_fit() {
    let s = Sandbox::new();
    // Capped payloads count as what is stored (about 64 KiB each), not the 300 KB input.
    let args = ["--quota", "256K", "--max-file", "64K"];
    let refs: Vec<String> = (0..3).map(|i| wrap(&s, &args, text(i, 300_000))).collect();
    for r in &refs {
        s.run(&["cat", r, "--lines", "1:1"], "").status(0);
    }
    // A quota below --max-file caps payloads to fit it rather than refusing them.
    let env = s
        .run(&["wrap", "--quota", "8K"], text(9, 300_000))
        .status(0)
        .json();
    assert_eq!(env["spilled"], true, "{env}");
    assert!(env["storedBytes"].as_u64().unwrap() <= 8192, "{env}");
    // A quota too small for even the marker of a capped payload: the degraded envelope.
    let r = s.run(&["wrap", "--quota", "50"], text(10, 30_000));
    r.status(0);
    let env = r.json();
    assert_eq!(env["spilled"], false, "{env}");
    assert!(env["error"].as_str().unwrap().contains("quota"), "{env}");
    assert!(r.stderr.contains("spill: warning: "), "{}", r.stderr);
}

#[test]
fn gc_dry_run_reports_and_changes_nothing_then_gc_removes() {
    let s = Sandbox::new();
    let old = wrap(&s, &[], text(1, 40_000));
    let fresh = wrap(&s, &[], text(2, 40_000));
    age(
        &meta_of(&s, "default", &old),
        Duration::from_secs(2 * 86400),
    );
    // A temporary file left by a crashed writer (nobody holds its lock).
    let stale = scope_dir(&s, "default").join(".tmp-999999-0-crashed");
    fs::write(&stale, vec![b'x'; 1234]).unwrap();
    // One a live writer holds: never touched.
    let live_path = scope_dir(&s, "default").join(".tmp-live-writer");
    let live = fs::File::create(&live_path).unwrap();
    assert_eq!(
        unsafe {
            libc::flock(
                std::os::fd::AsRawFd::as_raw_fd(&live),
                libc::LOCK_EX | libc::LOCK_NB,
            )
        },
        0
    );

    let dry = s.run(&["gc", "--dry-run"], "").status(0).out();
    let lines: Vec<&str> = dry.lines().collect();
    assert_eq!(lines.len(), 3, "{dry}");
    assert_eq!(lines[0], format!("{old}  default  39.1 KiB  expired"));
    assert_eq!(lines[1], ".tmp-999999-0-crashed  default  1.2 KiB  temp");
    assert_eq!(lines[2], "would free 41,234 bytes (0.0 MiB)");
    assert!(payload_of(&s, "default", &old).exists() && stale.exists());
    let json = s.run(&["gc", "--dry-run", "--json"], "").status(0).json();
    assert_eq!(json["dryRun"], true);
    assert_eq!(json["count"], 2);
    assert_eq!(json["freedBytes"], 41_234);
    assert_eq!(json["removed"][0]["ref"], old.as_str());
    assert_eq!(json["removed"][0]["reason"], "expired");
    assert_eq!(json["removed"][1]["file"], ".tmp-999999-0-crashed");

    let real = s.run(&["gc", "--json"], "").status(0).json();
    assert_eq!(real["dryRun"], false);
    assert_eq!(real["count"], 2);
    assert_eq!(real["usageBytes"], 40_000);
    assert_eq!(real["quotaBytes"], 1u64 << 30);
    assert!(!payload_of(&s, "default", &old).exists() && !stale.exists());
    assert!(live_path.exists(), "a live writer's file is kept");
    s.run(&["cat", &fresh, "--lines", "1:1"], "").status(0);
    assert_eq!(
        s.run(&["gc"], "").status(0).out(),
        "freed 0 bytes (0.0 MiB)\n"
    );
    // Unlocked, it is stale at once. Unlock explicitly: a child forked by a parallel test may
    // still share this open file description (until it execs), so closing ours would not
    // release the lock in time.
    assert_eq!(
        unsafe { libc::flock(std::os::fd::AsRawFd::as_raw_fd(&live), libc::LOCK_UN) },
        0
    );
    drop(live);
    assert!(
        s.run(&["gc"], "")
            .out()
            .contains(".tmp-live-writer  default  0 B  temp")
    );
}

#[test]
fn gc_covers_the_current_scope_unless_all_scopes_and_refuses_that_in_restricted_mode() {
    let s = Sandbox::new();
    let mine = wrap(&s, &[], text(1, 40_000));
    let theirs = wrap(&s, &["--scope", "other"], text(2, 40_000));
    age(
        &meta_of(&s, "default", &mine),
        Duration::from_secs(2 * 86400),
    );
    age(
        &meta_of(&s, "other", &theirs),
        Duration::from_secs(2 * 86400),
    );
    let out = s.run(&["gc"], "").status(0).out();
    assert!(out.contains(&mine) && !out.contains(&theirs), "{out}");
    let out = s.run(&["gc", "--all-scopes"], "").status(0).out();
    assert!(out.contains(&format!("{theirs}  other  ")), "{out}");
    let r = s
        .cmd(&["gc", "--all-scopes"])
        .env("SPILL_RESTRICTED", "1")
        .run();
    r.status(2);
    assert!(r.stderr.contains("restricted mode"), "{}", r.stderr);
    // The --ttl override: everything not read in the last second.
    let again = wrap(&s, &[], text(3, 40_000));
    age(&meta_of(&s, "default", &again), Duration::from_secs(5));
    assert!(s.run(&["gc", "--ttl", "1s"], "").out().contains(&again));
    // An empty or missing store is fine.
    let empty = Sandbox::new();
    assert_eq!(
        empty.run(&["gc"], "").status(0).out(),
        "freed 0 bytes (0.0 MiB)\n"
    );
}

#[test]
fn gc_prunes_tombstones_older_than_a_week_and_beyond_ten_thousand() {
    let s = Sandbox::new();
    wrap(&s, &[], text(1, 30_000));
    let dir = scope_dir(&s, "default");
    for i in 0..10_010u64 {
        fs::write(dir.join(format!("{i:016x}.gone")), "removed 0\n").unwrap();
    }
    let ancient = dir.join(format!("{:016x}.gone", 5u64));
    age(&ancient, Duration::from_secs(8 * 86400));
    // The ten oldest beyond the limit go; the week-old one goes by age.
    for i in 100..109u64 {
        age(
            &dir.join(format!("{i:016x}.gone")),
            Duration::from_secs(86400 + i),
        );
    }
    let json = s.run(&["gc", "--json"], "").status(0).json();
    assert_eq!(json["tombstonesPruned"], 10);
    let left = fs::read_dir(&dir)
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .file_name()
                .to_string_lossy()
                .ends_with(".gone")
        })
        .count();
    assert_eq!(left, 10_000);
    assert!(!ancient.exists());
    for i in 100..109u64 {
        assert!(!dir.join(format!("{i:016x}.gone")).exists(), "{i}");
    }
}

#[test]
fn planted_symbolic_links_in_the_root_are_never_followed() {
    let s = Sandbox::new();
    wrap(&s, &[], text(1, 30_000));
    let root = s.store_root();
    let target = s.path().join("victim");
    fs::write(&target, "keep me\n").unwrap();
    // The lock file: publishing refuses (the degraded envelope); the target is untouched.
    fs::remove_file(root.join(".lock")).unwrap();
    std::os::unix::fs::symlink(&target, root.join(".lock")).unwrap();
    let r = s.run(&["wrap", "--max-inline", "1K"], text(2, 30_000));
    r.status(0);
    assert_eq!(r.json()["spilled"], false);
    assert!(r.stderr.contains("spill: warning: "), "{}", r.stderr);
    fs::remove_file(root.join(".lock")).unwrap();
    // The expiry stamp: the pass is skipped, the spill still works.
    fs::remove_file(root.join(".expiry-stamp")).unwrap();
    std::os::unix::fs::symlink(&target, root.join(".expiry-stamp")).unwrap();
    wrap(&s, &[], text(3, 30_000));
    // A turn ledger, as a symbolic link and then as a hard link (which would otherwise be
    // rewritten in place): the output passes through, with a warning.
    let ledger_dir = root.join("default");
    let hash = blake3::hash(b"t");
    let ledger = ledger_dir.join(format!(".turn-{}", &hash.to_hex()[..16]));
    let plants: [fn(&Path, &Path) -> std::io::Result<()>; 2] = [
        |t, l| std::os::unix::fs::symlink(t, l),
        |t, l| fs::hard_link(t, l),
    ];
    for plant in plants {
        let _ = fs::remove_file(&ledger);
        plant(&target, &ledger).unwrap();
        let r = s.run(&["wrap", "--turn", "t"], "small\n");
        assert_eq!(r.out(), "small\n");
        assert!(
            r.stderr.contains("turn budget was not applied"),
            "{}",
            r.stderr
        );
        assert_eq!(fs::read_to_string(&target).unwrap(), "keep me\n");
    }
}

/// A temporary file as a live writer holds it: created and `flock`ed by this test process.
fn live_temp(path: &Path, size: usize) -> fs::File {
    use std::os::fd::AsRawFd;
    fs::write(path, vec![b't'; size]).unwrap();
    let file = fs::File::open(path).unwrap();
    // SAFETY: flock on a descriptor owned by `file`; released when it is dropped.
    assert_eq!(
        unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) },
        0
    );
    file
}

#[test]
fn temporary_files_count_against_the_quota() {
    let s = Sandbox::new();
    wrap(&s, &["--scope", "b"], text(0, 5_000));
    // Another writer has 600,000 bytes in flight in scope b.
    let _writer = live_temp(&scope_dir(&s, "b").join(".tmp-inflight"), 600_000);
    let quota = ["--quota", "1000000"];
    let first = wrap(
        &s,
        &[&quota[..], &["--scope", "a"]].concat(),
        text(1, 250_000),
    );
    // 5,000 + 250,000 + 250,000 stored bytes fit a 1,000,000-byte quota only if the 600,000
    // bytes being written are not counted: they are, so the least recently used entries go.
    let second = wrap(
        &s,
        &[&quota[..], &["--scope", "a"]].concat(),
        text(2, 250_000),
    );
    assert_gone(
        &s.run(&["cat", &first, "--scope", "a"], ""),
        "has been evicted",
    );
    s.run(&["cat", &second, "--scope", "a"], "").status(0);
    // gc counts them too: usageBytes is what the root holds on disk.
    let gc = s
        .run(&["gc", "--json", "--all-scopes", "--quota", "1000000"], "")
        .status(0)
        .json();
    assert_eq!(gc["usageBytes"], 850_000, "{gc}");
    assert_eq!(gc["count"], 0, "{gc}");
}

#[test]
fn wraps_housekeeping_sweeps_stale_temporary_files() {
    let s = Sandbox::new();
    wrap(&s, &[], text(0, 5_000));
    wrap(&s, &["--scope", "other"], text(1, 5_000));
    let root = s.store_root();
    // A crashed writer's file (nobody holds its lock) in two scopes and in the root, one held
    // but untouched for two hours, and one a live writer holds.
    let crashed = [
        scope_dir(&s, "default").join(".tmp-crashed"),
        scope_dir(&s, "other").join(".tmp-crashed"),
        root.join(".tmp-crashed"),
    ];
    for c in &crashed {
        fs::write(c, b"partial").unwrap();
    }
    let stale_path = scope_dir(&s, "default").join(".tmp-held-long");
    let _stale = live_temp(&stale_path, 10);
    age(&stale_path, Duration::from_secs(2 * 3600));
    let live_path = scope_dir(&s, "default").join(".tmp-live");
    let _live = live_temp(&live_path, 10);
    // The pass is due (its stamp is two minutes old); a spilling wrap runs it.
    age(&root.join(".expiry-stamp"), Duration::from_secs(120));
    wrap(&s, &[], text(2, 5_000));
    for c in crashed.iter().chain([&stale_path]) {
        assert!(
            !c.exists(),
            "{} survived the housekeeping pass",
            c.display()
        );
    }
    assert!(live_path.exists(), "a live writer's file was swept");
}

#[test]
fn the_housekeeping_pass_never_sweeps_the_publishing_writers_own_file() {
    use std::io::Write;
    let s = Sandbox::new();
    wrap(&s, &[], text(0, 5_000));
    // A writer whose input paused for over an hour: its temporary file is old when it
    // publishes, and the housekeeping pass it runs then must not take it for a stale one.
    // wrap writes the first --max-inline + 1 bytes, then whole 1 MiB chunks: with this size all
    // of the input is on disk before it ends, so nothing touches the file after it is aged.
    let input = text(1, 1025 + (1 << 20));
    let mut child = s.cmd(&["wrap", "--max-inline", "1K"]).spawn_piped();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(&input).unwrap();
    let dir = scope_dir(&s, "default");
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    let temp = loop {
        let full = fs::read_dir(&dir).unwrap().flatten().find(|e| {
            e.file_name().to_string_lossy().starts_with(".tmp-")
                && e.metadata().is_ok_and(|m| m.len() == input.len() as u64)
        });
        if let Some(e) = full {
            break e.path();
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the input was not written"
        );
        std::thread::sleep(Duration::from_millis(5));
    };
    age(&temp, Duration::from_secs(2 * 3600));
    age(
        &s.store_root().join(".expiry-stamp"),
        Duration::from_secs(120),
    );
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    let env: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(env["spilled"], true, "{env}");
    let r = env["ref"].as_str().unwrap();
    assert_eq!(
        s.run(
            &["cat", r, "--raw", "--bytes", "0:", "--max-bytes", "2M"],
            ""
        )
        .status(0)
        .stdout,
        input
    );
}
