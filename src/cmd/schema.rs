//! `spill schema`: glue from the command line to [`crate::ops::schema`].

use crate::cli::SchemaArgs;
use crate::error::Result;
use crate::ops::schema;
use crate::output;

use super::Outcome;

/// Runs `spill schema`.
pub fn run(args: SchemaArgs) -> Result<Outcome> {
    let mut out = output::stdout();
    let text = match args.output {
        Some(which) => schema::schema(which).to_string(),
        None => schema::list(),
    };
    output::write_all(&mut out, text.as_bytes())?;
    output::flush(&mut out)?;
    Ok(Outcome::Found)
}
