//! The JSONTestSuite (`tests/data/json-test-suite/`) as an outside oracle, through the real
//! binary: every `y_` file is extracted exactly (as serde_json reads it, numbers and strings as
//! written), every `n_` file is exit 2 with a byte offset, every `i_` file is the right value or
//! exit 2, and `shape` and `wrap` agree with `extract` on which files are valid.

use std::path::{Path, PathBuf};

use crate::common::{Run, Sandbox};

const SUITE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/data/json-test-suite/test_parsing"
);

/// Every file of the suite, by name. Missing or incomplete vendored data fails here, loudly:
/// the oracle is never skipped.
fn suite() -> Vec<(String, PathBuf)> {
    let dir = std::fs::read_dir(SUITE).unwrap_or_else(|e| {
        panic!("the vendored JSONTestSuite is missing ({SUITE}: {e}); see tests/data/json-test-suite/README.md")
    });
    let mut files: Vec<(String, PathBuf)> = dir
        .map(|e| e.expect("a directory entry"))
        .map(|e| (e.file_name().to_string_lossy().into_owned(), e.path()))
        .filter(|(name, _)| name.ends_with(".json"))
        .collect();
    files.sort();
    let count = |p: &str| files.iter().filter(|(n, _)| n.starts_with(p)).count();
    assert_eq!(
        (count("y_"), count("n_"), count("i_")),
        (95, 188, 35),
        "the vendored JSONTestSuite at {SUITE} is incomplete"
    );
    files
}

/// The document without insignificant whitespace (and without a UTF-8 BOM): what
/// `extract FILE '$' --compact` prints, since values are copied as written.
fn minify(doc: &[u8]) -> Vec<u8> {
    let doc = doc.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(doc);
    let (mut out, mut in_string, mut escaped) = (Vec::new(), false, false);
    for &b in doc {
        if in_string {
            out.push(b);
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
            }
        } else if !matches!(b, b' ' | b'\t' | b'\n' | b'\r') {
            out.push(b);
            in_string = b == b'"';
        }
    }
    out
}

/// The byte offset an error message names (`… at byte 12 (line 1:13) …`).
fn error_offset(stderr: &str) -> Option<u64> {
    let rest = &stderr[stderr.find(" at byte ")? + 9..];
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    rest[digits.len()..]
        .starts_with(" (line ")
        .then(|| digits.parse().ok())?
}

/// What each command made of one file.
struct Verdict {
    name: String,
    doc: Vec<u8>,
    extract: Run,
    descendants: Run,
    shape: serde_json::Value,
    wrap: Option<Envelope>,
}

/// The two fields of an envelope compared here (its JSON preview may hold numbers beyond
/// what serde_json reads into a `Value`; unknown fields are skipped without converting them).
#[derive(serde::Deserialize, Debug)]
#[serde(rename_all = "camelCase")]
struct Envelope {
    mime_type: String,
    summary: String,
}

fn judge(sandbox: &Sandbox, name: &str, path: &Path) -> Verdict {
    let file = path.to_str().expect("a UTF-8 path");
    let doc = std::fs::read(path).expect("read a suite file");
    let extract = sandbox
        .cmd(&["extract", file, "$", "--compact", "--unbounded"])
        .run();
    let descendants = sandbox
        .cmd(&["extract", file, "$..*", "--compact", "--unbounded"])
        .run();
    let shape = sandbox.cmd(&["shape", file]).run();
    assert_eq!(shape.code, Some(0), "{name}: shape: {}", shape.stderr);
    // Empty input is not spilled (nothing to store), so wrap has no verdict on it.
    let wrap = (!doc.is_empty()).then(|| {
        let run = sandbox
            .cmd(&["wrap", "--max-inline", "0"])
            .stdin(doc.clone())
            .run();
        assert_eq!(run.code, Some(0), "{name}: wrap: {}", run.stderr);
        serde_json::from_slice::<Envelope>(&run.stdout)
            .unwrap_or_else(|e| panic!("{name}: wrap printed no envelope ({e}): {}", run.out()))
    });
    Verdict {
        name: name.to_string(),
        doc,
        extract,
        descendants,
        shape: shape.json(),
        wrap,
    }
}

