//! The object-store kind of store against a real S3 protocol server (moto, started and
//! prepared by tests/s3/run.sh, which `.ci/run` calls): README "A store shared across
//! machines"; and against a hostile or broken one of the tests' own (`hostile`, over the fake
//! server of `tests/s3/fake.rs`), which needs no moto and runs either way. Built only with
//! `--features s3`.

#[path = "common/mod.rs"]
mod common;
#[path = "s3/fake.rs"]
mod fake;
#[path = "s3/hostile.rs"]
mod hostile;

use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::{Cmd, Sandbox, exits_within, ref_of};

/// The server and the credentials tests/s3/setup.py made, or `None` (with a loud message)
/// when the tests were run without tests/s3/run.sh.
struct Server {
    endpoint: String,
    bucket: String,
}

fn server() -> Option<Server> {
    let Ok(endpoint) = std::env::var("SPILL_TEST_S3_ENDPOINT") else {
        eprintln!(
            "\n*** SKIPPED: no S3 server. Run these tests with `bash tests/s3/run.sh`, which \
             starts one (moto) and sets SPILL_TEST_S3_ENDPOINT. ***\n"
        );
        return None;
    };
    Some(Server {
        endpoint,
        bucket: std::env::var("SPILL_TEST_S3_BUCKET").expect("setup.py names the bucket"),
    })
}

/// One "machine": its own HOME and TMPDIR (so its own cache) and credentials (`a`, `b` or
/// `scoped`), using the object store under `prefix`.
struct Machine {
    sandbox: Sandbox,
    url: String,
    endpoint: String,
    key: String,
    secret: String,
}

impl Machine {
    /// The same machine reaching the store at another endpoint (a [`Proxy`]).
    fn via(mut self, endpoint: &str) -> Machine {
        self.endpoint = endpoint.to_string();
        self
    }

    fn new(server: &Server, prefix: &str, user: &str) -> Machine {
        let var = |what: &str| {
            std::env::var(format!("SPILL_TEST_S3_{}_{what}", user.to_uppercase()))
                .expect("setup.py made this user")
        };
        Machine {
            sandbox: Sandbox::new(),
            url: format!("s3://{}/{prefix}", server.bucket),
            endpoint: server.endpoint.clone(),
            key: var("KEY"),
            secret: var("SECRET"),
        }
    }

    fn cmd(&self, args: &[&str]) -> Cmd {
        self.sandbox
            .cmd(args)
            .env("SPILL_STORE", &self.url)
            .env("SPILL_S3_ENDPOINT", &self.endpoint)
            .env("SPILL_S3_TIMEOUT", "20s")
            .env("AWS_ACCESS_KEY_ID", &self.key)
            .env("AWS_SECRET_ACCESS_KEY", &self.secret)
            .env("AWS_REGION", "us-east-1")
    }

    /// `wrap` of `bytes`, which must be stored; returns the envelope.
    #[track_caller]
    fn wrap(&self, bytes: &[u8], extra: &[&str]) -> serde_json::Value {
        let mut args = vec!["wrap"];
        args.extend_from_slice(extra);
        let env = self.cmd(&args).stdin(bytes.to_vec()).run().status(0).json();
        assert_eq!(env["spilled"], true, "{env}");
        env
    }
}

/// What `cat --max-bytes 64M` prints for `bytes` read locally (from stdin): the remote answer
/// must be the same.
fn local_cat(bytes: &[u8]) -> Vec<u8> {
    let run = Sandbox::new()
        .cmd(&["cat", "-", "--max-bytes", "64M"])
        .stdin(bytes.to_vec())
        .run();
    assert!(run.stdout.len() > 1000, "{}", run.stderr);
    run.stdout
}

/// A JSON document of about `n` records.
fn records(n: usize, tag: &str) -> Vec<u8> {
    let items: Vec<String> = (0..n)
        .map(|i| format!("{{\"id\":{i},\"tag\":\"{tag}\",\"msg\":\"event number {i} ok\"}}"))
        .collect();
    format!("{{\"items\":[{}]}}\n", items.join(",")).into_bytes()
}

