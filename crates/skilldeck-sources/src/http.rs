//! A small blocking HTTP client for sources: timeouts, a size cap on every body, few redirects,
//! a `skilldeck/<version>` User-Agent and typed errors. Holds GET and its limits; no parsing.
//!
//! It blocks the calling thread (reqwest's blocking client runs its own small runtime). A caller
//! inside an async runtime must call it from `tokio::task::spawn_blocking`, and must also create
//! and drop the [`HttpClient`] there: reqwest's blocking client panics when built or dropped on
//! a runtime thread.

mod digest;
mod error;

pub use digest::{DigestFormatError, Sha256Digest};
pub use error::{BodySize, HttpError, TimeoutStage, shown_url};

use std::io::Read;
use std::net::IpAddr;
use std::time::{Duration, Instant};
use url::Url;

/// The User-Agent sent with every request.
pub const USER_AGENT: &str = concat!("skilldeck/", env!("CARGO_PKG_VERSION"));

/// Limits on every request a [`HttpClient`] makes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpOptions {
    /// Longest wait for a connection (TCP and TLS).
    pub connect_timeout: Duration,
    /// Longest wait for the response once connected, and for each next bytes of the body: a
    /// server that stalls longer is given up.
    pub read_timeout: Duration,
    /// Longest time for a whole request, body included. Checked between reads of the body, so a
    /// request ends at most one read timeout past it.
    pub total_timeout: Duration,
    /// Largest body kept, in bytes; reading stops past it.
    pub max_body_bytes: u64,
    /// Most redirects followed for one request.
    pub max_redirects: usize,
    /// Whether plain `http://` is fetched from other computers. Off by default: over plain HTTP
    /// the index and the digests it lists can be changed on the way, so a digest proves nothing.
    /// `http://` to this computer (`localhost`, `127.0.0.0/8`, `::1`) is always fetched.
    pub allow_plain_http: bool,
    /// A token sent as `Authorization: Bearer <token>` with each request. It goes only to the
    /// host asked: a redirect to another host or port (a CDN) is followed without it.
    pub bearer_token: Option<BearerToken>,
}

/// A secret sent as a bearer token; shown as `BearerToken(…)` so it never reaches a log.
#[derive(Clone, PartialEq, Eq)]
pub struct BearerToken(String);

impl BearerToken {
    /// `token`, when it is one: not blank, and printable ASCII without spaces (what an HTTP
    /// header can carry).
    pub fn new(token: &str) -> Option<Self> {
        let token = token.trim();
        (!token.is_empty() && token.chars().all(|c| c.is_ascii_graphic())).then(|| Self(token.to_owned()))
    }
}

impl std::fmt::Debug for BearerToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("BearerToken(…)")
    }
}

impl Default for HttpOptions {
    /// 30 s to connect, 30 s of silence at most, 10 min in all, 256 MiB a body (the store's
    /// limit for a whole skill), 5 redirects, `https` only beyond this computer, no token.
    fn default() -> Self {
        Self {
            connect_timeout: Duration::from_secs(30),
            read_timeout: Duration::from_secs(30),
            total_timeout: Duration::from_secs(600),
            max_body_bytes: 256 << 20,
            max_redirects: 5,
            allow_plain_http: false,
            bearer_token: None,
        }
    }
}

/// A body streamed into a caller's sink by [`HttpClient::get_into`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Streamed {
    /// The URL it came from, after redirects.
    pub url: Url,
    /// Its `Content-Type` without parameters, lower-cased, when the server gave one.
    pub content_type: Option<String>,
    /// Its length in bytes.
    pub len: u64,
}

/// A body fetched whole.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fetched {
    /// The URL the body came from, after redirects.
    pub url: Url,
    /// The `Content-Type` header without parameters, lower case, when the server sent one.
    pub content_type: Option<String>,
    /// The body's bytes.
    pub bytes: Vec<u8>,
}

impl Fetched {
    /// The SHA-256 of the body's raw bytes.
    pub fn digest(&self) -> Sha256Digest {
        Sha256Digest::of(&self.bytes)
    }
}

/// A blocking HTTP client with [`HttpOptions`]' limits on every request. See the module docs
/// before using it from async code.
#[derive(Debug, Clone)]
pub struct HttpClient {
    client: reqwest::blocking::Client,
    options: HttpOptions,
}

/// Why a redirect was not followed, carried through reqwest's error to [`HttpError::Redirect`].
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
struct RedirectRefused(String);

