//! Rendering an envelope for a person (`--format text`): the same facts as the JSON envelope.

use crate::envelope::{Envelope, Preview};
use crate::limits::{group_digits, human_size};

use super::envelope::plural;

/// The same facts as the JSON envelope, for a person (`--format text`).
pub fn render_text(env: &Envelope) -> String {
    let mut out = String::new();
    let kind = &env.summary;
    match &env.reference {
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
        if sig.matches.is_empty() {
            out.push_str(&format!(
                "failure signals: {} in total, all within the preview above\n",
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
