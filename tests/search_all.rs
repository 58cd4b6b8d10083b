//! `spill search --all` through the real binary: every stored output of the scope, newest
//! first, rows labelled with their ref, bounded, and paged by a cursor that resumes exactly
//! where a page ended; and the pointer envelope of a repeated output.

use serde_json::Value;

use crate::common::{Run, Sandbox, spilled};

/// An output of `rows` lines whose lines `hits` (1-based) say `HIT TAG-N`; the rest is filler
/// long enough to be stored.
fn output(tag: &str, rows: u64, hits: &[u64]) -> String {
    (1..=rows)
        .map(|i| match hits.contains(&i) {
            true => format!("HIT {tag}-{i}\n"),
            false => format!("{tag} filler line {i} of the output\n"),
        })
        .collect()
}

/// Stores the outputs in order (so the last is the newest); returns their refs.
fn store(s: &Sandbox, outputs: &[String]) -> Vec<String> {
    outputs
        .iter()
        .map(|o| spilled(s.cmd(&["wrap"]).stdin(o.clone())))
        .collect()
}

/// The `--resume` cursor a page's footer names, if any.
fn next_cursor(r: &Run) -> Option<String> {
    let at = r.stderr.find("next: --all --resume ")?;
    let rest = &r.stderr[at + "next: --all --resume ".len()..];
    Some(rest.split_whitespace().next().unwrap().to_string())
}

/// Every page of `search --all PATTERN EXTRA…`, following the footers: the rows in order and
/// the number of pages.
fn all_pages(s: &Sandbox, pattern: &str, extra: &[&str]) -> (Vec<String>, usize) {
    let mut rows = Vec::new();
    let mut cursor: Option<String> = None;
    for pages in 1..100 {
        let mut args = vec!["search", "--all", pattern];
        args.extend_from_slice(extra);
        if let Some(c) = &cursor {
            args.extend_from_slice(&["--resume", c]);
        }
        let r = s.run(&args, "");
        r.status(0);
        rows.extend(r.out().lines().map(str::to_string));
        cursor = next_cursor(&r);
        if cursor.is_none() {
            return (rows, pages);
        }
    }
    panic!("pagination does not end");
}

#[test]
fn hits_come_newest_first_labelled_with_their_ref_like_rg_labels_files() {
    let s = Sandbox::new();
    let refs = store(
        &s,
        &[
            output("old", 2000, &[10, 1500]),
            output("mid", 2000, &[7]),
            output("new", 2000, &[3, 4]),
        ],
    );
    let r = s.run(&["search", "--all", "HIT"], "");
    r.status(0);
    assert_eq!(
        r.out(),
        format!(
            "{new}:3:1:HIT new-3\n{new}:4:1:HIT new-4\n{mid}:7:1:HIT mid-7\n\
             {old}:10:1:HIT old-10\n{old}:1500:1:HIT old-1500\n",
            old = refs[0],
            mid = refs[1],
            new = refs[2]
        )
    );
    assert_eq!(r.stderr, "matches 1–5 of 5 in 3 outputs\n");
    // Context rows are REF-LINE-text, groups and outputs apart by `--`, as rg prints them.
    let r = s.run(&["search", "--all", "HIT mid|HIT old-10$", "-C", "1"], "");
    r.status(0);
    assert_eq!(
        r.out(),
        format!(
            "{mid}-6-mid filler line 6 of the output\n{mid}:7:1:HIT mid-7\n\
             {mid}-8-mid filler line 8 of the output\n--\n\
             {old}-9-old filler line 9 of the output\n{old}:10:1:HIT old-10\n\
             {old}-11-old filler line 11 of the output\n",
            old = refs[0],
            mid = refs[1]
        )
    );
    // -i, -w, -F and --count work across outputs as on one.
    let count = s.run(&["search", "--all", "-i", "-w", "hit", "--count"], "");
    assert_eq!(count.status(0).out(), "5\n");
    let fixed = s.run(&["search", "--all", "-F", "HIT new-4", "--count"], "");
    assert_eq!(fixed.status(0).out(), "1\n");
}

