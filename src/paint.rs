//! JSON in colour for a terminal, in the manner of jq: `extract` and `shape` write through a
//! [`Painter`] when their output is coloured (`--color`, `NO_COLOR`, a terminal or a pager on
//! one; never for `extract -r`). It is a streaming writer: it recognises the tokens of the JSON
//! text passing through (strings, object keys, numbers, literals, brackets and punctuation) and
//! wraps each in an SGR sequence; every other byte — white space, a footer line — passes through
//! as it is, so the text without its escape sequences is byte for byte the plain output.
//!
//! Colours come from `SPILL_COLORS`, in the format of `JQ_COLORS`: colon-separated SGR
//! parameters for null, false, true, numbers, strings, arrays, objects and object keys, in that
//! order; fields left out keep their defaults (jq 1.7's).

use std::io::{self, Write};

/// The SGR parameters of each kind of token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Palette {
    /// null, false, true, numbers, strings, arrays, objects, object keys.
    fields: [String; 8],
}

/// jq 1.7's default colours (`JQ_COLORS="0;90:0;39:0;39:0;39:0;32:1;39:1;39:34;1"`).
pub const DEFAULT_COLORS: &str = "0;90:0;39:0;39:0;39:0;32:1;39:1;39:34;1";

const NULL: usize = 0;
const FALSE: usize = 1;
const TRUE: usize = 2;
const NUMBER: usize = 3;
const STRING: usize = 4;
const ARRAY: usize = 5;
const OBJECT: usize = 6;
const KEY: usize = 7;

impl Default for Palette {
    fn default() -> Palette {
        Palette::parse(DEFAULT_COLORS).expect("the default colours parse")
    }
}

impl Palette {
    /// Parses a `JQ_COLORS`-style specification over the defaults. Each field is digits and
    /// `;` only (at most 32 characters); an invalid one is an error naming it.
    pub fn parse(spec: &str) -> Result<Palette, String> {
        let mut fields: [String; 8] = if spec == DEFAULT_COLORS {
            Default::default()
        } else {
            Palette::default().fields
        };
        let parts: Vec<&str> = spec.split(':').collect();
        if parts.len() > fields.len() {
            return Err(format!(
                "{} fields, at most {} (null:false:true:numbers:strings:arrays:objects:objkeys)",
                parts.len(),
                fields.len()
            ));
        }
        for (i, part) in parts.into_iter().enumerate() {
            if part.len() > 32 || !part.bytes().all(|b| b.is_ascii_digit() || b == b';') {
                return Err(format!(
                    "field {} ({:?}) is not SGR parameters (digits and ;, e.g. 1;31)",
                    i + 1,
                    crate::diag::echo(part)
                ));
            }
            fields[i] = part.to_string();
        }
        Ok(Palette { fields })
    }
}

/// What the painter is in the middle of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Between tokens.
    Between,
    /// Inside a string; `escaped` after a backslash.
    InString { escaped: bool },
    /// A string has closed; white space after it is held until the next byte says whether it
    /// was an object key (`:`) or a value.
    AfterString,
    /// Inside a number or a literal, coloured as `field`.
    InWord { field: usize },
}

/// A writer that colours the JSON text written through it (see the module documentation).
pub struct Painter<W: Write> {
    inner: W,
    palette: Palette,
    state: State,
    /// The string being read (with its quotes) and the white space after it, until it is
    /// known to be a key or a value.
    held: Vec<u8>,
    held_space: Vec<u8>,
    /// Open containers, innermost last: `true` for objects (their `,` and `:` take the
    /// objects' colour, an array's `,` the arrays').
    open: Vec<bool>,
    out: Vec<u8>,
}

impl<W: Write> Painter<W> {
    /// Colours what is written to `inner` with `palette`.
    pub fn new(inner: W, palette: Palette) -> Painter<W> {
        Painter {
            inner,
            palette,
            state: State::Between,
            held: Vec::new(),
            held_space: Vec::new(),
            open: Vec::new(),
            out: Vec::with_capacity(64 * 1024),
        }
    }

    fn start(&mut self, field: usize) {
        self.out.extend_from_slice(b"\x1b[");
        self.out
            .extend_from_slice(self.palette.fields[field].as_bytes());
        self.out.push(b'm');
    }

    fn reset(&mut self) {
        self.out.extend_from_slice(b"\x1b[0m");
    }

    fn token(&mut self, field: usize, bytes: &[u8]) {
        self.start(field);
        self.out.extend_from_slice(bytes);
        self.reset();
    }

    /// Writes the held string as a key or a value, then the white space after it.
    fn release(&mut self, key: bool) {
        let held = std::mem::take(&mut self.held);
        self.token(if key { KEY } else { STRING }, &held);
        let space = std::mem::take(&mut self.held_space);
        self.out.extend_from_slice(&space);
        self.state = State::Between;
    }

    fn container(&self) -> usize {
        match self.open.last() {
            Some(true) => OBJECT,
            Some(false) => ARRAY,
            None => OBJECT,
        }
    }

