//! `[sources]` in config.toml: the hosts shorthand expands against, how often sourced skills
//! are checked for updates, and how much a source may bring (each skill, and a whole fetch).
//! Credentials are never read from here (they come from the Git credential helper or
//! environment tokens).

use crate::bytes;
use crate::source::Hosts;
use serde::Deserialize;
use skilldeck_skill::UploadLimits;
use std::path::Path;
use std::time::Duration;

/// The key of `[sources]` that bounds one skill from a source: all its files together.
pub const MAX_SKILL_BYTES: &str = "max_skill_bytes";

/// The key of `[sources]` that bounds a whole fetch: the download, and the tree written.
pub const MAX_FETCH_BYTES: &str = "max_fetch_bytes";

/// The default of [`MAX_FETCH_BYTES`]: 512 MiB.
pub const DEFAULT_MAX_FETCH_BYTES: u64 = 512 << 20;

/// `[sources]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourcesConfig {
    /// Base URLs for `owner/repo` (GitHub) and `gitlab:` shorthand.
    pub hosts: Hosts,
    /// How often the app checks sourced skills for updates; `None` when switched off.
    pub check_every: Option<Duration>,
    /// The most one skill from a source may hold, all its files together, in bytes: a skill
    /// over it is refused by itself, the others of the source come in. At most what the store
    /// keeps of one skill.
    pub max_skill_bytes: u64,
    /// The most one fetch may bring, in bytes: the download, and the files written.
    pub max_fetch_bytes: u64,
}

impl Default for SourcesConfig {
    /// github.com, gitlab.com, a check a day, 256 MiB a skill (what the store keeps of one),
    /// 512 MiB a fetch.
    fn default() -> Self {
        Self {
            hosts: Hosts::default(),
            check_every: Some(DAY),
            max_skill_bytes: UploadLimits::default().max_total_bytes,
            max_fetch_bytes: DEFAULT_MAX_FETCH_BYTES,
        }
    }
}

const DAY: Duration = Duration::from_secs(24 * 60 * 60);

#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
struct Raw {
    github: Option<String>,
    gitlab: Option<String>,
    check_every: Option<String>,
    max_skill_bytes: Option<Size>,
    max_fetch_bytes: Option<Size>,
}

/// A size as written: a number of bytes, or a string with a unit (`"64 KiB"`).
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum Size {
    Bytes(i64),
    Text(String),
}

/// Why `[sources]` could not be read.
#[derive(Debug, thiserror::Error)]
pub enum SourcesConfigError {
    /// The file could not be read.
    #[error("could not read {path}: {source}")]
    Read {
        /// The file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// The table is not what Skilldeck expects.
    #[error("{path}: [sources] {message}")]
    Invalid {
        /// The file.
        path: String,
        /// What was wrong and what to write.
        message: String,
    },
}

impl SourcesConfig {
    /// Reads `[sources]` from the config file at `path`; the defaults when the file or the table
    /// is missing.
    pub fn load(path: &Path) -> Result<Self, SourcesConfigError> {
        let shown = path.display().to_string();
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Self::default()),
            Err(source) => return Err(SourcesConfigError::Read { path: shown, source }),
        };
        Self::parse(&text, &shown)
    }

    /// Reads `[sources]` from a config file's text (`path` is for messages).
    pub fn parse(text: &str, path: &str) -> Result<Self, SourcesConfigError> {
        let invalid = |message: String| SourcesConfigError::Invalid { path: path.to_owned(), message };
        let table: toml::Table =
            toml::from_str(text).map_err(|e| invalid(format!("cannot be read: {}", e.message())))?;
        let Some(value) = table.get("sources") else { return Ok(Self::default()) };
        let raw: Raw = value.clone().try_into().map_err(|e: toml::de::Error| {
            invalid(format!(
                "{} (keys: github, gitlab, check_every, {MAX_SKILL_BYTES}, {MAX_FETCH_BYTES})",
                e.message()
            ))
        })?;
        let mut config = Self::default();
        for (key, url, slot) in
            [("github", raw.github, &mut config.hosts.github), ("gitlab", raw.gitlab, &mut config.hosts.gitlab)]
        {
            if let Some(url) = url {
                let parsed =
                    url::Url::parse(&url).map_err(|_| invalid(format!("{key} must be a URL like https://host")))?;
                if !matches!(parsed.scheme(), "http" | "https") {
                    return Err(invalid(format!("{key} must be an http(s) URL")));
                }
                *slot = url.trim_end_matches('/').to_owned();
            }
        }
        if let Some(every) = raw.check_every {
            config.check_every = match parse_every(&every) {
                Every::Period(p) => p,
                Every::TooOften => {
                    return Err(invalid(format!(
                        "check_every = {every:?} is too often: sources are checked at most every 10 minutes; write \"10m\" or more, \"hourly\", \"daily\" or \"off\""
                    )));
                }
                Every::NotAPeriod => {
                    return Err(invalid(format!(
                        "check_every = {every:?} is not a period: write \"daily\", \"hourly\", \"off\" or a number with m, h or d of at least 10 minutes (\"6h\", \"30m\")"
                    )));
                }
            };
        }
        let store_cap = UploadLimits::default().max_total_bytes;
        if let Some(size) = raw.max_skill_bytes {
            let asked = read_size(MAX_SKILL_BYTES, &size).map_err(invalid)?;
            if asked > store_cap {
                return Err(invalid(format!(
                    "{MAX_SKILL_BYTES} = {} is more than Skilldeck keeps of one skill ({}): write at most {}",
                    bytes::shown(asked),
                    bytes::shown(store_cap),
                    bytes::written(store_cap)
                )));
            }
            config.max_skill_bytes = asked;
        }
        if let Some(size) = raw.max_fetch_bytes {
            config.max_fetch_bytes = read_size(MAX_FETCH_BYTES, &size).map_err(invalid)?;
        }
        Ok(config)
    }
}