#[test]
fn two_machines_share_one_bucket() {
    let Some(server) = server() else { return };
    let a = Machine::new(&server, "two-machines", "a");
    let b = Machine::new(&server, "two-machines", "b");
    let doc = records(5_000, "shared");
    let env = a.wrap(&doc, &["--label", "from a"]);
    let r = env["ref"].as_str().unwrap().to_string();
    assert_eq!(r, ref_of(&doc));
    assert!(
        env.get("path").is_none(),
        "a remote entry has no local path: {env}"
    );

    // Every reading command on the other machine, whose cache is empty.
    let cat = b
        .cmd(&["cat", &r, "--max-bytes", "64M"])
        .run()
        .status(0)
        .stdout
        .clone();
    assert_eq!(
        cat,
        local_cat(&doc),
        "cat on b: the same answer as a local read of the bytes"
    );
    let shape = b.cmd(&["shape", &r]).run().status(0).out();
    assert!(shape.contains("items"), "{shape}");
    let one = b
        .cmd(&["extract", &r, "$.items[4321].id"])
        .run()
        .status(0)
        .out();
    assert!(one.contains("4321"), "{one}");
    let count = b
        .cmd(&["search", &r, "--count", "event number 42"])
        .run()
        .status(0)
        .out();
    assert!(count.contains("111"), "42, 420-429, 4200-4299: {count}");
    let ls = b.cmd(&["ls", "--json"]).run().status(0).out();
    assert!(ls.contains(&r) && ls.contains("from a"), "{ls}");

    // Removing on b removes it for a too (whose cache still holds a copy).
    b.cmd(&["rm", &r]).run().status(0);
    let run = a.cmd(&["cat", &r]).run();
    run.status(2);
    assert!(run.stderr.contains("removed"), "{}", run.stderr);
}

#[test]
fn large_output_goes_up_in_parts_and_comes_back_whole() {
    let Some(server) = server() else { return };
    let a = Machine::new(&server, "multipart", "a");
    let b = Machine::new(&server, "multipart", "b");
    // Over the 8 MiB part size: a multipart upload of three parts.
    let doc = records(300_000, "big");
    assert!(doc.len() > 16 << 20, "{}", doc.len());
    let r = a.wrap(&doc, &[])["ref"].as_str().unwrap().to_string();
    let count = b
        .cmd(&["search", &r, "--count", "\"big\""])
        .run()
        .status(0)
        .out();
    assert!(count.contains("300000"), "{count}");
    // The same output again: already there, not an error.
    assert_eq!(a.wrap(&doc, &[])["ref"], r.as_str());
}

#[test]
fn concurrent_writers_of_same_and_different_content() {
    let Some(server) = server() else { return };
    let prefix = "concurrent";
    let same = records(3_000, "same");
    let inputs = [
        same.clone(),
        same.clone(),
        records(3_000, "x"),
        records(3_000, "y"),
    ];
    let machines: Vec<Machine> = (0..4).map(|_| Machine::new(&server, prefix, "a")).collect();
    let children: Vec<_> = machines
        .iter()
        .zip(&inputs)
        .map(|(m, input)| {
            let mut child = m.cmd(&["wrap"]).spawn_piped();
            let mut stdin = child.stdin.take().unwrap();
            let input = input.clone();
            std::thread::spawn(move || std::io::Write::write_all(&mut stdin, &input).unwrap());
            child
        })
        .collect();
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(0));
        let env: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(env["spilled"], true, "{env}");
    }
    let ls = machines[0].cmd(&["ls", "--json"]).run().status(0).out();
    for input in [&inputs[0], &inputs[2], &inputs[3]] {
        assert!(ls.contains(&ref_of(input)), "{ls}");
    }
    assert_eq!(ls.matches("\"sp_").count(), 3, "{ls}");
}

