//! Where the keys that sign requests come from: the AWS environment variables, else the shared
//! profile files (`~/.aws/credentials`, `~/.aws/config`). Never config.toml.
//! Holds the keys' type, the lookup and the INI reading (through `rust-ini`); not the signing
//! (`object_store`).

use crate::error::{RemoteError, Result};
use ini::{Ini, ParseOption};
use std::path::{Path, PathBuf};

/// The keys that sign requests; never stored in config.toml.
#[derive(Clone)]
pub struct Credentials {
    /// `AWS_ACCESS_KEY_ID`.
    pub access_key_id: String,
    /// `AWS_SECRET_ACCESS_KEY`.
    pub secret_access_key: String,
    /// `AWS_SESSION_TOKEN`, for temporary credentials.
    pub session_token: Option<String>,
}

impl std::fmt::Debug for Credentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Credentials").field("access_key_id", &self.access_key_id).finish_non_exhaustive()
    }
}

impl Credentials {
    /// From `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY` and `AWS_SESSION_TOKEN`; `None`
    /// when either key is missing.
    pub fn from_env() -> Option<Self> {
        let var = |v: &str| std::env::var(v).ok().filter(|s| !s.is_empty());
        Some(Self {
            access_key_id: var("AWS_ACCESS_KEY_ID")?,
            secret_access_key: var("AWS_SECRET_ACCESS_KEY")?,
            session_token: var("AWS_SESSION_TOKEN"),
        })
    }
}

/// Where a remote's credentials were found, for messages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// `AWS_ACCESS_KEY_ID` / `AWS_SECRET_ACCESS_KEY`.
    Environment,
    /// A profile in a shared file.
    Profile {
        /// The profile's name.
        profile: String,
        /// The file it was read from.
        file: PathBuf,
    },
}

/// The files and profile the lookup reads, from the environment as AWS tools read it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProfileFiles {
    /// `AWS_PROFILE`, else `default`.
    pub profile: String,
    /// Whether the profile was named by `AWS_PROFILE` (then its absence is an error).
    pub named: bool,
    /// `AWS_SHARED_CREDENTIALS_FILE`, else `~/.aws/credentials`.
    pub credentials: Option<PathBuf>,
    /// `AWS_CONFIG_FILE`, else `~/.aws/config`.
    pub config: Option<PathBuf>,
}

impl ProfileFiles {
    /// Reads the variables through `var` (the process environment in use, a map in tests).
    pub fn from_vars(var: &dyn Fn(&str) -> Option<String>) -> Self {
        let home = var("HOME").filter(|h| !h.is_empty()).map(PathBuf::from);
        let file = |v: &str, default: &str| {
            var(v).filter(|s| !s.is_empty()).map(PathBuf::from).or_else(|| home.as_ref().map(|h| h.join(default)))
        };
        let named = var("AWS_PROFILE").filter(|p| !p.is_empty());
        Self {
            profile: named.clone().unwrap_or_else(|| "default".to_owned()),
            named: named.is_some(),
            credentials: file("AWS_SHARED_CREDENTIALS_FILE", ".aws/credentials"),
            config: file("AWS_CONFIG_FILE", ".aws/config"),
        }
    }
}

/// Finds the credentials for remote `remote`: the environment's keys when both are set, else
/// the profile's keys from the credentials file, else from the config file (`[profile NAME]`,
/// or `[default]`). `NoCredentials` when none are found; a file that does not parse, or a
/// profile named by `AWS_PROFILE` that is in neither file, is an error saying which.
pub fn resolve(remote: &str, var: &dyn Fn(&str) -> Option<String>) -> Result<(Credentials, Source)> {
    let env = |v: &str| var(v).filter(|s| !s.is_empty());
    if let (Some(id), Some(secret)) = (env("AWS_ACCESS_KEY_ID"), env("AWS_SECRET_ACCESS_KEY")) {
        let creds =
            Credentials { access_key_id: id, secret_access_key: secret, session_token: env("AWS_SESSION_TOKEN") };
        return Ok((creds, Source::Environment));
    }
    let files = ProfileFiles::from_vars(var);
    let sections = [(&files.credentials, files.profile.clone()), (&files.config, config_section(&files.profile))];
    let mut seen_profile = false;
    for (path, section) in sections {
        let Some(path) = path else { continue };
        let Some(ini) = load(path)? else { continue };
        let Some(props) = ini.section(Some(section.as_str())) else { continue };
        seen_profile = true;
        let get = |k: &str| props.get(k).map(str::trim).filter(|s| !s.is_empty()).map(str::to_owned);
        match (get("aws_access_key_id"), get("aws_secret_access_key")) {
            (Some(id), Some(secret)) => {
                let creds = Credentials {
                    access_key_id: id,
                    secret_access_key: secret,
                    session_token: get("aws_session_token"),
                };
                return Ok((creds, Source::Profile { profile: files.profile.clone(), file: path.clone() }));
            }
            (None, None) => continue,
            _ => {
                return Err(RemoteError::BadCredentialsFile {
                    path: path.clone(),
                    reason: format!(
                        "profile {:?} has only one of aws_access_key_id and aws_secret_access_key; give both",
                        files.profile
                    ),
                });
            }
        }
    }
    if files.named && !seen_profile {
        return Err(RemoteError::NoProfile {
            profile: files.profile,
            files: [files.credentials, files.config].into_iter().flatten().collect(),
        });
    }
    Err(RemoteError::NoCredentials { name: remote.to_owned() })
}

