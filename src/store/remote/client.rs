//! A blocking S3 client: `rusty-s3` builds each request's URL and parses the XML replies,
//! [`super::sigv4`] signs it in the `Authorization` header, `ureq` sends it (ARCHITECTURE.md
//! "The object store" says why these). No message names the bucket, the endpoint or a URL.
//!
//! What a hostile or broken server cannot do (SECURITY.md, "What an object store promises"):
//! - make a request address a key outside the prefix: every key is checked where its URL is
//!   built ([`Client::object_url`]): the prefix, a scope name as spill writes them, and a
//!   payload's name (16 hex digits, with `.meta`, `.lines` or `.gone`), nothing else;
//! - send the request, or its credentials, anywhere else: redirects are never followed
//!   (S3 needs none); a 3xx is an error;
//! - hold a command: every request of one client shares one deadline, the configured timeout
//!   from its first request, the reading of reply bodies included ([`Client::new`]);
//! - loop a listing: continuation tokens seen before and more than [`MAX_PAGES`] pages are
//!   errors, never a partial listing (`gc` must not act on one);
//! - put its own words in a message: only the S3 error codes of [`KNOWN_CODES`] are named.

use std::collections::HashSet;
use std::io::Read;
use std::time::{Duration, Instant};

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

/// The slowest transfer a deadline allows for, in bytes per second ([`Client::allow`]): 1 MiB/s.
pub const MIN_RATE: f64 = (1u64 << 20) as f64;

/// The most pages one listing (of objects, uploads or an upload's parts) may take: a million
/// objects at S3's 1,000 a page. A listing that needs more is an error, not a partial answer.
pub const MAX_PAGES: usize = 1_000;

/// The S3 error codes a message may name; any other `<Code>` a server sends is left out, so a
/// server's own words never reach the terminal (or the model reading it).
const KNOWN_CODES: &[&str] = &[
    "AccessDenied",
    "AllAccessDisabled",
    "AuthorizationHeaderMalformed",
    "BadDigest",
    "ConditionalRequestConflict",
    "EntityTooLarge",
    "ExpiredToken",
    "InternalError",
    "InvalidAccessKeyId",
    "InvalidArgument",
    "InvalidBucketName",
    "InvalidPart",
    "InvalidPartOrder",
    "InvalidRange",
    "InvalidRequest",
    "InvalidToken",
    "KeyTooLongError",
    "MethodNotAllowed",
    "MissingContentLength",
    "NoSuchBucket",
    "NoSuchKey",
    "NoSuchUpload",
    "NotImplemented",
    "OperationAborted",
    "PreconditionFailed",
    "QuotaExceeded",
    "RequestTimeTooSkewed",
    "RequestTimeout",
    "ServiceUnavailable",
    "SignatureDoesNotMatch",
    "SlowDown",
    "TokenRefreshRequired",
];

/// A connection to one bucket.
pub struct Client {
    bucket: Bucket,
    /// `PREFIX/` (or nothing): every key a request names lies under it.
    root: String,
    credentials: Option<Credentials>,
    region: String,
    agent: ureq::Agent,
    timeout: Duration,
    /// Set by the first request: the configured timeout from then on bounds every request.
    deadline: std::cell::Cell<Option<Instant>>,
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
    /// The first and last byte (inclusive) a ranged reply holds, from its `Content-Range`.
    pub range: Option<(u64, u64)>,
    /// The `Content-Length` header.
    pub length: Option<u64>,
    timeout: Duration,
    body: ureq::Body,
}

impl Reply {
    /// The body as a reader of at most `limit` bytes: a longer body is an error when read
    /// (not cut short silently), whatever its `Content-Length` says.
    pub fn into_reader(self, limit: u64) -> impl Read {
        let timeout = self.timeout;
        Bounded {
            inner: self.body.into_reader(),
            left: limit,
            timeout,
        }
    }

    /// The body as text, at most `limit` bytes.
    pub fn text(mut self, limit: u64) -> Result<String> {
        self.body
            .with_config()
            .limit(limit)
            .read_to_string()
            .map_err(|e| transport("read a reply", &e, self.timeout))
    }
}

