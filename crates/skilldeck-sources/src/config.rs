//! `[sources]` in config.toml: the hosts shorthand expands against and how often sourced skills
//! are checked for updates. Credentials are never read from here (they come from the Git
//! credential helper or environment tokens).

use crate::source::Hosts;
use serde::Deserialize;
use std::path::Path;
use std::time::Duration;

/// `[sources]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourcesConfig {
    /// Base URLs for `owner/repo` (GitHub) and `gitlab:` shorthand.
    pub hosts: Hosts,
    /// How often the app checks sourced skills for updates; `None` when switched off.
    pub check_every: Option<Duration>,
}

impl Default for SourcesConfig {
    /// github.com, gitlab.com, a check a day.
    fn default() -> Self {
        Self { hosts: Hosts::default(), check_every: Some(DAY) }
    }
}

const DAY: Duration = Duration::from_secs(24 * 60 * 60);

#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
struct Raw {
    github: Option<String>,
    gitlab: Option<String>,
    check_every: Option<String>,
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
        let raw: Raw = value
            .clone()
            .try_into()
            .map_err(|e: toml::de::Error| invalid(format!("{} (keys: github, gitlab, check_every)", e.message())))?;
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
}
