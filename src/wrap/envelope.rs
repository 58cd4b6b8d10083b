//! Building the envelope of a spilled output: the summary, the preview and signals, the hint's
//! commands, and the loop that shrinks it field by field until it fits `max(--max-inline, 4 KiB)`.

use serde_json::value::RawValue;

use crate::envelope::{Envelope, Preview, SignalMatch, Signals};
use crate::json;
use crate::limits::{self, group_digits, human_size};
use crate::text::analyze::TextFacts;
use crate::text::preview::{self, Budget};
use crate::text::shell;

use super::capture::{Spilled, analyze_options};
use super::{MAX_SIGNALS, WrapOptions};

pub(super) fn mime_of(facts: &TextFacts) -> &'static str {
    if facts.binary {
        "application/octet-stream"
    } else {
        "text/plain"
    }
}

pub(super) fn plural(n: u64, one: &str, many: &str) -> String {
    format!("{} {}", group_digits(n), if n == 1 { one } else { many })
}

/// The one-sentence summary: `text, 5,000 lines, 190.3 KiB; 3 failure signals`, the line that
/// stands out of its kind when the ranking found one (`line 422 stands out: 45M
/// ./docs/recording.webm (largest of 631 similar lines)`; for a rare value its sentence, `1 of
/// 500 records has status 503 (line 322)`), and a note where the text looked
/// like JSON but was not. `signals` counts every signal entry; the ones that stand out by a
/// number or as a table are not failures and are named instead of counted.
pub(super) fn summary(facts: &TextFacts, signals: u64, invalid_json: Option<&str>) -> String {
    if facts.binary {
        return format!("binary, {}", human_size(facts.size));
    }
    let mut s = format!(
        "text, {}, {}",
        plural(facts.lines, "line", "lines"),
        human_size(facts.size)
    );
    let notable = facts.ranked.iter().filter(|r| r.note.is_some()).count() as u64;
    let failures = signals.saturating_sub(notable);
    if failures > 0 {
        s.push_str(&format!(
            "; {}",
            plural(failures, "failure signal", "failure signals")
        ));
    }
    if let Some(r) = facts.ranked.iter().find(|r| r.note.is_some()) {
        if let Some(sentence) = &r.sentence {
            s.push_str(&format!(
                "; {} (line {})",
                cut_chars(sentence, 120),
                group_digits(r.line)
            ));
        } else {
            let last = r.text.lines().last().unwrap_or("");
            let words: Vec<&str> = last.split_whitespace().collect();
            s.push_str(&format!(
                "; line {} stands out: {} ({})",
                group_digits(r.line),
                cut_chars(&words.join(" "), 80),
                r.note.as_deref().unwrap_or("")
            ));
        }
    }
    if let Some(note) = invalid_json {
        s.push_str(&format!("; {note}"));
    }
    s
}

/// Builds the envelope for a spilled output, shrinking the preview until the whole envelope
/// fits `max(--max-inline, 4 KiB)`.
///
/// Bytes the scope already held give a pointer instead (README, "A repeated output"): the
/// envelope keeps its ref, path, counts, exit code, flags and hint, gets `repeatOf` and a
/// summary that opens with `the same 165.7 KiB as sp_… stored 3 min ago`, and leaves out the
/// preview, the signals and the shape, which the earlier envelope showed.
pub fn envelope(
    s: &Spilled,
    opts: &WrapOptions,
    exit_code: Option<i32>,
    restricted: bool,
) -> Envelope {
    let earlier = s.stored.as_ref().ok().and_then(|st| st.earlier);
    let mut env = full_envelope(s, opts, exit_code, restricted);
    if let (Some(created), Some(r)) = (earlier, env.reference.clone()) {
        let ago = (crate::store::meta::now_secs() - created).max(0.0) as u64;
        env.summary = format!(
            "the same {} as {r} stored {}; {}",
            human_size(env.size_bytes),
            ago_text(ago),
            env.summary
        );
        env.repeat_of = Some(crate::envelope::RepeatOf {
            reference: r,
            stored_seconds_ago: ago,
        });
        env.preview = None;
        env.signals = None;
        env.shape = None;
        // The longer summary is counted against the bound like every other field.
        let cap = opts.max_inline.max(limits::ENVELOPE_FLOOR) as usize;
        for shrink in SHRINK_ORDER {
            if env.to_json().len() <= cap {
                break;
            }
            shrink(&mut env);
        }
    }
    env
}

