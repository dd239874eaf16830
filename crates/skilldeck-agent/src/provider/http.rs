//! What the HTTP providers share: retries with backoff and jitter, `Retry-After`, the idle
//! timeout and SSE decoding. Holds no wire format of a particular API.

use super::ProviderError;
use eventsource_stream::{Event, Eventsource as _};
use futures_util::{Stream, StreamExt as _};
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// How an HTTP provider retries and times out.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HttpPolicy {
    /// Retries after the first attempt on 429, 5xx or a failed connection.
    pub max_retries: u32,
    /// The first backoff; it doubles each retry.
    pub base_delay: Duration,
    /// The longest backoff, and the longest `Retry-After` honoured.
    pub max_delay: Duration,
    /// How long the stream may send nothing (also the wait for the response headers).
    pub idle_timeout: Duration,
}

impl Default for HttpPolicy {
    fn default() -> Self {
        Self {
            max_retries: 4,
            base_delay: Duration::from_millis(500),
            max_delay: Duration::from_secs(30),
            idle_timeout: Duration::from_secs(60),
        }
    }
}

impl HttpPolicy {
    /// The wait before retry number `retry` (0-based): exponential with full jitter in its
    /// upper half, or the server's `Retry-After` when it gave one.
    pub fn delay(&self, retry: u32, retry_after: Option<Duration>) -> Duration {
        if let Some(d) = retry_after {
            return d.min(self.max_delay);
        }
        let exp = self.base_delay.saturating_mul(1u32 << retry.min(16)).min(self.max_delay);
        let half = exp / 2;
        half + half.mul_f64(fastrand::f64())
    }
}

/// Whether a status is worth retrying.
fn retryable(status: u16) -> bool {
    status == 429 || status == 408 || (500..600).contains(&status)
}

/// The server's `retry-after-ms` or `retry-after` header.
fn retry_after(headers: &reqwest::header::HeaderMap) -> Option<Duration> {
    let get = |name: &str| headers.get(name).and_then(|v| v.to_str().ok()).map(str::trim);
    if let Some(ms) = get("retry-after-ms").and_then(|v| v.parse::<f64>().ok()) {
        return Some(Duration::from_secs_f64(ms.max(0.0) / 1000.0));
    }
    get("retry-after").and_then(|v| parse_retry_after(v, time::OffsetDateTime::now_utc()))
}

/// A `Retry-After` value: seconds, or an HTTP date (the wait until then, from `now`).
pub fn parse_retry_after(value: &str, now: time::OffsetDateTime) -> Option<Duration> {
    let value = value.trim();
    if let Ok(secs) = value.parse::<f64>() {
        return secs.is_finite().then(|| Duration::from_secs_f64(secs.max(0.0)));
    }
    let at = time::OffsetDateTime::parse(value, &time::format_description::well_known::Rfc2822).ok()?;
    Some(Duration::try_from(at - now).unwrap_or(Duration::ZERO))
}

/// Sends the request built by `build`, retrying on 429/5xx and connection failures; returns a
/// response with a success status. Every wait stops at once when `cancel` fires.
///
/// Logs the outcome: the host, the HTTP status, the attempts and how long it took (the caller's
/// span names the provider and model). Never the headers (the API key), the body sent (the
/// prompt, the skills) or the body received.
pub async fn send(
    policy: &HttpPolicy,
    url: &str,
    cancel: &CancellationToken,
    build: impl Fn() -> reqwest::RequestBuilder,
) -> Result<reqwest::Response, ProviderError> {
    let started = std::time::Instant::now();
    let host = reqwest::Url::parse(url).ok().and_then(|u| u.host_str().map(str::to_owned)).unwrap_or_default();
    let sent = send_retrying(policy, url, cancel, build).await;
    let ms = started.elapsed().as_millis() as u64;
    match &sent {
        Ok(resp) => tracing::info!(%host, status = resp.status().as_u16(), ms, "provider responded"),
        Err(ProviderError::Cancelled) => tracing::debug!(%host, ms, "provider request cancelled"),
        Err(ProviderError::Status { status, attempts, .. }) => {
            tracing::warn!(%host, status, attempts, ms, "provider refused the request")
        }
        Err(ProviderError::Connect { attempts, .. }) => {
            tracing::warn!(%host, attempts, ms, "provider could not be reached")
        }
        Err(ProviderError::IdleTimeout { secs }) => tracing::warn!(%host, secs, ms, "provider stopped answering"),
        Err(_) => tracing::warn!(%host, ms, "provider request failed"),
    }
    sent
}

async fn send_retrying(
    policy: &HttpPolicy,
    url: &str,
    cancel: &CancellationToken,
    build: impl Fn() -> reqwest::RequestBuilder,
) -> Result<reqwest::Response, ProviderError> {
    let mut attempt = 0u32;
    loop {
        attempt += 1;
        let sent = tokio::select! {
            () = cancel.cancelled() => return Err(ProviderError::Cancelled),
            r = tokio::time::timeout(policy.idle_timeout, build().send()) => r,
        };
        let (wait, failure) = match sent {
            Err(_) => (None, ProviderError::IdleTimeout { secs: policy.idle_timeout.as_secs_f64() }),
            Ok(Err(e)) => {
                (None, ProviderError::Connect { url: url.to_owned(), attempts: attempt, message: error_chain(&e) })
            }
            Ok(Ok(resp)) if resp.status().is_success() => return Ok(resp),
            Ok(Ok(resp)) => {
                let status = resp.status().as_u16();
                let after = retry_after(resp.headers());
                let body = tokio::time::timeout(policy.idle_timeout, resp.text()).await.ok().and_then(Result::ok);
                let body = body.unwrap_or_default();
                let body: String = body.chars().take(500).collect();
                let err = ProviderError::Status { status, attempts: attempt, body };
                if !retryable(status) {
                    return Err(err);
                }
                (after, err)
            }
        };
        if attempt > policy.max_retries {
            return Err(failure);
        }
        let delay = policy.delay(attempt - 1, wait);
        tokio::select! {
            () = cancel.cancelled() => return Err(ProviderError::Cancelled),
            () = tokio::time::sleep(delay) => {}
        }
    }
}