impl HttpClient {
    /// A client with these limits.
    pub fn new(options: HttpOptions) -> Result<Self, HttpError> {
        let max = options.max_redirects;
        let allow_http = options.allow_plain_http;
        let policy = reqwest::redirect::Policy::custom(move |attempt| {
            // The first of `previous` is the URL asked for, not a redirect.
            if attempt.previous().len() > max {
                let reason = format!("more than {max} redirects; ask the publisher for the final address");
                attempt.error(RedirectRefused(reason))
            } else if let Err(reason) = scheme_allowed(attempt.url(), allow_http) {
                let to = shown_url(attempt.url());
                attempt.error(RedirectRefused(format!("to {to}: {reason}")))
            } else {
                attempt.follow()
            }
        });
        // Only the connect timeout is set on the async client underneath: its read and total
        // timers would be made on the calling thread, outside its runtime. The blocking
        // wrapper's timeout bounds every wait (for the response, then for each read of the
        // body), which is the stall timeout; the total is checked between reads.
        let inner = reqwest::Client::builder().connect_timeout(options.connect_timeout);
        let client = reqwest::blocking::ClientBuilder::from(inner)
            .timeout(options.read_timeout)
            .user_agent(USER_AGENT)
            .redirect(policy)
            .build()
            .map_err(|e| HttpError::Client { reason: root_cause(&e) })?;
        Ok(Self { client, options })
    }

    /// The limits this client applies.
    pub fn options(&self) -> &HttpOptions {
        &self.options
    }

    /// GETs `url` whole, up to [`HttpOptions::max_body_bytes`].
    pub fn get(&self, url: &Url) -> Result<Fetched, HttpError> {
        self.get_capped(url, self.options.max_body_bytes)
    }

    /// GETs `url` whole, up to `cap` bytes (and never past [`HttpOptions::max_body_bytes`]). A
    /// larger body is refused: before reading when its announced length says so, else as soon
    /// as reading passes the cap.
    pub fn get_capped(&self, url: &Url, cap: u64) -> Result<Fetched, HttpError> {
        self.get_with_progress(url, cap, &mut |_, _| {})
    }

    /// [`get_capped`](Self::get_capped), calling `progress(read, announced)` after each read
    /// of the body with the bytes read so far and the length the server announced, if any (for
    /// a progress bar on a large download).
    pub fn get_with_progress(
        &self,
        url: &Url,
        cap: u64,
        progress: &mut dyn FnMut(u64, Option<u64>),
    ) -> Result<Fetched, HttpError> {
        let mut bytes = Vec::new();
        let streamed = self.get_into(url, cap, &mut bytes, progress)?;
        Ok(Fetched { url: streamed.url, content_type: streamed.content_type, bytes })
    }

    /// GETs `url` into `sink` as it arrives, up to `cap` bytes (and never past
    /// [`HttpOptions::max_body_bytes`]), calling `progress` as
    /// [`get_with_progress`](Self::get_with_progress) does: a large body never has to fit in
    /// memory. On an error, `sink` may hold part of the body.
    pub fn get_into(
        &self,
        url: &Url,
        cap: u64,
        sink: &mut dyn std::io::Write,
        progress: &mut dyn FnMut(u64, Option<u64>),
    ) -> Result<Streamed, HttpError> {
        let cap = cap.min(self.options.max_body_bytes);
        let shown = shown_url(url);
        scheme_allowed(url, self.options.allow_plain_http)
            .map_err(|reason| HttpError::Refused { url: shown.clone(), reason })?;
        let started = Instant::now();
        let mut request = self.client.get(url.clone());
        if let Some(BearerToken(token)) = &self.options.bearer_token {
            // reqwest drops the header when a redirect leaves the host (or port) asked.
            request = request.bearer_auth(token);
        }
        let response = request.send().map_err(|e| self.send_error(&shown, e, started))?;
        let status = response.status().as_u16();
        match status {
            200..=299 => {}
            404 | 410 => return Err(HttpError::NotFound { url: shown, status }),
            401 | 403 => return Err(HttpError::NeedsCredentials { url: shown, status }),
            _ => return Err(HttpError::Status { url: shown, status }),
        }
        if let Some(announced) = response.content_length().filter(|&n| n > cap) {
            return Err(HttpError::TooBig { url: shown, limit: cap, size: BodySize::Announced(announced) });
        }
        let final_url = response.url().clone();
        let content_type = response
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.split(';').next())
            .map(|v| v.trim().to_ascii_lowercase())
            .filter(|v| !v.is_empty());
        let announced = response.content_length();
        let mut body = response.take(cap.saturating_add(1));
        let mut buf = vec![0u8; 64 * 1024];
        let mut read = 0u64;
        loop {
            let n = match body.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(self.read_error(&shown, e, started)),
            };
            read += n as u64;
            if read > cap {
                return Err(HttpError::TooBig { url: shown, limit: cap, size: BodySize::AtLeast(read) });
            }
            sink.write_all(&buf[..n]).map_err(|e| HttpError::Keep { url: shown.clone(), reason: e.to_string() })?;
            progress(read, announced);
            if started.elapsed() > self.options.total_timeout {
                let after = self.options.total_timeout;
                return Err(HttpError::TimedOut { url: shown, stage: TimeoutStage::Total, after });
            }
        }
        Ok(Streamed { url: final_url, content_type, len: read })
    }

    fn send_error(&self, shown: &str, e: reqwest::Error, started: Instant) -> HttpError {
        let url = shown.to_owned();
        if e.is_redirect() {
            let reason = find_source::<RedirectRefused>(&e).map_or_else(|| root_cause(&e), |r| r.0.clone());
            return HttpError::Redirect { url, reason };
        }
        if e.is_timeout() {
            return self.timed_out(url, e.is_connect(), started);
        }
        if e.is_connect() {
            return HttpError::Unreachable { url, reason: root_cause(&e) };
        }
        HttpError::Failed { url, reason: root_cause(&e) }
    }

    fn read_error(&self, shown: &str, e: std::io::Error, started: Instant) -> HttpError {
        let url = shown.to_owned();
        let inner = e.get_ref().and_then(|r| r.downcast_ref::<reqwest::Error>());
        if e.kind() == std::io::ErrorKind::TimedOut || inner.is_some_and(reqwest::Error::is_timeout) {
            return self.timed_out(url, false, started);
        }
        let reason = inner.map_or_else(|| e.to_string(), root_cause);
        HttpError::Failed { url, reason }
    }

    fn timed_out(&self, url: String, connecting: bool, started: Instant) -> HttpError {
        let o = &self.options;
        let (stage, after) = if connecting {
            (TimeoutStage::Connect, o.connect_timeout)
        } else if started.elapsed() >= o.total_timeout {
            (TimeoutStage::Total, o.total_timeout)
        } else {
            (TimeoutStage::Stalled, o.read_timeout)
        };
        HttpError::TimedOut { url, stage, after }
    }
}