#[test]
fn gc_evicts_by_quota_and_expires_by_ttl() {
    let Some(server) = server() else { return };
    let a = Machine::new(&server, "gc", "a");
    let docs: Vec<Vec<u8>> = (0..3).map(|i| records(2_000, &format!("gc{i}"))).collect();
    // A second apart: the store's clock (Last-Modified) counts whole seconds.
    let pause = || std::thread::sleep(std::time::Duration::from_millis(1100));
    let refs: Vec<String> = docs
        .iter()
        .map(|d| {
            pause();
            a.wrap(d, &[])["ref"].as_str().unwrap().to_string()
        })
        .collect();
    // Read the first again (with a TTL short enough that the read refreshes its last access)
    // so the second is the least recently used.
    pause();
    a.cmd(&["cat", &refs[0], "--ttl", "20s"]).run().status(0);
    let quota = (docs[0].len() * 2 + 10).to_string();
    let gc = a
        .cmd(&["gc", "--json", "--quota", &quota])
        .run()
        .status(0)
        .out();
    assert!(gc.contains(&refs[1]) && gc.contains("evicted"), "{gc}");
    assert!(!gc.contains(&refs[0]), "{gc}");
    let run = a.cmd(&["cat", &refs[1]]).run();
    run.status(2);
    assert!(run.stderr.contains("evicted"), "{}", run.stderr);

    std::thread::sleep(std::time::Duration::from_millis(2100));
    let gc = a
        .cmd(&["gc", "--json", "--ttl", "1s"])
        .run()
        .status(0)
        .out();
    assert!(gc.contains(&refs[0]) && gc.contains("expired"), "{gc}");
    let run = a.cmd(&["cat", &refs[2]]).run();
    run.status(2);
    assert!(run.stderr.contains("expired"), "{}", run.stderr);
    assert_eq!(
        a.cmd(&["ls", "--json"])
            .run()
            .status(0)
            .out()
            .matches("\"sp_")
            .count(),
        0
    );
}

#[test]
fn wrong_credentials_degrade_wrap_and_fail_readers() {
    let Some(server) = server() else { return };
    let a = Machine::new(&server, "wrong-creds", "a");
    let doc = records(3_000, "creds");
    let r = a.wrap(&doc, &[])["ref"].as_str().unwrap().to_string();
    let bad = |cmd: Cmd| cmd.env("AWS_SECRET_ACCESS_KEY", "not-the-secret");
    let env = bad(a.cmd(&["wrap"]))
        .stdin(doc.clone())
        .run()
        .status(0)
        .json();
    assert_eq!(env["spilled"], false, "{env}");
    let error = env["error"].as_str().unwrap();
    assert!(error.contains("credentials"), "{error}");
    assert!(
        !error.contains(&server.bucket) && !error.contains(&server.endpoint),
        "{error}"
    );
    assert!(
        env.get("preview").is_some() || env.get("shape").is_some(),
        "{env}"
    );
    let run = bad(a.cmd(&["cat", &r])).run();
    run.status(2);
    assert!(run.stderr.contains("credentials"), "{}", run.stderr);
}

#[test]
fn an_unreachable_or_silent_server_degrades_wrap_in_bounded_time() {
    let Some(server) = server() else { return };
    let a = Machine::new(&server, "down", "a");
    // Accepts connections and never answers.
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let silent_url = format!("http://{}", silent.local_addr().unwrap());
    let closed = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        format!("http://{}", l.local_addr().unwrap())
    };
    let doc = records(3_000, "down");
    for endpoint in [&silent_url, &closed] {
        let env = a
            .cmd(&["wrap"])
            .env("SPILL_S3_ENDPOINT", endpoint)
            .env("SPILL_S3_TIMEOUT", "1s")
            .stdin(doc.clone())
            .run()
            .status(0)
            .json();
        assert_eq!(env["spilled"], false, "{env}");
        assert!(
            env["error"].as_str().unwrap().contains("object store"),
            "{env}"
        );
        let run = a
            .cmd(&["cat", &ref_of(&doc)])
            .env("SPILL_S3_ENDPOINT", endpoint)
            .env("SPILL_S3_TIMEOUT", "1s")
            .run();
        run.status(2);
        assert!(run.stderr.contains("object store"), "{}", run.stderr);
    }
    drop(silent);
}

