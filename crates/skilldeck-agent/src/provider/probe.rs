//! One tiny request to a provider, to tell whether its settings work: the Settings view's
//! Test button. Goes through the same provider code a session uses.

use crate::message::{Message, ModelRequest};
use crate::provider::{Provider, ProviderError};
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// The longest a test waits for the whole answer.
pub const PROBE_TIMEOUT: Duration = Duration::from_secs(60);

/// The most characters of the answer kept.
const ANSWER_CHARS: usize = 200;

/// Sends one short request with no tools and returns the start of the model's answer.
pub async fn probe(provider: &dyn Provider) -> Result<String, ProviderError> {
    let request = ModelRequest {
        system: "You are checking a connection. Answer in one short sentence.".to_owned(),
        messages: vec![Message::user("Say hello.")],
        tools: Vec::new(),
    };
    let cancel = CancellationToken::new();
    let work = async {
        let answer = super::complete(provider, &request, &cancel, Some(ANSWER_CHARS)).await?.text;
        Ok::<String, ProviderError>(answer.trim().chars().take(ANSWER_CHARS).collect())
    };
    match tokio::time::timeout(PROBE_TIMEOUT, work).await {
        Ok(result) => result,
        Err(_) => {
            cancel.cancel();
            Err(ProviderError::IdleTimeout { secs: PROBE_TIMEOUT.as_secs_f64() })
        }
    }
}
