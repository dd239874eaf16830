//! The Anthropic Messages provider: streaming with `tool_use` blocks and `input_json_delta`.
//! Holds the request body and the event translator; retries and SSE live in `http`.

use super::http::{self, Endpoint, HttpPolicy, Translator};
use super::openai::clip;
use super::{EventStream, Provider, ProviderError, ProviderInfo};
use crate::message::{Message, ModelRequest, StopReason, StreamEvent, ToolCall};
use eventsource_stream::Event;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use tokio_util::sync::CancellationToken;
use tracing::Instrument as _;

/// The API version header sent.
pub const API_VERSION: &str = "2023-06-01";

/// The output limit asked for.
pub const MAX_TOKENS: u32 = 8192;

/// A Messages endpoint.
#[derive(Debug, Clone)]
pub struct AnthropicProvider {
    endpoint: Endpoint,
}

impl AnthropicProvider {
    /// A provider for `model` at `base_url` (e.g. `https://api.anthropic.com`).
    pub fn new(
        base_url: impl Into<String>,
        model: impl Into<String>,
        api_key: Option<String>,
        policy: HttpPolicy,
    ) -> Result<Self, ProviderError> {
        Ok(Self { endpoint: Endpoint::new(base_url, model, api_key, policy)? })
    }
}

/// The request body for `request`. Consecutive tool results (and a user message after them)
/// share one `user` message, as the API wants roles to alternate.
pub fn body(model: &str, request: &ModelRequest) -> Value {
    let mut messages: Vec<Value> = Vec::new();
    let mut push = |role: &str, blocks: Vec<Value>| {
        if let Some(last) = messages.last_mut()
            && last["role"] == role
            && let Some(content) = last["content"].as_array_mut()
        {
            content.extend(blocks);
            return;
        }
        messages.push(json!({"role": role, "content": blocks}));
    };
    for m in &request.messages {
        match m {
            Message::User { content } => push("user", vec![json!({"type": "text", "text": content})]),
            Message::Assistant { content, tool_calls } => {
                let mut blocks = Vec::new();
                if !content.is_empty() {
                    blocks.push(json!({"type": "text", "text": content}));
                }
                for c in tool_calls {
                    let input = if c.arguments.is_object() { c.arguments.clone() } else { json!({}) };
                    blocks.push(json!({"type": "tool_use", "id": c.id, "name": c.name, "input": input}));
                }
                if blocks.is_empty() {
                    blocks.push(json!({"type": "text", "text": "(no reply)"}));
                }
                push("assistant", blocks);
            }
            Message::Tool { call_id, content, .. } => {
                push("user", vec![json!({"type": "tool_result", "tool_use_id": call_id, "content": content})]);
            }
        }
    }
    let mut body = json!({
        "model": model,
        "max_tokens": MAX_TOKENS,
        "stream": true,
        "system": request.system,
        "messages": messages,
    });
    if !request.tools.is_empty() {
        body["tools"] = request
            .tools
            .iter()
            .map(|t| json!({"name": t.name, "description": t.description, "input_schema": t.parameters}))
            .collect();
    }
    body
}

#[async_trait::async_trait]
impl Provider for AnthropicProvider {
    fn info(&self) -> ProviderInfo {
        ProviderInfo {
            kind: "anthropic".into(),
            model: self.endpoint.model.clone(),
            label: format!("{} via Anthropic Messages at {}", self.endpoint.model, self.endpoint.base_url),
        }
    }

    async fn stream(&self, request: &ModelRequest, cancel: &CancellationToken) -> Result<EventStream, ProviderError> {
        let url = http::join(&self.endpoint.base_url, "v1/messages");
        let body = body(&self.endpoint.model, request);
        let resp = http::send(&self.endpoint.policy, &url, cancel, || {
            let b = self
                .endpoint
                .client
                .post(&url)
                .header("accept", "text/event-stream")
                .header("anthropic-version", API_VERSION)
                .json(&body);
            match &self.endpoint.api_key {
                Some(k) => b.header("x-api-key", k),
                None => b,
            }
        })
        .instrument(tracing::info_span!("provider", kind = "anthropic", model = %self.endpoint.model))
        .await?;
        Ok(http::translate(
            http::sse(resp, self.endpoint.policy.idle_timeout, cancel.clone()),
            EventTranslator::default(),
        ))
    }
}

/// A `tool_use` block whose input is still arriving.
#[derive(Debug, Default)]
struct PartialUse {
    id: String,
    name: String,
    input: String,
    start_input: Option<Value>,
}

/// Translates Messages stream events: text deltas as they come, a tool call when its block stops.
#[derive(Debug, Default)]
pub struct EventTranslator {
    blocks: BTreeMap<u64, PartialUse>,
    stop: Option<StopReason>,
    /// The request's tokens, from `message_start`.
    input_tokens: Option<u64>,
}

