//! Streaming redaction of secrets (`wrap --redact`): well-known token shapes, labelled AWS
//! credentials and the values of secret-looking environment variables (the command layer reads
//! them from spill's own environment and passes them in: [`secrets_from_env`]) become
//! `[REDACTED]`.
//!
//! Secrets are looked for in a *decoded view* of the bytes, where every JSON string escape
//! (`\"`, `\\`, `\/`, `\b`, `\f`, `\n`, `\r`, `\t`, `\uXXXX`, surrogate pairs included) reads as
//! the character it stands for, and a backslash that starts no escape reads as itself. So
//! `\u0041KIA…`, `ghp\u005f…`, a bearer token written with `\/` and an environment secret that
//! holds `"` or `\` once the output escapes it are found like their plain forms. A match is
//! replaced in the raw bytes, whole escapes at a time, so a JSON string stays a JSON string and
//! `extract -r` has nothing left to decode into the secret.
//!
//! The redactor is fed chunks of any size and gives the same output whatever the chunking. The
//! decoder needs at most 11 bytes after a backslash to decide what it stands for, and waits for
//! them. Every pattern has a bounded length in the view, so a match that starts more than
//! [`Redactor::hold`] view bytes before the end of what has been decoded cannot grow with more
//! input: the raw bytes before it are final and are emitted, and only the last `hold` view bytes
//! (plus a few bytes of context for `\b`) and their raw bytes are carried into the next chunk.
//! Memory is therefore bounded by the chunk size plus about 85 KiB of view (the held-back window
//! and a 64 KiB batch) and at most six raw bytes per view byte. The decoder and the search are
//! both linear in the input.

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
/// The longest match of the built-in patterns in the view: a PEM block, a 16 KiB body between a
/// BEGIN line and an END line (the other patterns stay under 12.1 KiB).
const MAX_PATTERN_LEN: usize = PEM_BEGIN_LEN + PEM_BODY + PEM_END_LEN;
/// A PEM (or PGP armored) private-key header: the first of [`PATTERNS`].
const PEM_BEGIN: &str = r"-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----";
/// The longest BEGIN line (`PEM_BEGIN`).
const PEM_BEGIN_LEN: usize = 73;
/// The line that ends a PEM private-key block (`PGP PRIVATE KEY BLOCK` included). A header
/// match is extended to the first END line that starts at most [`PEM_BODY`] bytes after it: the
/// whole block is one secret. (This was once a lazy `(?s:.){0,16384}?` body inside the one
/// regex, which made the lazy DFA build a state per body byte after every header: 10 MB of
/// headers without an END line took 129 s.)
const PEM_END: &str = r"(?-u)-----END [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----";
/// The longest PEM body between the header and the END line.
const PEM_BODY: usize = 16 * 1024;
/// The longest END line (`PEM_END`).
const PEM_END_LEN: usize = 71;
/// Bytes kept before the undecided region, so `\b` sees the byte before a match.
const CONTEXT: usize = 8;
/// New bytes gathered beyond the held-back window before a search pass (see [`Redactor::feed`]).
const BATCH: usize = 64 * 1024;

/// The built-in token shapes, in priority order. All lengths are bounded (see the module doc);
/// `(?-u)` makes classes and `\b` work on bytes, so invalid UTF-8 is handled like any other byte.
/// [`LABELS`] come between the JSON Web Tokens and the rest.
const PATTERNS: &[&str] = &[
    // PEM private-key headers (RSA, EC, OPENSSH, ENCRYPTED, plain PKCS#8, PGP ...). The match
    // grows over the body to the END line (see `PEM_END`); without one, at least the reader
    // sees that something was here.
    PEM_BEGIN,
    // JSON Web Tokens: header.payload.signature, the first two base64url JSON objects.
    r"\beyJ[A-Za-z0-9_-]{8,4096}\.eyJ[A-Za-z0-9_-]{8,4096}\.[A-Za-z0-9_-]{16,4096}",
];

/// Token shapes after [`LABELS`], in priority order.
const UNLABELLED: &[&str] = &[
    // OpenAI and Anthropic keys: sk-..., sk-proj-..., sk-ant-api03-...
    r"\bsk-[A-Za-z0-9_-]{20,512}",
    // GitHub tokens: personal, OAuth, user-to-server, server-to-server, refresh; fine-grained.
    r"\b(?:gh[pousr]_[A-Za-z0-9]{30,255}|github_pat_[A-Za-z0-9_]{30,255})",
    // AWS access key ids (long-term and temporary). No word boundaries: an id glued to a word
    // (`id_AKIA…`, `AKIA…_prod`) is still an id, and 20 characters of this shape starting with
    // AKIA or ASIA hardly occur by chance.
    r"(?:AKIA|ASIA)[0-9A-Z]{16}",
    // Slack tokens: bot, user, app, refresh ...
    r"\bxox[abposr]-[A-Za-z0-9-]{10,255}",
];

