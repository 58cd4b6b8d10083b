//! One file per command: glue that turns parsed arguments into library calls and renders the
//! results. This module resolves the settings every command shares (flag > environment > default).

pub mod cat;
pub mod extract;
pub mod gc;
pub mod hook;
pub mod init;
pub mod ls;
pub mod rm;
pub mod schema;
pub mod search;
pub mod shape;
pub mod wrap;

use std::path::PathBuf;

use crate::cli::{Cli, Command, FooterTo, Global};
use crate::error::{Error, Result};
use crate::store::{StoreConfig, validate_scope};
use crate::{diag, limits};

/// How a command ended, before it becomes an exit status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Success, or something was found: 0.
    Found,
    /// Nothing found: 1.
    NotFound,
    /// A status decided by the command (`wrap -- CMD` exits with CMD's).
    Status(u8),
}

impl Outcome {
    /// The process exit status.
    pub fn code(self) -> u8 {
        match self {
            Outcome::Found => 0,
            Outcome::NotFound => 1,
            Outcome::Status(s) => s,
        }
    }
}

/// Runs a parsed command line.
pub fn dispatch(cli: Cli) -> Result<Outcome> {
    match cli.command {
        Command::Wrap(args) => wrap::run(&cli.global, args),
        Command::Cat(args) => cat::run(&store_config(&cli.global, false)?, args),
        Command::Shape(args) => shape::run(&store_config(&cli.global, false)?, args),
        Command::Extract(args) => extract::run(&store_config(&cli.global, false)?, args),
        Command::Ls(args) => ls::run(&store_config(&cli.global, false)?, args),
        Command::Rm(args) => rm::run(&store_config(&cli.global, false)?, args),
        Command::Search(args) => search::run(&cli.global, args),
        Command::Gc(args) => gc::run(&store_config(&cli.global, false)?, args),
        Command::Schema(args) => schema::run(args),
        Command::Hook(args) => hook::run(&cli.global, args),
        Command::Init(args) => init::run(args),
    }
}

/// True when `SPILL_RESTRICTED=1` (no flag twin, by design).
pub fn restricted() -> bool {
    std::env::var_os("SPILL_RESTRICTED").is_some_and(|v| v == "1")
}

/// A non-empty environment variable.
pub fn env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
}

/// Reads and parses an environment variable. An invalid value is an error, or, when `lenient`
/// (wrap, which must never lose its input to configuration), a warning and the default.
pub fn env_parsed<T>(
    name: &str,
    parse: impl Fn(&str) -> std::result::Result<T, String>,
    lenient: bool,
) -> Result<Option<T>> {
    let Some(value) = env(name) else {
        return Ok(None);
    };
    match parse(&value) {
        Ok(v) => Ok(Some(v)),
        Err(why) if lenient => {
            diag::warning(&format!("ignoring {name}: {why}; using the default"));
            Ok(None)
        }
        Err(why) => Err(Error::Usage(format!("{name}: {why}"))),
    }
}

/// Resolves the store configuration: flag > environment > default. Restricted mode refuses
/// the store flags. `lenient` turns invalid environment values into warnings (for wrap).
pub fn store_config(global: &Global, lenient: bool) -> Result<StoreConfig> {
    let restricted = restricted();
    if restricted {
        let given = [
            ("--dir", global.dir.is_some()),
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
    let root = global
        .dir
        .clone()
        .or_else(|| env("SPILL_DIR").map(PathBuf::from))
        .unwrap_or_else(StoreConfig::default_root);
    let root = if root.is_relative() {
        std::env::current_dir()
            .map_err(|e| Error::stream("read the current directory", e))?
            .join(root)
    } else {
        root
    };
    let scope = match &global.scope {
        Some(s) => {
            validate_scope(s).map_err(|why| Error::Usage(format!("--scope: {why}")))?;
            s.clone()
        }
        None => env_parsed(
            "SPILL_SCOPE",
            |s| validate_scope(s).map(|_| s.to_string()),
            lenient,
        )?
        .unwrap_or_else(|| "default".to_string()),
    };
    let mut config = StoreConfig::new(root, scope);
    config.restricted = restricted;
    config.ttl = match global.ttl {
        Some(t) => t,
        None => env_parsed("SPILL_TTL", limits::parse_duration, lenient)?.unwrap_or(limits::TTL),
    };
    config.quota = match global.quota {
        Some(q) => q,
        None => env_parsed("SPILL_QUOTA", limits::parse_size, lenient)?.unwrap_or(limits::QUOTA),
    };
    let max_file = match global.max_file {
        Some(m) => m,
        None => {
            env_parsed("SPILL_MAX_FILE", limits::parse_size, lenient)?.unwrap_or(limits::MAX_FILE)
        }
    };
    config.max_file = max_file.min(config.quota);
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