/// What a `check_every` text says.
enum Every {
    /// A period (`None`: off).
    Period(Option<Duration>),
    /// A period shorter than ten minutes.
    TooOften,
    /// Not a period at all.
    NotAPeriod,
}

/// The size of `key`, or what to write instead: a positive number of bytes or one with a unit.
fn read_size(key: &str, size: &Size) -> Result<u64, String> {
    let read = match size {
        Size::Bytes(n) => u64::try_from(*n).ok(),
        Size::Text(text) => bytes::parse(text),
    };
    match read {
        Some(bytes) if bytes > 0 => Ok(bytes),
        _ => {
            let written = match size {
                Size::Bytes(n) => n.to_string(),
                Size::Text(text) => format!("{text:?}"),
            };
            Err(format!(
                "{key} = {written} is not a size: write a number of bytes (65536) or one with a unit (\"64 KiB\", \"512 MiB\", \"1 GiB\")"
            ))
        }
    }
}

/// `daily`, `hourly`, `off`, or `<n>m`/`<n>h`/`<n>d` (at least ten minutes).
fn parse_every(text: &str) -> Every {
    let text = text.trim();
    match text {
        "off" | "never" => return Every::Period(None),
        "daily" => return Every::Period(Some(DAY)),
        "hourly" => return Every::Period(Some(Duration::from_secs(3600))),
        _ => {}
    }
    let unit = match text.chars().last() {
        Some('m') => 60,
        Some('h') => 3600,
        Some('d') => 86_400,
        _ => return Every::NotAPeriod,
    };
    let n: Option<u64> = text.get(..text.len() - 1).and_then(|n| n.trim().parse().ok());
    match n.and_then(|n| n.checked_mul(unit)) {
        Some(secs) if secs >= 600 => Every::Period(Some(Duration::from_secs(secs))),
        Some(_) => Every::TooOften,
        None => Every::NotAPeriod,
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn defaults_overrides_and_mistakes() {
        assert_eq!(SourcesConfig::parse("", "c").unwrap(), SourcesConfig::default());
        let c = SourcesConfig::parse(
            "[sources]\ngithub = \"http://127.0.0.1:8080/\"\ncheck_every = \"6h\"\n[other]\nx = 1\n",
            "c",
        )
        .unwrap();
        assert_eq!(c.hosts.github, "http://127.0.0.1:8080");
        assert_eq!(c.hosts.gitlab, "https://gitlab.com");
        assert_eq!(c.check_every, Some(Duration::from_secs(6 * 3600)));
        assert_eq!(SourcesConfig::parse("[sources]\ncheck_every = \"off\"", "c").unwrap().check_every, None);
        for bad in ["[sources]\ncheck_every = \"soon\"", "[sources]\ngithub = \"ftp://x\"", "[sources]\ntoken = \"x\""]
        {
            let e = SourcesConfig::parse(bad, "config.toml").unwrap_err().to_string();
            assert!(e.starts_with("config.toml: [sources]"), "{e}");
        }
        let e = SourcesConfig::parse("[sources]\ncheck_every = \"5m\"", "c").unwrap_err().to_string();
        assert!(e.contains("\"5m\" is too often: sources are checked at most every 10 minutes"), "{e}");
        assert_eq!(
            SourcesConfig::parse("[sources]\ncheck_every = \"10m\"", "c").unwrap().check_every,
            Some(Duration::from_secs(600))
        );
    }

    #[test]
    fn sizes_a_skill_and_a_fetch_may_bring() {
        let defaults = SourcesConfig::default();
        assert_eq!((defaults.max_skill_bytes, defaults.max_fetch_bytes), (256 << 20, 512 << 20));
        let c = SourcesConfig::parse("[sources]\nmax_skill_bytes = \"64 KiB\"\nmax_fetch_bytes = 1073741824\n", "c")
            .unwrap();
        assert_eq!((c.max_skill_bytes, c.max_fetch_bytes), (64 << 10, 1 << 30));
        let c = SourcesConfig::parse("[sources]\nmax_skill_bytes = 65536\nmax_fetch_bytes = \"2 GiB\"\n", "c").unwrap();
        assert_eq!((c.max_skill_bytes, c.max_fetch_bytes), (65536, 2 << 30));
        let error = |text: &str| SourcesConfig::parse(text, "config.toml").unwrap_err().to_string();
        let e = error("[sources]\nmax_skill_bytes = \"64 parsecs\"");
        assert!(e.contains("max_skill_bytes = \"64 parsecs\" is not a size") && e.contains("\"64 KiB\""), "{e}");
        let e = error("[sources]\nmax_fetch_bytes = 0");
        assert!(e.contains("max_fetch_bytes = 0 is not a size"), "{e}");
        let e = error("[sources]\nmax_skill_bytes = \"1 GiB\"");
        assert!(e.contains("more than Skilldeck keeps of one skill (256.0 MiB): write at most \"256 MiB\""), "{e}");
        let e = error("[sources]\nmax_skill_bytes = true");
        assert!(e.contains("max_fetch_bytes)"), "the keys are named: {e}");
    }
}