/// Secrets known by their label. Only the value ([`LABELLED_VALUE`]) is replaced; the label
/// stays.
const LABELS: &[&str] = &[
    // Authorization: Bearer TOKEN (also as a JSON or YAML key/value).
    r#"(?i:authorization)"?[ \t]{0,8}[:=][ \t]{0,8}"?(?i:bearer)[ \t]{1,8}"#,
    // AWS secret access keys and session tokens: `AWS_SECRET_ACCESS_KEY=…`, `aws_secret_access_key
    // = …` (credentials files), `"SecretAccessKey": "…"` (the CLI's JSON), `--aws-session-token
    // …`. An unlabelled secret key is 40 base64 characters, as a SHA-1 in hex is: only the label
    // tells them apart. Without `aws` the label is spelled out case by case: a case-insensitive
    // `secret`/`session` gives the regex prefilter prefixes such as `se`, and searching took 20×
    // as long (1.08 s instead of 48 ms on a 100 MB build log).
    r#"(?:(?i:aws)[_-]?(?i:secret[_-]?access[_-]?key|session[_-]?token)|[Ss]ecret_?[Aa]ccess_?[Kk]ey|SECRET_ACCESS_KEY|[Ss]ession_?[Tt]oken|SESSION_TOKEN)["']?(?:[ \t]{0,8}[:=][ \t]{0,8}|[ \t]{1,8})["']?"#,
];

/// The value after any of [`LABELS`]: token characters (base64, base64url, JWT). One repetition
/// shared by every label keeps the regex (compiled on every `wrap --redact`) small.
const LABELLED_VALUE: &str = r"[A-Za-z0-9._~+/=-]{8,4096}";

/// The regexes of all built-in shapes, in priority order.
fn builtin_patterns() -> impl Iterator<Item = String> {
    PATTERNS
        .iter()
        .map(|p| p.to_string())
        .chain([format!("(?:{}){LABELLED_VALUE}", LABELS.join("|"))])
        .chain(UNLABELLED.iter().map(|p| p.to_string()))
}

/// What a backslash at the start of some bytes stands for in the decoded view.
enum Unescape {
    /// Not known yet: the escape may go on past the bytes seen.
    More,
    /// The backslash starts no escape and stands for itself.
    Literal,
    /// A JSON escape of `len` raw bytes standing for the first `n` of `bytes` (UTF-8).
    Char {
        bytes: [u8; 4],
        n: usize,
        len: usize,
    },
}

/// The value of four hexadecimal digits (either case).
fn hex4(digits: Option<&[u8]>) -> Option<u32> {
    let digits = digits?;
    digits
        .iter()
        .try_fold(0, |acc, &d| Some(acc * 16 + char::from(d).to_digit(16)?))
}

/// What the backslash at `s[0]` stands for; `last` when no byte follows `s`. The answer depends
/// only on the next 12 bytes at most (a surrogate pair), never on how many of them have arrived.
fn unescape(s: &[u8], last: bool) -> Unescape {
    let need = match s.get(1) {
        Some(b'u') => match hex4(s.get(2..6)) {
            Some(0xD800..=0xDBFF) => 12,
            _ => 6,
        },
        _ => 2,
    };
    if s.len() < need && !last {
        return Unescape::More;
    }
    let short = match s.get(1) {
        Some(b'"') => b'"',
        Some(b'\\') => b'\\',
        Some(b'/') => b'/',
        Some(b'b') => 0x08,
        Some(b'f') => 0x0c,
        Some(b'n') => b'\n',
        Some(b'r') => b'\r',
        Some(b't') => b'\t',
        Some(b'u') => {
            let Some(unit) = hex4(s.get(2..6)) else {
                return Unescape::Literal;
            };
            let (code, len) = match unit {
                0xD800..=0xDBFF => match (s.get(6..8), hex4(s.get(8..12))) {
                    (Some(b"\\u"), Some(low @ 0xDC00..=0xDFFF)) => {
                        (0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00), 12)
                    }
                    // A lone surrogate stands for no character.
                    _ => return Unescape::Literal,
                },
                0xDC00..=0xDFFF => return Unescape::Literal,
                _ => (unit, 6),
            };
            let mut bytes = [0; 4];
            let c = char::from_u32(code).expect("surrogates are handled above");
            let n = c.encode_utf8(&mut bytes).len();
            return Unescape::Char { bytes, n, len };
        }
        _ => return Unescape::Literal,
    };
    Unescape::Char {
        bytes: [short, 0, 0, 0],
        n: 1,
        len: 2,
    }
}

/// Appends the decoded view of `raw` to `view`, calling `escape(raw_at, view_at, n, len)` for
/// each escape (its offset in `raw`, its offset in `view`, its decoded and raw lengths). Returns
/// how many bytes of `raw` were decoded: all of them when `last`, otherwise up to a backslash
/// whose escape may go on past the end.
fn decode_into(
    raw: &[u8],
    last: bool,
    view: &mut Vec<u8>,
    mut escape: impl FnMut(usize, usize, usize, usize),
) -> usize {
    let mut i = 0;
    while i < raw.len() {
        let Some(k) = memchr::memchr(b'\\', &raw[i..]) else {
            view.extend_from_slice(&raw[i..]);
            return raw.len();
        };
        view.extend_from_slice(&raw[i..i + k]);
        i += k;
        match unescape(&raw[i..], last) {
            Unescape::More => return i,
            Unescape::Literal => {
                view.push(b'\\');
                i += 1;
            }
            Unescape::Char { bytes, n, len } => {
                escape(i, view.len(), n, len);
                view.extend_from_slice(&bytes[..n]);
                i += len;
            }
        }
    }
    i
}

