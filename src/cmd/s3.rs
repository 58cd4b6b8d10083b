//! The object store's settings from the environment (README "A store shared across machines"):
//! `SPILL_S3_*`, the standard AWS variables and the profile files' paths, read here so that the
//! library (`store::remote`) reads no environment.

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::limits;
use crate::store::remote::{Credentials, RemoteSettings};

use super::{env_parsed, env_text};

/// Reads the settings of an `s3://` store. `default_root` is the directory store's default
/// root, which names the default cache. Every invalid value is an error (exit 2, or `wrap`'s
/// degraded envelope), never a default.
pub fn settings(default_root: PathBuf) -> Result<RemoteSettings> {
    let mut s = RemoteSettings::new(absolute(&default_root)?);
    s.endpoint = env_text("SPILL_S3_ENDPOINT")?;
    s.region = match env_text("AWS_REGION")? {
        Some(r) => Some(r),
        None => env_text("AWS_DEFAULT_REGION")?,
    };
    if let Some(profile) = env_text("AWS_PROFILE")? {
        s.profile = profile;
    }
    s.credentials = match (
        env_text("AWS_ACCESS_KEY_ID")?,
        env_text("AWS_SECRET_ACCESS_KEY")?,
    ) {
        (Some(key), Some(secret)) => Some(Credentials {
            key,
            secret,
            token: env_text("AWS_SESSION_TOKEN")?,
        }),
        _ => None,
    };
    let home = env_text("HOME")?.map(PathBuf::from);
    let aws_file = |var: &str, name: &str| -> Result<Option<PathBuf>> {
        Ok(match env_text(var)? {
            Some(path) => Some(PathBuf::from(path)),
            None => home.as_ref().map(|h| h.join(".aws").join(name)),
        })
    };
    s.credentials_file = aws_file("AWS_SHARED_CREDENTIALS_FILE", "credentials")?;
    s.config_file = aws_file("AWS_CONFIG_FILE", "config")?;
    if let Some(t) = env_parsed("SPILL_S3_TIMEOUT", limits::parse_duration, false)? {
        s.timeout = t;
    }
    if let Some(q) = env_parsed("SPILL_S3_CACHE_QUOTA", limits::parse_size, false)? {
        s.cache_quota = q;
    }
    s.cache = match env_text("SPILL_S3_CACHE")? {
        Some(dir) => Some(absolute(Path::new(&dir))?),
        None => None,
    };
    Ok(s)
}

/// `path` against the current directory when it is relative.
fn absolute(path: &Path) -> Result<PathBuf> {
    match path.is_relative() {
        true => Ok(std::env::current_dir()
            .map_err(|e| Error::stream("read the current directory", e))?
            .join(path)),
        false => Ok(path.to_path_buf()),
    }
}
