//! `spill ls`: glue from the command line to [`crate::ops::ls`].

use crate::cli::LsArgs;
use crate::error::Result;
use crate::store::StoreConfig;
use crate::{ops, output};

use super::Outcome;

/// Runs `spill ls`.
pub fn run(config: &StoreConfig, args: LsArgs) -> Result<Outcome> {
    let listing = ops::ls::run(
        config,
        &ops::ls::Request {
            all_scopes: args.all_scopes,
        },
    )?;
    let mut out = output::stdout();
    if args.complete {
        for e in &listing.entries {
            let text = e.label.as_deref().unwrap_or(&e.summary);
            let line = format!("{}\t{}\n", e.reference, completion_label(text));
            output::write_all(&mut out, line.as_bytes())?;
        }
    } else if args.json {
        ops::write_json(&listing, &mut out)?;
    } else {
        let escape = output::stdout_is_terminal();
        ops::ls::write_text(&listing, args.all_scopes, escape, &mut out)?;
    }
    output::flush(&mut out)?;
    Ok(Outcome::Found)
}

/// A label as a completion menu shows it: one line (control characters as spaces, runs of
/// white space as one) of at most [`COMPLETION_LABEL`] characters.
fn completion_label(text: &str) -> String {
    let flat: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let words: Vec<&str> = flat.split_whitespace().collect();
    let line = words.join(" ");
    match line.char_indices().nth(COMPLETION_LABEL) {
        Some((at, _)) => format!("{}…", &line[..at]),
        None => line,
    }
}

/// The most characters of a label a completion menu shows.
const COMPLETION_LABEL: usize = 60;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn completion_labels_are_one_short_line() {
        assert_eq!(
            completion_label("cargo  build\n--release\t\x1b[31m"),
            "cargo build --release [31m"
        );
        let long = "x".repeat(100);
        assert_eq!(completion_label(&long), format!("{}…", "x".repeat(60)));
        assert_eq!(completion_label(&"é".repeat(60)), "é".repeat(60));
        assert_eq!(completion_label(""), "");
    }
}
