//! The object-store kind of store: `s3://BUCKET/PREFIX` (README "A store shared across
//! machines", ARCHITECTURE.md "The object store").
//!
//! A remote store is a local store used as a content-addressed cache plus a bucket that holds
//! the entries every machine sees. This module resolves the configuration (the URL, and the
//! endpoint, region and credentials from the [`RemoteSettings`] the command line read from the
//! standard AWS variables, and the profile files they name); the client and the mapping are
//! compiled only with the `s3` cargo feature.

mod profile;

#[cfg(feature = "s3")]
mod client;
#[cfg(feature = "s3")]
mod sigv4;
#[cfg(feature = "s3")]
pub(super) mod sync;
#[cfg(feature = "s3")]
pub mod window;

use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

use crate::error::{Error, Result};

/// How long one operation on the object store may take, all its requests together
/// (connections and bodies included), unless `SPILL_S3_TIMEOUT` says otherwise
/// ([`RemoteSettings::timeout`]): a deadline from the operation's first request.
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
    /// The deadline of each operation on the store, all its requests together ([`TIMEOUT`]).
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
    // Restricted mode names no bucket or prefix (they say where the store is), so the value
    // is not echoed there.
    let bad = |why: &str| match crate::diag::hiding_paths() {
        true => Error::Usage(format!(
            "the store URL: {why} (use s3://BUCKET or s3://BUCKET/PREFIX)"
        )),
        false => Error::Usage(format!(
            "store {:?}: {why} (use s3://BUCKET or s3://BUCKET/PREFIX)",
            crate::diag::escape(url)
        )),
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

/// The object store's settings, as the command line reads them from the environment
/// (`src/cmd/s3.rs`): the library reads no environment variable itself.
#[derive(Clone)]
pub struct RemoteSettings {
    /// `SPILL_S3_ENDPOINT`: an S3-compatible server instead of AWS's regional endpoint.
    pub endpoint: Option<String>,
    /// `AWS_REGION`, else `AWS_DEFAULT_REGION`; else the profile's `region`, else `us-east-1`.
    pub region: Option<String>,
    /// `AWS_PROFILE`, else `default`.
    pub profile: String,
    /// `AWS_ACCESS_KEY_ID` and `AWS_SECRET_ACCESS_KEY` (with `AWS_SESSION_TOKEN`), when both are
    /// set; else the profile's.
    pub credentials: Option<Credentials>,
    /// `AWS_SHARED_CREDENTIALS_FILE`, else `$HOME/.aws/credentials`.
    pub credentials_file: Option<PathBuf>,
    /// `AWS_CONFIG_FILE`, else `$HOME/.aws/config` (for the profile's `region`).
    pub config_file: Option<PathBuf>,
    /// `SPILL_S3_TIMEOUT`, else [`TIMEOUT`]: the deadline of each operation on the store.
    pub timeout: Duration,
    /// `SPILL_S3_CACHE`: the local cache's directory, absolute.
    pub cache: Option<PathBuf>,
    /// The default directory store root (`${TMPDIR:-/tmp}/spill-<uid>`): the default cache is
    /// named after it.
    pub default_root: PathBuf,
    /// `SPILL_S3_CACHE_QUOTA`, else the local store's default quota: the cache's bound.
    pub cache_quota: u64,
}

impl RemoteSettings {
    /// Settings with every default: AWS's endpoint, no credentials (unsigned requests), no
    /// profile files, the cache named after `default_root`.
    pub fn new(default_root: PathBuf) -> RemoteSettings {
        RemoteSettings {
            endpoint: None,
            region: None,
            profile: "default".to_string(),
            credentials: None,
            credentials_file: None,
            config_file: None,
            timeout: TIMEOUT,
            cache: None,
            default_root,
            cache_quota: crate::limits::QUOTA,
        }
    }
}

impl fmt::Debug for RemoteSettings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("RemoteSettings { .. }")
    }
}

