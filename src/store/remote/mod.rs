//! The object-store kind of store: `s3://BUCKET/PREFIX` (README "A store shared across
//! machines", ARCHITECTURE.md "The object store").
//!
//! A remote store is a local store used as a content-addressed cache plus a bucket that holds
//! the entries every machine sees. This module resolves the configuration (the URL, the
//! endpoint, region and credentials from the standard AWS variables and profile files); the
//! client and the mapping are compiled only with the `s3` cargo feature.

mod profile;

#[cfg(feature = "s3")]
mod client;
#[cfg(feature = "s3")]
mod sigv4;
#[cfg(feature = "s3")]
pub(super) mod sync;

use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

use crate::error::{Error, Result};

/// How long one request to the object store may take, connection included, unless
/// `SPILL_S3_TIMEOUT` says otherwise.
pub const TIMEOUT: Duration = Duration::from_secs(10);

/// An object store location and the means to reach it.
#[derive(Clone)]
pub struct RemoteConfig {
    /// The bucket name.
    pub bucket: String,
    /// The key prefix, without a trailing slash (may be empty).
    pub prefix: String,
    /// The endpoint URL (`SPILL_S3_ENDPOINT`, or AWS's regional endpoint).
    pub endpoint: String,
    /// Path-style addressing (`ENDPOINT/BUCKET/KEY`): used with an explicit endpoint.
    pub path_style: bool,
    /// The signing region.
    pub region: String,
    /// The credentials; `None` sends unsigned requests (a public bucket).
    pub credentials: Option<Credentials>,
    /// The bound on each request.
    pub timeout: Duration,
    /// The most bytes the bucket prefix may hold (`--quota`), enforced by `gc`.
    pub quota: u64,
}

/// An access key, its secret and an optional session token.
#[derive(Clone)]
pub struct Credentials {
    /// The access key id.
    pub key: String,
    /// The secret access key.
    pub secret: String,
    /// The session token (temporary credentials).
    pub token: Option<String>,
}

// Never prints a secret, a bucket or an endpoint: this may end up in a message.
impl fmt::Debug for RemoteConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("RemoteConfig { .. }")
    }
}

impl fmt::Debug for Credentials {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Credentials { .. }")
    }
}

impl RemoteConfig {
    /// The object key of `name` (a payload's hex, or it with `.meta` / `.gone`) in `scope`.
    pub fn key(&self, scope: &str, name: &str) -> String {
        format!("{}{scope}/{name}", self.scope_root())
    }

    /// The key prefix every scope lives under: `PREFIX/`, or nothing.
    pub fn scope_root(&self) -> String {
        match self.prefix.is_empty() {
            true => String::new(),
            false => format!("{}/", self.prefix),
        }
    }
}

/// Splits `s3://BUCKET/PREFIX` into the bucket and the prefix (slashes trimmed).
pub fn parse_url(url: &str) -> Result<(String, String)> {
    let bad = |why: &str| {
        Error::Usage(format!(
            "store {:?}: {why} (use s3://BUCKET or s3://BUCKET/PREFIX)",
            crate::diag::escape(url)
        ))
    };
    let rest = url
        .strip_prefix("s3://")
        .ok_or_else(|| bad("not an s3:// URL; a directory store is set with --dir or SPILL_DIR"))?;
    let (bucket, prefix) = rest.split_once('/').unwrap_or((rest, ""));
    let bucket_ok = (3..=63).contains(&bucket.len())
        && bucket
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'.');
    if !bucket_ok {
        return Err(bad("the bucket name must be 3 to 63 of a-z 0-9 . -"));
    }
    let prefix = prefix.trim_matches('/');
    let prefix_ok = prefix.split('/').all(|part| {
        part.is_empty() && prefix.is_empty() || crate::store::validate_scope(part).is_ok()
    });
    if !prefix_ok {
        return Err(bad(
            "each part of the prefix must be 1 to 64 of A-Z a-z 0-9 . _ -",
        ));
    }
    Ok((bucket.to_string(), prefix.to_string()))
}

