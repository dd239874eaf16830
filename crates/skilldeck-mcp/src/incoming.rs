//! What to do with one incoming JSON-RPC text (a stdio line, an HTTP body) before rmcp sees it:
//! rmcp 3.11 drops a line that is not JSON without a word and answers such an HTTP body with
//! 415, where JSON-RPC 2.0 asks for a Parse error (-32700) with id null. Holds that judgement
//! only; the transports send the reply.

use rmcp::model::{ClientJsonRpcMessage, ErrorCode};
use serde_json::{Value, json};

/// The UTF-8 byte order mark, which some clients put before a message.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// One incoming text, judged.
#[derive(Debug)]
pub(crate) enum Incoming {
    /// A JSON-RPC message, for rmcp to handle.
    Message(Box<ClientJsonRpcMessage>),
    /// Not one: the JSON-RPC error to answer with.
    Reply(Value),
    /// Well-formed JSON without an `id` that is no message rmcp knows (a notification of
    /// another protocol): JSON-RPC never answers a notification.
    Ignore,
}

/// A JSON-RPC error response.
fn error(id: Value, code: ErrorCode, message: String) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code.0, "message": message}})
}

/// Judges `text`. Text that is not JSON (`{{{`, or nested past serde_json's depth limit of
/// 128) gets a Parse error (-32700) with id null; JSON that is no JSON-RPC message gets
/// Invalid Request (-32600), with its id when it has a usable one.
pub(crate) fn judge(text: &[u8]) -> Incoming {
    let text = text.strip_prefix(BOM).unwrap_or(text);
    let e = match serde_json::from_slice::<ClientJsonRpcMessage>(text) {
        Ok(message) => return Incoming::Message(Box::new(message)),
        Err(e) => e,
    };
    if matches!(e.classify(), serde_json::error::Category::Syntax | serde_json::error::Category::Eof) {
        return Incoming::Reply(error(Value::Null, ErrorCode::PARSE_ERROR, format!("Parse error: {e}")));
    }
    let value: Value = serde_json::from_slice(text).unwrap_or(Value::Null);
    let id = value.get("id").cloned();
    if id.is_none() && value.get("method").is_some() {
        return Incoming::Ignore;
    }
    let id = id.filter(|i| i.is_string() || i.is_i64() || i.is_u64()).unwrap_or(Value::Null);
    Incoming::Reply(error(id, ErrorCode::INVALID_REQUEST, format!("Invalid Request: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(i: &Incoming) -> Option<(i64, Value)> {
        match i {
            Incoming::Reply(v) => Some((v["error"]["code"].as_i64()?, v["id"].clone())),
            _ => None,
        }
    }

    #[test]
    fn text_that_is_not_json_gets_a_parse_error_with_id_null() {
        assert_eq!(code(&judge(b"{{{")), Some((-32700, Value::Null)));
        let deep = "[".repeat(200_000);
        assert_eq!(code(&judge(deep.as_bytes())), Some((-32700, Value::Null)));
        assert_eq!(code(&judge(b"{\"jsonrpc\":\"2.0\",\"id\":7}")), Some((-32600, json!(7))));
        assert!(matches!(judge(b"{\"jsonrpc\":\"2.0\",\"method\":\"$/x\",\"params\":1}"), Incoming::Ignore));
        assert!(matches!(
            judge(b"\xEF\xBB\xBF{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}"),
            Incoming::Message(_)
        ));
    }
}
