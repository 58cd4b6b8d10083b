//! Streaming redaction of secrets (`wrap --redact`): well-known token shapes and the values of
//! secret-looking variables in spill's own environment become `[REDACTED]`.
//!
//! The redactor is fed chunks of any size and gives the same output whatever the chunking. Every
//! pattern has a bounded length, so a match that starts more than [`Redactor::hold`] bytes before
//! the end of what has been seen cannot grow with more input: those bytes are final and are
//! emitted, and only the last `hold` bytes (plus a few bytes of context for `\b`) are carried
//! into the next chunk. Memory is therefore bounded by the chunk size plus about 85 KiB (the
//! held-back window and a 64 KiB batch).

use std::ffi::OsString;

use regex::bytes::Regex;

/// What every secret is replaced with.
pub const REPLACEMENT: &[u8] = b"[REDACTED]";

/// Environment variables whose names end with one of these (case-insensitively) hold secrets.
const SECRET_SUFFIXES: [&str; 4] = ["_KEY", "_TOKEN", "_SECRET", "_PASSWORD"];
/// Environment values shorter than this are too likely to occur by chance to be redacted.
const MIN_SECRET_LEN: usize = 8;
/// Longer environment values are not treated as secrets (they would inflate the carry).
const MAX_SECRET_LEN: usize = 16 * 1024;
/// The longest match of the built-in patterns: a PEM block, a 16 KiB body between a BEGIN line
/// of at most 67 bytes and an END line of at most 65 (the other patterns stay under 12.1 KiB).
const MAX_PATTERN_LEN: usize = 67 + PEM_BODY + PEM_END_LEN;
/// A PEM private-key header: the first of [`PATTERNS`].
const PEM_BEGIN: &str = r"-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY-----";
/// The line that ends a PEM private-key block. A header match is extended to the first END line
/// that starts at most [`PEM_BODY`] bytes after it: the whole block is one secret. (This was once
/// a lazy `(?s:.){0,16384}?` body inside the one regex, which made the lazy DFA build a state
/// per body byte after every header: 10 MB of headers without an END line took 129 s.)
const PEM_END: &str = r"(?-u)-----END [A-Z0-9 ]{0,40}PRIVATE KEY-----";
/// The longest PEM body between the header and the END line.
const PEM_BODY: usize = 16 * 1024;
/// The longest END line (`PEM_END`).
const PEM_END_LEN: usize = 65;
/// Bytes kept before the undecided region, so `\b` sees the byte before a match.
const CONTEXT: usize = 8;
/// New bytes gathered beyond the held-back window before a search pass (see [`Redactor::feed`]).
const BATCH: usize = 64 * 1024;

/// The built-in token shapes, in priority order. All lengths are bounded (see the module doc);
/// `(?-u)` makes classes and `\b` work on bytes, so invalid UTF-8 is handled like any other byte.
const PATTERNS: &[&str] = &[
    // PEM private-key headers (RSA, EC, OPENSSH, ENCRYPTED, plain PKCS#8 ...). The match grows
    // over the body to the END line (see `PEM_END`); without one, at least the reader sees that
    // something was here.
    PEM_BEGIN,
    // JSON Web Tokens: header.payload.signature, the first two base64url JSON objects.
    r"\beyJ[A-Za-z0-9_-]{8,4096}\.eyJ[A-Za-z0-9_-]{8,4096}\.[A-Za-z0-9_-]{16,4096}",
    // Authorization: Bearer TOKEN (also as a JSON or YAML key/value); only the token is replaced.
    r#"(?i:authorization)"?[ \t]{0,8}[:=][ \t]{0,8}"?(?i:bearer)[ \t]{1,8}[A-Za-z0-9._~+/=-]{8,4096}"#,
    // OpenAI and Anthropic keys: sk-..., sk-proj-..., sk-ant-api03-...
    r"\bsk-[A-Za-z0-9_-]{20,512}",
    // GitHub tokens: personal, OAuth, user-to-server, server-to-server, refresh; fine-grained.
    r"\b(?:gh[pousr]_[A-Za-z0-9]{30,255}|github_pat_[A-Za-z0-9_]{30,255})",
    // AWS access key ids (long-term and temporary).
    r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b",
    // Slack tokens: bot, user, app, refresh ...
    r"\bxox[abposr]-[A-Za-z0-9-]{10,255}",
];

