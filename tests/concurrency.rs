//! Concurrency and crash safety: many `wrap` processes with `gc` and `rm` running at the same
//! time, and a `wrap` killed with SIGKILL in the middle of a write.

use std::collections::HashSet;
use std::fs;
use std::io::Write;
use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::common::{Sandbox, assert_no_partial_payload, ref_of};

fn input(seed: usize, n: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(n + 64);
    let mut i = 0;
    while out.len() < n {
        out.extend_from_slice(format!("writer {seed} line {i:06} lorem ipsum dolor\n").as_bytes());
        i += 1;
    }
    out.truncate(n);
    out
}

/// Names in the scope directories (and the root) starting with `.tmp-`.
fn temp_files(root: &std::path::Path) -> Vec<String> {
    let mut found = Vec::new();
    for dir in std::iter::once(root.to_path_buf()).chain(
        fs::read_dir(root)
            .unwrap()
            .flatten()
            .filter(|e| e.file_type().unwrap().is_dir())
            .map(|e| e.path()),
    ) {
        for e in fs::read_dir(&dir).unwrap().flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if name.starts_with(".tmp-") {
                found.push(format!("{}/{name}", dir.display()));
            }
        }
    }
    found
}

/// Reads a ref back in full through `spill cat`: its bytes, or the exit-2 message.
fn read_back(s: &Sandbox, scope: &str, r: &str) -> Result<Vec<u8>, String> {
    let run = s
        .cmd(&[
            "cat",
            r,
            "--scope",
            scope,
            "--raw",
            "--bytes",
            "0:",
            "--max-bytes",
            "64M",
        ])
        .run();
    match run.code {
        Some(0) => Ok(run.stdout),
        Some(2) => Err(run.stderr),
        other => panic!("cat {r} exited {other:?}: {}", run.stderr),
    }
}

/// Sets the flag when dropped (also while unwinding from a failed assertion).
struct StopOnDrop<'a>(&'a std::sync::atomic::AtomicBool);

impl Drop for StopOnDrop<'_> {
    fn drop(&mut self) {
        self.0.store(true, std::sync::atomic::Ordering::Relaxed);
    }
}

/// Runs `spill ARGS…` again and again until `stop` is set (at least once); returns how many
/// runs there were. Exit statuses 0 and 2 are the only ones allowed.
fn keep_running(s: &Sandbox, args: &[String], stop: &std::sync::atomic::AtomicBool) -> usize {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let mut runs = 0;
    while runs == 0 || !stop.load(std::sync::atomic::Ordering::Relaxed) {
        let status = s
            .cmd(&args)
            .into_command()
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .unwrap();
        // rm of a ref that is not (or no longer) stored exits 2; gc never fails.
        assert!(matches!(status.code(), Some(0 | 2)), "{args:?}: {status:?}");
        runs += 1;
    }
    runs
}

