//! Live output (`wrap --detach-after`): a running command is a ref that can be read while it
//! runs, waited on and stopped; its bytes stay within `--max-file`; a dead supervisor reads as
//! interrupted. Every wait here polls with a bounded deadline (no sleep stands in for an event).

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common::{Run, Sandbox};

/// Polls `f` every 20 ms until it returns `Some`, for at most `limit`.
#[track_caller]
fn until<T>(limit: Duration, what: &str, mut f: impl FnMut() -> Option<T>) -> T {
    let deadline = Instant::now() + limit;
    loop {
        if let Some(v) = f() {
            return v;
        }
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// `wrap --detach-after 200ms -- sh -c SCRIPT`, which must still be running at the deadline:
/// the running envelope and the ref.
#[track_caller]
fn detach(sb: &Sandbox, script: &str, extra: &[&str]) -> (Value, String) {
    let mut args = vec!["wrap", "--detach-after", "200ms"];
    args.extend_from_slice(extra);
    args.extend_from_slice(&["--", "sh", "-c", script]);
    let run = sb.cmd(&args).run();
    run.status(0);
    let env = run.json();
    assert_eq!(env["running"], true, "{env}");
    let id = env["ref"].as_str().unwrap().to_string();
    (env, id)
}

/// The scope directory of the default scope.
fn scope_dir(sb: &Sandbox) -> std::path::PathBuf {
    sb.store_root().join("default")
}

/// The running record of `id`, as JSON.
fn record(sb: &Sandbox, id: &str) -> Value {
    let path = scope_dir(sb).join(format!("{}.live", &id[3..]));
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

/// True while a process with this pid exists (a zombie counts as gone).
fn alive(pid: i32) -> bool {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    !stat.is_empty() && !stat.contains(") Z ")
}

fn pid_in(path: &Path) -> i32 {
    until(Duration::from_secs(10), "the pid file", || {
        std::fs::read_to_string(path)
            .ok()
            .and_then(|s| s.trim().parse().ok())
    })
}

/// The footer's cursor: `… · cursor N · …`.
fn cursor_of(run: &Run) -> u64 {
    let at = run.stderr.find(" · cursor ").expect(&run.stderr) + " · cursor ".len();
    run.stderr[at..]
        .split(|c: char| !c.is_ascii_digit())
        .next()
        .unwrap()
        .parse()
        .unwrap()
}

#[test]
fn a_command_still_running_at_the_deadline_is_a_ref_to_read_wait_on_and_keep() {
    let sb = Sandbox::new();
    let go = sb.path().join("go");
    let script = format!(
        "echo first line; echo 'error: it broke'; while [ ! -e {} ]; do sleep 0.02; done; echo last line; exit 3",
        go.display()
    );
    let started = Instant::now();
    let (env, id) = detach(&sb, &script, &[]);
    assert!(started.elapsed() < Duration::from_secs(5));
    // The output so far, as for a finished output: size, lines, preview, signals, commands.
    assert_eq!(env["sizeBytes"], 27, "{env}");
    assert_eq!(env["lines"], 2);
    assert_eq!(env["cursor"], 27);
    assert_eq!(env["preview"]["head"][0], "first line", "{env}");
    assert_eq!(env["signals"]["total"], 1, "{env}");
    assert!(env.get("exitCode").is_none(), "{env}");
    let hint = env["hint"].as_str().unwrap();
    for command in [
        format!("spill cat {id} --since 27"),
        format!("spill wait {id}"),
        format!("spill stop {id}"),
    ] {
        assert!(hint.contains(&command), "{hint}");
    }
    // Readers work on it and say it is still running.
    let cat = sb.cmd(&["cat", &id]).run();
    cat.status(0);
    assert_eq!(cat.out(), "first line\nerror: it broke\n");
    assert!(
        cat.stderr
            .contains(&format!("{id} is still running: 27 bytes, 2 lines so far")),
        "{}",
        cat.stderr
    );
    let search = sb.cmd(&["search", &id, "broke"]).run();
    search.status(0);
    assert!(search.out().contains("error: it broke"), "{}", search.out());
    assert!(search.stderr.contains("still running"), "{}", search.stderr);
    // Nothing new since the cursor.
    let none = sb.cmd(&["cat", &id, "--since", "27"]).run();
    none.status(0);
    assert_eq!(none.out(), "");
    assert!(none.stderr.contains("nothing new"), "{}", none.stderr);
    assert!(none.stderr.contains("still running"), "{}", none.stderr);
    assert_eq!(cursor_of(&none), 27);
    // wait at its timeout: what is new (nothing yet), still running, 124.
    let early = sb
        .cmd(&["wait", &id, "--timeout", "100ms", "--since", "27"])
        .run();
    early.status(124);
    assert!(early.stderr.contains("still running"), "{}", early.stderr);
    // The end: the final envelope and the command's status, as wrap -- CMD reports them.
    std::fs::write(&go, "").unwrap();
    let end = sb.cmd(&["wait", &id, "--timeout", "20s"]).run();
    end.status(3);
    let fin = end.json();
    assert_eq!(fin["exitCode"], 3, "{fin}");
    assert_eq!(fin["sizeBytes"], 37);
    assert!(fin.get("running").is_none(), "{fin}");
    // Sealed: an ordinary content-addressed payload, and the running ref still reads it.
    let sealed = fin["ref"].as_str().unwrap();
    let whole = "first line\nerror: it broke\nlast line\n";
    assert_eq!(sealed, crate::common::ref_of(whole.as_bytes()));
    for r in [sealed, id.as_str()] {
        let cat = sb.cmd(&["cat", r]).run();
        cat.status(0);
        assert_eq!(cat.out(), whole);
        assert!(!cat.stderr.contains("running"), "{}", cat.stderr);
    }
    let new = sb.cmd(&["cat", &id, "--since", "27"]).run();
    new.status(0);
    assert_eq!(new.out(), "last line\n");
    assert!(
        new.stderr.contains("exited with status 3"),
        "{}",
        new.stderr
    );
    assert!(new.stderr.contains("the end"), "{}", new.stderr);
    // Waiting on an ended entry answers at once, the same way.
    let again = sb.cmd(&["wait", &id]).run();
    again.status(3);
    assert_eq!(again.json()["ref"], sealed);
    // No byte file of the running entry is left behind.
    let leftovers: Vec<String> = std::fs::read_dir(scope_dir(&sb))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".tmp-"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn a_command_that_ends_within_the_deadline_is_reported_as_wrap_reports_it() {
    let sb = Sandbox::new();
    let started = Instant::now();
    let run = sb
        .cmd(&[
            "wrap",
            "--detach-after",
            "30s",
            "--",
            "sh",
            "-c",
            "echo small; exit 7",
        ])
        .run();
    run.status(7);
    assert_eq!(run.out(), "small\n");
    assert!(started.elapsed() < Duration::from_secs(10));
    // Larger than --max-inline: the envelope with the exit code, not a running one.
    let run = sb
        .cmd(&[
            "wrap",
            "--detach-after",
            "30s",
            "--max-inline",
            "10",
            "--",
            "sh",
            "-c",
            "echo more than ten bytes",
        ])
        .run();
    run.status(0);
    let env = run.json();
    assert_eq!(env["exitCode"], 0, "{env}");
    assert!(env.get("running").is_none(), "{env}");
    assert_eq!(
        env["ref"].as_str().unwrap(),
        crate::common::ref_of(b"more than ten bytes\n")
    );
    // A command that cannot start: wrap's message and status.
    let run = sb
        .cmd(&[
            "wrap",
            "--detach-after",
            "30s",
            "--",
            "/nonexistent/spill-live-test",
        ])
        .run();
    run.status(127);
    assert!(run.stderr.contains("command not found"), "{}", run.stderr);
}

#[test]
fn a_cursor_returns_only_what_is_new() {
    let sb = Sandbox::new();
    let (one, two) = (sb.path().join("one"), sb.path().join("two"));
    let script = format!(
        "echo alpha; while [ ! -e {one} ]; do sleep 0.02; done; echo beta; while [ ! -e {two} ]; do sleep 0.02; done; echo gamma",
        one = one.display(),
        two = two.display()
    );
    let (env, id) = detach(&sb, &script, &[]);
    let c0 = env["cursor"].as_u64().unwrap();
    assert_eq!(c0, 6);
    std::fs::write(&one, "").unwrap();
    let page = until(Duration::from_secs(10), "beta", || {
        let run = sb.cmd(&["cat", &id, "--since", &c0.to_string()]).run();
        (run.code == Some(0) && !run.stdout.is_empty()).then_some(run)
    });
    assert_eq!(page.out(), "beta\n");
    let c1 = cursor_of(&page);
    assert_eq!(c1, 11);
    // wait at its timeout prints what is new since the cursor, and says it is running.
    let waited = sb
        .cmd(&[
            "wait",
            &id,
            "--timeout",
            "100ms",
            "--since",
            &c0.to_string(),
        ])
        .run();
    waited.status(124);
    assert_eq!(waited.out(), "beta\n");
    assert!(
        waited
            .stderr
            .contains(&format!("next: spill wait {id} --since 11")),
        "{}",
        waited.stderr
    );
    std::fs::write(&two, "").unwrap();
    sb.cmd(&["wait", &id, "--timeout", "20s"]).run().status(0);
    let last = sb.cmd(&["cat", &id, "--since", &c1.to_string()]).run();
    last.status(0);
    assert_eq!(last.out(), "gamma\n");
    // A bound cuts a page at its last line break; the footer's cursor reads on from there.
    let bounded = sb
        .cmd(&["cat", &id, "--since", "0", "--max-bytes", "8"])
        .run();
    bounded.status(0);
    assert_eq!(bounded.out(), "alpha\n");
    assert_eq!(cursor_of(&bounded), 6);
    assert!(bounded.stderr.contains("--since 6"), "{}", bounded.stderr);
}

#[test]
fn stop_ends_the_command_and_its_process_group_and_seals_the_output() {
    let sb = Sandbox::new();
    let pidfile = sb.path().join("pid");
    let script = format!(
        "echo started; sleep 60 & echo $! > {}; wait",
        pidfile.display()
    );
    let (_, id) = detach(&sb, &script, &[]);
    let child = pid_in(&pidfile);
    assert!(alive(child));
    let stop = sb.cmd(&["stop", &id]).run();
    stop.status(0);
    assert!(
        stop.stderr.contains(&format!("stopped {id}")),
        "{}",
        stop.stderr
    );
    until(Duration::from_secs(10), "the group to end", || {
        (!alive(child)).then_some(())
    });
    let end = sb.cmd(&["wait", &id, "--timeout", "10s"]).run();
    end.status(143);
    let fin = end.json();
    assert_eq!(fin["exitCode"], 143, "{fin}");
    assert_eq!(fin["interrupted"], true, "{fin}");
    assert_eq!(
        fin["ref"].as_str().unwrap(),
        crate::common::ref_of(b"started\n")
    );
    // Stopping an ended entry says so and changes nothing.
    let again = sb.cmd(&["stop", &id]).run();
    again.status(0);
    assert!(
        again.stderr.contains("had already ended"),
        "{}",
        again.stderr
    );
    // Not a running entry at all: a clear error.
    let unknown = sb.cmd(&["stop", "sp_0123456789abcdef"]).run();
    unknown.status(2);
    assert!(
        unknown.stderr.contains("not a running entry"),
        "{}",
        unknown.stderr
    );
    let bad = sb.cmd(&["wait", "@1"]).run();
    bad.status(2);
}

#[test]
fn a_killed_supervisor_leaves_an_interrupted_entry_and_no_process_behind() {
    let sb = Sandbox::new();
    let pidfile = sb.path().join("pid");
    let script = format!(
        "echo partial output; sleep 60 & echo $! > {}; wait",
        pidfile.display()
    );
    let (_, id) = detach(&sb, &script, &[]);
    let child = pid_in(&pidfile);
    let supervisor = record(&sb, &id)["pid"].as_i64().unwrap() as i32;
    // SAFETY: kill on a pid this test's command started.
    assert_eq!(unsafe { libc::kill(supervisor, libc::SIGKILL) }, 0);
    // The command's process group does not outlive its supervisor.
    until(Duration::from_secs(10), "the group to die", || {
        (!alive(child)).then_some(())
    });
    // Readers say interrupted, the bytes so far stay readable; nothing says it finished.
    let cat = until(Duration::from_secs(10), "interrupted", || {
        let run = sb.cmd(&["cat", &id]).run();
        run.stderr.contains("was interrupted").then_some(run)
    });
    cat.status(0);
    assert_eq!(cat.out(), "partial output\n");
    let ls = sb.cmd(&["ls", "--json"]).run();
    ls.status(0);
    let row = &ls.json()["entries"][0];
    assert_eq!(row["ref"], id.as_str());
    assert_eq!(row["running"], false, "{row}");
    let wait = sb.cmd(&["wait", &id, "--timeout", "5s"]).run();
    wait.status(2);
    assert_eq!(wait.out(), "partial output\n");
    assert!(wait.stderr.contains("interrupted"), "{}", wait.stderr);
    assert!(!wait.stderr.contains("exited"), "{}", wait.stderr);
    // gc cleans it up: the record and its byte files.
    let gc = sb.cmd(&["gc"]).run();
    gc.status(0);
    assert!(
        gc.out().contains(&format!("{}.live", &id[3..])),
        "{}",
        gc.out()
    );
    let left: Vec<String> = std::fs::read_dir(scope_dir(&sb))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(left, [format!("{}.gone", &id[3..])]);
    let gone = sb.cmd(&["cat", &id]).run();
    gone.status(2);
    assert!(gone.stderr.contains("has been removed"), "{}", gone.stderr);
}

#[test]
fn an_endless_writer_costs_a_bounded_amount_of_disk() {
    let sb = Sandbox::new();
    let cap: u64 = 64 * 1024;
    let (_, id) = detach(&sb, "exec yes", &["--max-file", "64K"]);
    // Let it write well past its cap.
    let row = until(Duration::from_secs(30), "4 MiB of output", || {
        let ls = sb.cmd(&["ls", "--json"]).run();
        let v = ls.json();
        let row = v["entries"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["ref"] == id.as_str())
            .cloned()?;
        (row["sizeBytes"].as_u64()? > 4 << 20).then_some(row)
    });
    assert_eq!(row["running"], true, "{row}");
    // What the running entry holds on disk stays within its cap.
    assert!(row["storedBytes"].as_u64().unwrap() <= cap + 64, "{row}");
    assert!(
        row["summary"]
            .as_str()
            .unwrap()
            .contains("cut by --max-file"),
        "{row}"
    );
    // Everything in the scope (the running view and the sealing copy) stays bounded too.
    let on_disk: u64 = std::fs::read_dir(scope_dir(&sb))
        .unwrap()
        .flatten()
        .filter_map(|e| e.metadata().ok())
        .map(|m| m.len())
        .sum();
    assert!(on_disk <= 2 * cap + 8192, "{on_disk}");
    // The bytes so far: head, the marker, the rolling tail.
    let cat = sb.cmd(&["cat", &id, "--raw", "--bytes", "0:"]).run();
    cat.status(0);
    let text = cat.out();
    assert!(text.starts_with("y\ny\n"));
    assert!(
        text.contains("bytes dropped here by --max-file so far"),
        "{}",
        &text[..100]
    );
    // A cursor in the cut part reads on from the first byte kept, and says what was skipped.
    let since = sb.cmd(&["cat", &id, "--since", "60000"]).run();
    since.status(0);
    assert!(
        since.stderr.contains("cut by --max-file"),
        "{}",
        since.stderr
    );
    assert!(since.out().starts_with('y') || since.out().starts_with('\n'));
    sb.cmd(&["stop", &id]).run().status(0);
    let end = sb.cmd(&["wait", &id, "--timeout", "10s"]).run();
    end.status(143);
    let fin = end.json();
    assert_eq!(fin["complete"], false, "{fin}");
    assert!(fin["storedBytes"].as_u64().unwrap() <= cap + 256, "{fin}");
}

#[test]
fn the_text_envelope_and_the_json_readers_say_running() {
    let sb = Sandbox::new();
    let go = sb.path().join("go");
    let script = format!(
        "echo '[1,2,3]'; while [ ! -e {} ]; do sleep 0.02; done",
        go.display()
    );
    let run = sb
        .cmd(&[
            "wrap",
            "--format",
            "text",
            "--detach-after",
            "200ms",
            "--",
            "sh",
            "-c",
            &script,
        ])
        .run();
    run.status(0);
    let first = run.out().lines().next().unwrap().to_string();
    assert!(
        first.starts_with("spill: 8 B so far, still running as sp_"),
        "{first}"
    );
    let id = first
        .split(" as ")
        .nth(1)
        .unwrap()
        .split(' ')
        .next()
        .unwrap()
        .to_string();
    // The bytes so far parse: shape and extract answer, and say it is still running.
    let got = sb.cmd(&["extract", &id, "$[1]"]).run();
    got.status(0);
    assert_eq!(got.out().trim(), "2");
    assert!(got.stderr.contains("still running"), "{}", got.stderr);
    let shape = sb.cmd(&["shape", &id]).run();
    shape.status(0);
    assert!(
        shape.out().contains("array[3] of integer"),
        "{}",
        shape.out()
    );
    std::fs::write(&go, "").unwrap();
    sb.cmd(&["wait", &id, "--timeout", "20s"]).run().status(0);
}
