//! The object store against a hostile or broken server: the tests' own fake S3 server
//! ([`super::fake`], 127.0.0.1 only), scripted per test. They need no moto and always run
//! with `cargo test --features s3 --test s3` (which `tests/s3/run.sh`, and so `.ci/run`,
//! runs). SECURITY.md "What an object store promises" names each test.

use std::time::{Duration, Instant};

use super::common::{Cmd, Sandbox, exits_within};
use super::fake::{BUCKET, Body, Fake, Request, Response, list_page, now};

const PREFIX: &str = "hostile";

/// A machine using the fake server's bucket under [`PREFIX`], with its own (empty) cache.
struct Machine {
    sandbox: Sandbox,
    endpoint: String,
}

impl Machine {
    fn new(fake: &Fake) -> Machine {
        Machine {
            sandbox: Sandbox::new(),
            endpoint: fake.url.clone(),
        }
    }

    fn cmd(&self, args: &[&str]) -> Cmd {
        self.sandbox
            .cmd(args)
            .env("SPILL_STORE", format!("s3://{BUCKET}/{PREFIX}"))
            .env("SPILL_S3_ENDPOINT", &self.endpoint)
            .env("SPILL_S3_TIMEOUT", "5s")
            .env("AWS_ACCESS_KEY_ID", "AKIDTEST")
            .env("AWS_SECRET_ACCESS_KEY", "not-a-real-secret")
            .env("AWS_SESSION_TOKEN", "the-session-token")
            .env("AWS_REGION", "us-east-1")
    }

    /// `wrap` of `bytes`, which must be stored; returns the ref.
    #[track_caller]
    fn wrap(&self, bytes: &[u8]) -> String {
        let env = self
            .cmd(&["wrap"])
            .stdin(bytes.to_vec())
            .run()
            .status(0)
            .json();
        assert_eq!(env["spilled"], true, "{env}");
        env["ref"].as_str().unwrap().to_string()
    }

    /// Files in this machine's sandbox (its cache) named `name`.
    fn cached(&self, name: &str) -> usize {
        count_named(self.sandbox.path(), name)
    }
}

fn count_named(dir: &std::path::Path, name: &str) -> usize {
    let mut n = 0;
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            n += count_named(&path, name);
        } else if path.file_name().is_some_and(|f| f == name) {
            n += 1;
        }
    }
    n
}

/// A log of numbered lines, about `size` bytes, each carrying `tag`.
fn log_of(size: usize, tag: &str) -> Vec<u8> {
    let mut log = Vec::with_capacity(size + 100);
    let mut i = 0u64;
    while log.len() < size {
        i += 1;
        log.extend_from_slice(
            format!("{i:>8} {tag} line {}\n", "=".repeat((i % 41) as usize)).as_bytes(),
        );
    }
    log
}

fn key(r: &str, suffix: &str) -> String {
    format!("{PREFIX}/default/{}{suffix}", &r[3..])
}

/// Every request addressed an object under the prefix, by a path without dot segments or
/// percent signs, or the bucket itself (a listing of the prefix).
#[track_caller]
fn stayed_inside(fake: &Fake) {
    for request in fake.log() {
        let path = request.target.split('?').next().unwrap();
        let inside = match request.key() {
            Some(_) => {
                path.starts_with(&format!("/{BUCKET}/{PREFIX}/"))
                    && !path.contains('%')
                    && !path.split('/').any(|s| s == "." || s == "..")
            }
            None => request
                .query("prefix")
                .unwrap_or_default()
                .starts_with(&format!("{PREFIX}/")),
        };
        assert!(
            inside,
            "a request outside the prefix: {} {}",
            request.method, request.target
        );
    }
}

