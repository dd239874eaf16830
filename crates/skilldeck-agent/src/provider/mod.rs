//! The provider trait every model backend implements, its errors and the backends themselves.
//! Holds the contract (a request in, a stream of events out); the loop lives in `session`.

pub mod anthropic;
pub mod http;
pub mod offline;
pub mod openai;
pub mod probe;

use crate::message::{ModelRequest, StreamEvent};
use futures_util::StreamExt as _;
use futures_util::stream::BoxStream;
use tokio_util::sync::CancellationToken;

/// A streamed reply: events until `Finish`, or an error.
pub type EventStream = BoxStream<'static, Result<StreamEvent, ProviderError>>;

/// Why a model call failed.
#[derive(Debug, thiserror::Error)]
pub enum ProviderError {
    /// The server answered with an error status, after any retries.
    #[error("the model server answered {status} after {attempts} attempt(s): {body}")]
    Status {
        /// The HTTP status.
        status: u16,
        /// How many requests were made.
        attempts: u32,
        /// The start of the response body.
        body: String,
    },
    /// The server could not be reached, after any retries.
    #[error("could not reach the model server at {url} after {attempts} attempt(s): {message}")]
    Connect {
        /// The URL.
        url: String,
        /// How many requests were made.
        attempts: u32,
        /// What went wrong.
        message: String,
    },
    /// The stream sent nothing for longer than the idle timeout.
    #[error("the model's stream was idle for {secs:.1} s; giving up on this reply")]
    IdleTimeout {
        /// The timeout, in seconds.
        secs: f64,
    },
    /// The stream broke the wire format.
    #[error("the model's stream was malformed: {0}")]
    Malformed(String),
    /// The stream ended before the reply did.
    #[error("the model's stream ended before the reply was complete")]
    Truncated,
    /// The call was cancelled.
    #[error("cancelled")]
    Cancelled,
    /// The provider is misconfigured (no key, bad URL, …).
    #[error("{0}")]
    Config(String),
}

/// Who answers: shown wherever a session's provider is named.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ProviderInfo {
    /// The provider's kind: `offline`, `openai` or `anthropic`.
    pub kind: String,
    /// The model's name (`offline-router` for the offline provider).
    pub model: String,
    /// A label for people, e.g. `offline (no language model)`.
    pub label: String,
}

/// A model backend. `stream` sends one request and returns its reply as events; retries on
/// 429/5xx happen inside, before the stream is returned; the stream applies the idle timeout.
#[async_trait::async_trait]
pub trait Provider: Send + Sync {
    /// Who this is.
    fn info(&self) -> ProviderInfo;

    /// Sends `request` and streams the reply. Stops early (with `Cancelled`) when `cancel` fires.
    async fn stream(&self, request: &ModelRequest, cancel: &CancellationToken) -> Result<EventStream, ProviderError>;
}

/// A whole answer to a request without tools: its text, and its tokens when the provider
/// counted them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Completion {
    /// The answer.
    pub text: String,
    /// `(request, reply)` tokens, as the provider reported them.
    pub usage: Option<(u64, u64)>,
}

/// Sends `request` and gathers the answer's text, stopping once it has more than `max_chars`
/// characters when that is given (a model that never stops is cut off there). Tool calls in the
/// answer are ignored.
pub async fn complete(
    provider: &dyn Provider,
    request: &ModelRequest,
    cancel: &CancellationToken,
    max_chars: Option<usize>,
) -> Result<Completion, ProviderError> {
    let mut stream = provider.stream(request, cancel).await?;
    let mut out = Completion { text: String::new(), usage: None };
    let mut chars = 0usize;
    while let Some(event) = stream.next().await {
        match event? {
            StreamEvent::TextDelta { text } => {
                chars += text.chars().count();
                out.text.push_str(&text);
            }
            StreamEvent::ToolCall { .. } => {}
            StreamEvent::Usage { input_tokens, output_tokens } => out.usage = Some((input_tokens, output_tokens)),
            StreamEvent::Finish { .. } => break,
        }
        if max_chars.is_some_and(|max| chars > max) {
            break;
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::message::Message;

    /// A model that streams the same words for ever.
    struct Endless;

    #[async_trait::async_trait]
    impl Provider for Endless {
        fn info(&self) -> ProviderInfo {
            ProviderInfo { kind: "openai".into(), model: "endless".into(), label: "endless".into() }
        }

        async fn stream(&self, _: &ModelRequest, _: &CancellationToken) -> Result<EventStream, ProviderError> {
            Ok(futures_util::stream::repeat_with(|| Ok(StreamEvent::TextDelta { text: "PASS ".into() })).boxed())
        }
    }

    #[tokio::test]
    async fn an_answer_that_never_ends_is_cut_at_its_limit() {
        let request = ModelRequest { system: String::new(), messages: vec![Message::user("grade")], tools: Vec::new() };
        let out = complete(&Endless, &request, &CancellationToken::new(), Some(1000)).await.unwrap();
        assert!((1000..1010).contains(&out.text.chars().count()), "{}", out.text.len());
    }
}
