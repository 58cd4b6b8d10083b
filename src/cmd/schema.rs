//! `spill schema`: the JSON Schemas (draft 2020-12) of spill's machine-readable outputs.
//!
//! The schemas live in `schemas/*.json` at the root of the repository, so they can be read and
//! linked without running spill; this file compiles them in. Tests validate real outputs of
//! every command against them and pin the wire format with `deny_unknown_fields` structs.

use crate::cli::{SchemaArgs, SchemaName};
use crate::error::Result;
use crate::output;

use super::Outcome;

/// Every schema, in the order `spill schema` lists them.
pub const ALL: &[SchemaName] = &[
    SchemaName::Envelope,
    SchemaName::Shape,
    SchemaName::Extract,
    SchemaName::Search,
    SchemaName::Ls,
    SchemaName::Rm,
    SchemaName::Gc,
];

/// The name of a schema as typed on the command line.
pub fn name(which: SchemaName) -> &'static str {
    match which {
        SchemaName::Envelope => "envelope",
        SchemaName::Shape => "shape",
        SchemaName::Extract => "extract",
        SchemaName::Search => "search",
        SchemaName::Ls => "ls",
        SchemaName::Rm => "rm",
        SchemaName::Gc => "gc",
    }
}

/// What the schema describes, in a few words.
pub fn describes(which: SchemaName) -> &'static str {
    match which {
        SchemaName::Envelope => "the envelope of `spill wrap` (--format json)",
        SchemaName::Shape => "the skeleton printed by `spill shape` (without --paths)",
        SchemaName::Extract => "`spill extract --nodes` (selected values and their paths)",
        SchemaName::Search => "`spill search --json` (a page, or the --count total)",
        SchemaName::Ls => "`spill ls --json`",
        SchemaName::Rm => "`spill rm --json`",
        SchemaName::Gc => "`spill gc --json`",
    }
}

/// The schema itself: a JSON document, pretty-printed, ending in a newline.
///
/// ```
/// use spill::cli::SchemaName;
///
/// let schema: serde_json::Value =
///     serde_json::from_str(spill::cmd::schema::schema(SchemaName::Envelope)).unwrap();
/// assert_eq!(schema["$schema"], "https://json-schema.org/draft/2020-12/schema");
/// assert_eq!(schema["properties"]["ref"]["pattern"], "^sp_[0-9a-f]{16}$");
/// ```
pub fn schema(which: SchemaName) -> &'static str {
    match which {
        SchemaName::Envelope => include_str!("../../schemas/envelope.json"),
        SchemaName::Shape => include_str!("../../schemas/shape.json"),
        SchemaName::Extract => include_str!("../../schemas/extract.json"),
        SchemaName::Search => include_str!("../../schemas/search.json"),
        SchemaName::Ls => include_str!("../../schemas/ls.json"),
        SchemaName::Rm => include_str!("../../schemas/rm.json"),
        SchemaName::Gc => include_str!("../../schemas/gc.json"),
    }
}

/// Runs `spill schema`.
pub fn run(args: SchemaArgs) -> Result<Outcome> {
    let mut out = output::stdout();
    match args.output {
        Some(which) => output::write_all(&mut out, schema(which).as_bytes())?,
        None => {
            let mut text = String::new();
            for &which in ALL {
                text.push_str(&format!("{:<10}{}\n", name(which), describes(which)));
            }
            output::write_all(&mut out, text.as_bytes())?;
        }
    }
    output::flush(&mut out)?;
    Ok(Outcome::Found)
}
