//! Fault injection: a full file system, a read-only store, the store deleted mid-run, stdout or
//! stdin closed early, and two `gc` runs racing. Every case must end with a degraded envelope or
//! a clear error, leave no partial payload under a final name, and lose nothing stored before.
//! (SIGKILL mid-write is in `concurrency.rs`.)
//!
//! The file-system cases mount a small tmpfs when the test runs as root in a sandbox that allows
//! it; elsewhere they print a note and emulate what they can (a tiny `--quota`, an unwritable
//! `/proc` directory).

use std::fs;
use std::io::Write;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::{Sandbox, assert_no_partial_payload, lines_of_text, ref_of, spilled};

/// A tmpfs mounted for one test, unmounted when dropped (also when the test fails).
struct Mount(PathBuf);

impl Mount {
    /// Mounts a tmpfs of `size` at `dir`, or `None` (with a printed note) when not permitted.
    fn tmpfs(dir: &Path, size: &str) -> Option<Mount> {
        fs::create_dir_all(dir).unwrap();
        let ok = Command::new("mount")
            .args([
                "-t",
                "tmpfs",
                "-o",
                &format!("size={size},mode=0700"),
                "tmpfs",
            ])
            .arg(dir)
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if !ok {
            println!("note: cannot mount a tmpfs here (not root or not permitted); emulating");
            return None;
        }
        Some(Mount(dir.to_path_buf()))
    }

    /// Remounts read-only.
    fn read_only(&self) {
        let status = Command::new("mount")
            .args(["-o", "remount,ro"])
            .arg(&self.0)
            .status()
            .unwrap();
        assert!(status.success(), "remount read-only failed");
    }
}

impl Drop for Mount {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(&self.0).status();
    }
}

/// Reads a stored payload back in full through `spill cat`.
fn read_back(s: &Sandbox, root: &Path, r: &str) -> Vec<u8> {
    let run = s
        .cmd(&["cat", r, "--raw", "--bytes", "0:", "--max-bytes", "64M"])
        .env("SPILL_DIR", root)
        .run();
    run.status(0);
    run.stdout
}

/// Stores `input` in `root` and returns its ref.
fn store(s: &Sandbox, root: &Path, input: &[u8]) -> String {
    spilled(
        s.cmd(&["wrap", "--max-inline", "0"])
            .env("SPILL_DIR", root)
            .stdin(input.to_vec()),
    )
}

#[test]
fn a_full_file_system_degrades_and_keeps_what_was_stored() {
    let s = Sandbox::new();
    let root = s.path().join("small");
    let before = lines_of_text(8000); // about 450 KiB
    let big = lines_of_text(60_000); // about 3.4 MiB: more than the file system holds
    let Some(_mount) = Mount::tmpfs(&root, "2m") else {
        // Emulation: a quota smaller than the output; the payload is capped, never lost silently.
        let r = store(&s, &root, &before);
        let env = s
            .cmd(&["wrap", "--quota", "1M"])
            .env("SPILL_DIR", &root)
            .stdin(big.clone())
            .run()
            .status(0)
            .json();
        assert_eq!(env["complete"], false, "{env}");
        assert_eq!(env["sizeBytes"], big.len());
        let _ = r;
        return;
    };
    let r = store(&s, &root, &before);
    let run = s
        .cmd(&["wrap"])
        .env("SPILL_DIR", &root)
        .stdin(big.clone())
        .run();
    run.status(0);
    let env = run.json();
    assert_eq!(env["spilled"], false, "{env}");
    assert!(env["error"].is_string(), "{env}");
    assert_eq!(env["sizeBytes"], big.len());
    assert_eq!(env["lines"], 60_000);
    assert!(env.get("ref").is_none() && env.get("hint").is_none());
    assert_eq!(
        run.stderr.matches("spill: warning: ").count(),
        1,
        "{}",
        run.stderr
    );
    // The earlier payload is intact, no temporary file or partial payload is left behind.
    assert_eq!(read_back(&s, &root, &r), before);
    let scope = root.join("default");
    assert_no_partial_payload(&scope);
    let temps: Vec<_> = fs::read_dir(&scope)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with(".tmp-"))
        .collect();
    assert!(temps.is_empty(), "temporary files left on a full disk");
    // And the store still works for output that fits.
    let small = lines_of_text(1000);
    let r2 = store(&s, &root, &small);
    assert_eq!(read_back(&s, &root, &r2), small);
}

