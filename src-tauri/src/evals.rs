//! The Evals view of a skill: its trigger queries and output cases read from the skill's own
//! files (`evals/eval_queries.json`, `evals/evals.json`) and the queries written back as a new
//! revision; trigger evals run with the provider the user picks, with progress and Stop; and
//! every run's result kept per revision (`skilldeck_agent::eval`'s log) for History. The runs
//! are the CLI's: `skilldeck_agent::eval`.

use crate::error::{ApiError, ApiResult};
use serde::{Deserialize, Serialize};
use skilldeck_agent::eval::{self, CASES_FILE, EvalRecord, QUERIES_FILE, TriggerOptions, TriggerQuery, TriggerReport};
use skilldeck_agent::session::SessionOptions;
use skilldeck_core::SkillRegistry;
use skilldeck_skill::{RelPath, Scope, SkillName};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use tokio_util::sync::CancellationToken;

/// One trigger query, as the form edits it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct QueryRow {
    /// What a user would ask.
    pub query: String,
    /// Whether the skill should load for it.
    pub should_trigger: bool,
}

/// One output eval case, as the view shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct CaseRow {
    /// Its folder in the workspace (`eval-ID`).
    pub folder: String,
    /// The prompt.
    pub prompt: String,
    /// What success looks like.
    pub expected_output: String,
    /// The input files.
    pub files: Vec<String>,
    /// What is graded.
    pub expectations: Vec<String>,
    /// The check script, when one grades it.
    pub check: Option<String>,
}

/// One eval run's result, as History and the view show it.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct RecordRow {
    /// `triggers` or `outputs`.
    pub kind: String,
    /// The revision evaluated.
    pub revision: Option<u64>,
    /// When, RFC 3339.
    pub at: String,
    /// Who answered, for people.
    pub provider: String,
    /// Whether that was the offline ranker.
    pub offline: bool,
    /// Runs of each query or case.
    pub runs: u32,
    /// Queries passed, or expectations met with the skill.
    pub passed: u32,
    /// In all.
    pub total: u32,
    /// Outputs: the mean pass rate with the skill.
    pub with_skill: Option<f64>,
    /// Outputs: the baseline's.
    pub baseline: Option<f64>,
    /// Outputs: which baseline.
    pub baseline_kind: Option<String>,
}

impl RecordRow {
    fn of(r: &EvalRecord) -> Self {
        let count = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
        Self {
            kind: match r.kind {
                eval::EvalKind::Triggers => "triggers".into(),
                eval::EvalKind::Outputs => "outputs".into(),
            },
            revision: r.revision,
            at: r.at.clone(),
            provider: r.provider.label.clone(),
            offline: r.provider.kind == "offline",
            runs: count(r.runs),
            passed: count(r.passed),
            total: count(r.total),
            with_skill: r.with_skill,
            baseline: r.baseline,
            baseline_kind: r.baseline_kind.clone(),
        }
    }
}

/// What the Evals view shows of a skill.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct EvalsView {
    /// The revision shown.
    pub revision: Option<u64>,
    /// Its trigger queries (none when it has no file).
    pub queries: Vec<QueryRow>,
    /// Why its queries file could not be read, when it could not.
    pub queries_problem: Option<String>,
    /// Its output cases.
    pub cases: Vec<CaseRow>,
    /// Why its cases file could not be read, when it could not.
    pub cases_problem: Option<String>,
    /// Every eval run of the skill, newest first.
    pub records: Vec<RecordRow>,
}

/// One query's result in a run.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct QueryResultRow {
    /// The query.
    pub query: String,
    /// Whether it should trigger.
    pub should_trigger: bool,
    /// Runs that loaded the skill.
    pub triggers: u32,
    /// Runs made.
    pub runs: u32,
    /// Whether it passed by the guide's rule.
    pub passed: bool,
    /// Other skills loaded instead, with how many runs (`invoices ×2`).
    pub loaded_instead: Vec<String>,
    /// Why runs failed.
    pub errors: Vec<String>,
    /// Commands refused: no one was there to approve them.
    pub refused_commands: u32,
    /// The sessions of its runs.
    pub sessions: Vec<String>,
}

