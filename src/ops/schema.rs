//! The JSON Schemas (draft 2020-12) of spill's machine-readable outputs (`spill schema`).
//!
//! The schemas live in `schemas/*.json` at the root of the repository, so they can be read and
//! linked without running spill; this file compiles them in. `tests/schema.rs` checks them
//! against the [`wire`](crate::wire) types and validates real outputs of every command.

/// A machine-readable output that has a schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Schema {
    /// The envelope of `spill wrap` (--format json).
    Envelope,
    /// The skeleton of `spill shape`.
    Shape,
    /// `spill extract --nodes`.
    Extract,
    /// `spill search --json` (and `--count --json`).
    Search,
    /// `spill ls --json`.
    Ls,
    /// `spill rm --json`.
    Rm,
    /// `spill gc --json`.
    Gc,
    /// `spill stats --json`.
    Stats,
}

/// Every schema, in the order `spill schema` lists them.
pub const ALL: &[Schema] = &[
    Schema::Envelope,
    Schema::Shape,
    Schema::Extract,
    Schema::Search,
    Schema::Ls,
    Schema::Rm,
    Schema::Gc,
    Schema::Stats,
];

impl Schema {
    /// The name of the schema as typed on the command line (`spill schema NAME`).
    pub fn name(self) -> &'static str {
        match self {
            Schema::Envelope => "envelope",
            Schema::Shape => "shape",
            Schema::Extract => "extract",
            Schema::Search => "search",
            Schema::Ls => "ls",
            Schema::Rm => "rm",
            Schema::Gc => "gc",
            Schema::Stats => "stats",
        }
    }

    /// The schema of this name, if there is one.
    pub fn from_name(name: &str) -> Option<Schema> {
        ALL.iter().copied().find(|s| s.name() == name)
    }

    /// The schema's line in `spill schema --help` (and the completions and man page).
    pub fn help(self) -> &'static str {
        match self {
            Schema::Envelope => "The envelope of `spill wrap` (--format json)",
            Schema::Shape => "The skeleton of `spill shape`",
            Schema::Extract => "`spill extract --nodes`",
            Schema::Search => "`spill search --json` (and `--count --json`)",
            Schema::Ls => "`spill ls --json`",
            Schema::Rm => "`spill rm --json`",
            Schema::Gc => "`spill gc --json`",
            Schema::Stats => "`spill stats --json`",
        }
    }

    /// What the schema describes, in a few words (the listing of `spill schema`).
    pub fn describes(self) -> &'static str {
        match self {
            Schema::Envelope => "the envelope of `spill wrap` (--format json)",
            Schema::Shape => "the skeleton printed by `spill shape` (without --paths)",
            Schema::Extract => "`spill extract --nodes` (selected values and their paths)",
            Schema::Search => "`spill search --json` (a page, or the --count total)",
            Schema::Ls => "`spill ls --json`",
            Schema::Rm => "`spill rm --json`",
            Schema::Gc => "`spill gc --json`",
            Schema::Stats => "`spill stats --json` (a scope's tally)",
        }
    }
}

/// The schema itself: a JSON document, pretty-printed, ending in a newline.
///
/// ```
/// use spill::ops::schema::{Schema, schema};
///
/// let schema: serde_json::Value = serde_json::from_str(schema(Schema::Envelope)).unwrap();
/// assert_eq!(schema["$schema"], "https://json-schema.org/draft/2020-12/schema");
/// assert_eq!(schema["properties"]["ref"]["pattern"], "^sp_[0-9a-f]{16}$");
/// ```
pub fn schema(which: Schema) -> &'static str {
    match which {
        Schema::Envelope => include_str!("../../schemas/envelope.json"),
        Schema::Shape => include_str!("../../schemas/shape.json"),
        Schema::Extract => include_str!("../../schemas/extract.json"),
        Schema::Search => include_str!("../../schemas/search.json"),
        Schema::Ls => include_str!("../../schemas/ls.json"),
        Schema::Rm => include_str!("../../schemas/rm.json"),
        Schema::Gc => include_str!("../../schemas/gc.json"),
        Schema::Stats => include_str!("../../schemas/stats.json"),
    }
}

/// The listing `spill schema` prints without a name: one line per schema, its name and what
/// it describes.
pub fn list() -> String {
    ALL.iter()
        .map(|&s| format!("{:<10}{}\n", s.name(), s.describes()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_schema_is_json_and_found_by_its_name() {
        for &s in ALL {
            assert_eq!(Schema::from_name(s.name()), Some(s));
            let doc: serde_json::Value = serde_json::from_str(schema(s)).unwrap();
            assert!(doc["$schema"].is_string(), "{}", s.name());
        }
        assert_eq!(Schema::from_name("nope"), None);
        assert!(list().starts_with("envelope  the envelope of `spill wrap`"));
        assert_eq!(list().lines().count(), ALL.len());
    }
}