/// A reply body that may hold at most `left` more bytes.
struct Bounded<R> {
    inner: R,
    left: u64,
    timeout: Duration,
}

impl<R: Read> Read for Bounded<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        // One byte more than allowed is read to tell a body that is too long from one that fits.
        let want = (buf.len() as u64).min(self.left.saturating_add(1)) as usize;
        let n = self.inner.read(&mut buf[..want]).map_err(|e| {
            // ureq reports its deadline as an I/O error of kind TimedOut.
            match e.kind() {
                std::io::ErrorKind::TimedOut => std::io::Error::new(
                    std::io::ErrorKind::TimedOut,
                    format!("did not finish within {}", seconds(self.timeout)),
                ),
                _ => e,
            }
        })?;
        if n as u64 > self.left {
            return Err(std::io::Error::new(
                std::io::ErrorKind::FileTooLarge,
                "the reply is longer than the object it should hold",
            ));
        }
        self.left -= n as u64;
        Ok(n)
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
        // No redirect is followed: S3 answers where it is asked, and following one would send
        // the request (and a session token) to wherever the reply points.
        let agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .max_redirects(0)
            .build()
            .into();
        Ok(Client {
            bucket,
            root: remote.scope_root(),
            credentials,
            region: remote.region.clone(),
            agent,
            timeout: remote.timeout,
            deadline: std::cell::Cell::new(None),
        })
    }

    /// The URL of the object `key`, built by `build` (rusty-s3's action for it), once `key` is
    /// known to be one spill writes ([`check_key`]) and the URL to address exactly it: the one
    /// place every object request's URL comes from.
    fn object_url(&self, key: &str, build: impl FnOnce(&Bucket) -> url::Url) -> Result<url::Url> {
        check_key(&self.root, key)?;
        let url = build(&self.bucket);
        let base = self.bucket.base_url().path().trim_end_matches('/');
        if url.path() != format!("{base}/{key}") {
            return Err(outside());
        }
        Ok(url)
    }

    /// A listing's prefix: the prefix itself, or one scope under it.
    fn check_prefix(&self, prefix: &str) -> Result<()> {
        let scope = prefix
            .strip_prefix(self.root.as_str())
            .ok_or_else(outside)?;
        match scope.strip_suffix('/') {
            None if scope.is_empty() => Ok(()),
            Some(name) if crate::store::validate_scope(name).is_ok() => Ok(()),
            _ => Err(outside()),
        }
    }

    /// Gives the deadline time to move `bytes` more at [`MIN_RATE`]: an upload or download
    /// of a large payload is bounded by the timeout plus its size over that rate, never more.
    pub fn allow(&self, bytes: u64) {
        let base = self
            .deadline
            .get()
            .unwrap_or_else(|| Instant::now() + self.timeout);
        let extra = Duration::from_secs_f64(bytes as f64 / MIN_RATE);
        self.deadline.set(Some(base + extra));
    }

    /// The time left before the deadline (which the first request sets), for one request.
    fn time_left(&self, what: &str) -> Result<Duration> {
        let deadline = match self.deadline.get() {
            Some(d) => d,
            None => {
                let d = Instant::now() + self.timeout;
                self.deadline.set(Some(d));
                d
            }
        };
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(timed_out(what, self.timeout));
        }
        Ok(left)
    }

    /// A request to `url`, bounded by the deadline and signed.
    fn prepared<B>(
        &self,
        what: &str,
        request: ureq::RequestBuilder<B>,
        method: &str,
        url: &url::Url,
        headers: &[(&str, &str)],
    ) -> Result<ureq::RequestBuilder<B>> {
        let left = self.time_left(what)?;
        let request = request.config().timeout_global(Some(left)).build();
        Ok(self.signed(request, method, url, headers))
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
        let content_range = header("content-range");
        let total = content_range
            .as_deref()
            .and_then(|v| v.rsplit_once('/').and_then(|(_, t)| t.trim().parse().ok()));
        let range = content_range.as_deref().and_then(parse_range);
        let length = header("content-length").and_then(|v| v.trim().parse().ok());
        let status = response.status().as_u16();
        if (300..400).contains(&status) && status != 304 {
            return Err(Error::Store(format!(
                "the object store answered with a redirect (HTTP {status}), which spill never \
                 follows: could not {what} (set SPILL_S3_ENDPOINT to the bucket's own endpoint, \
                 or AWS_REGION to its region)"
            )));
        }
        Ok(Reply {
            status,
            last_modified,
            hash,
            etag,
            total,
            range,
            length,
            timeout: self.timeout,
            body: response.into_body(),
        })
    }

    /// GET an object; `None` when it does not exist.
    pub fn get(&self, key: &str) -> Result<Option<Reply>> {
        let url = self.object_url(key, |b| b.get_object(None, key).sign(SIGNED_FOR))?;
        let request = self.prepared("read", self.agent.get(url.as_str()), "GET", &url, &[])?;
        let reply = self.reply("read", request.call())?;
        match reply.status {
            200 => Ok(Some(reply)),
            404 => Ok(None),
            _ => Err(refused("read", reply)),
        }
    }

    /// GET bytes `from..to` (end-exclusive, within the object) of an object with a `Range`
    /// header; `None` when it does not exist. A server that answers with the whole object
    /// (HTTP 200) is refused: reading on would transfer all of it; so is a 206 whose
    /// `Content-Range` is not the range asked for (a shifted reply would print other lines
    /// under the numbers asked for).
    pub fn get_range(&self, key: &str, from: u64, to: u64) -> Result<Option<Reply>> {
        let url = self.object_url(key, |b| b.get_object(None, key).sign(SIGNED_FOR))?;
        let range = format!("bytes={from}-{}", to.saturating_sub(1));
        let headers = [("range", range.as_str())];
        let request = self.prepared("read", self.agent.get(url.as_str()), "GET", &url, &headers)?;
        let reply = self.reply("read", request.call())?;
        match reply.status {
            206 if reply.range == Some((from, to.saturating_sub(1)))
                && reply.length.is_none_or(|n| n == to - from) =>
            {
                Ok(Some(reply))
            }
            206 => Err(Error::Store(
                "the object store answered a ranged read with other bytes than those asked for \
                 (its Content-Range is not the range requested); not used"
                    .into(),
            )),
            404 => Ok(None),
            200 => Err(Error::Store(
                "the object store answered a ranged read with the whole object (it ignores HTTP Range)".into(),
            )),
            _ => Err(refused("read", reply)),
        }
    }

    /// HEAD an object: its reply, or `None` when it does not exist.
    pub fn head(&self, key: &str) -> Result<Option<Reply>> {
        let url = self.object_url(key, |b| b.head_object(None, key).sign(SIGNED_FOR))?;
        let request = self.prepared("inspect", self.agent.head(url.as_str()), "HEAD", &url, &[])?;
        let reply = self.reply("inspect", request.call())?;
        match reply.status {
            200 => Ok(Some(reply)),
            404 => Ok(None),
            _ => Err(refused("inspect", reply)),
        }
    }

    /// PUT an object, replacing any (metadata records and tombstones).
    pub fn put(&self, key: &str, body: &[u8]) -> Result<()> {
        let url = self.object_url(key, |b| b.put_object(None, key).sign(SIGNED_FOR))?;
        let request = self.prepared("write", self.agent.put(url.as_str()), "PUT", &url, &[])?;
        let reply = self.reply("write", request.send(body))?;
        match reply.status {
            200 => Ok(()),
            _ => Err(refused("write", reply)),
        }
    }

    /// PUT a payload only if no object has its key (`If-None-Match: *`), with its hash in the
    /// object's metadata. Returns false when it was already there: identical content, since
    /// keys are content hashes, so a concurrent writer of the same output is not an error.
    pub fn put_new(&self, key: &str, body: &[u8], hash: &str) -> Result<bool> {
        let url = self.object_url(key, |b| b.put_object(None, key).sign(SIGNED_FOR))?;
        let headers = [("if-none-match", "*"), (HASH_HEADER, hash)];
        let request =
            self.prepared("write", self.agent.put(url.as_str()), "PUT", &url, &headers)?;
        let reply = self.reply("write", request.send(body))?;
        created(reply, "write")
    }

    /// Uploads a large payload in parts ([`PART_SIZE`]) and completes it only if no object has
    /// its key. Any failure aborts the upload, so nothing appears under the final name.
    pub fn put_new_multipart(&self, key: &str, data: &[u8], hash: &str) -> Result<bool> {
        let what = "start an upload";
        let url = self.object_url(key, |b| {
            b.create_multipart_upload(None, key).sign(SIGNED_FOR)
        })?;
        let headers = [(HASH_HEADER, hash)];
        let request = self.prepared(what, self.agent.post(url.as_str()), "POST", &url, &headers)?;
        let reply = self.reply(what, request.send(&[][..]))?;
        if reply.status != 200 {
            return Err(refused(what, reply));
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
        let what = "abort an upload";
        let url = self.object_url(key, |b| {
            b.abort_multipart_upload(None, key, id).sign(SIGNED_FOR)
        })?;
        let request = self.prepared(what, self.agent.delete(url.as_str()), "DELETE", &url, &[])?;
        let reply = self.reply(what, request.call())?;
        match reply.status {
            200 | 204 | 404 => Ok(()),
            _ => Err(refused(what, reply)),
        }
    }

    /// Every multipart upload in progress under `prefix` (ListMultipartUploads, following
    /// its markers).
    pub fn uploads(&self, prefix: &str) -> Result<Vec<Upload>> {
        let what = "list uploads";
        self.check_prefix(prefix)?;
        let mut uploads = Vec::new();
        let mut markers: Option<(String, String)> = None;
        let mut pages = Pages::default();
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
            let request = self.prepared(what, self.agent.get(url.as_str()), "GET", &url, &[])?;
            let reply = self.reply(what, request.call())?;
            if reply.status != 200 {
                return Err(refused(what, reply));
            }
            let body = reply.text(LIST_PAGE)?;
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
                (true, Some(next)) => {
                    pages.next(what, format!("{}\0{}", next.0, next.1))?;
                    markers = Some(next);
                }
                (true, None) => return Err(not_understood(what)),
                (false, _) => return Ok(uploads),
            }
        }
    }

    /// What an upload in progress holds so far (ListParts): the sum of its parts' sizes, and
    /// its last activity, the latest of its start and its parts' uploads (seconds since the
    /// epoch): an upload still sending parts is not abandoned, however long ago it began.
    pub fn upload_parts(&self, upload: &Upload) -> Result<(u64, f64)> {
        let what = "list an upload's parts";
        let mut size = 0u64;
        let mut last = upload.initiated;
        let mut marker: Option<u16> = None;
        let mut pages = Pages::default();
        loop {
            let url = self.object_url(&upload.key, |b| {
                let mut action = ListParts::new(b, None, &upload.key, &upload.id);
                if let Some(m) = marker {
                    action.set_part_number_marker(m);
                }
                action.sign(SIGNED_FOR)
            })?;
            let request = self.prepared(what, self.agent.get(url.as_str()), "GET", &url, &[])?;
            let reply = self.reply(what, request.call())?;
            match reply.status {
                200 => {}
                // Completed or aborted since it was listed: it holds nothing more.
                404 => return Ok((size, last)),
                _ => return Err(refused(what, reply)),
            }
            // Read by hand, like the uploads: servers differ in the XML namespace they name.
            let body = reply.text(LIST_PAGE)?;
            for part in xml_elements(&body, "Part") {
                if let Some(t) = xml_text(part, "LastModified").as_deref().and_then(iso_date) {
                    last = last.max(t);
                }
                size = size.saturating_add(
                    xml_text(part, "Size")
                        .and_then(|s| s.trim().parse::<u64>().ok())
                        .ok_or_else(|| not_understood(what))?,
                );
            }
            let truncated = xml_text(&body, "IsTruncated").as_deref() == Some("true");
            let next = xml_text(&body, "NextPartNumberMarker").and_then(|m| m.trim().parse().ok());
            match (truncated, next) {
                (true, Some(m)) => {
                    pages.next(what, format!("{m}"))?;
                    marker = Some(m);
                }
                (true, None) => return Err(not_understood(what)),
                (false, _) => return Ok((size, last)),
            }
        }
    }

    fn send_parts(&self, key: &str, id: &str, data: &[u8]) -> Result<bool> {
        let mut etags = Vec::new();
        for (i, part) in data.chunks(PART_SIZE).enumerate() {
            let what = "upload a part";
            let number = u16::try_from(i + 1).map_err(|_| {
                Error::Store("the payload has too many parts for one upload".into())
            })?;
            let url = self.object_url(key, |b| {
                UploadPart::new(b, None, key, number, id).sign(SIGNED_FOR)
            })?;
            let request = self.prepared(what, self.agent.put(url.as_str()), "PUT", &url, &[])?;
            let reply = self.reply(what, request.send(part))?;
            if reply.status != 200 {
                return Err(refused(what, reply));
            }
            let etag = reply
                .etag
                .ok_or_else(|| Error::Store("the object store sent no ETag for a part".into()))?;
            etags.push(etag);
        }
        let what = "complete an upload";
        let complete = CompleteMultipartUpload::new(
            &self.bucket,
            None,
            key,
            id,
            etags.iter().map(String::as_str),
        );
        let url = self.object_url(key, |_| complete.sign(SIGNED_FOR))?;
        let body = complete.body();
        let headers = [("if-none-match", "*")];
        let request = self.prepared(what, self.agent.post(url.as_str()), "POST", &url, &headers)?;
        let reply = self.reply(what, request.send(body.as_bytes()))?;
        created(reply, what)
    }

    /// DELETE an object (deleting one that is not there succeeds).
    pub fn delete(&self, key: &str) -> Result<()> {
        let url = self.object_url(key, |b| b.delete_object(None, key).sign(SIGNED_FOR))?;
        let request = self.prepared(
            "delete",
            self.agent.delete(url.as_str()),
            "DELETE",
            &url,
            &[],
        )?;
        let reply = self.reply("delete", request.call())?;
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
        self.check_prefix(prefix)?;
        let mut objects = Vec::new();
        let mut prefixes = Vec::new();
        let mut token: Option<String> = None;
        let mut pages = Pages::default();
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
            let request = self.prepared("list", self.agent.get(url.as_str()), "GET", &url, &[])?;
            let reply = self.reply("list", request.call())?;
            if reply.status != 200 {
                return Err(refused("list", reply));
            }
            let body = reply.text(LIST_PAGE)?;
            let page = ListObjectsV2::parse_response(&body).map_err(|_| not_understood("list"))?;
            for o in page.contents {
                objects.push(Listed {
                    size: o.size.unwrap_or(0),
                    modified: o.last_modified.as_deref().and_then(iso_date).unwrap_or(0.0),
                    key: o.key,
                });
            }
            prefixes.extend(page.common_prefixes.into_iter().map(|p| p.prefix));
            token = page.next_continuation_token;
            match &token {
                Some(t) => pages.next("list", t.clone())?,
                None => return Ok((objects, prefixes)),
            }
        }
    }
}

