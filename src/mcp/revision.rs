//! The MCP protocol revisions spill serves, and what each one's results may hold.
//!
//! The server answers `initialize` with the revision the client asks for when it is one of
//! [`KNOWN`] (rmcp's negotiation over `supported_protocol_versions`), otherwise with the newest
//! one that has an `initialize` handshake (2025-11-25); a 2026-07-28 client needs no handshake,
//! each request names its revision in `_meta`. Every result is then cut to what the negotiated
//! revision defines, because the official SDKs validate results against their own revision's
//! schema: a content block of a type a revision does not know (`resource_link` before
//! 2025-06-18) fails the whole result in the TypeScript SDK's union, and 2026-07-28 clients
//! (the Python SDK's `mcp.Client`) reject a result without `resultType`.
//!
//! | field | since |
//! |---|---|
//! | tool `annotations` | 2025-03-26 |
//! | tool and resource `title`, `outputSchema`, `structuredContent`, `resource_link` blocks, `_meta` on resource contents | 2025-06-18 |
//! | `resultType` on every result, `ttlMs` and `cacheScope` on cacheable ones | 2026-07-28 |
//!
//! Revisions are dates, so they compare as strings.

use serde_json::{Value, json};

/// Every published revision, oldest first.
pub const KNOWN: [&str; 5] = [
    "2024-11-05",
    "2025-03-26",
    "2025-06-18",
    "2025-11-25",
    "2026-07-28",
];

/// The newest revision with an `initialize` handshake: the answer to a client asking for a
/// revision spill does not know.
pub const LATEST_WITH_INITIALIZE: &str = "2025-11-25";

/// The first revision without `initialize` (each request carries its revision in `_meta`).
pub const NO_INITIALIZE: &str = "2026-07-28";

/// The revision a request names in its `_meta` (2026-07-28 and later).
pub const META_PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";

/// True when `version` is `since` or later.
pub fn at_least(version: &str, since: &str) -> bool {
    version >= since
}

/// A tool definition as `version` defines it.
pub fn tool(tool: &mut Value, version: &str) {
    let Some(map) = tool.as_object_mut() else {
        return;
    };
    if !at_least(version, "2025-06-18") {
        map.remove("title");
        map.remove("outputSchema");
    }
    if !at_least(version, "2025-03-26") {
        map.remove("annotations");
    }
}

/// A `tools/list` result as `version` defines it.
pub fn tools_list(result: &mut Value, version: &str) {
    if let Some(tools) = result.get_mut("tools").and_then(Value::as_array_mut) {
        for t in tools {
            tool(t, version);
        }
    }
}

/// A `tools/call` result as `version` defines it: before 2025-06-18 no `resource_link`
/// blocks and no `structuredContent` (the text block says the same).
pub fn call_result(result: &mut Value, version: &str) {
    if at_least(version, "2025-06-18") {
        return;
    }
    let Some(map) = result.as_object_mut() else {
        return;
    };
    map.remove("structuredContent");
    if let Some(content) = map.get_mut("content").and_then(Value::as_array_mut) {
        content.retain(|block| block["type"] != "resource_link");
    }
}

/// A `resources/list` or `resources/templates/list` result as `version` defines it.
pub fn resource_list(result: &mut Value, version: &str) {
    if at_least(version, "2025-06-18") {
        return;
    }
    for key in ["resources", "resourceTemplates"] {
        if let Some(items) = result.get_mut(key).and_then(Value::as_array_mut) {
            for item in items.iter_mut().filter_map(Value::as_object_mut) {
                item.remove("title");
            }
        }
    }
}

/// A `resources/read` result as `version` defines it: before 2025-06-18 the contents carry no
/// `_meta` (the footer that says how to read on).
pub fn read_result(result: &mut Value, version: &str) {
    if at_least(version, "2025-06-18") {
        return;
    }
    if let Some(contents) = result.get_mut("contents").and_then(Value::as_array_mut) {
        for item in contents.iter_mut().filter_map(Value::as_object_mut) {
            item.remove("_meta");
        }
    }
}

/// Marks a result complete where `version` requires it (2026-07-28: `resultType` on every
/// result; `cacheable` ones also say they may not be cached, `ttlMs: 0`, `cacheScope:
/// private`: a scope's listing changes with every stored output).
pub fn complete(result: &mut Value, version: &str, cacheable: bool) {
    if !at_least(version, NO_INITIALIZE) {
        return;
    }
    let Some(map) = result.as_object_mut() else {
        return;
    };
    map.entry("resultType").or_insert(json!("complete"));
    if cacheable {
        map.entry("ttlMs").or_insert(json!(0));
        map.entry("cacheScope").or_insert(json!("private"));
    }
}

/// The revision a 2026-07-28 request names in its `_meta`, if any.
pub fn of_request(params: &Value) -> Option<&str> {
    params
        .get("_meta")
        .and_then(|m| m.get(META_PROTOCOL_VERSION))
        .and_then(Value::as_str)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn old_revisions_lose_what_they_do_not_define() {
        let mut t = json!({"name": "cat", "title": "spill cat", "inputSchema": {},
            "outputSchema": {"type": "object"}, "annotations": {"readOnlyHint": true}});
        let mut t2 = t.clone();
        tool(&mut t, "2025-03-26");
        assert_eq!(
            t,
            json!({"name": "cat", "inputSchema": {}, "annotations": {"readOnlyHint": true}})
        );
        tool(&mut t2, "2024-11-05");
        assert_eq!(t2, json!({"name": "cat", "inputSchema": {}}));
        let mut r = json!({"content": [{"type": "text", "text": "x"},
            {"type": "resource_link", "uri": "spill://s/r", "name": "r"}],
            "structuredContent": {"a": 1}, "isError": false});
        let kept = r.clone();
        call_result(&mut r, "2025-06-18");
        assert_eq!(r, kept);
        call_result(&mut r, "2025-03-26");
        assert_eq!(
            r,
            json!({"content": [{"type": "text", "text": "x"}], "isError": false})
        );
    }

    #[test]
    fn the_newest_revision_marks_results_complete() {
        let mut r = json!({"tools": []});
        complete(&mut r, "2025-11-25", true);
        assert_eq!(r, json!({"tools": []}));
        complete(&mut r, "2026-07-28", true);
        assert_eq!(
            r,
            json!({"tools": [], "resultType": "complete", "ttlMs": 0, "cacheScope": "private"})
        );
    }
}