#[test]
fn pages_resume_exactly_where_they_ended_across_refs() {
    let s = Sandbox::new();
    let hits: Vec<Vec<u64>> = vec![
        (1..=7).map(|i| i * 100).collect(),
        vec![],
        vec![5, 6],
        (1..=4).map(|i| i * 50).collect(),
    ];
    let outputs: Vec<String> = hits
        .iter()
        .enumerate()
        .map(|(i, h)| output(&format!("o{i}"), 1000, h))
        .collect();
    store(&s, &outputs);
    let one = s.run(&["search", "--all", "HIT", "--limit", "1000"], "");
    let whole: Vec<String> = one.status(0).out().lines().map(str::to_string).collect();
    assert_eq!(whole.len(), 13);
    assert!(whole[0].ends_with("HIT o3-50"), "newest first: {whole:?}");
    for limit in ["1", "2", "3", "5", "13"] {
        let (rows, pages) = all_pages(&s, "HIT", &["--limit", limit]);
        assert_eq!(rows, whole, "--limit {limit}");
        assert_eq!(
            pages,
            13_usize.div_ceil(limit.parse().unwrap()),
            "--limit {limit}"
        );
    }
    // The byte bound ends pages early (and cuts the row at the edge, as on one output); the
    // cursor still loses and repeats no match.
    let at = |rows: &[String]| -> Vec<String> {
        rows.iter()
            .map(|r| r.splitn(4, ':').take(3).collect::<Vec<_>>().join(":"))
            .collect()
    };
    for bound in ["60", "100", "200"] {
        let (rows, pages) = all_pages(&s, "HIT", &["--max-bytes", bound, "--max-columns", "20"]);
        assert_eq!(at(&rows), at(&whole), "--max-bytes {bound}");
        assert!(pages > 2, "{pages}");
    }
    let r = s.run(&["search", "--all", "HIT", "--max-bytes", "60"], "");
    assert!(
        r.stderr
            .contains("(the page reached --max-bytes) · next: --all --resume sp_"),
        "{}",
        r.stderr
    );
    // --offset skips across outputs too.
    let r = s.run(
        &["search", "--all", "HIT", "--offset", "5", "--limit", "3"],
        "",
    );
    assert_eq!(
        r.status(0).out().lines().collect::<Vec<_>>(),
        whole[5..8].iter().map(String::as_str).collect::<Vec<_>>()
    );
    assert!(
        r.stderr
            .starts_with("matches 6–8 of 13 in 4 outputs · next: --all --resume ")
    );
}

