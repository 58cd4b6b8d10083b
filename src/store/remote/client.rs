//! A blocking S3 client: `rusty-s3` builds each request's URL and parses the XML replies,
//! [`super::sigv4`] signs it in the `Authorization` header, `ureq` sends it (ARCHITECTURE.md
//! "The object store" says why these). Every request is bounded by the configured timeout,
//! and no message names the bucket, the endpoint or a URL.

use std::io::Read;
use std::time::Duration;

use rusty_s3::actions::{
    CompleteMultipartUpload, CreateMultipartUpload, ListObjectsV2, ListParts, S3Action, UploadPart,
};
use rusty_s3::{Bucket, UrlStyle};

use super::{Credentials, RemoteConfig, sigv4};
use crate::error::{Error, Result};

/// The URLs are built unsigned (the signature goes in a header), so this is unused by S3.
const SIGNED_FOR: Duration = Duration::from_secs(900);

/// Payloads up to this size go in one PUT; larger ones in parts of this size (multipart
/// upload), each sent from the memory-mapped file, so nothing is held whole in memory.
pub const PART_SIZE: usize = 8 << 20;

/// The user metadata header carrying a payload's full BLAKE3 hash.
pub const HASH_HEADER: &str = "x-amz-meta-blake3";

/// A connection to one bucket.
pub struct Client {
    bucket: Bucket,
    credentials: Option<Credentials>,
    region: String,
    agent: ureq::Agent,
    timeout: Duration,
}

/// An answered request.
pub struct Reply {
    /// The HTTP status.
    pub status: u16,
    /// `Last-Modified`, seconds since the Unix epoch.
    pub last_modified: Option<f64>,
    /// The response headers' `x-amz-meta-blake3`.
    pub hash: Option<String>,
    /// The `ETag` header.
    pub etag: Option<String>,
    /// The object's whole size, from the `Content-Range` of a ranged reply.
    pub total: Option<u64>,
    body: ureq::Body,
}

impl Reply {
    /// The body as a reader (no size limit: the caller bounds what it keeps).
    pub fn into_reader(self) -> impl Read {
        self.body.into_reader()
    }

    /// The body as text, at most `limit` bytes.
    pub fn text(mut self, limit: u64) -> Result<String> {
        self.body
            .with_config()
            .limit(limit)
            .read_to_string()
            .map_err(|e| transport("read a reply", &e, Duration::ZERO))
    }
}

/// A multipart upload in progress (ListMultipartUploads).
#[derive(Debug, Clone)]
pub struct Upload {
    /// The key it will complete to.
    pub key: String,
    /// Its upload id.
    pub id: String,
    /// When it was started, seconds since the Unix epoch (0 when the listing does not say).
    pub initiated: f64,
}

/// One object of a listing.
#[derive(Debug, Clone)]
pub struct Listed {
    /// Its key.
    pub key: String,
    /// Its size in bytes.
    pub size: u64,
    /// When it was last written, seconds since the Unix epoch.
    pub modified: f64,
}

impl Client {
    /// A client for the configured bucket (no request is made).
    pub fn new(remote: &RemoteConfig) -> Result<Client> {
        let endpoint = remote
            .endpoint
            .parse()
            .map_err(|_| Error::Usage("SPILL_S3_ENDPOINT: not a valid URL".into()))?;
        let style = match remote.path_style {
            true => UrlStyle::Path,
            false => UrlStyle::VirtualHost,
        };
        let bucket = Bucket::new(
            endpoint,
            style,
            remote.bucket.clone(),
            remote.region.clone(),
        )
        .map_err(|_| Error::Usage("the object store's endpoint or bucket is invalid".into()))?;
        let credentials = remote.credentials.clone();
        let agent = ureq::Agent::config_builder()
            .timeout_global(Some(remote.timeout))
            .http_status_as_error(false)
            .build()
            .into();
        Ok(Client {
            bucket,
            credentials,
            region: remote.region.clone(),
            agent,
            timeout: remote.timeout,
        })
    }