#[test]
fn a_read_only_store_degrades_writes_and_still_reads() {
    let s = Sandbox::new();
    let root = s.path().join("ro");
    let before = lines_of_text(3000);
    let Some(mount) = Mount::tmpfs(&root, "8m") else {
        // /proc directories cannot be written even by root.
        let env = s
            .cmd(&["wrap"])
            .env("SPILL_DIR", "/proc/1")
            .stdin(before.clone())
            .run()
            .status(0)
            .json();
        assert_eq!(env["spilled"], false, "{env}");
        return;
    };
    let r = store(&s, &root, &before);
    mount.read_only();
    let run = s
        .cmd(&["wrap"])
        .env("SPILL_DIR", &root)
        .stdin(lines_of_text(4000))
        .run();
    run.status(0);
    let env = run.json();
    assert_eq!(env["spilled"], false, "{env}");
    assert!(env["error"].is_string(), "{env}");
    assert_eq!(env["lines"], 4000);
    assert!(run.stderr.starts_with("spill: warning: "), "{}", run.stderr);
    // Reading still works (refreshing the last access is best effort).
    assert_eq!(read_back(&s, &root, &r), before);
    let ls = s.cmd(&["ls", "--json"]).env("SPILL_DIR", &root).run();
    ls.status(0);
    assert_eq!(ls.json()["count"], 1);
    // Deleting cannot work: a clear error, and the payload is still there.
    let rm = s.cmd(&["rm", &r]).env("SPILL_DIR", &root).run();
    assert!(matches!(rm.code, Some(0 | 2)), "{rm:?}");
    if rm.code == Some(2) {
        assert!(rm.stderr.starts_with("spill: "), "{}", rm.stderr);
    }
    let gc = s.cmd(&["gc", "--ttl", "0s"]).env("SPILL_DIR", &root).run();
    assert!(matches!(gc.code, Some(0 | 2)), "{gc:?}");
    if gc.code == Some(2) {
        assert!(gc.stderr.starts_with("spill: "), "{}", gc.stderr);
    }
    assert_eq!(read_back(&s, &root, &r), before);
}

#[test]
fn the_store_deleted_mid_run_loses_no_input() {
    let s = Sandbox::new();
    let root = s.path().join("vanishing");
    let earlier = store(&s, &root, &lines_of_text(500));
    let mut cmd = s.cmd(&["wrap", "--max-inline", "1K"]).into_command();
    cmd.env("SPILL_DIR", &root)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let input = lines_of_text(20_000);
    let (first, rest) = input.split_at(300_000);
    stdin.write_all(first).unwrap();
    // Wait until the payload is being written, then delete the whole store under it.
    let scope = root.join("default");
    let deadline = Instant::now() + Duration::from_secs(20);
    while !fs::read_dir(&scope)
        .unwrap()
        .flatten()
        .any(|e| e.file_name().to_string_lossy().starts_with(".tmp-"))
    {
        assert!(Instant::now() < deadline, "no temporary file appeared");
        std::thread::sleep(Duration::from_millis(5));
    }
    fs::remove_dir_all(&root).unwrap();
    stdin.write_all(rest).unwrap();
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let env: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(env["sizeBytes"], input.len(), "{env}");
    if env["spilled"] == true {
        // Published after all (the store was recreated): then it must be whole.
        assert_eq!(read_back(&s, &root, env["ref"].as_str().unwrap()), input);
    } else {
        assert!(env["error"].is_string(), "{env}");
        assert!(stderr.starts_with("spill: warning: "), "{stderr}");
    }
    assert_no_partial_payload(&scope);
    // The earlier entry went with the directory: reading it is a clear error, not a crash.
    let r = s.cmd(&["cat", &earlier]).env("SPILL_DIR", &root).run();
    r.status(2);
    assert!(r.stderr.starts_with("spill: "), "{}", r.stderr);
}