/// A streaming redactor. Feed it chunks, then finish it; see the module documentation.
#[derive(Debug, Clone)]
pub struct Redactor {
    regex: Regex,
    /// [`PEM_END`].
    pem_end: Regex,
    /// The literal secrets: a match that is one of them is never extended as a PEM header.
    secrets: Vec<Vec<u8>>,
    hold: usize,
    /// Bytes seen but not yet emitted, preceded by up to `CONTEXT` bytes already emitted.
    carry: Vec<u8>,
    /// Where the unemitted bytes start in `carry`.
    pending: usize,
    count: u64,
    /// New bytes gathered beyond the window before a search pass ([`BATCH`]).
    batch: usize,
}

/// The secret values among environment variables: values of 8 bytes or more (and at most
/// 16 KiB) of variables named `*_KEY`, `*_TOKEN`, `*_SECRET` or `*_PASSWORD`.
pub fn secrets_from_env(vars: impl IntoIterator<Item = (OsString, OsString)>) -> Vec<Vec<u8>> {
    use std::os::unix::ffi::OsStrExt;
    let mut out: Vec<Vec<u8>> = vars
        .into_iter()
        .filter(|(name, _)| {
            let name = name.to_string_lossy().to_ascii_uppercase();
            SECRET_SUFFIXES.iter().any(|s| name.ends_with(s))
        })
        .map(|(_, value)| value.as_bytes().to_vec())
        .filter(|v| (MIN_SECRET_LEN..=MAX_SECRET_LEN).contains(&v.len()))
        .collect();
    // Longest first, so a secret that contains another is replaced whole.
    out.sort_by(|a, b| b.len().cmp(&a.len()).then(a.cmp(b)));
    out.dedup();
    out
}

/// A regex matching exactly these bytes.
fn literal(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len() * 2);
    for &b in bytes {
        if b.is_ascii_alphanumeric() {
            s.push(b as char);
        } else {
            s.push_str(&format!("\\x{b:02x}"));
        }
    }
    s
}

/// One regex trying, in order, the literal `secrets`, then `extra`, then [`PATTERNS`] (the
/// first alternative that matches at the leftmost position wins).
fn alternation(secrets: &[Vec<u8>], extra: &[String]) -> Regex {
    let mut alternatives: Vec<String> = secrets.iter().map(|s| literal(s)).collect();
    alternatives.extend(extra.iter().cloned());
    alternatives.extend(PATTERNS.iter().map(|p| p.to_string()));
    let pattern = format!("(?-u)(?:{})", alternatives.join(")|(?:"));
    regex::bytes::RegexBuilder::new(&pattern)
        .size_limit(256 << 20)
        .dfa_size_limit(64 << 20)
        .build()
        .expect("the redaction patterns are valid")
}

impl Redactor {
    /// A redactor for the built-in token shapes plus these literal secrets.
    pub fn new(secrets: &[Vec<u8>]) -> Redactor {
        let regex = alternation(secrets, &[]);
        let longest_secret = secrets.iter().map(Vec::len).max().unwrap_or(0);
        Redactor {
            regex,
            pem_end: Regex::new(PEM_END).expect("the PEM END pattern is valid"),
            secrets: secrets.to_vec(),
            hold: MAX_PATTERN_LEN.max(longest_secret) + 1,
            carry: Vec::new(),
            pending: 0,
            count: 0,
            batch: BATCH,
        }
    }

    /// Searches once `batch` new bytes are beyond the held-back window (0: on every feed)
    /// instead of the default 64 KiB. Output does not depend on it; tests and the fuzz target
    /// use small values so that passes fall at many different places of short inputs.
    pub fn set_batch(&mut self, batch: usize) {
        self.batch = batch;
    }

    /// A redactor for the built-in shapes and the secrets in spill's own environment.
    pub fn from_env() -> Redactor {
        Redactor::new(&secrets_from_env(std::env::vars_os()))
    }

    /// Bytes that may be held back between chunks (beyond the context bytes).
    pub fn hold(&self) -> usize {
        self.hold
    }