    /// Adds the signature headers (when there are credentials) for `headers` to a request.
    fn signed<B>(
        &self,
        mut request: ureq::RequestBuilder<B>,
        method: &str,
        url: &url::Url,
        headers: &[(&str, &str)],
    ) -> ureq::RequestBuilder<B> {
        for (k, v) in headers {
            request = request.header(*k, *v);
        }
        if let Some(credentials) = &self.credentials {
            let now = jiff::Timestamp::now()
                .strftime("%Y%m%dT%H%M%SZ")
                .to_string();
            for (k, v) in sigv4::sign(method, url, headers, credentials, &self.region, &now) {
                request = request.header(k, v);
            }
        }
        request
    }

    fn reply(
        &self,
        what: &str,
        r: std::result::Result<ureq::http::Response<ureq::Body>, ureq::Error>,
    ) -> Result<Reply> {
        let response = r.map_err(|e| transport(what, &e, self.timeout))?;
        let header = |name: &str| {
            response
                .headers()
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(str::to_string)
        };
        let last_modified = header("last-modified").and_then(|t| http_date(&t));
        let hash = header(HASH_HEADER);
        let etag = header("etag");
        let total = header("content-range")
            .and_then(|v| v.rsplit_once('/').and_then(|(_, t)| t.trim().parse().ok()));
        let status = response.status().as_u16();
        Ok(Reply {
            status,
            last_modified,
            hash,
            etag,
            total,
            body: response.into_body(),
        })
    }

    /// GET an object; `None` when it does not exist.
    pub fn get(&self, key: &str) -> Result<Option<Reply>> {
        let url = self.bucket.get_object(None, key).sign(SIGNED_FOR);
        let request = self.signed(self.agent.get(url.as_str()), "GET", &url, &[]);
        let reply = self.reply("read", request.call())?;
        match reply.status {
            200 => Ok(Some(reply)),
            404 => Ok(None),
            _ => Err(refused("read", reply)),
        }
    }

    /// GET bytes `from..to` (end-exclusive, within the object) of an object with a `Range`
    /// header; `None` when it does not exist. A server that answers with the whole object
    /// (HTTP 200) is refused: reading on would transfer all of it.
    pub fn get_range(&self, key: &str, from: u64, to: u64) -> Result<Option<Reply>> {
        let url = self.bucket.get_object(None, key).sign(SIGNED_FOR);
        let range = format!("bytes={from}-{}", to.saturating_sub(1));
        let headers = [("range", range.as_str())];
        let request = self.signed(self.agent.get(url.as_str()), "GET", &url, &headers);
        let reply = self.reply("read", request.call())?;
        match reply.status {
            206 => Ok(Some(reply)),
            404 => Ok(None),
            200 => Err(Error::Store(
                "the object store answered a ranged read with the whole object (it ignores HTTP Range)".into(),
            )),
            _ => Err(refused("read", reply)),
        }
    }

    /// HEAD an object: its reply, or `None` when it does not exist.
    pub fn head(&self, key: &str) -> Result<Option<Reply>> {
        let url = self.bucket.head_object(None, key).sign(SIGNED_FOR);
        let reply = self.reply(
            "inspect",
            self.signed(self.agent.head(url.as_str()), "HEAD", &url, &[])
                .call(),
        )?;
        match reply.status {
            200 => Ok(Some(reply)),
            404 => Ok(None),
            _ => Err(refused("inspect", reply)),
        }
    }

    /// PUT an object, replacing any (metadata records and tombstones).
    pub fn put(&self, key: &str, body: &[u8]) -> Result<()> {
        let url = self.bucket.put_object(None, key).sign(SIGNED_FOR);
        let reply = self.reply(
            "write",
            self.signed(self.agent.put(url.as_str()), "PUT", &url, &[])
                .send(body),
        )?;
        match reply.status {
            200 => Ok(()),
            _ => Err(refused("write", reply)),
        }
    }

    /// PUT a payload only if no object has its key (`If-None-Match: *`), with its hash in the
    /// object's metadata. Returns false when it was already there: identical content, since
    /// keys are content hashes, so a concurrent writer of the same output is not an error.
    pub fn put_new(&self, key: &str, body: &[u8], hash: &str) -> Result<bool> {
        let url = self.bucket.put_object(None, key).sign(SIGNED_FOR);
        let headers = [("if-none-match", "*"), (HASH_HEADER, hash)];
        let request = self.signed(self.agent.put(url.as_str()), "PUT", &url, &headers);
        let reply = self.reply("write", request.send(body))?;
        created(reply, "write")
    }

