//! Stored outputs as MCP resources: `spill://SCOPE/REF` for each entry of the scope
//! (`resources/list`, newest first, paged by cursor), the template
//! `spill://SCOPE/{ref}{?lines,bytes}`, and `resources/read`, which is `spill cat --raw` of
//! the ref ([`crate::ops::cat`]): the stored bytes of the range asked for, by default the first
//! 200 lines or 16 KiB, whichever is smaller, and an explicit range capped at 1 MiB, so a read
//! never returns more than `cat` would. The footer (`lines 1–200 of 48,213 · next: --lines
//! 201:400`) is in the contents' `_meta` as `spill/footer`.

use base64::Engine;
use serde_json::{Value, json};

use super::ResourceUri;
use super::rpc::code;
use crate::error::Error;
use crate::ops;
use crate::store::{Ref, Store, StoreConfig};

/// A JSON-RPC error: code and message.
pub type RpcError = (i64, String);

/// The `resource_link` content block for a ref of the scope, `None` for any other source.
pub fn link(store: &StoreConfig, source: &str) -> Option<Value> {
    let reference = Ref::parse(source)?;
    let meta = Store::new(store.clone()).record(&reference)?;
    Some(json!({
        "type": "resource_link",
        "uri": super::uri(&store.scope, source),
        "name": source,
        "description": meta.summary,
        "mimeType": meta.mime_type,
        "size": meta.stored_bytes,
    }))
}

/// The cursor after an entry: its creation time and ref (the order of `spill ls`), so a page
/// boundary stays put when newer outputs are stored meanwhile.
fn cursor_of(created: f64, reference: &str) -> String {
    format!("{:016x}.{reference}", created.to_bits())
}

fn parse_cursor(cursor: &str) -> Option<(f64, String)> {
    let (bits, reference) = cursor.split_once('.')?;
    let created = f64::from_bits(u64::from_str_radix(bits, 16).ok()?);
    Ref::parse(reference)?;
    Some((created, reference.to_string()))
}

/// `resources/list`: one page of `page_size` entries after `cursor`.
pub fn list(
    store: &StoreConfig,
    cursor: Option<&str>,
    page_size: usize,
) -> Result<Value, RpcError> {
    let listing = ops::ls::run(store, &ops::ls::Request::default()).map_err(internal)?;
    let after = match cursor {
        None => None,
        Some(c) => Some(parse_cursor(c).ok_or_else(|| {
            (
                code::INVALID_PARAMS,
                format!("invalid cursor {:?}", crate::diag::echo(c)),
            )
        })?),
    };
    // Newest created first, ties by ref: an entry comes after the cursor when it is older, or
    // as old with a greater ref.
    let entries = listing.entries.iter().filter(|e| match &after {
        None => true,
        Some((created, reference)) => {
            e.created < *created
                || (e.created == *created && e.reference.as_str() > reference.as_str())
        }
    });
    let page: Vec<_> = entries.take(page_size.saturating_add(1)).collect();
    let more = page.len() > page_size;
    let page = &page[..page.len().min(page_size)];
    let resources: Vec<Value> = page
        .iter()
        .map(|e| {
            let mut r = json!({
                "uri": super::uri(&store.scope, &e.reference),
                "name": e.reference,
                "description": e.summary,
                "mimeType": e.mime_type,
                "size": e.stored_bytes,
            });
            if let Some(label) = &e.label {
                r["title"] = json!(label);
            }
            r
        })
        .collect();
    let mut result = json!({"resources": resources});
    if more && let Some(last) = page.last() {
        result["nextCursor"] = json!(cursor_of(last.created, &last.reference));
    }
    Ok(result)
}

/// `resources/templates/list`: the one template, bounded like `cat`.
pub fn templates(store: &StoreConfig) -> Value {
    json!({"resourceTemplates": [{
        "uriTemplate": format!("{}{}/{{ref}}{{?lines,bytes}}", super::SCHEME, store.scope),
        "name": "spill-output",
        "title": "A stored output, or a range of it",
        "description": "A stored output of this scope by its ref (sp_ + 16 hex digits). lines=A:B (1-based, inclusive) or bytes=A:B (0-based, end-exclusive) pick a range; without one, the first 200 lines or 16 KiB, whichever is smaller. A range is capped at 1 MiB; _meta.spill/footer says how to read on.",
    }]})
}

/// The longest URI `resources/read` takes: a scope, a ref and two ranges need far less, and
/// the result repeats the URI.
pub const MAX_URI: usize = 1024;

/// `resources/read` of a `spill://` URI. Errors echo at most [`crate::diag::ECHO_MAX`]
/// characters of it.
pub fn read(store: &StoreConfig, uri: &str) -> Result<Value, RpcError> {
    let shown = crate::diag::echo(uri);
    if uri.len() > MAX_URI {
        return Err((
            code::INVALID_PARAMS,
            format!("{shown}: a URI of {} bytes (at most {MAX_URI})", uri.len()),
        ));
    }
    let parsed =
        ResourceUri::parse(uri).map_err(|why| (code::INVALID_PARAMS, format!("{shown}: {why}")))?;
    let not_found = |what: String| (code::RESOURCE_NOT_FOUND, what);
    if parsed.scope != store.scope {
        return Err(not_found(format!(
            "resource not found: {shown} (this server reads scope {} only)",
            store.scope
        )));
    }
    if Ref::parse(&parsed.reference).is_none() {
        return Err(not_found(format!(
            "resource not found: {shown} (a ref is sp_ + 16 hex digits)"
        )));
    }
    let req = ops::cat::Request {
        lines: parsed.lines,
        bytes: parsed.bytes,
        raw: true,
        ..ops::cat::Request::new(parsed.reference.clone())
    };
    let mut out = Vec::new();
    let report = ops::cat::run(store, &req, &mut out).map_err(|e| match e {
        Error::UnknownRef(_) | Error::GoneRef { .. } => not_found(format!("{e}")),
        Error::Usage(_) => (code::INVALID_PARAMS, format!("{e}")),
        other => internal(other),
    })?;
    let mime = Store::new(store.clone())
        .record(&Ref::parse(&parsed.reference).expect("checked"))
        .map(|m| m.mime_type)
        .unwrap_or_else(|| "application/octet-stream".into());
    let mut contents = match String::from_utf8(out) {
        Ok(text) if mime != "application/octet-stream" => {
            json!({"uri": uri, "mimeType": mime, "text": text})
        }
        Ok(text) => {
            json!({"uri": uri, "mimeType": mime, "blob": base64::engine::general_purpose::STANDARD.encode(text)})
        }
        Err(e) => json!({"uri": uri, "mimeType": mime,
                          "blob": base64::engine::general_purpose::STANDARD.encode(e.into_bytes())}),
    };
    let mut footer = report.footer.clone();
    if footer.is_none()
        && let Some(n) = report.notices.first()
    {
        footer = Some(n.to_string());
    }
    if let Some(footer) = footer {
        contents["_meta"] = json!({"spill/footer": footer});
    }
    Ok(json!({"contents": [contents]}))
}

fn internal(e: Error) -> RpcError {
    (code::INTERNAL_ERROR, format!("{e}"))
}
