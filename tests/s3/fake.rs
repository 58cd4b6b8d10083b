//! A fake S3 server of the tests' own, for the attacks of a hostile or broken server
//! (SECURITY.md, "What an object store promises"): HTTP/1.1 on 127.0.0.1, one request per
//! connection, path-style (`/BUCKET/KEY`). By default it is a small in-memory bucket (PUT,
//! conditional PUT, GET with `Range`, HEAD, DELETE, ListObjectsV2, an empty
//! ListMultipartUploads), so `spill wrap` can store real entries in it; a test then scripts
//! its replies ([`Fake::script`]) or edits its objects, and reads its log of requests.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

pub const BUCKET: &str = "spill-test";

/// One request as the server read it.
#[derive(Clone, Debug)]
pub struct Request {
    pub method: String,
    /// The request target as sent (not decoded): `/BUCKET/KEY?QUERY`.
    pub target: String,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Request {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The path, decoded.
    pub fn path(&self) -> String {
        decode(self.target.split('?').next().unwrap_or(""))
    }

    /// A query parameter, decoded.
    pub fn query(&self, name: &str) -> Option<String> {
        let (_, query) = self.target.split_once('?')?;
        query.split('&').find_map(|pair| {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            (decode(k) == name).then(|| decode(v))
        })
    }

    /// The object key a request names (`None` for a request to the bucket itself).
    pub fn key(&self) -> Option<String> {
        let path = self.path();
        let key = path.strip_prefix(&format!("/{BUCKET}/"))?;
        (!key.is_empty()).then(|| key.to_string())
    }
}

/// What the server sends back.
pub enum Body {
    Bytes(Vec<u8>),
    /// Bytes without end (`x`), with this `Content-Length` or none (the body ends when the
    /// connection closes, which it never does by itself).
    Endless(Option<u64>),
    /// This many bytes of a body declared `len` bytes long, then nothing (the connection
    /// stays open).
    Stalled {
        len: u64,
        sent: usize,
    },
}

pub struct Response {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Body,
    /// How long to wait before answering.
    pub delay: Duration,
}

impl Response {
    pub fn new(status: u16, body: impl Into<Vec<u8>>) -> Response {
        Response {
            status,
            headers: Vec::new(),
            body: Body::Bytes(body.into()),
            delay: Duration::ZERO,
        }
    }

    pub fn header(mut self, name: &str, value: impl Into<String>) -> Response {
        self.headers.push((name.to_string(), value.into()));
        self
    }

    /// An S3 error reply with this code.
    pub fn error(status: u16, code: &str) -> Response {
        Response::new(
            status,
            format!(
                "<?xml version=\"1.0\"?><Error><Code>{code}</Code><Message>no</Message></Error>"
            ),
        )
        .header("content-type", "application/xml")
    }
}

/// An object of the in-memory bucket.
#[derive(Clone, Debug)]
pub struct Object {
    pub data: Vec<u8>,
    /// `x-amz-meta-blake3`.
    pub hash: Option<String>,
    /// Last written, seconds since the epoch.
    pub modified: f64,
}

/// A script: given a request and the bucket, a reply instead of the bucket's own (`None`:
/// the bucket answers).
pub type Script = Box<dyn Fn(&Request, &Bucket) -> Option<Response> + Send + Sync>;

pub type Bucket = Arc<Mutex<BTreeMap<String, Object>>>;

struct Shared {
    objects: Bucket,
    log: Mutex<Vec<Request>>,
    script: Mutex<Option<Arc<Script>>>,
    /// Body bytes sent so far.
    sent: AtomicU64,
}

pub struct Fake {
    pub url: String,
    shared: Arc<Shared>,
}

impl Fake {
    /// Starts a server on 127.0.0.1 (a free port), serving until the test process ends.
    pub fn start() -> Fake {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let shared = Arc::new(Shared {
            objects: Arc::default(),
            log: Mutex::default(),
            script: Mutex::default(),
            sent: AtomicU64::default(),
        });
        let serving = shared.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let shared = serving.clone();
                std::thread::spawn(move || serve(stream, &shared));
            }
        });
        Fake { url, shared }
    }

    /// Replies by `script` from now on (before the bucket's own).
    pub fn script(
        &self,
        script: impl Fn(&Request, &Bucket) -> Option<Response> + Send + Sync + 'static,
    ) {
        *self.shared.script.lock().unwrap() = Some(Arc::new(Box::new(script)));
    }

    /// The bucket answers alone again.
    pub fn unscript(&self) {
        *self.shared.script.lock().unwrap() = None;
    }

    pub fn objects(&self) -> Bucket {
        self.shared.objects.clone()
    }

    /// Every request so far, in order.
    pub fn log(&self) -> Vec<Request> {
        self.shared.log.lock().unwrap().clone()
    }

    pub fn clear_log(&self) {
        self.shared.log.lock().unwrap().clear();
    }

    /// Body bytes sent so far.
    pub fn sent(&self) -> u64 {
        self.shared.sent.load(Ordering::SeqCst)
    }

    /// Adds an object behind spill's back, last written `age` seconds ago.
    pub fn put(&self, key: &str, data: impl Into<Vec<u8>>, age: f64) {
        self.shared.objects.lock().unwrap().insert(
            key.to_string(),
            Object {
                data: data.into(),
                hash: None,
                modified: now() - age,
            },
        );
    }
}

