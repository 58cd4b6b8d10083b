//! Human formatting of sizes (`277.8 KiB`) and counts (`1,250`) for summaries and type strings.
//!
//! Private stand-ins until the shared helpers of `src/limits.rs` are on main.

/// `512 B`, `277.8 KiB`, `1.2 MiB`, `3.0 GiB`: binary multiples, one decimal, locale-free.
pub(crate) fn size(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["KiB", "MiB", "GiB", "TiB"];
    if bytes < 1024 {
        return format!("{bytes} B");
    }
    let mut v = bytes as f64 / 1024.0;
    let mut unit = 0;
    // Move up a unit when rounding to one decimal would print 1024.0.
    while v >= 1023.95 && unit + 1 < UNITS.len() {
        v /= 1024.0;
        unit += 1;
    }
    format!("{v:.1} {}", UNITS[unit])
}

/// `1,250`: digits grouped by commas, as prose counts are written.
pub(crate) fn count(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_counts() {
        assert_eq!(size(0), "0 B");
        assert_eq!(size(1023), "1023 B");
        assert_eq!(size(284_467), "277.8 KiB");
        assert_eq!(size(1024 * 1024 - 1), "1.0 MiB");
        assert_eq!(size(3 << 30), "3.0 GiB");
        assert_eq!(count(0), "0");
        assert_eq!(count(999), "999");
        assert_eq!(count(1250), "1,250");
        assert_eq!(count(1_234_567), "1,234,567");
    }
}
