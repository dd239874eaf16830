//! A loopback HTTP/1.1 server for provider tests: it records each request and answers with a
//! scripted reply (an SSE stream in chunked encoding, an error status, or a stall).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs, dead_code)]

use serde_json::Value;
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::{TcpListener, TcpStream};

/// One request the server received.
#[derive(Debug, Clone)]
pub struct Received {
    pub method: String,
    pub path: String,
    pub headers: Vec<(String, String)>,
    pub body: Value,
}

impl Received {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }
}

/// What the server answers.
#[derive(Debug, Clone)]
pub enum Reply {
    /// `200 text/event-stream`: these raw SSE event blocks, then close (or stall when `stall`).
    Sse { events: Vec<String>, stall: bool },
    /// An error status with headers and a body.
    Status { code: u16, headers: Vec<(String, String)>, body: String },
}

impl Reply {
    pub fn sse(events: Vec<String>) -> Self {
        Self::Sse { events, stall: false }
    }
}

pub struct Loopback {
    pub url: String,
    requests: Arc<Mutex<Vec<Received>>>,
    replies: Arc<Mutex<VecDeque<Reply>>>,
}

impl Loopback {
    pub async fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let requests = Arc::new(Mutex::new(Vec::new()));
        let replies: Arc<Mutex<VecDeque<Reply>>> = Arc::new(Mutex::new(VecDeque::new()));
        let (req, rep) = (Arc::clone(&requests), Arc::clone(&replies));
        tokio::spawn(async move {
            while let Ok((sock, _)) = listener.accept().await {
                let (req, rep) = (Arc::clone(&req), Arc::clone(&rep));
                tokio::spawn(async move { serve(sock, req, rep).await });
            }
        });
        Self { url, requests, replies }
    }

    pub fn push(&self, reply: Reply) {
        self.replies.lock().unwrap().push_back(reply);
    }

    pub fn requests(&self) -> Vec<Received> {
        self.requests.lock().unwrap().clone()
    }
}

async fn serve(mut sock: TcpStream, requests: Arc<Mutex<Vec<Received>>>, replies: Arc<Mutex<VecDeque<Reply>>>) {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 8192];
    let head_end = loop {
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
        let n = sock.read(&mut chunk).await.unwrap_or(0);
        if n == 0 {
            return;
        }
        buf.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
    let mut lines = head.split("\r\n");
    let mut first = lines.next().unwrap_or_default().split(' ');
    let (method, path) = (first.next().unwrap_or_default().to_owned(), first.next().unwrap_or_default().to_owned());
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    let len: usize = headers.iter().find(|(k, _)| k == "content-length").map_or(0, |(_, v)| v.parse().unwrap());
    while buf.len() < head_end + len {
        let n = sock.read(&mut chunk).await.unwrap_or(0);
        if n == 0 {
            return;
        }
        buf.extend_from_slice(&chunk[..n]);
    }
    let body = serde_json::from_slice(&buf[head_end..head_end + len]).unwrap_or(Value::Null);
    requests.lock().unwrap().push(Received { method, path, headers, body });
    let reply = replies.lock().unwrap().pop_front().unwrap_or(Reply::Status {
        code: 599,
        headers: vec![],
        body: "no reply scripted".into(),
    });
    match reply {
        Reply::Status { code, headers, body } => {
            let mut head = format!(
                "HTTP/1.1 {code} Scripted\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n",
                body.len()
            );
            for (k, v) in headers {
                head.push_str(&format!("{k}: {v}\r\n"));
            }
            head.push_str("\r\n");
            let _ = sock.write_all(head.as_bytes()).await;
            let _ = sock.write_all(body.as_bytes()).await;
        }
        Reply::Sse { events, stall } => {
            let head = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n";
            if sock.write_all(head.as_bytes()).await.is_err() {
                return;
            }
            for e in events {
                let framed = format!("{:x}\r\n{e}\r\n", e.len());
                if sock.write_all(framed.as_bytes()).await.is_err() {
                    return;
                }
                let _ = sock.flush().await;
                tokio::time::sleep(Duration::from_millis(2)).await;
            }
            if stall {
                tokio::time::sleep(Duration::from_secs(120)).await;
                return;
            }
            let _ = sock.write_all(b"0\r\n\r\n").await;
        }
    }
    let _ = sock.shutdown().await;
}

/// `data: <json>\n\n`.
pub fn data(v: &Value) -> String {
    format!("data: {v}\n\n")
}

