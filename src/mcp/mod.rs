//! spill over the Model Context Protocol: `spill mcp` serves the store's outputs as resources
//! and spill's reading commands as tools ([`server`], on rmcp); `spill mcp proxy` stands in front
//! of any MCP server and stores its oversized tool results ([`proxy`], its own framing in
//! [`rpc`], the replacement in [`spill`]).
//!
//! A stored output is the resource `spill://SCOPE/REF`; the server and the proxy answer for one
//! scope each, so a URI naming another scope is unknown to them.

#[cfg(feature = "http")]
pub mod http;
pub mod proxy;
#[cfg(feature = "http")]
pub mod remote;
pub mod resources;
pub mod revision;
pub mod rpc;
pub mod server;
pub mod spill;
pub mod tools;

/// The URI scheme of stored outputs.
pub const SCHEME: &str = "spill://";

/// The resource URI of a stored output.
pub fn uri(scope: &str, reference: &str) -> String {
    format!("{SCHEME}{scope}/{reference}")
}

/// True when `uri` is a `spill://` URI (of any scope).
pub fn is_spill_uri(uri: &str) -> bool {
    uri.starts_with(SCHEME)
}

/// A `spill://SCOPE/REF?lines=A:B&bytes=A:B` URI, taken apart.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResourceUri {
    /// The scope named.
    pub scope: String,
    /// The ref, as written (checked by the store).
    pub reference: String,
    /// `lines=A:B`.
    pub lines: Option<String>,
    /// `bytes=A:B`.
    pub bytes: Option<String>,
}

impl ResourceUri {
    /// Parses a `spill://` URI; the error says what is wrong with it.
    pub fn parse(uri: &str) -> std::result::Result<ResourceUri, String> {
        let rest = uri
            .strip_prefix(SCHEME)
            .ok_or_else(|| format!("not a {SCHEME} URI"))?;
        let (path, query) = rest.split_once('?').unwrap_or((rest, ""));
        let (scope, reference) = path
            .split_once('/')
            .ok_or_else(|| format!("expected {SCHEME}SCOPE/REF"))?;
        let mut parsed = ResourceUri {
            scope: scope.to_string(),
            reference: reference.to_string(),
            lines: None,
            bytes: None,
        };
        for pair in query.split('&').filter(|p| !p.is_empty()) {
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            // RFC 6570 form-style expansion percent-encodes the colon of `A:B`.
            let value = value.replace("%3A", ":").replace("%3a", ":");
            match key {
                "lines" => parsed.lines = Some(value),
                "bytes" => parsed.bytes = Some(value),
                other => {
                    return Err(format!(
                        "unknown parameter \"{}\" (use lines or bytes)",
                        crate::diag::echo(other)
                    ));
                }
            }
        }
        Ok(parsed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris_name_the_scope_the_ref_and_a_range() {
        assert_eq!(
            uri("s1", "sp_0123456789abcdef"),
            "spill://s1/sp_0123456789abcdef"
        );
        let u = ResourceUri::parse("spill://s1/sp_0123456789abcdef?lines=3%3A9").unwrap();
        assert_eq!(
            (
                u.scope.as_str(),
                u.reference.as_str(),
                u.lines.as_deref(),
                u.bytes
            ),
            ("s1", "sp_0123456789abcdef", Some("3:9"), None)
        );
        assert!(ResourceUri::parse("spill://s1").is_err());
        assert!(ResourceUri::parse("file:///etc/passwd").is_err());
        assert!(ResourceUri::parse("spill://s1/sp_0123456789abcdef?path=/etc").is_err());
    }
}
