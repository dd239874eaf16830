//! The OpenAI-compatible Chat Completions provider (OpenAI, Ollama, llama.cpp, LM Studio, vLLM).
//! Holds the request body and the streamed-chunk translator; retries and SSE live in `http`.

use super::http::{self, Endpoint, HttpPolicy, Translator};
use super::{EventStream, Provider, ProviderError, ProviderInfo};
use crate::message::{Message, ModelRequest, StopReason, StreamEvent, ToolCall};
use eventsource_stream::Event;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use tokio_util::sync::CancellationToken;
use tracing::Instrument as _;

/// A Chat Completions endpoint.
#[derive(Debug, Clone)]
pub struct OpenAiProvider {
    endpoint: Endpoint,
}

impl OpenAiProvider {
    /// A provider for `model` at `base_url` (e.g. `http://localhost:11434/v1`).
    pub fn new(
        base_url: impl Into<String>,
        model: impl Into<String>,
        api_key: Option<String>,
        policy: HttpPolicy,
    ) -> Result<Self, ProviderError> {
        Ok(Self { endpoint: Endpoint::new(base_url, model, api_key, policy)? })
    }
}

/// The request body for `request`.
pub fn body(model: &str, request: &ModelRequest) -> Value {
    let mut messages = vec![json!({"role": "system", "content": request.system})];
    for m in &request.messages {
        messages.push(match m {
            Message::User { content } => json!({"role": "user", "content": content}),
            Message::Assistant { content, tool_calls } if tool_calls.is_empty() => {
                json!({"role": "assistant", "content": content})
            }
            Message::Assistant { content, tool_calls } => json!({
                "role": "assistant",
                "content": if content.is_empty() { Value::Null } else { Value::from(content.as_str()) },
                "tool_calls": tool_calls.iter().map(|c| json!({
                    "id": c.id,
                    "type": "function",
                    "function": {"name": c.name, "arguments": c.arguments_text()},
                })).collect::<Vec<_>>(),
            }),
            Message::Tool { call_id, content, .. } => {
                json!({"role": "tool", "tool_call_id": call_id, "content": content})
            }
        });
    }
    // `include_usage` asks for a last chunk with the call's token counts (OpenAI, llama.cpp,
    // Ollama, vLLM send it; a server that does not is read as before).
    let mut body = json!({
        "model": model, "stream": true, "stream_options": {"include_usage": true}, "messages": messages,
    });
    if !request.tools.is_empty() {
        body["tools"] = request
            .tools
            .iter()
            .map(|t| {
                json!({"type": "function", "function": {
                    "name": t.name, "description": t.description, "parameters": t.parameters,
                }})
            })
            .collect();
    }
    body
}

#[async_trait::async_trait]
impl Provider for OpenAiProvider {
    fn info(&self) -> ProviderInfo {
        ProviderInfo {
            kind: "openai".into(),
            model: self.endpoint.model.clone(),
            label: format!("{} via Chat Completions at {}", self.endpoint.model, self.endpoint.base_url),
        }
    }

    async fn stream(&self, request: &ModelRequest, cancel: &CancellationToken) -> Result<EventStream, ProviderError> {
        let url = http::join(&self.endpoint.base_url, "chat/completions");
        let body = body(&self.endpoint.model, request);
        let resp = http::send(&self.endpoint.policy, &url, cancel, || {
            let b = self.endpoint.client.post(&url).header("accept", "text/event-stream").json(&body);
            match &self.endpoint.api_key {
                Some(k) => b.bearer_auth(k),
                None => b,
            }
        })
        .instrument(tracing::info_span!("provider", kind = "openai", model = %self.endpoint.model))
        .await?;
        Ok(http::translate(
            http::sse(resp, self.endpoint.policy.idle_timeout, cancel.clone()),
            ChunkTranslator::default(),
        ))
    }
}

/// A tool call whose fragments are still arriving.
#[derive(Debug, Default)]
struct PartialCall {
    id: String,
    name: String,
    arguments: String,
}

