//! Structural scanning: the SIMD hot loops that skip whole values and find string ends.
//!
//! Skipping a container works like simdjson's stage 1, but stops as soon as the container
//! closes: each 64-byte block is classified into bit masks (quotes, backslashes, opening and
//! closing brackets), escaped quotes are removed with the carry-propagating backslash trick, the
//! in-string mask is the prefix-XOR of the remaining quotes, and the bracket depth is tracked
//! with popcounts — a block is only walked bit by bit when it could close the container.
//!
//! Skipping a container is lenient: it balances brackets and strings but does not check the
//! grammar inside it (`{"a" 1]` skips fine). Scalars are always read strictly. Callers that print
//! what they skipped over check it with [`crate::json::validate_value`].

use std::sync::atomic::{AtomicU8, Ordering};

use super::SyntaxError;

/// The vector instruction sets the scanner can use, narrowest first. The widest the CPU has is
/// chosen at run time (once, then cached); [`force_simd`] narrows it, so the tests (and
/// `SPILL_SIMD`, read by the command layer) can run every path on any machine and compare their
/// answers. On targets other than x86-64 only [`Simd::Scalar`] exists (a NEON path is not
/// written yet).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Simd {
    /// One byte at a time: the portable fallback and the oracle of the vector paths.
    Scalar,
    /// 16-byte SSE2 steps: the x86-64 baseline, no detection needed.
    Sse2,
    /// 32-byte AVX2 steps, with carry-less multiplication (PCLMULQDQ) for the in-string mask.
    Avx2,
    /// 64-byte AVX-512BW steps: one compare per byte class gives the block's mask directly.
    Avx512,
}

impl Simd {
    /// The name `SPILL_SIMD` takes: `scalar`, `sse2`, `avx2`, `avx512`.
    pub fn name(self) -> &'static str {
        match self {
            Simd::Scalar => "scalar",
            Simd::Sse2 => "sse2",
            Simd::Avx2 => "avx2",
            Simd::Avx512 => "avx512",
        }
    }

    /// The level a `SPILL_SIMD` value names, if any.
    pub fn from_name(name: &str) -> Option<Simd> {
        [Simd::Scalar, Simd::Sse2, Simd::Avx2, Simd::Avx512]
            .into_iter()
            .find(|l| l.name().eq_ignore_ascii_case(name))
    }
}

/// `0` until the level is chosen, then `level + 1`.
static LEVEL: AtomicU8 = AtomicU8::new(0);

