//! A minimal reader of the AWS shared credentials and config files (INI): `[NAME]` or
//! `[profile NAME]` sections of `key = value` lines, `#` and `;` comments. Which files is the
//! command line's choice ([`super::RemoteSettings`]).

use std::path::Path;

use super::Credentials;

/// The value of `key` in section `profile` of INI `text` (`[profile]` or `[profile NAME]`).
pub fn lookup(text: &str, profile: &str, key: &str) -> Option<String> {
    let mut in_section = false;
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') || line.starts_with(';') {
            continue;
        }
        if let Some(name) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            let name = name.trim();
            let name = name.strip_prefix("profile ").map(str::trim).unwrap_or(name);
            in_section = name == profile;
            continue;
        }
        if let (true, Some((k, v))) = (in_section, line.split_once('='))
            && k.trim() == key
        {
            return Some(v.trim().to_string());
        }
    }
    None
}

fn read(path: Option<&Path>) -> String {
    // A missing or unreadable profile file is the same as no profile: the request is then
    // unsigned and the store says so when it refuses.
    path.and_then(|p| std::fs::read_to_string(p).ok())
        .unwrap_or_default()
}

/// The credentials of `profile` from the credentials `file`, if it has a key and a secret.
pub fn credentials(file: Option<&Path>, profile: &str) -> Option<Credentials> {
    let text = read(file);
    let get = |k: &str| lookup(&text, profile, k).filter(|v| !v.is_empty());
    match (get("aws_access_key_id"), get("aws_secret_access_key")) {
        (Some(key), Some(secret)) => Some(Credentials {
            key,
            secret,
            token: get("aws_session_token"),
        }),
        _ => None,
    }
}

/// A setting of `profile` in the config `file` (`region`).
pub fn config_value(file: Option<&Path>, profile: &str, key: &str) -> Option<String> {
    lookup(&read(file), profile, key).filter(|v| !v.is_empty())
}

#[cfg(test)]
mod tests {
    use super::lookup;

    #[test]
    fn sections_comments_and_profile_prefix() {
        let text = "# c\n[default]\naws_access_key_id = A1\n; x\n[profile work]\nregion=eu-west-1\n[other]\naws_access_key_id=B2\n";
        assert_eq!(
            lookup(text, "default", "aws_access_key_id").as_deref(),
            Some("A1")
        );
        assert_eq!(lookup(text, "work", "region").as_deref(), Some("eu-west-1"));
        assert_eq!(
            lookup(text, "other", "aws_access_key_id").as_deref(),
            Some("B2")
        );
        assert_eq!(lookup(text, "work", "aws_access_key_id"), None);
        assert_eq!(lookup(text, "missing", "region"), None);
    }
}