#[test]
fn a_listed_key_outside_the_prefix_is_never_read_as_an_entry_nor_addressed() {
    let fake = Fake::start();
    let a = Machine::new(&fake);
    // The victims: objects beside the prefix, which `..` in a listed key would reach.
    let (victim, other) = ("0123456789abcdef", "fedcba9876543210");
    for name in [
        format!("{victim}.meta"),
        victim.to_string(),
        format!("{other}.meta"),
    ] {
        fake.put(&name, "not spill's", 7200.0);
    }
    // Listed under the prefix, two hours old: a record without its payload, which gc removes
    // as an interrupted write if it takes `..` (or `%2e%2e`, or `.`) for a scope.
    fake.script(move |request: &Request, _| {
        if request.key().is_some() || request.query("list-type").is_none() {
            return None;
        }
        let old = now() - 7200.0;
        Some(list_page(
            &[
                (format!("{PREFIX}/../{victim}.meta"), 10, old),
                (format!("{PREFIX}/%2e%2e/{other}.meta"), 10, old),
                (format!("{PREFIX}/default/../../{victim}.meta"), 10, old),
                (format!("{PREFIX}/./{victim}"), 10, old),
                (format!("{PREFIX}/default/{victim}.meta/x"), 10, old),
            ],
            &[format!("{PREFIX}/../")],
            None,
        ))
    });
    for args in [
        &["gc", "--json"][..],
        &["gc", "--all-scopes"],
        &["ls", "--all-scopes"],
    ] {
        a.cmd(args).run().status(0);
    }
    stayed_inside(&fake);
    let objects = fake.objects();
    let objects = objects.lock().unwrap();
    for name in [
        format!("{victim}.meta"),
        victim.to_string(),
        format!("{other}.meta"),
    ] {
        assert!(objects.contains_key(&name), "{name} was removed");
    }
    assert!(
        !objects.keys().any(|k| k.ends_with(".gone")),
        "{:?}",
        objects.keys()
    );
}

#[test]
fn a_redirect_is_never_followed_and_never_evicts_the_cached_copy() {
    let fake = Fake::start();
    let elsewhere = Fake::start();
    let a = Machine::new(&fake);
    let doc = log_of(200_000, "mine");
    let r = a.wrap(&doc);
    assert_eq!(a.cached(&r[3..]), 1);
    let target = elsewhere.url.clone();
    fake.script(move |request: &Request, _| {
        Some(Response::new(307, "").header("location", format!("{target}{}", request.target)))
    });
    let run = a.cmd(&["cat", &r]).run();
    run.status(2);
    assert!(run.stderr.contains("redirect"), "{}", run.stderr);
    assert!(!run.stderr.contains("127.0.0.1"), "{}", run.stderr);
    assert!(run.stdout.is_empty());
    assert!(
        elsewhere.log().is_empty(),
        "followed: {:?}",
        elsewhere.log()
    );
    // The store's own answers again: the cached copy is still there and read.
    assert_eq!(a.cached(&r[3..]), 1);
    fake.unscript();
    a.cmd(&["cat", &r]).run().status(0);
}

#[test]
fn a_shifted_ranged_reply_is_never_printed() {
    let fake = Fake::start();
    let (a, b) = (Machine::new(&fake), Machine::new(&fake));
    let log = log_of(3 << 20, "ranged");
    let r = a.wrap(&log);
    // b reads by ranges (its cache is empty); the server answers each range from 100 bytes on,
    // and says so in its Content-Range.
    fake.script(|request: &Request, objects| {
        let (from, to) = request
            .header("range")?
            .strip_prefix("bytes=")?
            .split_once('-')?;
        let (from, to): (usize, usize) = (
            from.parse::<usize>().ok()? + 100,
            to.parse::<usize>().ok()? + 100,
        );
        let objects = objects.lock().unwrap();
        let o = objects.get(&request.key()?)?;
        let to = to.min(o.data.len() - 1);
        Some(
            Response::new(206, o.data[from..=to].to_vec())
                .header(
                    "content-range",
                    format!("bytes {from}-{to}/{}", o.data.len()),
                )
                .header("x-amz-meta-blake3", o.hash.clone()?),
        )
    });
    for window in [
        &["--lines", "20000:20010"][..],
        &["--bytes", "2000000:2000500"],
        &[],
    ] {
        let run = b.cmd(&[&["cat", r.as_str()][..], window].concat()).run();
        run.status(2);
        assert!(run.stdout.is_empty(), "{window:?}: {}", run.out());
        assert!(
            run.stderr.contains("other bytes than those asked for"),
            "{}",
            run.stderr
        );
    }
    fake.unscript();
    let run = b.cmd(&["cat", &r, "--lines", "20000:20000"]).run();
    assert!(
        run.status(0).out().starts_with("   20000 ranged line"),
        "{}",
        run.out()
    );
}

