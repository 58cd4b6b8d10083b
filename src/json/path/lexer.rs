//! The character level of the query grammar: whitespace, names, string and number literals.

use super::normalized::is_name_first;

/// A syntax error before it is attached to the query text: a byte offset and a message.
#[derive(Debug, Clone)]
pub(crate) struct Syn {
    pub offset: usize,
    pub message: String,
}

pub(crate) type SynResult<T> = Result<T, Syn>;

/// The largest magnitude an index may have: I-JSON's exact integer range, ±(2^53−1).
pub(crate) const MAX_INDEX: i64 = (1 << 53) - 1;

/// A position in the query text with the token-level scanners.
pub(crate) struct Cursor<'a> {
    pub src: &'a str,
    pub pos: usize,
}

impl<'a> Cursor<'a> {
    pub fn new(src: &'a str) -> Self {
        Cursor { src, pos: 0 }
    }

    pub fn rest(&self) -> &'a str {
        &self.src[self.pos..]
    }

    pub fn peek(&self) -> Option<u8> {
        self.src.as_bytes().get(self.pos).copied()
    }

    pub fn peek_char(&self) -> Option<char> {
        self.rest().chars().next()
    }

    pub fn at_end(&self) -> bool {
        self.pos >= self.src.len()
    }

    /// Consumes `b` if it is next.
    pub fn eat(&mut self, b: u8) -> bool {
        if self.peek() == Some(b) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    /// Consumes `s` if it is next.
    pub fn eat_str(&mut self, s: &str) -> bool {
        if self.rest().starts_with(s) {
            self.pos += s.len();
            true
        } else {
            false
        }
    }

    /// Skips RFC 9535 blank space (space, tab, LF, CR); true if any was skipped.
    pub fn skip_ws(&mut self) -> bool {
        let start = self.pos;
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.pos += 1;
        }
        self.pos > start
    }

    pub fn err<T>(&self, offset: usize, message: impl Into<String>) -> SynResult<T> {
        Err(Syn {
            offset,
            message: message.into(),
        })
    }

    /// A description of the next character for "expected …, found …" messages.
    pub fn found(&self) -> String {
        match self.peek_char() {
            None => "the end of the query".to_string(),
            Some(c) if c.is_control() => format!("{:?}", c),
            Some(c) => format!("'{c}'"),
        }
    }

    /// Member-name shorthand: `name-first *name-char`.
    pub fn name(&mut self) -> SynResult<String> {
        let start = self.pos;
        match self.peek_char() {
            Some(c) if is_name_first(c) => self.pos += c.len_utf8(),
            _ => {
                return self.err(
                    start,
                    format!(
                        "expected a member name, '*' or '[' after '.', found {}",
                        self.found()
                    ),
                );
            }
        }
        while let Some(c) = self.peek_char() {
            if is_name_first(c) || c.is_ascii_digit() {
                self.pos += c.len_utf8();
            } else {
                break;
            }
        }
        Ok(self.src[start..self.pos].to_string())
    }

    /// A string literal in single or double quotes, with the RFC 9535 escapes.
    pub fn string_literal(&mut self) -> SynResult<String> {
        let start = self.pos;
        let quote = match self.peek() {
            Some(q @ (b'\'' | b'"')) => q as char,
            _ => return self.err(start, "expected a string literal"),
        };
        self.pos += 1;
        let mut out = String::new();
        loop {
            let at = self.pos;
            let Some(c) = self.peek_char() else {
                return self.err(start, "unterminated string literal");
            };
            self.pos += c.len_utf8();
            match c {
                c if c == quote => return Ok(out),
                '\\' => out.push(self.escape(at, quote)?),
                c if (c as u32) < 0x20 => {
                    return self.err(
                        at,
                        format!(
                            "control character U+{:04X} must be escaped in a string literal",
                            c as u32
                        ),
                    );
                }
                c => out.push(c),
            }
        }
    }

    /// The character after a backslash at `at`.
    fn escape(&mut self, at: usize, quote: char) -> SynResult<char> {
        let Some(e) = self.peek_char() else {
            return self.err(at, "unterminated escape sequence");
        };
        self.pos += e.len_utf8();
        Ok(match e {
            'b' => '\u{8}',
            'f' => '\u{c}',
            'n' => '\n',
            'r' => '\r',
            't' => '\t',
            '/' => '/',
            '\\' => '\\',
            q if q == quote => q,
            'u' => {
                let hi = self.hex4(at)?;
                if (0xDC00..0xE000).contains(&hi) {
                    return self.err(at, "lone low surrogate in \\u escape");
                }
                if (0xD800..0xDC00).contains(&hi) {
                    let low_at = self.pos;
                    if !self.eat_str("\\u") {
                        return self.err(
                            at,
                            "high surrogate must be followed by a \\u escaped low surrogate",
                        );
                    }
                    let lo = self.hex4(low_at)?;
                    if !(0xDC00..0xE000).contains(&lo) {
                        return self.err(low_at, "expected a low surrogate (\\uDC00-\\uDFFF)");
                    }
                    let c = 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00);
                    return Ok(char::from_u32(c).expect("surrogate pair decodes to a scalar"));
                }
                char::from_u32(hi).expect("non-surrogate below 0x10000 is a scalar value")
            }
            _ => {
                return self.err(
                    at,
                    format!(
                        "invalid escape '\\{e}' (valid: \\b \\f \\n \\r \\t \\/ \\\\ \\{quote} \\uXXXX)"
                    ),
                );
            }
        })
    }

    /// Four hex digits of a `\u` escape that started at `at`.
    fn hex4(&mut self, at: usize) -> SynResult<u32> {
        let mut v = 0u32;
        for _ in 0..4 {
            match self.peek().and_then(|b| (b as char).to_digit(16)) {
                Some(d) => {
                    v = v * 16 + d;
                    self.pos += 1;
                }
                None => return self.err(at, "\\u must be followed by four hex digits"),
            }
        }
        Ok(v)
    }

    /// An RFC 9535 `int` (index or slice bound): no leading zeros, no `-0`, within ±(2^53−1).
    pub fn int(&mut self) -> SynResult<i64> {
        let start = self.pos;
        let neg = self.eat(b'-');
        let digits_start = self.pos;
        while matches!(self.peek(), Some(b'0'..=b'9')) {
            self.pos += 1;
        }
        let digits = &self.src[digits_start..self.pos];
        if digits.is_empty() {
            return self.err(
                start,
                format!("expected an integer, found {}", self.found()),
            );
        }
        if digits.len() > 1 && digits.starts_with('0') {
            return self.err(start, "integers must not have leading zeros");
        }
        if neg && digits == "0" {
            return self.err(start, "-0 is not a valid index; use 0");
        }
        let magnitude: i64 = match digits.parse::<i64>() {
            Ok(v) if v <= MAX_INDEX => v,
            _ => {
                return self.err(
                    start,
                    "integer out of range (indexes are limited to ±9007199254740991)",
                );
            }
        };
        Ok(if neg { -magnitude } else { magnitude })
    }

    /// A number literal (RFC 9535 `number`); returns its text.
    pub fn number(&mut self) -> SynResult<&'a str> {
        let start = self.pos;
        self.eat(b'-');
        let int_start = self.pos;
        while matches!(self.peek(), Some(b'0'..=b'9')) {
            self.pos += 1;
        }
        let int = &self.src[int_start..self.pos];
        if int.is_empty() {
            return self.err(start, format!("expected a number, found {}", self.found()));
        }
        if int.len() > 1 && int.starts_with('0') {
            return self.err(start, "numbers must not have leading zeros");
        }
        if self.peek() == Some(b'.') {
            self.pos += 1;
            let frac_start = self.pos;
            while matches!(self.peek(), Some(b'0'..=b'9')) {
                self.pos += 1;
            }
            if self.pos == frac_start {
                return self.err(self.pos, "expected digits after the decimal point");
            }
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.pos += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.pos += 1;
            }
            let exp_start = self.pos;
            while matches!(self.peek(), Some(b'0'..=b'9')) {
                self.pos += 1;
            }
            if self.pos == exp_start {
                return self.err(self.pos, "expected digits in the exponent");
            }
        }
        Ok(&self.src[start..self.pos])
    }
}
