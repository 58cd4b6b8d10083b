//! One file per command: glue that turns parsed arguments into library calls and renders the
//! results. This module resolves the settings every command shares (flag > environment > default).

pub mod cat;
pub mod doctor;
pub mod extract;
pub mod gc;
pub mod hook;
pub mod init;
mod live;
pub mod ls;
pub mod mcp;
pub mod rm;
mod s3;
pub mod schema;
pub mod search;
pub mod shape;
pub mod stats;
pub mod stop;
pub mod view;
pub mod wait;
pub mod wrap;

use std::path::PathBuf;

use crate::cli::{Cli, Command, FooterTo, Global};
use crate::error::{Error, Result};
use crate::store::{StoreConfig, validate_scope};
use crate::{diag, limits};

pub use crate::ops::Outcome;

/// Runs a parsed command line.
pub fn dispatch(cli: Cli) -> Result<Outcome> {
    simd_from_env();
    // The reading commands page their output at a terminal; the filters and the harness
    // commands never do.
    if matches!(
        cli.command,
        Command::Cat(_)
            | Command::Shape(_)
            | Command::Extract(_)
            | Command::Ls(_)
            | Command::Search(_)
            | Command::Schema(_)
    ) {
        let paging = match cli.global.paging {
            crate::cli::PagingWhen::Auto => crate::output::Paging::Auto,
            crate::cli::PagingWhen::Always => crate::output::Paging::Always,
            crate::cli::PagingWhen::Never => crate::output::Paging::Never,
        };
        crate::output::start_pager(paging, restricted());
    }
    // A reading command's answer counts in its scope's tally (`spill stats`), unless a person
    // read it at a terminal.
    let reads = matches!(
        cli.command,
        Command::Cat(_)
            | Command::Shape(_)
            | Command::Extract(_)
            | Command::Search(_)
            | Command::Wait(_)
    ) && !crate::output::stdout_is_terminal();
    let tally_in = reads.then(|| store_config(&cli.global).ok()).flatten();
    let outcome = match cli.command {
        Command::Wrap(args) => wrap::run(&cli.global, args),
        Command::Cat(args) => cat::run(&store_config(&cli.global)?, args),
        Command::Shape(args) => shape::run(&store_config(&cli.global)?, args),
        Command::Extract(args) => extract::run(&store_config(&cli.global)?, args),
        Command::Ls(args) => ls::run(&store_config(&cli.global)?, args),
        Command::Rm(args) => rm::run(&store_config(&cli.global)?, args),
        Command::Search(args) => search::run(&cli.global, args),
        Command::Gc(args) => gc::run(&store_config(&cli.global)?, args),
        Command::Schema(args) => schema::run(args),
        Command::View(args) => view::run(&store_config(&cli.global)?, args),
        Command::Hook(args) => hook::run(&cli.global, args),
        Command::Init(args) => init::run(args),
        Command::Mcp(args) => mcp::run(&cli.global, args),
        Command::Wait(args) => wait::run(&store_config(&cli.global)?, args),
        Command::Stop(args) => stop::run(&store_config(&cli.global)?, args),
        Command::Stats(args) => stats::run(&store_config(&cli.global)?, args),
        Command::Doctor(_) => doctor::run(),
    };
    // A reading command served a running entry: say it is still running, how far it has
    // grown and the cursor reading on (after its answer and footer).
    if let Some(seen) = crate::store::running::take_seen() {
        diag::note(&seen.sentence());
    }
    if let Some(config) = tally_in {
        // Best effort, and silent: a message would reach the model with the answer.
        let bytes = crate::output::written() + crate::output::written_stderr();
        let _ = crate::store::stats::add_read(&crate::store::Store::new(config), bytes);
    }
    outcome
}

