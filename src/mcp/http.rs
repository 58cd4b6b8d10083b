//! `spill mcp --http ADDR`: the server of [`super::server`] over MCP's Streamable HTTP transport
//! (revision 2025-03-26 on): rmcp's [`StreamableHttpService`] (sessions, `Mcp-Session-Id`,
//! JSON or SSE answers, the GET stream, DELETE, `MCP-Protocol-Version`, Host and Origin checks)
//! under hyper's HTTP/1.1 connection loop, on the same one-thread runtime as stdio.
//!
//! What spill adds in front of rmcp, in this order:
//! - one endpoint, `/mcp`: any other path is 404;
//! - the bearer token (`Authorization: Bearer TOKEN`, compared in constant time): required when
//!   one is set, and one must be set for any address that is not loopback
//!   (`cmd::mcp` reads it from `--token-file` or `SPILL_MCP_TOKEN`, never from argv); a request
//!   without it is 401 with `WWW-Authenticate: Bearer`;
//! - the Origin check the specification requires against DNS rebinding ("Servers MUST validate
//!   the Origin header on all incoming connections"): a request that carries an `Origin` must
//!   come from a loopback origin (`http://localhost`, `127.0.0.1`, `[::1]`, any port), else
//!   403; a request without one (every non-browser client) passes. On a loopback address the
//!   `Host` must be a loopback name too (rmcp's default); off loopback the token is the guard
//!   and any `Host` is accepted;
//! - a request body of at most [`MAX_BODY`] (413 past it, read as it streams) and a request
//!   head within 10 s.
//!
//! The tools, resources, scope and restriction are the stdio server's ([`super::server`]): a
//! session is a fresh handler over the same settings, and each request resolves its scope as
//! the stdio server does.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper::{Request, Response, StatusCode};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};

use crate::error::{Error, Result};

/// The one endpoint.
pub const ENDPOINT: &str = "/mcp";

/// The largest request body read: a JSON-RPC request to spill is a few hundred bytes.
pub const MAX_BODY: usize = 1 << 20;

/// How `--http` listens.
#[derive(Debug, Clone)]
pub struct Listen {
    /// The address to bind.
    pub addr: SocketAddr,
    /// The bearer token every request must carry (required off loopback).
    pub token: Option<String>,
}

/// Parses `--http`'s ADDR: `PORT` (on 127.0.0.1), `HOST:PORT` or `[V6]:PORT`, where HOST is an
/// IP address or `localhost`.
pub fn parse_addr(text: &str) -> std::result::Result<SocketAddr, String> {
    let bad = || {
        format!(
            "--http: \"{}\" is not PORT, IP:PORT, [IPv6]:PORT or localhost:PORT",
            crate::diag::echo(text)
        )
    };
    if let Ok(port) = text.parse::<u16>() {
        return Ok(SocketAddr::from(([127, 0, 0, 1], port)));
    }
    if let Some(port) = text.strip_prefix("localhost:") {
        let port = port.parse::<u16>().map_err(|_| bad())?;
        return Ok(SocketAddr::from(([127, 0, 0, 1], port)));
    }
    text.parse::<SocketAddr>().map_err(|_| bad())
}

/// Serves `handler`'s sessions on `listen` until the process ends. `listening` gets the
/// endpoint's URL once it listens (with the port the system chose for port 0).
pub fn serve<H>(handler: H, listen: Listen, listening: Box<dyn FnOnce(&str)>) -> Result<()>
where
    H: rmcp::ServerHandler + Clone + Send + Sync + 'static,
{
    if !listen.addr.ip().is_loopback() && listen.token.is_none() {
        return Err(Error::Usage(format!(
            "mcp: --http {} is not a loopback address, so it needs a bearer token: --token-file FILE or SPILL_MCP_TOKEN",
            listen.addr
        )));
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Error::stream("start the MCP server's runtime", e))?;
    runtime.block_on(run(handler, listen, listening))
}

fn config(addr: SocketAddr) -> StreamableHttpServerConfig {
    let config = StreamableHttpServerConfig::default()
        .with_max_request_body_bytes(MAX_BODY)
        .with_allowed_origins(["http://localhost:*", "http://127.0.0.1:*", "http://[::1]:*"])
        .enforce_origin_validation();
    if addr.ip().is_loopback() {
        config
    } else {
        config.disable_allowed_hosts()
    }
}

