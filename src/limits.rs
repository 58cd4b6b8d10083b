//! Every bound and default of spill, documented once, plus the parsers and formatters for sizes,
//! durations and counts that the command line and the outputs share.
//!
//! # The range of every number
//!
//! Every size, count and duration a flag or a `SPILL_*` variable takes is parsed here, into a
//! range the code can add to without overflowing: sizes up to [`MAX_SIZE`] (1 PiB), counts up
//! to [`MAX_COUNT`] (10^15), durations up to [`MAX_DURATION`] (36500d, 100 years). A larger
//! value is refused with a message that names the maximum (exit 2; `wrap` warns and keeps its
//! default for an environment value, so that configuration never loses its input). Both numeric
//! maxima are below 2^53, so every value is also exact in a JSON number.

use std::time::Duration;

/// Default `--max-inline`: outputs up to this many bytes (inclusive) pass through untouched.
pub const MAX_INLINE: u64 = 16 * 1024;
/// Default `--preview`: the budget shared by an envelope's preview and signals.
pub const PREVIEW: u64 = 2 * 1024;
/// The smallest envelope budget: the envelope fits in `max(--max-inline, ENVELOPE_FLOOR)`.
pub const ENVELOPE_FLOOR: u64 = 4 * 1024;
/// A `-` source is buffered in memory up to this size, then spooled to an unlinked temporary file.
pub const STDIN_BUFFER: u64 = 64 * 1024 * 1024;
/// A stream (stdin, a FIFO, a device) is read this far past what a `cat` range needs, so
/// that the footer of a typical piped output still gives its exact length; then reading stops.
pub const STREAM_LOOKAHEAD: u64 = 1024 * 1024;
/// Default `--ttl`: entries expire this long after their last access.
pub const TTL: Duration = Duration::from_secs(24 * 3600);
/// Default `--quota`: the most bytes one store root holds.
pub const QUOTA: u64 = 1024 * 1024 * 1024;
/// Default `--max-file`: a larger payload is stored as its head, a marker and its tail.
pub const MAX_FILE: u64 = 256 * 1024 * 1024;
/// Default `--turn-budget`: the most bytes one turn (`--turn`) passes through inline.
pub const TURN_BUDGET: u64 = 64 * 1024;
/// `cat` without a range shows at most this many lines ...
pub const CAT_LINES: u64 = 200;
/// ... and at most this many bytes.
pub const CAT_BYTES: u64 = 16 * 1024;
/// Default `cat --max-bytes`: the cap on an explicit range.
pub const CAT_MAX_BYTES: u64 = 1024 * 1024;
/// Default `cat --max-columns`: longer lines are cut with a marker unless `--raw`.
pub const CAT_MAX_COLUMNS: usize = 2000;
/// Default `mcp proxy --timeout`: a request the downstream server has not answered after this
/// long gets a JSON-RPC error.
pub const PROXY_TIMEOUT: Duration = Duration::from_secs(10 * 60);

/// Default `extract --max-items`: elements or members shown per container, and nodes per list.
pub const EXTRACT_MAX_ITEMS: usize = 50;
/// Default `extract --max-depth`: container levels shown below a selected value.
pub const EXTRACT_MAX_DEPTH: usize = 8;
/// Default `extract --max-string`: characters shown per string.
pub const EXTRACT_MAX_STRING: usize = 1000;
/// Default `extract --max-bytes`: the size of the whole output (0 lifts every bound).
pub const EXTRACT_MAX_BYTES: u64 = 16 * 1024;
/// Default `shape --max-depth`: container levels shown in a skeleton.
pub const SHAPE_MAX_DEPTH: usize = 4;
/// Default `shape --max-bytes`: the size a skeleton never exceeds.
pub const SHAPE_MAX_BYTES: u64 = 1024;
/// Default `search --limit`: occurrences shown per page.
pub const SEARCH_LIMIT: u64 = 20;
/// Default `search --max-columns`: longer lines are shown as a window around the match.
pub const SEARCH_MAX_COLUMNS: usize = 300;
/// Default `search --max-bytes`: the most bytes of rows one page shows (0 or `--unbounded`:
/// no limit), so that `--max-columns 0` on giant lines or `-C` of millions stays bounded.
pub const SEARCH_MAX_BYTES: u64 = 1024 * 1024;

/// Default `search --all --max-outputs`: the stored outputs one call reads at most (newest
/// first; 0: no limit), so a search of a scope of thousands stays one bounded call.
pub const SEARCH_MAX_OUTPUTS: usize = 100;

