//! `wrap --redact` (inline, stored, envelope; every token family; chunk boundaries) and the
//! per-turn inline budget across separate processes.

use std::process::Stdio;

use crate::common::Sandbox;

const SECRETS: &[&str] = &[
    "sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
    "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789-_xx",
    "ghp_a1B2a1B2a1B2a1B2a1B2a1B2a1B2a1B2a1B2",
    "gho_Z9y8Z9y8Z9y8Z9y8Z9y8Z9y8Z9y8Z9y8Z9y8",
    "ghs_Q1w2Q1w2Q1w2Q1w2Q1w2Q1w2Q1w2Q1w2Q1w2",
    "ghu_E3r4E3r4E3r4E3r4E3r4E3r4E3r4E3r4E3r4",
    "github_pat_11ABCDEFG0_x1Y2x1Y2x1Y2x1Y2x1Y2x1Y2x1Y2x1Y2x1Y2x1Y2",
    "AKIAIOSFODNN7EXAMPLE",
    "ASIAY34FZKBOKMUTVV7A",
    "xoxb-123456789012-1234567890123-AbCdEf",
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\nQyNTUxOQAAACDx\n-----END OPENSSH PRIVATE KEY-----",
    "env-secret-value-42",
];

const BEARER: &str = "Authorization: Bearer abc.DEF-123_456~xyz";

fn secret_lines() -> String {
    let mut text = String::new();
    for (i, s) in SECRETS.iter().enumerate() {
        text.push_str(&format!("item {i}: {s} done\n"));
    }
    text.push_str(&format!("{BEARER}\n"));
    text
}

#[track_caller]
fn assert_clean(bytes: &[u8]) {
    let text = String::from_utf8_lossy(bytes);
    for s in SECRETS
        .iter()
        .chain(&["abc.DEF-123_456~xyz", "b3BlbnNzaC1"])
    {
        assert!(!text.contains(s), "{s} leaked");
    }
}

#[test]
fn inline_output_is_redacted_only_when_asked() {
    let s = Sandbox::new();
    let input = secret_lines();
    let plain = s
        .cmd(&["wrap"])
        .env("DEPLOY_TOKEN", "env-secret-value-42")
        .stdin(input.clone())
        .run();
    assert_eq!(plain.stdout, input.as_bytes(), "off by default");
    for (flag, env) in [(Some("--redact"), None), (None, Some("1"))] {
        let mut args = vec!["wrap"];
        args.extend(flag);
        let mut cmd = s.cmd(&args).env("DEPLOY_TOKEN", "env-secret-value-42");
        if let Some(v) = env {
            cmd = cmd.env("SPILL_REDACT", v);
        }
        let r = cmd.stdin(input.clone()).run();
        r.status(0);
        assert_clean(&r.stdout);
        let out = r.out();
        assert_eq!(
            out.matches("[REDACTED]").count(),
            SECRETS.len() + 1,
            "{out}"
        );
        assert!(out.contains("item 12: [REDACTED] done\n"), "{out}");
        assert!(out.contains("Authorization: Bearer [REDACTED]\n"), "{out}");
    }
    assert!(
        !s.store_root().exists(),
        "redacting inline output needs no store"
    );
}

#[test]
fn spilled_output_is_redacted_in_the_file_the_envelope_and_the_ref() {
    let s = Sandbox::new();
    let mut input = Vec::new();
    for i in 0..2000 {
        input.extend_from_slice(format!("filler line {i}\n").as_bytes());
    }
    input.extend_from_slice(secret_lines().as_bytes());
    let r = s
        .cmd(&["wrap", "--redact", "--label", "deploy AKIAIOSFODNN7EXAMPLE"])
        .env("DEPLOY_TOKEN", "env-secret-value-42")
        .stdin(input)
        .run();
    r.status(0);
    assert_clean(&r.stdout);
    let env = r.json();
    assert_eq!(env["redacted"], SECRETS.len() + 1);
    assert_eq!(env["label"], "deploy [REDACTED]");
    let stored = std::fs::read(env["path"].as_str().unwrap()).unwrap();
    assert_clean(&stored);
    assert_eq!(
        env["sizeBytes"],
        stored.len(),
        "counts describe what is stored"
    );
    assert_eq!(
        &env["ref"].as_str().unwrap()[3..],
        &blake3::hash(&stored).to_hex()[..16],
        "the ref hashes the redacted bytes"
    );
    let tail = env["preview"]["tail"].to_string();
    assert!(tail.contains("[REDACTED]"), "{tail}");
    // Without --redact the same input is stored as it is, and no count is reported.
    let mut raw = Vec::new();
    for i in 0..2000 {
        raw.extend_from_slice(format!("filler line {i}\n").as_bytes());
    }
    let env = s.run(&["wrap"], raw).json();
    assert!(env.get("redacted").is_none(), "{env}");
}

