//! Compaction: shrinking older tool results when the history nears the context window.
//! Holds the token estimate of a history and the two shrinking rules; not when a turn runs.

use crate::message::Message;
use skilldeck_mount::view_result::{COMPACTED_CONTENT, ViewResult};
use skilldeck_mount::view_skill::TOOL_NAME;

/// The most of an older non-`view_skill` tool result kept, in characters.
pub const KEEP_CHARS: usize = 400;

/// What marks a result cut by compaction.
pub const CUT_MARK: &str = "[cut by compaction]";

/// The estimated tokens of a history (about 3 characters a token, as docs/contracts.md counts).
pub fn estimate(system: &str, messages: &[Message]) -> usize {
    (system.len() + messages.iter().map(Message::text_len).sum::<usize>()).div_ceil(3)
}

/// The compacted form of one tool result's content, or `None` when it is already small or compacted.
pub fn compact_result(name: &str, content: &str) -> Option<String> {
    if name == TOOL_NAME {
        let parsed: ViewResult = serde_json::from_str(content).ok()?;
        return match &parsed {
            ViewResult::Ok(ok) if ok.path.is_none() && ok.content != COMPACTED_CONTENT => {
                Some(parsed.compacted().to_json().to_string())
            }
            ViewResult::Ok(ok) if ok.path.is_some() => Some(cut(content)).filter(|c| c.len() < content.len()),
            ViewResult::Ok(_) | ViewResult::Err(_) => None,
        };
    }
    Some(cut(content)).filter(|c| c.len() < content.len())
}

/// The first `KEEP_CHARS` characters and a note of how much was cut.
fn cut(content: &str) -> String {
    if content.contains(CUT_MARK) || content.chars().count() <= KEEP_CHARS {
        return content.to_owned();
    }
    let kept: String = content.chars().take(KEEP_CHARS).collect();
    let note = format!("{CUT_MARK} {} more characters; run the tool again for the rest.", content.len() - kept.len());
    // Keep it JSON, as every tool result is.
    serde_json::json!({"truncated": kept, "note": note}).to_string()
}

/// Compacts tool results older than `keep_from` (an index into `messages`) until the estimate
/// is under `limit` tokens, oldest first. Returns how many results were compacted.
pub fn compact(system: &str, messages: &mut [Message], keep_from: usize, limit: usize) -> usize {
    let mut done = 0;
    let mut total = estimate(system, messages);
    for m in messages.iter_mut().take(keep_from) {
        if total <= limit {
            break;
        }
        if let Message::Tool { name, content, .. } = m
            && let Some(smaller) = compact_result(name, content)
        {
            total = total.saturating_sub(content.len().saturating_sub(smaller.len()) / 3);
            *content = smaller;
            done += 1;
        }
    }
    done
}