/// OpenAI chunks: an answer in text.
pub fn openai_text(text: &str) -> Vec<String> {
    let chunk = |delta: Value, finish: Value| {
        data(&serde_json::json!({"id": "c", "object": "chat.completion.chunk", "model": "m",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}))
    };
    let mut out = vec![chunk(serde_json::json!({"role": "assistant", "content": ""}), Value::Null)];
    for w in text.split_inclusive(' ') {
        out.push(chunk(serde_json::json!({"content": w}), Value::Null));
    }
    out.push(chunk(serde_json::json!({}), "stop".into()));
    out.push("data: [DONE]\n\n".into());
    out
}

/// OpenAI chunks: tool calls, each `(id, name, arguments JSON)`, the arguments in fragments.
pub fn openai_tools(calls: &[(&str, &str, Value)]) -> Vec<String> {
    let chunk = |delta: Value, finish: Value| {
        data(&serde_json::json!({"id": "c", "object": "chat.completion.chunk", "model": "m",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}))
    };
    let mut out = vec![chunk(serde_json::json!({"role": "assistant", "content": null}), Value::Null)];
    for (i, (id, name, args)) in calls.iter().enumerate() {
        out.push(chunk(
            serde_json::json!({"tool_calls": [{"index": i, "id": id, "type": "function", "function": {"name": name, "arguments": ""}}]}),
            Value::Null,
        ));
        let text = args.to_string();
        let bytes: Vec<char> = text.chars().collect();
        for part in bytes.chunks(5) {
            let part: String = part.iter().collect();
            out.push(chunk(
                serde_json::json!({"tool_calls": [{"index": i, "function": {"arguments": part}}]}),
                Value::Null,
            ));
        }
    }
    out.push(chunk(serde_json::json!({}), "tool_calls".into()));
    out.push("data: [DONE]\n\n".into());
    out
}

/// Anthropic events: a named SSE event.
pub fn event(name: &str, v: &Value) -> String {
    format!("event: {name}\ndata: {v}\n\n")
}

/// Anthropic events: an answer in text.
pub fn anthropic_text(text: &str) -> Vec<String> {
    use serde_json::json;
    let mut out = vec![
        event(
            "message_start",
            &json!({"type": "message_start", "message": {"id": "msg_1", "type": "message", "role": "assistant", "content": [], "model": "m", "stop_reason": null, "usage": {"input_tokens": 10, "output_tokens": 1}}}),
        ),
        event(
            "content_block_start",
            &json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
        ),
        event("ping", &json!({"type": "ping"})),
    ];
    for w in text.split_inclusive(' ') {
        out.push(event(
            "content_block_delta",
            &json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": w}}),
        ));
    }
    out.push(event("content_block_stop", &json!({"type": "content_block_stop", "index": 0})));
    out.push(event("message_delta", &json!({"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": null}, "usage": {"output_tokens": 5}})));
    out.push(event("message_stop", &json!({"type": "message_stop"})));
    out
}

/// Anthropic events: some text, then `tool_use` blocks with their input in `input_json_delta`s.
pub fn anthropic_tools(calls: &[(&str, &str, Value)]) -> Vec<String> {
    use serde_json::json;
    let mut out = vec![
        event(
            "message_start",
            &json!({"type": "message_start", "message": {"id": "msg_1", "type": "message", "role": "assistant", "content": [], "model": "m", "stop_reason": null, "usage": {"input_tokens": 10, "output_tokens": 1}}}),
        ),
        event(
            "content_block_start",
            &json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
        ),
        event(
            "content_block_delta",
            &json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Loading."}}),
        ),
        event("content_block_stop", &json!({"type": "content_block_stop", "index": 0})),
    ];
    for (i, (id, name, args)) in calls.iter().enumerate() {
        let index = i + 1;
        out.push(event("content_block_start", &json!({"type": "content_block_start", "index": index, "content_block": {"type": "tool_use", "id": id, "name": name, "input": {}}})));
        let text = args.to_string();
        let chars: Vec<char> = text.chars().collect();
        for part in chars.chunks(4) {
            let part: String = part.iter().collect();
            out.push(event("content_block_delta", &json!({"type": "content_block_delta", "index": index, "delta": {"type": "input_json_delta", "partial_json": part}})));
        }
        out.push(event("content_block_stop", &json!({"type": "content_block_stop", "index": index})));
    }
    out.push(event("message_delta", &json!({"type": "message_delta", "delta": {"stop_reason": "tool_use", "stop_sequence": null}, "usage": {"output_tokens": 5}})));
    out.push(event("message_stop", &json!({"type": "message_stop"})));
    out
}
