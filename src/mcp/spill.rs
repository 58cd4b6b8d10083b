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

/// A content block, as far as spilling needs to know it.
#[derive(Deserialize)]
struct Block<'a> {
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
    #[serde(borrow, default)]
    text: Option<Cow<'a, str>>,
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
    #[derive(Deserialize)]
    struct Reply<'a> {
        #[serde(borrow)]
        id: &'a RawValue,
        #[serde(borrow)]
        result: Option<BTreeMap<String, &'a RawValue>>,
    }
    let invalid = |e: serde_json::Error| Error::Usage(format!("a tools/call result: {e}"));
    let reply: Reply = serde_json::from_slice(line).map_err(invalid)?;
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
    let texts: Vec<&str> = parsed
        .iter()
        .filter(|b| b.kind == "text")
        .filter_map(|b| b.text.as_deref())
        .collect();
    let text_len: usize =
        texts.iter().map(|t| t.len()).sum::<usize>() + texts.len().saturating_sub(1);
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
        let is_text = block.kind == "text" && block.text.is_some();
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

/// The text blocks read as one output, joined with `\n`, without copying them together.
struct Joined<'a> {
    pieces: Vec<&'a [u8]>,
    at: usize,
}

impl<'a> Joined<'a> {
    fn new(texts: &[&'a str]) -> Joined<'a> {
        let mut pieces = Vec::with_capacity(texts.len() * 2);
        for (i, t) in texts.iter().enumerate() {
            if i > 0 {
                pieces.push(&b"\n"[..]);
            }
            pieces.push(t.as_bytes());
        }
        Joined { pieces, at: 0 }
    }
}

impl std::io::Read for Joined<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        while let Some(piece) = self.pieces.get_mut(self.at) {
            if piece.is_empty() {
                self.at += 1;
                continue;
            }
            let n = piece.len().min(buf.len());
            buf[..n].copy_from_slice(&piece[..n]);
            *piece = &piece[n..];
            return Ok(n);
        }
        Ok(0)
    }
}

#[cfg(test)]
mod tests {
    use std::io::Read;

    #[test]
    fn text_blocks_read_as_one_output_joined_by_newlines() {
        let mut joined = String::new();
        super::Joined::new(&["a\n", "", "bc"])
            .read_to_string(&mut joined)
            .unwrap();
        assert_eq!(joined, "a\n\n\nbc");
    }
}
