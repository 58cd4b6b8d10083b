//! Replacing an oversized `tools/call` result: its text (all text blocks joined) and its
//! `structuredContent` are each stored through [`wrap::capture`] when larger than
//! `--max-inline`, and stand in the result as spill's envelope (text) plus a `resource_link`
//! to the stored output. Everything else in the result is kept.

use std::borrow::Cow;
use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Value, json};

use crate::error::{Error, Result};
use crate::store::StoreConfig;
use crate::wrap::{self, Capture, WrapOptions};

/// A content block, as far as spilling needs to know it. The text stays raw (a JSON string
/// literal): it is unescaped as it is stored ([`Unescaped`]), never copied whole.
#[derive(Deserialize)]
struct Block<'a> {
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
    #[serde(borrow, default)]
    text: Option<&'a RawValue>,
}

/// One stored part of a result.
struct Part {
    envelope: crate::envelope::Envelope,
}

impl Part {
    /// The `resource_link` block that names the stored output (none in a degraded envelope, or
    /// without `links`).
    fn link(&self, scope: &str, links: bool) -> Option<Value> {
        if !links {
            return None;
        }
        let reference = self.envelope.reference.as_deref()?;
        Some(json!({
            "type": "resource_link",
            "uri": super::uri(scope, reference),
            "name": reference,
            "mimeType": self.envelope.mime_type,
            "size": self.envelope.size_bytes,
        }))
    }
}

/// A JSON-RPC response line, borrowed: its `id` and its `result`'s members, each as raw JSON
/// (an error response has no `result`).
#[derive(Deserialize)]
struct Reply<'a> {
    #[serde(borrow)]
    id: &'a RawValue,
    #[serde(borrow)]
    result: Option<BTreeMap<String, &'a RawValue>>,
}

impl<'a> Reply<'a> {
    fn parse(line: &'a [u8]) -> serde_json::Result<Self> {
        serde_json::from_slice(line)
    }
}