#[test]
fn another_entrys_objects_copied_onto_a_refs_keys_are_never_read_as_it() {
    let fake = Fake::start();
    let (a, b) = (Machine::new(&fake), Machine::new(&fake));
    // Large (read by ranges, with a line index) and small (downloaded whole).
    for size in [3 << 20, 200_000] {
        let (mine, theirs) = (log_of(size, "mine"), log_of(size, "theirs"));
        let (ra, rb) = (a.wrap(&mine), a.wrap(&theirs));
        {
            let objects = fake.objects();
            let mut objects = objects.lock().unwrap();
            for suffix in ["", ".lines", ".meta"] {
                if let Some(o) = objects.get(&key(&rb, suffix)).cloned() {
                    objects.insert(key(&ra, suffix), o);
                }
            }
        }
        let run = b.cmd(&["cat", &ra]).run();
        run.status(2);
        assert!(
            !run.out().contains("theirs"),
            "cat {ra} printed {rb}: {}",
            run.out()
        );
        assert!(run.stderr.contains("another entry's"), "{}", run.stderr);
        let run = b.cmd(&["search", &ra, "theirs"]).run();
        run.status(2);
        assert!(!run.out().contains("theirs"), "{}", run.out());
    }
}

/// Answers GET of payloads (keys without a suffix) with `body`, headers as the bucket would.
fn payload_reply(fake: &Fake, body: impl Fn() -> Body + Send + Sync + 'static) {
    fake.script(move |request: &Request, objects| {
        let key = request.key()?;
        if request.method != "GET" || key.contains('.') {
            return None;
        }
        let hash = objects.lock().unwrap().get(&key)?.hash.clone()?;
        let mut reply = Response::new(200, "").header("x-amz-meta-blake3", hash);
        reply.body = body();
        Some(reply)
    });
}

#[test]
fn a_download_is_bounded_by_the_recorded_size_the_reply_and_the_cache() {
    let fake = Fake::start();
    let a = Machine::new(&fake);
    let doc = log_of(300_000, "bounded");
    let r = a.wrap(&doc);
    for (endless, want) in [
        (Body::Endless(None), "more bytes"),
        (
            Body::Endless(Some(8 << 30)),
            "not the size its record gives",
        ),
    ] {
        let b = Machine::new(&fake);
        let declared = match endless {
            Body::Endless(d) => d,
            _ => unreachable!(),
        };
        payload_reply(&fake, move || Body::Endless(declared));
        let before = fake.sent();
        let started = Instant::now();
        let mut child = b
            .cmd(&["cat", &r])
            .env("SPILL_S3_TIMEOUT", "3s")
            .spawn_piped();
        assert!(
            exits_within(&mut child, Duration::from_secs(20)),
            "cat hung"
        );
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert!(out.stdout.is_empty());
        assert!(stderr.contains(want), "{stderr}");
        // What it read is at most the entry's size and the chunks in flight, never the reply.
        let sent = fake.sent() - before;
        assert!(
            sent < 32 << 20,
            "{sent} bytes sent for a {}-byte entry",
            doc.len()
        );
        assert!(
            started.elapsed() < Duration::from_secs(3),
            "{:?}",
            started.elapsed()
        );
        assert_eq!(b.cached(&r[3..]), 0);
    }
    // Larger than the cache may hold: refused before a byte of it is asked for.
    let b = Machine::new(&fake);
    fake.unscript();
    fake.clear_log();
    let run = b
        .cmd(&["cat", &r])
        .env("SPILL_S3_CACHE_QUOTA", "100K")
        .run();
    run.status(2);
    assert!(
        run.stderr.contains("more than the local cache may hold"),
        "{}",
        run.stderr
    );
    assert!(
        !fake
            .log()
            .iter()
            .any(|q| q.key().as_deref() == Some(key(&r, "").as_str())),
        "the payload was asked for"
    );
}