    /// Uploads a large payload in parts ([`PART_SIZE`]) and completes it only if no object has
    /// its key. Any failure aborts the upload, so nothing appears under the final name.
    pub fn put_new_multipart(&self, key: &str, data: &[u8], hash: &str) -> Result<bool> {
        let url = self
            .bucket
            .create_multipart_upload(None, key)
            .sign(SIGNED_FOR);
        let headers = [(HASH_HEADER, hash)];
        let request = self.signed(self.agent.post(url.as_str()), "POST", &url, &headers);
        let reply = self.reply("start an upload", request.send(&[][..]))?;
        if reply.status != 200 {
            return Err(refused("start an upload", reply));
        }
        let body = reply.text(1 << 20)?;
        let upload = CreateMultipartUpload::parse_response(&body).map_err(|_| {
            Error::Store("the object store's reply to an upload was not understood".into())
        })?;
        let id = upload.upload_id().to_string();
        let result = self.send_parts(key, &id, data);
        if result.is_err() {
            // Best effort: an upload never completed leaves no object under the key either way,
            // and `gc` aborts one this could not (the store down mid-upload).
            let _ = self.abort(key, &id);
        }
        result
    }

    /// Aborts a multipart upload: its parts are dropped (aborting one that is gone succeeds).
    pub fn abort(&self, key: &str, id: &str) -> Result<()> {
        let url = self
            .bucket
            .abort_multipart_upload(None, key, id)
            .sign(SIGNED_FOR);
        let reply = self.reply(
            "abort an upload",
            self.signed(self.agent.delete(url.as_str()), "DELETE", &url, &[])
                .call(),
        )?;
        match reply.status {
            200 | 204 | 404 => Ok(()),
            _ => Err(refused("abort an upload", reply)),
        }
    }

    /// Every multipart upload in progress under `prefix` (ListMultipartUploads, following
    /// its markers).
    pub fn uploads(&self, prefix: &str) -> Result<Vec<Upload>> {
        let mut uploads = Vec::new();
        let mut markers: Option<(String, String)> = None;
        loop {
            let mut url = self.bucket.base_url().clone();
            {
                let mut query = url.query_pairs_mut();
                query
                    .append_pair("uploads", "")
                    .append_pair("prefix", prefix);
                if let Some((key, id)) = &markers {
                    query
                        .append_pair("key-marker", key)
                        .append_pair("upload-id-marker", id);
                }
            }
            let reply = self.reply(
                "list uploads",
                self.signed(self.agent.get(url.as_str()), "GET", &url, &[])
                    .call(),
            )?;
            if reply.status != 200 {
                return Err(refused("list uploads", reply));
            }
            let body = reply.text(64 << 20)?;
            for upload in xml_elements(&body, "Upload") {
                let (Some(key), Some(id)) = (xml_text(upload, "Key"), xml_text(upload, "UploadId"))
                else {
                    continue;
                };
                let initiated = xml_text(upload, "Initiated")
                    .as_deref()
                    .and_then(iso_date)
                    .unwrap_or(0.0);
                uploads.push(Upload { key, id, initiated });
            }
            let truncated = xml_text(&body, "IsTruncated").as_deref() == Some("true");
            let next = xml_text(&body, "NextKeyMarker").zip(xml_text(&body, "NextUploadIdMarker"));
            match (truncated, next) {
                (true, Some(next)) if markers.as_ref() != Some(&next) => markers = Some(next),
                _ => return Ok(uploads),
            }
        }
    }