/// The `result` of a JSON-RPC response line, rebuilt with its oversized parts stored; `None`
/// when nothing in it is larger than `opts.max_inline` (the line then passes through as it
/// is). `label` names the tool in the store (`spill ls`). Without `links` (a protocol revision
/// before 2025-06-18) no `resource_link` block is added: the envelope names the ref.
pub fn replace(
    line: &[u8],
    opts: &WrapOptions,
    store: &StoreConfig,
    restricted: bool,
    links: bool,
) -> Result<Option<Vec<u8>>> {
    let invalid = |e: serde_json::Error| Error::Usage(format!("a tools/call result: {e}"));
    let reply = Reply::parse(line).map_err(invalid)?;
    let Some(mut result) = reply.result else {
        return Ok(None);
    };
    let blocks: Vec<&RawValue> = match result.get("content") {
        Some(raw) => serde_json::from_str(raw.get()).map_err(invalid)?,
        None => Vec::new(),
    };
    let parsed: Vec<Block> = blocks
        .iter()
        .map(|b| serde_json::from_str(b.get()))
        .collect::<std::result::Result<_, _>>()
        .map_err(invalid)?;
    let texts: Vec<&[u8]> = parsed
        .iter()
        .filter(|b| b.kind == "text")
        .filter_map(|b| b.text)
        .filter(|t| t.get().starts_with('"'))
        .map(|t| t.get().as_bytes())
        .collect();
    // A literal is never shorter than its text: only a long one is measured exactly.
    let raw_len: usize =
        texts.iter().map(|t| t.len() - 2).sum::<usize>() + texts.len().saturating_sub(1);
    let text_len = if raw_len as u64 > opts.max_inline {
        let mut counted = 0usize;
        let mut reader = Joined::new(&texts);
        let mut buf = vec![0u8; 1 << 16];
        loop {
            match std::io::Read::read(&mut reader, &mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => counted += n,
            }
        }
        counted
    } else {
        raw_len
    };
    let structured = result.get("structuredContent").copied();
    let text_big = text_len as u64 > opts.max_inline;
    let structured_big = structured.is_some_and(|s| s.get().len() as u64 > opts.max_inline);
    if !text_big && !structured_big {
        return Ok(None);
    }
    let store_reader = |input: &mut dyn std::io::Read| -> Result<Part> {
        let forced = WrapOptions {
            max_inline: 0,
            ..opts.clone()
        };
        match wrap::capture(input, &forced, store, &|| false)? {
            Capture::Spilled(s) => Ok(Part {
                // The envelope keeps the proxy's bound, as `wrap`'s does.
                envelope: wrap::envelope(&s, opts, None, restricted),
            }),
            Capture::Inline(_) => unreachable!("a part over --max-inline is never inline"),
        }
    };
    let text_part = if text_big {
        Some(store_reader(&mut Joined::new(&texts))?)
    } else {
        None
    };
    let structured_part = match structured.filter(|_| structured_big) {
        Some(raw) => Some(store_reader(&mut raw.get().as_bytes())?),
        None => None,
    };
    let scope = &store.scope;
    let mut content: Vec<Value> = Vec::new();
    let mut placed = false;
    for (raw, block) in blocks.iter().zip(&parsed) {
        let is_text = block.kind == "text" && block.text.is_some_and(|t| t.get().starts_with('"'));
        if is_text && let Some(part) = &text_part {
            // Every text block is in the stored text: the envelope stands where the first was.
            if !placed {
                placed = true;
                content.push(json!({"type": "text", "text": part.envelope.to_json()}));
                content.extend(part.link(scope, links));
            }
            continue;
        }
        content.push(serde_json::from_str(raw.get()).map_err(invalid)?);
    }
    if let Some(part) = &structured_part {
        // One envelope for the model to read is enough: with the text stored too (usually the
        // same data serialised), the structured payload is only linked.
        let same = text_part
            .as_ref()
            .is_some_and(|t| t.envelope.reference == part.envelope.reference);
        if text_part.is_none() {
            content.push(json!({"type": "text", "text": part.envelope.to_json()}));
        }
        if !same {
            content.extend(part.link(scope, links));
        }
    }
    let content = serde_json::to_string(&content).expect("content serialises");
    let mut rebuilt = String::from("{");
    let mut field = |key: &str, value: &str| {
        if rebuilt.len() > 1 {
            rebuilt.push(',');
        }
        rebuilt.push_str(&serde_json::to_string(key).expect("a key serialises"));
        rebuilt.push(':');
        rebuilt.push_str(value);
    };
    field("content", &content);
    let structured_text = structured_part.as_ref().map(|p| p.envelope.to_json());
    if let Some(raw) = result.remove("structuredContent") {
        field(
            "structuredContent",
            structured_text.as_deref().unwrap_or(raw.get()),
        );
    }
    result.remove("content");
    for (key, raw) in &result {
        field(key, raw.get());
    }
    rebuilt.push('}');
    let out = format!(
        r#"{{"jsonrpc":"2.0","id":{},"result":{rebuilt}}}"#,
        reply.id.get()
    );
    Ok(Some(out.into_bytes()))
}

