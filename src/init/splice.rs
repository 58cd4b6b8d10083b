//! A span-aware reading of a JSON settings file (JSONC, with `//` and `/* */` comments, for
//! Gemini CLI), so that spill's entries are spliced into the user's text and cut out of it
//! again without re-serialising any other byte: numbers keep their spelling, strings their
//! escapes, the file its indentation, comments and key order.
//!
//! Validity is serde_json's verdict over the text with its comments blanked out (each comment
//! byte but newlines turned into a space, so every offset and line:column stays the file's);
//! the scanner here only locates values in text already known to be valid.

use serde_json::Value;

/// A value's place in the text: `start..end` are its bytes.
#[derive(Debug)]
pub struct Node {
    /// The offset of the value's first byte.
    pub start: usize,
    /// The offset just past its last byte.
    pub end: usize,
    /// What it is.
    pub kind: Kind,
}

/// A located value's structure.
#[derive(Debug)]
pub enum Kind {
    /// An object's members, in the file's order (duplicates kept).
    Object(Vec<Member>),
    /// An array's elements.
    Array(Vec<Node>),
    /// A string, number, `true`, `false` or `null`.
    Scalar,
}

/// An object member: its decoded key, where the key starts and ends, and the value.
#[derive(Debug)]
pub struct Member {
    /// The key, decoded.
    pub key: String,
    /// The offset of the key's opening quote: the member's first byte.
    pub start: usize,
    /// The offset just past the key's closing quote.
    pub key_end: usize,
    /// The member's value.
    pub value: Node,
}

impl Node {
    /// The members of an object (none for anything else).
    pub fn members(&self) -> &[Member] {
        match &self.kind {
            Kind::Object(m) => m,
            _ => &[],
        }
    }

    /// The elements of an array (none for anything else).
    pub fn elements(&self) -> &[Node] {
        match &self.kind {
            Kind::Array(e) => e,
            _ => &[],
        }
    }

    /// The member a JSON parser would read for `key`: the last of that name.
    pub fn get(&self, key: &str) -> Option<&Member> {
        self.members().iter().rev().find(|m| m.key == key)
    }

    /// The position of the member [`get`](Self::get) reads.
    pub fn index(&self, key: &str) -> Option<usize> {
        self.members().iter().rposition(|m| m.key == key)
    }

    /// How many items (members or elements) the value holds.
    pub fn len(&self) -> usize {
        match &self.kind {
            Kind::Object(m) => m.len(),
            Kind::Array(e) => e.len(),
            Kind::Scalar => 0,
        }
    }

    /// The span of item `i`: a member from its key to the end of its value.
    fn item(&self, i: usize) -> (usize, usize) {
        match &self.kind {
            Kind::Object(m) => (m[i].start, m[i].value.end),
            Kind::Array(e) => (e[i].start, e[i].end),
            Kind::Scalar => unreachable!("scalars hold no items"),
        }
    }
}

/// The text with each comment's bytes (newlines excepted) turned into spaces. `Err` for an
/// unterminated block comment.
pub fn blank_comments(text: &str) -> Result<String, String> {
    let mut bytes = text.as_bytes().to_vec();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
            }
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    bytes[i] = b' ';
                    i += 1;
                }
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                let start = i;
                let end = text[i + 2..]
                    .find("*/")
                    .map(|at| i + 2 + at + 2)
                    .ok_or_else(|| {
                        let line = text[..start].matches('\n').count() + 1;
                        format!("a comment that starts on line {line} never ends (`*/`)")
                    })?;
                for b in &mut bytes[start..end] {
                    if *b != b'\n' && *b != b'\r' {
                        *b = b' ';
                    }
                }
                i = end;
            }
            _ => i += 1,
        }
    }
    // Only ASCII bytes were replaced, by ASCII, and only whole comments: still UTF-8.
    Ok(String::from_utf8(bytes).expect("blanking whole comments keeps UTF-8"))
}

