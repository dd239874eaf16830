//! `find_skills`: searching every skill a session may be listed, shown in the listing or not.
//! Holds the search, its result as the model gets it and the tool's spec; ranking is `ranker`.

use crate::listing::{self, ListingOptions};
use crate::ranker::Query;
use crate::tool::ToolSpec;
use serde::Serialize;
use serde_json::{Value, json};
use skilldeck_skill::entry::ListedEntry;
use skilldeck_skill::entry::Scope;
use skilldeck_skill::visible::visible_line;

/// The tool's name.
pub const TOOL_NAME: &str = "find_skills";

/// How many matches a call returns.
pub const DEFAULT_LIMIT: usize = 5;

/// A match scoring under this share of the best one is left out: it shares a common word with
/// the query, not the task, and would only crowd the listing it joins.
const MIN_SHARE_OF_BEST: f32 = 0.35;

/// The `why` of a skill no word of the query matched, found by the ranking by meaning.
pub const BY_MEANING: &str = "close in meaning to the query (no word in common)";

/// The system-prompt rule that says when to search.
pub const WHEN_TO_SEARCH: &str = "The skills listing does not show every skill. When no listed skill fits the \
     request, or only a name without a description looks close, call find_skills with a few words about the task \
     before answering without a skill; skills it finds can then be loaded with view_skill.";

/// One match.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Found {
    /// Its name.
    pub name: String,
    /// Its scope.
    pub scope: Scope,
    /// The version tag, if any.
    pub version: Option<String>,
    /// Its whole description.
    pub description: String,
    /// Which words of the query matched, and where: `pdf (name, description); tables (description)`;
    /// for a skill found by meaning alone, [`BY_MEANING`].
    pub why: String,
    /// Its score (BM25, or fused with the ranking by meaning).
    pub score: f32,
}

/// The `limit` skills that best match `query` among those `opts` lets the session list (all of
/// them, whatever the budget), best first; only skills some word of the query matched, and
/// none far below the best.
pub fn find(entries: &[ListedEntry], opts: &ListingOptions, query: &str, limit: usize) -> Vec<Found> {
    let (set, eligible) = listing::listable(entries, opts);
    let q = Query::new(query);
    if q.is_empty() || eligible.is_empty() {
        return Vec::new();
    }
    let mut ranked = set.rank(&q, &eligible);
    let floor = ranked.first().map_or(0.0, |r| r.score * MIN_SHARE_OF_BEST);
    // A query that is a skill's name (models search with names they saw in the listing) finds
    // that skill first, whatever its words score against longer descriptions.
    let name = as_name(query);
    let exact = ranked.iter().position(|r| set.entries()[r.pos].name == name);
    if let Some(i) = exact {
        let hit = ranked.remove(i);
        ranked.insert(0, hit);
    }
    ranked
        .into_iter()
        .enumerate()
        .take_while(|(i, r)| (*i == 0 && exact.is_some()) || (r.score > 0.0 && r.score >= floor))
        .map(|(_, r)| r)
        .take(limit)
        .map(|r| {
            let e = &set.entries()[r.pos];
            Found {
                name: e.name.clone(),
                scope: e.scope,
                // Shown as the listing shows them: control characters escaped.
                version: e.version.as_deref().map(|v| visible_line(v).into_owned()),
                description: visible_line(e.listing_description()).into_owned(),
                why: Some(set.why(r.pos, &q)).filter(|w| !w.is_empty()).unwrap_or_else(|| BY_MEANING.to_owned()),
                score: r.score,
            }
        })
        .collect()
}

/// `query` written as a skill name: lower case, words joined by hyphens.
fn as_name(query: &str) -> String {
    query
        .to_lowercase()
        .split(|c: char| c.is_whitespace() || c == '_' || c == '-')
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join("-")
}

/// The result the model gets for `query`.
pub fn result_json(query: &str, found: &[Found]) -> Value {
    let matches: Vec<Value> = found
        .iter()
        .map(|f| json!({"name": f.name, "version": f.version.as_deref().map(|v| format!("v:{v}")), "description": f.description, "why": f.why}))
        .collect();
    // The call is spelled out: a small model copies a call it was shown more readily than it
    // composes one, and otherwise tends to answer from the search result alone.
    let note = match found.first() {
        None => "No skill matches these words. Try other words (a synonym, the file type, the tool's name), or go on \
                 without a skill."
            .to_owned(),
        Some(best) => format!(
            "These skills are now in the listing. Before you answer, load the one that fits with view_skill; for the \
             best match, call view_skill with {{\"name\": \"{}\"}}.",
            best.name
        ),
    };
    json!({"query": query, "matches": matches, "note": note})
}

/// The tool's spec.
pub fn tool_spec() -> ToolSpec {
    ToolSpec {
        name: TOOL_NAME.to_owned(),
        description: "Search every installed skill, including those the skills listing does not show, by a few words \
                      about the task. Returns the best matches (name, version, description, why it matched); they join \
                      the listing so view_skill can load them."
            .to_owned(),
        parameters: json!({
            "type": "object",
            "properties": {"query": {"type": "string", "description": "A few words about the task, e.g. \"fill a PDF form\"."}},
            "required": ["query"],
            "additionalProperties": false
        }),
    }
}