/// The widest level this CPU supports.
pub fn detected_simd() -> Simd {
    #[cfg(target_arch = "x86_64")]
    {
        let clmul = std::is_x86_feature_detected!("pclmulqdq");
        if clmul
            && std::is_x86_feature_detected!("avx2")
            && std::is_x86_feature_detected!("avx512f")
            && std::is_x86_feature_detected!("avx512bw")
        {
            Simd::Avx512
        } else if clmul && std::is_x86_feature_detected!("avx2") {
            Simd::Avx2
        } else {
            Simd::Sse2
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        Simd::Scalar
    }
}

/// Uses at most `level` from now on (a level the CPU lacks falls back to the widest it has);
/// returns the level in effect.
pub fn force_simd(level: Simd) -> Simd {
    let level = level.min(detected_simd());
    LEVEL.store(level as u8 + 1, Ordering::Relaxed);
    level
}

/// The level in use: the detected one unless [`force_simd`] narrowed it.
#[inline]
pub fn simd() -> Simd {
    match LEVEL.load(Ordering::Relaxed) {
        1 => Simd::Scalar,
        2 => Simd::Sse2,
        3 => Simd::Avx2,
        4 => Simd::Avx512,
        _ => init_simd(),
    }
}

#[cold]
fn init_simd() -> Simd {
    let level = detected_simd();
    // A concurrent force_simd wins: it is only ever called before the work starts.
    let _ = LEVEL.compare_exchange(0, level as u8 + 1, Ordering::Relaxed, Ordering::Relaxed);
    simd()
}

/// Bit masks of one 64-byte block: bit `i` describes byte `i`.
#[derive(Clone, Copy)]
struct Masks {
    quote: u64,
    comma: u64,
    backslash: u64,
    open: u64,
    close: u64,
    /// Line breaks: only [`skip_record_line`] reads them (see `container_loop`).
    newline: u64,
}

/// Returns the offset just past the JSON value that starts at `at` (no leading whitespace).
///
/// A scalar is read strictly (the strict parser's own checks, as
/// [`crate::json::validate`]), so what a skip passes over ends where the strict parser says it
/// ends. Containers are matched by bracket depth and quote state only, so this runs at
/// memory-scanning speed; the grammar inside a container is not checked (see the module docs).
/// A value that does not end before the end of `doc` is an error.
#[inline]
pub fn skip_value(doc: &[u8], at: usize) -> Result<usize, SyntaxError> {
    match doc.get(at) {
        Some(b'{' | b'[') => skip_container(doc, at).ok_or_else(|| unclosed(doc, at)),
        _ => super::parse::scalar_end(doc, at),
    }
}

/// The error of a container that never closes: the strict parser names its first error
/// (errors are rare, so the second pass costs nothing on valid input), the same one `shape`
/// and `wrap` report.
#[cold]
#[inline(never)]
fn unclosed(doc: &[u8], at: usize) -> SyntaxError {
    match super::parse::validate_value(doc, at) {
        Err(e) => e,
        Ok(_) => SyntaxError::new(
            doc,
            doc.len(),
            "unexpected end of input: unclosed container",
        ),
    }
}

/// Finds the first `"`, `\` or control byte (< 0x20) at or after `from`; returns its offset (or
/// `doc.len()`) and whether a non-ASCII byte was passed on the way (so UTF-8 checks can be
/// skipped for pure-ASCII strings, the common case).
///
/// Most strings are short: the first 16 bytes are tested inline with SSE2 (the x86-64
/// baseline); only a string that runs past them goes on at the widest level in use.
#[inline]
pub fn find_string_special(doc: &[u8], from: usize) -> (usize, bool) {
    #[cfg(target_arch = "x86_64")]
    {
        if from + 16 <= doc.len() {
            // SAFETY: 16 readable bytes at `from`; SSE2 is baseline on x86-64.
            let (m, high) = unsafe { special_sse2(doc.as_ptr().add(from)) };
            if m != 0 {
                let k = m.trailing_zeros();
                return (from + k as usize, high & ((1u32 << k) - 1) != 0);
            }
            return find_string_special_wide(doc, from + 16, high != 0);
        }
        find_string_special_scalar(doc, from, false)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        find_string_special_scalar(doc, from, false)
    }
}

/// The rest of a long string, at the level in use (out of line: its set-up would otherwise be
/// paid by every short string).
#[cfg(target_arch = "x86_64")]
#[inline(never)]
fn find_string_special_wide(doc: &[u8], from: usize, non_ascii: bool) -> (usize, bool) {
    match simd() {
        // SAFETY: the level is only chosen when the CPU has it.
        Simd::Avx512 => unsafe { find_string_special_avx512(doc, from, non_ascii) },
        Simd::Avx2 => unsafe { find_string_special_avx2(doc, from, non_ascii) },
        Simd::Sse2 => find_string_special_sse2(doc, from, non_ascii),
        Simd::Scalar => find_string_special_scalar(doc, from, non_ascii),
    }
}

#[inline]
fn find_string_special_scalar(doc: &[u8], from: usize, mut non_ascii: bool) -> (usize, bool) {
    let mut i = from;
    while i < doc.len() {
        let b = doc[i];
        if b == b'"' || b == b'\\' || b < 0x20 {
            return (i, non_ascii);
        }
        non_ascii |= b >= 0x80;
        i += 1;
    }
    (doc.len(), non_ascii)
}

/// The special bytes (`"`, `\`, < 0x20) and the non-ASCII bytes of the 16 bytes at `p`, as
/// bit masks.
///
/// # Safety
/// `p` must point to 16 readable bytes.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn special_sse2(p: *const u8) -> (u32, u32) {
    use std::arch::x86_64::*;
    // SAFETY: the caller guarantees 16 readable bytes; SSE2 is baseline on x86-64.
    unsafe {
        let v = _mm_loadu_si128(p.cast());
        let ctrl = _mm_set1_epi8(0x1f);
        let special = _mm_or_si128(
            _mm_or_si128(
                _mm_cmpeq_epi8(v, _mm_set1_epi8(b'"' as i8)),
                _mm_cmpeq_epi8(v, _mm_set1_epi8(b'\\' as i8)),
            ),
            _mm_cmpeq_epi8(_mm_max_epu8(v, ctrl), ctrl),
        );
        (
            _mm_movemask_epi8(special) as u32,
            _mm_movemask_epi8(v) as u32,
        )
    }
}

#[cfg(target_arch = "x86_64")]
fn find_string_special_sse2(doc: &[u8], from: usize, mut non_ascii: bool) -> (usize, bool) {
    let mut i = from;
    while i + 16 <= doc.len() {
        // SAFETY: 16 readable bytes at `i`.
        let (m, high) = unsafe { special_sse2(doc.as_ptr().add(i)) };
        if m != 0 {
            let k = m.trailing_zeros();
            non_ascii |= high & ((1u32 << k) - 1) != 0;
            return (i + k as usize, non_ascii);
        }
        non_ascii |= high != 0;
        i += 16;
    }
    find_string_special_scalar(doc, i, non_ascii)
}

/// # Safety
/// The CPU must support AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn find_string_special_avx2(doc: &[u8], from: usize, mut non_ascii: bool) -> (usize, bool) {
    use std::arch::x86_64::*;
    let mut i = from;
    let quote = _mm256_set1_epi8(b'"' as i8);
    let backslash = _mm256_set1_epi8(b'\\' as i8);
    let ctrl = _mm256_set1_epi8(0x1f);
    while i + 32 <= doc.len() {
        // SAFETY: 32 readable bytes at `i`.
        let v = unsafe { _mm256_loadu_si256(doc.as_ptr().add(i).cast()) };
        let special = _mm256_or_si256(
            _mm256_or_si256(_mm256_cmpeq_epi8(v, quote), _mm256_cmpeq_epi8(v, backslash)),
            _mm256_cmpeq_epi8(_mm256_max_epu8(v, ctrl), ctrl),
        );
        let m = _mm256_movemask_epi8(special) as u32;
        let high = _mm256_movemask_epi8(v) as u32;
        if m != 0 {
            let k = m.trailing_zeros();
            non_ascii |= high & ((1u64 << k) - 1) as u32 != 0;
            return (i + k as usize, non_ascii);
        }
        non_ascii |= high != 0;
        i += 32;
    }
    find_string_special_sse2(doc, i, non_ascii)
}