/// Whether `url` may be fetched: `https`, or `http` to this computer or when allowed.
fn scheme_allowed(url: &Url, allow_plain_http: bool) -> Result<(), String> {
    match url.scheme() {
        "https" => Ok(()),
        "http" if allow_plain_http || is_loopback(url) => Ok(()),
        "http" => Err("plain http:// is not fetched from other computers, since what it carries (digests \
                       included) can be changed on the way; use the https:// address"
            .to_owned()),
        other => Err(format!("{other}:// addresses are not fetched; use an https:// address")),
    }
}

fn is_loopback(url: &Url) -> bool {
    match url.host() {
        Some(url::Host::Domain(d)) => d.eq_ignore_ascii_case("localhost"),
        Some(url::Host::Ipv4(ip)) => IpAddr::V4(ip).is_loopback(),
        Some(url::Host::Ipv6(ip)) => IpAddr::V6(ip).is_loopback(),
        None => false,
    }
}

/// The innermost cause of `e` (reqwest's own message names the URL, credentials and all, so it
/// is never shown; the cause underneath does not).
fn root_cause(e: &reqwest::Error) -> String {
    let mut cause: &dyn std::error::Error = e;
    while let Some(next) = cause.source() {
        cause = next;
    }
    if std::ptr::addr_eq(cause, e as &dyn std::error::Error) {
        // No source: reqwest's own kind, without the URL.
        let mut plain = String::new();
        if e.is_builder() {
            plain.push_str("the request could not be built");
        } else if e.is_body() || e.is_decode() {
            plain.push_str("the response body could not be read");
        } else {
            plain.push_str("the request failed");
        }
        return plain;
    }
    cause.to_string()
}

fn find_source<T: std::error::Error + 'static>(e: &reqwest::Error) -> Option<&T> {
    let mut cause: Option<&(dyn std::error::Error + 'static)> = std::error::Error::source(e);
    while let Some(c) = cause {
        if let Some(found) = c.downcast_ref::<T>() {
            return Some(found);
        }
        cause = c.source();
    }
    None
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]
    use super::*;

    fn check(url: &str, allow_plain_http: bool, expected: bool) {
        assert_eq!(scheme_allowed(&Url::parse(url).unwrap(), allow_plain_http).is_ok(), expected, "{url}");
    }

    #[test]
    fn plain_http_only_to_this_computer_unless_allowed() {
        check("https://example.com/x", false, true);
        check("http://example.com/x", false, false);
        check("http://example.com/x", true, true);
        check("http://127.0.0.1:9/x", false, true);
        check("http://127.8.0.1/x", false, true);
        check("http://[::1]:9/x", false, true);
        check("http://localhost/x", false, true);
        check("file:///etc/passwd", true, false);
        check("ftp://example.com/x", true, false);
    }

    #[test]
    fn the_user_agent_names_skilldeck_and_its_version() {
        assert_eq!(USER_AGENT, format!("skilldeck/{}", env!("CARGO_PKG_VERSION")));
    }

    #[test]
    fn a_bearer_token_is_never_printed_and_must_fit_a_header() {
        let token = BearerToken::new(" hf_abc123 \n").unwrap();
        assert_eq!(token, BearerToken("hf_abc123".to_owned()));
        let options = HttpOptions { bearer_token: Some(token), ..HttpOptions::default() };
        assert!(!format!("{options:?}").contains("hf_abc123"), "{options:?}");
        for bad in ["", "   ", "hf abc", "hf_é", "hf\u{0}x"] {
            assert_eq!(BearerToken::new(bad), None, "{bad:?}");
        }
    }
}