/// Runs `spill ARGS…` with stdout a pipe whose reading end is already closed.
fn with_closed_stdout(s: &Sandbox, args: &[&str], input: &[u8]) -> (Option<i32>, String) {
    // The reading end is closed before the child starts, so its very first write fails.
    let mut fds = [0; 2];
    // SAFETY: pipe(2) fills the two descriptors, which are then owned here.
    assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
    let (read_end, write_end) = unsafe {
        use std::os::fd::FromRawFd;
        (
            std::os::fd::OwnedFd::from_raw_fd(fds[0]),
            std::os::fd::OwnedFd::from_raw_fd(fds[1]),
        )
    };
    drop(read_end);
    let mut cmd = s.cmd(args).into_command();
    cmd.stdin(Stdio::piped())
        .stdout(Stdio::from(write_end))
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_closed_stdout_ends_quietly_and_the_payload_is_still_stored() {
    let s = Sandbox::new();
    let big = lines_of_text(40_000);
    let path = s.file("big.txt", &big);
    let p = path.to_str().unwrap();
    let json: String = format!(
        "{{\"items\":[{}]}}",
        (0..20_000)
            .map(|i| format!("{{\"id\":{i}}}"))
            .collect::<Vec<_>>()
            .join(",")
    );
    let json_path = s.file("big.json", json);
    let j = json_path.to_str().unwrap();
    // wrap drains its input and stores it even when nobody reads the envelope.
    let (code, stderr) = with_closed_stdout(&s, &["wrap"], &big);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(read_back(&s, &s.store_root(), &ref_of(&big)), big);
    // Pass-through into a closed pipe.
    let (code, stderr) = with_closed_stdout(&s, &["wrap"], b"small\n");
    assert_eq!(code, Some(0), "{stderr}");
    for args in [
        vec!["cat", p],
        vec!["cat", "--lines", "1:", "--max-bytes", "8M", p],
        vec!["cat", "--hex", p],
        vec!["shape", j],
        vec!["shape", "--paths", j],
        vec!["ls"],
    ] {
        let (code, stderr) = with_closed_stdout(&s, &args, b"");
        assert_eq!(code, Some(0), "{args:?}: {stderr}");
        assert!(stderr.is_empty(), "{args:?}: {stderr}");
    }
}

#[test]
fn stdin_closed_early_or_missing_is_handled() {
    let s = Sandbox::new();
    // A producer that dies mid-document: what arrived is stored, exactly.
    let doc = lines_of_text(10_000);
    let cut = &doc[..123_457];
    let env = s.run(&["wrap"], cut.to_vec()).status(0).json();
    assert_eq!(env["sizeBytes"], cut.len());
    assert_eq!(
        read_back(&s, &s.store_root(), env["ref"].as_str().unwrap()),
        cut
    );
    // A JSON document cut short through `-`: a text shape or a clear error, never a crash.
    let json: Vec<u8> = format!(
        "{{\"items\":[{}",
        (0..5000)
            .map(|i| format!("{{\"id\":{i}}},"))
            .collect::<String>()
    )
    .into_bytes();
    for args in [&["shape", "-"][..], &["cat", "-"], &["wrap"]] {
        let r = s.run(args, json.clone());
        assert!(matches!(r.code, Some(0 | 2)), "{args:?}: {r:?}");
        if r.code == Some(2) {
            assert!(r.stderr.starts_with("spill: "), "{}", r.stderr);
        }
    }
    // File descriptor 0 closed altogether: a clear error or an empty input, never a panic.
    for args in [&["wrap"][..], &["shape", "-"], &["cat", "-"]] {
        let mut cmd = s.cmd(args).into_command();
        // SAFETY: close(2) is async-signal-safe; the child only closes its own descriptor 0.
        unsafe {
            cmd.pre_exec(|| {
                libc::close(0);
                Ok(())
            });
        }
        let out = cmd
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            matches!(out.status.code(), Some(0 | 2)),
            "{args:?}: {stderr}"
        );
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        if out.status.code() == Some(2) {
            assert!(stderr.starts_with("spill: "), "{args:?}: {stderr}");
        }
    }
}