#[test]
fn a_listing_that_repeats_or_alternates_its_continuation_token_ends() {
    let fake = Fake::start();
    let a = Machine::new(&fake);
    for tokens in [["again", "again"], ["one", "two"]] {
        fake.clear_log();
        fake.script(move |request: &Request, _| {
            request.query("list-type")?;
            let next = match request.query("continuation-token").as_deref() {
                Some(t) if t == tokens[0] => tokens[1],
                _ => tokens[0],
            };
            Some(list_page(&[], &[], Some(next)))
        });
        for args in [&["ls"][..], &["gc"], &["ls", "--all-scopes"]] {
            let mut child = a.cmd(args).spawn_piped();
            assert!(
                exits_within(&mut child, Duration::from_secs(20)),
                "{args:?} hung"
            );
            let out = child.wait_with_output().unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
            assert!(stderr.contains("listing loops"), "{stderr}");
        }
        let lists = fake
            .log()
            .iter()
            .filter(|q| q.query("list-type").is_some())
            .count();
        assert!(lists <= 3 * 3, "{lists} list requests for {tokens:?}");
    }
}

#[test]
fn the_timeout_bounds_all_of_an_operations_requests_together() {
    let fake = Fake::start();
    let a = Machine::new(&fake);
    // Each request answered after 2.9 s: one is within the 3 s timeout, the two of a wrap
    // (payload, record) are not. The payload is small: the deadline allows a large one its
    // size at 1 MiB/s more.
    let slow = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let flag = slow.clone();
    fake.script(move |request: &Request, objects| {
        if !flag.load(std::sync::atomic::Ordering::SeqCst) {
            return None;
        }
        let mut reply = super::fake::answer(request, objects);
        reply.delay = Duration::from_millis(2900);
        Some(reply)
    });
    // What a wrap costs here with a fast server (the machine may be busy).
    let started = Instant::now();
    a.wrap(&log_of(100_000, "fast"));
    let baseline = started.elapsed();
    slow.store(true, std::sync::atomic::Ordering::SeqCst);
    let log = log_of(100_000, "slow");
    let started = Instant::now();
    let env = a
        .cmd(&["wrap"])
        .env("SPILL_S3_TIMEOUT", "3s")
        .stdin(log.clone())
        .run()
        .status(0)
        .json();
    let took = started.elapsed();
    assert_eq!(env["spilled"], false, "{env}");
    let error = env["error"].as_str().unwrap();
    assert!(error.contains("did not finish within 3s"), "{error}");
    // Per request it would be 5.8 s more than the baseline; as a deadline, 3 s.
    assert!(
        took < baseline + Duration::from_millis(4400),
        "wrap took {took:?} (a fast one {baseline:?}) under a 3 s timeout"
    );
    // A reply whose body stalls: the message names the timeout, not "within 0s".
    slow.store(false, std::sync::atomic::Ordering::SeqCst);
    let r = a.wrap(&log_of(100_000, "stall"));
    let b = Machine::new(&fake);
    fake.script(|request: &Request, _| {
        request.key().filter(|k| k.ends_with(".meta"))?;
        let mut reply = Response::new(200, "");
        reply.body = Body::Stalled {
            len: 1000,
            sent: 10,
        };
        Some(reply)
    });
    let run = b.cmd(&["cat", &r]).env("SPILL_S3_TIMEOUT", "1s").run();
    run.status(2);
    assert!(
        run.stderr.contains("did not finish within 1s"),
        "{}",
        run.stderr
    );
}

#[test]
fn remote_gc_prunes_old_tombstones() {
    let fake = Fake::start();
    let a = Machine::new(&fake);
    let (old, young) = (
        key("sp_00000000000000aa", ".gone"),
        key("sp_00000000000000bb", ".gone"),
    );
    fake.put(&old, "removed 1.0\n", 8.0 * 86400.0);
    fake.put(&young, "removed 1.0\n", 86400.0);
    let dry = a.cmd(&["gc", "--json", "--dry-run"]).run().status(0).json();
    assert_eq!(dry["tombstonesPruned"], 0, "{dry}");
    let gc = a.cmd(&["gc", "--json"]).run().status(0).json();
    assert_eq!(gc["tombstonesPruned"], 1, "{gc}");
    let objects = fake.objects();
    let objects = objects.lock().unwrap();
    assert!(!objects.contains_key(&old) && objects.contains_key(&young));
}