/// # Safety
/// The CPU must support AVX-512F and AVX-512BW.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn find_string_special_avx512(
    doc: &[u8],
    from: usize,
    mut non_ascii: bool,
) -> (usize, bool) {
    use std::arch::x86_64::*;
    let mut i = from;
    let quote = _mm512_set1_epi8(b'"' as i8);
    let backslash = _mm512_set1_epi8(b'\\' as i8);
    let space = _mm512_set1_epi8(0x20);
    while i + 64 <= doc.len() {
        // SAFETY: 64 readable bytes at `i`.
        let v = unsafe { _mm512_loadu_si512(doc.as_ptr().add(i).cast()) };
        let m = _mm512_cmpeq_epi8_mask(v, quote)
            | _mm512_cmpeq_epi8_mask(v, backslash)
            | _mm512_cmplt_epu8_mask(v, space);
        let high = _mm512_movepi8_mask(v);
        if m != 0 {
            let k = m.trailing_zeros();
            non_ascii |= high & ((1u64 << k) - 1) != 0;
            return (i + k as usize, non_ascii);
        }
        non_ascii |= high != 0;
        i += 64;
    }
    find_string_special_sse2(doc, i, non_ascii)
}

/// Returns the first offset at or after `from` that is not JSON whitespace (or `doc.len()`).
#[inline]
pub fn skip_ws_run(doc: &[u8], from: usize) -> usize {
    let mut i = from;
    #[cfg(target_arch = "x86_64")]
    // SAFETY: every load reads 16 bytes at `i` with `i + 16 <= doc.len()`; SSE2 is baseline.
    unsafe {
        use std::arch::x86_64::*;
        let (sp, nl, cr, tab) = (
            _mm_set1_epi8(b' ' as i8),
            _mm_set1_epi8(b'\n' as i8),
            _mm_set1_epi8(b'\r' as i8),
            _mm_set1_epi8(b'\t' as i8),
        );
        while i + 16 <= doc.len() {
            let v = _mm_loadu_si128(doc.as_ptr().add(i).cast());
            let ws = _mm_or_si128(
                _mm_or_si128(_mm_cmpeq_epi8(v, sp), _mm_cmpeq_epi8(v, nl)),
                _mm_or_si128(_mm_cmpeq_epi8(v, cr), _mm_cmpeq_epi8(v, tab)),
            );
            let other = !(_mm_movemask_epi8(ws) as u32) & 0xffff;
            if other != 0 {
                return i + other.trailing_zeros() as usize;
            }
            i += 16;
        }
    }
    while i < doc.len() && matches!(doc[i], b' ' | b'\n' | b'\r' | b'\t') {
        i += 1;
    }
    i
}

/// The first offset at or after `i` that is not JSON whitespace (or `doc.len()`): the one
/// whitespace rule of the engine's readers. Minified JSON has no whitespace and pretty JSON
/// mostly one byte (`": "`), so the first two bytes are tested alone; only a longer run (an
/// indentation) is scanned with `skip_ws_run`.
#[inline(always)]
pub fn skip_ws(doc: &[u8], i: usize) -> usize {
    // Every byte that can follow whitespace in JSON is above b' ': one compare settles the
    // common case.
    let ws = |at: usize| {
        doc.get(at)
            .is_some_and(|&b| b <= b' ' && matches!(b, b' ' | b'\n' | b'\r' | b'\t'))
    };
    if !ws(i) {
        return i;
    }
    if !ws(i + 1) {
        return i + 1;
    }
    skip_ws_indent(doc, i + 2)
}

/// The rest of a whitespace run of two bytes or more, out of line: inlined, the vector scan's
/// set-up would be paid by every [`skip_ws`] call, most of which find no whitespace.
#[inline(never)]
fn skip_ws_indent(doc: &[u8], i: usize) -> usize {
    skip_ws_run(doc, i)
}

/// Removes escaped characters: returns the mask of bytes preceded by an odd run of backslashes,
/// carrying a run that crosses the block boundary in `prev_escaped` (simdjson's branchless
/// algorithm).
#[inline(always)]
fn escaped_mask(backslash: u64, prev_escaped: &mut u64) -> u64 {
    const EVEN: u64 = 0x5555_5555_5555_5555;
    if backslash == 0 {
        let e = *prev_escaped;
        *prev_escaped = 0;
        return e;
    }
    let backslash = backslash & !*prev_escaped;
    let follows_escape = (backslash << 1) | *prev_escaped;
    let odd_starts = backslash & !EVEN & !follows_escape;
    let (even_starts, overflow) = odd_starts.overflowing_add(backslash);
    *prev_escaped = u64::from(overflow);
    let invert = even_starts << 1;
    (EVEN ^ invert) & follows_escape
}

/// Bit `i` of the result is the XOR of bits `0..=i`: set between an opening and closing quote.
#[inline(always)]
fn prefix_xor(mut x: u64) -> u64 {
    x ^= x << 1;
    x ^= x << 2;
    x ^= x << 4;
    x ^= x << 8;
    x ^= x << 16;
    x ^= x << 32;
    x
}

/// [`prefix_xor`] in one carry-less multiplication by all ones (PCLMULQDQ, which every CPU
/// with AVX2 has): the AVX2 and AVX-512 loops use it.
///
/// # Safety
/// The CPU must support PCLMULQDQ.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "pclmulqdq")]
#[inline]
unsafe fn prefix_xor_clmul(x: u64) -> u64 {
    use std::arch::x86_64::*;
    let product = _mm_clmulepi64_si128(_mm_set_epi64x(0, x as i64), _mm_set1_epi8(-1), 0);
    _mm_cvtsi128_si64(product) as u64
}

