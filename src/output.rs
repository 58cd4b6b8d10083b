//! Standard output: one locked, buffered writer per command, flushed explicitly so that
//! stderr notices follow the data they describe. Pass-through and JSON bytes are written
//! as they are; only human text may go through anstream for colour.

use std::io::{self, BufWriter, IsTerminal, StdoutLock, Write};

use crate::error::{Error, Result};

/// The buffered stdout of one command.
pub type Stdout = BufWriter<StdoutLock<'static>>;

/// Locks stdout behind a 64 KiB buffer.
pub fn stdout() -> Stdout {
    BufWriter::with_capacity(64 * 1024, io::stdout().lock())
}

/// True when stdout is a terminal (escaping and colour decisions).
pub fn stdout_is_terminal() -> bool {
    io::stdout().is_terminal()
}

/// Writes all bytes, mapping failures (a closed pipe included) to [`Error`].
pub fn write_all(out: &mut impl Write, bytes: &[u8]) -> Result<()> {
    out.write_all(bytes)
        .map_err(|e| Error::stream("write to stdout", e))
}

/// Flushes, mapping failures to [`Error`].
pub fn flush(out: &mut impl Write) -> Result<()> {
    out.flush().map_err(|e| Error::stream("write to stdout", e))
}
