//! The `offline` provider: a deterministic router with no language model, for use without a network.
//! Holds the matching of a request to a listed skill and the scripted calls; labelled offline everywhere.

use super::{EventStream, Provider, ProviderError, ProviderInfo};
use crate::message::{Message, ModelRequest, StopReason, StreamEvent, ToolCall};
use serde_json::json;
use skilldeck_mount::view_result::ViewResult;
use skilldeck_mount::view_skill::TOOL_NAME;
use skilldeck_select::find;
use skilldeck_select::ranker::{DocText, Index, Query};
use tokio_util::sync::CancellationToken;

/// The label shown wherever the offline provider appears.
pub const LABEL: &str = "offline (no language model)";

/// What each of its answers starts with, so no one takes it for a model.
pub const ANSWER_PREFIX: &str = "[offline router: no language model]";

/// The most of a loaded file quoted in an answer, in characters.
const QUOTE_CHARS: usize = 4000;

/// The deterministic router. It reads only what a model would see: the listing in the system
/// prompt, the offered tools and the conversation.
#[derive(Debug, Clone, Copy, Default)]
pub struct OfflineProvider;

/// One skill as the listing shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListedLine {
    /// Its name.
    pub name: String,
    /// Its version tag, if shown.
    pub version: Option<String>,
    /// Its description as shown.
    pub description: String,
}

/// Parses the `- **name** (v:N): description` lines of a listing inside `system`.
pub fn parse_listing(system: &str) -> Vec<ListedLine> {
    let Some(start) = system.find("Available Skills:") else { return Vec::new() };
    system[start..]
        .lines()
        .skip(1)
        .map_while(|line| {
            let rest = line.strip_prefix("- **")?;
            let (name, rest) = rest.split_once("**")?;
            let (version, rest) = match rest.strip_prefix(" (v:") {
                Some(r) => {
                    let (v, r) = r.split_once(')')?;
                    (Some(v.to_owned()), r)
                }
                None => (None, rest),
            };
            let description = rest.strip_prefix(": ").unwrap_or(rest).to_owned();
            Some(ListedLine { name: name.to_owned(), version, description })
        })
        .collect()
}

/// The best-matching listed skill by the core's ranker (the one that ranks the listing and
/// `find_skills`), the first listed on a tie; none when no word of the request matches.
pub fn best_match<'a>(request: &str, listed: &'a [ListedLine]) -> Option<&'a ListedLine> {
    let index = Index::build(listed.iter().map(|l| DocText {
        name: &l.name,
        description: &l.description,
        description_zh: "",
        headings: &[],
    }));
    let scores = index.scores(&Query::new(request));
    let mut best: Option<(usize, f32)> = None;
    for (i, &sc) in scores.iter().enumerate() {
        if sc > 0.0 && best.is_none_or(|(_, b)| sc > b) {
            best = Some((i, sc));
        }
    }
    best.and_then(|(i, _)| listed.get(i))
}

/// Tokens of `text` that look like file paths: `name.ext` or with a `/`.
fn path_like(text: &str) -> Vec<String> {
    text.split(|c: char| {
        c.is_whitespace() || matches!(c, '`' | '"' | '\'' | '(' | ')' | '[' | ']' | ',' | ';' | '<' | '>')
    })
    .map(|t| t.trim_end_matches(['.', ':', '!', '?']).trim_start_matches("./"))
    .filter(|t| {
        let ext_ok = t.rsplit_once('.').is_some_and(|(stem, ext)| {
            !stem.is_empty() && (1..=5).contains(&ext.len()) && ext.chars().all(|c| c.is_ascii_alphanumeric())
        });
        ext_ok && !t.contains("://") && !t.starts_with('/')
    })
    .map(str::to_owned)
    .collect()
}

/// The folders of a skill a request may name a file in without the instructions mentioning it.
const SKILL_DIRS: &[&str] = &["references/", "scripts/", "assets/"];

/// The file of the skill the request names, if any: a path into the skill's own folders as
/// written, or a file the instructions mention, named by its path or its bare file name.
pub fn requested_reference(request: &str, instructions: &str) -> Option<String> {
    let mentioned = path_like(instructions);
    path_like(request).into_iter().filter(|t| t != "SKILL.md").find_map(|t| {
        let t = t.strip_prefix(".skills/").and_then(|r| r.split_once('/')).map_or(t.as_str(), |(_, p)| p).to_owned();
        if SKILL_DIRS.iter().any(|d| t.starts_with(d)) || mentioned.contains(&t) {
            return Some(t);
        }
        mentioned.iter().find(|m| m.rsplit('/').next() == Some(t.as_str())).cloned()
    })
}

/// The skills `find_skills` returned since the last user message, best first, and whether it
/// was called at all.
fn found_since(messages: &[Message]) -> (Vec<String>, bool) {
    let start = messages.iter().rposition(|m| matches!(m, Message::User { .. })).unwrap_or(0);
    let mut called = false;
    let mut names = Vec::new();
    for m in &messages[start..] {
        if let Message::Tool { name, content, .. } = m
            && name == find::TOOL_NAME
        {
            called = true;
            let v: serde_json::Value = serde_json::from_str(content).unwrap_or_default();
            names.extend(
                v["matches"].as_array().into_iter().flatten().filter_map(|f| f["name"].as_str().map(str::to_owned)),
            );
        }
    }
    (names, called)
}