/// The block loop, written once and expanded per instruction set so each copy inlines its
/// classifier (a closure or trait call would not inherit `target_feature`). At the closing
/// bracket it returns `Some($finish(end, newline))`, `newline` telling whether a line break
/// lies between `$at` and the bracket; a `$finish` that ignores it leaves the line-break
/// masks unused, and the compiler drops them from that copy.
macro_rules! container_loop {
    ($doc:expr, $at:expr, $depth:expr, $classify:expr, $pxor:expr, $finish:expr) => {{
        let doc: &[u8] = $doc;
        let mut pos: usize = $at;
        let mut depth: u32 = $depth;
        let mut newline = 0u64;
        let mut prev_escaped = 0u64;
        let mut prev_in_string = 0u64;
        loop {
            let m = if pos + 64 <= doc.len() {
                $classify(doc[pos..pos + 64].as_ptr())
            } else if pos < doc.len() {
                // The last partial block: pad with spaces, which change no state.
                let mut tail = [b' '; 64];
                tail[..doc.len() - pos].copy_from_slice(&doc[pos..]);
                $classify(tail.as_ptr())
            } else {
                return None;
            };
            let escaped = escaped_mask(m.backslash, &mut prev_escaped);
            let quotes = m.quote & !escaped;
            let in_string = $pxor(quotes) ^ prev_in_string;
            prev_in_string = ((in_string as i64) >> 63) as u64;
            let opens = m.open & !in_string;
            let closes = m.close & !in_string;
            if closes.count_ones() < depth {
                // The container cannot close in this block: count and move on.
                depth = depth + opens.count_ones() - closes.count_ones();
            } else {
                let mut bits = opens | closes;
                while bits != 0 {
                    let i = bits.trailing_zeros();
                    if (opens >> i) & 1 == 1 {
                        depth += 1;
                    } else {
                        depth -= 1;
                        if depth == 0 {
                            // The bytes up to and including the bracket (bits 0..=i).
                            let upto = (1u64 << i) | ((1u64 << i) - 1);
                            let seen = (newline | m.newline & upto) != 0;
                            return Some($finish(pos + i as usize + 1, seen));
                        }
                    }
                    bits &= bits - 1;
                }
            }
            newline |= m.newline;
            pos += 64;
        }
    }};
}

/// Like `container_loop`, but also counts the commas directly inside the container (bracket
/// depth 1, outside strings): returns `(end, commas)`.
macro_rules! counting_loop {
    ($doc:expr, $at:expr, $classify:expr, $pxor:expr) => {{
        let doc: &[u8] = $doc;
        let mut pos: usize = $at;
        let mut depth: u32 = 0;
        let mut commas: u64 = 0;
        let mut prev_escaped = 0u64;
        let mut prev_in_string = 0u64;
        loop {
            let m = if pos + 64 <= doc.len() {
                $classify(doc[pos..pos + 64].as_ptr())
            } else if pos < doc.len() {
                let mut tail = [b' '; 64];
                tail[..doc.len() - pos].copy_from_slice(&doc[pos..]);
                $classify(tail.as_ptr())
            } else {
                return None;
            };
            let escaped = escaped_mask(m.backslash, &mut prev_escaped);
            let quotes = m.quote & !escaped;
            let in_string = $pxor(quotes) ^ prev_in_string;
            prev_in_string = ((in_string as i64) >> 63) as u64;
            let opens = m.open & !in_string;
            let closes = m.close & !in_string;
            let sep = m.comma & !in_string;
            if opens | closes == 0 {
                // No bracket in this block: every comma is at the current depth.
                if depth == 1 {
                    commas += u64::from(sep.count_ones());
                }
            } else {
                let mut bits = opens | closes | sep;
                while bits != 0 {
                    let i = bits.trailing_zeros();
                    let bit = 1u64 << i;
                    if opens & bit != 0 {
                        depth += 1;
                    } else if closes & bit != 0 {
                        depth -= 1;
                        if depth == 0 {
                            return Some((pos + i as usize + 1, commas));
                        }
                    } else if depth == 1 {
                        commas += 1;
                    }
                    bits &= bits - 1;
                }
            }
            pos += 64;
        }
    }};
}