/// The text with each comma that only whitespace separates from a closing `}` or `]` turned
/// into a space, as [`blank_comments`] does for comments: opencode and its forks read their
/// files with trailing commas allowed (the hook's reading of their rules).
pub fn blank_trailing_commas(text: &str) -> String {
    let mut bytes = text.as_bytes().to_vec();
    // The comma last seen, while only whitespace followed it, if a value came before it
    // (`[,]` stays an error).
    let mut comma = None;
    let mut prev = b' ';
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        match b {
            b'"' => {
                comma = None;
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
            }
            b',' => comma = (!matches!(prev, b'[' | b'{' | b',' | b':')).then_some(i),
            b'}' | b']' => {
                if let Some(at) = comma.take() {
                    bytes[at] = b' ';
                }
            }
            b' ' | b'\t' | b'\r' | b'\n' => {}
            _ => comma = None,
        }
        if !matches!(b, b' ' | b'\t' | b'\r' | b'\n') {
            prev = b;
        }
        i += 1;
    }
    // Only ASCII commas outside strings were replaced, by a space: still UTF-8.
    String::from_utf8(bytes).expect("blanking commas keeps UTF-8")
}

/// The settings file's root object, located; `None` for a file that holds nothing but
/// whitespace (and comments, with `comments`).
pub fn parse(text: &str, comments: bool) -> Result<Option<Node>, String> {
    let plain = if comments {
        blank_comments(text)?
    } else {
        text.to_string()
    };
    if plain.trim().is_empty() {
        return Ok(None);
    }
    match serde_json::from_str::<Value>(&plain) {
        Ok(Value::Object(_)) => {}
        Ok(_) => return Err("the settings file does not hold a JSON object".into()),
        Err(e) => return Err(format!("the settings file is not valid JSON: {e}")),
    }
    let mut scan = Scan {
        text: &plain,
        at: 0,
    };
    Ok(Some(scan.value()))
}

/// A reader over text serde_json has accepted.
struct Scan<'a> {
    text: &'a str,
    at: usize,
}

impl Scan<'_> {
    fn byte(&self) -> u8 {
        self.text.as_bytes()[self.at]
    }

    fn space(&mut self) {
        while self.at < self.text.len() && matches!(self.byte(), b' ' | b'\t' | b'\n' | b'\r') {
            self.at += 1;
        }
    }

    fn string(&mut self) {
        self.at += 1;
        while self.byte() != b'"' {
            self.at += if self.byte() == b'\\' { 2 } else { 1 };
        }
        self.at += 1;
    }

    fn value(&mut self) -> Node {
        self.space();
        let start = self.at;
        let kind = match self.byte() {
            b'{' => {
                self.at += 1;
                let mut members = Vec::new();
                self.space();
                if self.byte() == b'}' {
                    self.at += 1;
                } else {
                    loop {
                        self.space();
                        let key_start = self.at;
                        self.string();
                        let key_end = self.at;
                        let key = serde_json::from_str(&self.text[key_start..key_end])
                            .unwrap_or_default();
                        self.space();
                        self.at += 1; // ':'
                        let value = self.value();
                        members.push(Member {
                            key,
                            start: key_start,
                            key_end,
                            value,
                        });
                        self.space();
                        let close = self.byte() == b'}';
                        self.at += 1;
                        if close {
                            break;
                        }
                    }
                }
                Kind::Object(members)
            }
            b'[' => {
                self.at += 1;
                let mut elements = Vec::new();
                self.space();
                if self.byte() == b']' {
                    self.at += 1;
                } else {
                    loop {
                        elements.push(self.value());
                        self.space();
                        let close = self.byte() == b']';
                        self.at += 1;
                        if close {
                            break;
                        }
                    }
                }
                Kind::Array(elements)
            }
            b'"' => {
                self.string();
                Kind::Scalar
            }
            _ => {
                while self.at < self.text.len()
                    && !matches!(
                        self.byte(),
                        b',' | b']' | b'}' | b' ' | b'\t' | b'\n' | b'\r'
                    )
                {
                    self.at += 1;
                }
                Kind::Scalar
            }
        };
        Node {
            start,
            end: self.at,
            kind,
        }
    }
}