/// The largest size accepted anywhere: 1 PiB (2^50 bytes, written `1024T`).
pub const MAX_SIZE: u64 = 1 << 50;
/// The largest count accepted anywhere (lines, matches, items, columns, context lines): 10^15.
pub const MAX_COUNT: u64 = 1_000_000_000_000_000;
/// The longest duration accepted anywhere (`--ttl`, `--timeout`): 36500 days, about 100 years.
pub const MAX_DURATION: Duration = Duration::from_secs(36_500 * 86_400);

/// Parses a size: plain bytes or a case-insensitive binary suffix (`16K`, `16KB`, `16KiB`, `1M`,
/// `1G`, `1T`), at most [`MAX_SIZE`].
pub fn parse_size(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (digits, suffix) = t.split_at(split);
    if digits.is_empty() {
        return Err(format!(
            "invalid size {text:?}: expected a number such as 16384, 16K or 1MiB"
        ));
    }
    let shift = match suffix.to_ascii_lowercase().as_str() {
        "" | "b" => 0,
        "k" | "kb" | "kib" => 10,
        "m" | "mb" | "mib" => 20,
        "g" | "gb" | "gib" => 30,
        "t" | "tb" | "tib" => 40,
        _ => {
            return Err(format!(
                "invalid size {text:?}: unknown suffix {suffix:?} (use K, M, G, KiB, MiB, GiB)"
            ));
        }
    };
    digits
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(1u64 << shift))
        .filter(|&n| n <= MAX_SIZE)
        .ok_or_else(|| format!("invalid size {text:?}: too large (at most 1024T, 2^50 bytes)"))
}

/// Parses a count: a whole number from 0 to [`MAX_COUNT`], into any integer type that holds it
/// (`usize` on every supported platform is 64 bits).
pub fn parse_count<T: TryFrom<u64>>(text: &str) -> Result<T, String> {
    let t = text.trim();
    if t.is_empty() || !t.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!(
            "invalid count {text:?}: expected a whole number such as 20"
        ));
    }
    t.parse::<u64>()
        .ok()
        .filter(|&n| n <= MAX_COUNT)
        .and_then(|n| T::try_from(n).ok())
        .ok_or_else(|| {
            format!("invalid count {text:?}: too large (at most 1,000,000,000,000,000, 10^15)")
        })
}

/// Parses a duration: a whole number with `s`, `m`, `h` or `d` (`90s`, `30m`, `24h`, `7d`), at
/// most [`MAX_DURATION`].
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let t = text.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (digits, unit) = t.split_at(split);
    let secs_per = match unit {
        _ if digits.is_empty() => 0,
        "s" => 1,
        "m" => 60,
        "h" => 3600,
        "d" => 86400,
        _ => 0,
    };
    if secs_per == 0 {
        return Err(format!(
            "invalid duration {text:?}: expected a number with s, m, h or d (90s, 30m, 24h, 7d)"
        ));
    }
    digits
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(secs_per))
        .map(Duration::from_secs)
        .filter(|&d| d <= MAX_DURATION)
        .ok_or_else(|| {
            format!("invalid duration {text:?}: too large (at most 36500d, about 100 years)")
        })
}

/// Formats a byte count for people: `512 B`, `277.8 KiB`, `1.0 GiB` (one decimal, locale-free).
pub fn human_size(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["KiB", "MiB", "GiB", "TiB"];
    if bytes < 1024 {
        return format!("{bytes} B");
    }
    let mut value = bytes as f64 / 1024.0;
    let mut unit = 0;
    // Move up a unit when rounding to one decimal would print 1024.0.
    while value >= 1023.95 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS[unit])
}

/// Spells a size the way a flag takes it, in the largest binary unit that divides it exactly:
/// `16KiB`, `256MiB`, `1GiB`, or plain bytes (`1000`). The help text renders the defaults with
/// it, so they are written once, here.
pub fn flag_size(bytes: u64) -> String {
    const UNITS: [(&str, u32); 4] = [("TiB", 40), ("GiB", 30), ("MiB", 20), ("KiB", 10)];
    for (unit, shift) in UNITS {
        if bytes != 0 && bytes.trailing_zeros() >= shift {
            return format!("{}{unit}", bytes >> shift);
        }
    }
    bytes.to_string()
}

/// [`flag_size`] for prose, the number apart from its unit: `16 KiB`, `1 MiB`, `1000 bytes`.
pub fn prose_size(bytes: u64) -> String {
    let flag = flag_size(bytes);
    match flag.find(|c: char| !c.is_ascii_digit()) {
        Some(unit) => format!("{} {}", &flag[..unit], &flag[unit..]),
        None => format!("{flag} bytes"),
    }
}