/// Skips the object or array starting at `doc[at]` like [`skip_value`] and tells whether a
/// line break lies inside it: an NDJSON record on one line is found in one pass, without a
/// separate search for its line's end. `None` if it never closes.
#[inline]
pub(crate) fn skip_record_line(doc: &[u8], at: usize) -> Option<(usize, bool)> {
    match simd() {
        // SAFETY (each arm): the level is only chosen when the CPU has it.
        #[cfg(target_arch = "x86_64")]
        Simd::Avx512 => unsafe { skip_line_avx512(doc, at) },
        #[cfg(target_arch = "x86_64")]
        Simd::Avx2 => unsafe { skip_line_avx2(doc, at) },
        #[cfg(target_arch = "x86_64")]
        Simd::Sse2 => skip_line_sse2(doc, at),
        _ => skip_line_scalar(doc, at),
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,pclmulqdq")]
fn skip_line_avx512(doc: &[u8], at: usize) -> Option<(usize, bool)> {
    container_loop!(
        doc,
        at,
        0,
        |p| unsafe { classify_avx512(p) },
        |x| unsafe { prefix_xor_clmul(x) },
        |end, newline| (end, newline)
    )
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,pclmulqdq")]
fn skip_line_avx2(doc: &[u8], at: usize) -> Option<(usize, bool)> {
    container_loop!(
        doc,
        at,
        0,
        |p| unsafe { classify_avx2(p) },
        |x| unsafe { prefix_xor_clmul(x) },
        |end, newline| (end, newline)
    )
}

#[cfg(target_arch = "x86_64")]
fn skip_line_sse2(doc: &[u8], at: usize) -> Option<(usize, bool)> {
    container_loop!(
        doc,
        at,
        0,
        |p| unsafe { classify_sse2(p) },
        prefix_xor,
        |end, newline| (end, newline)
    )
}

fn skip_line_scalar(doc: &[u8], at: usize) -> Option<(usize, bool)> {
    container_loop!(
        doc,
        at,
        0,
        |p| unsafe { classify_scalar(p) },
        prefix_xor,
        |end, newline| (end, newline)
    )
}

/// Counts the members or elements of the container starting at `doc[at]` at skipping speed;
/// returns the offset after it and the count. Lenient like [`skip_value`]: a trailing comma
/// counts as another element.
pub fn count_container(doc: &[u8], at: usize) -> Result<(usize, u64), SyntaxError> {
    if !matches!(doc.get(at), Some(b'{' | b'[')) {
        return Err(SyntaxError::new(doc, at, "expected an object or an array"));
    }
    let found = match simd() {
        // SAFETY (each arm): the level is only chosen when the CPU has it.
        #[cfg(target_arch = "x86_64")]
        Simd::Avx512 => unsafe { count_container_avx512(doc, at) },
        #[cfg(target_arch = "x86_64")]
        Simd::Avx2 => unsafe { count_container_avx2(doc, at) },
        #[cfg(target_arch = "x86_64")]
        Simd::Sse2 => count_container_sse2(doc, at),
        _ => count_container_scalar(doc, at),
    };
    let (end, commas) = found.ok_or_else(|| {
        SyntaxError::new(
            doc,
            doc.len(),
            "unexpected end of input: unclosed container",
        )
    })?;
    // Empty when only whitespace lies between the brackets.
    let empty = doc[at + 1..end - 1]
        .iter()
        .all(|b| matches!(b, b' ' | b'\n' | b'\r' | b'\t'));
    Ok((end, if empty { 0 } else { commas + 1 }))
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,pclmulqdq")]
fn count_container_avx512(doc: &[u8], at: usize) -> Option<(usize, u64)> {
    counting_loop!(doc, at, |p| unsafe { classify_avx512(p) }, |x| unsafe {
        prefix_xor_clmul(x)
    })
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,pclmulqdq")]
fn count_container_avx2(doc: &[u8], at: usize) -> Option<(usize, u64)> {
    counting_loop!(doc, at, |p| unsafe { classify_avx2(p) }, |x| unsafe {
        prefix_xor_clmul(x)
    })
}

#[cfg(target_arch = "x86_64")]
fn count_container_sse2(doc: &[u8], at: usize) -> Option<(usize, u64)> {
    counting_loop!(doc, at, |p| unsafe { classify_sse2(p) }, prefix_xor)
}

fn count_container_scalar(doc: &[u8], at: usize) -> Option<(usize, u64)> {
    counting_loop!(doc, at, |p| unsafe { classify_scalar(p) }, prefix_xor)
}

/// Skips the object or array starting at `doc[at]`; returns the offset after its closing
/// bracket, or `None` if it never closes.
fn skip_container(doc: &[u8], at: usize) -> Option<usize> {
    scan_to_depth_zero(doc, at, 0)
}

/// From `from`, a position outside any string with `depth` containers open around it (just
/// after a value found `depth` levels down, say), returns the offset just past the bracket
/// that closes the outermost of them: the end of the root, at skipping speed. `None` if they
/// never close.
pub fn close_containers(doc: &[u8], from: usize, depth: usize) -> Option<usize> {
    if depth == 0 {
        return Some(from);
    }
    scan_to_depth_zero(doc, from, u32::try_from(depth).unwrap_or(u32::MAX))
}

fn scan_to_depth_zero(doc: &[u8], at: usize, depth: u32) -> Option<usize> {
    match simd() {
        // SAFETY (each arm): the level is only chosen when the CPU has it.
        #[cfg(target_arch = "x86_64")]
        Simd::Avx512 => unsafe { skip_container_avx512(doc, at, depth) },
        #[cfg(target_arch = "x86_64")]
        Simd::Avx2 => unsafe { skip_container_avx2(doc, at, depth) },
        #[cfg(target_arch = "x86_64")]
        Simd::Sse2 => skip_container_sse2(doc, at, depth),
        _ => skip_container_scalar(doc, at, depth),
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,pclmulqdq")]
fn skip_container_avx512(doc: &[u8], at: usize, depth: u32) -> Option<usize> {
    container_loop!(
        doc,
        at,
        depth,
        |p| unsafe { classify_avx512(p) },
        |x| unsafe { prefix_xor_clmul(x) },
        |end, _| end
    )
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,pclmulqdq")]
fn skip_container_avx2(doc: &[u8], at: usize, depth: u32) -> Option<usize> {
    container_loop!(
        doc,
        at,
        depth,
        |p| unsafe { classify_avx2(p) },
        |x| unsafe { prefix_xor_clmul(x) },
        |end, _| end
    )
}

#[cfg(target_arch = "x86_64")]
fn skip_container_sse2(doc: &[u8], at: usize, depth: u32) -> Option<usize> {
    container_loop!(
        doc,
        at,
        depth,
        |p| unsafe { classify_sse2(p) },
        prefix_xor,
        |end, _| end
    )
}

/// The portable fallback (and the oracle the SIMD classifiers are tested against).
fn skip_container_scalar(doc: &[u8], at: usize, depth: u32) -> Option<usize> {
    container_loop!(
        doc,
        at,
        depth,
        |p| unsafe { classify_scalar(p) },
        prefix_xor,
        |end, _| end
    )
}

/// # Safety
/// `p` must point to 64 readable bytes.
#[inline(always)]
unsafe fn classify_scalar(p: *const u8) -> Masks {
    // SAFETY: the caller guarantees 64 readable bytes.
    let block = unsafe { std::slice::from_raw_parts(p, 64) };
    let mut m = Masks {
        quote: 0,
        comma: 0,
        backslash: 0,
        open: 0,
        close: 0,
        newline: 0,
    };
    for (i, &b) in block.iter().enumerate() {
        let bit = 1u64 << i;
        match b {
            b'"' => m.quote |= bit,
            b',' => m.comma |= bit,
            b'\\' => m.backslash |= bit,
            b'{' | b'[' => m.open |= bit,
            b'}' | b']' => m.close |= bit,
            b'\n' => m.newline |= bit,
            _ => {}
        }
    }
    m
}

/// # Safety
/// `p` must point to 64 readable bytes and the CPU must support AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn classify_avx2(p: *const u8) -> Masks {
    use std::arch::x86_64::*;
    // SAFETY: the caller guarantees 64 readable bytes.
    let (lo, hi) = unsafe {
        (
            _mm256_loadu_si256(p.cast()),
            _mm256_loadu_si256(p.add(32).cast()),
        )
    };
    let mask = |v: __m256i, c: u8| -> u64 {
        _mm256_movemask_epi8(_mm256_cmpeq_epi8(v, _mm256_set1_epi8(c as i8))) as u32 as u64
    };
    // `{`|0x20 == `[`|0x20 == 0x7b and `}`|0x20 == `]`|0x20 == 0x7d, and no other byte maps there.
    let case = _mm256_set1_epi8(0x20);
    let (lo_f, hi_f) = (_mm256_or_si256(lo, case), _mm256_or_si256(hi, case));
    Masks {
        quote: mask(lo, b'"') | mask(hi, b'"') << 32,
        comma: mask(lo, b',') | mask(hi, b',') << 32,
        backslash: mask(lo, b'\\') | mask(hi, b'\\') << 32,
        open: mask(lo_f, 0x7b) | mask(hi_f, 0x7b) << 32,
        close: mask(lo_f, 0x7d) | mask(hi_f, 0x7d) << 32,
        newline: mask(lo, b'\n') | mask(hi, b'\n') << 32,
    }
}

/// # Safety
/// `p` must point to 64 readable bytes and the CPU must support AVX-512F and AVX-512BW.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw")]
#[inline]
unsafe fn classify_avx512(p: *const u8) -> Masks {
    use std::arch::x86_64::*;
    // SAFETY: the caller guarantees 64 readable bytes.
    let v = unsafe { _mm512_loadu_si512(p.cast()) };
    let is = |v: __m512i, c: u8| _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(c as i8));
    // Brackets folded as in `classify_avx2`.
    let folded = _mm512_or_si512(v, _mm512_set1_epi8(0x20));
    Masks {
        quote: is(v, b'"'),
        comma: is(v, b','),
        backslash: is(v, b'\\'),
        open: is(folded, 0x7b),
        close: is(folded, 0x7d),
        newline: is(v, b'\n'),
    }
}

/// # Safety
/// `p` must point to 64 readable bytes.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn classify_sse2(p: *const u8) -> Masks {
    use std::arch::x86_64::*;
    let mut m = Masks {
        quote: 0,
        comma: 0,
        backslash: 0,
        open: 0,
        close: 0,
        newline: 0,
    };
    // SAFETY: the caller guarantees 64 readable bytes; SSE2 is baseline on x86-64.
    unsafe {
        let case = _mm_set1_epi8(0x20);
        for k in 0..4 {
            let v = _mm_loadu_si128(p.add(16 * k).cast());
            let f = _mm_or_si128(v, case);
            let mask = |v: __m128i, c: u8| -> u64 {
                (_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(c as i8))) as u32 as u64)
                    << (16 * k)
            };
            m.quote |= mask(v, b'"');
            m.comma |= mask(v, b',');
            m.backslash |= mask(v, b'\\');
            m.open |= mask(f, 0x7b);
            m.close |= mask(f, 0x7d);
            m.newline |= mask(v, b'\n');
        }
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::Just;

    /// A byte-at-a-time reference for container ends.
    fn reference_end(doc: &[u8], at: usize) -> Option<usize> {
        let (mut depth, mut in_str, mut esc) = (0u32, false, false);
        // Like the block scanner, a backslash escapes the next byte even outside strings
        // (only possible in invalid JSON, where any balanced answer will do).
        for (i, &b) in doc.iter().enumerate().skip(at) {
            if esc {
                esc = false;
                // Escaping only hides quotes and backslashes from the block scanner.
                if b == b'"' || b == b'\\' {
                    continue;
                }
            }
            if b == b'\\' {
                esc = true;
                continue;
            }
            if in_str {
                if b == b'"' {
                    in_str = false;
                }
                continue;
            }
            match b {
                b'"' => in_str = true,
                b'{' | b'[' => depth += 1,
                b'}' | b']' => {
                    depth -= 1;
                    if depth == 0 {
                        return Some(i + 1);
                    }
                }
                _ => {}
            }
        }
        None
    }

    /// Every level this CPU can run, narrowest first.
    fn levels() -> Vec<Simd> {
        [Simd::Scalar, Simd::Sse2, Simd::Avx2, Simd::Avx512]
            .into_iter()
            .filter(|&l| l <= detected_simd())
            .collect()
    }

    /// The container end at each level this CPU has, by calling each path directly.
    fn all_ends(doc: &[u8], at: usize) -> Vec<Option<usize>> {
        let mut v = vec![skip_container(doc, at)];
        for level in levels() {
            v.push(match level {
                Simd::Scalar => skip_container_scalar(doc, at, 0),
                #[cfg(target_arch = "x86_64")]
                Simd::Sse2 => skip_container_sse2(doc, at, 0),
                #[cfg(target_arch = "x86_64")]
                Simd::Avx2 => unsafe { skip_container_avx2(doc, at, 0) },
                #[cfg(target_arch = "x86_64")]
                Simd::Avx512 => unsafe { skip_container_avx512(doc, at, 0) },
                #[allow(unreachable_patterns)]
                _ => unreachable!(),
            });
        }
        v
    }

    fn all_lines(doc: &[u8], at: usize) -> Vec<Option<(usize, bool)>> {
        let mut v = vec![skip_record_line(doc, at)];
        for level in levels() {
            v.push(match level {
                Simd::Scalar => skip_line_scalar(doc, at),
                #[cfg(target_arch = "x86_64")]
                Simd::Sse2 => skip_line_sse2(doc, at),
                #[cfg(target_arch = "x86_64")]
                Simd::Avx2 => unsafe { skip_line_avx2(doc, at) },
                #[cfg(target_arch = "x86_64")]
                Simd::Avx512 => unsafe { skip_line_avx512(doc, at) },
                #[allow(unreachable_patterns)]
                _ => unreachable!(),
            });
        }
        v
    }

    fn all_counts(doc: &[u8], at: usize) -> Vec<Option<(usize, u64)>> {
        let mut v = Vec::new();
        for level in levels() {
            v.push(match level {
                Simd::Scalar => count_container_scalar(doc, at),
                #[cfg(target_arch = "x86_64")]
                Simd::Sse2 => count_container_sse2(doc, at),
                #[cfg(target_arch = "x86_64")]
                Simd::Avx2 => unsafe { count_container_avx2(doc, at) },
                #[cfg(target_arch = "x86_64")]
                Simd::Avx512 => unsafe { count_container_avx512(doc, at) },
                #[allow(unreachable_patterns)]
                _ => unreachable!(),
            });
        }
        v
    }

    fn all_specials(doc: &[u8], from: usize) -> Vec<(usize, bool)> {
        let mut v = vec![find_string_special(doc, from)];
        for level in levels() {
            v.push(match level {
                Simd::Scalar => find_string_special_scalar(doc, from, false),
                #[cfg(target_arch = "x86_64")]
                Simd::Sse2 => find_string_special_sse2(doc, from, false),
                #[cfg(target_arch = "x86_64")]
                Simd::Avx2 => unsafe { find_string_special_avx2(doc, from, false) },
                #[cfg(target_arch = "x86_64")]
                Simd::Avx512 => unsafe { find_string_special_avx512(doc, from, false) },
                #[allow(unreachable_patterns)]
                _ => unreachable!(),
            });
        }
        v
    }

    #[test]
    fn levels_are_named_and_forcing_never_goes_past_the_cpu() {
        for level in [Simd::Scalar, Simd::Sse2, Simd::Avx2, Simd::Avx512] {
            assert_eq!(Simd::from_name(level.name()), Some(level));
        }
        assert_eq!(Simd::from_name("AVX2"), Some(Simd::Avx2));
        assert_eq!(Simd::from_name("neon"), None);
        // force_simd is process-wide: this test only reads what it would clamp to.
        assert!(levels().contains(&detected_simd()));
        assert!(simd() <= detected_simd());
    }

    #[test]
    fn skips_nested_containers_and_tricky_strings() {
        let cases: &[&str] = &[
            "{}",
            "[]",
            r#"{"a":[1,2,{"b":"}"}],"c":"\\"}"#,
            r#"["\\\"]", "]\\\\", "x\\\\\\\"]"]"#,
            r#"{"k":"a string with a { and [ and \" inside"}"#,
        ];
        for c in cases {
            let doc = format!("{c}  trailing");
            let expect = reference_end(doc.as_bytes(), 0);
            assert_eq!(expect, Some(c.len()), "{c}");
            for got in all_ends(doc.as_bytes(), 0) {
                assert_eq!(got, expect, "{c}");
            }
        }
    }

    #[test]
    fn long_backslash_runs_cross_block_boundaries() {
        for run in 0..140 {
            for pad in 0..70 {
                let doc = format!("[{}\"{}\\\"x\"]", " ".repeat(pad), "\\\\".repeat(run));
                let expect = reference_end(doc.as_bytes(), 0);
                assert!(expect.is_some());
                for got in all_ends(doc.as_bytes(), 0) {
                    assert_eq!(got, expect, "run {run} pad {pad}");
                }
            }
        }
    }

    #[test]
    fn unclosed_is_none_and_scalars_end_at_delimiters() {
        assert!(all_ends(b"[[1,2]", 0).iter().all(Option::is_none));
        assert!(all_ends(br#"{"a":"}"#, 0).iter().all(Option::is_none));
        assert_eq!(skip_value(b"123.5e4,", 0).unwrap(), 7);
        assert_eq!(skip_value(b"true]", 0).unwrap(), 4);
        assert_eq!(skip_value(br#""a\"b" "#, 0).unwrap(), 6);
        assert!(skip_value(br#""abc"#, 0).is_err());
        assert!(skip_value(b"   ", 0).is_err());
        assert!(skip_value(b"", 0).is_err());
    }

    #[test]
    fn closing_the_containers_around_a_position_finds_the_root_end() {
        let doc = br#"{"items":[{"id":1,"s":"]}"},{"id":2}],"meta":{"n":[1]}}  "#;
        // Just after `1`, the value of items[0].id: three containers are open.
        let after_id = doc.iter().position(|&b| b == b'1').unwrap() + 1;
        let root_end = skip_value(doc, 0).unwrap();
        assert_eq!(close_containers(doc, after_id, 3), Some(root_end));
        let items_end = doc.windows(2).position(|w| w == b"],").unwrap() + 1;
        assert_eq!(close_containers(doc, after_id, 2), Some(items_end));
        assert_eq!(close_containers(doc, root_end, 0), Some(root_end));
        assert_eq!(close_containers(&doc[..root_end - 1], after_id, 3), None);
    }

    #[test]
    fn a_record_line_skip_sees_line_breaks_up_to_its_end() {
        let mut cases: Vec<(String, usize, bool)> = Vec::new();
        for pad in [0usize, 1, 30, 62, 63, 64, 65, 130] {
            let body = format!("{{\"a\":\"{}\",\"b\":[1]}}", "x".repeat(pad));
            let n = body.len();
            cases.push((format!("{body}\n{{}}"), n, false));
            cases.push((body.clone(), n, false));
            let spread = body.replacen(',', ",\n", 1);
            cases.push((format!("{spread}\n"), n + 1, true));
            let in_string = body.replacen('x', "\n", 1);
            cases.push((in_string.clone(), n, pad > 0));
        }
        for (doc, end, newline) in &cases {
            let d = doc.as_bytes();
            let got = all_lines(d, 0);
            for g in got {
                assert_eq!(g, Some((*end, *newline)), "{doc:?}");
            }
            assert_eq!(skip_container(d, 0), Some(*end), "{doc:?}");
        }
        assert_eq!(skip_record_line(b"[1,\n2", 0), None);
    }

    #[test]
    fn deep_nesting_is_just_a_counter() {
        let n = 1_000_000;
        let doc = format!("{}{}", "[".repeat(n), "]".repeat(n));
        assert_eq!(skip_value(doc.as_bytes(), 0).unwrap(), 2 * n);
        assert_eq!(skip_value(doc.as_bytes(), 1).unwrap(), 2 * n - 1);
    }

    #[test]
    fn counting_members_and_elements() {
        let cases: &[(&str, u64)] = &[
            ("[]", 0),
            ("[ \r\n ]", 0),
            ("{}", 0),
            ("[1]", 1),
            ("[1,2,3]", 3),
            (r#"[{"a":1,"b":2},[3,4],"x,y",5]"#, 4),
            (r#"{"a":[1,2],"b":{"c":3,"d":4},"e,":"\","}"#, 3),
        ];
        for (doc, n) in cases {
            let mut padded = doc.to_string();
            // Long enough to cross block boundaries too.
            let long = format!("[{}]", vec![*doc; 40].join(","));
            assert_eq!(
                count_container(padded.as_bytes(), 0).unwrap(),
                (doc.len(), *n),
                "{doc}"
            );
            assert_eq!(
                count_container(long.as_bytes(), 0).unwrap(),
                (long.len(), 40),
                "{long}"
            );
            padded.push_str(" , ]");
            let counts = all_counts(padded.as_bytes(), 0);
            assert!(counts.windows(2).all(|w| w[0] == w[1]), "{counts:?}");
        }
        assert!(count_container(b"[1,2", 0).is_err());
        assert!(count_container(b"1", 0).is_err());
    }

    proptest::proptest! {
        #[test]
        fn simd_matches_reference(body in proptest::collection::vec(
            proptest::sample::select(b"{}[]\"\\ ax,:".to_vec()), 0..300)) {
            let mut doc = vec![b'['];
            doc.extend_from_slice(&body);
            let expect = reference_end(&doc, 0);
            for got in all_ends(&doc, 0) {
                proptest::prop_assert_eq!(got, expect);
            }
        }

        #[test]
        fn string_special_matches_scalar(body in proptest::collection::vec(proptest::num::u8::ANY, 0..100), from in 0usize..100) {
            let from = from.min(body.len());
            let want = find_string_special_scalar(&body, from, false);
            for got in all_specials(&body, from) {
                proptest::prop_assert_eq!(got, want);
            }
        }

        /// Long strings (the wide paths' case): mostly plain bytes, now and then a special or
        /// non-ASCII one, at every alignment.
        #[test]
        fn long_string_special_matches_scalar(
            body in proptest::collection::vec(
                proptest::prop_oneof![20 => proptest::sample::select(b"abcxyz 019".to_vec()),
                                      1 => proptest::num::u8::ANY], 0..600),
            from in 0usize..80,
        ) {
            let from = from.min(body.len());
            let want = find_string_special_scalar(&body, from, false);
            for got in all_specials(&body, from) {
                proptest::prop_assert_eq!(got, want);
            }
        }

        /// Generated documents with long strings, escapes and nesting, skipped and counted
        /// at every level.
        #[test]
        fn every_level_skips_and_counts_alike(
            parts in proptest::collection::vec(proptest::prop_oneof![
                Just("{\"k\":".to_string()), Just("}".to_string()), Just("[".to_string()),
                Just("]".to_string()), Just(",".to_string()), Just("\n".to_string()),
                "\"([a-z{}\\[\\],]|\\\\\\\\|\\\\\"){0,90}\"",
            ], 0..80),
        ) {
            let mut doc = b"[".to_vec();
            doc.extend(parts.concat().into_bytes());
            let ends = all_ends(&doc, 0);
            proptest::prop_assert!(ends.windows(2).all(|w| w[0] == w[1]), "{:?}", ends);
            proptest::prop_assert_eq!(ends[0], reference_end(&doc, 0));
            let lines = all_lines(&doc, 0);
            proptest::prop_assert!(lines.windows(2).all(|w| w[0] == w[1]), "{:?}", lines);
            let counts = all_counts(&doc, 0);
            proptest::prop_assert!(counts.windows(2).all(|w| w[0] == w[1]), "{:?}", counts);
        }
    }
}
