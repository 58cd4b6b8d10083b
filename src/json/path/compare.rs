//! Exact decimal comparison of JSON numbers (any length, any exponent, no float rounding).

use std::cmp::Ordering;

/// A JSON number as an exact decimal: `0.d₁d₂… × 10^exp`, sign apart.
///
/// Comparing through `f64` would call `12345678901234567890123` and `12345678901234567890124`
/// equal and turn `1e400` into infinity; this keeps every digit and saturates only exponents
/// beyond ±2^60, which no real document has.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Decimal {
    neg: bool,
    /// ASCII digits without leading or trailing zeros; empty for zero.
    digits: Vec<u8>,
    exp: i64,
}

const EXP_LIMIT: i64 = 1 << 60;

impl Decimal {
    /// Reads a number written in the JSON/RFC 9535 grammar. Anything else yields some value
    /// without panicking (callers only pass validated text).
    pub fn parse(text: &str) -> Decimal {
        let b = text.as_bytes();
        let mut i = 0;
        let neg = b.first() == Some(&b'-');
        if neg {
            i += 1;
        }
        let mut digits = Vec::new();
        let mut int_len: i64 = 0;
        while i < b.len() && b[i].is_ascii_digit() {
            digits.push(b[i]);
            int_len += 1;
            i += 1;
        }
        if i < b.len() && b[i] == b'.' {
            i += 1;
            while i < b.len() && b[i].is_ascii_digit() {
                digits.push(b[i]);
                i += 1;
            }
        }
        let mut exp: i64 = 0;
        if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
            i += 1;
            let eneg = i < b.len() && b[i] == b'-';
            if i < b.len() && (b[i] == b'-' || b[i] == b'+') {
                i += 1;
            }
            while i < b.len() && b[i].is_ascii_digit() {
                exp = exp
                    .saturating_mul(10)
                    .saturating_add(i64::from(b[i] - b'0'))
                    .min(EXP_LIMIT);
                i += 1;
            }
            if eneg {
                exp = -exp;
            }
        }
        let lead = digits.iter().take_while(|&&d| d == b'0').count();
        let trail = digits[lead..]
            .iter()
            .rev()
            .take_while(|&&d| d == b'0')
            .count();
        digits.truncate(digits.len() - trail);
        digits.drain(..lead);
        if digits.is_empty() {
            return Decimal {
                neg: false,
                digits,
                exp: 0,
            };
        }
        Decimal {
            neg,
            digits,
            exp: exp + int_len - lead as i64,
        }
    }

    /// The value of a count or length.
    pub fn from_usize(n: usize) -> Decimal {
        Decimal::parse(&n.to_string())
    }

    fn signum(&self) -> i8 {
        if self.digits.is_empty() {
            0
        } else if self.neg {
            -1
        } else {
            1
        }
    }
}

impl Ord for Decimal {
    fn cmp(&self, other: &Self) -> Ordering {
        let (a, b) = (self.signum(), other.signum());
        if a != b || a == 0 {
            return a.cmp(&b);
        }
        // Same sign, both non-zero: compare magnitudes, then flip for negatives.
        let magnitude = self
            .exp
            .cmp(&other.exp)
            .then_with(|| self.digits.cmp(&other.digits));
        if a < 0 {
            magnitude.reverse()
        } else {
            magnitude
        }
    }
}

impl PartialOrd for Decimal {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

#[cfg(test)]
mod tests {
    use super::Decimal;
    use std::cmp::Ordering::*;

    fn c(a: &str, b: &str) -> std::cmp::Ordering {
        Decimal::parse(a).cmp(&Decimal::parse(b))
    }

    #[test]
    fn equal_values_written_differently() {
        assert_eq!(c("1", "1.0"), Equal);
        assert_eq!(c("1", "1e0"), Equal);
        assert_eq!(c("100", "1E2"), Equal);
        assert_eq!(c("0.05", "5e-2"), Equal);
        assert_eq!(c("-0", "0"), Equal);
        assert_eq!(c("-0.0", "0e10"), Equal);
        assert_eq!(c("1.50e-10", "0.00000000015"), Equal);
    }

    #[test]
    fn orders_exactly_beyond_f64() {
        assert_eq!(
            c("12345678901234567890123", "12345678901234567890124"),
            Less
        );
        assert_eq!(c("1e400", "1e399"), Greater);
        assert_eq!(c("-1e400", "1"), Less);
        assert_eq!(c("-2", "-10"), Greater);
        assert_eq!(c("0.1", "0.09"), Greater);
        assert_eq!(c("1e-400", "0"), Greater);
        assert_eq!(c("-1e-400", "0"), Less);
        assert_eq!(c("9007199254740993", "9007199254740992"), Greater);
        assert_eq!(c("1e99999999999999999999999", "1e400"), Greater);
    }

    #[test]
    fn counts_compare_with_literals() {
        assert_eq!(Decimal::from_usize(3).cmp(&Decimal::parse("3.0")), Equal);
        assert_eq!(Decimal::from_usize(0).cmp(&Decimal::parse("-0")), Equal);
    }
}
