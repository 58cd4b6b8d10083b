//! Rendering an envelope for a person (`--format text`): the same facts as the JSON envelope.

use crate::envelope::{Envelope, Preview};
use crate::limits::{group_digits, human_size};

use super::envelope::plural;

/// The same facts as the JSON envelope, for a person (`--format text`).
pub fn render_text(env: &Envelope) -> String {
    let mut out = String::new();
    let kind = &env.summary;
    match &env.reference {
        // A running entry (`wrap --detach-after`): the output so far, and that it is not done.
        Some(r) if env.running.is_some() => out.push_str(&format!(
            "spill: {} so far, {} as {r} — {kind}\n",
            human_size(env.size_bytes),
            match env.running {
                Some(true) => "still running",
                _ => "interrupted (its supervisor died)",
            }
        )),
        Some(r) => out.push_str(&format!(
            "spill: {} stored as {r} — {kind}\n",
            human_size(env.size_bytes)
        )),
        None => out.push_str(&format!(
            "spill: {} NOT stored ({}) — {kind}\n",
            human_size(env.size_bytes),
            env.error.as_deref().unwrap_or("?")
        )),
    }
    if let Some(code) = env.exit_code {
        out.push_str(&format!("exit code: {code}\n"));
    }
    if env.interrupted == Some(true) {
        out.push_str("interrupted: reading stopped early on a signal\n");
    }
    if let Some(label) = &env.label {
        out.push_str(&format!("label: {label}\n"));
    }
    if env.complete == Some(false) {
        out.push_str(&format!(
            "incomplete: {} bytes stored, {} dropped by --max-file\n",
            group_digits(env.stored_bytes.unwrap_or(0)),
            group_digits(env.dropped_bytes.unwrap_or(0))
        ));
    }
    if !env.commands.is_empty() {
        out.push_str("read it with:\n");
        for c in &env.commands {
            out.push_str(&format!("  {c}\n"));
        }
    }
    if let Some(shape) = &env.shape {
        out.push_str(&format!("shape: {}\n", shape.get()));
    }
    match &env.preview {
        Some(Preview::Text(p)) => {
            for l in &p.head {
                out.push_str(&format!("{l}\n"));
            }
            if p.omitted_lines > 0 || p.omitted_bytes > 0 {
                out.push_str(&format!(
                    "… {} ({}) omitted …\n",
                    plural(p.omitted_lines, "line", "lines"),
                    human_size(p.omitted_bytes)
                ));
            }
            for l in &p.tail {
                out.push_str(&format!("{l}\n"));
            }
        }
        Some(Preview::Hex(rows)) => {
            for r in rows {
                out.push_str(&format!("{r}\n"));
            }
        }
        Some(Preview::Json(v)) => out.push_str(&format!("preview: {}\n", v.get())),
        None => {}
    }
    if let Some(sig) = &env.signals {
        // The list holds entries outside the preview, or, when the preview shows them all,
        // the best of them.
        let within = match &env.preview {
            Some(Preview::Text(p)) => sig
                .matches
                .iter()
                .all(|m| m.line <= p.head_line_count || m.line >= p.tail_first_line),
            _ => false,
        };
        if within {
            out.push_str(&format!(
                "failure signals ({} in total; all within the preview above, the best):\n",
                group_digits(sig.total)
            ));
        } else {
            out.push_str(&format!(
                "failure signals ({} in total; these are outside the preview):\n",
                group_digits(sig.total)
            ));
        }
        for m in &sig.matches {
            for (i, line) in m.text.lines().enumerate() {
                let n = if i == 0 {
                    format!("{:>6}:", m.line)
                } else {
                    "       ".to_string()
                };
                out.push_str(&format!("{n} {line}\n"));
            }
        }
    }
    crate::diag::escape_keep_newlines(&out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::envelope::{SignalMatch, Signals};
    use crate::text::preview::TextPreview;

    fn stored() -> Envelope {
        Envelope {
            spilled: true,
            reference: Some("sp_0123456789abcdef".into()),
            mime_type: "text/plain".into(),
            size_bytes: 123_001,
            lines: 4003,
            exit_code: Some(3),
            summary: "text, 4,003 lines, 120.1 KiB; 1 failure signal".into(),
            // The hint is not what the text shows: the typed commands are.
            hint: Some("Stored in full as sp_0123456789abcdef. Read it with: ignored".into()),
            commands: vec![
                "spill search sp_0123456789abcdef -F 'a · b' -C 2".into(),
                "spill cat sp_0123456789abcdef --lines 3:202".into(),
            ],
            preview: Some(Preview::Text(TextPreview {
                head: vec!["first".into(), "second".into()],
                tail: vec!["last".into()],
                omitted_lines: 4000,
                omitted_bytes: 122_000,
                head_line_count: 2,
                tail_first_line: 4003,
                head_end: 13,
                lossy: false,
            })),
            signals: Some(Signals {
                matches: vec![SignalMatch {
                    line: 3001,
                    text: "error: a · b\n  --> here".into(),
                    count: None,
                    path: None,
                    note: None,
                }],
                total: 1,
            }),
            ..Envelope::default()
        }
    }

    #[test]
    fn a_stored_output_reads_as_its_facts_and_its_commands() {
        assert_eq!(
            render_text(&stored()),
            "spill: 120.1 KiB stored as sp_0123456789abcdef — text, 4,003 lines, 120.1 KiB; 1 failure signal\n\
             exit code: 3\n\
             read it with:\n  \
             spill search sp_0123456789abcdef -F 'a · b' -C 2\n  \
             spill cat sp_0123456789abcdef --lines 3:202\n\
             first\n\
             second\n\
             … 4,000 lines (119.1 KiB) omitted …\n\
             last\n\
             failure signals (1 in total; these are outside the preview):\n  \
             3001: error: a · b\n          --> here\n"
        );
    }

    #[test]
    fn an_output_not_stored_names_why_and_no_commands() {
        let env = Envelope {
            spilled: false,
            error: Some("the store is full".into()),
            mime_type: "application/octet-stream".into(),
            size_bytes: 2048,
            summary: "binary, 2.0 KiB".into(),
            label: Some("make\u{1b}[31m".into()),
            preview: Some(Preview::Hex(vec!["00000000  00 01".into()])),
            ..Envelope::default()
        };
        // Control characters of a label are escaped, as everywhere spill prints them.
        assert_eq!(
            render_text(&env),
            "spill: 2.0 KiB NOT stored (the store is full) — binary, 2.0 KiB\n\
             label: make\\x{1b}[31m\n\
             00000000  00 01\n"
        );
    }
}