/// The spellings of a switch (`SPILL_RESTRICTED`, `SPILL_REDACT`, `SPILL_ALLOW_RUN`), compared
/// without ASCII case and surrounding whitespace. Unset or empty is off.
pub const SWITCH_OFF: [&str; 4] = ["0", "false", "no", "off"];
/// ... and the explicit on-values.
pub const SWITCH_ON: [&str; 4] = ["1", "true", "yes", "on"];

/// Reads a switch: `Some(false)` for unset, empty or an explicit off, `Some(true)` for an
/// explicit on, `None` for anything else (`01`, `enabled`, bytes that are not UTF-8).
pub fn parse_switch(value: Option<&std::ffi::OsStr>) -> Option<bool> {
    let Some(value) = value else {
        return Some(false);
    };
    let word = value
        .to_str()?
        .trim_matches(|c: char| c.is_ascii_whitespace());
    let is = |list: &[&str]| list.iter().any(|w| w.eq_ignore_ascii_case(word));
    if word.is_empty() || is(&SWITCH_OFF) {
        Some(false)
    } else if is(&SWITCH_ON) {
        Some(true)
    } else {
        None
    }
}

/// Reads the switch `name` from the environment. A value that is neither an explicit on nor an
/// explicit off reads as `fail_to`, the safe side, with a warning saying so: a safety switch
/// (`SPILL_RESTRICTED`, `SPILL_REDACT`) passes `true`, so only an explicit off turns it off; a
/// switch that loosens safety (`SPILL_ALLOW_RUN`) passes `false`, so only an explicit on
/// turns it on.
pub fn env_switch(name: &str, fail_to: bool) -> bool {
    let value = std::env::var_os(name);
    parse_switch(value.as_deref()).unwrap_or_else(|| {
        let shown = diag::escape(&value.unwrap_or_default().to_string_lossy());
        let (known, state) = match fail_to {
            true => ("an explicit off (0, false, no, off, or empty)", "on"),
            false => ("an explicit on (1, true, yes, on)", "off"),
        };
        diag::warning(&format!(
            "{name}=\"{shown}\" is not {known}: taken as {state}"
        ));
        fail_to
    })
}

/// `SPILL_SIMD` (`scalar`, `sse2`, `avx2`, `avx512`) narrows the vector instruction set the JSON
/// scanner uses (README, Environment); a level the CPU lacks falls back to the widest it has. A
/// tuning switch never stops a command: an unknown value is a warning, and the detected level
/// stays.
fn simd_from_env() {
    use crate::json::Simd;
    let Some(value) = std::env::var_os("SPILL_SIMD") else {
        return;
    };
    match value.to_str().and_then(Simd::from_name) {
        Some(level) => {
            crate::json::force_simd(level);
        }
        None => diag::warning(&format!(
            "SPILL_SIMD: unknown level {} (use scalar, sse2, avx2 or avx512); using {}",
            diag::echo(&value.to_string_lossy()),
            crate::json::detected_simd().name()
        )),
    }
}

/// True in restricted mode: `SPILL_RESTRICTED` set to anything but an explicit off (no flag
/// twin, by design). Read once per process, so its warning is given once; the first call turns
/// on path hiding ([`diag::hide_paths`]) before anything is written, that warning included.
pub fn restricted() -> bool {
    static RESTRICTED: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *RESTRICTED.get_or_init(|| {
        if parse_switch(std::env::var_os("SPILL_RESTRICTED").as_deref()) != Some(false) {
            diag::hide_paths(known_dirs());
        }
        env_switch("SPILL_RESTRICTED", true)
    })
}

/// The directories a message could name, which restricted mode hides whole
/// ([`diag::hide_paths`]): the store root's variables, `TMPDIR`, `HOME` and the working directory.
pub fn known_dirs() -> Vec<String> {
    let mut dirs: Vec<String> = ["SPILL_DIR", "TMPDIR", "HOME", "PWD"]
        .iter()
        .filter_map(std::env::var_os)
        .map(|v| v.to_string_lossy().into_owned())
        .collect();
    if let Ok(cwd) = std::env::current_dir() {
        dirs.push(cwd.to_string_lossy().into_owned());
    }
    dirs.push(env_default_root().to_string_lossy().into_owned());
    dirs
}