    /// What an upload in progress holds so far (ListParts): the sum of its parts' sizes, and
    /// its last activity, the latest of its start and its parts' uploads (seconds since the
    /// epoch): an upload still sending parts is not abandoned, however long ago it began.
    pub fn upload_parts(&self, upload: &Upload) -> Result<(u64, f64)> {
        let mut size = 0u64;
        let mut last = upload.initiated;
        let mut marker: Option<u16> = None;
        loop {
            let mut action = ListParts::new(&self.bucket, None, &upload.key, &upload.id);
            if let Some(m) = marker {
                action.set_part_number_marker(m);
            }
            let url = action.sign(SIGNED_FOR);
            let reply = self.reply(
                "list an upload's parts",
                self.signed(self.agent.get(url.as_str()), "GET", &url, &[])
                    .call(),
            )?;
            match reply.status {
                200 => {}
                // Completed or aborted since it was listed: it holds nothing more.
                404 => return Ok((size, last)),
                _ => return Err(refused("list an upload's parts", reply)),
            }
            // Read by hand, like the uploads: servers differ in the XML namespace they name.
            let body = reply.text(64 << 20)?;
            for part in xml_elements(&body, "Part") {
                if let Some(t) = xml_text(part, "LastModified").as_deref().and_then(iso_date) {
                    last = last.max(t);
                }
                size += xml_text(part, "Size")
                    .and_then(|s| s.trim().parse::<u64>().ok())
                    .ok_or_else(|| {
                        Error::Store("the object store's list of parts was not understood".into())
                    })?;
            }
            let truncated = xml_text(&body, "IsTruncated").as_deref() == Some("true");
            let next = xml_text(&body, "NextPartNumberMarker").and_then(|m| m.trim().parse().ok());
            match (truncated, next) {
                (true, Some(m)) if Some(m) != marker => marker = Some(m),
                _ => return Ok((size, last)),
            }
        }
    }

    fn send_parts(&self, key: &str, id: &str, data: &[u8]) -> Result<bool> {
        let mut etags = Vec::new();
        for (i, part) in data.chunks(PART_SIZE).enumerate() {
            let number = u16::try_from(i + 1).map_err(|_| {
                Error::Store("the payload has too many parts for one upload".into())
            })?;
            let url = UploadPart::new(&self.bucket, None, key, number, id).sign(SIGNED_FOR);
            let reply = self.reply(
                "upload a part",
                self.signed(self.agent.put(url.as_str()), "PUT", &url, &[])
                    .send(part),
            )?;
            if reply.status != 200 {
                return Err(refused("upload a part", reply));
            }
            let etag = reply
                .etag
                .ok_or_else(|| Error::Store("the object store sent no ETag for a part".into()))?;
            etags.push(etag);
        }
        let complete = CompleteMultipartUpload::new(
            &self.bucket,
            None,
            key,
            id,
            etags.iter().map(String::as_str),
        );
        let url = complete.sign(SIGNED_FOR);
        let body = complete.body();
        let headers = [("if-none-match", "*")];
        let request = self.signed(self.agent.post(url.as_str()), "POST", &url, &headers);
        let reply = self.reply("complete an upload", request.send(body.as_bytes()))?;
        created(reply, "complete an upload")
    }

    /// DELETE an object (deleting one that is not there succeeds).
    pub fn delete(&self, key: &str) -> Result<()> {
        let url = self.bucket.delete_object(None, key).sign(SIGNED_FOR);
        let reply = self.reply(
            "delete",
            self.signed(self.agent.delete(url.as_str()), "DELETE", &url, &[])
                .call(),
        )?;
        match reply.status {
            200 | 204 | 404 => Ok(()),
            _ => Err(refused("delete", reply)),
        }
    }

    /// Every object under `prefix` (following continuation tokens), and with a `delimiter`
    /// the common prefixes too.
    pub fn list(
        &self,
        prefix: &str,
        delimiter: Option<&str>,
    ) -> Result<(Vec<Listed>, Vec<String>)> {
        let mut objects = Vec::new();
        let mut prefixes = Vec::new();
        let mut token: Option<String> = None;
        loop {
            let mut action = ListObjectsV2::new(&self.bucket, None);
            action.with_prefix(prefix);
            if let Some(d) = delimiter {
                action.with_delimiter(d);
            }
            if let Some(t) = &token {
                action.with_continuation_token(t.as_str());
            }
            let url = action.sign(SIGNED_FOR);
            let reply = self.reply(
                "list",
                self.signed(self.agent.get(url.as_str()), "GET", &url, &[])
                    .call(),
            )?;
            if reply.status != 200 {
                return Err(refused("list", reply));
            }
            let body = reply.text(64 << 20)?;
            let page = ListObjectsV2::parse_response(&body).map_err(|_| {
                Error::Store("the object store's listing was not understood".into())
            })?;
            for o in page.contents {
                objects.push(Listed {
                    size: o.size.unwrap_or(0),
                    modified: o.last_modified.as_deref().and_then(iso_date).unwrap_or(0.0),
                    key: o.key,
                });
            }
            prefixes.extend(page.common_prefixes.into_iter().map(|p| p.prefix));
            token = page.next_continuation_token;
            if token.is_none() {
                return Ok((objects, prefixes));
            }
        }
    }
}

