//! The one error type of spill. `Display` names the operation, the path or ref and, where one
//! exists, the fix; it carries no `spill:` prefix (src/diag.rs adds that).

use std::fmt;
use std::io;
use std::path::PathBuf;

/// Everything that can go wrong in spill. Every variant maps to exit status 2.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// The command line (or an environment value) is not usable.
    Usage(String),
    /// An I/O operation failed.
    Io {
        /// What was being done, e.g. "read", "create temporary file in".
        op: &'static str,
        /// The file or directory concerned, if any.
        path: Option<PathBuf>,
        /// The underlying error.
        source: io::Error,
    },
    /// The input is not valid JSON where JSON was required.
    InvalidJson {
        /// 0-based byte offset of the error.
        offset: u64,
        /// 1-based line.
        line: u64,
        /// 1-based column (in bytes).
        column: u64,
        /// What was wrong.
        message: String,
    },
    /// Valid JSON, but a query's walk went past one of spill's limits: a descendant segment's
    /// depth ([`crate::json::path::MAX_DESCENT`]) or a query's work
    /// ([`crate::json::path::work_limit`]).
    Limit {
        /// What was exceeded, as the message starts: `nested too deeply`, `query too costly`.
        what: &'static str,
        /// 0-based byte offset of the value the walk had reached.
        offset: u64,
        /// 1-based line.
        line: u64,
        /// 1-based column (in bytes).
        column: u64,
        /// The limit and how to get past it.
        message: String,
    },
    /// A JSONPath query could not be parsed.
    Query {
        /// What was wrong.
        message: String,
        /// The query as typed.
        query: String,
        /// Byte offset of the offending character in `query`.
        offset: usize,
    },
    /// A well-formed ref that never existed in this scope.
    UnknownRef(String),
    /// A ref that existed but was removed.
    GoneRef {
        /// The ref.
        reference: String,
        /// How it went.
        how: Gone,
    },
    /// The store root or scope is unusable (unsafe, wrong owner, not a directory, full, ...).
    Store(String),
}

/// How a stored ref went away: the word its tombstone holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Gone {
    /// Not read for longer than the TTL.
    Expired,
    /// Least recently used while the root was over its quota.
    Evicted,
    /// Removed by `spill rm` (or by a word in its tombstone spill does not know).
    Removed,
}

impl Gone {
    /// The word a tombstone holds: `expired`, `evicted`, `removed`.
    pub fn as_str(self) -> &'static str {
        match self {
            Gone::Expired => "expired",
            Gone::Evicted => "evicted",
            Gone::Removed => "removed",
        }
    }

    /// What a tombstone's first word says; any other word is a removal.
    pub fn from_word(word: &[u8]) -> Gone {
        match word {
            b"expired" => Gone::Expired,
            b"evicted" => Gone::Evicted,
            _ => Gone::Removed,
        }
    }

    /// The message's words after "has": `expired`, `been evicted`, `been removed`.
    fn participle(self) -> &'static str {
        match self {
            Gone::Expired => "expired",
            Gone::Evicted => "been evicted",
            Gone::Removed => "been removed",
        }
    }
}

impl Error {
    /// An I/O error with its operation and path.
    pub fn io(op: &'static str, path: impl Into<PathBuf>, source: io::Error) -> Error {
        Error::Io {
            op,
            path: Some(path.into()),
            source,
        }
    }

    /// An I/O error on a stream (stdin, stdout) with no path.
    pub fn stream(op: &'static str, source: io::Error) -> Error {
        Error::Io {
            op,
            path: None,
            source,
        }
    }

    /// True when this error is a closed stdout: the reader went away (`spill … | head -1`),
    /// which is not a failure and ends the process quietly with status 0.
    pub fn is_broken_pipe(&self) -> bool {
        matches!(self, Error::Io { source, .. } if source.kind() == io::ErrorKind::BrokenPipe)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Usage(msg) | Error::Store(msg) => f.write_str(msg),
            Error::Io {
                op,
                path: Some(path),
                source,
            } => {
                write!(
                    f,
                    "cannot {op} {}: {}",
                    crate::diag::escape(&path.to_string_lossy()),
                    io_reason(source)
                )
            }
            Error::Io {
                op,
                path: None,
                source,
            } => write!(f, "cannot {op}: {}", io_reason(source)),
            Error::InvalidJson {
                offset,
                line,
                column,
                message,
            } => {
                write!(
                    f,
                    "invalid JSON at byte {offset} (line {line}:{column}): {message}"
                )
            }
            Error::Limit {
                what,
                offset,
                line,
                column,
                message,
            } => write!(
                f,
                "{what} at byte {offset} (line {line}:{column}): {message}"
            ),
            Error::Query { message, .. } => write!(f, "invalid query: {message}"),
            Error::UnknownRef(r) => write!(
                f,
                "unknown ref {r} in this scope (it never existed here; `spill ls` lists what is stored)"
            ),
            Error::GoneRef { reference, how } => write!(
                f,
                "ref {reference} has {}; its output is no longer stored (run the command again)",
                how.participle()
            ),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}

/// The OS reason without Rust's " (os error N)" suffix, lower-cased like the rest of the message.
fn io_reason(e: &io::Error) -> String {
    let text = e.to_string();
    let text = match text.find(" (os error") {
        Some(i) => text[..i].to_string(),
        None => text,
    };
    let mut chars = text.chars();
    match chars.next() {
        Some(c) => c.to_lowercase().chain(chars).collect(),
        None => text,
    }
}

/// The result type of spill's library.
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn io_errors_name_operation_and_path() {
        let e = Error::io("open", "/x/y", io::Error::from_raw_os_error(libc::ENOENT));
        assert_eq!(e.to_string(), "cannot open /x/y: no such file or directory");
    }

    #[test]
    fn broken_pipe_is_recognised() {
        assert!(
            Error::stream("write to stdout", io::ErrorKind::BrokenPipe.into()).is_broken_pipe()
        );
        assert!(!Error::Usage("x".into()).is_broken_pipe());
    }
}