#[test]
fn at_most_max_outputs_are_read_per_call_and_next_reaches_the_older_ones() {
    let s = Sandbox::new();
    let refs = store(
        &s,
        &[
            output("a", 1000, &[1]),
            output("b", 1000, &[2]),
            output("c", 1000, &[3]),
        ],
    );
    let r = s.run(&["search", "--all", "HIT", "--max-outputs", "2"], "");
    r.status(0);
    assert_eq!(
        r.out(),
        format!("{}:3:1:HIT c-3\n{}:2:1:HIT b-2\n", refs[2], refs[1])
    );
    assert!(
        r.stderr.starts_with(
            "spill: note: searched the 2 newest outputs; 1 older one is not (--max-outputs; next: reaches them)\n\
             matches 1–2 of 2 in 2 outputs · next: --all --resume "
        ),
        "{}",
        r.stderr
    );
    let cursor = next_cursor(&r).unwrap();
    assert!(cursor.starts_with(&format!("{}:0:", refs[0])), "{cursor}");
    let r = s.run(
        &[
            "search",
            "--all",
            "HIT",
            "--max-outputs",
            "2",
            "--resume",
            &cursor,
        ],
        "",
    );
    assert_eq!(r.status(0).out(), format!("{}:1:1:HIT a-1\n", refs[0]));
    assert_eq!(r.stderr, "matches 1–1 of 1 from the cursor in 1 output\n");
    // Outputs the bound leaves unsearched are never counted as "no match": a page without a
    // match in its outputs still says where to go on.
    let none = s.run(
        &["search", "--all", "HIT a", "--max-outputs", "1", "--json"],
        "",
    );
    let page = none.status(1).json();
    assert_eq!(page["totalMatches"], 0);
    assert_eq!(page["outputsSearched"], 1);
    assert_eq!(page["outputsUnsearched"], 2);
    assert_eq!(page["hasMore"], true);
    assert!(page["nextResume"].as_str().unwrap().starts_with(&refs[1]));
    // An --offset past the outputs read runs on into the older ones through the cursor.
    let r = s.run(
        &[
            "search",
            "--all",
            "HIT",
            "--max-outputs",
            "1",
            "--offset",
            "2",
        ],
        "",
    );
    r.status(0);
    let cursor = next_cursor(&r).unwrap();
    assert!(cursor.starts_with(&format!("{}:1:", refs[1])), "{cursor}");
    let r = s.run(
        &[
            "search",
            "--all",
            "HIT",
            "--max-outputs",
            "1",
            "--resume",
            &cursor,
        ],
        "",
    );
    r.status(1);
    let cursor = next_cursor(&r).unwrap();
    assert!(cursor.starts_with(&format!("{}:0:", refs[0])), "{cursor}");
    let r = s.run(&["search", "--all", "HIT", "--resume", &cursor], "");
    assert_eq!(r.status(0).out(), format!("{}:1:1:HIT a-1\n", refs[0]));
    assert_eq!(r.stderr, "matches 1–1 of 1 from the cursor in 1 output\n");
    // A skip past the cursor's own output goes on into the next: --offset 3 passes all three.
    let r = s.run(
        &[
            "search",
            "--all",
            "HIT",
            "--max-outputs",
            "1",
            "--offset",
            "3",
        ],
        "",
    );
    let cursor = next_cursor(&r).unwrap();
    assert!(cursor.starts_with(&format!("{}:2:", refs[1])), "{cursor}");
    let r = s.run(
        &["search", "--all", "HIT", "--resume", &cursor, "--json"],
        "",
    );
    let page = r.status(1).json();
    assert_eq!(page["totalMatches"], 0, "{page}");
    assert_eq!(page["hasMore"], false, "{page}");
}

#[test]
fn an_empty_scope_finds_nothing_and_says_so() {
    let s = Sandbox::new();
    let r = s.run(&["search", "--all", "anything"], "");
    r.status(1);
    assert_eq!(r.out(), "");
    assert_eq!(r.stderr, "spill: no matches for 'anything'\n");
    let json = s
        .run(&["search", "--all", "anything", "--json"], "")
        .status(1)
        .json();
    assert_eq!(json["totalMatches"], 0);
    assert_eq!(json["outputsSearched"], 0);
    assert_eq!(json["hasMore"], false);
    assert!(json.get("nextResume").is_none());
    assert_eq!(
        s.run(&["search", "--all", "x", "--count"], "")
            .status(1)
            .out(),
        "0\n"
    );
}

#[test]
fn an_output_removed_between_pages_is_skipped_and_the_next_older_one_follows() {
    let s = Sandbox::new();
    let refs = store(
        &s,
        &[
            output("a", 1000, &[1, 2]),
            output("b", 1000, &[3, 4, 5]),
            output("c", 1000, &[6]),
        ],
    );
    // Page one ends inside b (c-6, b-3).
    let r = s.run(&["search", "--all", "HIT", "--limit", "2"], "");
    assert_eq!(
        r.status(0).out(),
        format!("{}:6:1:HIT c-6\n{}:3:1:HIT b-3\n", refs[2], refs[1])
    );
    let cursor = next_cursor(&r).unwrap();
    assert!(cursor.starts_with(&format!("{}:1:", refs[1])), "{cursor}");
    // A newer output stored meanwhile does not shift the pages (it belongs to a new search).
    store(&s, &[output("d", 1000, &[9])]);
    let r = s.run(
        &[
            "search", "--all", "HIT", "--limit", "2", "--resume", &cursor,
        ],
        "",
    );
    assert_eq!(
        r.status(0).out(),
        format!("{b}:4:1:HIT b-4\n{b}:5:1:HIT b-5\n", b = refs[1])
    );
    s.run(&["rm", &refs[1]], "").status(0);
    let r = s.run(
        &[
            "search", "--all", "HIT", "--limit", "2", "--resume", &cursor,
        ],
        "",
    );
    assert_eq!(
        r.status(0).out(),
        format!("{a}:1:1:HIT a-1\n{a}:2:1:HIT a-2\n", a = refs[0])
    );
    assert!(
        r.stderr.starts_with(&format!(
            "spill: note: {}, where the previous page ended, is gone; this page starts with the next older output\n",
            refs[1]
        )),
        "{}",
        r.stderr
    );
    assert_eq!(next_cursor(&r), None);
}