/// A `resources/read` response line with each text content larger than `opts.max_inline` stored
/// and its `text` replaced by the envelope (the content stays a valid text resource: `uri`,
/// `mimeType` and the rest are kept); `None` when no text content is that large. Blobs pass.
pub fn replace_contents(
    line: &[u8],
    opts: &WrapOptions,
    store: &StoreConfig,
) -> Result<Option<Vec<u8>>> {
    let invalid = |e: serde_json::Error| Error::Usage(format!("a resources/read result: {e}"));
    let reply = Reply::parse(line).map_err(invalid)?;
    let Some(result) = reply.result else {
        return Ok(None);
    };
    let Some(contents) = result.get("contents") else {
        return Ok(None);
    };
    let contents: Vec<BTreeMap<String, &RawValue>> =
        serde_json::from_str(contents.get()).map_err(invalid)?;
    let big = |item: &BTreeMap<String, &RawValue>| {
        item.get("text").is_some_and(|t| {
            t.get().starts_with('"') && (t.get().len() - 2) as u64 > opts.max_inline
        })
    };
    if !contents.iter().any(big) {
        return Ok(None);
    }
    let forced = WrapOptions {
        max_inline: 0,
        ..opts.clone()
    };
    let mut items = Vec::with_capacity(contents.len());
    for item in &contents {
        let mut fields: Vec<(String, String)> = Vec::with_capacity(item.len());
        for (key, raw) in item {
            let value = if key == "text" && big(item) {
                let mut text = Joined::new(&[raw.get().as_bytes()]);
                let envelope = match wrap::capture(&mut text, &forced, store, &|| false)? {
                    Capture::Spilled(s) => wrap::envelope(&s, opts, None, true),
                    Capture::Inline(_) => unreachable!("max_inline 0 always stores"),
                };
                serde_json::to_string(&envelope.to_json()).expect("a string serialises")
            } else {
                raw.get().to_string()
            };
            fields.push((serde_json::to_string(key).expect("a key serialises"), value));
        }
        let body: Vec<String> = fields.iter().map(|(k, v)| format!("{k}:{v}")).collect();
        items.push(format!("{{{}}}", body.join(",")));
    }
    let mut rest: Vec<String> = result
        .iter()
        .filter(|(key, _)| key.as_str() != "contents")
        .map(|(key, raw)| {
            format!(
                "{}:{}",
                serde_json::to_string(key).expect("a key serialises"),
                raw.get()
            )
        })
        .collect();
    rest.insert(0, format!("\"contents\":[{}]", items.join(",")));
    let out = format!(
        r#"{{"jsonrpc":"2.0","id":{},"result":{{{}}}}}"#,
        reply.id.get(),
        rest.join(",")
    );
    Ok(Some(out.into_bytes()))
}

/// A notification's params stored (as JSON), and a `notifications/message` warning in its
/// place whose data names the method replaced and holds the envelope: a notification has no
/// result to carry a link, and its own params would no longer match its method's schema.
pub fn notification(
    method: &str,
    params: &str,
    opts: &WrapOptions,
    store: &StoreConfig,
) -> Result<Vec<u8>> {
    let forced = WrapOptions {
        max_inline: 0,
        ..opts.clone()
    };
    let envelope = match wrap::capture(&mut params.as_bytes(), &forced, store, &|| false)? {
        Capture::Spilled(s) => wrap::envelope(&s, opts, None, true),
        Capture::Inline(_) => unreachable!("max_inline 0 always stores"),
    };
    let envelope: Value = serde_json::from_str(&envelope.to_json()).expect("an envelope is JSON");
    let message = json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {
        "level": "warning", "logger": "spill",
        "data": {"replaced": method, "envelope": envelope}}});
    Ok(serde_json::to_vec(&message).expect("a message serialises"))
}

/// The text blocks read as one output, joined with `\n`: each a JSON string literal (quotes
/// included, already checked by the parser), unescaped as it is read, never copied together.
struct Joined<'a> {
    pieces: Vec<Unescaped<'a>>,
    at: usize,
}

impl<'a> Joined<'a> {
    fn new(literals: &[&'a [u8]]) -> Joined<'a> {
        let mut pieces = Vec::with_capacity(literals.len() * 2);
        for (i, t) in literals.iter().enumerate() {
            if i > 0 {
                pieces.push(Unescaped::plain(b"\n"));
            }
            pieces.push(Unescaped::literal(t));
        }
        Joined { pieces, at: 0 }
    }
}

impl std::io::Read for Joined<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        while let Some(piece) = self.pieces.get_mut(self.at) {
            let n = piece.read_into(buf);
            if n == 0 {
                self.at += 1;
                continue;
            }
            return Ok(n);
        }
        Ok(0)
    }
}

/// The text of a JSON string literal, a piece at a time.
struct Unescaped<'a> {
    rest: &'a [u8],
    escaped: bool,
    /// An unescaped character's bytes not yet handed out (`buf` had no room for them).
    pending: ([u8; 4], usize, usize),
}

