//! SOURCE arguments: a ref (looked up in the current scope), a file path, or `-` for stdin,
//! opened as one byte slice. A path or `-` never opens the store.
//!
//! **How each kind of source is read.**
//! - A regular file with a size (a ref's payload, a user's file) is memory-mapped: the readers'
//!   speed (a prefix read for `extract '$.items[5]'`, ripgrep-level `search`) depends on it.
//! - A stream (stdin, a FIFO, a character device) and a regular file whose size reports 0
//!   (procfs, sysfs) is read in chunks: in memory up to [`limits::STDIN_BUFFER`] (64 MiB), then
//!   spooled to an unlinked 0600 temporary file that is mapped. It is read only as far as the
//!   request needs ([`Need`]: `cat --bytes 0:16` needs 17 bytes) plus at most
//!   [`limits::STREAM_LOOKAHEAD`] (1 MiB) more, so that the footer of a typical piped output
//!   still gives its exact length while `/dev/zero` or `yes` stop at once; and never past the
//!   store's `--max-file` (the largest output the store keeps): a longer stream is an error
//!   naming the source, so `spill search /dev/zero x` stops instead of filling the disk.
//!
//! **A file that shrinks while it is read.** A memory map of a file that is truncated under it
//! faults with SIGBUS on the pages past the new end, which would kill spill without a word.
//! Copying every file that is not in the store to a private spool would make that impossible,
//! but it doubles the I/O of every read and turns `extract`'s prefix read of a 1 GB file into a
//! full copy; recovering from the fault with `sigsetjmp`/`siglongjmp` would unwind through Rust
//! frames, which Rust does not allow. So spill keeps the maps and makes the fault an error:
//! - each map is registered (address range and the SOURCE as typed) while it lives;
//! - [`catch_truncation`] (the `spill` binary calls it) lets the first map install a SIGBUS
//!   handler; a fault inside a registered range writes `spill: SOURCE changed while being read
//!   …` to stderr and ends the process with status 2 at once (`_exit`, nothing returns into
//!   Rust); a fault anywhere else goes to the handler that was there before (Rust's own, or the
//!   default);
//! - a shrink that does not reach a page boundary faults nowhere (the rest of the page reads as
//!   zeros), so [`Input::check_unchanged`] compares the file's size with the map's after the
//!   command has read it, and reports the same error.
//!
//! Store payloads are never rewritten, only unlinked (which leaves a map intact), so a ref
//! only meets this when something outside spill truncates the store's files.

use std::fs::File;
use std::io::{self, Read, Write};
use std::ops::Deref;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;

use memmap2::Mmap;

use crate::error::{Error, Result};
use crate::limits;
use crate::store::{Ref, Shorthand, Store, StoreConfig};

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

/// How much of a stream a request needs. Mapped files are never read further than the
/// request touches anyway; for streams this decides when reading stops.
pub enum Need<'a> {
    /// The whole source (search, shape and extract count or validate everything).
    All,
    /// Stop once this returns true. It is given each chunk read, in order, and keeps its own
    /// count (`cat --lines 1:5` stops after the fifth line break and one byte more).
    Until(Enough<'a>),
}

/// Told each chunk of a stream in order, says when the request has what it needs.
pub type Enough<'a> = Box<dyn FnMut(&[u8]) -> bool + 'a>;

impl Need<'_> {
    /// Tells the next chunk read; true once the request has what it needs.
    pub fn enough(&mut self, chunk: &[u8]) -> bool {
        match self {
            Need::All => false,
            Need::Until(f) => f(chunk),
        }
    }
}

/// The bytes of an opened source.
#[derive(Debug)]
pub struct Input {
    data: Data,
    /// The ref, when the source was one.
    pub reference: Option<Ref>,
    /// A stream read only as far as the request needed: more bytes may follow the last one.
    pub partial: bool,
    /// The mapped file and the SOURCE as typed, for [`Input::check_unchanged`].
    watch: Option<(File, String)>,
}

#[derive(Debug)]
enum Data {
    Heap(Vec<u8>),
    Map(Guarded),
}

/// A map registered with the SIGBUS handler while it lives.
#[derive(Debug)]
struct Guarded {
    map: Mmap,
    slot: Option<usize>,
}

impl Guarded {
    fn new(map: Mmap, source: &str) -> Guarded {
        let slot = guard::register(&map, source);
        Guarded { map, slot }
    }
}