#[test]
fn bad_combinations_are_usage_errors() {
    let s = Sandbox::new();
    store(&s, &[output("a", 1000, &[1])]);
    for (args, says) in [
        (
            vec!["search", "--all", "@1", "HIT"],
            "give PATTERN without a SOURCE",
        ),
        (
            vec!["search", "--all", "HIT", "--resume", "sp_12"],
            "is not a cursor",
        ),
        (
            vec![
                "search",
                "--all",
                "HIT",
                "--resume",
                "sp_0123456789abcdef:x:1",
            ],
            "is not a cursor",
        ),
        (
            vec!["search", "@1", "HIT", "--resume", "sp_0123456789abcdef:0:1"],
            "--all",
        ),
        (vec!["search", "--all", "HIT", "--paths"], "--paths"),
        (vec!["search", "--all"], "PATTERN"),
        (vec!["search", "@1", "HIT", "--max-outputs", "3"], "--all"),
    ] {
        let r = s.run(&args, "");
        r.status(2);
        assert!(r.stderr.contains(says), "{args:?}: {}", r.stderr);
    }
}

#[test]
fn running_entries_are_not_searched_and_a_note_counts_them() {
    let s = Sandbox::new();
    let refs = store(&s, &[output("a", 1000, &[1])]);
    let run = s
        .cmd(&[
            "wrap",
            "--detach-after",
            "200ms",
            "--",
            "sh",
            "-c",
            "echo HIT live; sleep 30",
        ])
        .run();
    let env = run.status(0).json();
    assert_eq!(env["running"], true, "{env}");
    let id = env["ref"].as_str().unwrap().to_string();
    let r = s.run(&["search", "--all", "HIT"], "");
    assert_eq!(r.status(0).out(), format!("{}:1:1:HIT a-1\n", refs[0]));
    assert!(
        r.stderr.starts_with(
            "spill: note: 1 running entry not searched: search one by its id (spill search ID PATTERN)\n"
        ),
        "{}",
        r.stderr
    );
    s.run(&["stop", &id], "");
}

/// A JSON-RPC `tools/call` line.
fn call(id: u64, tool: &str, arguments: Value) -> String {
    serde_json::json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": tool, "arguments": arguments}})
    .to_string()
}

#[test]
fn the_mcp_search_tool_searches_every_output_with_all() {
    let s = Sandbox::new();
    let mut refs = Vec::new();
    for (tag, hits) in [("a", vec![1u64, 2]), ("b", vec![3])] {
        let o = output(tag, 1000, &hits);
        refs.push(spilled(s.cmd(&["wrap"]).env("SPILL_SCOPE", "srv").stdin(o)));
    }
    let init = serde_json::json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "t", "version": "1"}}});
    let lines = [
        init.to_string(),
        serde_json::json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string(),
        call(
            1,
            "search",
            serde_json::json!({"all": true, "pattern": "HIT", "limit": 2}),
        ),
        call(
            2,
            "search",
            serde_json::json!({"all": true, "pattern": "HIT", "source": refs[0]}),
        ),
        call(
            3,
            "search",
            serde_json::json!({"pattern": "HIT", "resume": "sp_0123456789abcdef:0:1"}),
        ),
    ];
    let mut stdin = lines.join("\n");
    stdin.push('\n');
    let run = s.cmd(&["mcp"]).env("SPILL_SCOPE", "srv").stdin(stdin).run();
    run.status(0);
    let answers: Vec<Value> = run
        .stdout
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).unwrap())
        .collect();
    let by_id = |id: u64| answers.iter().find(|a| a["id"] == id).unwrap()["result"].clone();
    let page = by_id(1);
    let structured = &page["structuredContent"];
    assert_eq!(structured["totalMatches"], 3);
    assert_eq!(structured["matches"][0]["ref"], refs[1].as_str());
    assert_eq!(structured["matches"][1]["ref"], refs[0].as_str());
    let cursor = structured["nextResume"].as_str().unwrap().to_string();
    // The text is what the command prints, footer and all.
    let cli = s
        .cmd(&[
            "search", "--all", "HIT", "--limit", "2", "--footer", "stdout",
        ])
        .env("SPILL_SCOPE", "srv")
        .run();
    assert_eq!(page["content"][0]["text"].as_str().unwrap(), cli.out());
    assert!(
        cli.out()
            .ends_with(&format!("next: --all --resume {cursor}\n"))
    );
    for id in [2, 3] {
        assert_eq!(by_id(id)["isError"], true, "{id}");
    }
}

