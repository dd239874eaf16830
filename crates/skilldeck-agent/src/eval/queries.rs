//! The trigger queries of a skill as the agentskills.io guide writes them: a JSON array of
//! `{"query": …, "should_trigger": true|false}`, by default `evals/eval_queries.json` inside
//! the skill. Read strictly, so a typo in a field is said, not silently taken as `false`.

use serde::{Deserialize, Serialize};

/// Where a skill keeps its trigger queries, relative to its folder.
pub const QUERIES_FILE: &str = "evals/eval_queries.json";

/// One trigger query.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TriggerQuery {
    /// What a user would ask.
    pub query: String,
    /// Whether the skill should be loaded for it.
    pub should_trigger: bool,
}

/// Why the queries could not be read.
#[derive(Debug, thiserror::Error)]
pub enum QueryError {
    /// Not the guide's format.
    #[error(
        "{file} is not a list of trigger queries ({reason}): write a JSON array of {{\"query\": \"…\", \"should_trigger\": true}}"
    )]
    Format {
        /// The file, as shown.
        file: String,
        /// What the parser said.
        reason: String,
    },
    /// No query, or an empty one.
    #[error("{file} {reason}: add queries a user would ask, some that should load the skill and some that should not")]
    Empty {
        /// The file, as shown.
        file: String,
        /// What is missing.
        reason: &'static str,
    },
}

/// Reads the queries in `bytes` (from `file`, named in errors).
pub fn read_queries(file: &str, bytes: &[u8]) -> Result<Vec<TriggerQuery>, QueryError> {
    let queries: Vec<TriggerQuery> = serde_json::from_slice(bytes)
        .map_err(|e| QueryError::Format { file: file.to_owned(), reason: e.to_string() })?;
    if queries.is_empty() {
        return Err(QueryError::Empty { file: file.to_owned(), reason: "holds no query" });
    }
    if queries.iter().any(|q| q.query.trim().is_empty()) {
        return Err(QueryError::Empty { file: file.to_owned(), reason: "holds an empty query" });
    }
    Ok(queries)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn the_guides_format_is_read_and_mistakes_are_said() {
        let q = read_queries("q.json", br#"[{"query": "refund my order", "should_trigger": true}]"#).unwrap();
        assert_eq!(q, [TriggerQuery { query: "refund my order".into(), should_trigger: true }]);
        let typo = read_queries("q.json", br#"[{"query": "x", "should_trigger": true, "shouldTrigger": false}]"#);
        assert!(matches!(typo, Err(QueryError::Format { .. })));
        assert!(matches!(read_queries("q.json", b"[]"), Err(QueryError::Empty { .. })));
        assert!(matches!(read_queries("q.json", b"{}"), Err(QueryError::Format { .. })));
    }
}