/// The default store root for this process's `TMPDIR` ([`StoreConfig::default_root`]).
pub fn env_default_root() -> PathBuf {
    StoreConfig::default_root(std::env::var_os("TMPDIR").as_deref())
}

/// Reads an environment variable as text: `None` when it is unset or empty, an error when its
/// value is not UTF-8 (such a value is never taken for an unset one).
pub fn env_text(name: &str) -> Result<Option<String>> {
    use crate::harness::Host as _;
    Process.text(name)
}

/// This process, as the harnesses' code asks about it (the environment, the current directory,
/// the spill binary).
pub struct Process;

impl crate::harness::Host for Process {
    fn var_os(&self, name: &str) -> Option<std::ffi::OsString> {
        std::env::var_os(name)
    }

    fn current_dir(&self) -> std::io::Result<PathBuf> {
        std::env::current_dir()
    }

    fn spill(&self) -> Result<String> {
        Ok(std::env::current_exe()
            .map_err(|e| Error::stream("find the spill binary", e))?
            .to_string_lossy()
            .into_owned())
    }
}

/// Reads and parses an environment variable; an invalid value (or one that is not UTF-8) is an
/// error, or, when `lenient` (wrap's own options, which must never lose its input to
/// configuration), a warning and the default.
pub fn env_parsed<T>(
    name: &str,
    parse: impl Fn(&str) -> std::result::Result<T, String>,
    lenient: bool,
) -> Result<Option<T>> {
    let parsed = env_text(name).and_then(|value| match value {
        None => Ok(None),
        Some(v) => parse(&v)
            .map(Some)
            .map_err(|why| Error::Usage(format!("{name}: {why}"))),
    });
    match parsed {
        Err(e) if lenient => {
            diag::warning(&format!("ignoring {e}; using the default"));
            Ok(None)
        }
        other => other,
    }
}

/// Checks the store flags: restricted mode refuses them, `--scope` must be a valid name and
/// `--dir` valid UTF-8. These are the caller's own mistakes, so even `wrap` exits 2 on them.
pub fn check_store_flags(global: &Global) -> Result<()> {
    if restricted() {
        let given = [
            ("--dir", global.dir.is_some()),
            ("--store", global.store.is_some()),
            ("--scope", global.scope.is_some()),
            ("--ttl", global.ttl.is_some()),
            ("--quota", global.quota.is_some()),
            ("--max-file", global.max_file.is_some()),
        ];
        if let Some((flag, _)) = given.iter().find(|(_, on)| *on) {
            return Err(Error::Usage(format!(
                "{flag} is refused in restricted mode (SPILL_RESTRICTED=1): the harness sets the store through the environment"
            )));
        }
    }
    if let Some(dir) = &global.dir
        && dir.to_str().is_none()
    {
        return Err(Error::Usage(
            "--dir: the path is not valid UTF-8 (envelopes and messages could not show it exactly)"
                .into(),
        ));
    }
    if let Some(s) = &global.scope {
        validate_scope(s).map_err(|why| Error::Usage(format!("--scope: {why}")))?;
    }
    Ok(())
}

