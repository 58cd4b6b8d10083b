//! `spill stats`: every byte the model got is counted, reads included, per scope.

use crate::common::Sandbox;

fn tally(sb: &Sandbox, scope: &str) -> serde_json::Value {
    let run = sb.run(&["--scope", scope, "stats", "--json"], "");
    run.status(0);
    run.json()["scopes"][0].clone()
}

#[test]
fn the_tally_counts_every_byte_sent_and_read_exactly() {
    let sb = Sandbox::new();
    let big: String = (1..=50_000).map(|n| format!("line {n}\n")).collect();
    let small = "small output\n";
    let w1 = sb.run(&["--scope", "s", "wrap"], big.as_bytes());
    w1.status(0);
    let w2 = sb.run(&["--scope", "s", "wrap"], small);
    w2.status(0);
    assert_eq!(w2.out(), small);
    let reference = w1.json()["ref"].as_str().unwrap().to_string();
    let r1 = sb.run(&["--scope", "s", "cat", &reference, "--lines", "1:3"], "");
    r1.status(0);
    let r2 = sb.run(
        &["--scope", "s", "search", &reference, "-F", "line 49999"],
        "",
    );
    r2.status(0);
    // Another scope's reads and outputs are its own; a read of a scope with nothing makes none.
    sb.run(&["--scope", "other", "wrap"], "x\n").status(0);
    sb.run(&["--scope", "empty", "cat", &reference], "")
        .status(2);
    let bytes = |r: &crate::common::Run| (r.stdout.len() + r.stderr.len()) as u64;
    let t = tally(&sb, "s");
    assert_eq!(t["outputs"], 2);
    assert_eq!(t["stored"], 1);
    assert_eq!(t["printedBytes"], (big.len() + small.len()) as u64);
    assert_eq!(t["sentBytes"], bytes(&w1) + bytes(&w2));
    assert_eq!(t["reads"], 2);
    assert_eq!(t["readBytes"], bytes(&r1) + bytes(&r2));
    assert_eq!(
        t["toModelBytes"],
        bytes(&w1) + bytes(&w2) + bytes(&r1) + bytes(&r2)
    );
    assert_eq!(tally(&sb, "other")["outputs"], 1);
    let none = sb.run(&["--scope", "empty", "stats"], "");
    none.status(1);
    assert!(none.stderr.contains("counted nothing"), "{}", none.stderr);
    // The tally outlives the scope's entries (a conversation's end removes those).
    sb.run(&["--scope", "s", "rm", "--all"], "").status(0);
    assert_eq!(tally(&sb, "s")["outputs"], 2);
    let all = sb.run(&["stats", "--all-scopes"], "");
    all.status(0);
    assert!(
        all.out().contains("s: 2 outputs (1 stored)"),
        "{}",
        all.out()
    );
    assert!(all.out().contains("all scopes: 3 outputs"), "{}", all.out());
    let restricted = sb
        .cmd(&["stats", "--all-scopes"])
        .env("SPILL_RESTRICTED", "1")
        .run();
    restricted.status(2);
    assert!(
        restricted.stderr.contains("restricted"),
        "{}",
        restricted.stderr
    );
}

#[test]
fn a_damaged_or_hostile_ledger_never_fails_a_command() {
    let sb = Sandbox::new();
    // Stored, so the store exists (an output that passes through never makes one).
    sb.run(&["wrap", "--max-inline", "0"], "a\n").status(0);
    let ledger = sb
        .path()
        .join(format!("spill-{}", unsafe { libc::getuid() }))
        .join("@stats/default");
    assert!(ledger.is_file());
    std::fs::write(&ledger, "not a tally").unwrap();
    sb.run(&["wrap"], "b\n").status(0);
    assert_eq!(tally(&sb, "default")["outputs"], 1);
    // A link in its place is not followed: wrap still works, and nothing is written through it.
    let target = sb.path().join("elsewhere");
    std::fs::write(&target, "").unwrap();
    std::fs::remove_file(&ledger).unwrap();
    std::os::unix::fs::symlink(&target, &ledger).unwrap();
    let run = sb.run(&["wrap"], "c\n");
    run.status(0);
    assert_eq!(run.out(), "c\n");
    assert!(run.stderr.is_empty(), "{}", run.stderr);
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "");
}