#[test]
fn scope_credentials_cannot_read_another_scopes_prefix() {
    let Some(server) = server() else { return };
    let admin = Machine::new(&server, "shared", "a");
    let scoped = Machine::new(&server, "shared", "scoped");
    let mine = records(2_000, "scope-a");
    let theirs = records(2_000, "scope-b");
    let r_mine = scoped.wrap(&mine, &["--scope", "scope-a"])["ref"]
        .as_str()
        .unwrap()
        .to_string();
    let r_theirs = admin.wrap(&theirs, &["--scope", "scope-b"])["ref"]
        .as_str()
        .unwrap()
        .to_string();
    let got = scoped
        .cmd(&["--scope", "scope-a", "cat", &r_mine, "--max-bytes", "64M"])
        .run();
    assert_eq!(got.status(0).stdout, local_cat(&mine));
    let run = scoped.cmd(&["--scope", "scope-b", "cat", &r_theirs]).run();
    run.status(2);
    assert!(run.stderr.contains("denied"), "{}", run.stderr);
    // Nor may they write there: wrap degrades instead.
    let env = scoped
        .cmd(&["wrap", "--scope", "scope-b"])
        .stdin(records(2_100, "intruder"))
        .run()
        .status(0)
        .json();
    assert_eq!(env["spilled"], false, "{env}");
    // Its own gc (restricted mode: its scope only) lists its prefix's objects and uploads.
    let gc = scoped
        .cmd(&["gc", "--json"])
        .env("SPILL_RESTRICTED", "1")
        .env("SPILL_SCOPE", "scope-a")
        .run();
    gc.status(0);
}

#[test]
fn restricted_mode_names_no_bucket_or_endpoint() {
    let Some(server) = server() else { return };
    let a = Machine::new(&server, "restricted", "a");
    let run = a
        .cmd(&["cat", "sp_0123456789abcdef"])
        .env("SPILL_RESTRICTED", "1")
        .env("AWS_SECRET_ACCESS_KEY", "wrong")
        .run();
    run.status(2);
    assert!(!run.stderr.contains(&server.bucket), "{}", run.stderr);
    assert!(!run.stderr.contains("127.0.0.1"), "{}", run.stderr);
}