/// `12 s ago`, `3 min ago`, `2 h ago`, `4 days ago`: how long ago an earlier copy was stored.
fn ago_text(seconds: u64) -> String {
    match seconds {
        0..60 => format!("{seconds} s ago"),
        60..3600 => format!("{} min ago", seconds / 60),
        3600..86400 => format!("{} h ago", seconds / 3600),
        _ => plural(seconds / 86400, "day ago", "days ago"),
    }
}

fn full_envelope(
    s: &Spilled,
    opts: &WrapOptions,
    exit_code: Option<i32>,
    restricted: bool,
) -> Envelope {
    let facts = &s.facts;
    let cap = opts.max_inline.max(limits::ENVELOPE_FLOOR) as usize;
    let mut base = Envelope {
        spilled: s.stored.is_ok(),
        mime_type: mime_of(facts).to_string(),
        size_bytes: facts.size,
        lines: facts.lines,
        exit_code,
        interrupted: s.interrupted.then_some(true),
        summary: summary(facts, facts.signal_total, s.invalid_json.as_deref()),
        redacted: s.redacted,
        ..Envelope::default()
    };
    // Labels are free-form: keep the envelope bounded whatever was passed.
    base.label = opts
        .label
        .as_ref()
        .filter(|l| !l.is_empty())
        .map(|l| cut_chars(l, 200));
    match &s.stored {
        Ok(st) => {
            base.reference = Some(st.reference.to_string());
            base.path = (!restricted).then(|| st.path.to_string_lossy().into_owned());
            if !st.complete {
                base.complete = Some(false);
                base.stored_bytes = Some(st.stored_bytes);
                base.dropped_bytes = Some(st.dropped_bytes);
            }
        }
        // Restricted mode names no path, in the envelope as on stderr.
        Err(reason) if restricted => base.error = Some(crate::diag::without_paths(reason)),
        Err(reason) => base.error = Some(reason.clone()),
    }
    if let Some(part) = &s.json {
        base.mime_type = part.facts.payload_mime().to_string();
        base.json_part = part.facts.part.map(|p| crate::envelope::JsonPart {
            lines: [p.first_line, p.last_line],
            bytes: [p.start as u64, p.end as u64],
            other_lines: p.other_lines(),
        });
        base.total_items = part.facts.total_items;
        base.summary = part.facts.summary.clone();
        // The record that stands out, in words: `1 of 241 records has operstate "DOWN"`.
        if let Some(rec) = part.records.first() {
            base.summary
                .push_str(&format!("; {}", cut_chars(&rec.sentence, 120)));
        }
        base.shape = RawValue::from_string(part.facts.shape.clone()).ok();
        base.skipped_lines = part.facts.skipped_lines;
    }
    let mut budget = opts.preview as usize;
    let (mut head_lines, mut tail_lines) = (opts.head_lines, opts.tail_lines);
    let mut env = loop {
        let mut env = base.clone();
        fill_preview(&mut env, s, budget, head_lines, tail_lines);
        if env.to_json().len() <= cap {
            return env;
        }
        if budget == 0 && head_lines.is_none() && tail_lines.is_none() {
            break env;
        }
        budget = budget * 3 / 4;
        head_lines = head_lines.map(|n| n / 2).filter(|&n| n > 0);
        tail_lines = tail_lines.map(|n| n / 2).filter(|&n| n > 0);
    };
    // Even an empty preview does not fit: the other free-form fields give way, in this order,
    // until it does. What remains (ref, counts, summary, hint) is far below the 4 KiB floor.
    for shrink in SHRINK_ORDER {
        if env.to_json().len() <= cap {
            break;
        }
        shrink(&mut env);
    }
    env
}

