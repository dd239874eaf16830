//! `[remotes.NAME]` in config.toml: reading the remotes and adding or removing one.
//! Holds the settings and their checks; not the connection (see `store`).

use crate::error::{RemoteError, Result};
use serde::{Deserialize, Serialize};
use skilldeck_store::config_file;
use std::collections::BTreeMap;
use std::path::Path;

/// One remote's settings, as written in config.toml.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RemoteConfig {
    /// `s3://bucket/prefix` (the prefix is optional).
    pub url: String,
    /// The server, for anything but AWS S3 (`http://` is allowed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub endpoint: Option<String>,
    /// The region; `us-east-1` when none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub region: Option<String>,
    /// For the remote named `team`, which feeds the team scope: how old (in seconds) its last
    /// refresh may be before a listing refreshes it again; `DEFAULT_REFRESH_SECS` when none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refresh_secs: Option<u64>,
}

/// How old a team scope's last refresh may be before a listing refreshes it: five minutes.
pub const DEFAULT_REFRESH_SECS: u64 = 300;

impl RemoteConfig {
    /// A remote at `url` with the defaults.
    pub fn new(url: impl Into<String>) -> Self {
        Self { url: url.into(), endpoint: None, region: None, refresh_secs: None }
    }

    /// The refresh interval in force.
    pub fn refresh_interval(&self) -> std::time::Duration {
        std::time::Duration::from_secs(self.refresh_secs.unwrap_or(DEFAULT_REFRESH_SECS))
    }
}

/// The bucket and key prefix of an `s3://` url.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BucketUrl {
    /// The bucket.
    pub bucket: String,
    /// The prefix without leading or trailing `/`; empty for the bucket's root.
    pub prefix: String,
}

impl BucketUrl {
    /// Parses `s3://bucket[/prefix]`.
    pub fn parse(remote: &str, url: &str) -> Result<Self> {
        let bad = |reason: &str| RemoteError::BadConfig {
            name: remote.to_owned(),
            reason: format!("url {url:?} {reason}; write it as s3://BUCKET or s3://BUCKET/PREFIX"),
        };
        let rest = url.strip_prefix("s3://").ok_or_else(|| bad("does not start with s3://"))?;
        let (bucket, prefix) = rest.split_once('/').unwrap_or((rest, ""));
        let bucket_ok = (3..=63).contains(&bucket.len())
            && bucket.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'.');
        if !bucket_ok {
            return Err(bad("has no valid bucket name (3-63 of a-z, 0-9, '-', '.')"));
        }
        let prefix = prefix.trim_matches('/');
        if prefix.split('/').any(|seg| seg == "." || seg == "..") || prefix.contains("//") {
            return Err(bad("has a prefix with empty, '.' or '..' parts"));
        }
        Ok(Self { bucket: bucket.to_owned(), prefix: prefix.to_owned() })
    }
}

/// Whether `name` can name a remote (it becomes a folder of the cache).
pub fn check_remote_name(name: &str) -> Result<()> {
    let ok = !name.is_empty()
        && name.len() <= 64
        && name.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'_');
    if ok {
        Ok(())
    } else {
        Err(RemoteError::BadConfig {
            name: name.to_owned(),
            reason: "a remote's name is 1-64 of a-z, 0-9, '-' and '_'".to_owned(),
        })
    }
}

#[derive(Deserialize, Default)]
struct File {
    #[serde(default)]
    remotes: BTreeMap<String, RemoteConfig>,
}

fn cfg_err(path: &Path, reason: impl ToString) -> RemoteError {
    RemoteError::ConfigFile { path: path.to_owned(), reason: reason.to_string() }
}

fn read_text(path: &Path) -> Result<String> {
    match std::fs::read_to_string(path) {
        Ok(t) => Ok(t),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(String::new()),
        Err(e) => Err(cfg_err(path, e)),
    }
}

/// Every remote in config.toml (none when the file is missing).
pub fn load_remotes(config_path: &Path) -> Result<BTreeMap<String, RemoteConfig>> {
    let text = read_text(config_path)?;
    let file: File =
        toml::from_str(&text).map_err(|e| cfg_err(config_path, format!("[remotes] does not parse: {e}")))?;
    Ok(file.remotes)
}