/// Replaces an object's bytes behind spill's back, with machine `a`'s credentials (boto3, from
/// the venv tests/s3/run.sh made).
fn overwrite(server: &Server, key: &str, bytes: &[u8]) {
    let python = std::env::var("SPILL_TEST_S3_PYTHON").expect("run.sh names its python");
    let script = "import boto3, os, sys\n\
        boto3.client('s3', endpoint_url=os.environ['E'], region_name='us-east-1',\n\
            aws_access_key_id=os.environ['SPILL_TEST_S3_A_KEY'],\n\
            aws_secret_access_key=os.environ['SPILL_TEST_S3_A_SECRET'],\n\
        ).put_object(Bucket=os.environ['B'], Key=os.environ['K'], Body=sys.stdin.buffer.read())\n";
    let mut child = std::process::Command::new(python)
        .args(["-c", script])
        .env("E", &server.endpoint)
        .env("B", &server.bucket)
        .env("K", key)
        .stdin(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(child.stdin.as_mut().unwrap(), bytes).unwrap();
    assert!(child.wait().unwrap().success());
}

#[test]
fn downloaded_bytes_that_do_not_match_their_hash_are_never_used() {
    let Some(server) = server() else { return };
    let a = Machine::new(&server, "tamper", "a");
    let b = Machine::new(&server, "tamper", "b");
    let doc = records(3_000, "genuine");
    let r = a.wrap(&doc, &[])["ref"].as_str().unwrap().to_string();
    let mut forged = doc.clone();
    forged[20] = b'X';
    overwrite(&server, &format!("tamper/default/{}", &r[3..]), &forged);
    let run = b.cmd(&["cat", &r]).run();
    run.status(2);
    assert!(run.stderr.contains("does not match"), "{}", run.stderr);
    assert!(run.stdout.is_empty());
    // A large one, read by ranges (which cannot be hashed): an object spill did not write (it
    // lacks the hash in its metadata) is refused all the same.
    let log = build_log(2 << 20);
    let r = a.wrap(&log, &[])["ref"].as_str().unwrap().to_string();
    let mut forged = log.clone();
    forged[20] = b'X';
    overwrite(&server, &format!("tamper/default/{}", &r[3..]), &forged);
    let run = b.cmd(&["cat", &r]).run();
    run.status(2);
    assert!(
        run.stderr.contains("not the one its record"),
        "{}",
        run.stderr
    );
    assert!(run.stdout.is_empty());
}

/// A TCP proxy in front of the S3 server: it counts the bytes it carries each way (what a
/// command really moved over the network), and it can stop "the server": every connection is
/// cut and new ones are closed at once, until [`Proxy::restart`]. (Killing moto itself would
/// prove nothing afterwards: it keeps everything in memory, so a restarted moto holds no
/// object either way.)
struct Proxy {
    url: String,
    from_server: Arc<AtomicU64>,
    to_server: Arc<AtomicU64>,
    down: Arc<AtomicBool>,
    /// Once this many bytes went to the server, it stops (0: never).
    stop_after: Arc<AtomicU64>,
}

impl Proxy {
    fn start(server: &Server) -> Proxy {
        let upstream = server
            .endpoint
            .strip_prefix("http://")
            .expect("run.sh serves http")
            .to_string();
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let proxy = Proxy {
            url: format!("http://{}", listener.local_addr().unwrap()),
            from_server: Arc::default(),
            to_server: Arc::default(),
            down: Arc::default(),
            stop_after: Arc::default(),
        };
        let live: Arc<Mutex<Vec<TcpStream>>> = Arc::default();
        let (from_server, to_server, down, stop_after) = (
            proxy.from_server.clone(),
            proxy.to_server.clone(),
            proxy.down.clone(),
            proxy.stop_after.clone(),
        );
        std::thread::spawn(move || {
            for client in listener.incoming() {
                let Ok(client) = client else { continue };
                if down.load(Ordering::SeqCst) {
                    drop(client);
                    continue;
                }
                let server = TcpStream::connect(&upstream).unwrap();
                live.lock().unwrap().push(client.try_clone().unwrap());
                live.lock().unwrap().push(server.try_clone().unwrap());
                let pump = |mut from: TcpStream, mut to: TcpStream, count: Arc<AtomicU64>| {
                    let (down, stop_after, live) = (down.clone(), stop_after.clone(), live.clone());
                    let upward = Arc::ptr_eq(&count, &to_server);
                    std::thread::spawn(move || {
                        let mut buf = vec![0u8; 64 << 10];
                        loop {
                            let n = match from.read(&mut buf) {
                                Ok(0) | Err(_) => break,
                                Ok(n) => n,
                            };
                            if down.load(Ordering::SeqCst) || to.write_all(&buf[..n]).is_err() {
                                break;
                            }
                            let total = count.fetch_add(n as u64, Ordering::SeqCst) + n as u64;
                            let limit = stop_after.load(Ordering::SeqCst);
                            if upward && limit > 0 && total >= limit {
                                down.store(true, Ordering::SeqCst);
                                for s in live.lock().unwrap().drain(..) {
                                    let _ = s.shutdown(Shutdown::Both);
                                }
                                break;
                            }
                        }
                        let _ = to.shutdown(Shutdown::Write);
                    });
                };
                pump(
                    client.try_clone().unwrap(),
                    server.try_clone().unwrap(),
                    to_server.clone(),
                );
                pump(server, client, from_server.clone());
            }
        });
        proxy
    }

    /// Bytes carried from the server so far.
    fn bytes_from_server(&self) -> u64 {
        self.from_server.load(Ordering::SeqCst)
    }

    /// Stops the server once `n` more bytes went to it.
    fn stop_after(&self, n: u64) {
        let sent = self.to_server.load(Ordering::SeqCst);
        self.stop_after.store(sent + n, Ordering::SeqCst);
    }

    fn is_down(&self) -> bool {
        self.down.load(Ordering::SeqCst)
    }

    fn restart(&self) {
        self.stop_after.store(0, Ordering::SeqCst);
        self.down.store(false, Ordering::SeqCst);
    }
}

/// A build log of about `size` bytes: numbered lines of varied length.
fn build_log(size: usize) -> Vec<u8> {
    let mut log = Vec::with_capacity(size + 200);
    let mut i = 0u64;
    while log.len() < size {
        i += 1;
        let pad = "=".repeat((i % 61) as usize);
        writeln!(
            log,
            "{i:>9} Compiling crate-{} v0.{}.{} {pad} ok",
            i % 977,
            i % 13,
            i % 7
        )
        .unwrap();
    }
    log
}

/// What boto3 (machine `a`'s credentials) sees under `prefix`: the keys of the objects, and the
/// keys of the multipart uploads in progress.
fn bucket_holds(server: &Server, prefix: &str) -> (Vec<String>, Vec<String>) {
    let python = std::env::var("SPILL_TEST_S3_PYTHON").expect("run.sh names its python");
    let script = "import boto3, json, os\n\
        s3 = boto3.client('s3', endpoint_url=os.environ['E'], region_name='us-east-1',\n\
            aws_access_key_id=os.environ['SPILL_TEST_S3_A_KEY'],\n\
            aws_secret_access_key=os.environ['SPILL_TEST_S3_A_SECRET'])\n\
        b, p = os.environ['B'], os.environ['P']\n\
        keys = [o['Key'] for o in s3.list_objects_v2(Bucket=b, Prefix=p).get('Contents', [])]\n\
        ups = [u['Key'] for u in s3.list_multipart_uploads(Bucket=b, Prefix=p).get('Uploads', [])]\n\
        print(json.dumps([keys, ups]))\n";
    let out = std::process::Command::new(python)
        .args(["-c", script])
        .env("E", &server.endpoint)
        .env("B", &server.bucket)
        .env("P", prefix)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let [keys, uploads]: [Vec<String>; 2] = serde_json::from_slice(&out.stdout).unwrap();
    (keys, uploads)
}

/// Every file under `dir` named `name`.
fn files_named(dir: &std::path::Path, name: &str) -> Vec<std::path::PathBuf> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            found.extend(files_named(&path, name));
        } else if path.file_name().is_some_and(|n| n == name) {
            found.push(path);
        }
    }
    found
}