impl Drop for Guarded {
    fn drop(&mut self) {
        if let Some(slot) = self.slot {
            guard::unregister(slot);
        }
    }
}

impl Deref for Input {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match &self.data {
            Data::Heap(v) => v,
            Data::Map(g) => &g.map,
        }
    }
}

impl Input {
    /// Wraps bytes already in memory (used by the library API and tests).
    pub fn from_vec(bytes: Vec<u8>) -> Input {
        Input {
            data: Data::Heap(bytes),
            reference: None,
            partial: false,
            watch: None,
        }
    }

    /// True when the bytes are a memory map (a file or a spooled stdin).
    pub fn is_mapped(&self) -> bool {
        matches!(self.data, Data::Map(_))
    }

    /// Fails when the mapped file is now shorter than its map: it shrank while it was read,
    /// and what was read past its new end may have been zeros. Commands call this after
    /// reading, before they report success.
    pub fn check_unchanged(&self) -> Result<()> {
        let (Some((file, source)), Data::Map(g)) = (&self.watch, &self.data) else {
            return Ok(());
        };
        let now = file
            .metadata()
            .map_err(|e| Error::io("inspect", source, e))?
            .len();
        let mapped = g.map.len() as u64;
        if now < mapped {
            return Err(changed(
                source,
                &format!(
                    "it shrank from {} to {} bytes",
                    limits::group_digits(mapped),
                    limits::group_digits(now)
                ),
            ));
        }
        Ok(())
    }
}

/// The error for a source that changed under its map.
fn changed(source: &str, how: &str) -> Error {
    Error::io(
        "read",
        source,
        io::Error::other(format!(
            "it changed while being read ({how}); its output is not trustworthy, read it again once it stops changing"
        )),
    )
}

/// Makes a fault on a shrunken source map an error (see the module documentation). The
/// `spill` binary calls this once; the handler itself is installed by the first map, so
/// commands that map nothing (`wrap`) pay nothing. Embedders may call it too: the process
/// then ends with status 2 and a message on stderr instead of being killed by SIGBUS.
pub fn catch_truncation() {
    guard::ENABLED.store(true, Ordering::Relaxed);
}

/// Opens a SOURCE, whole. `store` is consulted only for refs (and for `--max-file`, the cap
/// on a stream); in restricted mode paths are refused.
pub fn open(text: &str, store: &StoreConfig) -> Result<Input> {
    open_with(text, store, Need::All)
}

/// The bytes the JSON readers (`shape`, `extract`) read of `input`, and the note saying which:
/// for a ref whose output is JSON behind a few lines of other output, the JSON part its metadata
/// records (README, "Mixed output"), with a note naming its lines; else the whole input. A
/// recorded range that does not fit the payload is ignored.
pub fn json_part<'a>(input: &'a Input, store: &StoreConfig) -> (&'a [u8], Option<String>) {
    let part = input
        .reference
        .as_ref()
        .and_then(|r| Store::new(store.clone()).meta(r).map(|m| (r, m)))
        .and_then(|(r, m)| Some((r, m.json_part?, m.lines)));
    match part {
        Some((r, p, lines))
            if p.start <= p.end && p.end <= input.len() as u64 && p.lines[0] <= p.lines[1] =>
        {
            let g = limits::group_digits;
            let note = format!(
                "{r} holds JSON behind other output: reading its JSON part, lines {}–{} of {} (spill cat {r} shows all of it)",
                g(p.lines[0]),
                g(p.lines[1]),
                g(lines)
            );
            (&input[p.start as usize..p.end as usize], Some(note))
        }
        _ => (input, None),
    }
}