#[test]
fn parallel_writers_with_gc_and_rm_never_corrupt_or_lose_a_payload() {
    let s = Sandbox::new();
    // 32 writers: 16 distinct outputs, 4 outputs written 4 times each; two scopes.
    let mut jobs: Vec<(String, Vec<u8>)> = Vec::new();
    for i in 0..16 {
        let scope = if i % 2 == 0 { "a" } else { "b" };
        jobs.push((scope.into(), input(i, 40_000 + i * 7_919)));
    }
    for i in 0..4 {
        for _ in 0..4 {
            jobs.push(("a".into(), input(100 + i, 120_000)));
        }
    }
    let doomed: Vec<String> = jobs.iter().step_by(5).map(|(_, b)| ref_of(b)).collect();
    let started = Instant::now();
    // gc and rm in loops for as long as the writers run (each runs at least once).
    let stop = std::sync::atomic::AtomicBool::new(false);
    let gc_args = ["gc", "--all-scopes", "--quota", "1M"].map(String::from);
    let mut rm_args = vec!["rm".to_string(), "--scope".into(), "a".into()];
    rm_args.extend(doomed.iter().cloned());
    let published = std::thread::scope(|t| {
        // A failing assertion below must still end the loops, or the scope would never end.
        let _stop_loops = StopOnDrop(&stop);
        let gc_loop = t.spawn(|| keep_running(&s, &gc_args, &stop));
        let rm_loop = t.spawn(|| keep_running(&s, &rm_args, &stop));
        // Every writer gets its whole input, then all inputs end at once, so the writers publish
        // (and evict) at nearly the same moment.
        let barrier = std::sync::Arc::new(std::sync::Barrier::new(jobs.len()));
        let mut children = Vec::new();
        for (scope, bytes) in &jobs {
            // A quota below the total makes publishers evict each other too.
            let mut cmd = s
                .cmd(&[
                    "wrap",
                    "--max-inline",
                    "1K",
                    "--quota",
                    "1M",
                    "--scope",
                    scope,
                ])
                .into_command();
            cmd.stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped());
            let mut child = cmd.spawn().unwrap();
            let mut stdin = child.stdin.take().unwrap();
            let bytes = bytes.clone();
            let barrier = std::sync::Arc::clone(&barrier);
            let feeder = std::thread::spawn(move || {
                // Several writes, so writers interleave.
                for part in bytes.chunks(16 * 1024) {
                    stdin.write_all(part).unwrap();
                }
                barrier.wait();
                drop(stdin);
            });
            children.push((child, feeder));
        }
        let mut published: Vec<(String, String, &Vec<u8>)> = Vec::new();
        for ((child, feeder), (scope, bytes)) in children.into_iter().zip(&jobs) {
            feeder.join().unwrap();
            let out = child.wait_with_output().unwrap();
            assert_eq!(out.status.code(), Some(0));
            assert_eq!(String::from_utf8_lossy(&out.stderr), "");
            let env: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
            assert_eq!(env["spilled"], true, "{env}");
            assert_eq!(
                env["ref"],
                ref_of(bytes).as_str(),
                "the ref names the content"
            );
            assert_eq!(env["sizeBytes"], bytes.len());
            // Read back at once, while the others still write and gc and rm keep running: the
            // very bytes, or a clean "removed" or "evicted".
            let r = env["ref"].as_str().unwrap();
            match read_back(&s, scope, r) {
                Ok(stored) => assert!(stored == **bytes, "{r} in {scope} read back different"),
                Err(why) => assert!(
                    why.contains("has been removed") || why.contains("has been evicted"),
                    "{r}: {why}"
                ),
            }
            published.push((scope.clone(), r.to_string(), bytes));
        }
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        assert!(gc_loop.join().unwrap() >= 1);
        assert!(rm_loop.join().unwrap() >= 1);
        published
    });
    assert!(started.elapsed() < Duration::from_secs(60));

    let root = s.store_root();
    assert_eq!(temp_files(&root), Vec::<String>::new());
    // Every payload on disk is exactly its input; every missing one says why.
    let mut on_disk = 0;
    for (scope, r, bytes) in &published {
        let path = root.join(scope).join(&r[3..]);
        match fs::read(&path) {
            Ok(stored) => {
                assert!(stored == **bytes, "{r} in {scope} is corrupt");
                on_disk += 1;
            }
            Err(_) => {
                let why = fs::read_to_string(root.join(scope).join(format!("{}.gone", &r[3..])))
                    .unwrap_or_else(|_| panic!("{r} vanished without a tombstone"));
                assert!(
                    why.starts_with("removed") || why.starts_with("evicted"),
                    "{why}"
                );
            }
        }
    }
    assert!(on_disk > 0);
    // ls agrees with the disk: every listed entry has its payload and vice versa, in quota.
    let ls = s
        .run(&["ls", "--json", "--all-scopes"], "")
        .status(0)
        .json();
    let listed: HashSet<(String, String)> = ls["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["scope"].as_str().unwrap().to_string(),
                e["ref"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let mut payloads = HashSet::new();
    let mut total = 0;
    for scope in ["a", "b"] {
        for e in fs::read_dir(root.join(scope)).unwrap().flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if name.len() == 16 && !name.starts_with('.') {
                total += e.metadata().unwrap().len();
                payloads.insert((scope.to_string(), format!("sp_{name}")));
                assert!(root.join(scope).join(format!("{name}.meta")).exists());
            }
        }
    }
    assert_eq!(listed, payloads);
    assert!(total <= 1 << 20, "{total} bytes exceed the quota");
}