/// The most bytes one page of a listing may hold (S3's are under 1 MiB).
const LIST_PAGE: u64 = 16 << 20;

/// The continuation tokens (or markers) of one listing so far: a token seen before would
/// loop it (repeated or alternating), and more than [`MAX_PAGES`] pages are refused.
#[derive(Default)]
struct Pages {
    seen: HashSet<String>,
}

impl Pages {
    fn next(&mut self, what: &str, token: String) -> Result<()> {
        if !self.seen.insert(token) {
            return Err(Error::Store(format!(
                "the object store's listing loops (it sent a continuation token it had sent \
                 before): could not {what}"
            )));
        }
        if self.seen.len() >= MAX_PAGES {
            return Err(Error::Store(format!(
                "the object store's listing goes on past {MAX_PAGES} pages: could not {what}"
            )));
        }
        Ok(())
    }
}

/// A key is one spill writes under the prefix `root`: `root` + a scope name
/// ([`crate::store::validate_scope`]: no `.` or `..`, no `/`, no `%`) + `/` + 16 lowercase hex
/// digits, alone or with `.meta`, `.lines` or `.gone`. Listings are parsed with the same rule
/// ([`parse_key`]).
pub fn check_key(root: &str, key: &str) -> Result<()> {
    match parse_key(root, key) {
        Some(_) => Ok(()),
        None => Err(outside()),
    }
}

