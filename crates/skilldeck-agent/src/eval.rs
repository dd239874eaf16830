//! Evals of a skill, in the agentskills.io formats: whether it triggers when it should
//! (`triggers`: the guide's `eval_queries.json`, each query run through this agent loop in a
//! fresh workspace with the user's real store around the skill), and whether the agent does
//! better with it than without (`outputs`: the guide's `evals/evals.json`, each case run with
//! the skill and with a baseline, graded by a model or a check script, written in the guide's
//! workspace layout), and a better description found by the guide's train/validation loop
//! (`optimize`). This file only names the modules and hands on their public items.

mod cases;
mod grade;
mod host;
mod improve;
mod optimize;
mod outputs;
mod prepare;
mod queries;
mod record;
mod triggers;

pub use cases::{CASES_FILE, CaseId, CasesError, EvalCase, EvalCases, FILES_DIR, read_cases};
pub use grade::{Graded, Grading, GradingSummary, grader_request, read_verdicts};
pub use improve::{Improve, ImproveError, Improved, Neighbours, improve_description};
pub use optimize::{
    Candidate, DEFAULT_ITERATIONS, MAX_DESCRIPTION_CHARS, Optimize, OptimizeReport, Score, Split, optimize_description,
    split,
};
pub use outputs::{
    Arm, ArmKind, ArmSummary, DEFAULT_OUTPUT_RUNS, Delta, OutputEval, OutputOptions, OutputReport, RunRecord, Stat,
    Timing, next_iteration, run_outputs,
};
pub use prepare::{PrepareError, PreparedOutputs, ScratchStore, prepare_outputs};
pub use queries::{QUERIES_FILE, QueryError, TriggerQuery, read_queries};
pub use record::{
    EvalKind, EvalRecord, append as append_record, follow_rename as follow_rename_records, log_path,
    read as read_records,
};
pub use triggers::{
    DEFAULT_RUNS, DEFAULT_THRESHOLD, EvalError, QueryResult, Spread, TriggerOptions, TriggerReport, run_triggers,
};