/// How an envelope that exceeds its bound with an empty preview gives way, step by step: the
/// preview and signals go, the label is cut to 40 characters and then dropped, the degraded
/// envelope's error is cut to 200 characters, the shape goes (`spill shape REF` prints it), the
/// path goes (the ref reads the same bytes), and the error is cut to 40 characters.
const SHRINK_ORDER: [fn(&mut Envelope); 7] = [
    |e| {
        e.preview = None;
        e.signals = None;
    },
    |e| e.label = e.label.take().map(|l| cut_chars(&l, 40)),
    |e| e.label = None,
    |e| e.error = e.error.take().map(|x| cut_chars(&x, 200)),
    |e| e.shape = None,
    |e| e.path = None,
    |e| e.error = e.error.take().map(|x| cut_chars(&x, 40)),
];

/// `text` cut to `max` characters, ending in `…` when cut.
fn cut_chars(text: &str, max: usize) -> String {
    let keep = crate::text::prefix_bytes_for_chars(text.as_bytes(), max);
    if keep < text.len() {
        format!("{}…", &text[..keep])
    } else {
        text.to_string()
    }
}

/// Adds preview, signals and hint for a preview budget of `budget` bytes.
fn fill_preview(
    env: &mut Envelope,
    s: &Spilled,
    budget: usize,
    head_lines: Option<usize>,
    tail_lines: Option<usize>,
) {
    let facts = &s.facts;
    let reference = s.stored.as_ref().ok().map(|st| st.reference.to_string());
    if let Some(part) = &s.json {
        let preview = json::analyze::render_preview(
            &part.map,
            &part.facts.preview_source,
            &analyze_options(budget),
        );
        env.preview = RawValue::from_string(preview).ok().map(Preview::Json);
        env.signals = json_signals(s, budget / 2);
        if let Some(r) = &reference {
            let filter = part.records.first().and_then(|rec| rec.filter.as_deref());
            set_hint(
                env,
                r,
                json_commands(r, &part.facts, filter, facts.fail_words),
            );
        }
        return;
    }
    if facts.binary {
        let rows = (budget / 90).min(16);
        let shown = &facts.head[..facts.head.len().min(rows * 16)];
        if rows > 0 {
            env.preview = Some(Preview::Hex(
                crate::text::hex::dump(shown, 0)
                    .lines()
                    .map(str::to_string)
                    .collect(),
            ));
        }
        if let Some(r) = &reference {
            let end = facts.size;
            let last = end.saturating_sub(4096);
            set_hint(
                env,
                r,
                vec![
                    format!("spill cat {r} --hex --bytes 0:4096"),
                    format!("spill cat {r} --hex --bytes {last}:{end}"),
                ],
            );
        }
        return;
    }
    // Signals take at most half the budget; the preview gets the rest, split 1/3 : 2/3.
    let mut chosen = Vec::new();
    let mut lossy = false;
    let mut probe = preview::render(facts, split(budget, head_lines, tail_lines));
    // The ranked signals, best first; a line the preview shows whole is not repeated, a long
    // line the preview cuts is (the signal windows it around its decisive words).
    let outside = |r: &&crate::text::rank::Ranked| {
        r.long || (r.line > probe.head_line_count && r.line < probe.tail_first_line)
    };
    let mut used = 0;
    let mut spans: Vec<(u64, u64)> = Vec::new();
    // The entries outside the preview first; when the preview shows every one, the best of them
    // are listed all the same, so a `total` never stands beside an empty list.
    let outside_first: Vec<&crate::text::rank::Ranked> =
        facts.ranked.iter().filter(outside).collect();
    let passes = [outside_first, facts.ranked.iter().collect()];
    for pass in &passes {
        if !chosen.is_empty() {
            break;
        }
        for &sig in pass {
            if chosen.len() == MAX_SIGNALS {
                break;
            }
            // A line another chosen signal already shows (the detail under a header) is not
            // repeated.
            if spans
                .iter()
                .any(|&(a, b)| a <= sig.span.1 && sig.span.0 <= b)
            {
                continue;
            }
            let c = sig.text.len() + 24 + sig.note.as_ref().map_or(0, |n| n.len() + 10);
            if used + c > budget / 2 {
                continue;
            }
            used += c;
            lossy |= sig.lossy;
            spans.push(sig.span);
            chosen.push(signal_match(sig));
        }
    }
    if used > 0 {
        probe = preview::render(facts, split(budget - used, head_lines, tail_lines));
        // A smaller preview can only uncover lines, never hide a chosen signal.
    }
    lossy |= probe.lossy;
    // The search finds the best signal shown (else the best ranked) and few lines besides.
    let strongest = chosen
        .first()
        .and_then(|c| facts.ranked.iter().find(|r| r.line == c.line))
        .or(facts.ranked.first())
        .map(|r| r.search.clone())
        .filter(|s| !s.is_empty());
    if let Some(r) = &reference {
        // A generic search only where it finds something.
        let search = match &strongest {
            Some(marker) => Some(format!("spill search {r} -F {} -C 2", shell::quote(marker))),
            None => facts
                .fail_words
                .then(|| format!("spill search {r} -i 'error|fail' -C 2")),
        };
        let a = probe.head_line_count + 1;
        let b = probe.tail_first_line.saturating_sub(1);
        let middle = if a <= b {
            format!(
                "spill cat {r} --lines {a}:{}",
                b.min(a + limits::CAT_LINES - 1)
            )
        } else {
            format!("spill cat {r}")
        };
        // `cat` reads around the first signal listed: its header and the lines after it.
        let cat = chosen.first().map_or(middle.clone(), |c| {
            let span_end = facts
                .ranked
                .iter()
                .find(|x| x.span.0 == c.line)
                .map_or(c.line, |x| x.span.1);
            let from = c.line.saturating_sub(CAT_BEFORE).max(1);
            let to = (span_end + CAT_AFTER).min(facts.lines.max(1));
            format!("spill cat {r} --lines {from}:{to}")
        });
        let commands = match search {
            Some(search) => vec![search, cat],
            None if cat != middle => vec![cat, middle],
            None => vec![cat, format!("spill shape {r}")],
        };
        set_hint(env, r, commands);
    }
    if facts.signal_total > 0 && !chosen.is_empty() {
        env.signals = Some(Signals {
            matches: chosen,
            total: facts.signal_total,
        });
    }
    env.preview = Some(Preview::Text(probe));
    if lossy {
        env.lossy = Some(true);
    }
}