/// The decoded view of a whole input: what the patterns are matched against (see the module
/// documentation).
pub fn decoded(raw: &[u8]) -> Vec<u8> {
    let mut view = Vec::with_capacity(raw.len());
    decode_into(raw, true, &mut view, |_, _, _, _| {});
    view
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

/// One form a literal secret may take in the decoded view: these bytes, then (when
/// `then_any`) one more byte of any value.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Form {
    bytes: Vec<u8>,
    then_any: bool,
}

/// The forms the literal `secrets` are looked for in, longest first. In the decoded view a
/// secret is found as itself when the output escaped it (`pa\"ss` for `pa"ss`) or when it holds
/// no backslash. A secret printed as it is but holding a backslash reads decoded (`a\nb…` as a
/// newline), so its decoded form is looked for too; and so is what it reads as after a lone
/// backslash that combines with its first byte (`\` then `npass…`). A secret ending in an
/// unfinished escape (`…\`) combines with whatever follows it: its decoded start followed by any
/// one byte is looked for (when that start is 8 bytes or more).
fn secret_forms(secrets: &[Vec<u8>]) -> Vec<Form> {
    let mut forms = Vec::new();
    for secret in secrets {
        let plain = Form {
            bytes: secret.clone(),
            then_any: false,
        };
        let decoded_form = decoded(secret);
        let after_backslash = decoded(&[&b"\\"[..], secret].concat());
        let mut start = Vec::new();
        let done = decode_into(secret, false, &mut start, |_, _, _, _| {});
        forms.push(plain);
        forms.push(Form {
            bytes: decoded_form.clone(),
            then_any: false,
        });
        if after_backslash != [&b"\\"[..], &decoded_form].concat() {
            forms.push(Form {
                bytes: after_backslash,
                then_any: false,
            });
        }
        if done < secret.len() && start.len() >= MIN_SECRET_LEN {
            forms.push(Form {
                bytes: start,
                then_any: true,
            });
        }
    }
    let mut unique: Vec<Form> = Vec::with_capacity(forms.len());
    for f in forms {
        if !unique.contains(&f) {
            unique.push(f);
        }
    }
    // Longest first (stable), so a secret that contains another is replaced whole.
    unique.sort_by_key(|f| std::cmp::Reverse(f.bytes.len() + usize::from(f.then_any)));
    unique
}

/// One regex trying, in order, the secret `forms`, then `extra`, then the built-in shapes (the
/// first alternative that matches at the leftmost position wins).
fn alternation(forms: &[Form], extra: &[String]) -> Regex {
    let mut alternatives: Vec<String> = forms
        .iter()
        .map(|f| literal(&f.bytes) + if f.then_any { "(?s:.)" } else { "" })
        .collect();
    alternatives.extend(extra.iter().cloned());
    alternatives.extend(builtin_patterns());
    let pattern = format!("(?-u)(?:{})", alternatives.join(")|(?:"));
    regex::bytes::RegexBuilder::new(&pattern)
        .size_limit(256 << 20)
        .dfa_size_limit(64 << 20)
        .build()
        .expect("the redaction patterns are valid")
}

/// The labels of [`LABELS`], anchored: the length of the part of a match that stays.
fn label_regex() -> Regex {
    Regex::new(&format!("(?-u)^(?:{})", LABELS.join("|"))).expect("the labels are valid")
}

/// One decoded JSON escape: where it is in the view and in the raw bytes (stream offsets).
#[derive(Debug, Clone, Copy)]
struct Escape {
    view: usize,
    view_end: usize,
    raw: usize,
    raw_end: usize,
}

/// A streaming redactor. Feed it chunks, then finish it; see the module documentation.
#[derive(Debug, Clone)]
pub struct Redactor {
    regex: Regex,
    /// [`PEM_END`].
    pem_end: Regex,
    /// The labels of [`LABELS`], to keep them.
    label: Regex,
    /// The literal secret forms: a match that is one of them is never extended as a PEM header.
    literals: Vec<Vec<u8>>,
    hold: usize,
    count: u64,
    /// New bytes gathered beyond the window before a search pass ([`BATCH`]).
    batch: usize,
    /// Raw bytes not yet emitted, decoded or not; the first is at stream offset `raw_at`.
    raw: Vec<u8>,
    raw_at: usize,
    /// How many bytes of `raw` have been decoded into `view`.
    raw_decoded: usize,
    /// The decoded view from view offset `view_at` on: up to `CONTEXT` bytes before `next`,
    /// then the bytes not yet searched to the end.
    view: Vec<u8>,
    view_at: usize,
    /// The view offset where the next search starts.
    next: usize,
    /// The escapes in `view`, in order (those before it are dropped).
    escapes: Vec<Escape>,
    /// Raw offset minus view offset after the last dropped escape.
    shift: usize,
}