/// Resolves a remote store from its URL and the environment: `SPILL_S3_ENDPOINT`,
/// `SPILL_S3_TIMEOUT`, the region (`AWS_REGION`, `AWS_DEFAULT_REGION`, the profile's `region`,
/// else `us-east-1`) and the credentials (`AWS_ACCESS_KEY_ID` + `AWS_SECRET_ACCESS_KEY` +
/// `AWS_SESSION_TOKEN`, else the profile `AWS_PROFILE` (or `default`) of
/// `AWS_SHARED_CREDENTIALS_FILE` (or `~/.aws/credentials`)).
pub fn resolve(url: &str, quota: u64) -> Result<RemoteConfig> {
    let (bucket, prefix) = parse_url(url)?;
    let env = |name: &str| crate::cmd::env_text(name);
    let profile_name = env("AWS_PROFILE")?.unwrap_or_else(|| "default".to_string());
    let region = match env("AWS_REGION")?.or(env("AWS_DEFAULT_REGION")?) {
        Some(r) => r,
        None => profile::config_value(&profile_name, "region")?.unwrap_or("us-east-1".into()),
    };
    let credentials = match (env("AWS_ACCESS_KEY_ID")?, env("AWS_SECRET_ACCESS_KEY")?) {
        (Some(key), Some(secret)) => Some(Credentials {
            key,
            secret,
            token: env("AWS_SESSION_TOKEN")?,
        }),
        _ => profile::credentials(&profile_name)?,
    };
    let (endpoint, path_style) = match env("SPILL_S3_ENDPOINT")? {
        Some(e) if e.starts_with("http://") || e.starts_with("https://") => {
            (e.trim_end_matches('/').to_string(), true)
        }
        Some(_) => {
            return Err(Error::Usage(
                "SPILL_S3_ENDPOINT: use an http:// or https:// URL".into(),
            ));
        }
        None => (format!("https://s3.{region}.amazonaws.com"), false),
    };
    let timeout = crate::cmd::env_parsed("SPILL_S3_TIMEOUT", crate::limits::parse_duration, false)?
        .unwrap_or(TIMEOUT);
    Ok(RemoteConfig {
        bucket,
        prefix,
        endpoint,
        path_style,
        region,
        credentials,
        timeout,
        quota,
    })
}

/// The local cache of a remote store: `SPILL_S3_CACHE`, else
/// `${TMPDIR:-/tmp}/spill-<uid>-s3-<16 hex digits naming the endpoint, bucket and prefix>`.
pub fn cache_root(remote: &RemoteConfig) -> Result<PathBuf> {
    if let Some(dir) = crate::cmd::env_text("SPILL_S3_CACHE")? {
        return Ok(PathBuf::from(dir));
    }
    let id = blake3::hash(
        format!("{}\0{}\0{}", remote.endpoint, remote.bucket, remote.prefix).as_bytes(),
    );
    let mut root = crate::cmd::env_default_root().into_os_string();
    root.push(format!("-s3-{}", &id.to_hex()[..16]));
    Ok(PathBuf::from(root))
}

/// The error for an `s3://` store in a binary built without the `s3` feature.
pub fn not_built() -> Error {
    Error::Usage(
        "this spill was built without the `s3` feature, so it cannot use an s3:// store; \
         reinstall with `cargo install --locked --path . --features s3`, or use a directory \
         store (SPILL_DIR)"
            .into(),
    )
}

/// Turns a resolved local configuration into one for the object store at `url`: the root
/// becomes the local cache (bounded by `SPILL_S3_CACHE_QUOTA`, default the local quota's
/// default), and the quota given (`--quota`, `SPILL_QUOTA`) becomes the object store's.
pub fn configure(config: &mut super::StoreConfig, url: &str) -> Result<()> {
    // A value that is not an object store URL at all says so first, with or without the feature.
    parse_url(url)?;
    #[cfg(not(feature = "s3"))]
    {
        let _ = (config, url);
        Err(not_built())
    }
    #[cfg(feature = "s3")]
    {
        let remote = resolve(url, config.quota)?;
        let root = cache_root(&remote)?;
        config.root = match root.is_relative() {
            true => std::env::current_dir()
                .map_err(|e| Error::stream("read the current directory", e))?
                .join(root),
            false => root,
        };
        config.quota =
            crate::cmd::env_parsed("SPILL_S3_CACHE_QUOTA", crate::limits::parse_size, false)?
                .unwrap_or(crate::limits::QUOTA);
        config.max_file = config.max_file.min(config.quota).min(remote.quota);
        config.remote = Some(remote);
        Ok(())
    }
}