/// A trigger run's result.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct TriggerRunView {
    /// Who answered, for people.
    pub provider: String,
    /// Whether that was the offline ranker.
    pub offline: bool,
    /// Runs of each query.
    pub runs: u32,
    /// Queries passed.
    pub passed: u32,
    /// Queries run.
    pub total: u32,
    /// Precision, when a query triggered.
    pub precision: Option<f64>,
    /// Recall, when a query should.
    pub recall: Option<f64>,
    /// Whether the user stopped it.
    pub stopped: bool,
    /// Seconds it took.
    pub seconds: f64,
    /// Each query.
    pub results: Vec<QueryResultRow>,
}

impl TriggerRunView {
    fn of(r: &TriggerReport) -> Self {
        let count = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
        Self {
            provider: r.provider.label.clone(),
            offline: r.provider.kind == "offline",
            runs: count(r.runs),
            passed: count(r.passed),
            total: count(r.total),
            precision: r.precision,
            recall: r.recall,
            stopped: r.stopped,
            seconds: r.seconds,
            results: r
                .results
                .iter()
                .map(|q| QueryResultRow {
                    query: q.query.clone(),
                    should_trigger: q.should_trigger,
                    triggers: count(q.triggers),
                    runs: count(q.runs),
                    passed: q.passed,
                    loaded_instead: q.loaded_instead.iter().map(|(n, c)| format!("{n} ×{c}")).collect(),
                    errors: q.errors.clone(),
                    refused_commands: count(q.refused_commands),
                    sessions: q.sessions.clone(),
                })
                .collect(),
        }
    }
}

/// How far a run is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct EvalProgress {
    /// Runs finished.
    pub done: u32,
    /// Runs in all.
    pub total: u32,
}

/// The runs under way, by skill, so Stop can reach them.
#[derive(Debug, Default)]
pub struct EvalsPanel {
    running: Mutex<BTreeMap<String, CancellationToken>>,
}

fn key(scope: Scope, name: &str) -> String {
    format!("{scope}/{name}")
}

/// The Evals view of `name`.
pub fn view(registry: &SkillRegistry, scope: Scope, name: &SkillName) -> ApiResult<EvalsView> {
    let storage = registry.storage();
    let snapshot = storage.snapshot(scope, name)?;
    let (queries, queries_problem) = match snapshot.files.get(QUERIES_FILE) {
        None => (Vec::new(), None),
        Some(bytes) => match eval::read_queries(&format!("{name}/{QUERIES_FILE}"), bytes) {
            Ok(q) => {
                (q.into_iter().map(|q| QueryRow { query: q.query, should_trigger: q.should_trigger }).collect(), None)
            }
            Err(e) => (Vec::new(), Some(e.to_string())),
        },
    };
    let (cases, cases_problem) = match snapshot.files.get(CASES_FILE) {
        None => (Vec::new(), None),
        Some(bytes) => match eval::read_cases(&format!("{name}/{CASES_FILE}"), bytes) {
            Ok(c) => (
                c.evals
                    .iter()
                    .map(|c| CaseRow {
                        folder: c.folder(),
                        prompt: c.prompt.clone(),
                        expected_output: c.expected_output.clone(),
                        files: c.files.clone(),
                        expectations: c.graded(),
                        check: c.check.clone(),
                    })
                    .collect(),
                None,
            ),
            Err(e) => (Vec::new(), Some(e.to_string())),
        },
    };
    let mut records: Vec<RecordRow> =
        eval::read_records(storage.home(), scope, name.as_str()).iter().map(RecordRow::of).collect();
    records.reverse();
    Ok(EvalsView { revision: snapshot.revision.map(|r| r.0), queries, queries_problem, cases, cases_problem, records })
}

