//! JSON-RPC 2.0 over newline-delimited stdio, on raw bytes: reading one message line of any
//! length, looking at a message's head (id, method, params) without decoding the rest, and the
//! error replies spill writes itself.
//!
//! The proxy frames both of its sides with this instead of an SDK transport so that a message
//! it does not change is written back byte for byte, and so that a line is bounded only by
//! [`MAX_LINE`], not by a transport's cap (rmcp's stdio codec stops at 16 MiB; a 100 MB tool
//! result must still arrive whole to be stored).

use std::borrow::Cow;
use std::io::{self, BufRead};

use serde::Deserialize;
use serde_json::value::RawValue;

/// The longest message line read whole (1 GiB). A longer one is skipped to its end and
/// reported as garbage: nothing in MCP needs it, and memory must stay bounded.
pub const MAX_LINE: usize = 1 << 30;

/// JSON-RPC error codes spill uses: the SDKs' "connection closed" and "request timeout", the
/// protocol's invalid-params and internal-error.
pub mod code {
    /// The downstream server is gone (exited, or could not be written to).
    pub const CONNECTION_CLOSED: i64 = -32000;
    /// The downstream server did not answer within `--timeout`.
    pub const REQUEST_TIMEOUT: i64 = -32001;
    /// A resource that does not exist (the MCP specification's code for an unknown URI).
    pub const RESOURCE_NOT_FOUND: i64 = -32002;
    /// The request's parameters are not usable.
    pub const INVALID_PARAMS: i64 = -32602;
    /// Anything else: the downstream wrote something that is not JSON-RPC.
    pub const INTERNAL_ERROR: i64 = -32603;
}

/// What one line holds.
pub enum Line {
    /// A message line (without its `\n`).
    Message(Vec<u8>),
    /// A line longer than [`MAX_LINE`], skipped to its end.
    TooLong(usize),
    /// End of input.
    End,
}

/// Reads the next non-blank line. The bytes are the line as written, less the `\n` (a `\r`
/// before it stays, so a pass-through is exact).
pub fn read_line(reader: &mut dyn BufRead) -> io::Result<Line> {
    loop {
        let mut line = Vec::new();
        let mut skipped = 0usize;
        loop {
            let buf = match reader.fill_buf() {
                Ok(b) => b,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if buf.is_empty() {
                if line.is_empty() && skipped == 0 {
                    return Ok(Line::End);
                }
                break;
            }
            let (take, done) = match memchr::memchr(b'\n', buf) {
                Some(i) => (i, true),
                None => (buf.len(), false),
            };
            if skipped > 0 || line.len() + take > MAX_LINE {
                skipped += line.len() + take;
                line = Vec::new();
            } else {
                line.extend_from_slice(&buf[..take]);
            }
            reader.consume(take + usize::from(done));
            if done {
                break;
            }
        }
        if skipped > 0 {
            return Ok(Line::TooLong(skipped));
        }
        if line.iter().all(|b| b.is_ascii_whitespace()) {
            continue;
        }
        return Ok(Line::Message(line));
    }
}

/// A message line's bytes: in memory, or (past the spool size) in an unnamed file, mapped.
pub enum Bytes {
    /// Held in memory.
    Heap(Vec<u8>),
    /// Written to an unnamed file as it was read, and mapped.
    Map(memmap2::Mmap),
}

impl std::ops::Deref for Bytes {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match self {
            Bytes::Heap(v) => v,
            Bytes::Map(m) => m,
        }
    }
}

/// What [`read_message`] read.
pub enum Message {
    /// A message line (without its `\n`).
    Line(Bytes),
    /// A line longer than [`MAX_LINE`], skipped to its end.
    TooLong(usize),
    /// End of input.
    End,
}

/// Reads the next non-blank line as [`read_line`] does, except that a line longer than
/// `spool_at` bytes goes on into an unnamed file in `dir` as it is read and comes back mapped:
/// the heap holds at most `spool_at` bytes of a line, whatever its length (up to [`MAX_LINE`]).
pub fn read_message(
    reader: &mut dyn BufRead,
    spool_at: usize,
    dir: &std::path::Path,
) -> io::Result<Message> {
    use std::io::Write;
    loop {
        let mut line = Vec::new();
        let mut file: Option<std::io::BufWriter<std::fs::File>> = None;
        let mut total = 0usize;
        let mut skipped = false;
        loop {
            let buf = match reader.fill_buf() {
                Ok(b) => b,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if buf.is_empty() {
                if total == 0 {
                    return Ok(Message::End);
                }
                break;
            }
            let (take, done) = match memchr::memchr(b'\n', buf) {
                Some(i) => (i, true),
                None => (buf.len(), false),
            };
            if skipped || total + take > MAX_LINE {
                skipped = true;
                line = Vec::new();
                file = None;
            } else if let Some(f) = file.as_mut() {
                f.write_all(&buf[..take])?;
            } else if line.len() + take > spool_at {
                std::fs::create_dir_all(dir)?;
                let mut f = std::io::BufWriter::with_capacity(1 << 20, tempfile::tempfile_in(dir)?);
                f.write_all(&line)?;
                f.write_all(&buf[..take])?;
                line = Vec::new();
                file = Some(f);
            } else {
                line.extend_from_slice(&buf[..take]);
            }
            total += take;
            reader.consume(take + usize::from(done));
            if done {
                break;
            }
        }
        if skipped {
            return Ok(Message::TooLong(total));
        }
        if let Some(f) = file {
            let f = f.into_inner().map_err(|e| e.into_error())?;
            // SAFETY: the file is unnamed and only this process holds it; nothing changes it
            // while it is mapped.
            let map = unsafe { memmap2::Mmap::map(&f)? };
            return Ok(Message::Line(Bytes::Map(map)));
        }
        if line.iter().all(|b| b.is_ascii_whitespace()) {
            continue;
        }
        return Ok(Message::Line(Bytes::Heap(line)));
    }
}

/// The head of a JSON-RPC message; everything else stays undecoded.
#[derive(Debug, Deserialize)]
pub struct Head<'a> {
    /// The id of a request or response (absent in a notification).
    #[serde(borrow, default)]
    pub id: Option<&'a RawValue>,
    /// The method of a request or notification.
    #[serde(borrow, default)]
    pub method: Option<Cow<'a, str>>,
    /// The parameters, raw.
    #[serde(borrow, default)]
    pub params: Option<&'a RawValue>,
    /// A response's result, raw.
    #[serde(borrow, default)]
    pub result: Option<&'a RawValue>,
    /// A response's error, raw.
    #[serde(borrow, default)]
    pub error: Option<&'a RawValue>,
}