/// An error and its causes on one line.
fn error_chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut cur = e.source();
    while let Some(c) = cur {
        s.push_str(": ");
        s.push_str(&c.to_string());
        cur = c.source();
    }
    s
}

/// The response body as SSE events, each wait bounded by the idle timeout and the token.
pub fn sse(
    resp: reqwest::Response,
    idle: Duration,
    cancel: CancellationToken,
) -> impl Stream<Item = Result<Event, ProviderError>> + Send + 'static {
    let events = resp.bytes_stream().eventsource();
    futures_util::stream::unfold((Box::pin(events), false), move |(mut events, done)| {
        let cancel = cancel.clone();
        async move {
            if done {
                return None;
            }
            let next = tokio::select! {
                () = cancel.cancelled() => Err(ProviderError::Cancelled),
                r = tokio::time::timeout(idle, events.next()) => match r {
                    Err(_) => Err(ProviderError::IdleTimeout { secs: idle.as_secs_f64() }),
                    Ok(None) => return None,
                    Ok(Some(Err(e))) => Err(ProviderError::Malformed(e.to_string())),
                    Ok(Some(Ok(ev))) => Ok(ev),
                },
            };
            let stop = next.is_err();
            Some((next, (events, stop)))
        }
    })
}

/// Reads the API key from the environment variable named `var`, if one is named.
pub fn key_from_env(var: Option<&str>) -> Result<Option<String>, ProviderError> {
    match var {
        None => Ok(None),
        Some(v) => match std::env::var(v) {
            Ok(k) if !k.is_empty() => Ok(Some(k)),
            _ => Err(ProviderError::Config(format!("the environment variable {v} (named by api_key_env) is not set"))),
        },
    }
}

/// Joins a base URL and a path with exactly one slash.
pub fn join(base: &str, path: &str) -> String {
    format!("{}/{}", base.trim_end_matches('/'), path.trim_start_matches('/'))
}

/// A client for the HTTP providers.
pub fn client() -> Result<reqwest::Client, ProviderError> {
    reqwest::Client::builder()
        .connect_timeout(Duration::from_secs(20))
        .build()
        .map_err(|e| ProviderError::Config(format!("could not build the HTTP client: {e}")))
}

/// Turns one wire format's SSE events into stream events.
pub trait Translator: Send + 'static {
    /// Handles one SSE event, pushing what it completes onto `out`. Returns true when the
    /// reply is over.
    fn on_event(&mut self, event: &Event, out: &mut Vec<crate::message::StreamEvent>) -> Result<bool, ProviderError>;

    /// The stream ended without the wire format's end marker: finish if the reply is
    /// complete enough, else fail.
    fn on_end(&mut self, out: &mut Vec<crate::message::StreamEvent>) -> Result<(), ProviderError>;
}

/// A provider's event stream: SSE events through `translator`.
pub fn translate(
    events: impl Stream<Item = Result<Event, ProviderError>> + Send + 'static,
    translator: impl Translator,
) -> super::EventStream {
    struct State<S, T> {
        events: std::pin::Pin<Box<S>>,
        translator: T,
        pending: std::collections::VecDeque<Result<crate::message::StreamEvent, ProviderError>>,
        done: bool,
    }
    let state = State { events: Box::pin(events), translator, pending: Default::default(), done: false };
    futures_util::stream::unfold(state, |mut st| async move {
        loop {
            if let Some(next) = st.pending.pop_front() {
                return Some((next, st));
            }
            if st.done {
                return None;
            }
            let mut out = Vec::new();
            let step = match st.events.next().await {
                Some(Ok(ev)) => st.translator.on_event(&ev, &mut out),
                Some(Err(e)) => Err(e),
                None => st.translator.on_end(&mut out).map(|()| true),
            };
            st.pending.extend(out.into_iter().map(Ok));
            match step {
                Ok(done) => st.done = done,
                Err(e) => {
                    st.pending.push_back(Err(e));
                    st.done = true;
                }
            }
        }
    })
    .boxed()
}

/// Where and how a provider reaches its server: the shared HTTP client, base URL, model, key
/// and retry policy.
#[derive(Debug, Clone)]
pub struct Endpoint {
    /// The HTTP client.
    pub client: reqwest::Client,
    /// The API's base URL.
    pub base_url: String,
    /// The model asked for.
    pub model: String,
    /// The key, read from the environment variable the config names.
    pub api_key: Option<String>,
    /// Retries, backoff and timeouts.
    pub policy: HttpPolicy,
}

impl Endpoint {
    /// An endpoint with a fresh client.
    pub fn new(
        base_url: impl Into<String>,
        model: impl Into<String>,
        api_key: Option<String>,
        policy: HttpPolicy,
    ) -> Result<Self, ProviderError> {
        Ok(Self { client: client()?, base_url: base_url.into(), model: model.into(), api_key, policy })
    }
}