/// Opens a SOURCE, reading a stream only as far as `need` asks.
pub fn open_with(text: &str, store: &StoreConfig, need: Need<'_>) -> Result<Input> {
    let cap = store.max_file;
    match resolve(text, store)? {
        SourceSpec::Stdin => read_stream(io::stdin().lock(), "stdin", cap, need),
        SourceSpec::Ref(r) => {
            let (file, path) = Store::new(store.clone()).open(&r)?;
            let mut input = map_file(file, &path, text, cap, need)?;
            input.reference = Some(r);
            Ok(input)
        }
        SourceSpec::Path(path) => {
            if store.restricted {
                return Err(Error::Usage(format!(
                    "restricted mode (SPILL_RESTRICTED=1): SOURCE must be a ref (sp_ + 16 hex digits) or -, not {:?}",
                    crate::diag::echo(&path.to_string_lossy())
                )));
            }
            let file = File::open(&path).map_err(|e| {
                let text = path.to_string_lossy();
                if e.kind() == io::ErrorKind::NotFound && text.starts_with("sp_") {
                    Error::Usage(format!(
                        "{:?} is not a ref (refs are sp_ followed by 16 lowercase hex digits) and no such file exists",
                        crate::diag::echo(&text)
                    ))
                } else {
                    Error::io("open", &path, e)
                }
            })?;
            map_file(file, &path, text, cap, need)
        }
    }
}

/// Classifies a SOURCE as [`SourceSpec::parse`] does, and resolves a short form of a ref
/// (`@1`, `@last`, `sp_4f9e`: [`crate::store::shorthand`]) against the scope. Every SOURCE
/// starting with `@` is a short form, and an invalid one is an error, never a file (`./@x` is
/// the file); a hex prefix is a file when a file of that name exists (and paths are allowed),
/// as it was before short forms existed.
pub fn resolve(text: &str, store: &StoreConfig) -> Result<SourceSpec> {
    if let Some(short) = Shorthand::parse(text)?
        && (short.is_at_form() || store.restricted || !Path::new(text).exists())
    {
        return Store::new(store.clone())
            .resolve(&short, text)
            .map(SourceSpec::Ref);
    }
    Ok(SourceSpec::parse(text))
}

/// Maps a regular file with a size; reads anything else (a FIFO, a character device, a procfs
/// file whose size reports 0) like a stream. `source` is the SOURCE as typed, for messages.
fn map_file(file: File, path: &Path, source: &str, cap: u64, need: Need<'_>) -> Result<Input> {
    let meta = file.metadata().map_err(|e| Error::io("inspect", path, e))?;
    if meta.is_dir() {
        return Err(Error::Usage(format!(
            "{} is a directory, not a file",
            crate::diag::echo(source)
        )));
    }
    if !meta.is_file() || meta.len() == 0 {
        return read_stream(file, source, cap, need);
    }
    // SAFETY: the map is read-only. Store payloads are never rewritten, only unlinked, which
    // leaves a map valid. A file truncated while it is mapped faults on the pages past its new
    // end: `Guarded` registers the range so that the SIGBUS handler turns the fault into exit 2
    // with a message, and `check_unchanged` catches a shrink that faults nowhere.
    let map = unsafe { Mmap::map(&file) }.map_err(|e| Error::io("map", path, e))?;
    Ok(Input {
        data: Data::Map(Guarded::new(map, source)),
        reference: None,
        partial: false,
        watch: Some((file, source.to_string())),
    })
}

/// Reads a stream in chunks until its end, or until `need` has enough and
/// [`limits::STREAM_LOOKAHEAD`] more bytes were read: in memory up to
/// [`limits::STDIN_BUFFER`], then spooled to an unlinked file. More than `cap` bytes is an
/// error (unless the request was satisfied before).
fn read_stream(mut reader: impl Read, source: &str, cap: u64, mut need: Need<'_>) -> Result<Input> {
    let failed = |e: io::Error| match source {
        "stdin" => Error::stream("read stdin", e),
        named => Error::io("read", named, e),
    };
    let mut chunk = vec![0u8; 64 * 1024];
    let mut buf = Vec::new();
    let mut spool: Option<File> = None;
    let mut total: u64 = 0;
    let mut partial = false;
    // Once the request is satisfied, where reading stops (unless the stream ends first).
    let mut stop_at: Option<u64> = None;
    loop {
        let n = match reader.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(failed(e)),
        };
        total += n as u64;
        if total > cap && stop_at.is_none() {
            return Err(Error::Usage(format!(
                "{} is a stream longer than --max-file ({}): spill reads at most that much of stdin, a FIFO or a device; save it to a file first (or raise --max-file)",
                crate::diag::echo(source),
                limits::human_size(cap)
            )));
        }
        let data = &chunk[..n];
        match &mut spool {
            Some(file) => file.write_all(data).map_err(spool_failed)?,
            None if buf.len() + n > limits::STDIN_BUFFER as usize => {
                let mut file = tempfile::tempfile().map_err(spool_failed)?;
                file.write_all(&buf).map_err(spool_failed)?;
                file.write_all(data).map_err(spool_failed)?;
                buf = Vec::new();
                spool = Some(file);
            }
            None => buf.extend_from_slice(data),
        }
        if stop_at.is_none() && need.enough(data) {
            stop_at = Some(total.saturating_add(limits::STREAM_LOOKAHEAD));
        }
        if stop_at.is_some_and(|at| total >= at) {
            partial = true;
            break;
        }
    }
    let Some(file) = spool else {
        let mut input = Input::from_vec(buf);
        input.partial = partial;
        return Ok(input);
    };
    // SAFETY: the spool file is unlinked and private to this process; nothing else can change it.
    let map = unsafe { Mmap::map(&file) }.map_err(spool_failed)?;
    Ok(Input {
        data: Data::Map(Guarded::new(map, source)),
        reference: None,
        partial,
        watch: None,
    })
}