#[test]
fn cat_of_a_large_remote_entry_moves_what_it_prints_not_the_payload() {
    let Some(server) = server() else { return };
    let proxy = Proxy::start(&server);
    let a = Machine::new(&server, "ranged", "a");
    let b = Machine::new(&server, "ranged", "b").via(&proxy.url);
    let log = build_log(100 << 20);
    let r = a.wrap(&log, &[])["ref"].as_str().unwrap().to_string();
    // The same bytes read locally, as a file: the answer every window must give.
    let here = Sandbox::new();
    let file = here.file("build.log", &log);
    let file = file.to_str().unwrap();
    let lines = log.iter().filter(|&&b| b == b'\n').count();
    let near_end = format!("{}:", lines - 5);
    let middle = format!("{}:{}", lines / 2, lines / 2 + 199);
    let windows: [&[&str]; 7] = [
        &[],
        &["--lines", middle.as_str()],
        &["--lines", near_end.as_str()],
        &["--lines", "900000:2000000"],
        &["--bytes", "52428800:52429800"],
        &["--bytes", "104857000:"],
        &["--hex", "--lines", "77:78"],
    ];
    for window in windows {
        let before = proxy.bytes_from_server();
        let remote = b.cmd(&[&["cat", r.as_str()][..], window].concat()).run();
        let moved = proxy.bytes_from_server() - before;
        let local = here.cmd(&[&["cat", file][..], window].concat()).run();
        remote.status(0);
        assert_eq!(remote.stdout, local.stdout, "cat {window:?}");
        assert_eq!(remote.stderr, local.stderr, "cat {window:?}");
        assert!(
            !remote.stdout.is_empty() || window[0] == "--bytes",
            "{window:?}"
        );
        eprintln!(
            "cat {window:?}: printed {} bytes, moved {moved} bytes",
            remote.stdout.len()
        );
        // The window (what is printed and less than a 64 KiB block before it), at most twice
        // over as the chunks double from 64 KiB, the record and the line index (about 30 KB):
        // never the 100 MB payload.
        assert!(
            moved < 2 * remote.stdout.len() as u64 + (384 << 10),
            "cat {window:?} moved {moved} bytes to print {}",
            remote.stdout.len()
        );
    }
    // Nothing went into b's cache; a whole-payload reader downloads it (the count is real).
    assert!(files_named(b.sandbox.path(), &r[3..]).is_empty());
    let before = proxy.bytes_from_server();
    b.cmd(&["search", &r, "--count", "Compiling"])
        .run()
        .status(0);
    assert!(proxy.bytes_from_server() - before >= log.len() as u64);
    assert_eq!(files_named(b.sandbox.path(), &r[3..]).len(), 1);
}

