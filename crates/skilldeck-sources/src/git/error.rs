//! Why a fetch or a ref listing failed, in words that name the URL (never its credentials) and
//! what to do; and the reading of gitoxide's errors into those words. It fetches nothing.

use std::path::PathBuf;
use std::time::Duration;

/// A failed fetch or ref listing. Every URL in it has had its credentials removed.
#[derive(Debug, thiserror::Error)]
pub enum GitError {
    /// The host could not be reached.
    #[error("could not reach {url}: {detail}; check the address, your network and any proxy settings")]
    Unreachable {
        /// The URL.
        url: String,
        /// What failed.
        detail: String,
    },
    /// The server wants credentials, or refused the ones sent.
    #[error("{url} needs credentials{}: set GITHUB_TOKEN or GH_TOKEN (GitHub) or GITLAB_TOKEN (GitLab), or configure a Git credential helper for this host", tried.as_ref().map(|t| format!(" and refused those from {t}")).unwrap_or_default())]
    NeedsCredentials {
        /// The URL.
        url: String,
        /// Where the refused credentials came from, if any were sent (`GITHUB_TOKEN`, `a Git credential helper`).
        tried: Option<String>,
    },
    /// Credentials were found for a plain-HTTP URL, and are not sent in clear text.
    #[error("{url} asks for credentials{}, which are never sent over plain http: use an https:// URL", origin.as_ref().map(|t| format!(" (found in {t})")).unwrap_or_default())]
    InsecureCredentials {
        /// The URL.
        url: String,
        /// Where the credentials came from.
        origin: Option<String>,
    },
    /// The server did not answer in time.
    #[error("{url} did not answer within {} s; try again later, or raise the timeout", timeout.as_secs_f32())]
    Timeout {
        /// The URL.
        url: String,
        /// The timeout that ran out.
        timeout: Duration,
    },
    /// The whole fetch or listing took longer than its total time, though the server kept
    /// sending (too slowly).
    #[error(
        "{url} took longer than {} s in all (it kept sending, too slowly); try again later, or raise the timeout",
        total.as_secs_f32()
    )]
    TookTooLong {
        /// The URL.
        url: String,
        /// The total time that ran out.
        total: Duration,
    },
    /// No such repository at that URL.
    #[error("{url} is not a Git repository ({detail}); check the URL, or whether it needs credentials")]
    NotARepository {
        /// The URL.
        url: String,
        /// What the server or Git said.
        detail: String,
    },
    /// The ref asked for does not exist.
    #[error("{url} has no branch, tag or ref `{reference}`{}", list(existing))]
    RefNotFound {
        /// The URL.
        url: String,
        /// The ref asked for.
        reference: String,
        /// Some refs that do exist, branches first.
        existing: Vec<String>,
    },
    /// An abbreviated commit id, which no server will resolve.
    #[error(
        "`{reference}` looks like an abbreviated commit id, and {url} has no branch or tag of that name: an abbreviated id cannot be fetched by itself; give the full 40-character commit id, or a branch or tag"
    )]
    AbbreviatedCommit {
        /// The URL.
        url: String,
        /// The ref asked for.
        reference: String,
    },
    /// The server would not send a commit by its id and no ref points at it.
    #[error(
        "{url} would not send commit {commit} by its id (it does not allow fetching unadvertised commits) and no branch or tag points at it: name a branch or tag that contains it"
    )]
    CommitNotServed {
        /// The URL.
        url: String,
        /// The commit asked for.
        commit: String,
    },
    /// The sub-path asked for is not a folder in the commit's tree.
    #[error("{url} at {commit} has no folder `{path}`{}", list(existing))]
    SubpathNotFound {
        /// The URL.
        url: String,
        /// The commit.
        commit: String,
        /// The sub-path asked for.
        path: String,
        /// What the deepest existing folder on the way holds.
        existing: Vec<String>,
    },
    /// The download or the tree is over the limits of a whole fetch; nothing was written.
    #[error("{url} at {commit} is too big to fetch: {what}; nothing was written. {fix}")]
    TooBig {
        /// The URL.
        url: String,
        /// The commit (or, when the download stopped, the object the ref points at).
        commit: String,
        /// What is over which limit, with the sizes.
        what: String,
        /// What would let it in: the setting to raise, or a smaller part to fetch.
        fix: String,
    },
    /// The folder to write to could not be written.
    #[error("could not write {}: {source}", path.display())]
    Write {
        /// The path.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// The destination already holds files.
    #[error("{} is not empty; fetch into a new folder", path.display())]
    DestinationNotEmpty {
        /// The path.
        path: PathBuf,
    },
    /// Anything else Git reported.
    #[error("fetching from {url} failed: {detail}")]
    Other {
        /// The URL.
        url: String,
        /// What Git said.
        detail: String,
    },
}