    /// Secrets replaced so far.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// Redacts a chunk, appending to `out` every byte that is now final.
    pub fn feed(&mut self, chunk: &[u8], out: &mut Vec<u8>) {
        self.carry.extend_from_slice(chunk);
        // A pass searches the whole held-back window, so it waits until BATCH new bytes are
        // beyond it: a producer writing a few bytes at a time would otherwise have the same
        // 16.5 KiB searched again for every write (quadratic). Output is the same either way.
        if self.carry.len() - self.pending >= self.hold + self.batch {
            self.process(false, out);
        }
    }

    /// Ends the stream, appending what was held back.
    pub fn finish(&mut self, out: &mut Vec<u8>) {
        self.process(true, out);
        self.carry.clear();
        self.pending = 0;
    }

    /// Redacts a whole input at once (the inline path and labels).
    pub fn redact_all(&mut self, bytes: &[u8]) -> Vec<u8> {
        let mut out = Vec::with_capacity(bytes.len());
        self.feed(bytes, &mut out);
        self.finish(&mut out);
        out
    }

    fn process(&mut self, last: bool, out: &mut Vec<u8>) {
        let buf = &self.carry;
        // Matches starting before `settled` are complete and final (see the module doc).
        let settled = if last {
            buf.len()
        } else {
            buf.len().saturating_sub(self.hold)
        };
        let mut emitted = self.pending;
        let mut at = self.pending;
        let mut ends = EndScan::default();
        while at < settled {
            let Some(m) = self.regex.find_at(buf, at) else {
                break;
            };
            if m.start() >= settled {
                break;
            }
            let mut end = m.end();
            if m.as_bytes().starts_with(b"-----BEGIN ")
                && !self.secrets.iter().any(|s| s == m.as_bytes())
            {
                // A PEM header (a secret equal to it comes first, as in a regex alternation).
                // Every byte the block may span is here: a match starts before `settled`,
                // `hold` bytes before the end, unless this is the last pass.
                if let Some(e) = ends.first_at_or_after(&self.pem_end, buf, end, end + PEM_BODY) {
                    end = e;
                }
            }
            out.extend_from_slice(&buf[emitted..m.start()]);
            out.extend_from_slice(kept_prefix(m.as_bytes()));
            out.extend_from_slice(REPLACEMENT);
            self.count += 1;
            emitted = end;
            at = end.max(m.start() + 1);
        }
        let upto = if last {
            buf.len()
        } else {
            settled.max(emitted)
        };
        out.extend_from_slice(&buf[emitted..upto]);
        let keep_from = upto.saturating_sub(CONTEXT);
        self.carry.drain(..keep_from);
        self.pending = upto - keep_from;
    }
}

/// What the END-line searches of one pass have learnt, so that many headers close together do
/// not each search the next 16 KiB again (which would be quadratic): no END line starts between
/// the `start` of the call that last searched and `to`, and one does at `to` when `found` (its
/// end). Calls never go back before an earlier `start`.
#[derive(Default)]
struct EndScan {
    to: usize,
    found: Option<usize>,
}

impl EndScan {
    /// The end of the first END line of `buf` that starts in `start..=last`, if any. Calls come
    /// with non-decreasing `start`. An END line has no look-behind, so whether one starts at a
    /// position does not depend on where the search began.
    fn first_at_or_after(
        &mut self,
        pem_end: &Regex,
        buf: &[u8],
        start: usize,
        last: usize,
    ) -> Option<usize> {
        let known = start <= self.to;
        if known && self.found.is_some() {
            return self.found.filter(|_| self.to <= last);
        }
        let search_from = if known { self.to } else { start };
        if search_from > last {
            return None;
        }
        // Every END line starting by `last` ends by `last + PEM_END_LEN`; in the last pass the
        // buffer may end sooner (no END line starts past it).
        let hay = &buf[..buf.len().min(last + PEM_END_LEN)];
        match pem_end.find_at(hay, search_from.min(hay.len())) {
            Some(m) if m.start() <= last => {
                self.to = m.start();
                self.found = Some(m.end());
                self.found
            }
            _ => {
                self.to = last + 1;
                self.found = None;
                None
            }
        }
    }
}