#[test]
fn cat_of_a_remote_log_with_escape_sequences_shows_the_cleaned_view() {
    let Some(server) = server() else { return };
    let a = Machine::new(&server, "ranged-ansi", "a");
    let b = Machine::new(&server, "ranged-ansi", "b");
    let mut log = build_log(3 << 20);
    log.extend_from_slice(b"\x1b[1;31merror\x1b[0m: 10%\r50%\r100%\n");
    let r = a.wrap(&log, &[])["ref"].as_str().unwrap().to_string();
    let here = Sandbox::new();
    let file = here.file("build.log", &log);
    let file = file.to_str().unwrap();
    let tail = format!("{}:", log.iter().filter(|&&b| b == b'\n').count() - 3);
    let windows: [&[&str]; 3] = [
        &["--lines", tail.as_str()],
        &["--bytes", "3145000:"],
        &["--raw", "--lines", "5:6"],
    ];
    for window in windows {
        let remote = b.cmd(&[&["cat", r.as_str()][..], window].concat()).run();
        let local = here.cmd(&[&["cat", file][..], window].concat()).run();
        remote.status(0);
        assert_eq!(remote.stdout, local.stdout, "cat {window:?}");
        assert_eq!(remote.stderr, local.stderr, "cat {window:?}");
    }
}

#[test]
fn the_server_stopped_mid_upload_leaves_no_object_and_gc_counts_then_aborts_the_upload() {
    let Some(server) = server() else { return };
    let proxy = Proxy::start(&server);
    let a = Machine::new(&server, "stopped", "a").via(&proxy.url);
    let small = records(2_000, "small");
    let r_small = a.wrap(&small, &[])["ref"].as_str().unwrap().to_string();
    // Over two 8 MiB parts; the server stops once the first part is in and the second going.
    let big = build_log(20 << 20);
    let hex = &ref_of(&big)[3..];
    proxy.stop_after(10 << 20);
    let mut child = a.cmd(&["wrap"]).env("SPILL_S3_TIMEOUT", "3s").spawn_piped();
    let mut stdin = child.stdin.take().unwrap();
    let input = big.clone();
    let feeder = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    assert!(
        exits_within(&mut child, Duration::from_secs(60)),
        "wrap hung"
    );
    feeder.join().unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let env: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(env["spilled"], false, "{env}");
    assert!(
        env["error"].as_str().unwrap().contains("object store"),
        "{env}"
    );
    assert!(proxy.is_down());

    proxy.restart();
    let (keys, uploads) = bucket_holds(&server, "stopped/");
    assert!(
        keys.iter().all(|k| !k.contains(hex)),
        "nothing under the payload's name: {keys:?}"
    );
    assert_eq!(
        uploads,
        [format!("stopped/default/{hex}")],
        "the interrupted upload"
    );
    // Its first part counts toward the quota: with room for it but not also the small entry,
    // the small entry is evicted; the upload is too young to be taken for an abandoned one.
    let quota = ((8 << 20) + small.len() / 2).to_string();
    let gc = a
        .cmd(&["gc", "--json", "--dry-run", "--quota", &quota])
        .run()
        .status(0)
        .json();
    assert!(gc["usageBytes"].as_u64().unwrap() >= 8 << 20, "{gc}");
    let removed = gc["removed"].as_array().unwrap();
    assert_eq!(removed.len(), 1, "{gc}");
    assert_eq!(removed[0]["ref"], r_small.as_str(), "{gc}");
    assert_eq!(removed[0]["reason"], "evicted", "{gc}");
    // Older than the TTL (an entry written more slowly than it is meant to live): aborted.
    std::thread::sleep(Duration::from_millis(2100));
    let gc = a
        .cmd(&["gc", "--json", "--ttl", "2s"])
        .run()
        .status(0)
        .json();
    let aborted: Vec<_> = gc["removed"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|x| x["reason"] == "temp")
        .collect();
    assert_eq!(aborted.len(), 1, "{gc}");
    assert_eq!(aborted[0]["ref"], format!("sp_{hex}").as_str(), "{gc}");
    assert!(aborted[0]["sizeBytes"].as_u64().unwrap() >= 8 << 20, "{gc}");
    assert_eq!(bucket_holds(&server, "stopped/").1, Vec::<String>::new());
    // The same output again, with the server up: stored and read back whole.
    let r = a.wrap(&big, &[])["ref"].as_str().unwrap().to_string();
    let count = a
        .cmd(&["search", &r, "--count", "Compiling"])
        .run()
        .status(0)
        .out();
    let lines = big.iter().filter(|&&b| b == b'\n').count();
    assert!(count.contains(&lines.to_string()), "{count}");
}