pub fn now() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs_f64()
}

fn serve(stream: TcpStream, shared: &Shared) {
    let Some(request) = read_request(&stream) else {
        return;
    };
    shared.log.lock().unwrap().push(request.clone());
    let script = shared.script.lock().unwrap().clone();
    let response = script
        .and_then(|s| s(&request, &shared.objects))
        .unwrap_or_else(|| answer(&request, &shared.objects));
    std::thread::sleep(response.delay);
    let _ = write_response(stream, &request, response, &shared.sent);
}

fn read_request(stream: &TcpStream) -> Option<Request> {
    let mut reader = BufReader::new(stream);
    let mut line = String::new();
    reader.read_line(&mut line).ok()?;
    let mut parts = line.split_whitespace();
    let (method, target) = (parts.next()?.to_string(), parts.next()?.to_string());
    let mut headers = Vec::new();
    loop {
        let mut line = String::new();
        reader.read_line(&mut line).ok()?;
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        let (k, v) = line.split_once(':')?;
        headers.push((k.trim().to_ascii_lowercase(), v.trim().to_string()));
    }
    let length: usize = headers
        .iter()
        .find(|(k, _)| k == "content-length")
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    let mut body = vec![0; length];
    reader.read_exact(&mut body).ok()?;
    Some(Request {
        method,
        target,
        headers,
        body,
    })
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        204 => "No Content",
        206 => "Partial Content",
        307 => "Temporary Redirect",
        403 => "Forbidden",
        404 => "Not Found",
        412 => "Precondition Failed",
        _ => "Whatever",
    }
}

