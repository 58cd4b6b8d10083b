//! `spill stats`: a scope's tally (`store::stats`), as a sentence or JSON.

use crate::cli::StatsArgs;
use crate::error::Result;
use crate::limits::group_digits as g;
use crate::output;
use crate::store::stats::{self, Tally};
use crate::store::{Store, StoreConfig};

use super::Outcome;

/// Runs `spill stats`: exit 0 with the tally, 1 when no scope asked for has one.
pub fn run(config: &StoreConfig, args: StatsArgs) -> Result<Outcome> {
    if args.all_scopes && config.restricted {
        // As `ls`: a restricted caller sees its own scope, never the others.
        return Err(crate::error::Error::Usage(
            "--all-scopes is refused in restricted mode (SPILL_RESTRICTED=1)".into(),
        ));
    }
    let store = Store::new(config.clone());
    let scopes = if args.all_scopes {
        stats::scopes(store.root())?
    } else {
        vec![config.scope.clone()]
    };
    let mut found: Vec<(String, Tally)> = Vec::new();
    for scope in scopes {
        if let Some(tally) = stats::read(&store.with_scope(&scope))? {
            found.push((scope, tally));
        }
    }
    let total = found.iter().fold(Tally::default(), |t, (_, s)| t.plus(s));
    let mut out = output::stdout();
    if args.json {
        let scopes: Vec<serde_json::Value> = found
            .iter()
            .map(|(scope, t)| {
                let mut v = json(t);
                v["scope"] = scope.as_str().into();
                v
            })
            .collect();
        let mut v = serde_json::json!({ "scopes": scopes });
        if args.all_scopes {
            v["total"] = json(&total);
        }
        output::write_all(&mut out, format!("{v}\n").as_bytes())?;
    } else {
        for (scope, t) in &found {
            output::write_all(&mut out, format!("{scope}: {}\n", sentence(t)).as_bytes())?;
        }
        if args.all_scopes && found.len() > 1 {
            output::write_all(
                &mut out,
                format!("all scopes: {}\n", sentence(&total)).as_bytes(),
            )?;
        }
        if found.is_empty() {
            let what = if args.all_scopes {
                "no scope of this root".to_string()
            } else {
                format!("scope {}", config.scope)
            };
            crate::diag::note(&format!(
                "{what} has counted nothing yet (wrap and the reading commands count)"
            ));
        }
    }
    output::flush(&mut out)?;
    Ok(if found.is_empty() {
        Outcome::NotFound
    } else {
        Outcome::Found
    })
}

/// The tally as JSON: its counters, the bytes to the model in all, and that as a share of what
/// was printed.
fn json(t: &Tally) -> serde_json::Value {
    serde_json::json!({
        "outputs": t.outputs,
        "stored": t.stored,
        "printedBytes": t.printed,
        "sentBytes": t.sent,
        "reads": t.reads,
        "readBytes": t.read_bytes,
        "toModelBytes": t.to_model(),
        "toModelShare": share(t),
    })
}

/// What the model got as a fraction of what was printed (`null` when nothing was printed).
fn share(t: &Tally) -> Option<f64> {
    (t.printed > 0).then(|| (t.to_model() as f64 / t.printed as f64 * 10_000.0).round() / 10_000.0)
}

/// One line: the outputs, then what the model was sent, reads included.
fn sentence(t: &Tally) -> String {
    let share = share(t).map_or(String::new(), |s| {
        format!(", {}% of what was printed", fmt_percent(s * 100.0))
    });
    format!(
        "{} output{} ({} stored), {} bytes printed; the model was sent {} bytes for them and {} bytes in {} read{}: {} bytes in all{share}",
        g(t.outputs),
        if t.outputs == 1 { "" } else { "s" },
        g(t.stored),
        g(t.printed),
        g(t.sent),
        g(t.read_bytes),
        g(t.reads),
        if t.reads == 1 { "" } else { "s" },
        g(t.to_model()),
    )
}

/// A percentage with one decimal below 10, none above.
fn fmt_percent(p: f64) -> String {
    if p < 10.0 {
        format!("{p:.1}")
    } else {
        format!("{p:.0}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sentence_counts_reads_in() {
        let t = Tally {
            outputs: 3,
            printed: 1_000_000,
            sent: 5_000,
            stored: 2,
            reads: 1,
            read_bytes: 1_000,
        };
        assert_eq!(
            sentence(&t),
            "3 outputs (2 stored), 1,000,000 bytes printed; the model was sent 5,000 bytes for them and 1,000 bytes in 1 read: 6,000 bytes in all, 0.6% of what was printed"
        );
        assert_eq!(json(&t)["toModelShare"], 0.006);
        assert_eq!(share(&Tally::default()), None);
    }
}
