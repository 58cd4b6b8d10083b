//! `spill shape`: the skeleton (or `--paths` listing) of a source, printed on stdout.

use crate::cli::ShapeArgs;
use crate::error::{Error, Result};
use crate::json::shape::{self, MIN_MAX_BYTES, ShapeOptions};
use crate::limits::group_digits;
use crate::store::StoreConfig;
use crate::{diag, output};

use super::Outcome;

/// Runs `spill shape`.
pub fn run(store: &StoreConfig, args: ShapeArgs) -> Result<Outcome> {
    if args.max_bytes < MIN_MAX_BYTES as u64 {
        return Err(Error::Usage(format!(
            "--max-bytes {}: the skeleton needs at least {MIN_MAX_BYTES} bytes",
            args.max_bytes
        )));
    }
    let input = crate::source::open(&args.source, store)?;
    let doc: &[u8] = &input;
    let mut out = output::stdout();
    if args.paths {
        let list = shape::shape_paths(doc).map_err(|e| {
            if crate::json::sniff::looks_like_json(doc) {
                Error::from(e)
            } else {
                Error::Usage(format!(
                    "{}: --paths needs JSON or NDJSON input; this is text",
                    args.source
                ))
            }
        })?;
        let mut text = String::new();
        for p in &list.paths {
            text.push_str(&p.to_string());
            text.push('\n');
        }
        output::write_all(&mut out, text.as_bytes())?;
        output::flush(&mut out)?;
        if list.omitted > 0 {
            diag::note(&format!(
                "{} more distinct paths not listed",
                group_digits(list.omitted)
            ));
        }
        return Ok(Outcome::Found);
    }
    let opts = ShapeOptions {
        max_depth: args.max_depth,
        max_bytes: usize::try_from(args.max_bytes).unwrap_or(usize::MAX),
        sample: None,
    };
    let skeleton = shape::shape(doc, &opts);
    output::write_all(&mut out, skeleton.json.as_bytes())?;
    output::write_all(&mut out, b"\n")?;
    output::flush(&mut out)?;
    Ok(Outcome::Found)
}