/// The config file's section for a profile: `[default]`, or `[profile NAME]`.
fn config_section(profile: &str) -> String {
    if profile == "default" { "default".to_owned() } else { format!("profile {profile}") }
}

/// Reads an INI file; `None` when it does not exist. Backslashes and quotes are kept as
/// written (a secret may hold either).
fn load(path: &Path) -> Result<Option<Ini>> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(RemoteError::BadCredentialsFile { path: path.to_owned(), reason: e.to_string() }),
    };
    let opt = ParseOption { enabled_quote: false, enabled_escape: false, ..ParseOption::default() };
    Ini::load_from_str_opt(&text, opt)
        .map(Some)
        .map_err(|e| RemoteError::BadCredentialsFile { path: path.to_owned(), reason: format!("does not parse: {e}") })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    struct Home {
        dir: tempfile::TempDir,
        vars: HashMap<String, String>,
    }

    impl Home {
        fn new() -> Self {
            let dir = tempfile::tempdir().unwrap();
            let vars = HashMap::from([("HOME".to_owned(), dir.path().to_string_lossy().into_owned())]);
            Self { dir, vars }
        }
        fn file(&self, rel: &str, text: &str) -> PathBuf {
            let p = self.dir.path().join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(&p, text).unwrap();
            p
        }
        fn set(&mut self, k: &str, v: &str) {
            self.vars.insert(k.to_owned(), v.to_owned());
        }
        fn resolve(&self) -> Result<(Credentials, Source)> {
            resolve("team", &|k| self.vars.get(k).cloned())
        }
        fn keys(&self) -> (String, String, Option<String>, Source) {
            let (c, s) = self.resolve().unwrap();
            (c.access_key_id, c.secret_access_key, c.session_token, s)
        }
    }

    fn profile(name: &str, file: &Path) -> Source {
        Source::Profile { profile: name.to_owned(), file: file.to_owned() }
    }

    #[test]
    fn the_environment_then_the_credentials_file_then_the_config_file() {
        let mut h = Home::new();
        assert!(matches!(h.resolve(), Err(RemoteError::NoCredentials { .. })));
        let config = h.file(
            ".aws/config",
            "[default]\nregion = eu-west-1\naws_access_key_id = CFGDEF\naws_secret_access_key = c/d+ef\n\n\
             [profile work]\naws_access_key_id = CFGWORK\naws_secret_access_key = \"q\"\n",
        );
        assert_eq!(h.keys(), ("CFGDEF".into(), "c/d+ef".into(), None, profile("default", &config)));
        let creds = h.file(
            ".aws/credentials",
            "# keys\n[default]\naws_access_key_id = AKIDEFAULT\naws_secret_access_key = s3cr3t\n\
             aws_session_token = tok\n[work]\naws_access_key_id=AKIWORK\naws_secret_access_key=w0rk\n",
        );
        assert_eq!(h.keys(), ("AKIDEFAULT".into(), "s3cr3t".into(), Some("tok".into()), profile("default", &creds)));
        h.set("AWS_PROFILE", "work");
        assert_eq!(h.keys(), ("AKIWORK".into(), "w0rk".into(), None, profile("work", &creds)));
        // A profile only the config file has: its `[profile NAME]` section, quotes kept.
        std::fs::write(&creds, "[default]\naws_access_key_id = A\naws_secret_access_key = B\n").unwrap();
        assert_eq!(h.keys(), ("CFGWORK".into(), "\"q\"".into(), None, profile("work", &config)));
        h.set("AWS_ACCESS_KEY_ID", "ENVID");
        h.set("AWS_SECRET_ACCESS_KEY", "envsecret");
        assert_eq!(h.keys(), ("ENVID".into(), "envsecret".into(), None, Source::Environment));
    }

    #[test]
    fn the_files_can_be_elsewhere_and_mistakes_are_named() {
        let mut h = Home::new();
        let other = h.file("elsewhere/creds.ini", "[ci]\naws_access_key_id = CI\naws_secret_access_key = ci\n");
        h.set("AWS_SHARED_CREDENTIALS_FILE", other.to_str().unwrap());
        h.set("AWS_CONFIG_FILE", h.dir.path().join("missing").to_str().unwrap());
        h.set("AWS_PROFILE", "ci");
        assert_eq!(h.keys(), ("CI".into(), "ci".into(), None, profile("ci", &other)));

        h.set("AWS_PROFILE", "nope");
        let e = h.resolve().unwrap_err();
        assert!(matches!(e, RemoteError::NoProfile { .. }), "{e:?}");
        assert!(e.to_string().contains("profile \"nope\"") && e.to_string().contains("creds.ini"), "{e}");

        std::fs::write(&other, "[ci]\naws_access_key_id = ONLY\n").unwrap();
        h.set("AWS_PROFILE", "ci");
        let e = h.resolve().unwrap_err().to_string();
        assert!(e.contains("creds.ini") && e.contains("give both"), "{e}");

        std::fs::write(&other, "[ci\naws_access_key_id = X\n").unwrap();
        let e = h.resolve().unwrap_err().to_string();
        assert!(e.contains("creds.ini") && e.contains("does not parse"), "{e}");
    }
}
