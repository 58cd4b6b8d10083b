//! SOURCE arguments: a ref (looked up in the current scope), a file path, or `-` for stdin,
//! opened as one byte slice. Files are memory-mapped; stdin is buffered in memory up to
//! 64 MiB and spooled beyond that to an unlinked 0600 temporary file that is then mapped.
//! A path or `-` never opens the store.

use std::fs::File;
use std::io::{self, Read, Write};
use std::ops::Deref;
use std::path::PathBuf;

use memmap2::Mmap;

use crate::error::{Error, Result};
use crate::limits;
use crate::store::{Ref, Store, StoreConfig};

/// What a SOURCE argument names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SourceSpec {
    /// A stored payload.
    Ref(Ref),
    /// A file.
    Path(PathBuf),
    /// Standard input.
    Stdin,
}

impl SourceSpec {
    /// Classifies a SOURCE argument: `-`, a ref by its exact syntax, else a path.
    pub fn parse(text: &str) -> SourceSpec {
        if text == "-" {
            SourceSpec::Stdin
        } else if let Some(r) = Ref::parse(text) {
            SourceSpec::Ref(r)
        } else {
            SourceSpec::Path(PathBuf::from(text))
        }
    }
}

/// The bytes of an opened source.
#[derive(Debug)]
pub struct Input {
    data: Data,
    /// The ref, when the source was one.
    pub reference: Option<Ref>,
}

#[derive(Debug)]
enum Data {
    Heap(Vec<u8>),
    Map(Mmap),
}

impl Deref for Input {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match &self.data {
            Data::Heap(v) => v,
            Data::Map(m) => m,
        }
    }
}

impl Input {
    /// Wraps bytes already in memory (used by the library API and tests).
    pub fn from_vec(bytes: Vec<u8>) -> Input {
        Input {
            data: Data::Heap(bytes),
            reference: None,
        }
    }

    /// True when the bytes are a memory map (a file or a spooled stdin).
    pub fn is_mapped(&self) -> bool {
        matches!(self.data, Data::Map(_))
    }
}

/// Opens a SOURCE. `store` is consulted only for refs; in restricted mode paths are refused.
pub fn open(text: &str, store: &StoreConfig) -> Result<Input> {
    match SourceSpec::parse(text) {
        SourceSpec::Stdin => read_stream(io::stdin().lock(), "read stdin"),
        SourceSpec::Ref(r) => {
            let (file, path) = Store::new(store.clone()).open(&r)?;
            let mut input = map_file(file, &path)?;
            input.reference = Some(r);
            Ok(input)
        }
        SourceSpec::Path(path) => {
            if store.restricted {
                return Err(Error::Usage(format!(
                    "restricted mode (SPILL_RESTRICTED=1): SOURCE must be a ref (sp_ + 16 hex digits) or -, not {:?}",
                    crate::diag::escape(&path.to_string_lossy())
                )));
            }
            let file = File::open(&path).map_err(|e| {
                let text = path.to_string_lossy();
                if e.kind() == io::ErrorKind::NotFound && text.starts_with("sp_") {
                    Error::Usage(format!(
                        "{:?} is not a ref (refs are sp_ followed by 16 lowercase hex digits) and no such file exists",
                        crate::diag::escape(&text)
                    ))
                } else {
                    Error::io("open", &path, e)
                }
            })?;
            map_file(file, &path)
        }
    }
}

/// Maps a regular file; reads anything else (a FIFO, a character device) like a stream.
fn map_file(file: File, path: &std::path::Path) -> Result<Input> {
    let meta = file.metadata().map_err(|e| Error::io("inspect", path, e))?;
    if meta.is_dir() {
        return Err(Error::Usage(format!(
            "{} is a directory, not a file",
            crate::diag::escape(&path.to_string_lossy())
        )));
    }
    if !meta.is_file() {
        return read_stream(file, "read");
    }
    if meta.len() == 0 {
        return Ok(Input::from_vec(Vec::new()));
    }
    // SAFETY: the map is read-only. Store payloads are immutable (never truncated or rewritten,
    // only unlinked), so the mapping stays valid; a user's own file truncated while we read it is
    // the one case that can fault, as with every mmap-based tool (ripgrep included).
    let map = unsafe { Mmap::map(&file) }.map_err(|e| Error::io("map", path, e))?;
    Ok(Input {
        data: Data::Map(map),
        reference: None,
    })
}

/// Reads a stream: in memory up to [`limits::STDIN_BUFFER`], then spooled to an unlinked file.
fn read_stream(mut reader: impl Read, op: &'static str) -> Result<Input> {
    let limit = limits::STDIN_BUFFER as usize;
    let mut buf = Vec::new();
    (&mut reader)
        .take(limit as u64 + 1)
        .read_to_end(&mut buf)
        .map_err(|e| Error::stream(op, e))?;
    if buf.len() <= limit {
        return Ok(Input::from_vec(buf));
    }
    let mut spool =
        tempfile::tempfile().map_err(|e| Error::stream("create a spool file for stdin", e))?;
    spool
        .write_all(&buf)
        .map_err(|e| Error::stream("spool stdin", e))?;
    drop(buf);
    io::copy(&mut reader, &mut spool).map_err(|e| Error::stream("spool stdin", e))?;
    // SAFETY: the spool file is unlinked and private to this process; nothing else can change it.
    let map = unsafe { Mmap::map(&spool) }.map_err(|e| Error::stream("map the stdin spool", e))?;
    Ok(Input {
        data: Data::Map(map),
        reference: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sources_are_classified_by_exact_syntax() {
        assert_eq!(SourceSpec::parse("-"), SourceSpec::Stdin);
        assert!(matches!(
            SourceSpec::parse("sp_0123456789abcdef"),
            SourceSpec::Ref(_)
        ));
        assert_eq!(
            SourceSpec::parse("sp_0123"),
            SourceSpec::Path("sp_0123".into())
        );
        assert_eq!(
            SourceSpec::parse("./x.json"),
            SourceSpec::Path("./x.json".into())
        );
    }

    #[test]
    fn large_streams_spool_to_a_map() {
        let data = vec![b'x'; limits::STDIN_BUFFER as usize + 10];
        let input = read_stream(&data[..], "read").unwrap();
        assert!(input.is_mapped());
        assert_eq!(input.len(), data.len());
        let small = read_stream(&b"abc"[..], "read").unwrap();
        assert!(!small.is_mapped());
        assert_eq!(&*small, b"abc");
    }
}