impl<'a> Unescaped<'a> {
    /// A literal with its quotes.
    fn literal(quoted: &'a [u8]) -> Unescaped<'a> {
        Unescaped {
            rest: &quoted[1..quoted.len() - 1],
            escaped: true,
            pending: ([0; 4], 0, 0),
        }
    }

    /// Bytes as they are.
    fn plain(bytes: &'a [u8]) -> Unescaped<'a> {
        Unescaped {
            rest: bytes,
            escaped: false,
            pending: ([0; 4], 0, 0),
        }
    }

    /// Fills `buf` with what comes next; 0 only at the end (or for an empty `buf`).
    fn read_into(&mut self, buf: &mut [u8]) -> usize {
        if !self.escaped {
            let n = self.rest.len().min(buf.len());
            buf[..n].copy_from_slice(&self.rest[..n]);
            self.rest = &self.rest[n..];
            return n;
        }
        let mut n = 0;
        while n < buf.len() {
            let (bytes, from, to) = &mut self.pending;
            if from < to {
                let take = (*to - *from).min(buf.len() - n);
                buf[n..n + take].copy_from_slice(&bytes[*from..*from + take]);
                *from += take;
                n += take;
                continue;
            }
            if self.rest.is_empty() {
                break;
            }
            let plain = memchr::memchr(b'\\', self.rest).unwrap_or(self.rest.len());
            if plain > 0 {
                let take = plain.min(buf.len() - n);
                buf[n..n + take].copy_from_slice(&self.rest[..take]);
                self.rest = &self.rest[take..];
                n += take;
                continue;
            }
            let (ch, used) = unescape_one(self.rest);
            self.rest = &self.rest[used..];
            let len = ch.encode_utf8(bytes).len();
            self.pending.1 = 0;
            self.pending.2 = len;
        }
        n
    }
}

/// The character an escape (`\n`, `\u00e9`, a surrogate pair) at the start of `s` stands for,
/// and the bytes it takes. The parser checked the literal; anything else is U+FFFD.
fn unescape_one(s: &[u8]) -> (char, usize) {
    let hex = |at: usize| -> Option<u32> {
        let digits = s.get(at..at + 4)?;
        u32::from_str_radix(std::str::from_utf8(digits).ok()?, 16).ok()
    };
    match s.get(1) {
        Some(b'n') => ('\n', 2),
        Some(b't') => ('\t', 2),
        Some(b'r') => ('\r', 2),
        Some(b'b') => ('\u{8}', 2),
        Some(b'f') => ('\u{c}', 2),
        Some(b'u') => match hex(2) {
            Some(high @ 0xD800..=0xDBFF) if s.get(6..8) == Some(b"\\u") => match hex(8) {
                Some(low @ 0xDC00..=0xDFFF) => {
                    let code = 0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00);
                    (char::from_u32(code).unwrap_or('\u{FFFD}'), 12)
                }
                _ => ('\u{FFFD}', 6),
            },
            Some(code) => (char::from_u32(code).unwrap_or('\u{FFFD}'), 6),
            None => ('\u{FFFD}', s.len().min(2)),
        },
        Some(&c) => (char::from(c), 2),
        None => ('\u{FFFD}', 1),
    }
}

#[cfg(test)]
mod tests {
    use std::io::Read;

    #[test]
    fn text_blocks_read_as_one_output_joined_by_newlines() {
        let mut joined = String::new();
        super::Joined::new(&[br#""a\n""#, br#""""#, br#""bc""#])
            .read_to_string(&mut joined)
            .unwrap();
        assert_eq!(joined, "a\n\n\nbc");
    }

    proptest::proptest! {
        /// The unescaped text is serde_json's, read through any buffer size.
        #[test]
        fn literals_unescape_as_serde_json_reads_them(text in "\\PC{0,200}", size in 1usize..64) {
            let literal = serde_json::to_string(&text).unwrap();
            let ascii = serde_json::to_string(&text).unwrap().chars().flat_map(|c| {
                if c.is_ascii() { vec![c.to_string()] } else {
                    let mut units = [0u16; 2];
                    c.encode_utf16(&mut units).iter().map(|u| format!("\\u{u:04x}")).collect()
                }
            }).collect::<String>();
            for form in [literal, ascii] {
                let mut reader = super::Joined::new(&[form.as_bytes()]);
                let mut out = Vec::new();
                let mut buf = vec![0u8; size];
                loop {
                    let n = reader.read(&mut buf).unwrap();
                    if n == 0 { break; }
                    out.extend_from_slice(&buf[..n]);
                }
                proptest::prop_assert_eq!(String::from_utf8(out).unwrap(), text.clone());
            }
        }
    }
}