#[test]
fn a_repeated_output_is_a_pointer_to_the_entry_that_holds_it() {
    let s = Sandbox::new();
    let mut log = output("x", 3000, &[]);
    log.push_str("error: the build failed\n");
    let first = s.run(&["wrap"], log.clone()).status(0).json();
    assert!(first.get("repeatOf").is_none());
    assert!(first.get("preview").is_some() && first.get("signals").is_some());
    let again = s.run(&["wrap"], log.clone()).status(0).json();
    let r = first["ref"].as_str().unwrap();
    assert_eq!(again["ref"], r);
    assert_eq!(again["repeatOf"]["ref"], r);
    assert!(again["repeatOf"]["storedSecondsAgo"].as_u64().unwrap() < 60);
    let summary = again["summary"].as_str().unwrap();
    assert!(
        summary.starts_with(&format!("the same 95.6 KiB as {r} stored ")),
        "{summary}"
    );
    assert!(
        summary.ends_with(first["summary"].as_str().unwrap()),
        "{summary}"
    );
    for gone in ["preview", "signals", "shape"] {
        assert!(again.get(gone).is_none(), "{gone}: {again}");
    }
    for kept in ["sizeBytes", "lines", "hint", "path", "mimeType"] {
        assert_eq!(again[kept], first[kept], "{kept}");
    }
    assert!(again.to_string().len() < first.to_string().len() / 2);
    // The text form says the same.
    let text = s
        .run(&["wrap", "--format", "text"], log.clone())
        .status(0)
        .out();
    assert!(
        text.starts_with(&format!(
            "spill: 95.6 KiB stored as {r} — the same 95.6 KiB as {r} stored "
        )),
        "{text}"
    );
    // Another scope (another conversation) has not seen it: a whole envelope there.
    let other = s
        .cmd(&["wrap"])
        .env("SPILL_SCOPE", "other")
        .stdin(log.clone())
        .run()
        .status(0)
        .json();
    assert!(other.get("repeatOf").is_none() && other.get("preview").is_some());
    // Removed in between: stored afresh, a whole envelope again.
    s.run(&["rm", r], "").status(0);
    let fresh = s.run(&["wrap"], log).status(0).json();
    assert!(fresh.get("repeatOf").is_none() && fresh.get("preview").is_some());
}

#[test]
fn only_the_current_scope_is_searched_restricted_or_not() {
    let s = Sandbox::new();
    let mut refs = Vec::new();
    for scope in ["one", "two"] {
        let o = output(scope, 1000, &[1]);
        refs.push(spilled(s.cmd(&["wrap"]).env("SPILL_SCOPE", scope).stdin(o)));
    }
    for restricted in ["0", "1"] {
        let r = s
            .cmd(&["search", "--all", "HIT"])
            .env("SPILL_SCOPE", "two")
            .env("SPILL_RESTRICTED", restricted)
            .run();
        assert_eq!(r.status(0).out(), format!("{}:1:1:HIT two-1\n", refs[1]));
    }
}