/// The conversation since the last user message: the request and the `view_skill` results.
fn current(messages: &[Message]) -> (&str, Vec<ViewResult>, usize) {
    let start = messages.iter().rposition(|m| matches!(m, Message::User { .. })).unwrap_or(0);
    let request = match messages.get(start) {
        Some(Message::User { content }) => content.as_str(),
        _ => "",
    };
    let calls = messages
        .iter()
        .filter(|m| matches!(m, Message::Assistant { tool_calls, .. } if !tool_calls.is_empty()))
        .count();
    let results = messages[start..]
        .iter()
        .filter_map(|m| match m {
            Message::Tool { name, content, .. } if name == TOOL_NAME => serde_json::from_str(content).ok(),
            _ => None,
        })
        .collect();
    (request, results, calls)
}

/// The router's next move for `request`.
fn next_move(request: &ModelRequest) -> Result<ToolCall, String> {
    let (text, results, calls) = current(&request.messages);
    let id = format!("offline_{}", calls + 1);
    let can_view = request.tools.iter().any(|t| t.name == TOOL_NAME);
    let listed = parse_listing(&request.system);
    let Some(first) = results.first() else {
        if !can_view || listed.is_empty() {
            return Err(format!("{ANSWER_PREFIX} No skills are listed in this session, so there is nothing to load."));
        }
        // When the listing does not show every skill, search them all first, as a model would,
        // then load the best of what search found.
        let can_search = request.tools.iter().any(|t| t.name == find::TOOL_NAME);
        let (found, searched) = found_since(&request.messages);
        if can_search && !searched {
            return Ok(ToolCall { id, name: find::TOOL_NAME.into(), arguments: json!({"query": text}) });
        }
        if let Some(name) = found.first() {
            return Ok(ToolCall { id, name: TOOL_NAME.into(), arguments: json!({"name": name}) });
        }
        return match best_match(text, &listed) {
            Some(s) => Ok(ToolCall { id, name: TOOL_NAME.into(), arguments: json!({"name": s.name}) }),
            None => {
                let names: Vec<&str> = listed.iter().map(|s| s.name.as_str()).collect();
                Err(format!(
                    "{ANSWER_PREFIX} No listed skill matches your request. Name one of these to load it: {}.",
                    names.join(", ")
                ))
            }
        };
    };
    if let (ViewResult::Ok(ok), 1) = (first, results.len())
        && let Some(path) = requested_reference(text, &ok.content)
    {
        return Ok(ToolCall { id, name: TOOL_NAME.into(), arguments: json!({"name": ok.skill_name, "path": path}) });
    }
    Err(answer(&results))
}

fn quote(text: &str) -> String {
    let mut q: String = text.chars().take(QUOTE_CHARS).collect();
    if q.len() < text.len() {
        q.push_str("\n[… cut; the whole file is in the workspace]");
    }
    q
}

/// The final answer: what was loaded, quoted.
fn answer(results: &[ViewResult]) -> String {
    let mut out = String::from(ANSWER_PREFIX);
    for r in results {
        match r {
            ViewResult::Ok(ok) => {
                let v = ok.version.as_deref().map(|v| format!(" (v:{v})")).unwrap_or_default();
                match &ok.path {
                    None => out.push_str(&format!(
                        "\nLoaded the skill **{}**{v}; its files are in the workspace at .skills/{}/.\n\n{}\n",
                        ok.skill_name,
                        ok.skill_name,
                        quote(ok.content.trim())
                    )),
                    Some(p) => out.push_str(&format!("\n--- {p} ---\n{}\n", quote(ok.content.trim()))),
                }
            }
            ViewResult::Err(e) => out.push_str(&format!(
                "\nview_skill {}{} failed ({}): {}\n",
                e.skill_name,
                e.path.as_deref().map(|p| format!(" {p}")).unwrap_or_default(),
                serde_json::to_value(e.error.code).ok().and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default(),
                e.error.message
            )),
        }
    }
    out
}

#[async_trait::async_trait]
impl Provider for OfflineProvider {
    fn info(&self) -> ProviderInfo {
        ProviderInfo { kind: "offline".into(), model: "offline-router".into(), label: LABEL.into() }
    }

    async fn stream(&self, request: &ModelRequest, cancel: &CancellationToken) -> Result<EventStream, ProviderError> {
        if cancel.is_cancelled() {
            return Err(ProviderError::Cancelled);
        }
        let events: Vec<Result<StreamEvent, ProviderError>> = match next_move(request) {
            Ok(call) => vec![Ok(StreamEvent::ToolCall { call }), Ok(StreamEvent::Finish { stop: StopReason::ToolUse })],
            Err(text) => text
                .split_inclusive('\n')
                .map(|line| Ok(StreamEvent::TextDelta { text: line.to_owned() }))
                .chain(std::iter::once(Ok(StreamEvent::Finish { stop: StopReason::EndTurn })))
                .collect(),
        };
        Ok(Box::pin(futures_util::stream::iter(events)))
    }
}
