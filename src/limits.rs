//! Every bound and default of spill, documented once, plus the parsers and formatters for sizes,
//! durations and counts that the command line and the outputs share.

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

/// Default `extract --max-items`: elements or members shown per container, and nodes per list.
pub const EXTRACT_MAX_ITEMS: usize = 50;
/// Default `extract --max-depth`: container levels shown below a selected value.
pub const EXTRACT_MAX_DEPTH: usize = 8;
/// Default `extract --max-string`: characters shown per string.
pub const EXTRACT_MAX_STRING: usize = 1000;
/// Default `extract --max-bytes`: the size of the whole output (0 lifts every bound).
pub const EXTRACT_MAX_BYTES: u64 = 16 * 1024;
/// Default `search --limit`: occurrences shown per page.
pub const SEARCH_LIMIT: u64 = 20;
/// Default `search --max-columns`: longer lines are shown as a window around the match.
pub const SEARCH_MAX_COLUMNS: usize = 300;
/// Default `search --max-bytes`: the most bytes of rows one page shows (0 or `--unbounded`:
/// no limit), so that `--max-columns 0` on giant lines or `-C` of millions stays bounded.
pub const SEARCH_MAX_BYTES: u64 = 1024 * 1024;

/// Parses a size: plain bytes or a case-insensitive binary suffix (`16K`, `16KB`, `16KiB`, `1M`, `1G`).
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
        .ok_or_else(|| format!("invalid size {text:?}: too large"))
}

/// Parses a duration: a whole number with `s`, `m`, `h` or `d` (`90s`, `30m`, `24h`, `7d`).
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let t = text.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (digits, unit) = t.split_at(split);
    let secs_per = match unit {
        "s" => 1,
        "m" => 60,
        "h" => 3600,
        "d" => 86400,
        _ => {
            return Err(format!(
                "invalid duration {text:?}: expected a number with s, m, h or d (90s, 30m, 24h, 7d)"
            ));
        }
    };
    digits
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(secs_per))
        .map(Duration::from_secs)
        .ok_or_else(|| format!("invalid duration {text:?}: expected a number with s, m, h or d"))
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
