//! `RemoteError`: everything that can go wrong talking to a team store or its cache.
//! Holds the wording of the server's answers in plain words; not the retry policy.

use object_store::client::{HttpError, HttpErrorKind};
use std::path::PathBuf;

/// A failure of a remote operation, worded for the person who must fix it.
#[derive(Debug, thiserror::Error)]
pub enum RemoteError {
    /// No `[remotes.NAME]` in config.toml.
    #[error("no remote {name:?} in config.toml; `skilldeck remote add {name} s3://BUCKET/PREFIX` adds one")]
    UnknownRemote {
        /// The name asked for.
        name: String,
    },
    /// The remote's settings are wrong.
    #[error("remote {name:?}: {reason}")]
    BadConfig {
        /// The remote.
        name: String,
        /// What is wrong and how to fix it.
        reason: String,
    },
    /// config.toml could not be read, parsed or written.
    #[error("config.toml ({path}): {reason}")]
    ConfigFile {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        reason: String,
    },
    /// No credentials in the environment or the profile files.
    #[error(
        "no credentials for remote {name:?}: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY \
         (and AWS_SESSION_TOKEN if yours is temporary) in the environment, or put them in a \
         profile of ~/.aws/credentials (AWS_PROFILE picks one); credentials are never read from \
         config.toml"
    )]
    NoCredentials {
        /// The remote.
        name: String,
    },
    /// `AWS_PROFILE` names a profile neither file has.
    #[error(
        "AWS_PROFILE names the profile {profile:?}, which none of {} holds; fix AWS_PROFILE or add the profile",
        show_paths(files)
    )]
    NoProfile {
        /// The profile.
        profile: String,
        /// The files read.
        files: Vec<PathBuf>,
    },
    /// A profile file that cannot be read or says something incomplete.
    #[error("the AWS profile file {}: {reason}", path.display())]
    BadCredentialsFile {
        /// The file.
        path: PathBuf,
        /// What is wrong and what to do.
        reason: String,
    },
    /// The server refused the credentials or the permission.
    #[error(
        "the server refused access to {key}: the credentials (AWS_ACCESS_KEY_ID / \
         AWS_SECRET_ACCESS_KEY, or the AWS profile) are wrong or lack permission on this bucket ({detail})"
    )]
    AccessDenied {
        /// The object asked for.
        key: String,
        /// The server's code.
        detail: String,
    },
    /// The bucket does not exist.
    #[error("the bucket {bucket:?} does not exist; create it, or fix the url in config.toml")]
    NoSuchBucket {
        /// The bucket.
        bucket: String,
    },
    /// The server says this machine's clock is off.
    #[error("the server refused the request because this machine's clock is off; set the clock (NTP) and retry")]
    ClockSkew,
    /// Throttled or failing after every retry.
    #[error("the server is busy or failing ({detail}); retried with backoff and gave up, try again later")]
    Busy {
        /// The last status and code.
        detail: String,
    },
    /// The server could not be reached at all.
    #[error("the remote is unreachable ({detail})")]
    Unreachable {
        /// What the connection said.
        detail: String,
    },
    /// A skill or revision that is not in the store.
    #[error("{what} is not in the team store")]
    NotFound {
        /// What was asked for.
        what: String,
    },
    /// A manifest or blob that does not say what it should.
    #[error("the team store holds a damaged object {key}: {reason}")]
    Corrupt {
        /// The object.
        key: String,
        /// What is wrong.
        reason: String,
    },
    /// Claiming a revision kept losing to other publishers.
    #[error(
        "could not claim a revision of {name} after {attempts} tries; other machines keep publishing it, try again"
    )]
    Contended {
        /// The skill.
        name: String,
        /// How many revisions were tried.
        attempts: u32,
    },
    /// A skill whose files no reader of the store would accept.
    #[error("{name} was not published: {reason}; every reader would refuse it, so fix the skill's files first")]
    Unpublishable {
        /// The skill.
        name: String,
        /// What readers would refuse.
        reason: String,
    },
    /// The skill's next revision would not fit in a manifest key.
    #[error(
        "{name} cannot get a new revision: the team store holds {key}, revision {revision}, and \
         revisions stop at 9999999999 (ten digits in the key); nobody publishes that many, so \
         that key was most likely written by hand or by a broken or hostile tool: delete it (and \
         any other revision after the real last one) from the bucket, then publish again"
    )]
    RevisionsExhausted {
        /// The skill.
        name: String,
        /// The manifest key holding the highest revision.
        key: String,
        /// Its revision.
        revision: u64,
    },
    /// Any other answer of the store.
    #[error("the object store failed: {0}")]
    Store(String),
    /// The local cache could not be read or written.
    #[error("the local cache {path}: {source}")]
    Cache {
        /// The file or folder.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
}

