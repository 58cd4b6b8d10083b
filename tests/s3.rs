//! The object-store kind of store against a real S3 protocol server (moto, started and
//! prepared by tests/s3/run.sh, which `.ci/run` calls): README "A store shared across
//! machines". Built only with `--features s3`.

#[path = "common/mod.rs"]
mod common;

use common::{Cmd, Sandbox, ref_of};

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
}