/// Resolves the store configuration: flag > environment > default. Every invalid value is an
/// error — never another scope or root: a `SPILL_SCOPE` or `SPILL_DIR` that is not valid, or a
/// relative root when the current directory cannot be read. `wrap` turns these errors (all but
/// [`check_store_flags`]'s) into its degraded envelope.
pub fn store_config(global: &Global) -> Result<StoreConfig> {
    check_store_flags(global)?;
    let root = match &global.dir {
        Some(dir) => dir.clone(),
        None => env_text("SPILL_DIR")?
            .map(PathBuf::from)
            .unwrap_or_else(env_default_root),
    };
    let root = if root.is_relative() {
        std::env::current_dir()
            .map_err(|e| Error::stream("read the current directory", e))?
            .join(root)
    } else {
        root
    };
    // Unchosen, the scope is the conversation's where spill can tell it: the session the
    // harness names in its shell (Copilot CLI's), else the scope a `spill mcp proxy` of the
    // harness process this runs under stores in, where no hook took it over (Kimi CLI's).
    let scope = match &global.scope {
        Some(s) => s.clone(),
        None => env_parsed(
            "SPILL_SCOPE",
            |s| validate_scope(s).map(|_| s.to_string()),
            false,
        )?
        .or_else(|| crate::harness::shell_scope(&|name| env_text(name).ok().flatten()))
        .or_else(|| crate::store::binding::claimed_for_self(&root))
        .unwrap_or_else(|| "default".to_string()),
    };
    let mut config = StoreConfig::new(root, scope);
    config.restricted = restricted();
    config.ttl = match global.ttl {
        Some(t) => t,
        None => env_parsed("SPILL_TTL", limits::parse_duration, false)?.unwrap_or(limits::TTL),
    };
    config.quota = match global.quota {
        Some(q) => q,
        None => env_parsed("SPILL_QUOTA", limits::parse_size, false)?.unwrap_or(limits::QUOTA),
    };
    let max_file = match global.max_file {
        Some(m) => m,
        None => {
            env_parsed("SPILL_MAX_FILE", limits::parse_size, false)?.unwrap_or(limits::MAX_FILE)
        }
    };
    config.max_file = max_file.min(config.quota);
    let store_url = match &global.store {
        Some(url) => Some(url.clone()),
        None => env_text("SPILL_STORE")?,
    };
    if let Some(url) = store_url {
        crate::store::remote::parse_url(&url)?;
        let settings = s3::settings(env_default_root())?;
        crate::store::remote::configure(&mut config, &url, &settings)?;
    }
    Ok(config)
}

/// Where `next:` footers go: `--footer` > `SPILL_FOOTER` > stderr.
pub fn footer_to(flag: Option<FooterTo>) -> Result<FooterTo> {
    if let Some(f) = flag {
        return Ok(f);
    }
    let parse = |s: &str| match s {
        "stdout" => Ok(FooterTo::Stdout),
        "stderr" => Ok(FooterTo::Stderr),
        other => Err(format!("invalid value {other:?}: use stdout or stderr")),
    };
    Ok(env_parsed("SPILL_FOOTER", parse, false)?.unwrap_or(FooterTo::Stderr))
}

/// Writes a footer where it belongs: appended to stdout (already holding the data), or on
/// stderr after stdout has been flushed.
pub fn emit_footer(out: &mut impl std::io::Write, to: FooterTo, line: &str) -> Result<()> {
    match to {
        FooterTo::Stdout => {
            crate::output::write_all(out, format!("{line}\n").as_bytes())?;
            crate::output::flush(out)
        }
        FooterTo::Stderr => {
            crate::output::flush(out)?;
            diag::notice(line);
            Ok(())
        }
    }
}

/// Prints what a reading command reports beside its output, as the command line always has:
/// the notices before the footer (stdout flushed first), the footer (see [`emit_footer`]), then
/// the notices after it.
pub fn print_report(
    out: &mut impl std::io::Write,
    to: FooterTo,
    report: &crate::ops::Report,
) -> Result<()> {
    crate::output::flush(out)?;
    for notice in report.before_footer() {
        print_notice(notice);
    }
    if let Some(line) = &report.footer {
        emit_footer(out, to, line)?;
    }
    for notice in report.after_footer() {
        print_notice(notice);
    }
    Ok(())
}

/// Writes one notice on stderr at its level.
pub fn print_notice(notice: &crate::ops::Notice) {
    match notice.level() {
        crate::ops::Level::Note => diag::note(&notice.to_string()),
        crate::ops::Level::Message => diag::message(&notice.to_string()),
        crate::ops::Level::Plain => diag::notice(&notice.to_string()),
    }
}