/// Stores `rows` as the skill's trigger queries (an empty list removes the file), as one new
/// revision; returns it.
pub fn save_queries(registry: &SkillRegistry, scope: Scope, name: &SkillName, rows: &[QueryRow]) -> ApiResult<u64> {
    if let Some(i) = rows.iter().position(|r| r.query.trim().is_empty()) {
        return Err(ApiError::new(
            "eval_query_empty",
            format!("query {} is empty: write what a user would ask, or remove the row", i + 1),
        ));
    }
    let mut files = registry.storage().snapshot(scope, name)?.files;
    let rel = RelPath::parse(QUERIES_FILE).map_err(|e| ApiError::new("internal", e.to_string()))?;
    if rows.is_empty() {
        files = files.iter().filter(|(p, _)| **p != rel).map(|(p, b)| (p.clone(), b.to_vec())).collect();
    } else {
        let queries: Vec<TriggerQuery> = rows
            .iter()
            .map(|r| TriggerQuery { query: r.query.trim().to_owned(), should_trigger: r.should_trigger })
            .collect();
        let mut json = serde_json::to_vec_pretty(&queries).map_err(|e| ApiError::new("internal", e.to_string()))?;
        json.push(b'\n');
        files.insert(rel, json);
    }
    let out = registry.write_skill(scope, name, &files)?;
    Ok(out.revision.0)
}

impl EvalsPanel {
    /// Runs the skill's trigger queries with `provider` (a name from config.toml), `runs` times
    /// each, over the user's store; keeps the result for History. One run at a time a skill.
    pub async fn run_triggers(
        &self,
        registry: &Arc<SkillRegistry>,
        scope: Scope,
        name: &SkillName,
        provider: &str,
        runs: u16,
        progress: impl Fn(EvalProgress) + Send + Sync,
    ) -> ApiResult<TriggerRunView> {
        let view = view(registry, scope, name)?;
        if let Some(problem) = view.queries_problem {
            return Err(ApiError::new("eval_queries_invalid", problem));
        }
        if view.queries.is_empty() {
            return Err(ApiError::new("eval_queries_missing", "add trigger queries and save them first"));
        }
        let queries: Vec<TriggerQuery> = view
            .queries
            .iter()
            .map(|q| TriggerQuery { query: q.query.clone(), should_trigger: q.should_trigger })
            .collect();
        let home = registry.storage().home().clone();
        let config = crate::agent::config(&home)?;
        let pc = config.provider(provider).map_err(|e| ApiError::new("provider_unknown", e.to_string()))?;
        let built = pc.build().map_err(|e| {
            ApiError::new("provider_unavailable", format!("the provider {provider:?} cannot be used: {e}"))
        })?;
        let opts = SessionOptions::from_config(&config, &pc);
        let stop = CancellationToken::new();
        {
            let mut running =
                self.running.lock().map_err(|_| ApiError::new("internal", "the run table is poisoned"))?;
            if running.contains_key(&key(scope, name.as_str())) {
                return Err(ApiError::new(
                    "eval_running",
                    format!("{name}'s evals are running already; stop them first"),
                ));
            }
            running.insert(key(scope, name.as_str()), stop.clone());
        }
        let options = TriggerOptions { runs: usize::from(runs.clamp(1, 100)), ..TriggerOptions::default() };
        let tell = |done: usize, total: usize| {
            let n = |v: usize| u32::try_from(v).unwrap_or(u32::MAX);
            progress(EvalProgress { done: n(done), total: n(total) });
        };
        let report = eval::run_triggers(
            &home,
            Arc::clone(registry),
            built,
            opts,
            name.as_str(),
            &queries,
            options,
            &tell,
            &stop,
        )
        .await;
        if let Ok(mut running) = self.running.lock() {
            running.remove(&key(scope, name.as_str()));
        }
        let report = report.map_err(|e| ApiError::new("eval_failed", e.to_string()))?;
        if !report.stopped {
            let record = EvalRecord::of_triggers(&report, view.revision);
            if let Err(e) = eval::append_record(&home, scope, name.as_str(), &record) {
                tracing::warn!(error = %e, "an eval result could not be kept for History");
            }
        }
        Ok(TriggerRunView::of(&report))
    }

    /// Stops the skill's running evals; `false` when none ran.
    pub fn stop(&self, scope: Scope, name: &str) -> bool {
        self.running
            .lock()
            .ok()
            .and_then(|r| r.get(&key(scope, name)).cloned())
            .inspect(CancellationToken::cancel)
            .is_some()
    }
}
