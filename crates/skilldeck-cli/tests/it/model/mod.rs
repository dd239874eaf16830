//! A scripted model for `skilldeck agent` tests: a loopback OpenAI-compatible Chat Completions
//! server answering each request with the next SSE body, and the bodies the tests script.
#![allow(dead_code, reason = "each test file uses some of these")]

use serde_json::{Value, json};
use std::io::Write as _;

/// Serves `replies` in order on a loopback port; returns the base URL and a receiver of each
/// request's head and JSON body. A client that hangs up early ends the server quietly.
pub fn serve(replies: Vec<String>) -> (String, std::sync::mpsc::Receiver<(String, Value)>) {
    use std::io::{BufRead as _, BufReader, Read as _};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for reply in replies {
            let Ok((mut sock, _)) = listener.accept() else { return };
            let mut reader = BufReader::new(sock.try_clone().unwrap());
            let mut head = String::new();
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).is_err() || line == "\r\n" || line.is_empty() {
                    break;
                }
                head.push_str(&line);
            }
            let len: usize = head
                .lines()
                .find_map(|l| l.to_ascii_lowercase().strip_prefix("content-length:").map(|v| v.trim().parse().unwrap()))
                .unwrap_or(0);
            let mut body = vec![0; len];
            if reader.read_exact(&mut body).is_err() {
                return;
            }
            let _ = tx.send((head, serde_json::from_slice(&body).unwrap_or(Value::Null)));
            let resp =
                format!("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n{reply}");
            let _ = sock.write_all(resp.as_bytes());
        }
    });
    (url, rx)
}

fn chunk(delta: Value, finish: Value) -> String {
    format!("data: {}\n\n", json!({"choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}))
}

/// One reply calling `name` with `arguments`, streamed as a real server does: the call's name
/// first, its arguments in a later chunk.
pub fn sse_call(name: &str, arguments: Value) -> String {
    [
        chunk(json!({"tool_calls": [{"index": 0, "id": "call_1", "type": "function", "function": {"name": name, "arguments": ""}}]}), Value::Null),
        chunk(json!({"tool_calls": [{"index": 0, "function": {"arguments": arguments.to_string()}}]}), Value::Null),
        chunk(json!({}), "tool_calls".into()),
        "data: [DONE]\n\n".into(),
    ]
    .concat()
}

/// One reply making every call in `calls`.
pub fn sse_calls(calls: &[(&str, Value)]) -> String {
    let mut out = String::new();
    for (i, (name, arguments)) in calls.iter().enumerate() {
        out.push_str(&chunk(
            json!({"tool_calls": [{"index": i, "id": format!("call_{i}"), "type": "function",
                   "function": {"name": name, "arguments": arguments.to_string()}}]}),
            Value::Null,
        ));
    }
    out.push_str(&chunk(json!({}), "tool_calls".into()));
    out.push_str("data: [DONE]\n\n");
    out
}

/// One reply asking to run `command` in the shell.
pub fn sse_shell_call(command: &str) -> String {
    sse_call("shell", json!({"command": command}))
}

/// One reply answering `text`.
pub fn sse_text(text: &str) -> String {
    format!(
        "data: {}\n\ndata: {}\n\ndata: [DONE]\n\n",
        json!({"choices": [{"index": 0, "delta": {"content": text}, "finish_reason": null}]}),
        json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
    )
}