/// Formats a count for prose with thousands separators: `1,250`.
pub fn group_digits(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Formats a duration as the largest whole unit that divides it (`90s`, `30m`, `24h`, `7d`).
pub fn human_duration(d: Duration) -> String {
    let s = d.as_secs();
    match s {
        0 => "0s".to_string(),
        _ if s.is_multiple_of(86400) => format!("{}d", s / 86400),
        _ if s.is_multiple_of(3600) => format!("{}h", s / 3600),
        _ if s.is_multiple_of(60) => format!("{}m", s / 60),
        _ => format!("{s}s"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flag_sizes_parse_back() {
        for (bytes, text) in [
            (0, "0"),
            (1000, "1000"),
            (1024, "1KiB"),
            (PREVIEW, "2KiB"),
            (MAX_INLINE, "16KiB"),
            (TURN_BUDGET, "64KiB"),
            (SEARCH_MAX_BYTES, "1MiB"),
            (MAX_FILE, "256MiB"),
            (QUOTA, "1GiB"),
            (3 << 40, "3TiB"),
            (1536, "1536"),
        ] {
            assert_eq!(flag_size(bytes), text);
            assert_eq!(parse_size(text), Ok(bytes));
        }
        assert_eq!(prose_size(CAT_BYTES), "16 KiB");
        assert_eq!(prose_size(QUOTA), "1 GiB");
        assert_eq!(prose_size(1000), "1000 bytes");
    }

    #[test]
    fn sizes_accept_every_documented_form() {
        for (text, want) in [
            ("16384", 16384),
            ("16K", 16384),
            ("16kb", 16384),
            ("16KiB", 16384),
            ("1M", 1 << 20),
            ("1MiB", 1 << 20),
            ("1G", 1 << 30),
            ("0", 0),
            ("7b", 7),
        ] {
            assert_eq!(parse_size(text), Ok(want), "{text}");
        }
        for bad in [
            "",
            "K",
            "1.5M",
            "-1",
            "12X",
            "99999999999999999999",
            "16777216T",
        ] {
            assert!(parse_size(bad).is_err(), "{bad}");
        }
        assert_eq!(parse_size("1024T"), Ok(MAX_SIZE));
        for huge in ["1025T", "18446744073709551615", "1125899906842625"] {
            let e = parse_size(huge).unwrap_err();
            assert!(e.contains("at most 1024T"), "{huge}: {e}");
        }
    }

    #[test]
    fn counts_are_whole_numbers_up_to_the_maximum() {
        assert_eq!(parse_count::<u64>("0"), Ok(0));
        assert_eq!(parse_count::<usize>(" 20 "), Ok(20));
        assert_eq!(parse_count::<u64>("1000000000000000"), Ok(MAX_COUNT));
        for huge in [
            "1000000000000001",
            "18446744073709551615",
            "99999999999999999999",
        ] {
            let e = parse_count::<usize>(huge).unwrap_err();
            assert!(e.contains("at most 1,000,000,000,000,000"), "{huge}: {e}");
        }
        for bad in ["", "-1", "+3", "1e3", "2K", "0x10"] {
            let e = parse_count::<u64>(bad).unwrap_err();
            assert!(e.contains("whole number"), "{bad}: {e}");
        }
    }

    #[test]
    fn durations_accept_every_documented_form() {
        assert_eq!(parse_duration("90s"), Ok(Duration::from_secs(90)));
        assert_eq!(parse_duration("30m"), Ok(Duration::from_secs(1800)));
        assert_eq!(parse_duration("24h"), Ok(Duration::from_secs(86400)));
        assert_eq!(parse_duration("7d"), Ok(Duration::from_secs(7 * 86400)));
        for bad in ["", "10", "h", "1.5h", "10w", "-3s"] {
            assert!(parse_duration(bad).is_err(), "{bad}");
        }
        assert_eq!(parse_duration("36500d"), Ok(MAX_DURATION));
        for huge in ["36501d", "18446744073709551615s", "99999999999999999999s"] {
            let e = parse_duration(huge).unwrap_err();
            assert!(e.contains("at most 36500d"), "{huge}: {e}");
        }
        assert_eq!(human_duration(Duration::from_secs(86400)), "1d");
        assert_eq!(human_duration(Duration::from_secs(90)), "90s");
    }

    #[test]
    fn human_sizes_use_one_decimal_and_binary_units() {
        assert_eq!(human_size(0), "0 B");
        assert_eq!(human_size(1023), "1023 B");
        assert_eq!(human_size(1024), "1.0 KiB");
        assert_eq!(human_size(284_467), "277.8 KiB");
        assert_eq!(human_size(1 << 30), "1.0 GiB");
        assert_eq!(human_size((1 << 20) - 1), "1.0 MiB");
    }

    #[test]
    fn counts_are_grouped_by_thousands() {
        assert_eq!(group_digits(0), "0");
        assert_eq!(group_digits(999), "999");
        assert_eq!(group_digits(1250), "1,250");
        assert_eq!(group_digits(1_234_567), "1,234,567");
    }
}