async fn run<H>(handler: H, listen: Listen, listening: Box<dyn FnOnce(&str)>) -> Result<()>
where
    H: rmcp::ServerHandler + Clone + Send + Sync + 'static,
{
    let listener = tokio::net::TcpListener::bind(listen.addr)
        .await
        .map_err(|e| Error::stream("listen on the --http address", e))?;
    let local = listener
        .local_addr()
        .map_err(|e| Error::stream("listen on the --http address", e))?;
    listening(&format!("http://{local}{ENDPOINT}"));
    let service = StreamableHttpService::new(
        move || Ok(handler.clone()),
        Arc::new(LocalSessionManager::default()),
        config(listen.addr),
    );
    let token: Option<Arc<[u8]>> = listen.token.map(|t| Arc::from(t.into_bytes()));
    loop {
        let (stream, _) = match listener.accept().await {
            Ok(accepted) => accepted,
            // Out of descriptors and the like: the next accept may work.
            Err(_) => {
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let service = service.clone();
        let token = token.clone();
        tokio::spawn(async move {
            let answer = hyper::service::service_fn(move |request: Request<Incoming>| {
                let service = service.clone();
                let token = token.clone();
                async move {
                    if let Some(refused) = gate(&request, token.as_deref()) {
                        return Ok::<_, std::convert::Infallible>(refused);
                    }
                    Ok(match body(request).await {
                        Ok(request) => service.handle(request).await,
                        Err(refused) => refused,
                    })
                }
            });
            let io = hyper_util::rt::TokioIo::new(stream);
            // A connection that fails ends alone.
            let _ = hyper::server::conn::http1::Builder::new()
                .timer(hyper_util::rt::TokioTimer::new())
                .header_read_timeout(Duration::from_secs(10))
                .serve_connection(io, answer)
                .await;
        });
    }
}

type Answer = Response<http_body_util::combinators::BoxBody<Bytes, std::convert::Infallible>>;

fn plain(status: StatusCode, text: &str) -> Answer {
    Response::builder()
        .status(status)
        .header("content-type", "text/plain; charset=utf-8")
        .body(Full::new(Bytes::from(format!("{text}\n"))).boxed())
        .expect("a valid response")
}

/// spill's own checks before rmcp's: the endpoint and the token. `None` lets the request on.
fn gate(request: &Request<Incoming>, token: Option<&[u8]>) -> Option<Answer> {
    if request.uri().path() != ENDPOINT {
        return Some(plain(
            StatusCode::NOT_FOUND,
            &format!("not found: the MCP endpoint is {ENDPOINT}"),
        ));
    }
    let token = token?;
    let given = request
        .headers()
        .get(hyper::header::AUTHORIZATION)
        .and_then(|v| v.as_bytes().strip_prefix(b"Bearer "));
    if given.is_some_and(|given| same(given, token)) {
        return None;
    }
    let mut refused = plain(
        StatusCode::UNAUTHORIZED,
        "unauthorized: this server needs Authorization: Bearer TOKEN",
    );
    refused.headers_mut().insert(
        hyper::header::WWW_AUTHENTICATE,
        hyper::header::HeaderValue::from_static("Bearer"),
    );
    Some(refused)
}

/// A POST's body, read whole within [`MAX_BODY`] (413 past it); a JSON body that does not
/// parse is answered here with JSON-RPC's parse error (400), as the specification's JSON-RPC
/// requires, where rmcp would answer 415. Other methods pass as they are.
async fn body(request: Request<Incoming>) -> std::result::Result<Request<Full<Bytes>>, Answer> {
    let (parts, body) = request.into_parts();
    if parts.method != hyper::Method::POST {
        return Ok(Request::from_parts(parts, Full::new(Bytes::new())));
    }
    let bytes = match http_body_util::Limited::new(body, MAX_BODY).collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(e) if e.is::<http_body_util::LengthLimitError>() => {
            return Err(plain(
                StatusCode::PAYLOAD_TOO_LARGE,
                &format!("payload too large: a request body is at most {MAX_BODY} bytes"),
            ));
        }
        Err(_) => {
            return Err(plain(
                StatusCode::BAD_REQUEST,
                "bad request: the body could not be read",
            ));
        }
    };
    let json = parts
        .headers
        .get(hyper::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| {
            v.trim_start()
                .to_ascii_lowercase()
                .starts_with("application/json")
        });
    if json && let Err(e) = serde_json::from_slice::<serde::de::IgnoredAny>(&bytes) {
        let message = format!("Parse error: {e}");
        let body = serde_json::json!({"jsonrpc": "2.0", "id": null,
                                      "error": {"code": -32700, "message": message}});
        return Err(Response::builder()
            .status(StatusCode::BAD_REQUEST)
            .header("content-type", "application/json")
            .body(Full::new(Bytes::from(body.to_string())).boxed())
            .expect("a valid response"));
    }
    Ok(Request::from_parts(parts, Full::new(bytes)))
}

/// Compares two byte strings in time that depends on their lengths only.
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_default_to_loopback() {
        assert_eq!(parse_addr("8080").unwrap().to_string(), "127.0.0.1:8080");
        assert_eq!(
            parse_addr("localhost:0").unwrap().to_string(),
            "127.0.0.1:0"
        );
        assert_eq!(parse_addr("[::1]:9").unwrap().to_string(), "[::1]:9");
        assert_eq!(parse_addr("0.0.0.0:80").unwrap().to_string(), "0.0.0.0:80");
        assert!(parse_addr("example.com:80").is_err());
        assert!(parse_addr("127.0.0.1").is_err());
        assert!(parse_addr(&"9".repeat(5000)).unwrap_err().len() < 400);
    }

    #[test]
    fn tokens_compare_whole() {
        assert!(same(b"secret", b"secret"));
        assert!(!same(b"secret", b"secreT"));
        assert!(!same(b"secret", b"secret2"));
        assert!(!same(b"", b"x"));
    }
}