#[test]
fn secrets_split_across_read_chunks_are_redacted() {
    let s = Sandbox::new();
    // wrap reads --max-inline + 1 bytes first, then fills 1 MiB chunks: put a secret across
    // each of the first two boundaries.
    let first = 1024 + 1;
    let second = first + (1 << 20);
    let a = "AKIAIOSFODNN7EXAMPLE";
    let b = "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789";
    let mut input = vec![b'.'; 3 << 20];
    for (at, secret) in [(first - 7, a), (second - 20, b)] {
        input[at - 1] = b' ';
        input[at..at + secret.len()].copy_from_slice(secret.as_bytes());
        input[at + secret.len()] = b' ';
    }
    let r = s.run(&["wrap", "--redact", "--max-inline", "1K"], input.clone());
    let env = r.status(0).json();
    assert_eq!(env["redacted"], 2, "{env}");
    let stored = std::fs::read(env["path"].as_str().unwrap()).unwrap();
    assert_clean(&stored);
    let want = input.len() - a.len() - b.len() + 2 * "[REDACTED]".len();
    assert_eq!(stored.len(), want);
    assert_eq!(&stored[first - 8..first + 4], b" [REDACTED] ");
}

#[test]
fn many_pem_headers_without_an_end_line_are_each_replaced() {
    // Each header's END line is looked for in the next 16 KiB. Done once per header this was
    // quadratic-like (10 MB of these took minutes); the searches now share what they learnt.
    let s = Sandbox::new();
    let header = "-----BEGIN RSA PRIVATE KEY-----";
    let input = format!("{header}\nMIIEowIBAAKCAQEA1x\n").repeat(40_000);
    let r = s.run(&["wrap", "--redact"], input.clone().into_bytes());
    let env = r.status(0).json();
    assert_eq!(env["redacted"], 40_000, "{env}");
    let stored = std::fs::read_to_string(env["path"].as_str().unwrap()).unwrap();
    assert_eq!(stored, input.replace(header, "[REDACTED]"));
    // An END line at the end: the first header at most 16 KiB before it opens one block that
    // runs to it; the headers before stay single replacements.
    let closed = format!("{input}-----END RSA PRIVATE KEY----- after\n");
    let env = s
        .run(&["wrap", "--redact"], closed.into_bytes())
        .status(0)
        .json();
    let stored = std::fs::read_to_string(env["path"].as_str().unwrap()).unwrap();
    let unit = input.len() / 40_000;
    let first = (0..40_000)
        .find(|k| input.len() - (k * unit + header.len()) <= 16 * 1024)
        .unwrap();
    assert_eq!(env["redacted"], first + 1, "{env}");
    let want = input[..first * unit].replace(header, "[REDACTED]") + "[REDACTED] after\n";
    assert_eq!(stored, want);
}

#[test]
fn the_size_threshold_is_measured_before_redaction() {
    let s = Sandbox::new();
    // 40 bytes that redact to more (an 8-byte secret becomes 10 bytes): still inline.
    let input = "x=aaaaaaaa and aaaaaaaa and aaaaaaaa ok\n";
    let r = s
        .cmd(&["wrap", "--redact", "--max-inline", &input.len().to_string()])
        .env("APP_SECRET", "aaaaaaaa")
        .stdin(input)
        .run();
    assert_eq!(r.out(), "x=[REDACTED] and [REDACTED] and [REDACTED] ok\n");
    // One byte over, even though redaction would make it shorter: spilled.
    let input = format!(
        "{} sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789\n",
        "y".repeat(100)
    );
    let r = s
        .cmd(&[
            "wrap",
            "--redact",
            "--max-inline",
            &(input.len() - 1).to_string(),
        ])
        .stdin(input)
        .run();
    let env = r.json();
    assert_eq!(env["spilled"], true, "{env}");
    assert_eq!(env["redacted"], 1);
}

fn turn_wrap(s: &Sandbox, turn: &str, bytes: usize, extra: &[&str]) -> bool {
    let mut args = vec!["wrap", "--turn", turn, "--turn-budget", "10K"];
    args.extend_from_slice(extra);
    let input = vec![b'z'; bytes - 1]
        .into_iter()
        .chain([b'\n'])
        .collect::<Vec<u8>>();
    let r = s.run(&args, input.clone());
    r.status(0);
    if r.stdout == input {
        true
    } else {
        assert_eq!(r.json()["spilled"], true);
        false
    }
}