impl<'a> Head<'a> {
    /// Reads the head of a message line; `None` when the line is not one JSON object.
    pub fn parse(line: &'a [u8]) -> Option<Head<'a>> {
        let text = std::str::from_utf8(line).ok()?;
        if !text.trim_start().starts_with('{') {
            return None;
        }
        serde_json::from_str(text).ok()
    }

    /// True for a response (an id and no method).
    pub fn is_response(&self) -> bool {
        self.id.is_some() && self.method.is_none()
    }

    /// True for a request (an id and a method).
    pub fn is_request(&self) -> bool {
        self.id.is_some() && self.method.is_some()
    }
}

/// The canonical text of an id (`1`, `"a"`), so that a server re-encoding it still matches.
pub fn id_key(id: &RawValue) -> String {
    serde_json::from_str::<serde_json::Value>(id.get())
        .map(|v| v.to_string())
        .unwrap_or_else(|_| id.get().to_string())
}

/// A JSON-RPC error response for `id` (the id's canonical text, as [`id_key`] gives it).
pub fn error_reply(id: &str, code: i64, message: &str) -> Vec<u8> {
    let message = serde_json::to_string(message).expect("a string serialises");
    format!(r#"{{"jsonrpc":"2.0","id":{id},"error":{{"code":{code},"message":{message}}}}}"#)
        .into_bytes()
}

/// A JSON-RPC result response for `id`.
pub fn result_reply(id: &str, result: &serde_json::Value) -> Vec<u8> {
    format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{result}}}"#).into_bytes()
}

/// The first characters of a line, escaped, for a message about it.
pub fn excerpt(line: &[u8]) -> String {
    let text = String::from_utf8_lossy(&line[..line.len().min(80)]);
    let mut shown: String = text.escape_debug().collect();
    if line.len() > 80 {
        shown.push('…');
    }
    shown
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(input: &[u8]) -> Vec<String> {
        let mut reader = io::BufReader::with_capacity(4, input);
        let mut out = Vec::new();
        loop {
            match read_line(&mut reader).unwrap() {
                Line::Message(l) => out.push(String::from_utf8(l).unwrap()),
                Line::TooLong(n) => out.push(format!("<{n}>")),
                Line::End => return out,
            }
        }
    }

    #[test]
    fn lines_keep_their_bytes_and_blank_lines_are_skipped() {
        assert_eq!(
            lines(b"{\"a\":1}\r\n\n  \n{\"b\":\n2}\nlast"),
            ["{\"a\":1}\r", "{\"b\":", "2}", "last"]
        );
        assert!(lines(b"").is_empty());
    }

    #[test]
    fn a_line_past_the_spool_size_is_read_whole_from_a_file() {
        let dir = tempfile::tempdir().unwrap();
        let long = "x".repeat(100);
        let input = format!("{{\"a\":1}}\n\n{long}\nlast");
        let mut reader = io::BufReader::with_capacity(7, input.as_bytes());
        let mut seen = Vec::new();
        loop {
            match read_message(&mut reader, 10, dir.path()).unwrap() {
                Message::Line(Bytes::Heap(l)) => seen.push(("heap", String::from_utf8(l).unwrap())),
                Message::Line(Bytes::Map(m)) => {
                    seen.push(("map", String::from_utf8(m.to_vec()).unwrap()))
                }
                Message::TooLong(n) => seen.push(("long", n.to_string())),
                Message::End => break,
            }
        }
        assert_eq!(
            seen,
            [
                ("heap", "{\"a\":1}".to_string()),
                ("map", long),
                ("heap", "last".to_string())
            ]
        );
    }

    #[test]
    fn heads_tell_requests_responses_and_notifications_apart() {
        let req = br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"x"}}"#;
        let head = Head::parse(req).unwrap();
        assert!(head.is_request() && !head.is_response());
        assert_eq!(head.params.unwrap().get(), r#"{"name":"x"}"#);
        let resp = Head::parse(br#"{"jsonrpc":"2.0","id":"7","result":{}}"#).unwrap();
        assert!(resp.is_response());
        assert_eq!(id_key(resp.id.unwrap()), "\"7\"");
        let note = Head::parse(br#"{"jsonrpc":"2.0","method":"notifications/x"}"#).unwrap();
        assert!(!note.is_request() && !note.is_response());
        assert!(Head::parse(b"starting server...").is_none());
        assert!(Head::parse(b"[1,2]").is_none());
    }

    #[test]
    fn error_replies_are_json_rpc() {
        let reply = error_reply("3", code::REQUEST_TIMEOUT, "no \"answer\"");
        let v: serde_json::Value = serde_json::from_slice(&reply).unwrap();
        assert_eq!(v["id"], 3);
        assert_eq!(v["error"]["code"], -32001);
        assert_eq!(v["error"]["message"], "no \"answer\"");
    }
}