/// How new entries are laid out, read from the file so they look like its own.
pub struct Style {
    /// One level of indentation (two spaces when the file shows none).
    unit: String,
    /// The file's line ending.
    newline: &'static str,
    /// Whether the file puts members on lines of their own.
    pretty: bool,
}

impl Style {
    /// The layout of the file whose root is `root`.
    pub fn of(text: &str, root: &Node) -> Style {
        let newline = if text.contains("\r\n") { "\r\n" } else { "\n" };
        let pretty = match root.members().first() {
            Some(first) => text[root.start..first.start].contains('\n'),
            None => true,
        };
        let unit = root
            .members()
            .first()
            .map(|m| {
                let inner = line_indent(text, m.start);
                let outer = line_indent(text, root.start);
                inner.strip_prefix(outer).unwrap_or(inner).to_string()
            })
            .filter(|u| !u.is_empty())
            .unwrap_or_else(|| "  ".into());
        Style {
            unit,
            newline,
            pretty,
        }
    }

    /// `value` as JSON text whose continuation lines start with `indent`.
    fn render(&self, value: &Value, indent: &str) -> String {
        if !self.pretty {
            return value.to_string();
        }
        let mut out = Vec::new();
        let formatter = serde_json::ser::PrettyFormatter::with_indent(self.unit.as_bytes());
        let mut ser = serde_json::Serializer::with_formatter(&mut out, formatter);
        serde::Serialize::serialize(value, &mut ser).expect("a JSON value serialises");
        String::from_utf8(out)
            .expect("serde_json writes UTF-8")
            .replace('\n', &format!("{}{indent}", self.newline))
    }
}

/// The blanks that start the line holding `at`.
fn line_indent(text: &str, at: usize) -> &str {
    let line = text[..at].rfind('\n').map_or(0, |n| n + 1);
    let rest = &text[line..at];
    let blank = rest.len() - rest.trim_start_matches([' ', '\t']).len();
    &rest[..blank]
}

/// The text with a new last item in `container` (an object when `key` is given, else an
/// array): placed right after the current last item, or inside an empty container.
pub fn insert(
    text: &str,
    container: &Node,
    style: &Style,
    key: Option<&str>,
    value: &Value,
) -> String {
    let key_text = |colon: &str| {
        key.map(|k| format!("{}{colon}", Value::from(k)))
            .unwrap_or_default()
    };
    let n = container.len();
    if n > 0 {
        let (first, _) = container.item(0);
        let (_, last_end) = container.item(n - 1);
        let multiline = text[container.start..first].contains('\n');
        let (separator, indent) = if multiline && style.pretty {
            let indent = line_indent(text, first);
            (format!("{}{indent}", style.newline), indent.to_string())
        } else {
            let before = &text[container.start + 1..first];
            let gap = if before.trim().is_empty() { before } else { "" };
            (gap.to_string(), String::new())
        };
        let colon = match container.members().first() {
            Some(m) if text[m.key_end..m.value.start].trim() == ":" => {
                &text[m.key_end..m.value.start]
            }
            _ => ": ",
        };
        let rendered = if multiline && style.pretty {
            style.render(value, &indent)
        } else {
            value.to_string()
        };
        let item = format!("{}{rendered}", key_text(colon));
        return format!(
            "{},{separator}{item}{}",
            &text[..last_end],
            &text[last_end..]
        );
    }
    let outer = line_indent(text, container.start);
    let inner = format!("{outer}{}", style.unit);
    let colon = if style.pretty { ": " } else { ":" };
    let item = format!("{}{}", key_text(colon), style.render(value, &inner));
    let (open, close) = (container.start + 1, container.end - 1);
    let inside = &text[open..close];
    let newline = style.newline;
    if inside.trim().is_empty() {
        // `{}` (or blanks only) becomes `{ITEM}` laid out as the file is.
        let new = if style.pretty {
            format!("{newline}{inner}{item}{newline}{outer}")
        } else {
            item
        };
        return format!("{}{new}{}", &text[..open], &text[close..]);
    }
    // A comment inside the empty container stays after the new item.
    let new = if style.pretty {
        format!("{newline}{inner}{item}")
    } else {
        item
    };
    format!("{}{new}{}", &text[..open], &text[open..])
}