#[test]
fn a_turn_budget_spills_outputs_that_would_exceed_it_across_processes() {
    let s = Sandbox::new();
    // 4 KiB each with a 10 KiB budget: two fit, the third is spilled.
    assert!(turn_wrap(&s, "t1", 4096, &[]));
    assert!(turn_wrap(&s, "t1", 4096, &[]));
    assert!(!turn_wrap(&s, "t1", 4096, &[]));
    // What still fits is inlined; spilled outputs do not count.
    assert!(turn_wrap(&s, "t1", 2048, &[]));
    // Other turns and other scopes have their own budgets.
    assert!(turn_wrap(&s, "t2", 4096, &[]));
    assert!(turn_wrap(&s, "t1", 4096, &["--scope", "other"]));
    // An output larger than the whole budget but within --max-inline is spilled.
    assert!(!turn_wrap(&s, "t3", 12 * 1024, &[]));
    // Without a turn, no budget applies.
    let r = s.run(&["wrap"], vec![b'q'; 9000]);
    assert_eq!(r.stdout.len(), 9000);
    // The environment twins.
    let r = s
        .cmd(&["wrap"])
        .env("SPILL_TURN", "t4")
        .env("SPILL_TURN_BUDGET", "1K")
        .stdin(vec![b'w'; 2000])
        .run();
    assert_eq!(r.json()["spilled"], true);
}

#[test]
fn concurrent_outputs_of_one_turn_share_the_budget_exactly() {
    let s = Sandbox::new();
    let mut children = Vec::new();
    for i in 0..8u8 {
        let mut cmd = s
            .cmd(&["wrap", "--turn", "race", "--turn-budget", "12000"])
            .into_command();
        cmd.stdin(Stdio::piped()).stdout(Stdio::piped());
        let mut child = cmd.spawn().unwrap();
        let mut stdin = child.stdin.take().unwrap();
        std::io::Write::write_all(&mut stdin, &vec![b'a' + i; 3000]).unwrap();
        drop(stdin);
        children.push(child);
    }
    let inlined = children
        .into_iter()
        .map(|c| c.wait_with_output().unwrap())
        .filter(|o| o.stdout.len() == 3000 && o.stdout[0] != b'{')
        .count();
    assert_eq!(inlined, 4);
}