fn write_response(
    mut stream: TcpStream,
    request: &Request,
    response: Response,
    sent: &AtomicU64,
) -> std::io::Result<()> {
    let mut head = format!(
        "HTTP/1.1 {} {}\r\nconnection: close\r\n",
        response.status,
        reason(response.status)
    );
    for (k, v) in &response.headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    let length = match &response.body {
        Body::Bytes(b) => Some(b.len() as u64),
        Body::Endless(declared) => *declared,
        Body::Stalled { len, .. } => Some(*len),
    };
    if let Some(n) = length {
        head.push_str(&format!("content-length: {n}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes())?;
    if request.method == "HEAD" {
        return Ok(());
    }
    match response.body {
        Body::Bytes(b) => {
            stream.write_all(&b)?;
            sent.fetch_add(b.len() as u64, Ordering::SeqCst);
        }
        Body::Endless(_) => {
            let chunk = vec![b'x'; 64 << 10];
            loop {
                stream.write_all(&chunk)?;
                sent.fetch_add(chunk.len() as u64, Ordering::SeqCst);
            }
        }
        Body::Stalled { sent: n, .. } => {
            stream.write_all(&vec![b'{'; n])?;
            sent.fetch_add(n as u64, Ordering::SeqCst);
            std::thread::sleep(Duration::from_secs(60));
        }
    }
    stream.flush()
}

/// The in-memory bucket's answer.
pub fn answer(request: &Request, objects: &Bucket) -> Response {
    let Some(key) = request.key() else {
        return listing(request, objects);
    };
    let mut objects = objects.lock().unwrap();
    match request.method.as_str() {
        "PUT" => {
            if request.header("if-none-match") == Some("*") && objects.contains_key(&key) {
                return Response::error(412, "PreconditionFailed");
            }
            let hash = request.header("x-amz-meta-blake3").map(str::to_string);
            let data = request.body.clone();
            objects.insert(
                key,
                Object {
                    data,
                    hash,
                    modified: now(),
                },
            );
            Response::new(200, "").header("etag", "\"e\"")
        }
        "DELETE" => {
            objects.remove(&key);
            Response::new(204, "")
        }
        "GET" | "HEAD" => {
            let Some(o) = objects.get(&key) else {
                return Response::error(404, "NoSuchKey");
            };
            let mut response = match request.header("range").and_then(parse_range) {
                Some((from, to)) => {
                    let to = to.min(o.data.len() as u64 - 1);
                    Response::new(206, o.data[from as usize..=to as usize].to_vec()).header(
                        "content-range",
                        format!("bytes {from}-{to}/{}", o.data.len()),
                    )
                }
                None => Response::new(200, o.data.clone()),
            };
            response = response.header("last-modified", http_date(o.modified));
            if let Some(h) = &o.hash {
                response = response.header("x-amz-meta-blake3", h.clone());
            }
            if request.method == "HEAD" {
                // The length of the object, not of the (absent) body.
                response.body = Body::Bytes(Vec::new());
            }
            response
        }
        _ => Response::error(405, "MethodNotAllowed"),
    }
}

fn parse_range(value: &str) -> Option<(u64, u64)> {
    let (from, to) = value.strip_prefix("bytes=")?.split_once('-')?;
    Some((from.parse().ok()?, to.parse().ok()?))
}

/// ListObjectsV2 (everything in one page) or an empty ListMultipartUploads.
fn listing(request: &Request, objects: &Bucket) -> Response {
    if request.query("uploads").is_some() {
        return Response::new(
            200,
            "<?xml version=\"1.0\"?><ListMultipartUploadsResult><IsTruncated>false</IsTruncated></ListMultipartUploadsResult>",
        );
    }
    let prefix = request.query("prefix").unwrap_or_default();
    let delimiter = request.query("delimiter");
    let objects = objects.lock().unwrap();
    let mut contents = Vec::new();
    let mut prefixes = std::collections::BTreeSet::new();
    for (key, o) in objects.range(prefix.clone()..) {
        let Some(rest) = key.strip_prefix(&prefix) else {
            break;
        };
        if let Some(d) = &delimiter
            && let Some(at) = rest.find(d.as_str())
        {
            prefixes.insert(format!("{prefix}{}", &rest[..at + d.len()]));
            continue;
        }
        contents.push((key.clone(), o.data.len(), o.modified));
    }
    list_page(&contents, &prefixes.into_iter().collect::<Vec<_>>(), None)
}

/// One page of a ListObjectsV2 reply: objects `(key, size, modified)`, common prefixes, and
/// the next continuation token (truncated) or none.
pub fn list_page(
    contents: &[(String, usize, f64)],
    prefixes: &[String],
    next: Option<&str>,
) -> Response {
    let mut xml = String::from(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\
         <ListBucketResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">",
    );
    xml.push_str(&format!(
        "<Name>{BUCKET}</Name><MaxKeys>1000</MaxKeys><EncodingType>url</EncodingType>"
    ));
    for (key, size, modified) in contents {
        xml.push_str(&format!(
            "<Contents><Key>{}</Key><LastModified>{}</LastModified><ETag>\"e\"</ETag>\
             <Size>{size}</Size><StorageClass>STANDARD</StorageClass></Contents>",
            encode(key),
            iso_date(*modified)
        ));
    }
    for p in prefixes {
        xml.push_str(&format!(
            "<CommonPrefixes><Prefix>{}</Prefix></CommonPrefixes>",
            encode(p)
        ));
    }
    match next {
        Some(token) => xml.push_str(&format!(
            "<IsTruncated>true</IsTruncated><NextContinuationToken>{token}</NextContinuationToken>"
        )),
        None => xml.push_str("<IsTruncated>false</IsTruncated>"),
    }
    xml.push_str("</ListBucketResult>");
    Response::new(200, xml).header("content-type", "application/xml")
}

fn http_date(secs: f64) -> String {
    let t = jiff::Timestamp::from_second(secs as i64).unwrap();
    t.strftime("%a, %d %b %Y %H:%M:%S GMT").to_string()
}

fn iso_date(secs: f64) -> String {
    let t = jiff::Timestamp::from_second(secs as i64).unwrap();
    t.strftime("%Y-%m-%dT%H:%M:%S.000Z").to_string()
}

/// Percent-decoding (`+` is not a space in S3's query strings as spill sends them).
pub fn decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && let Ok(b) = u8::from_str_radix(&text[i + 1..i + 3], 16)
        {
            out.push(b);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Percent-encoding of a key for a listing with `EncodingType` `url`.
pub fn encode(text: &str) -> String {
    let mut out = String::new();
    for b in text.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' | b'/' => {
                out.push(b as char)
            }
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}