/// Shorthand for results of this crate.
pub type Result<T, E = RemoteError> = std::result::Result<T, E>;

impl RemoteError {
    /// A stable snake_case code, for UIs and scripts.
    pub fn code(&self) -> &'static str {
        match self {
            Self::UnknownRemote { .. } => "remote_unknown",
            Self::BadConfig { .. } | Self::ConfigFile { .. } => "remote_config_invalid",
            Self::NoCredentials { .. } | Self::NoProfile { .. } | Self::BadCredentialsFile { .. } => {
                "remote_credentials_missing"
            }
            Self::AccessDenied { .. } => "remote_access_denied",
            Self::NoSuchBucket { .. } => "remote_bucket_missing",
            Self::ClockSkew => "remote_clock_skew",
            Self::Busy { .. } => "remote_busy",
            Self::Unreachable { .. } => "remote_unreachable",
            Self::NotFound { .. } => "remote_not_found",
            Self::Corrupt { .. } => "remote_corrupt",
            Self::Contended { .. } => "remote_contended",
            Self::RevisionsExhausted { .. } => "remote_revisions_exhausted",
            Self::Unpublishable { .. } => "remote_unpublishable",
            Self::Store(_) => "remote_failed",
            Self::Cache { .. } => "remote_cache_failed",
        }
    }

    /// Whether the server could not be reached (so cached answers are the best there is).
    pub fn is_unreachable(&self) -> bool {
        matches!(self, Self::Unreachable { .. })
    }

    /// Words an `object_store` error about `key` in bucket `bucket`.
    ///
    /// `object_store` keeps the HTTP status and the S3 error body only in its messages, so
    /// they are read from there; a transport failure is told by its `HttpError` kind.
    pub fn from_store(e: object_store::Error, bucket: &str, key: &str) -> Self {
        let text = chain_text(&e);
        let status = status_in(&text);
        if text.contains("NoSuchBucket") {
            return Self::NoSuchBucket { bucket: bucket.to_owned() };
        }
        if text.contains("RequestTimeTooSkewed") || text.contains("RequestExpired") {
            return Self::ClockSkew;
        }
        match (&e, status) {
            (object_store::Error::NotFound { .. }, _) => return Self::NotFound { what: key.to_owned() },
            (object_store::Error::PermissionDenied { .. } | object_store::Error::Unauthenticated { .. }, _)
            | (_, Some(401 | 403)) => {
                return Self::AccessDenied { key: key.to_owned(), detail: server_code(&text, status) };
            }
            (_, Some(429 | 500..=599)) => return Self::Busy { detail: server_code(&text, status) },
            _ => {}
        }
        if let Some(h) = find_http(&e)
            && matches!(h.kind(), HttpErrorKind::Connect | HttpErrorKind::Timeout | HttpErrorKind::Request)
        {
            return Self::Unreachable { detail: deepest(&e) };
        }
        Self::Store(e.to_string())
    }
}

fn show_paths(files: &[PathBuf]) -> String {
    files.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", ")
}

fn find_http(e: &object_store::Error) -> Option<&HttpError> {
    let mut cur: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(err) = cur {
        if let Some(h) = err.downcast_ref::<HttpError>() {
            return Some(h);
        }
        cur = err.source();
    }
    None
}

/// Every message of the chain, joined.
fn chain_text(e: &object_store::Error) -> String {
    let mut out = e.to_string();
    let mut cur = std::error::Error::source(e);
    while let Some(err) = cur {
        out.push_str(" | ");
        out.push_str(&err.to_string());
        cur = err.source();
    }
    out
}

/// The deepest message of the chain: what the connection itself said.
fn deepest(e: &object_store::Error) -> String {
    let mut cur: &(dyn std::error::Error + 'static) = e;
    while let Some(next) = cur.source() {
        cur = next;
    }
    cur.to_string()
}

/// The status in `object_store`'s "non-2xx status code: 503 Service Unavailable" message.
fn status_in(text: &str) -> Option<u16> {
    let (_, rest) = text.split_once("status code: ")?;
    rest.get(..3)?.parse().ok()
}

/// `503 SlowDown` from a status and the S3 XML error body in `text`.
fn server_code(body: &str, status: Option<u16>) -> String {
    let code = body.split_once("<Code>").and_then(|(_, rest)| rest.split_once("</Code>")).map(|(c, _)| c);
    match (status, code) {
        (Some(s), Some(c)) => format!("{s} {c}"),
        (Some(s), None) => s.to_string(),
        (None, Some(c)) => c.to_owned(),
        (None, None) => "no status".to_owned(),
    }
}