/// The forms `--redact` once missed, in a JSON log big enough to be stored: JSON `\u` escapes
/// inside tokens, an environment secret holding `"` and `\` (escaped by the JSON), a PGP private
/// key block, labelled AWS secret access keys and session tokens, an AWS key id glued to a word,
/// a bearer token written with `\/`. Neither the envelope, nor the stored bytes, nor `cat`, nor
/// `extract -r` (which decodes the escapes) shows any of them, and the stored log is still JSON.
#[test]
fn json_escaped_and_labelled_secrets_reach_neither_the_store_nor_the_readers() {
    let s = Sandbox::new();
    let env_secret = r#"pa"ss\word-42"#;
    let pgp = "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQOYBF+xyz0BCADhVh8kQ2\n=Wf3a\n-----END PGP PRIVATE KEY BLOCK-----";
    let ghp = "a1B2".repeat(9);
    let values = [
        r#""key \u0041KIAIOSFODNN7EXAMPLE""#.to_string(),
        format!(r#""token ghp\u005f{ghp}""#),
        format!(
            r#""login {}""#,
            serde_json::to_string(env_secret).unwrap().trim_matches('"')
        ),
        serde_json::to_string(pgp).unwrap(),
        r#""AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI\/K7MDENG\/bPxRfiCYEXAMPLEKEY""#.to_string(),
        r#""aws_session_token = FwoGZXIvYXdzEBYaDH3Xb+8A\/k9Qxyz==""#.to_string(),
        r#""uploaded by id_AKIAZZ7QEXAMPLE2KEY4""#.to_string(),
        r#""Authorization: Bearer abc\/DEF123\/xyz789""#.to_string(),
    ];
    let mut doc = String::from("[\n");
    for i in 0..400 {
        doc.push_str(&format!("{{\"i\":{i},\"msg\":\"filler line {i}\"}},\n"));
    }
    for (i, v) in values.iter().enumerate() {
        doc.push_str(&format!("{{\"i\":{i},\"msg\":{v}}},\n"));
    }
    doc.push_str("{\"end\":true}\n]\n");
    let plain = [
        "AKIAIOSFODNN7EXAMPLE",
        &format!("ghp_{ghp}"),
        env_secret,
        "lQOYBF+xyz0BCADhVh8kQ2",
        "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "FwoGZXIvYXdzEBYaDH3Xb+8A/k9Qxyz==",
        "AKIAZZ7QEXAMPLE2KEY4",
        "abc/DEF123/xyz789",
    ];
    // What the readers would print: the plain secrets, and their escaped pieces.
    let leaks = |bytes: &[u8]| -> Vec<String> {
        let text = String::from_utf8_lossy(bytes);
        plain
            .iter()
            .map(|p| p.to_string())
            .chain(
                [
                    "KIAIOSFODNN7",
                    &ghp,
                    "word-42",
                    "xyz0BCADhVh8k",
                    "bPxRfiCY",
                    "H3Xb",
                    "ZZ7QEXAMPLE2KEY4",
                    "DEF123",
                ]
                .map(String::from),
            )
            .filter(|p| text.contains(p.as_str()))
            .collect()
    };
    let r = s
        .cmd(&["wrap", "--redact", "--max-inline", "1K"])
        .env("APP_PASSWORD", env_secret)
        .stdin(doc.clone())
        .run();
    r.status(0);
    assert_eq!(leaks(&r.stdout), Vec::<String>::new(), "envelope");
    let env = r.json();
    assert_eq!(env["redacted"], values.len(), "{env}");
    let reference = env["ref"].as_str().unwrap().to_string();
    let stored = std::fs::read(env["path"].as_str().unwrap()).unwrap();
    assert_eq!(leaks(&stored), Vec::<String>::new(), "stored bytes");
    let parsed: serde_json::Value = serde_json::from_slice(&stored).expect("still JSON");
    assert_eq!(
        leaks(parsed.to_string().as_bytes()),
        Vec::<String>::new(),
        "decoded"
    );
    assert_eq!(env["mimeType"], "application/json", "{env}");
    for args in [
        vec!["cat", &reference, "--lines", "400:415"],
        vec!["extract", &reference, "$[*].msg", "-r", "--unbounded"],
        vec!["extract", &reference, "$..*", "--unbounded"],
        vec!["search", &reference, "REDACTED", "--max-columns", "0"],
    ] {
        let r = s.run(&args, "");
        r.status(0);
        assert_eq!(leaks(&r.stdout), Vec::<String>::new(), "{args:?}");
    }
    let r = s.run(&["extract", &reference, "$[400:408].msg", "-r"], "");
    assert_eq!(
        r.out(),
        "key [REDACTED]\ntoken [REDACTED]\nlogin [REDACTED]\n[REDACTED]\n\
         AWS_SECRET_ACCESS_KEY=[REDACTED]\naws_session_token = [REDACTED]\n\
         uploaded by id_[REDACTED]\nAuthorization: Bearer [REDACTED]\n"
    );
    // The same document inline (under --max-inline): redacted the same way.
    let r = s
        .cmd(&["wrap", "--redact", "--max-inline", "1M"])
        .env("APP_PASSWORD", env_secret)
        .stdin(doc.clone())
        .run();
    assert_eq!(leaks(&r.stdout), Vec::<String>::new(), "inline");
    assert_eq!(r.stdout, stored, "inline and stored bytes agree");
}

/// A secret split across wrap's read chunks in escaped form (a `\u0041` cut in two by the
/// first read) is still found.
#[test]
fn an_escape_split_across_read_chunks_is_still_decoded() {
    let s = Sandbox::new();
    // wrap reads --max-inline + 1 bytes first: put the boundary inside the escape.
    let first = 1024 + 1;
    let token = r"\u0041KIAIOSFODNN7EXAMPLE";
    let mut input = vec![b'.'; 3 << 20];
    for at in [first - 3, first + (1 << 20) - 5] {
        input[at - 1] = b' ';
        input[at..at + token.len()].copy_from_slice(token.as_bytes());
        input[at + token.len()] = b' ';
    }
    let env = s
        .run(&["wrap", "--redact", "--max-inline", "1K"], input)
        .status(0)
        .json();
    assert_eq!(env["redacted"], 2, "{env}");
    let stored = std::fs::read(env["path"].as_str().unwrap()).unwrap();
    assert_eq!(&stored[first - 4..first + 11], b" [REDACTED] ...");
    assert!(!String::from_utf8_lossy(&stored).contains("KIA"));
}