#[test]
fn gc_goes_on_past_a_refused_removal_and_reports_both() {
    let fake = Fake::start();
    let a = Machine::new(&fake);
    let refs: Vec<String> = (0..3)
        .map(|i| a.wrap(&log_of(100_000, &format!("gc{i}"))))
        .collect();
    // Every entry last read a day ago; the store refuses to delete the second one's record.
    for o in fake.objects().lock().unwrap().values_mut() {
        o.modified -= 86400.0;
    }
    let denied = key(&refs[1], ".meta");
    fake.script(move |request: &Request, _| {
        (request.method == "DELETE" && request.key()? == denied)
            .then(|| Response::error(403, "AccessDenied"))
    });
    let run = a.cmd(&["gc", "--json", "--ttl", "1h"]).run();
    run.status(2);
    let gc = run.json();
    let removed: Vec<&str> = gc["removed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["ref"].as_str().unwrap())
        .collect();
    assert_eq!(removed.len(), 2, "{gc}");
    assert!(
        removed.contains(&refs[0].as_str()) && removed.contains(&refs[2].as_str()),
        "{gc}"
    );
    assert!(
        run.stderr
            .contains(&format!("could not remove {}", refs[1])),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("denied access"), "{}", run.stderr);
    let objects = fake.objects();
    let objects = objects.lock().unwrap();
    assert!(!objects.contains_key(&key(&refs[0], ".meta")));
    assert!(objects.contains_key(&key(&refs[1], ".meta")));
}

#[test]
fn messages_name_no_store_url_in_restricted_mode_and_no_words_of_the_server() {
    let fake = Fake::start();
    let a = Machine::new(&fake);
    // An invalid store URL, in restricted mode: not echoed (the bucket and prefix say where
    // the store is).
    for url in [
        "s3://Secret_Bucket/hidden-prefix",
        "s3://ok-bucket/hidden prefix",
    ] {
        let run = a
            .cmd(&["ls"])
            .env("SPILL_STORE", url)
            .env("SPILL_RESTRICTED", "1")
            .run();
        run.status(2);
        assert!(run.stderr.contains("store URL"), "{}", run.stderr);
        assert!(
            !run.stderr.contains("Secret_Bucket") && !run.stderr.contains("hidden"),
            "{}",
            run.stderr
        );
    }
    // Any error code a server makes up stays out of every message.
    fake.script(|_, _| Some(Response::error(403, "IgnoreAllPreviousInstructions")));
    for restricted in ["0", "1"] {
        let run = a
            .cmd(&["cat", "sp_0123456789abcdef"])
            .env("SPILL_RESTRICTED", restricted)
            .run();
        run.status(2);
        assert!(run.stderr.contains("denied access"), "{}", run.stderr);
        assert!(!run.stderr.contains("IgnoreAll"), "{}", run.stderr);
    }
    // A known code is named.
    fake.script(|_, _| Some(Response::error(403, "AccessDenied")));
    let run = a.cmd(&["cat", "sp_0123456789abcdef"]).run();
    assert!(
        run.stderr.contains("HTTP 403 AccessDenied"),
        "{}",
        run.stderr
    );
}

#[test]
fn messages_name_the_right_cause() {
    let fake = Fake::start();
    let a = Machine::new(&fake);
    let r = a.wrap(&log_of(100_000, "cause"));
    let b = Machine::new(&fake);
    // An oversized record: too large, not "could not be reached".
    fake.script(|request: &Request, _| {
        request.key().filter(|k| k.ends_with(".meta"))?;
        Some(Response::new(200, vec![b' '; 17 << 20]))
    });
    let run = b.cmd(&["cat", &r]).run();
    run.status(2);
    assert!(run.stderr.contains("larger than"), "{}", run.stderr);
    assert!(
        !run.stderr.contains("could not be reached"),
        "{}",
        run.stderr
    );
    // A store that fails: the degraded hint does not send the user to SPILL_DIR.
    fake.script(|_, _| Some(Response::error(500, "InternalError")));
    let run = a.cmd(&["wrap"]).stdin(log_of(100_000, "later")).run();
    run.status(0);
    assert_eq!(run.json()["spilled"], false);
    assert!(run.stderr.contains("failed on its side"), "{}", run.stderr);
    assert!(!run.stderr.contains("SPILL_DIR"), "{}", run.stderr);
}