/// Gathers streamed chunks: text as it comes, tool-call fragments by index until the finish.
#[derive(Debug, Default)]
pub struct ChunkTranslator {
    calls: BTreeMap<u64, PartialCall>,
    finish: Option<StopReason>,
}

impl ChunkTranslator {
    fn flush_calls(&mut self, out: &mut Vec<StreamEvent>) {
        for (index, c) in std::mem::take(&mut self.calls) {
            let arguments = match c.arguments.trim() {
                "" => json!({}),
                raw => serde_json::from_str(raw).unwrap_or_else(|_| Value::String(raw.to_owned())),
            };
            let id = if c.id.is_empty() { format!("call_{index}") } else { c.id };
            out.push(StreamEvent::ToolCall { call: ToolCall { id, name: c.name, arguments } });
        }
    }
}

fn stop_reason(s: &str) -> StopReason {
    match s {
        "stop" => StopReason::EndTurn,
        "tool_calls" | "function_call" => StopReason::ToolUse,
        "length" => StopReason::MaxTokens,
        other => StopReason::Other(other.to_owned()),
    }
}

impl Translator for ChunkTranslator {
    fn on_event(&mut self, event: &Event, out: &mut Vec<StreamEvent>) -> Result<bool, ProviderError> {
        let data = event.data.trim();
        if data == "[DONE]" {
            if self.finish.is_none() {
                self.finish = Some(if self.calls.is_empty() { StopReason::EndTurn } else { StopReason::ToolUse });
            }
            self.on_end(out)?;
            return Ok(true);
        }
        if data.is_empty() {
            return Ok(false);
        }
        let chunk: Value = serde_json::from_str(data)
            .map_err(|e| ProviderError::Malformed(format!("a chunk is not JSON ({e}): {}", clip(data))))?;
        if let Some(err) = chunk.get("error") {
            return Err(ProviderError::Malformed(format!("the server reported an error mid-stream: {err}")));
        }
        if let Some(usage) = chunk.get("usage").filter(|u| u.is_object()) {
            let count = |k: &str| usage.get(k).and_then(Value::as_u64).unwrap_or(0);
            out.push(StreamEvent::Usage {
                input_tokens: count("prompt_tokens"),
                output_tokens: count("completion_tokens"),
            });
        }
        let Some(choices) = chunk.get("choices").and_then(Value::as_array) else {
            // Usage-only chunks and keep-alives carry no choices.
            return Ok(false);
        };
        for choice in choices {
            let delta = choice.get("delta").unwrap_or(&Value::Null);
            if let Some(text) = delta.get("content").and_then(Value::as_str)
                && !text.is_empty()
            {
                out.push(StreamEvent::TextDelta { text: text.to_owned() });
            }
            for tc in delta.get("tool_calls").and_then(Value::as_array).into_iter().flatten() {
                let index = tc.get("index").and_then(Value::as_u64).unwrap_or(self.calls.len() as u64);
                let call = self.calls.entry(index).or_default();
                if let Some(id) = tc.get("id").and_then(Value::as_str) {
                    call.id = id.to_owned();
                }
                let f = tc.get("function").unwrap_or(&Value::Null);
                if let Some(name) = f.get("name").and_then(Value::as_str) {
                    call.name.push_str(name);
                }
                if let Some(args) = f.get("arguments").and_then(Value::as_str) {
                    call.arguments.push_str(args);
                }
            }
            if let Some(reason) = choice.get("finish_reason").and_then(Value::as_str) {
                self.finish = Some(stop_reason(reason));
                self.flush_calls(out);
            }
        }
        Ok(false)
    }

    fn on_end(&mut self, out: &mut Vec<StreamEvent>) -> Result<(), ProviderError> {
        match self.finish.take() {
            Some(stop) => {
                self.flush_calls(out);
                out.push(StreamEvent::Finish { stop });
                Ok(())
            }
            None => Err(ProviderError::Truncated),
        }
    }
}

/// The start of a long text, for error messages.
pub(crate) fn clip(s: &str) -> String {
    let mut out: String = s.chars().take(200).collect();
    if out.len() < s.len() {
        out.push('…');
    }
    out
}
