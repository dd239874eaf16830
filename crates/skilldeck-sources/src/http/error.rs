//! `HttpError`: why a fetch failed, naming the address as shown to a user (credentials and query
//! never shown) and what to do. Holds the errors and the shown form of a URL; no requests.

use std::time::Duration;
use url::Url;

/// Which wait ran out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeoutStage {
    /// No connection within the connect timeout.
    Connect,
    /// Connected, but nothing came for the read timeout (a stalled server).
    Stalled,
    /// The whole request, body included, ran past the total timeout.
    Total,
}

/// How large a refused body was.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BodySize {
    /// The size the server announced (`Content-Length`); nothing was read.
    Announced(u64),
    /// Reading stopped after this many bytes, past the cap; the body is at least this large.
    AtLeast(u64),
}

/// Why a fetch failed. Every variant names the URL in its shown form (see [`shown_url`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HttpError {
    /// The address is not one Skilldeck fetches from.
    #[error("{url}: {reason}")]
    Refused {
        /// The URL as shown.
        url: String,
        /// Why, and what to use instead.
        reason: String,
    },
    /// No connection could be made (DNS, refused, TLS).
    #[error("could not reach {url}: {reason}; check the address and the network, then try again")]
    Unreachable {
        /// The URL as shown.
        url: String,
        /// The underlying cause.
        reason: String,
    },
    /// A wait ran out.
    #[error("{url} {}", timeout_text(*stage, *after))]
    TimedOut {
        /// The URL as shown.
        url: String,
        /// Which wait.
        stage: TimeoutStage,
        /// How long it was.
        after: Duration,
    },
    /// HTTP 404 or 410.
    #[error("{url} was not found (HTTP {status}); check the address, or ask the publisher where it moved")]
    NotFound {
        /// The URL as shown.
        url: String,
        /// 404 or 410.
        status: u16,
    },
    /// HTTP 401 or 403.
    #[error("{url} needs credentials (HTTP {status}); Skilldeck sends none, so ask the publisher for a public address")]
    NeedsCredentials {
        /// The URL as shown.
        url: String,
        /// 401 or 403.
        status: u16,
    },
    /// Any other status that is not a success.
    #[error("{url} answered HTTP {status}; try again later, or check the address")]
    Status {
        /// The URL as shown.
        url: String,
        /// The status code.
        status: u16,
    },
    /// The body is larger than the cap; reading stopped there and nothing was kept.
    #[error("{url} is {}, more than the limit of {limit} bytes; nothing was kept", size_text(*size))]
    TooBig {
        /// The URL as shown.
        url: String,
        /// The cap, in bytes.
        limit: u64,
        /// How large it was found to be.
        size: BodySize,
    },
    /// A redirect was not followed.
    #[error("{url} redirected, and the redirect was not followed: {reason}")]
    Redirect {
        /// The URL as shown.
        url: String,
        /// Why (too many, or from `https` to plain `http`).
        reason: String,
    },
    /// The request failed in another way (a broken response, a reset connection).
    #[error("fetching {url} failed: {reason}; try again")]
    Failed {
        /// The URL as shown.
        url: String,
        /// The underlying cause.
        reason: String,
    },
    /// What was read could not be kept where the caller streams it (a full disk, a file that
    /// cannot be written).
    #[error("the body of {url} could not be kept: {reason}; check the free space and the folder's permissions")]
    Keep {
        /// The URL as shown.
        url: String,
        /// What the operating system said.
        reason: String,
    },
    /// The HTTP client could not be set up (its TLS roots, its runtime).
    #[error("the HTTP client could not be set up: {reason}")]
    Client {
        /// The underlying cause.
        reason: String,
    },
}

impl HttpError {
    /// A stable snake_case code for the UI to switch on.
    pub fn code(&self) -> &'static str {
        match self {
            Self::Refused { .. } => "http_refused",
            Self::Unreachable { .. } => "http_unreachable",
            Self::TimedOut { .. } => "http_timeout",
            Self::NotFound { .. } => "http_not_found",
            Self::NeedsCredentials { .. } => "http_needs_credentials",
            Self::Status { .. } => "http_status",
            Self::TooBig { .. } => "http_too_big",
            Self::Redirect { .. } => "http_redirect",
            Self::Failed { .. } => "http_failed",
            Self::Keep { .. } => "http_keep",
            Self::Client { .. } => "http_client",
        }
    }
}

fn timeout_text(stage: TimeoutStage, after: Duration) -> String {
    let secs = after.as_secs_f64();
    match stage {
        TimeoutStage::Connect => {
            format!("did not accept a connection within {secs} s; check the address, or try again later")
        }
        TimeoutStage::Stalled => format!("stopped answering (nothing came for {secs} s); try again later"),
        TimeoutStage::Total => {
            format!("took longer than {secs} s in all; try again on a faster connection, or raise the time limit")
        }
    }
}

fn size_text(size: BodySize) -> String {
    match size {
        BodySize::Announced(n) => format!("{n} bytes as announced"),
        BodySize::AtLeast(n) => format!("at least {n} bytes (reading stopped there)"),
    }
}

/// `url` as shown in messages: no user name or password, no fragment, and a query replaced by
/// `?…`, since signed download links carry their tokens in the query.
pub fn shown_url(url: &Url) -> String {
    let mut shown = url.clone();
    // Setting these fails only for URLs that cannot have them (no host), which hold none.
    let _ = shown.set_username("");
    let _ = shown.set_password(None);
    shown.set_fragment(None);
    if shown.query().is_some() {
        shown.set_query(None);
        format!("{shown}?…")
    } else {
        shown.to_string()
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]
    use super::*;

    fn check(input: &str, expected: &str) {
        assert_eq!(shown_url(&Url::parse(input).unwrap()), expected);
    }

    #[test]
    fn shown_urls_carry_no_credentials() {
        check("https://user:secret@example.com/a/index.json", "https://example.com/a/index.json");
        check("https://token@example.com/x.zip?sig=abc#frag", "https://example.com/x.zip?…");
        check("http://127.0.0.1:8080/", "http://127.0.0.1:8080/");
    }
}