/// Lines the `cat` hint shows before the first signal listed, and after the last line it shows.
const CAT_BEFORE: u64 = 10;
const CAT_AFTER: u64 = 30;

/// The listed form of a ranked entry. Its `count` is the number of signal lines it stands for
/// (part of `total`); an entry that stands out by a number or as a table has none, its note
/// says how many lines it was compared with.
fn signal_match(sig: &crate::text::rank::Ranked) -> SignalMatch {
    SignalMatch {
        // The first line `text` shows, so `cat --lines` from there shows it.
        line: sig.span.0,
        text: sig.text.clone(),
        count: (sig.count > 1 && sig.note.is_none()).then_some(sig.count),
        path: None,
        note: sig.note.clone(),
    }
}

/// Signals of a JSON payload within `room` bytes: for NDJSON the ranked lines (each record is a
/// line), for a top-level array the records that stand out by a severity field's value.
fn json_signals(s: &Spilled, room: usize) -> Option<Signals> {
    let part = s.json.as_ref()?;
    let mut matches = Vec::new();
    let mut used = 0;
    let mut total = 0;
    let ndjson = part.facts.mime_type == "application/x-ndjson";
    // Mixed output: the ranked lines of the other output come before a document's records.
    let other =
        |r: &&crate::text::rank::Ranked| part.facts.part.is_some_and(|p| p.is_other_line(r.line));
    if ndjson || part.facts.part.is_some() {
        let ranked: Vec<_> = s
            .facts
            .ranked
            .iter()
            .filter(|r| ndjson || other(r))
            .collect();
        total = if ndjson {
            s.facts.signal_total
        } else {
            ranked.len() as u64
        };
        for sig in ranked {
            let c = sig.text.len() + 24;
            if matches.len() == MAX_SIGNALS {
                break;
            }
            if used + c > room {
                continue;
            }
            used += c;
            matches.push(SignalMatch {
                line: sig.line,
                ..signal_match(sig)
            });
        }
    }
    for rec in &part.records {
        // An NDJSON record is a line: one its ranked lines list already is not repeated, the
        // entry gets its path and, when it has none, its note.
        if let Some(m) = matches
            .iter_mut()
            .find(|m: &&mut SignalMatch| ndjson && m.line == rec.line)
        {
            m.path = Some(rec.path.clone());
            m.note.get_or_insert_with(|| rec.note.clone());
            continue;
        }
        total += 1;
        let (record, focus) =
            crate::json::analyze::compact_record(&part.map[rec.span.0..rec.span.1], rec.focus);
        let (text, _) = crate::text::rank::window_text(&record, focus);
        let c = text.len() + rec.note.len() + rec.path.len() + 40;
        if used + c > room {
            continue;
        }
        used += c;
        matches.push(SignalMatch {
            line: rec.line,
            text,
            count: None,
            path: Some(rec.path.clone()),
            note: Some(rec.note.clone()),
        });
    }
    (total > 0 && !matches.is_empty()).then_some(Signals { matches, total })
}