    fn byte(&mut self, b: u8) {
        match self.state {
            State::InString { escaped } => {
                self.held.push(b);
                self.state = match (escaped, b) {
                    (true, _) => State::InString { escaped: false },
                    (false, b'\\') => State::InString { escaped: true },
                    (false, b'"') => State::AfterString,
                    (false, _) => State::InString { escaped: false },
                };
                return;
            }
            State::AfterString => match b {
                b' ' | b'\t' | b'\r' | b'\n' => {
                    self.held_space.push(b);
                    return;
                }
                b':' => self.release(true),
                _ => self.release(false),
            },
            State::InWord { field } => {
                let continues = match field {
                    NUMBER => matches!(b, b'0'..=b'9' | b'+' | b'-' | b'.' | b'e' | b'E'),
                    _ => b.is_ascii_lowercase(),
                };
                if continues {
                    self.out.push(b);
                    return;
                }
                self.reset();
                self.state = State::Between;
            }
            State::Between => {}
        }
        match b {
            b'"' => {
                self.held.push(b);
                self.state = State::InString { escaped: false };
            }
            b'{' => {
                self.open.push(true);
                self.token(OBJECT, b"{");
            }
            b'[' => {
                self.open.push(false);
                self.token(ARRAY, b"[");
            }
            b'}' | b']' => {
                let field = if b == b'}' { OBJECT } else { ARRAY };
                self.open.pop();
                self.token(field, &[b]);
            }
            b',' | b':' => {
                let field = self.container();
                self.token(field, &[b]);
            }
            b'-' | b'0'..=b'9' => {
                self.start(NUMBER);
                self.out.push(b);
                self.state = State::InWord { field: NUMBER };
            }
            b't' | b'f' | b'n' => {
                let field = match b {
                    b't' => TRUE,
                    b'f' => FALSE,
                    _ => NULL,
                };
                self.start(field);
                self.out.push(b);
                self.state = State::InWord { field };
            }
            // White space, line breaks between values, and any text that is not JSON.
            _ => self.out.push(b),
        }
    }

    fn drain(&mut self) -> io::Result<()> {
        if !self.out.is_empty() {
            self.inner.write_all(&self.out)?;
            self.out.clear();
        }
        Ok(())
    }

    /// Ends an unfinished token (a string never closed is written as a string) and flushes.
    pub fn finish(mut self) -> io::Result<W> {
        match self.state {
            State::InString { .. } | State::AfterString => self.release(false),
            State::InWord { .. } => self.reset(),
            State::Between => {}
        }
        self.state = State::Between;
        self.drain()?;
        self.inner.flush()?;
        Ok(self.inner)
    }
}

impl<W: Write> Write for Painter<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        for &b in buf {
            self.byte(b);
        }
        if self.out.len() >= 64 * 1024 {
            self.drain()?;
        }
        Ok(buf.len())
    }

    /// Writes what is complete; a string whose key-or-value role is not yet known stays held.
    fn flush(&mut self) -> io::Result<()> {
        if let State::InWord { .. } = self.state {
            self.reset();
            self.state = State::Between;
        }
        self.drain()?;
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paint(text: &str) -> String {
        let mut p = Painter::new(Vec::new(), Palette::default());
        p.write_all(text.as_bytes()).unwrap();
        String::from_utf8(p.finish().unwrap()).unwrap()
    }

    fn strip(text: &str) -> String {
        let mut out = String::new();
        let mut rest = text;
        while let Some(at) = rest.find("\x1b[") {
            out.push_str(&rest[..at]);
            let after = &rest[at + 2..];
            let end = after.find('m').unwrap();
            rest = &after[end + 1..];
        }
        out.push_str(rest);
        out
    }

    #[test]
    fn keys_strings_numbers_literals_and_brackets_take_their_colours() {
        let out = paint(r#"{"a": [1, -2.5e3, "x\"y", true, false, null]}"#);
        assert_eq!(
            out,
            "\x1b[1;39m{\x1b[0m\x1b[34;1m\"a\"\x1b[0m\x1b[1;39m:\x1b[0m \x1b[1;39m[\x1b[0m\
             \x1b[0;39m1\x1b[0m\x1b[1;39m,\x1b[0m \x1b[0;39m-2.5e3\x1b[0m\x1b[1;39m,\x1b[0m \
             \x1b[0;32m\"x\\\"y\"\x1b[0m\x1b[1;39m,\x1b[0m \x1b[0;39mtrue\x1b[0m\x1b[1;39m,\x1b[0m \
             \x1b[0;39mfalse\x1b[0m\x1b[1;39m,\x1b[0m \x1b[0;90mnull\x1b[0m\x1b[1;39m]\x1b[0m\
             \x1b[1;39m}\x1b[0m"
        );
    }

    #[test]
    fn stripping_the_colours_gives_the_plain_text_back() {
        for text in [
            "{\n  \"k\" : \"v\",\n  \"n\": [1,2]\n}\n",
            "[\"a\",\"b\"]\n{\"x\":null}\n",
            "\"unterminated",
            "lines 1–200 of 48,213 · next: --lines 201:400\n",
            "",
            "{\"é\":\"ü\\u00e9\"}",
        ] {
            assert_eq!(strip(&paint(text)), text, "{text:?}");
        }
    }

    #[test]
    fn a_key_is_known_even_when_its_colon_comes_in_a_later_write() {
        let mut p = Painter::new(Vec::new(), Palette::default());
        p.write_all(b"{\"long key\"  ").unwrap();
        p.flush().unwrap();
        p.write_all(b": 1}").unwrap();
        let out = String::from_utf8(p.finish().unwrap()).unwrap();
        assert!(
            out.contains("\x1b[34;1m\"long key\"\x1b[0m  \x1b[1;39m:"),
            "{out:?}"
        );
    }

    #[test]
    fn spill_colors_overrides_fields_in_jq_colors_order() {
        let p = Palette::parse("1;31::0;33").unwrap();
        assert_eq!(p.fields[NULL], "1;31");
        assert_eq!(p.fields[FALSE], "");
        assert_eq!(p.fields[TRUE], "0;33");
        assert_eq!(p.fields[KEY], "34;1");
        assert!(Palette::parse("1;31:x").unwrap_err().contains("field 2"));
        assert!(Palette::parse("1:2:3:4:5:6:7:8:9").is_err());
        assert!(Palette::parse("\x1b[31m").is_err());
    }
}
