//! Evals of a skill, in the agentskills.io formats: whether it triggers when it should
//! (`triggers`: the guide's `eval_queries.json`, each query run through this agent loop in a
//! fresh workspace with the user's real store around the skill). This file only names the
//! modules and hands on their public items.

mod queries;
mod triggers;

pub use queries::{QUERIES_FILE, QueryError, TriggerQuery, read_queries};
pub use triggers::{
    DEFAULT_RUNS, DEFAULT_THRESHOLD, EvalError, QueryResult, Spread, TriggerOptions, TriggerReport, run_triggers,
};