fn split(budget: usize, head_lines: Option<usize>, tail_lines: Option<usize>) -> Budget {
    let head_bytes = budget / 3;
    Budget {
        head_bytes,
        tail_bytes: budget - head_bytes,
        head_lines,
        tail_lines,
    }
}

/// The hint's commands for JSON: shape, the first items of the dominant array, and a search
/// where some line holds a failure word (`fail_words`: a generic search that finds nothing is
/// never hinted); for NDJSON the first records and that search. When a record stands out by a
/// rare value, `filter` selects the records holding it, and its `extract` takes the search's
/// place, first.
fn json_commands(
    r: &str,
    facts: &json::analyze::JsonFacts,
    filter: Option<&str>,
    fail_words: bool,
) -> Vec<String> {
    let ndjson = facts.mime_type == "application/x-ndjson";
    // Read with --skip-invalid, NDJSON's records keep their indexes only with the flag.
    let flag = if ndjson && facts.skipped_lines.is_some() {
        " --skip-invalid"
    } else {
        ""
    };
    let first = match &facts.dominant_path {
        Some(path) => format!("{path}[0:5]"),
        None if ndjson => "$[0:5]".to_string(),
        None => "$".to_string(),
    };
    let first = format!("spill extract {r} {}{flag}", shell::quote(&first));
    if let Some(filter) = filter {
        return vec![
            format!("spill extract {r} {}{flag}", shell::quote(filter)),
            format!("spill shape {r}"),
            first,
        ];
    }
    let search = fail_words.then(|| format!("spill search {r} -i 'error|fail' -C 2"));
    let mut commands = if ndjson {
        vec![first]
    } else {
        vec![format!("spill shape {r}"), first]
    };
    commands.extend(search);
    if commands.len() == 1 {
        commands.push(format!("spill shape {r}"));
    }
    commands
}

/// Names the commands that read the rest: the typed list ([`Envelope::commands`]) and the hint
/// sentence built from it.
fn set_hint(env: &mut Envelope, reference: &str, commands: Vec<String>) {
    env.hint = Some(hint(reference, &commands));
    env.commands = commands;
}