/// The scope, the ref and the suffix (`""`, `"meta"`, `"lines"` or `"gone"`) a key names, when
/// it is one spill writes under `root` (see [`check_key`]).
pub fn parse_key<'a>(root: &str, key: &'a str) -> Option<(&'a str, crate::store::Ref, &'a str)> {
    let (scope, name) = key.strip_prefix(root)?.split_once('/')?;
    crate::store::validate_scope(scope).ok()?;
    let (hex, suffix) = name.split_once('.').unwrap_or((name, ""));
    if !matches!(suffix, "" | "meta" | "lines" | "gone") {
        return None;
    }
    let r = crate::store::Ref::parse(&format!("sp_{hex}"))?;
    Some((scope, r, suffix))
}

fn outside() -> Error {
    Error::Store(
        "refused a request for an object that is not one of spill's under the store's prefix"
            .into(),
    )
}

fn not_understood(what: &str) -> Error {
    Error::Store(format!(
        "the object store's reply was not understood: could not {what}"
    ))
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
        .filter(|c| KNOWN_CODES.contains(&c.as_str()));
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

/// The error for a request that got no (whole) answer.
fn transport(what: &str, e: &ureq::Error, timeout: Duration) -> Error {
    let why = match e {
        ureq::Error::Timeout(_) => return timed_out(what, timeout),
        ureq::Error::Io(io) if io.kind() == std::io::ErrorKind::TimedOut => {
            return timed_out(what, timeout);
        }
        ureq::Error::BodyExceedsLimit(limit) => {
            format!("sent a reply larger than the {limit} bytes it may be")
        }
        ureq::Error::Io(io) => format!("could not be reached ({})", io.kind()),
        ureq::Error::ConnectionFailed => "could not be reached (connection failed)".to_string(),
        ureq::Error::HostNotFound => "could not be reached (host not found)".to_string(),
        ureq::Error::Http(_) | ureq::Error::Protocol(_) => {
            "sent a reply that is not valid HTTP".to_string()
        }
        _ => "could not be reached".to_string(),
    };
    Error::Store(format!("the object store {why}: could not {what}"))
}

/// The error for a request that the deadline cut short.
fn timed_out(what: &str, timeout: Duration) -> Error {
    Error::Store(format!(
        "the object store did not finish within {}: could not {what} (SPILL_S3_TIMEOUT bounds \
         each operation on the store, all its requests together)",
        seconds(timeout)
    ))
}

/// A timeout as a message names it: `10s`, `1.5s`, `250ms`.
fn seconds(timeout: Duration) -> String {
    match timeout.as_millis() {
        ms if ms < 1000 => format!("{ms}ms"),
        ms if ms % 1000 == 0 => format!("{}s", ms / 1000),
        _ => format!("{}s", timeout.as_secs_f64()),
    }
}

/// The first and last byte of a `Content-Range: bytes FIRST-LAST/TOTAL` header.
fn parse_range(value: &str) -> Option<(u64, u64)> {
    let (span, _) = value.trim().strip_prefix("bytes ")?.split_once('/')?;
    let (first, last) = span.split_once('-')?;
    let (first, last) = (first.trim().parse().ok()?, last.trim().parse().ok()?);
    (first <= last).then_some((first, last))
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
