//! Short forms of a ref (README "Refs"): `@1`/`@last` the newest entry of the scope, `@N` the
//! one N-1 before it, `sp_` + 4 to 15 hex digits a unique prefix; follow-up commands name the
//! full ref.

use crate::common::{Sandbox, spilled};

/// Stores `bytes` (always spilled) and returns the ref.
fn store(s: &Sandbox, bytes: &[u8]) -> String {
    spilled(s.cmd(&["wrap", "--max-inline", "0"]).stdin(bytes.to_vec()))
}

#[test]
fn at_n_counts_back_from_the_newest_entry() {
    let s = Sandbox::new();
    for word in ["first", "second", "third"] {
        store(&s, format!("{word}\n").as_bytes());
    }
    for (short, want) in [
        ("@1", "third\n"),
        ("@last", "third\n"),
        ("@2", "second\n"),
        ("@3", "first\n"),
    ] {
        let run = s.run(&["cat", short], []);
        run.status(0);
        assert_eq!(run.out(), want, "{short}");
    }
    // The other readers take the short form too.
    let found = s.run(&["search", "@2", "sec", "--count"], []);
    found.status(0);
    assert_eq!(found.out().trim(), "1");

    let past = s.run(&["cat", "@4"], []);
    past.status(2);
    assert!(
        past.stderr.contains("@4") && past.stderr.contains("only 3 entries"),
        "{}",
        past.stderr
    );
}

#[test]
fn every_source_starting_with_at_is_a_short_ref_and_an_invalid_one_is_an_error() {
    let s = Sandbox::new();
    store(&s, b"stored\n");
    // Files of those names exist, and still are not what an @ argument opens.
    for bad in ["@0", "@01", "@-1", "@", "@LAST", "@foo", "@1x"] {
        std::fs::write(s.path().join(bad), "a file\n").unwrap();
        for argv in [
            vec!["cat", bad],
            vec!["search", bad, "a", "--count"],
            vec!["shape", bad],
            vec!["extract", bad, "$"],
            vec!["rm", bad],
        ] {
            let run = s.cmd(&argv).current_dir(s.path()).run();
            run.status(2);
            assert!(
                run.out().is_empty()
                    && run.stderr.contains("is not a short ref")
                    && run.stderr.contains("@last")
                    && run.stderr.contains(&format!("./{bad}")),
                "{argv:?}: {}",
                run.stderr
            );
        }
        // ./@x reaches the file.
        let file = format!("./{bad}");
        let run = s.cmd(&["cat", &file]).current_dir(s.path()).run();
        run.status(0);
        assert_eq!(run.out(), "a file\n", "{file}");
    }
    // The entry was never removed by the refused `rm`s.
    let still = s.run(&["cat", "@1"], []);
    still.status(0);
    assert_eq!(still.out(), "stored\n");
}

#[test]
fn an_empty_scope_says_so() {
    let s = Sandbox::new();
    let run = s.run(&["cat", "@1"], []);
    run.status(2);
    assert!(run.stderr.contains("no entries"), "{}", run.stderr);
}

/// Two payloads whose refs share their first four hex digits (found by hashing, as the store
/// does: the ref is the payload's BLAKE3 hash).
fn colliding_pair() -> (Vec<u8>, Vec<u8>) {
    let mut seen = std::collections::HashMap::new();
    for i in 0u32.. {
        let bytes = format!("payload {i}\n").into_bytes();
        let prefix = blake3::hash(&bytes).to_hex()[..4].to_string();
        if let Some(other) = seen.insert(prefix, bytes.clone()) {
            return (other, bytes);
        }
    }
    unreachable!()
}

#[test]
fn a_unique_prefix_resolves_and_an_ambiguous_one_lists_the_candidates() {
    let s = Sandbox::new();
    let (a, b) = colliding_pair();
    let ra = store(&s, &a);
    let rb = store(&s, &b);
    assert_eq!(ra[..7], rb[..7]);

    let ambiguous = s.run(&["cat", &ra[..7]], []);
    ambiguous.status(2);
    assert!(
        ambiguous.stderr.contains("ambiguous")
            && ambiguous.stderr.contains(&ra)
            && ambiguous.stderr.contains(&rb),
        "{}",
        ambiguous.stderr
    );
    // Enough digits to tell them apart.
    let split = (7..19).find(|&n| ra[..n] != rb[..n]).expect("refs differ");
    for (r, bytes) in [(&ra, &a), (&rb, &b)] {
        let run = s.run(&["cat", &r[..split]], []);
        run.status(0);
        assert_eq!(run.stdout, *bytes);
    }
    // A prefix no entry has is an unknown ref; restricted mode resolves prefixes as well.
    let none = if ra.as_bytes()[3] == b'0' {
        "sp_1111"
    } else {
        "sp_0000"
    };
    let unknown = s.run(&["cat", none], []);
    unknown.status(2);
    assert!(unknown.stderr.contains("unknown ref"), "{}", unknown.stderr);
    let restricted = s
        .cmd(&["cat", &ra[..split]])
        .env("SPILL_RESTRICTED", "1")
        .run();
    restricted.status(0);
    assert_eq!(restricted.stdout, a);
}

#[test]
fn a_file_named_like_a_prefix_is_still_read_as_a_file() {
    let s = Sandbox::new();
    store(&s, b"stored\n");
    s.file("sp_abcd", "the file\n");
    let out = s
        .cmd(&["cat", "sp_abcd"])
        .into_command()
        .current_dir(s.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(out.stdout, b"the file\n");
}

#[test]
fn follow_up_commands_name_the_full_ref() {
    let s = Sandbox::new();
    let doc: String = format!(
        "[{}]",
        (0..200)
            .map(|i| format!("{{\"id\":{i}}}"))
            .collect::<Vec<_>>()
            .join(",")
    );
    let r = store(&s, doc.as_bytes());
    let run = s.run(&["extract", "@1", "$[*]", "--max-items", "2"], []);
    run.status(0);
    let all = format!("{}{}", run.out(), run.stderr);
    assert!(all.contains(&format!("spill extract {r}")), "{all}");
    assert!(!all.contains("@1"), "{all}");
}

#[test]
fn rm_resolves_every_short_form_before_removing() {
    let s = Sandbox::new();
    let old = store(&s, b"old\n");
    let mid = store(&s, b"mid\n");
    let new = store(&s, b"new\n");
    let run = s.run(&["rm", "@1", "@2", "--json"], []);
    run.status(0);
    let removed = run.json()["removed"].clone();
    assert_eq!(removed, serde_json::json!([new, mid]));
    let left = s.run(&["cat", "@1"], []);
    left.status(0);
    assert_eq!(left.out(), "old\n");
    assert_eq!(s.run(&["cat", &old], []).out(), "old\n");
}

#[test]
fn ls_complete_gives_one_ref_and_label_line_per_entry_for_shells() {
    let s = Sandbox::new();
    let plain = store(&s, b"no label\n");
    let labelled = spilled(
        s.cmd(&[
            "wrap",
            "--max-inline",
            "0",
            "--label",
            "cargo\tbuild\n--release",
        ])
        .stdin(b"x\n".to_vec()),
    );
    let run = s.run(&["ls", "--complete"], []);
    run.status(0);
    let lines: Vec<&str> = run
        .stdout
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| std::str::from_utf8(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2, "{}", run.out());
    assert_eq!(lines[0], format!("{labelled}\tcargo build --release"));
    assert!(lines[1].starts_with(&format!("{plain}\t")), "{}", lines[1]);
    assert!(!lines[1][plain.len() + 1..].contains('\t'));
}