fn spool_failed(e: io::Error) -> Error {
    Error::stream("spool a stream to a temporary file", e)
}

/// The registry of live source maps and the SIGBUS handler that reads it. Everything the
/// handler touches is an atomic or was written before the map's range was published, and it
/// calls only async-signal-safe functions (`write`, `_exit`, `sigaction`, `raise`).
mod guard {
    use std::sync::OnceLock;
    use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicUsize, Ordering};

    use memmap2::Mmap;

    /// Set by [`super::catch_truncation`]: maps install the handler and register themselves.
    pub(super) static ENABLED: AtomicBool = AtomicBool::new(false);

    /// A range being filled in or emptied: the handler skips it.
    const BUSY: usize = usize::MAX;

    /// One live map: `start` is 0 when the slot is free.
    struct Slot {
        start: AtomicUsize,
        end: AtomicUsize,
        message: AtomicPtr<u8>,
        message_len: AtomicUsize,
    }

    /// A command maps one source; a few more slots serve embedders. A map that finds no free
    /// slot is simply not guarded.
    static SLOTS: [Slot; 16] = [const {
        Slot {
            start: AtomicUsize::new(0),
            end: AtomicUsize::new(0),
            message: AtomicPtr::new(std::ptr::null_mut()),
            message_len: AtomicUsize::new(0),
        }
    }; 16];

    /// The disposition the handler replaced, restored for faults that are not ours.
    struct Previous(libc::sigaction);
    // SAFETY: a plain C struct, written once before the handler can run and only read after.
    unsafe impl Sync for Previous {}
    unsafe impl Send for Previous {}
    static PREVIOUS: OnceLock<Option<Previous>> = OnceLock::new();

    /// Registers `map` (named `source` in the message), installing the handler on first use.
    pub(super) fn register(map: &Mmap, source: &str) -> Option<usize> {
        if !ENABLED.load(Ordering::Relaxed) || map.is_empty() {
            return None;
        }
        PREVIOUS.get_or_init(install).as_ref()?;
        let message = format!(
            "spill: cannot read {}: it changed while being read (it shrank under spill's memory map); its output is not trustworthy, read it again once it stops changing\n",
            crate::diag::echo(source)
        )
        .into_bytes()
        .into_boxed_slice();
        let start = map.as_ptr() as usize;
        for (i, slot) in SLOTS.iter().enumerate() {
            if slot
                .start
                .compare_exchange(0, BUSY, Ordering::AcqRel, Ordering::Relaxed)
                .is_ok()
            {
                slot.message_len.store(message.len(), Ordering::Relaxed);
                slot.message
                    .store(Box::into_raw(message).cast::<u8>(), Ordering::Relaxed);
                slot.end.store(start + map.len(), Ordering::Relaxed);
                slot.start.store(start, Ordering::Release);
                return Some(i);
            }
        }
        None
    }

    /// Frees a slot once its map is about to be unmapped.
    pub(super) fn unregister(i: usize) {
        let slot = &SLOTS[i];
        slot.start.store(BUSY, Ordering::Release);
        let ptr = slot.message.swap(std::ptr::null_mut(), Ordering::Acquire);
        let len = slot.message_len.load(Ordering::Relaxed);
        if !ptr.is_null() {
            // SAFETY: `ptr` and `len` came from the boxed slice leaked in `register`.
            drop(unsafe { Box::from_raw(std::ptr::slice_from_raw_parts_mut(ptr, len)) });
        }
        slot.end.store(0, Ordering::Relaxed);
        slot.start.store(0, Ordering::Release);
    }

    /// Installs the handler; `None` (maps stay unguarded) if the system refuses.
    fn install() -> Option<Previous> {
        // SAFETY: `sigaction` with a zeroed struct filled in as POSIX describes; the handler
        // is an `extern "C"` function that only does async-signal-safe work.
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_sigbus as *const () as libc::sighandler_t;
            action.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
            libc::sigemptyset(&mut action.sa_mask);
            let mut previous: libc::sigaction = std::mem::zeroed();
            if libc::sigaction(libc::SIGBUS, &action, &mut previous) != 0 {
                return None;
            }
            Some(Previous(previous))
        }
    }

    extern "C" fn on_sigbus(_: libc::c_int, info: *mut libc::siginfo_t, _: *mut libc::c_void) {
        // SAFETY: the kernel passes a valid siginfo to an SA_SIGINFO handler.
        let (addr, code) = unsafe { ((*info).si_addr() as usize, (*info).si_code) };
        for slot in &SLOTS {
            let start = slot.start.load(Ordering::Acquire);
            if start == 0 || start == BUSY {
                continue;
            }
            if addr >= start && addr < slot.end.load(Ordering::Relaxed) {
                let ptr = slot.message.load(Ordering::Relaxed);
                let len = slot.message_len.load(Ordering::Relaxed);
                // SAFETY: the message stays allocated while its slot is published; `write`
                // and `_exit` are async-signal-safe, and nothing returns into Rust code.
                unsafe {
                    libc::write(libc::STDERR_FILENO, ptr.cast(), len);
                    libc::_exit(2);
                }
            }
        }
        // Not a fault in a source map: put the previous disposition back. A fault then
        // happens again under it when this returns; a SIGBUS sent by a process is raised again.
        // SAFETY: restoring the saved disposition (or the default) is async-signal-safe.
        unsafe {
            match PREVIOUS.get() {
                Some(Some(previous)) => {
                    libc::sigaction(libc::SIGBUS, &previous.0, std::ptr::null_mut());
                }
                _ => {
                    libc::signal(libc::SIGBUS, libc::SIG_DFL);
                }
            }
            if code <= 0 {
                libc::raise(libc::SIGBUS);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CAP: u64 = u64::MAX;

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
        let input = read_stream(&data[..], "stdin", CAP, Need::All).unwrap();
        assert!(input.is_mapped());
        assert_eq!(input.len(), data.len());
        assert!(!input.partial);
        let small = read_stream(&b"abc"[..], "stdin", CAP, Need::All).unwrap();
        assert!(!small.is_mapped());
        assert_eq!(&*small, b"abc");
    }

    #[test]
    fn streams_stop_where_the_request_is_satisfied() {
        // An endless stream: reading stops after the first chunk that satisfies the need.
        let endless = io::repeat(b'z');
        let mut seen = 0usize;
        let need = Need::Until(Box::new(move |chunk: &[u8]| {
            seen += chunk.len();
            seen > 16
        }));
        let input = read_stream(endless, "/dev/zero", CAP, need).unwrap();
        assert!(input.partial);
        let most = 64 * 1024 + limits::STREAM_LOOKAHEAD as usize;
        assert!(input.len() > 16 && input.len() <= most, "{}", input.len());
        // A stream that ends within the look-ahead is read to its end, and known whole.
        let need = Need::Until(Box::new(|_: &[u8]| true));
        let input = read_stream(&[1u8; 100_000][..], "stdin", CAP, need).unwrap();
        assert!(!input.partial);
        assert_eq!(input.len(), 100_000);
    }

    #[test]
    fn streams_longer_than_the_cap_are_an_error_naming_the_source() {
        let err = read_stream(io::repeat(0), "/dev/zero", 1 << 20, Need::All).unwrap_err();
        let text = err.to_string();
        assert!(
            text.starts_with("/dev/zero is a stream longer than --max-file (1.0 MiB)"),
            "{text}"
        );
        let exact = read_stream(&[7u8; 1 << 20][..], "stdin", 1 << 20, Need::All).unwrap();
        assert_eq!(exact.len(), 1 << 20);
    }
}