/// The part of a match that stays: `Authorization: Bearer ` before a bearer token.
fn kept_prefix(m: &[u8]) -> &[u8] {
    if !m.first().is_some_and(|b| b.eq_ignore_ascii_case(&b'a')) {
        return &[];
    }
    let lower = m.to_ascii_lowercase();
    let Some(i) = memchr::memmem::find(&lower, b"bearer") else {
        return &[];
    };
    let mut end = i + "bearer".len();
    while end < m.len() && matches!(m[end], b' ' | b'\t') {
        end += 1;
    }
    &m[..end]
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn redact(input: &str) -> (String, u64) {
        let mut r = Redactor::new(&[]);
        let out = r.redact_all(input.as_bytes());
        (String::from_utf8(out).unwrap(), r.count())
    }

    const PEM: &str = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA1x\nq2w3e4r5t6y7u8i9o0p\n-----END RSA PRIVATE KEY-----";

    fn samples() -> Vec<(&'static str, String)> {
        vec![
            (
                "openai",
                "sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789".to_string(),
            ),
            (
                "anthropic",
                "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789-_xx".to_string(),
            ),
            ("github", format!("ghp_{}", "a1B2".repeat(9))),
            ("github oauth", format!("gho_{}", "Z9y8".repeat(9))),
            ("github s2s", format!("ghs_{}", "Q1w2".repeat(9))),
            ("github u2s", format!("ghu_{}", "E3r4".repeat(9))),
            ("github pat", format!("github_pat_11ABCDEFG0_{}", "x1Y2".repeat(14))),
            ("aws", "AKIAIOSFODNN7EXAMPLE".to_string()),
            ("aws temp", "ASIAY34FZKBOKMUTVV7A".to_string()),
            ("slack", "xoxb-123456789012-1234567890123-AbCdEf".to_string()),
            (
                "jwt",
                "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U".to_string(),
            ),
            ("pem", PEM.to_string()),
        ]
    }

    #[test]
    fn each_token_family_is_replaced() {
        for (family, secret) in samples() {
            let (out, n) = redact(&format!("before {secret} after\n"));
            assert_eq!(out, "before [REDACTED] after\n", "{family}");
            assert_eq!(n, 1, "{family}");
        }
    }

    #[test]
    fn bearer_tokens_keep_the_header() {
        let (out, n) = redact("Authorization: Bearer abc.DEF-123_456~xyz\n");
        assert_eq!(out, "Authorization: Bearer [REDACTED]\n");
        assert_eq!(n, 1);
        let (out, _) = redact(r#"{"authorization": "bearer 0123456789abcdef"}"#);
        assert_eq!(out, r#"{"authorization": "bearer [REDACTED]"}"#);
    }

    #[test]
    fn ordinary_text_is_untouched() {
        for text in [
            "the task-force met at AKIA\n",
            "risk-assessment-for-the-whole-project-here",
            "sk-short",
            "ghp_tooShort",
            "error: could not compile `spill` (lib) due to 2 previous errors",
            "-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkq\n-----END PUBLIC KEY-----",
        ] {
            assert_eq!(redact(text), (text.to_string(), 0), "{text}");
        }
    }

    #[test]
    fn environment_secrets_are_replaced_longest_first() {
        let vars = [
            ("MY_API_KEY", "hunter2hunter2"),
            ("DB_PASSWORD", "hunter2hunter2-and-more"),
            ("GH_TOKEN", "short"),
            ("HOME", "/home/someone-long"),
            ("service_secret", "s3cr3t!value"),
        ]
        .map(|(k, v)| (OsString::from(k), OsString::from(v)));
        let secrets = secrets_from_env(vars);
        assert_eq!(
            secrets,
            vec![
                b"hunter2hunter2-and-more".to_vec(),
                b"hunter2hunter2".to_vec(),
                b"s3cr3t!value".to_vec()
            ]
        );
        let mut r = Redactor::new(&secrets);
        let out = r.redact_all(
            b"a hunter2hunter2-and-more b hunter2hunter2 c s3cr3t!value /home/someone-long short",
        );
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "a [REDACTED] b [REDACTED] c [REDACTED] /home/someone-long short"
        );
        assert_eq!(r.count(), 3);
    }

    #[test]
    fn a_secret_split_across_chunks_is_still_found() {
        let secret = "AKIAIOSFODNN7EXAMPLE";
        let input = format!("{}{secret}{}", "x ".repeat(100_000), " y".repeat(30_000));
        for split in [200_000 + 1, 200_000 + 10, 200_000 + 19] {
            let mut r = Redactor::new(&[]);
            let mut out = Vec::new();
            r.feed(&input.as_bytes()[..split], &mut out);
            // Bounded carry: nearly everything before the secret is already out.
            assert!(out.len() + r.hold() + CONTEXT >= split, "{}", out.len());
            r.feed(&input.as_bytes()[split..], &mut out);
            r.finish(&mut out);
            assert_eq!(r.count(), 1);
            assert_eq!(out.len(), input.len() - secret.len() + REPLACEMENT.len());
        }
    }

    #[test]
    fn tiny_writes_keep_the_carry_bounded() {
        let secret = "ghp_".to_string() + &"a".repeat(36);
        let input = format!("{}{secret}\n", "log line\n".repeat(50_000));
        let mut r = Redactor::new(&[]);
        let mut out = Vec::new();
        for b in input.as_bytes().chunks(3) {
            r.feed(b, &mut out);
            assert!(r.carry.len() <= r.hold() + BATCH + CONTEXT + 3);
        }
        r.finish(&mut out);
        assert_eq!(r.count(), 1);
        assert_eq!(out, Redactor::new(&[]).redact_all(input.as_bytes()));
    }

    #[test]
    fn the_longest_pem_block_is_found_whatever_the_split() {
        let label = "A".repeat(40);
        let pem = format!(
            "-----BEGIN {label}PRIVATE KEY-----{}-----END {label}PRIVATE KEY-----",
            "b".repeat(16384)
        );
        assert_eq!(pem.len(), MAX_PATTERN_LEN);
        let input = format!("x {pem} y").into_bytes();
        for split in [1, 2, 3, 100, 16_000, input.len() - 3, input.len() - 1] {
            let mut r = Redactor::new(&[]);
            let mut out = Vec::new();
            r.feed(&input[..split], &mut out);
            r.feed(&input[split..], &mut out);
            r.finish(&mut out);
            assert_eq!(out, b"x [REDACTED] y", "split at {split}");
        }
    }

    #[test]
    fn pem_bodies_at_the_limit_and_headers_close_together() {
        let (begin, end) = (
            "-----BEGIN RSA PRIVATE KEY-----",
            "-----END RSA PRIVATE KEY-----",
        );
        let mut r = Redactor::new(&[]);
        for body in [PEM_BODY - 1, PEM_BODY, PEM_BODY + 1] {
            let input = format!("x {begin}{} {end} y", "b".repeat(body - 1));
            let out = String::from_utf8(r.redact_all(input.as_bytes())).unwrap();
            if body <= PEM_BODY {
                assert_eq!(out, "x [REDACTED] y", "body {body}");
            } else {
                assert!(out.starts_with("x [REDACTED]bbb") && out.ends_with(&format!("{end} y")));
            }
        }
        // The second header's END line search starts where the first one's stopped.
        for (gap, body) in [(100, 16_300), (100, 16_200), (16_000, 300), (16_300, 200)] {
            let input = format!(
                "{begin}{}{begin}{}{end}{begin}{end}",
                "a".repeat(gap),
                "b".repeat(body)
            );
            let (expected, count) = one_regex_redact(&[], input.as_bytes());
            assert_eq!(r.redact_all(input.as_bytes()), expected, "{gap} {body}");
            assert!(count >= 2);
        }
    }

    #[test]
    fn invalid_utf8_is_passed_through() {
        let mut r = Redactor::new(&[]);
        let out = r.redact_all(b"\xff\xfe AKIAIOSFODNN7EXAMPLE \x80");
        assert_eq!(out, b"\xff\xfe [REDACTED] \x80");
    }

    fn piece() -> impl Strategy<Value = String> {
        let mut options: Vec<String> = samples().into_iter().map(|(_, s)| s).collect();
        options.extend(
            [
                "Authorization: Bearer tok_0123456789",
                "hunter2hunter2",
                " ",
                "\n",
                "sk-",
                "-----BEGIN EC PRIVATE KEY-----\n",
                "ghp_",
                "plain words ",
                "AKIA",
                "eyJ",
            ]
            .map(String::from),
        );
        prop::sample::select(options)
    }

    /// The redactor as it was when the PEM block was one lazy alternative of the regex: the
    /// oracle for the END-line search that replaced it.
    fn one_regex_redact(secrets: &[Vec<u8>], input: &[u8]) -> (Vec<u8>, u64) {
        let block = format!(
            "{PEM_BEGIN}(?s:.){{0,{PEM_BODY}}}?{}",
            PEM_END.trim_start_matches("(?-u)")
        );
        let regex = alternation(secrets, &[block]);
        let (mut out, mut count, mut emitted) = (Vec::new(), 0, 0);
        for m in regex.find_iter(input) {
            out.extend_from_slice(&input[emitted..m.start()]);
            out.extend_from_slice(kept_prefix(m.as_bytes()));
            out.extend_from_slice(REPLACEMENT);
            count += 1;
            emitted = m.end();
        }
        out.extend_from_slice(&input[emitted..]);
        (out, count)
    }

    fn pem_piece() -> impl Strategy<Value = String> {
        let options = [
            "-----BEGIN RSA PRIVATE KEY-----",
            "-----BEGIN PRIVATE KEY-----\n",
            "-----BEGIN OPENSSH PRIVATE KEY-----",
            "-----END RSA PRIVATE KEY-----",
            "-----END PRIVATE KEY-----\n",
            "-----END OPENSSH PRIVATE KEY-----",
            "-----END ",
            "-----BEGIN ",
            "PRIVATE KEY-----",
            "-----",
            "RSA ",
            "-----BEGIN A PRIVATE KEY-----",
            "\n",
            "MIIEowIBAAKCAQEA1x\n",
        ]
        .map(String::from);
        prop_oneof![
            6 => prop::sample::select(options.to_vec()),
            1 => (1usize..9000).prop_map(|n| "b".repeat(n)),
            1 => piece(),
        ]
    }

    proptest! {
        #[test]
        fn pem_blocks_end_where_the_one_regex_ended_them(
            pieces in prop::collection::vec(pem_piece(), 0..16),
        ) {
            let input = pieces.concat().into_bytes();
            // One secret equal to a header: a secret comes first, so it is never extended.
            let secrets = [b"-----BEGIN A PRIVATE KEY-----".to_vec(), b"hunter2hunter2".to_vec()];
            static BASE: std::sync::OnceLock<Redactor> = std::sync::OnceLock::new();
            let base = BASE.get_or_init(|| Redactor::new(&secrets));
            let mut r = base.clone();
            let out = r.redact_all(&input);
            let (expected, count) = one_regex_redact(&secrets, &input);
            prop_assert_eq!(String::from_utf8_lossy(&out), String::from_utf8_lossy(&expected));
            prop_assert_eq!(r.count(), count);
        }

        #[test]
        fn chunking_never_changes_the_result(
            pieces in prop::collection::vec(piece(), 0..24),
            cuts in prop::collection::vec(0usize..4000, 0..8),
        ) {
            let input = pieces.concat().into_bytes();
            // Compiling the patterns is the slow part: compile once, clone per case.
            static BASE: std::sync::OnceLock<Redactor> = std::sync::OnceLock::new();
            let base = BASE.get_or_init(|| Redactor::new(&[b"hunter2hunter2".to_vec()]));
            let mut whole = base.clone();
            let expected = whole.redact_all(&input);
            let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c.min(input.len())).collect();
            cuts.sort();
            let mut r = base.clone();
            let mut out = Vec::new();
            let mut from = 0;
            for c in cuts.into_iter().chain([input.len()]) {
                r.feed(&input[from..c], &mut out);
                from = c;
            }
            r.finish(&mut out);
            prop_assert_eq!(out, expected);
            prop_assert_eq!(r.count(), whole.count());
        }
    }
}