/// The answer to a create-only write: created, already there, or refused.
fn created(reply: Reply, what: &str) -> Result<bool> {
    match reply.status {
        200 => Ok(true),
        // 412: an object with this key exists; 409: another writer is creating it right now.
        // Keys are content hashes, so either way the same bytes are (or will be) there.
        412 | 409 => Ok(false),
        _ => Err(refused(what, reply)),
    }
}

/// The error for a request the store answered with a failure: the status and the S3 error
/// code, never the bucket, the endpoint or the URL.
fn refused(what: &str, reply: Reply) -> Error {
    let status = reply.status;
    let body = reply.text(64 << 10).unwrap_or_default();
    let code = body
        .split_once("<Code>")
        .and_then(|(_, rest)| rest.split_once("</Code>"))
        .map(|(code, _)| code.to_string())
        .filter(|c| c.len() <= 64 && c.bytes().all(|b| b.is_ascii_alphanumeric()));
    let why = match (status, code.as_deref()) {
        (
            _,
            Some("InvalidAccessKeyId" | "SignatureDoesNotMatch" | "ExpiredToken" | "InvalidToken"),
        ) => {
            "refused the credentials (check AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN or the profile)"
        }
        (403, _) => "denied access (the credentials' policy does not allow it)",
        (_, Some("NoSuchBucket")) => "has no such bucket",
        (507, _) | (_, Some("EntityTooLarge" | "QuotaExceeded")) => "is full or refused the size",
        (500..=599, _) => "failed on its side",
        _ => "refused the request",
    };
    let code = code.map(|c| format!(" {c}")).unwrap_or_default();
    Error::Store(format!(
        "the object store {why}: could not {what} (HTTP {status}{code})"
    ))
}

/// The error for a request that got no answer.
fn transport(what: &str, e: &ureq::Error, timeout: Duration) -> Error {
    let why = match e {
        ureq::Error::Timeout(_) => format!("did not answer within {}s", timeout.as_secs_f64()),
        ureq::Error::Io(io) => format!("could not be reached ({})", io.kind()),
        ureq::Error::ConnectionFailed => "could not be reached (connection failed)".to_string(),
        ureq::Error::HostNotFound => "could not be reached (host not found)".to_string(),
        _ => "could not be reached".to_string(),
    };
    Error::Store(format!(
        "the object store {why}: could not {what} (SPILL_S3_TIMEOUT bounds each request)"
    ))
}

/// The contents of every `<name>…</name>` element of an XML reply, in order.
fn xml_elements<'a>(text: &'a str, name: &str) -> Vec<&'a str> {
    let (open, close) = (format!("<{name}>"), format!("</{name}>"));
    let mut out = Vec::new();
    let mut rest = text;
    while let Some((_, after)) = rest.split_once(open.as_str()) {
        let Some((inside, tail)) = after.split_once(close.as_str()) else {
            break;
        };
        out.push(inside);
        rest = tail;
    }
    out
}

/// The text of the first `<name>` element of an XML fragment, unescaped.
fn xml_text(text: &str, name: &str) -> Option<String> {
    let inside = *xml_elements(text, name).first()?;
    Some(
        inside
            .replace("&lt;", "<")
            .replace("&gt;", ">")
            .replace("&quot;", "\"")
            .replace("&apos;", "'")
            .replace("&amp;", "&"),
    )
}

/// An HTTP date (`Tue, 01 Dec 2026 11:26:12 GMT`) as seconds since the epoch.
fn http_date(text: &str) -> Option<f64> {
    jiff::fmt::rfc2822::parse(text)
        .ok()
        .map(|z| z.timestamp().as_millisecond() as f64 / 1000.0)
}

/// An ISO 8601 time (`2026-12-01T11:26:12.000Z`) as seconds since the epoch.
fn iso_date(text: &str) -> Option<f64> {
    text.parse::<jiff::Timestamp>()
        .ok()
        .map(|t| t.as_millisecond() as f64 / 1000.0)
}