impl Redactor {
    /// A redactor for the built-in token shapes plus these literal secrets.
    pub fn new(secrets: &[Vec<u8>]) -> Redactor {
        let forms = secret_forms(secrets);
        let regex = alternation(&forms, &[]);
        let longest_secret = secrets.iter().map(Vec::len).max().unwrap_or(0);
        Redactor {
            regex,
            pem_end: Regex::new(PEM_END).expect("the PEM END pattern is valid"),
            label: label_regex(),
            literals: forms
                .into_iter()
                .filter(|f| !f.then_any)
                .map(|f| f.bytes)
                .collect(),
            hold: MAX_PATTERN_LEN.max(longest_secret) + 1,
            count: 0,
            batch: BATCH,
            raw: Vec::new(),
            raw_at: 0,
            raw_decoded: 0,
            view: Vec::new(),
            view_at: 0,
            next: 0,
            escapes: Vec::new(),
            shift: 0,
        }
    }

    /// Searches once `batch` new bytes are beyond the held-back window (0: on every feed)
    /// instead of the default 64 KiB. Output does not depend on it; tests and the fuzz target
    /// use small values so that passes fall at many different places of short inputs.
    pub fn set_batch(&mut self, batch: usize) {
        self.batch = batch;
    }

    /// Bytes of the decoded view that may be held back between chunks (beyond the context
    /// bytes).
    pub fn hold(&self) -> usize {
        self.hold
    }

    /// Secrets replaced so far.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// Redacts a chunk, appending to `out` every byte that is now final.
    pub fn feed(&mut self, chunk: &[u8], out: &mut Vec<u8>) {
        self.raw.extend_from_slice(chunk);
        self.decode(false);
        // A pass searches the whole held-back window, so it waits until BATCH new bytes are
        // beyond it: a producer writing a few bytes at a time would otherwise have the same
        // 16.5 KiB searched again for every write (quadratic). Output is the same either way.
        if self.view_at + self.view.len() - self.next >= self.hold + self.batch {
            self.process(false, out);
        }
    }

    /// Ends the stream, appending what was held back. The redactor can be fed again (a new
    /// stream; the count goes on).
    pub fn finish(&mut self, out: &mut Vec<u8>) {
        self.decode(true);
        self.process(true, out);
        self.raw.clear();
        self.view.clear();
        self.escapes.clear();
        (
            self.raw_at,
            self.raw_decoded,
            self.view_at,
            self.next,
            self.shift,
        ) = (0, 0, 0, 0, 0);
    }

    /// Redacts a whole input at once (the inline path and labels).
    pub fn redact_all(&mut self, bytes: &[u8]) -> Vec<u8> {
        let mut out = Vec::with_capacity(bytes.len());
        self.feed(bytes, &mut out);
        self.finish(&mut out);
        out
    }

    /// Decodes the raw bytes not decoded yet, as far as they can be.
    fn decode(&mut self, last: bool) {
        let (raw_at, view_at) = (self.raw_at + self.raw_decoded, self.view_at);
        let escapes = &mut self.escapes;
        let done = decode_into(
            &self.raw[self.raw_decoded..],
            last,
            &mut self.view,
            |raw, view, n, len| {
                escapes.push(Escape {
                    view: view_at + view,
                    view_end: view_at + view + n,
                    raw: raw_at + raw,
                    raw_end: raw_at + raw + len,
                });
            },
        );
        self.raw_decoded += done;
    }

    /// The raw offset where the view byte at view offset `v` starts (its escape's start).
    fn raw_start(&self, v: usize) -> usize {
        let i = self.escapes.partition_point(|e| e.view_end <= v);
        match self.escapes.get(i) {
            Some(e) if e.view <= v => e.raw,
            _ => self.past(i, v),
        }
    }

    /// The raw offset where the view bytes before view offset `v` end (the end of the escape
    /// of the byte before `v`).
    fn raw_end(&self, v: usize) -> usize {
        let i = self.escapes.partition_point(|e| e.view_end < v);
        match self.escapes.get(i) {
            Some(e) if e.view < v => e.raw_end,
            _ => self.past(i, v),
        }
    }

    /// The raw offset of view offset `v`, which lies after escape `i - 1` and before escape `i`.
    fn past(&self, i: usize, v: usize) -> usize {
        match i.checked_sub(1).map(|j| self.escapes[j]) {
            Some(e) => e.raw_end + (v - e.view_end),
            None => v + self.shift,
        }
    }

