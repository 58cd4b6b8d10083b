//! `spill search`: glue from the command line to [`crate::ops::search`].

use crate::cli::{ColorWhen, Global, SearchArgs};
use crate::error::Result;
use crate::{ops, output};

use super::Outcome;

/// Runs `spill search`.
pub fn run(global: &Global, args: SearchArgs) -> Result<Outcome> {
    let footer_to = super::footer_to(args.footer)?;
    // With --all there is no SOURCE: the first operand is the pattern.
    let (source, pattern) = match (args.all, args.source, args.pattern) {
        (true, Some(_), Some(_)) => {
            return Err(crate::error::Error::Usage(
                "--all searches every stored output: give PATTERN without a SOURCE".into(),
            ));
        }
        (true, first, None) => (String::new(), first),
        (_, source, pattern) => (source.unwrap_or_default(), pattern),
    };
    let req = ops::search::Request {
        source,
        patterns: pattern.into_iter().chain(args.regexp).collect(),
        fixed_strings: args.fixed_strings,
        ignore_case: args.ignore_case,
        word: args.word,
        before_context: args.before_context.or(args.context).unwrap_or(0),
        after_context: args.after_context.or(args.context).unwrap_or(0),
        offset: args.offset,
        limit: args.limit,
        max_columns: args.max_columns,
        max_bytes: args.max_bytes,
        unbounded: args.unbounded,
        count: args.count,
        json: args.json,
        paths: args.paths,
        skip_invalid: args.skip_invalid,
        raw: args.raw,
        color: colour(global.color),
        escape_terminal: output::stdout_is_terminal(),
        all: args.all,
        resume: args.resume,
        max_outputs: args.max_outputs,
    };
    // Only a ref needs the store; a path or `-` never opens it. A bad pattern is reported
    // before the store's configuration errors.
    let store =
        super::store_config(global).map_err(|e| ops::search::check(&req).err().unwrap_or(e))?;
    let mut out = output::stdout();
    let report = ops::search::run(&store, &req, &mut out)?;
    super::print_report(&mut out, footer_to, &report)?;
    Ok(report.outcome)
}

/// Highlighting: `always`, or `auto` when anstream finds stdout a colour terminal (NO_COLOR,
/// CLICOLOR and TERM honoured). The bytes themselves never pass through anstream's stripper,
/// which would also strip escape sequences that belong to the source.
fn colour(when: ColorWhen) -> bool {
    crate::output::colour_stdout(when)
}