#[test]
fn a_writer_killed_mid_write_leaves_no_payload_and_gc_removes_its_temporary_file() {
    let s = Sandbox::new();
    let mut child = s.cmd(&["wrap", "--max-inline", "1K"]).spawn_piped();
    let mut stdin = child.stdin.take().unwrap();
    // A slow producer: some output, then it keeps the pipe open.
    stdin.write_all(&input(1, 300_000)).unwrap();
    let scope = s.store_root().join("default");
    let deadline = Instant::now() + Duration::from_secs(20);
    let temp = loop {
        let found = fs::read_dir(&scope).ok().and_then(|rd| {
            rd.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .find(|n| n.starts_with(".tmp-"))
        });
        if let Some(name) = found {
            break name;
        }
        assert!(Instant::now() < deadline, "no temporary file appeared");
        std::thread::sleep(Duration::from_millis(10));
    };
    child.kill().unwrap();
    child.wait().unwrap();
    drop(stdin);
    let names: Vec<String> = fs::read_dir(&scope)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        names.iter().all(|n| n.starts_with('.')),
        "a payload or record under a final name: {names:?}"
    );
    assert_eq!(s.run(&["ls", "--json"], "").json()["count"], 0);
    // The lock died with the process: the next gc removes the file at once.
    let out = s.run(&["gc"], "").status(0).out();
    assert!(out.starts_with(&format!("{temp}  default  ")), "{out}");
    assert!(out.contains("  temp\n"), "{out}");
    assert_eq!(temp_files(&s.store_root()), Vec::<String>::new());
}

#[test]
fn wrap_killed_at_random_points_leaves_only_whole_payloads_and_gc_cleans_up() {
    let s = Sandbox::new();
    let scope = s.store_root().join("default");
    // A fixed pseudo-random sequence (xorshift), so a failure can be replayed.
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move |below: u64| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed % below
    };
    // How long one wrap takes here, end to end, so the kills spread over its whole run (a
    // calibration, not an assertion).
    let t0 = Instant::now();
    s.run(&["wrap", "--max-inline", "1K"], input(999, 200_000))
        .status(0);
    let span = (t0.elapsed().as_micros() as u64).max(1_000) * 5 / 4;
    let mut survivors = Vec::new();
    for round in 0..40 {
        let bytes = input(round, 2_000 + next(400_000) as usize);
        let mut child = s.cmd(&["wrap", "--max-inline", "1K"]).spawn_piped();
        let mut stdin = child.stdin.take();
        // Kill while it reads (part of the input written), or after the input ended, a random
        // number of microseconds into hashing, analysing, publishing or printing.
        if next(2) == 0 {
            let cut = next(bytes.len() as u64) as usize;
            let _ = stdin.as_mut().unwrap().write_all(&bytes[..cut]);
            std::thread::sleep(Duration::from_micros(next(3_000)));
        } else {
            let _ = stdin.take().unwrap().write_all(&bytes);
            std::thread::sleep(Duration::from_micros(next(span)));
        }
        let _ = child.kill();
        let out = child.wait_with_output().unwrap();
        drop(stdin);
        if out.status.success() {
            survivors.push(bytes);
        }
        assert_no_partial_payload(&scope);
    }
    // Whatever finished before its kill reads back whole.
    for bytes in &survivors {
        let run = s.run(
            &[
                "cat",
                &ref_of(bytes),
                "--raw",
                "--bytes",
                "0:",
                "--max-bytes",
                "64M",
            ],
            "",
        );
        assert!(run.stdout == *bytes, "{}", run.stderr);
    }
    // gc removes every temporary file and half-written entry; rm --all leaves no entry file.
    s.run(&["gc"], "").status(0);
    assert_eq!(temp_files(&s.store_root()), Vec::<String>::new());
    let ls = s.run(&["ls", "--json"], "").status(0).json();
    let mut names: Vec<String> = fs::read_dir(&scope)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| !n.starts_with('.') && !n.ends_with(".gone"))
        .collect();
    names.sort();
    let mut listed: Vec<String> = ls["entries"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|e| {
            let hex = e["ref"].as_str().unwrap()[3..].to_string();
            [hex.clone(), format!("{hex}.meta")]
        })
        .collect();
    listed.sort();
    assert_eq!(
        names, listed,
        "after gc, every payload and record is a listed entry"
    );
    s.run(&["rm", "--all"], "").status(0);
    let left: Vec<String> = fs::read_dir(&scope)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| !n.ends_with(".gone"))
        .collect();
    assert_eq!(left, Vec::<String>::new());
}