    fn process(&mut self, last: bool, out: &mut Vec<u8>) {
        let view_end = self.view_at + self.view.len();
        // Matches starting before `settled` are complete and final (see the module doc).
        let settled = if last {
            view_end
        } else {
            view_end.saturating_sub(self.hold)
        };
        let buf = &self.view;
        let base = self.view_at;
        let mut emitted = self.raw_at;
        let mut at = self.next;
        let mut ends = EndScan::default();
        while at < settled {
            let Some(m) = self.regex.find_at(buf, at - base) else {
                break;
            };
            let start = base + m.start();
            if start >= settled {
                break;
            }
            let mut end = base + m.end();
            if m.as_bytes().starts_with(b"-----BEGIN ")
                && !self.literals.iter().any(|s| s == m.as_bytes())
            {
                // A PEM header (a secret equal to it comes first, as in a regex alternation).
                // Every byte the block may span is here: a match starts before `settled`,
                // `hold` bytes before the end, unless this is the last pass.
                let last_start = m.end() + PEM_BODY;
                if let Some(e) = ends.first_at_or_after(&self.pem_end, buf, m.end(), last_start) {
                    end = base + e;
                }
            }
            let kept = self.label.find(m.as_bytes()).map_or(0, |l| l.end());
            let (from, to) = (self.raw_start(start + kept), self.raw_end(end));
            // A match that starts inside the escape the previous one ended in (a character
            // split between them) extends that replacement.
            if from >= emitted {
                out.extend_from_slice(&self.raw[emitted - self.raw_at..from - self.raw_at]);
                out.extend_from_slice(REPLACEMENT);
                self.count += 1;
            }
            emitted = emitted.max(to);
            at = end.max(start + 1);
        }
        let upto = if last { view_end } else { settled.max(at) };
        let raw_upto = if last {
            self.raw_at + self.raw.len()
        } else {
            emitted.max(self.raw_start(upto))
        };
        out.extend_from_slice(&self.raw[emitted - self.raw_at..raw_upto - self.raw_at]);
        self.raw.drain(..raw_upto - self.raw_at);
        self.raw_decoded -= raw_upto - self.raw_at;
        self.raw_at = raw_upto;
        let keep_from = upto.saturating_sub(CONTEXT).max(self.view_at);
        self.view.drain(..keep_from - self.view_at);
        self.view_at = keep_from;
        self.next = upto;
        let gone = self.escapes.partition_point(|e| e.view_end <= keep_from);
        if let Some(e) = gone.checked_sub(1).map(|j| self.escapes[j]) {
            self.shift = e.raw_end - e.view_end;
            self.escapes.drain(..gone);
        }
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

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A JSON escape for each character of `text`, chosen by `choices` (cycled): as it is (`"`, `\`
    /// and control characters are always escaped), `\u` with lower- or upper-case digits (a
    /// surrogate pair beyond the BMP), or its short escape (`\/`, `\n` ...) where there is one.
    fn json_escape(text: &str, choices: &[u8]) -> String {
        let mut out = String::new();
        for (i, c) in text.chars().enumerate() {
            let choice = choices.get(i % choices.len().max(1)).copied().unwrap_or(0) % 4;
            let short = match c {
                '"' => Some("\\\""),
                '\\' => Some("\\\\"),
                '/' => Some("\\/"),
                '\u{8}' => Some("\\b"),
                '\u{c}' => Some("\\f"),
                '\n' => Some("\\n"),
                '\r' => Some("\\r"),
                '\t' => Some("\\t"),
                _ => None,
            };
            let must = matches!(c, '"' | '\\') || c.is_control();
            let hex = |out: &mut String, upper: bool| {
                for u in c.encode_utf16(&mut [0u16; 2]) {
                    out.push_str(&if upper {
                        format!("\\u{u:04X}")
                    } else {
                        format!("\\u{u:04x}")
                    });
                }
            };
            match (choice, short) {
                (0, _) if !must => out.push(c),
                (3, Some(s)) => out.push_str(s),
                (0, Some(s)) => out.push_str(s),
                (2, _) => hex(&mut out, true),
                _ => hex(&mut out, false),
            }
        }
        out
    }

    fn redact(input: &str) -> (String, u64) {
        let mut r = Redactor::new(&[]);
        let out = r.redact_all(input.as_bytes());
        (String::from_utf8(out).unwrap(), r.count())
    }

    const PEM: &str = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA1x\nq2w3e4r5t6y7u8i9o0p\n-----END RSA PRIVATE KEY-----";
    const PGP: &str = "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQOYBF+xyz0BCADhVh8k\n=Wf3a\n-----END PGP PRIVATE KEY BLOCK-----";

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
            ("pgp", PGP.to_string()),
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
        // Written with `\/` (PHP's and some loggers' JSON): the whole token, escapes and all.
        let (out, n) = redact(r#"{"Authorization":"Bearer abc\/DEF+123\/456=="}"#);
        assert_eq!(out, r#"{"Authorization":"Bearer [REDACTED]"}"#);
        assert_eq!(n, 1);
    }

    #[test]
    fn json_escaped_tokens_are_replaced_escapes_and_all() {
        let ghp = format!("ghp_{}", "a1B2".repeat(9));
        for (input, want) in [
            (
                r#"{"k":"\u0041KIAIOSFODNN7EXAMPLE"}"#.to_string(),
                r#"{"k":"[REDACTED]"}"#,
            ),
            (
                r#"["AKIA\u0049OSFODNN7EXAMPL\u0045"]"#.to_string(),
                r#"["[REDACTED]"]"#,
            ),
            (
                format!(r#"["ghp\u005f{}"]"#, &ghp[4..]),
                r#"["[REDACTED]"]"#,
            ),
            (
                format!(r#"["ghp\u005F{}"]"#, &ghp[4..]),
                r#"["[REDACTED]"]"#,
            ),
            (
                format!(r#"["\u0067\u0068\u0070_{}"]"#, &ghp[4..]),
                r#"["[REDACTED]"]"#,
            ),
            // An escape before a token is a boundary when it stands for one: `\n` is a newline.
            (
                r#"["line\nAKIAIOSFODNN7EXAMPLE"]"#.to_string(),
                r#"["line\n[REDACTED]"]"#,
            ),
            (
                r#"["x\tsk-proj-AbCdEfGhIjKl\u004dnOpQrStUvWxYz0123456789"]"#.to_string(),
                r#"["x\t[REDACTED]"]"#,
            ),
            (
                PEM.replace('\n', "\\n").replace("PRIVATE", "PRIV\\u0041TE"),
                "[REDACTED]",
            ),
        ] {
            let (out, n) = redact(&input);
            assert_eq!(out, want, "{input}");
            assert_eq!(n, 1, "{input}");
        }
        // `\\u0041KIA…` is a backslash followed by the text `u0041KIA…`: nothing to replace.
        let text = r#"["\\u0041KIAIOSFODNN7EXAMPLE"]"#;
        assert_eq!(redact(text), (text.to_string(), 0));
    }

    #[test]
    fn labelled_aws_credentials_lose_their_value_and_keep_their_label() {
        let key = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
        let token = "FwoGZXIvYXdzEBYaDH3Xb+8A/k9Q==";
        for (input, want) in [
            (
                format!("AWS_SECRET_ACCESS_KEY={key}\n"),
                "AWS_SECRET_ACCESS_KEY=[REDACTED]\n",
            ),
            (
                format!("export AWS_SECRET_ACCESS_KEY=\"{key}\"\n"),
                "export AWS_SECRET_ACCESS_KEY=\"[REDACTED]\"\n",
            ),
            (
                format!("aws_secret_access_key = {key}\n"),
                "aws_secret_access_key = [REDACTED]\n",
            ),
            (
                format!("secret_access_key: '{key}'"),
                "secret_access_key: '[REDACTED]'",
            ),
            (
                format!(r#"{{"SecretAccessKey": "{}"}}"#, key.replace('/', "\\/")),
                r#"{"SecretAccessKey": "[REDACTED]"}"#,
            ),
            (
                format!("--aws-secret-access-key {key} --region x"),
                "--aws-secret-access-key [REDACTED] --region x",
            ),
            (
                format!(r#""SessionToken": "{token}","#),
                r#""SessionToken": "[REDACTED]","#,
            ),
            (
                format!("aws_session_token={token}\n"),
                "aws_session_token=[REDACTED]\n",
            ),
        ] {
            let (out, n) = redact(&input);
            assert_eq!(out, want, "{input}");
            assert_eq!(n, 1, "{input}");
        }
        // A short or absent value is not a credential.
        for text in [
            "aws_secret_access_key = <unset>",
            "secret_access_key is missing",
        ] {
            assert_eq!(redact(text), (text.to_string(), 0), "{text}");
        }
    }

    #[test]
    fn aws_key_ids_glued_to_words_are_replaced() {
        for (input, want) in [
            ("id_AKIAIOSFODNN7EXAMPLE", "id_[REDACTED]"),
            ("keyASIAY34FZKBOKMUTVV7A,", "key[REDACTED],"),
            ("AKIAIOSFODNN7EXAMPLE_prod", "[REDACTED]_prod"),
            ("9AKIAIOSFODNN7EXAMPLE9", "9[REDACTED]9"),
        ] {
            assert_eq!(redact(input), (want.to_string(), 1), "{input}");
        }
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
            "-----BEGIN PGP PUBLIC KEY BLOCK-----\nmQINBF\n-----END PGP PUBLIC KEY BLOCK-----",
            r#"C:\Users\build\new\tmp \u00e9t\u00e9 \ud800 \q \"quoted\" trailing \"#,
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
    fn environment_secrets_with_quotes_and_backslashes_are_found_escaped_or_not() {
        let secret = r#"pa"ss\word\n-42"#;
        let ends_in_backslash = r"trailing-secret\";
        let mut r = Redactor::new(&[
            secret.as_bytes().to_vec(),
            ends_in_backslash.as_bytes().to_vec(),
        ]);
        let json = serde_json::to_string(secret).unwrap();
        for (input, want) in [
            // As the output printed it, and JSON-escaped (serde_json, \u forms).
            (format!("x {secret} y"), "x [REDACTED] y".to_string()),
            (
                format!("{{\"v\":{json}}}"),
                r#"{"v":"[REDACTED]"}"#.to_string(),
            ),
            (
                format!("[\"{}\"]", json_escape(secret, &[1, 2, 3, 0])),
                r#"["[REDACTED]"]"#.to_string(),
            ),
            // After a lone backslash, which reads `\n` as an escape, and with `\n` after the
            // final backslash.
            (
                format!("{ends_in_backslash}n more"),
                "[REDACTED] more".to_string(),
            ),
            (
                format!("{ends_in_backslash} more"),
                "[REDACTED] more".to_string(),
            ),
        ] {
            let out = String::from_utf8(r.redact_all(input.as_bytes())).unwrap();
            assert_eq!(out, want, "{input}");
        }
        let mut r = Redactor::new(&[b"npass-word-x".to_vec()]);
        assert_eq!(r.redact_all(br"C:\npass-word-x;"), b"C:[REDACTED];");
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
        let input = format!("{}{secret}\n", "log \\u0041 line\\n\n".repeat(30_000));
        let mut r = Redactor::new(&[]);
        let mut out = Vec::new();
        for b in input.as_bytes().chunks(3) {
            r.feed(b, &mut out);
            let view = r.view.len();
            assert!(view <= r.hold() + BATCH + CONTEXT + 3, "{view}");
            assert!(r.raw.len() <= 6 * view + 12, "{}", r.raw.len());
            assert!(r.escapes.len() <= view, "{}", r.escapes.len());
        }
        r.finish(&mut out);
        assert_eq!(r.count(), 1);
        assert_eq!(out, Redactor::new(&[]).redact_all(input.as_bytes()));
    }

    #[test]
    fn the_longest_pem_block_is_found_whatever_the_split() {
        let label = "A".repeat(40);
        let pem = format!(
            "-----BEGIN {label}PRIVATE KEY BLOCK-----{}-----END {label}PRIVATE KEY BLOCK-----",
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
        let out = r.redact_all(b"\xff\xfe AKIAIOSFODNN7EXAMPLE \x80\\");
        assert_eq!(out, b"\xff\xfe [REDACTED] \x80\\");
    }

    /// Escape sequences, whole and cut short, to mix into generated inputs.
    const ESCAPES: &[&str] = &[
        "\\",
        "\\\\",
        "\\n",
        "\\/",
        "\\\"",
        "\\u",
        "\\u00",
        "\\u0041",
        "\\u004b",
        "\\u005f",
        "\\u005F",
        "\\ud83d",
        "\\ude00",
        "\\ud83d\\ude00",
        "\\u00e9",
        "\\x41",
        "KIA",
        "\\u0067hp",
        "\\u0041KIAIOSFODNN7EXAMPL\\u0045",
    ];

    fn piece() -> impl Strategy<Value = String> {
        let mut options: Vec<String> = samples().into_iter().map(|(_, s)| s).collect();
        options.extend(
            [
                "Authorization: Bearer tok_0123456789",
                "Authorization: Bearer tok\\/0123456789",
                "AWS_SECRET_ACCESS_KEY=",
                "\"SecretAccessKey\": \"",
                "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
                "id_",
                "hunter2hunter2",
                "pa\"ss\\word",
                "pa\\\"ss\\\\word",
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
        options.extend(ESCAPES.iter().map(|s| s.to_string()));
        prop::sample::select(options)
    }

    /// The secrets the generated inputs are redacted with.
    fn test_secrets() -> Vec<Vec<u8>> {
        vec![
            b"-----BEGIN A PRIVATE KEY-----".to_vec(),
            b"hunter2hunter2".to_vec(),
            b"pa\"ss\\word".to_vec(),
        ]
    }

    /// The redactor done in one piece, without windows: the whole input decoded, one regex
    /// over the view (the PEM block as one lazy alternative, as it once was), each match
    /// mapped to the raw bytes of its escapes. The oracle for the streaming redactor's window,
    /// END-line search and view-to-raw mapping.
    fn one_regex_redact(secrets: &[Vec<u8>], input: &[u8]) -> (Vec<u8>, u64) {
        let block = format!(
            "{PEM_BEGIN}(?s:.){{0,{PEM_BODY}}}?{}",
            PEM_END.trim_start_matches("(?-u)")
        );
        let regex = alternation(&secret_forms(secrets), &[block]);
        let mut view = Vec::new();
        let mut escapes = Vec::new();
        decode_into(input, true, &mut view, |raw, v, n, len| {
            escapes.push((raw, v, n, len))
        });
        // The raw span of every view byte.
        let mut spans = Vec::with_capacity(view.len());
        let mut raw = 0;
        for (at, v, n, len) in escapes.into_iter().chain([(input.len(), view.len(), 0, 0)]) {
            while spans.len() < v {
                spans.push((raw, raw + 1));
                raw += 1;
            }
            spans.extend(std::iter::repeat_n((at, at + len), n));
            raw = at + len;
        }
        let start_of = |v: usize| spans.get(v).map_or(input.len(), |s| s.0);
        let end_of = |v: usize| v.checked_sub(1).map_or(0, |v| spans[v].1);
        let label = label_regex();
        let (mut out, mut count, mut emitted) = (Vec::new(), 0, 0);
        for m in regex.find_iter(&view) {
            let kept = label.find(m.as_bytes()).map_or(0, |l| l.end());
            let (from, to) = (start_of(m.start() + kept), end_of(m.end()));
            if from >= emitted {
                out.extend_from_slice(&input[emitted..from]);
                out.extend_from_slice(REPLACEMENT);
                count += 1;
            }
            emitted = emitted.max(to);
        }
        out.extend_from_slice(&input[emitted..]);
        (out, count)
    }

    fn pem_piece() -> impl Strategy<Value = String> {
        let options = [
            "-----BEGIN RSA PRIVATE KEY-----",
            "-----BEGIN PRIVATE KEY-----\n",
            "-----BEGIN OPENSSH PRIVATE KEY-----",
            "-----BEGIN PGP PRIVATE KEY BLOCK-----",
            "-----END RSA PRIVATE KEY-----",
            "-----END PRIVATE KEY-----\n",
            "-----END OPENSSH PRIVATE KEY-----",
            "-----END PGP PRIVATE KEY BLOCK-----",
            "-----END PGP PRIVATE KEY BLOCK",
            "-----END ",
            "-----BEGIN ",
            "PRIVATE KEY-----",
            "-----",
            "RSA ",
            "-----BEGIN A PRIVATE KEY-----",
            "\n",
            "\\n",
            "\\u002d----END RSA PRIVATE KEY-----",
            "MIIEowIBAAKCAQEA1x\n",
        ]
        .map(String::from);
        prop_oneof![
            6 => prop::sample::select(options.to_vec()),
            1 => (1usize..9000).prop_map(|n| "b".repeat(n)),
            1 => (1usize..3000).prop_map(|n| "\\u0062".repeat(n)),
            2 => piece(),
        ]
    }

    /// A text to hide and how its characters are escaped.
    fn escaped_secret() -> impl Strategy<Value = (String, Vec<u8>)> {
        let mut secrets: Vec<String> = samples().into_iter().map(|(_, s)| s).collect();
        secrets.push("pa\"ss\\word".to_string());
        secrets.push("hunter2hunter2".to_string());
        secrets.push("gehe\u{0131}m-\u{1F511}-w\u{e4}rt".to_string());
        (
            prop::sample::select(secrets),
            prop::collection::vec(any::<u8>(), 1..8),
        )
    }

    /// The streaming redactor (with [`test_secrets`]) gives what [`one_regex_redact`] gives.
    fn agrees_with_the_one_regex(input: &str) -> Result<(), TestCaseError> {
        // One secret equal to a header: a secret comes first, so it is never extended.
        let secrets = test_secrets();
        // Compiling the patterns is the slow part: compile once, clone per case.
        static BASE: std::sync::OnceLock<Redactor> = std::sync::OnceLock::new();
        let mut r = BASE.get_or_init(|| Redactor::new(&secrets)).clone();
        let out = r.redact_all(input.as_bytes());
        let (expected, count) = one_regex_redact(&secrets, input.as_bytes());
        prop_assert_eq!(
            String::from_utf8_lossy(&out),
            String::from_utf8_lossy(&expected)
        );
        prop_assert_eq!(r.count(), count);
        Ok(())
    }

    proptest! {
        #[test]
        fn pem_blocks_and_escapes_redact_as_the_one_regex_did(
            pieces in prop::collection::vec(pem_piece(), 0..16),
        ) {
            agrees_with_the_one_regex(&pieces.concat())?;
        }

        #[test]
        fn tokens_and_escapes_redact_as_the_one_regex_did(
            pieces in prop::collection::vec(piece(), 0..24),
        ) {
            agrees_with_the_one_regex(&pieces.concat())?;
        }

        #[test]
        fn any_json_escaping_of_a_secret_leaves_valid_json_and_no_plaintext(
            (secret, choices) in escaped_secret(),
            before in prop::collection::vec(piece(), 0..4),
            after in prop::collection::vec(piece(), 0..4),
        ) {
            // Blanks between the pieces: a token glued to a word is not a token.
            let text = [before.join(" "), secret.clone(), after.join(" ")].join(" ");
            let document = format!("{{\"log\":\"{}\"}}", json_escape(&text, &choices));
            static BASE: std::sync::OnceLock<Redactor> = std::sync::OnceLock::new();
            let mut r = BASE
                .get_or_init(|| Redactor::new(&[b"pa\"ss\\word".to_vec(), b"hunter2hunter2".to_vec(), "gehe\u{0131}m-\u{1F511}-w\u{e4}rt".as_bytes().to_vec()]))
                .clone();
            let out = r.redact_all(document.as_bytes());
            let value: serde_json::Value = serde_json::from_slice(&out).expect("still JSON");
            let shown = value["log"].as_str().unwrap();
            prop_assert!(!shown.contains(&secret), "{} in {}", secret, shown);
            prop_assert!(r.count() >= 1);
        }

        #[test]
        fn the_view_decodes_json_strings_as_serde_json_does(
            text in "[a-z\"\\\\/\n\t\u{1}é\u{1F511}]{0,24}",
            choices in prop::collection::vec(any::<u8>(), 1..6),
        ) {
            let escaped = json_escape(&text, &choices);
            let parsed: String = serde_json::from_str(&format!("\"{escaped}\"")).unwrap();
            prop_assert_eq!(&parsed, &text);
            prop_assert_eq!(decoded(escaped.as_bytes()), text.into_bytes());
        }

        #[test]
        fn chunking_never_changes_the_result(
            pieces in prop::collection::vec(piece(), 0..24),
            cuts in prop::collection::vec(0usize..4000, 0..8),
        ) {
            let input = pieces.concat().into_bytes();
            // Compiling the patterns is the slow part: compile once, clone per case.
            static BASE: std::sync::OnceLock<Redactor> = std::sync::OnceLock::new();
            let base = BASE.get_or_init(|| Redactor::new(&test_secrets()));
            let mut whole = base.clone();
            let expected = whole.redact_all(&input);
            let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c.min(input.len())).collect();
            cuts.sort();
            let mut r = base.clone();
            r.set_batch(cuts.first().copied().unwrap_or(0) % 7);
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