impl GitError {
    /// A stable code for scripts.
    pub fn code(&self) -> &'static str {
        match self {
            Self::Unreachable { .. } => "source_unreachable",
            Self::NeedsCredentials { .. } => "source_needs_credentials",
            Self::InsecureCredentials { .. } => "source_insecure_credentials",
            Self::Timeout { .. } | Self::TookTooLong { .. } => "source_timed_out",
            Self::NotARepository { .. } => "source_not_a_repository",
            Self::RefNotFound { .. } => "source_ref_not_found",
            Self::AbbreviatedCommit { .. } => "source_abbreviated_commit",
            Self::CommitNotServed { .. } => "source_commit_not_served",
            Self::SubpathNotFound { .. } => "source_path_not_found",
            Self::TooBig { .. } => "source_too_big",
            Self::Write { .. } => "source_write_failed",
            Self::DestinationNotEmpty { .. } => "source_scratch_failed",
            Self::Other { .. } => "source_git_failed",
        }
    }
}

fn list(items: &[String]) -> String {
    if items.is_empty() {
        return String::new();
    }
    format!("; it has: {}", items.join(", "))
}

/// A gitoxide error read as a [`GitError`] for `url` (already redacted); `secret` is any
/// userinfo of the URL as given, removed from the details.
pub(crate) fn classify(
    error: &gix::Error,
    url: &str,
    secret: Option<&str>,
    read_timeout: Duration,
    tried: Option<String>,
) -> GitError {
    let url = url.to_string();
    let mut chain: Vec<String> = Vec::new();
    for cause in error.iter_errors() {
        let text = cause.to_string();
        if !chain.iter().any(|c| c.contains(&text)) {
            chain.push(text);
        }
    }
    let mut detail = chain.join(": ");
    if let Some(secret) = secret.filter(|s| !s.is_empty()) {
        detail = detail.replace(secret, "***");
    }
    for cause in error.iter_errors() {
        if let Some(e) = cause.downcast_ref::<reqwest::Error>() {
            if e.is_timeout() {
                return GitError::Timeout { url, timeout: read_timeout };
            }
            if let Some(status) = e.status() {
                match status.as_u16() {
                    401 | 403 => return GitError::NeedsCredentials { url, tried },
                    404 | 410 => return GitError::NotARepository { url, detail },
                    _ => {}
                }
            }
            if e.is_connect() {
                return GitError::Unreachable { url, detail };
            }
        }
        if let Some(e) = cause.downcast_ref::<std::io::Error>() {
            match e.kind() {
                std::io::ErrorKind::TimedOut | std::io::ErrorKind::WouldBlock => {
                    return GitError::Timeout { url, timeout: read_timeout };
                }
                std::io::ErrorKind::ConnectionRefused
                | std::io::ErrorKind::HostUnreachable
                | std::io::ErrorKind::NetworkUnreachable => {
                    return GitError::Unreachable { url, detail };
                }
                _ => {}
            }
        }
    }
    if detail.contains("clear text over http") {
        return GitError::InsecureCredentials { url, origin: tried };
    }
    if error.is_unauthenticated() || error.is_permission_denied() {
        return GitError::NeedsCredentials { url, tried };
    }
    let lower = detail.to_ascii_lowercase();
    if lower.contains("timed out") || lower.contains("timeout") {
        return GitError::Timeout { url, timeout: read_timeout };
    }
    if lower.contains("authentication") || lower.contains("401") || lower.contains("403") {
        return GitError::NeedsCredentials { url, tried };
    }
    if lower.contains("not appear to be a git repository")
        || lower.contains("not a git repository")
        || lower.contains("valid git directory")
        || lower.contains("repository not found")
    {
        return GitError::NotARepository { url, detail };
    }
    if lower.contains("dns error") || lower.contains("failed to lookup") || lower.contains("connection refused") {
        return GitError::Unreachable { url, detail };
    }
    GitError::Other { url, detail }
}
