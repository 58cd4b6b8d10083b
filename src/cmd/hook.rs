//! `spill hook HARNESS`: read the harness's hook JSON on stdin, answer on stdout.

use std::io::Read;

use crate::cli::{Global, HookArgs};
use crate::error::{Error, Result};
use crate::hook;
use crate::store::{Store, binding};
use crate::wrap::{self, Capture, WrapOptions};
use crate::{diag, output};

use super::Outcome;

/// How long a conversation's end waits for each of its running commands to end after SIGTERM
/// before it kills it (`spill stop`'s default grace).
const SESSION_END_GRACE: std::time::Duration = std::time::Duration::from_secs(2);

/// Runs `spill hook`.
pub fn run(global: &Global, args: HookArgs) -> Result<Outcome> {
    let mut input = Vec::new();
    std::io::stdin()
        .lock()
        .read_to_end(&mut input)
        .map_err(|e| Error::stream("read the hook input from stdin", e))?;
    // A harness that runs hook commands spill wrote for another one (Copilot CLI runs a
    // project's Claude Code hooks) is answered as itself, in its format and its scope.
    let var = |name: &str| super::env_text(name).ok().flatten();
    let harness = crate::harness::running_hook(args.harness, &var);
    if !std::ptr::eq(harness, args.harness) {
        diag::note(&format!(
            "`spill hook {}` was run by {}: answered as `spill hook {}`",
            args.harness.name, harness.product, harness.name
        ));
    }
    let prefix = harness.scope_prefix;
    let answer = (harness.hook)(&input, &super::Process)?;
    // Input spill cannot read never blocks the call: every harness reads exit 0 with nothing
    // on stdout as "no decision", and a non-zero exit (Claude Code's and Gemini CLI's 2) as
    // "block it". So the call runs unwrapped and the reason goes to stderr.
    let response = match answer {
        Ok(response) => response,
        Err(why) => {
            diag::warning(&format!("{why}; the call goes through unchanged"));
            hook::Response::default()
        }
    };
    if let Some(note) = &response.note {
        diag::note(note);
    }
    if response.remove_scope.is_none()
        && let Some(scope) = hook::conversation_scope(&input, prefix)
    {
        bind(global, &scope);
    }
    if let Some(scope) = &response.remove_scope {
        let mut config = super::store_config(global)?;
        config.scope = scope.clone();
        let store = Store::new(config);
        // The conversation's running commands end with it (a command meant to outlive it runs
        // in another scope); each is sealed first, so its entry is removed with the rest.
        for id in store.running_ids() {
            match wrap::live::stop(&store, &id, SESSION_END_GRACE) {
                Ok(stopped) => diag::note(&stopped.sentence(&id)),
                Err(e) => diag::warning(&format!("could not stop {id}: {e}")),
            }
        }
        for entry in store.entries()? {
            store.remove(&entry.reference, "removed")?;
        }
    }
    let mut stdout = response.stdout;
    if let Some(notice) = &response.notice
        && stdout.is_empty()
        && first_notice(global, &input, prefix)
    {
        stdout = format!("{}\n", serde_json::json!({ "systemMessage": notice }));
    }
    if let Some(request) = response.spill {
        let mut config = super::store_config(global)?;
        config.scope = request.scope;
        let max_inline = super::env_parsed("SPILL_MAX_INLINE", crate::limits::parse_size, true)?
            .unwrap_or(crate::limits::MAX_INLINE);
        let opts = WrapOptions {
            max_inline,
            label: Some(request.label),
            ..WrapOptions::default()
        };
        if let Capture::Spilled(spilled) =
            wrap::capture(&mut &request.bytes[..], &opts, &config, &|| false)?
        {
            let mut envelope = wrap::envelope(&spilled, &opts, None, config.restricted);
            if let Some(cut) = &request.cut {
                // The store holds what the harness passed on, not the whole result: the
                // envelope must not say "in full" (README, "Gemini CLI").
                envelope.complete = Some(false);
                envelope.hint = envelope.hint.map(|h| {
                    h.replacen(
                        "Stored in full as ",
                        &format!("Holds only {cut}. Stored as "),
                        1,
                    )
                });
            }
            let json = envelope.to_json();
            stdout = match &request.after {
                Some(after) => request.reply.render(&format!("{json}\n{after}")),
                None => request.reply.render(&json),
            };
            // The result counts in the conversation's tally (`spill stats`) as a wrap's
            // output would: what the tool returned, and the envelope the harness shows instead.
            let tally = crate::store::stats::Tally {
                outputs: 1,
                printed: request.bytes.len() as u64,
                sent: json.len() as u64,
                stored: u64::from(spilled.stored.is_ok()),
                ..Default::default()
            };
            let _ =
                crate::store::stats::add(&crate::store::Store::new(config.clone()), &tally, true);
        }
    }
    let mut out = output::stdout();
    output::write_all(&mut out, stdout.as_bytes())?;
    output::flush(&mut out)?;
    Ok(Outcome::Found)
}

/// Records that the harness process above this hook (and the shells in between) is in the
/// conversation `scope`, for the `spill mcp` server it started (ARCHITECTURE.md, "Conversation
/// bindings"). A failure is a warning: it never blocks the call.
fn bind(global: &Global, scope: &str) {
    let chain = binding::harness_chain();
    let recorded =
        super::store_config(global).and_then(|c| binding::record(&c.root, &chain, scope));
    if let Err(e) = recorded {
        diag::warning(&format!(
            "cannot record the conversation for spill mcp: {e}"
        ));
    }
}

/// Whether this conversation has not been shown a notice yet; marks it shown. Without a store
/// or a session the notice is shown (better twice than never).
fn first_notice(global: &Global, input: &[u8], prefix: &str) -> bool {
    let Some(scope) = hook::conversation_scope(input, prefix) else {
        return true;
    };
    match super::store_config(global) {
        Ok(config) => binding::first_notice(&config.root, &scope),
        Err(_) => true,
    }
}