#[test]
fn settings_come_from_profile_files_and_the_cache_from_tmpdir() {
    let Some(server) = server() else { return };
    let a = Machine::new(&server, "profiles", "a");
    let sandbox = Sandbox::new();
    let aws = sandbox.path().join(".aws");
    std::fs::create_dir(&aws).unwrap();
    std::fs::write(
        aws.join("credentials"),
        format!(
            "[default]\naws_access_key_id = nobody\naws_secret_access_key = nothing\n\
             [work]\naws_access_key_id = {}\naws_secret_access_key = {}\n",
            a.key, a.secret
        ),
    )
    .unwrap();
    let config = sandbox.file("aws-config", "[profile work]\nregion = us-east-1\n");
    let cmd = |args: &[&str]| {
        sandbox
            .cmd(args)
            .env("SPILL_STORE", &a.url)
            .env("SPILL_S3_ENDPOINT", &a.endpoint)
            .env("AWS_PROFILE", "work")
            .env("AWS_CONFIG_FILE", &config)
    };
    let doc = records(3_000, "profile");
    let env = cmd(&["wrap"]).stdin(doc.clone()).run().status(0).json();
    assert_eq!(env["spilled"], true, "{env}");
    let r = env["ref"].as_str().unwrap();
    // The cache is ${TMPDIR}/spill-<uid>-s3-<hex16>, TMPDIR being the sandbox here.
    let cached = files_named(sandbox.path(), &r[3..]);
    assert_eq!(cached.len(), 1, "{cached:?}");
    let dir = cached[0].parent().unwrap().parent().unwrap();
    let uid = unsafe { libc::geteuid() };
    let name = dir.file_name().unwrap().to_str().unwrap();
    assert!(name.starts_with(&format!("spill-{uid}-s3-")), "{name}");
    assert_eq!(dir.parent().unwrap(), sandbox.path());
    // The default profile's credentials are refused; SPILL_S3_CACHE (relative) moves the cache.
    let run = cmd(&["cat", r]).env("AWS_PROFILE", "default").run();
    run.status(2);
    assert!(run.stderr.contains("credentials"), "{}", run.stderr);
    let mut moved = cmd(&["cat", r])
        .env("SPILL_S3_CACHE", "elsewhere")
        .into_command();
    moved.current_dir(sandbox.path());
    let out = moved.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        files_named(&sandbox.path().join("elsewhere"), &r[3..]).len(),
        1
    );
}

#[test]
fn mcp_reads_a_large_remote_entry_by_ranges_and_names_its_type() {
    let Some(server) = server() else { return };
    let a = Machine::new(&server, "mcp", "a");
    let b = Machine::new(&server, "mcp", "b");
    let log = build_log(3 << 20);
    let r = a.wrap(&log, &[])["ref"].as_str().unwrap().to_string();
    let read = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "resources/read",
                                  "params": {"uri": format!("spill://default/{r}")}});
    let script = [
        r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}"#.to_string(),
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.to_string(),
        read.to_string(),
    ]
    .join("\n")
        + "\n";
    let run = b.cmd(&["mcp"]).stdin(script).run();
    run.status(0);
    let answer: serde_json::Value = run
        .out()
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .find(|v| v["id"] == 1)
        .unwrap_or_else(|| panic!("no answer: {}", run.out()));
    let content = &answer["result"]["contents"][0];
    assert_eq!(content["mimeType"], "text/plain", "{answer}");
    let here = Sandbox::new();
    let file = here.file("build.log", &log);
    let page = here.cmd(&["cat", file.to_str().unwrap()]).run().out();
    assert_eq!(content["text"].as_str(), Some(page.as_str()), "{answer}");
    assert!(files_named(b.sandbox.path(), &r[3..]).is_empty());
}