/// `Stored in full as REF. Read it with: A · B`.
pub fn hint(reference: &str, commands: &[String]) -> String {
    format!(
        "Stored in full as {reference}. Read it with: {}",
        commands.join(" · ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_repeat_says_how_long_ago_in_one_unit() {
        let said: Vec<String> = [0, 59, 60, 3599, 3600, 86399, 86400, 2 * 86400]
            .into_iter()
            .map(ago_text)
            .collect();
        assert_eq!(
            said,
            [
                "0 s ago",
                "59 s ago",
                "1 min ago",
                "59 min ago",
                "1 h ago",
                "23 h ago",
                "1 day ago",
                "2 days ago"
            ]
        );
    }
    use crate::store::StoreConfig;
    use crate::wrap::{Capture, capture};

    fn spilled(input: &[u8], opts: &WrapOptions, config: &StoreConfig) -> Box<Spilled> {
        match capture(&mut &input[..], opts, config, &|| false).unwrap() {
            Capture::Spilled(s) => s,
            Capture::Inline(_) => panic!("larger than --max-inline"),
        }
    }

    /// Inputs that push every part of the envelope: long signal lines, a wide JSON object (a
    /// large shape), NDJSON, binary, long lines without a newline.
    fn inputs() -> Vec<Vec<u8>> {
        let mut text = Vec::new();
        for i in 0..600 {
            if i % 37 == 0 {
                text.extend(format!("error[E{i:04}]: {} failed\n", "x".repeat(2000)).bytes());
            } else {
                text.extend(format!("line {i}\n").bytes());
            }
        }
        let wide = format!(
            "{{{}}}",
            (0..800)
                .map(|i| format!("\"key_{i}_{}\":{{\"v\":[1,\"s\"]}}", "k".repeat(40)))
                .collect::<Vec<_>>()
                .join(",")
        );
        let ndjson: String = (0..300)
            .map(|i| {
                format!(
                    "{{\"level\":\"error\",\"msg\":\"{}\",\"i\":{i}}}\n",
                    "m".repeat(200)
                )
            })
            .collect();
        let binary: Vec<u8> = (0..20_000u32).map(|i| (i * 7 % 256) as u8).collect();
        vec![
            text,
            wide.into_bytes(),
            ndjson.into_bytes(),
            binary,
            "y".repeat(50_000).into_bytes(),
        ]
    }

    #[test]
    fn the_envelope_fits_max_inline_or_4_kib_whatever_the_input() {
        let dir = tempfile::tempdir().unwrap();
        let config = StoreConfig::new(dir.path().join("store"), "default".into());
        for input in inputs() {
            for (max_inline, preview) in [(0, 100_000), (100, 2_000), (4096, 0), (6000, 50_000)] {
                for store_error in [None, Some("e".repeat(5000))] {
                    let opts = WrapOptions {
                        max_inline,
                        preview,
                        head_lines: Some(1000),
                        tail_lines: Some(1000),
                        label: Some("label ".repeat(100)),
                        store_error,
                        ..WrapOptions::default()
                    };
                    let s = spilled(&input, &opts, &config);
                    let env = envelope(&s, &opts, Some(1), false);
                    let json = env.to_json();
                    let bound = max_inline.max(limits::ENVELOPE_FLOOR) as usize;
                    assert!(json.len() <= bound, "{} > {bound}: {json}", json.len());
                    // The hint names exactly the typed commands.
                    match (&env.reference, &env.hint) {
                        (Some(r), Some(h)) => {
                            assert!(!env.commands.is_empty());
                            assert_eq!(h, &hint(r, &env.commands));
                        }
                        (None, None) => assert!(env.commands.is_empty()),
                        other => panic!("a hint exactly when stored: {other:?}"),
                    }
                }
            }
        }
    }

    #[test]
    fn a_preview_that_fits_is_not_shrunk() {
        let dir = tempfile::tempdir().unwrap();
        let config = StoreConfig::new(dir.path().join("store"), "default".into());
        let opts = WrapOptions {
            max_inline: 100,
            ..WrapOptions::default()
        };
        let input: Vec<u8> = (1..=100)
            .flat_map(|i| format!("{i}\n").into_bytes())
            .collect();
        let env = envelope(&spilled(&input, &opts, &config), &opts, None, false);
        let Some(Preview::Text(p)) = &env.preview else {
            panic!("a text preview: {env:?}");
        };
        // 100 short lines (292 bytes) fit the default preview whole: nothing omitted.
        assert_eq!(p.head.len() + p.tail.len(), 100);
        assert_eq!(p.omitted_lines, 0);
        assert_eq!(env.commands.len(), 2);
        // No line holds a failure word: no search that the envelope knows finds nothing.
        assert!(
            env.commands[0].starts_with("spill cat sp_"),
            "{:?}",
            env.commands
        );
        assert!(
            env.commands.iter().all(|c| !c.contains("search")),
            "{:?}",
            env.commands
        );
    }
}