#[test]
fn two_gc_runs_racing_lose_nothing_live_and_report_each_entry_once() {
    let s = Sandbox::new();
    let inputs: Vec<Vec<u8>> = (0..24)
        .map(|i| {
            let mut v = lines_of_text(400 + i);
            v.extend_from_slice(format!("entry {i}\n").as_bytes());
            v
        })
        .collect();
    let refs: Vec<String> = inputs
        .iter()
        .map(|i| store(&s, &s.store_root(), i))
        .collect();
    let race = |args: &[&str]| {
        let children: Vec<_> = (0..2)
            .map(|_| {
                s.cmd(args)
                    .into_command()
                    .stdin(Stdio::null())
                    .stdout(Stdio::piped())
                    .stderr(Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
        children
            .into_iter()
            .map(|c| c.wait_with_output().unwrap())
            .collect::<Vec<_>>()
    };
    // Nothing has expired: two racing collections remove nothing.
    for out in race(&["gc"]) {
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    for (r, input) in refs.iter().zip(&inputs) {
        assert_eq!(&read_back(&s, &s.store_root(), r), input);
    }
    // Everything expired: between them they remove each entry exactly once.
    let outs = race(&["gc", "--ttl", "0s"]);
    let mut removed: Vec<String> = Vec::new();
    for out in &outs {
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        removed.extend(
            String::from_utf8_lossy(&out.stdout)
                .lines()
                .filter(|l| l.starts_with("sp_"))
                .map(|l| l.split_whitespace().next().unwrap().to_string()),
        );
    }
    removed.sort();
    let mut want = refs.clone();
    want.sort();
    assert_eq!(removed, want);
    let ls = s.run(&["ls", "--json"], "").status(0).json();
    assert_eq!(ls["count"], 0);
    assert_no_partial_payload(&s.store_root().join("default"));
}

#[test]
fn a_disk_that_fills_between_the_payload_and_its_record_leaves_nothing_readable() {
    let s = Sandbox::new();
    let root = s.path().join("tiny");
    let Some(_mount) = Mount::tmpfs(&root, "1m") else {
        // Without a tmpfs, `tests/store.rs` `an_entry_whose_record_cannot_be_written_is_not_readable`
        // makes the record's rename fail instead.
        return;
    };
    let earlier = lines_of_text(100);
    let r0 = store(&s, &root, &earlier);
    // Fill the file system, then free exactly sixteen pages: room for a 64 KiB payload, and
    // none left for its record.
    let filler_path = root.join("filler");
    let mut filler = fs::File::create(&filler_path).unwrap();
    let page = vec![b'f'; 4096];
    while filler.write_all(&page).is_ok() {}
    let len = filler.metadata().unwrap().len();
    filler.set_len(len - 16 * 4096).unwrap();
    let input: Vec<u8> = (0..16 * 4096).map(|i| b'a' + (i % 26) as u8).collect();
    let run = s
        .cmd(&["wrap", "--max-inline", "0"])
        .env("SPILL_DIR", &root)
        .stdin(input.clone())
        .run();
    run.status(0);
    let env = run.json();
    assert_eq!(env["spilled"], false, "{env}");
    assert_eq!(env["sizeBytes"], input.len());
    // Not readable by ref, nothing under its final name, no temporary file left.
    let r = ref_of(&input);
    let read = s.cmd(&["cat", &r]).env("SPILL_DIR", &root).run();
    read.status(2);
    assert!(read.stdout.is_empty());
    let scope = root.join("default");
    assert!(fs::symlink_metadata(scope.join(&r[3..])).is_err());
    assert_no_partial_payload(&scope);
    let names: Vec<String> = fs::read_dir(&scope)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert!(!names.iter().any(|n| n.starts_with(".tmp-")), "{names:?}");
    // What was stored before is intact, and with room again the same output is stored whole.
    assert_eq!(read_back(&s, &root, &r0), earlier);
    drop(filler);
    fs::remove_file(&filler_path).unwrap();
    let r1 = store(&s, &root, &input);
    assert_eq!(r1, r);
    assert_eq!(read_back(&s, &root, &r), input);
}
