//! AWS Signature Version 4 in the `Authorization` header, for requests whose URL `rusty-s3`
//! built unsigned. Header signing (rather than `rusty-s3`'s presigned URLs) is what every S3
//! server checks, IAM-enforcing test servers included, and it keeps signatures out of URLs.

use std::fmt::Write as _;

use hmac::{KeyInit as _, Mac as _};
use sha2::Digest as _;

use super::Credentials;

/// The payload hash sent: S3 accepts unsigned payloads over any transport, so bodies are
/// streamed from the file without being hashed twice (BLAKE3 already names them).
pub const UNSIGNED_PAYLOAD: &str = "UNSIGNED-PAYLOAD";

fn hmac(key: &[u8], data: &[u8]) -> [u8; 32] {
    let mut mac = hmac::Hmac::<sha2::Sha256>::new_from_slice(key).expect("any key length");
    mac.update(data);
    mac.finalize().into_bytes().into()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().fold(String::new(), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

/// RFC 3986 encoding of everything but the unreserved characters (SigV4's `UriEncode`).
fn encode(text: &str) -> String {
    let mut out = String::new();
    for b in text.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                out.push(b as char)
            }
            _ => {
                let _ = write!(out, "%{b:02X}");
            }
        }
    }
    out
}

/// The headers to send with a request to `url` (`host` is set by the HTTP client from the
/// URL), given the request's own `headers` (lower-case names) and the time `amz_date`
/// (`YYYYMMDDTHHMMSSZ`): `x-amz-date`, `x-amz-content-sha256`, the session token and
/// `authorization`.
pub fn sign(
    method: &str,
    url: &url::Url,
    headers: &[(&str, &str)],
    credentials: &Credentials,
    region: &str,
    amz_date: &str,
) -> Vec<(String, String)> {
    let date = &amz_date[..8];
    let host = match url.port() {
        Some(port) => format!("{}:{port}", url.host_str().unwrap_or_default()),
        None => url.host_str().unwrap_or_default().to_string(),
    };
    let mut added = vec![
        (
            "x-amz-content-sha256".to_string(),
            UNSIGNED_PAYLOAD.to_string(),
        ),
        ("x-amz-date".to_string(), amz_date.to_string()),
    ];
    if let Some(token) = &credentials.token {
        added.push(("x-amz-security-token".to_string(), token.clone()));
    }
    let mut signed: Vec<(String, String)> = headers
        .iter()
        .map(|(k, v)| (k.to_string(), v.trim().to_string()))
        .chain(added.iter().cloned())
        .chain([("host".to_string(), host)])
        .collect();
    signed.sort();
    let mut query: Vec<(String, String)> = url
        .query_pairs()
        .map(|(k, v)| (encode(&k), encode(&v)))
        .collect();
    query.sort();
    let query = query
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join("&");
    let names = signed
        .iter()
        .map(|(k, _)| k.as_str())
        .collect::<Vec<_>>()
        .join(";");
    let canonical_headers: String = signed.iter().map(|(k, v)| format!("{k}:{v}\n")).collect();
    let canonical = format!(
        "{method}\n{}\n{query}\n{canonical_headers}\n{names}\n{UNSIGNED_PAYLOAD}",
        url.path()
    );
    let scope = format!("{date}/{region}/s3/aws4_request");
    let to_sign = format!(
        "AWS4-HMAC-SHA256\n{amz_date}\n{scope}\n{}",
        hex(&sha2::Sha256::digest(canonical.as_bytes()))
    );
    let key = [date, region, "s3", "aws4_request"].iter().fold(
        format!("AWS4{}", credentials.secret).into_bytes(),
        |k, part| hmac(&k, part.as_bytes()).to_vec(),
    );
    let signature = hex(&hmac(&key, to_sign.as_bytes()));
    added.push((
        "authorization".to_string(),
        format!(
            "AWS4-HMAC-SHA256 Credential={}/{scope}, SignedHeaders={names}, Signature={signature}",
            credentials.key
        ),
    ));
    added
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Against botocore's `S3SigV4Auth` with unsigned payloads (the oracle), for a request
    /// with a query and an extra signed header.
    #[test]
    fn matches_botocore() {
        let url: url::Url =
            "https://examplebucket.s3.amazonaws.com/test.txt?list-type=2&prefix=a%2Fb"
                .parse()
                .unwrap();
        let credentials = Credentials {
            key: "AKIAIOSFODNN7EXAMPLE".into(),
            secret: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY".into(),
            token: None,
        };
        let headers = sign(
            "GET",
            &url,
            &[("range", "bytes=0-9")],
            &credentials,
            "us-east-1",
            "20261201T122727Z",
        );
        let auth = &headers
            .iter()
            .find(|(k, _)| k == "authorization")
            .unwrap()
            .1;
        assert_eq!(
            auth,
            "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20261201/us-east-1/s3/aws4_request, \
             SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, \
             Signature=fe6f028d0c44dd6f948cb720d9fd1cd9e12dc036a016c44ec1f8d4cce165f44e"
        );
        assert_eq!(encode("a b/c~"), "a%20b%2Fc~");
    }
}