impl Verdict {
    /// `extract '$'` printed the document exactly (and serde_json agrees, when it reads it).
    fn assert_exact(&self) {
        let name = &self.name;
        let mut want = minify(&self.doc);
        want.push(b'\n');
        assert_eq!(
            String::from_utf8_lossy(&self.extract.stdout),
            String::from_utf8_lossy(&want),
            "{name}: extract '$' must print the document as written"
        );
        if let Ok(theirs) = serde_json::from_slice::<serde_json::Value>(&self.doc) {
            let ours: serde_json::Value = serde_json::from_slice(&self.extract.stdout)
                .unwrap_or_else(|e| panic!("{name}: extract printed invalid JSON: {e}"));
            assert_eq!(ours, theirs, "{name}: serde_json reads another value");
        }
        assert!(
            matches!(self.descendants.code, Some(0 | 1)),
            "{name}: extract '$..*' failed on a valid document: {}",
            self.descendants.stderr
        );
        assert!(
            self.shape.get("text").is_none() && self.shape.get("binary").is_none(),
            "{name}: shape calls a valid document text: {}",
            self.shape
        );
        let container = matches!(minify(&self.doc).first(), Some(b'{' | b'['));
        if let Some(wrap) = &self.wrap
            && container
        {
            assert_eq!(
                wrap.mime_type, "application/json",
                "{name}: wrap calls a valid document something else: {wrap:?}"
            );
        }
    }

    /// Both extractions are exit 2 naming an offset, and shape and wrap call it invalid at
    /// the same offset.
    fn assert_rejected(&self) {
        let name = &self.name;
        for (query, run) in [("$", &self.extract), ("$..*", &self.descendants)] {
            assert_eq!(
                run.code,
                Some(2),
                "{name}: extract '{query}' accepted an invalid document, printing {:?}",
                run.out()
            );
            assert!(run.stdout.is_empty(), "{name}: extract '{query}' printed");
            assert!(
                error_offset(&run.stderr).is_some(),
                "{name}: extract '{query}': no offset in {:?}",
                run.stderr
            );
        }
        let offset = error_offset(&self.extract.stderr);
        assert!(
            self.shape.get("text").is_some() || self.shape.get("binary").is_some(),
            "{name}: shape calls an invalid document JSON: {}",
            self.shape
        );
        if let Some(at) = self.shape.get("invalidJsonAt") {
            assert_eq!(at.as_u64(), offset, "{name}: shape and extract disagree");
        }
        if let Some(wrap) = &self.wrap {
            let mime = &wrap.mime_type;
            assert!(
                mime == "text/plain" || mime == "application/octet-stream",
                "{name}: wrap calls an invalid document {mime}"
            );
            let summary = &wrap.summary;
            if let Some(i) = summary.find("invalid at byte ") {
                let at: String = summary[i + 16..]
                    .chars()
                    .take_while(char::is_ascii_digit)
                    .collect();
                assert_eq!(at.parse().ok(), offset, "{name}: wrap and extract disagree");
            }
        }
    }
}

#[test]
fn every_file_of_the_json_test_suite() {
    let sandbox = Sandbox::new();
    let files = suite();
    // Two threads: one process per command and file, about 1,300 in all.
    let (left, right) = files.split_at(files.len() / 2);
    let verdicts: Vec<Verdict> = std::thread::scope(|s| {
        let a = s.spawn(|| {
            left.iter()
                .map(|(name, path)| judge(&sandbox, name, path))
                .collect::<Vec<_>>()
        });
        let mut b: Vec<Verdict> = right
            .iter()
            .map(|(name, path)| judge(&sandbox, name, path))
            .collect();
        let mut all = a.join().expect("the other half");
        all.append(&mut b);
        all
    });
    let (mut y, mut n, mut i_ok, mut i_rejected) = (0, 0, 0, 0);
    let mut failed = Vec::new();
    for v in &verdicts {
        // Every file is judged (each failure is printed by the panic hook) before failing.
        let judged =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| match &v.name[..2] {
                "y_" => {
                    assert_eq!(
                        v.extract.code,
                        Some(0),
                        "{}: extract '$' rejected a valid document: {}",
                        v.name,
                        v.extract.stderr
                    );
                    v.assert_exact();
                    "y"
                }
                "n_" => {
                    v.assert_rejected();
                    "n"
                }
                _ => match v.extract.code {
                    Some(0) => {
                        v.assert_exact();
                        "i accepted"
                    }
                    Some(2) => {
                        v.assert_rejected();
                        "i rejected"
                    }
                    other => panic!("{}: extract '$' exit {other:?}", v.name),
                },
            }));
        match judged {
            Ok("y") => y += 1,
            Ok("n") => n += 1,
            Ok("i accepted") => i_ok += 1,
            Ok(_) => i_rejected += 1,
            Err(_) => failed.push(v.name.clone()),
        }
    }
    assert!(
        failed.is_empty(),
        "{} files failed: {failed:?}",
        failed.len()
    );
    println!(
        "JSONTestSuite: {y} y_ accepted exactly, {n} n_ rejected, i_: {i_ok} accepted exactly, \
         {i_rejected} rejected"
    );
    assert_eq!((y, n, i_ok + i_rejected), (95, 188, 35));
}
