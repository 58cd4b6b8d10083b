//! `spill schema`: glue from the command line to [`crate::ops::schema`].

use crate::cli::{SchemaArgs, SchemaName};
use crate::error::Result;
use crate::ops::schema::{self, Schema};
use crate::output;

use super::Outcome;

/// The library's name for a schema named on the command line.
pub fn schema_of(name: SchemaName) -> Schema {
    match name {
        SchemaName::Envelope => Schema::Envelope,
        SchemaName::Shape => Schema::Shape,
        SchemaName::Extract => Schema::Extract,
        SchemaName::Search => Schema::Search,
        SchemaName::Ls => Schema::Ls,
        SchemaName::Rm => Schema::Rm,
        SchemaName::Gc => Schema::Gc,
    }
}

/// Runs `spill schema`.
pub fn run(args: SchemaArgs) -> Result<Outcome> {
    let mut out = output::stdout();
    let text = match args.output {
        Some(which) => schema::schema(schema_of(which)).to_string(),
        None => schema::list(),
    };
    output::write_all(&mut out, text.as_bytes())?;
    output::flush(&mut out)?;
    Ok(Outcome::Found)
}