/// The remote called `name`.
pub fn load_remote(config_path: &Path, name: &str) -> Result<RemoteConfig> {
    load_remotes(config_path)?.remove(name).ok_or_else(|| RemoteError::UnknownRemote { name: name.to_owned() })
}

/// Adds `[remotes.NAME]` (refusing a name already there), keeping the rest of the file.
pub fn add_remote(config_path: &Path, name: &str, remote: &RemoteConfig) -> Result<()> {
    check_remote_name(name)?;
    BucketUrl::parse(name, &remote.url)?;
    edit_doc(config_path, |doc| {
        let remotes = doc
            .entry("remotes")
            .or_insert_with(|| {
                let mut t = toml_edit::Table::new();
                t.set_implicit(true);
                toml_edit::Item::Table(t)
            })
            .as_table_mut()
            .ok_or_else(|| cfg_err(config_path, "`remotes` is not a table"))?;
        if remotes.contains_key(name) {
            return Err(RemoteError::BadConfig {
                name: name.to_owned(),
                reason: "already exists; `skilldeck remote remove` it first".to_owned(),
            });
        }
        let mut t = toml_edit::Table::new();
        t.insert("url", toml_edit::value(remote.url.as_str()));
        if let Some(e) = &remote.endpoint {
            t.insert("endpoint", toml_edit::value(e.as_str()));
        }
        if let Some(r) = &remote.region {
            t.insert("region", toml_edit::value(r.as_str()));
        }
        if let Some(secs) = remote.refresh_secs {
            t.insert("refresh_secs", toml_edit::value(i64::try_from(secs).unwrap_or(i64::MAX)));
        }
        remotes.insert(name, toml_edit::Item::Table(t));
        Ok(true)
    })
    .map(|_| ())
}

/// Removes `[remotes.NAME]`, keeping the rest of the file; false when there was none.
pub fn remove_remote(config_path: &Path, name: &str) -> Result<bool> {
    edit_doc(config_path, |doc| {
        Ok(doc.get_mut("remotes").and_then(toml_edit::Item::as_table_mut).is_some_and(|t| t.remove(name).is_some()))
    })
}

/// Applies `change` to the file's document under config.toml's writers' lock
/// (`config_file::edit`), writing it when `change` says it changed something. Returns whether
/// the file was written.
fn edit_doc(path: &Path, change: impl FnOnce(&mut toml_edit::DocumentMut) -> Result<bool>) -> Result<bool> {
    config_file::edit(path, |text| {
        let mut doc: toml_edit::DocumentMut =
            text.parse().map_err(|e| cfg_err(path, format!("does not parse, nothing changed: {e}")))?;
        Ok(change(&mut doc)?.then(|| doc.to_string()))
    })
}

impl From<config_file::ConfigFileError> for RemoteError {
    fn from(e: config_file::ConfigFileError) -> Self {
        cfg_err(&e.path, format!("could not {}: {}", e.action, e.source))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls() {
        let ok = |u: &str, b: &str, p: &str| {
            assert_eq!(BucketUrl::parse("t", u).ok(), Some(BucketUrl { bucket: b.into(), prefix: p.into() }), "{u}")
        };
        ok("s3://skills", "skills", "");
        ok("s3://skills/team/a/", "skills", "team/a");
        for bad in ["http://x/y", "s3://", "s3://UP", "s3://ok-bucket/a/../b", "s3://ok-bucket/a//b"] {
            assert!(BucketUrl::parse("t", bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn add_and_remove_keep_comments() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.toml");
        std::fs::write(&path, "# my settings\ndefault_provider = \"offline\" # keep\n").unwrap();
        let team = RemoteConfig {
            endpoint: Some("http://127.0.0.1:9".into()),
            refresh_secs: Some(60),
            ..RemoteConfig::new("s3://bkt/p")
        };
        add_remote(&path, "team", &team).unwrap();
        assert!(add_remote(&path, "team", &team).is_err());
        assert_eq!(load_remote(&path, "team").unwrap(), team);
        assert!(remove_remote(&path, "team").unwrap());
        assert!(!remove_remote(&path, "team").unwrap());
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.starts_with("# my settings\ndefault_provider = \"offline\" # keep\n"), "{text}");
        assert!(matches!(load_remote(&path, "team"), Err(RemoteError::UnknownRemote { .. })));
    }
}
