//! Concurrency and crash safety: many `wrap` processes with `gc` and `rm` running at the same
//! time, and a `wrap` killed with SIGKILL in the middle of a write.

use std::collections::HashSet;
use std::fs;
use std::io::Write;
use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::common::Sandbox;

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

fn ref_of(bytes: &[u8]) -> String {
    format!("sp_{}", &blake3::hash(bytes).to_hex()[..16])
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

#[test]
fn parallel_writers_with_gc_and_rm_never_corrupt_or_lose_a_payload() {
    let s = Sandbox::new();
    // 28 writers: 16 distinct outputs, 4 outputs written 3 times each; two scopes.
    let mut jobs: Vec<(String, Vec<u8>)> = Vec::new();
    for i in 0..16 {
        let scope = if i % 2 == 0 { "a" } else { "b" };
        jobs.push((scope.into(), input(i, 40_000 + i * 7_919)));
    }
    for i in 0..4 {
        for _ in 0..3 {
            jobs.push(("a".into(), input(100 + i, 120_000)));
        }
    }
    let doomed: Vec<String> = jobs.iter().step_by(5).map(|(_, b)| ref_of(b)).collect();
    let started = Instant::now();
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
    // gc and rm, concurrently with the writers.
    let mut side = Vec::new();
    for round in 0..4 {
        let mut gc = s
            .cmd(&["gc", "--all-scopes", "--quota", "1M"])
            .into_command();
        gc.stdout(Stdio::null()).stderr(Stdio::piped());
        side.push(gc.spawn().unwrap());
        let mut rm = s
            .cmd(&["rm", "--scope", "a", &doomed[round % doomed.len()]])
            .into_command();
        rm.stdout(Stdio::null()).stderr(Stdio::null());
        side.push(rm.spawn().unwrap());
    }
    let mut published = Vec::new();
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
        published.push((
            scope.clone(),
            env["ref"].as_str().unwrap().to_string(),
            bytes,
        ));
    }
    for mut p in side {
        let status = p.wait().unwrap();
        // rm of a ref that is not (or no longer) stored exits 2; gc never fails.
        assert!(matches!(status.code(), Some(0 | 2)), "{status:?}");
    }
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