fn stop_reason(s: &str) -> StopReason {
    match s {
        "end_turn" | "stop_sequence" => StopReason::EndTurn,
        "tool_use" => StopReason::ToolUse,
        "max_tokens" => StopReason::MaxTokens,
        other => StopReason::Other(other.to_owned()),
    }
}

impl EventTranslator {
    fn finish_block(&mut self, index: u64, out: &mut Vec<StreamEvent>) {
        let Some(b) = self.blocks.remove(&index) else { return };
        let arguments = match b.input.trim() {
            "" => b.start_input.unwrap_or_else(|| json!({})),
            raw => serde_json::from_str(raw).unwrap_or_else(|_| Value::String(raw.to_owned())),
        };
        out.push(StreamEvent::ToolCall { call: ToolCall { id: b.id, name: b.name, arguments } });
    }
}

impl Translator for EventTranslator {
    fn on_event(&mut self, event: &Event, out: &mut Vec<StreamEvent>) -> Result<bool, ProviderError> {
        let data = event.data.trim();
        if data.is_empty() {
            return Ok(false);
        }
        let v: Value = serde_json::from_str(data)
            .map_err(|e| ProviderError::Malformed(format!("an event is not JSON ({e}): {}", clip(data))))?;
        let kind = v.get("type").and_then(Value::as_str).unwrap_or(event.event.as_str());
        let index = v.get("index").and_then(Value::as_u64).unwrap_or(0);
        match kind {
            "content_block_start" => {
                let block = &v["content_block"];
                match block.get("type").and_then(Value::as_str) {
                    Some("tool_use") => {
                        let start = block.get("input").filter(|i| i.as_object().is_some_and(|o| !o.is_empty()));
                        self.blocks.insert(
                            index,
                            PartialUse {
                                id: block["id"].as_str().unwrap_or_default().to_owned(),
                                name: block["name"].as_str().unwrap_or_default().to_owned(),
                                input: String::new(),
                                start_input: start.cloned(),
                            },
                        );
                    }
                    Some("text") => {
                        if let Some(t) = block.get("text").and_then(Value::as_str)
                            && !t.is_empty()
                        {
                            out.push(StreamEvent::TextDelta { text: t.to_owned() });
                        }
                    }
                    _ => {}
                }
            }
            "content_block_delta" => {
                let delta = &v["delta"];
                match delta.get("type").and_then(Value::as_str) {
                    Some("text_delta") => {
                        if let Some(t) = delta.get("text").and_then(Value::as_str) {
                            out.push(StreamEvent::TextDelta { text: t.to_owned() });
                        }
                    }
                    Some("input_json_delta") => {
                        let part = delta.get("partial_json").and_then(Value::as_str).unwrap_or_default();
                        match self.blocks.get_mut(&index) {
                            Some(b) => b.input.push_str(part),
                            None => {
                                return Err(ProviderError::Malformed(format!(
                                    "input_json_delta for block {index}, which is not a tool_use block"
                                )));
                            }
                        }
                    }
                    _ => {}
                }
            }
            "content_block_stop" => self.finish_block(index, out),
            "message_start" => {
                // The request's tokens; the reply's come with `message_delta`.
                let usage = &v["message"]["usage"];
                let input = ["input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"]
                    .iter()
                    .filter_map(|k| usage.get(k).and_then(Value::as_u64))
                    .sum();
                self.input_tokens = Some(input);
            }
            "message_delta" => {
                if let Some(r) = v["delta"].get("stop_reason").and_then(Value::as_str) {
                    self.stop = Some(stop_reason(r));
                }
                if let Some(output) = v["usage"].get("output_tokens").and_then(Value::as_u64) {
                    out.push(StreamEvent::Usage {
                        input_tokens: self.input_tokens.unwrap_or(0),
                        output_tokens: output,
                    });
                }
            }
            "message_stop" => {
                if self.stop.is_none() {
                    self.stop = Some(if self.blocks.is_empty() { StopReason::EndTurn } else { StopReason::ToolUse });
                }
                self.on_end(out)?;
                return Ok(true);
            }
            "error" => {
                return Err(ProviderError::Malformed(format!(
                    "the server reported an error mid-stream: {}",
                    v["error"]
                )));
            }
            _ => {}
        }
        Ok(false)
    }

    fn on_end(&mut self, out: &mut Vec<StreamEvent>) -> Result<(), ProviderError> {
        let open: Vec<u64> = self.blocks.keys().copied().collect();
        match self.stop.take() {
            Some(stop) => {
                for i in open {
                    self.finish_block(i, out);
                }
                out.push(StreamEvent::Finish { stop });
                Ok(())
            }
            None => Err(ProviderError::Truncated),
        }
    }
}