/// The text without item `i` of `container`, cutting exactly what [`insert`] added: from the
/// end of the item before it, or to the start of the item after it, or (the only item) the
/// container's inside when nothing but blanks follow it.
pub fn remove(text: &str, container: &Node, i: usize) -> String {
    let n = container.len();
    let (start, end) = container.item(i);
    let (cut_start, cut_end) = if i > 0 {
        (container.item(i - 1).1, end)
    } else if n > 1 {
        (start, container.item(1).0)
    } else {
        let (open, close) = (container.start + 1, container.end - 1);
        if text[end..close].trim().is_empty() {
            (open, close)
        } else {
            (open, end)
        }
    };
    format!("{}{}", &text[..cut_start], &text[cut_end..])
}

/// The text with the value `node` replaced by `value`, laid out as [`insert`] lays out a new
/// item on the line that holds it.
pub fn replace_value(text: &str, node: &Node, style: &Style, value: &Value) -> String {
    let indent = line_indent(text, node.start);
    replace(text, node, &style.render(value, indent))
}

/// The text with the value `node` replaced by `new` (a scalar's spelling).
pub fn replace(text: &str, node: &Node, new: &str) -> String {
    format!("{}{new}{}", &text[..node.start], &text[node.end..])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn root(text: &str) -> Node {
        parse(text, true).unwrap().unwrap()
    }

    #[test]
    fn values_are_located_in_the_text() {
        let text = "{ \"a\" : [1e3, {\"b\\\"\": null}], // x\n \"c\": \"}\" /* ] */ }";
        let r = root(text);
        let m = r.members();
        assert_eq!(m.len(), 2);
        assert_eq!(m[0].key, "a");
        assert_eq!(
            &text[m[0].value.start..m[0].value.end],
            "[1e3, {\"b\\\"\": null}]"
        );
        assert_eq!(m[0].value.elements()[1].members()[0].key, "b\"");
        assert_eq!(&text[m[1].value.start..m[1].value.end], "\"}\"");
        assert!(parse("{} // c", false).is_err());
        assert!(
            parse("{} /* open", true)
                .unwrap_err()
                .contains("never ends")
        );
        assert!(parse("// only a comment\n", true).unwrap().is_none());
    }

    #[test]
    fn insert_and_remove_are_inverse() {
        for text in [
            "{}",
            "{}\n",
            "{\n\t\"a\": 1\n}\n",
            "{\"a\":1,\"b\":[]}",
            "{ \"a\": 1, \"b\": 2 }",
            "{\r\n    \"a\": 1e3\r\n}\r\n",
            "{ /* none */ }",
            "{\n  // first\n  \"a\": {}\n}",
        ] {
            let r = root(text);
            let style = Style::of(text, &r);
            let new = insert(text, &r, &style, Some("k"), &serde_json::json!({"x": [1]}));
            let v: Value = serde_json::from_str(&blank_comments(&new).unwrap()).unwrap();
            assert_eq!(v["k"]["x"][0], 1, "{new}");
            let r2 = root(&new);
            let at = r2.members().iter().position(|m| m.key == "k").unwrap();
            assert_eq!(remove(&new, &r2, at), text, "{new}");
        }
        let text = "{\n  \"a\": 1\n}";
        let r = root(text);
        let new = insert(
            text,
            &r,
            &Style::of(text, &r),
            Some("k"),
            &serde_json::json!([1]),
        );
        assert_eq!(new, "{\n  \"a\": 1,\n  \"k\": [\n    1\n  ]\n}");
    }
}