/// Resolves a remote store from its URL and the settings: the region (the settings', the
/// profile's `region`, else `us-east-1`), the credentials (the settings', else the profile's
/// from the credentials file) and the endpoint.
pub fn resolve(url: &str, quota: u64, settings: &RemoteSettings) -> Result<RemoteConfig> {
    let (bucket, prefix) = parse_url(url)?;
    let profile_name = settings.profile.as_str();
    let region = match &settings.region {
        Some(r) => r.clone(),
        None => profile::config_value(settings.config_file.as_deref(), profile_name, "region")
            .unwrap_or("us-east-1".into()),
    };
    let credentials = match &settings.credentials {
        Some(c) => Some(c.clone()),
        None => profile::credentials(settings.credentials_file.as_deref(), profile_name),
    };
    let (endpoint, path_style) = match &settings.endpoint {
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
    Ok(RemoteConfig {
        bucket,
        prefix,
        endpoint,
        path_style,
        region,
        credentials,
        timeout: settings.timeout,
        quota,
    })
}

/// The local cache of a remote store: the settings' (`SPILL_S3_CACHE`), else the default root
/// with `-s3-<16 hex digits naming the endpoint, bucket and prefix>` appended.
pub fn cache_root(remote: &RemoteConfig, settings: &RemoteSettings) -> PathBuf {
    if let Some(dir) = &settings.cache {
        return dir.clone();
    }
    let id = blake3::hash(
        format!("{}\0{}\0{}", remote.endpoint, remote.bucket, remote.prefix).as_bytes(),
    );
    let mut root = settings.default_root.clone().into_os_string();
    root.push(format!("-s3-{}", &id.to_hex()[..16]));
    PathBuf::from(root)
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
/// becomes the local cache (bounded by the settings' cache quota), and the quota given
/// (`--quota`, `SPILL_QUOTA`) becomes the object store's.
pub fn configure(
    config: &mut super::StoreConfig,
    url: &str,
    settings: &RemoteSettings,
) -> Result<()> {
    // A value that is not an object store URL at all says so first, with or without the feature.
    parse_url(url)?;
    #[cfg(not(feature = "s3"))]
    {
        let _ = (config, url, settings);
        Err(not_built())
    }
    #[cfg(feature = "s3")]
    {
        let remote = resolve(url, config.quota, settings)?;
        config.root = cache_root(&remote, settings);
        config.quota = settings.cache_quota;
        config.max_file = config.max_file.min(config.quota).min(remote.quota);
        config.remote = Some(remote);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_resolve_into_a_config_without_the_environment() {
        let dir = tempfile::tempdir().unwrap();
        let credentials = dir.path().join("credentials");
        let config = dir.path().join("config");
        std::fs::write(
            &credentials,
            "[default]\naws_access_key_id = D\naws_secret_access_key = DS\n\
             [work]\naws_access_key_id = K\naws_secret_access_key = S\naws_session_token = T\n",
        )
        .unwrap();
        std::fs::write(&config, "[profile work]\nregion = eu-west-2\n").unwrap();
        let mut s = RemoteSettings::new(PathBuf::from("/tmp/spill-7"));
        s.profile = "work".into();
        s.credentials_file = Some(credentials);
        s.config_file = Some(config);
        // The profile's region and credentials; AWS's regional endpoint, virtual-hosted.
        let r = resolve("s3://bucket-x/p/q/", 100, &s).unwrap();
        assert_eq!(r.region, "eu-west-2");
        assert_eq!(r.endpoint, "https://s3.eu-west-2.amazonaws.com");
        assert!(!r.path_style);
        let c = r.credentials.clone().unwrap();
        assert_eq!((c.key.as_str(), c.token.as_deref()), ("K", Some("T")));
        assert_eq!(r.key("sc", "abc"), "p/q/sc/abc");
        assert_eq!((r.quota, r.timeout), (100, TIMEOUT));
        let cache = cache_root(&r, &s);
        let cache = cache.to_str().unwrap();
        assert!(
            cache.starts_with("/tmp/spill-7-s3-") && cache.len() == 32,
            "{cache}"
        );
        // Variables win over the profile; an endpoint means path-style addressing.
        s.region = Some("us-west-1".into());
        s.endpoint = Some("http://127.0.0.1:9000/".into());
        s.credentials = Some(Credentials {
            key: "E".into(),
            secret: "ES".into(),
            token: None,
        });
        s.cache = Some(PathBuf::from("/var/cache/spill"));
        let r = resolve("s3://bucket-x", 100, &s).unwrap();
        assert_eq!(r.region, "us-west-1");
        assert_eq!(r.endpoint, "http://127.0.0.1:9000");
        assert!(r.path_style);
        assert_eq!(r.credentials.clone().unwrap().key, "E");
        assert_eq!(r.key("sc", "abc"), "sc/abc");
        assert_eq!(cache_root(&r, &s), PathBuf::from("/var/cache/spill"));
        // No profile file, no credentials: unsigned, in us-east-1.
        let r = resolve("s3://bucket-x", 1, &RemoteSettings::new("/t".into())).unwrap();
        assert!(r.credentials.is_none() && r.region == "us-east-1");
        s.endpoint = Some("ftp://x".into());
        assert!(resolve("s3://bucket-x", 1, &s).is_err());
    }
}
