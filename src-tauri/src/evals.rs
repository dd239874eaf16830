//! The Evals view of a skill: its trigger queries and output cases read from the skill's own
//! files (`evals/eval_queries.json`, `evals/evals.json`) and the queries written back as a new
//! revision; trigger evals run with the provider the user picks, with progress and Stop; and
//! every run's result kept per revision (`skilldeck_agent::eval`'s log) for History. The runs
//! are the CLI's: `skilldeck_agent::eval`.

use crate::error::{ApiError, ApiResult};
use serde::{Deserialize, Serialize};
use skilldeck_agent::config::{Config, ProviderConfig};
use skilldeck_agent::eval::{self, CASES_FILE, EvalRecord, QUERIES_FILE, TriggerOptions, TriggerQuery, TriggerReport};
use skilldeck_agent::provider::Provider;
use skilldeck_agent::session::SessionOptions;
use skilldeck_core::SkillRegistry;
use skilldeck_skill::{RelPath, Scope, SkillName};
use skilldeck_store::FsStorage;
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

/// One output eval case, as the view shows and the form edits it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct CaseRow {
    /// Its id as the file writes it (a number or a name), kept as it was; empty for a new case.
    pub id: String,
    /// Its folder in the workspace (`eval-ID`); empty for a new case.
    pub folder: String,
    /// Its own name for its folder, when the file gives one.
    pub name: Option<String>,
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

/// A file of the skill's current revision, or `None` when it has none by that path.
fn eval_file(storage: &FsStorage, scope: Scope, name: &SkillName, file: &str) -> ApiResult<Option<Vec<u8>>> {
    let rel = RelPath::parse(file).map_err(|e| ApiError::new("internal", e.to_string()))?;
    match storage.read_raw_file_sync(scope, name, &rel) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(_) if storage.stored_file(scope, name, &rel).is_err() => Ok(None),
        Err(e) => Err(e.into()),
    }
}

/// The Evals view of `name`: its two eval files and its records, read alone (a skill's other
/// files, however large, are not).
pub fn view(registry: &SkillRegistry, scope: Scope, name: &SkillName) -> ApiResult<EvalsView> {
    let storage = registry.storage();
    storage.stored_dir(scope, name)?;
    let revision = storage.revision_sync(scope, name)?.map(|r| r.0);
    let (queries, queries_problem) = match eval_file(storage, scope, name, QUERIES_FILE)? {
        None => (Vec::new(), None),
        Some(bytes) => match eval::read_queries(&format!("{name}/{QUERIES_FILE}"), &bytes) {
            Ok(q) => {
                (q.into_iter().map(|q| QueryRow { query: q.query, should_trigger: q.should_trigger }).collect(), None)
            }
            Err(e) => (Vec::new(), Some(e.to_string())),
        },
    };
    let (cases, cases_problem) = match eval_file(storage, scope, name, CASES_FILE)? {
        None => (Vec::new(), None),
        Some(bytes) => match eval::read_cases(&format!("{name}/{CASES_FILE}"), &bytes) {
            Ok(c) => (
                c.evals
                    .iter()
                    .map(|c| CaseRow {
                        id: c.id.to_string(),
                        folder: c.folder(),
                        name: c.name.clone(),
                        prompt: c.prompt.clone(),
                        expected_output: c.expected_output.clone(),
                        files: c.files.clone(),
                        expectations: c.expectations.clone(),
                        check: c.check.clone(),
                    })
                    .collect(),
                None,
            ),
            Err(e) => (Vec::new(), Some(e.to_string())),
        },
    };
    Ok(EvalsView { revision, queries, queries_problem, cases, cases_problem, records: records(storage, scope, name) })
}

/// Every eval run of the skill, newest first, as History shows them.
pub fn records(storage: &FsStorage, scope: Scope, name: &SkillName) -> Vec<RecordRow> {
    let mut rows: Vec<RecordRow> =
        eval::read_records(storage.home(), scope, name.as_str()).iter().map(RecordRow::of).collect();
    rows.reverse();
    rows
}

/// The skill's saved trigger queries and the revision they belong to; refused, saying what to
/// do, when it has none or they cannot be read.
fn saved_queries(storage: &FsStorage, scope: Scope, name: &SkillName) -> ApiResult<(Option<u64>, Vec<TriggerQuery>)> {
    let revision = storage.revision_sync(scope, name)?.map(|r| r.0);
    let Some(bytes) = eval_file(storage, scope, name, QUERIES_FILE)? else {
        return Err(ApiError::new("eval_queries_missing", "add trigger queries and save them first"));
    };
    let queries = eval::read_queries(&format!("{name}/{QUERIES_FILE}"), &bytes)
        .map_err(|e| ApiError::new("eval_queries_invalid", e.to_string()))?;
    Ok((revision, queries))
}

/// Provider `name` of config.toml, built, with its settings.
fn provider_named(config: &Config, name: &str) -> ApiResult<(Arc<dyn Provider>, ProviderConfig)> {
    let pc = config.provider(name).map_err(|e| ApiError::new("provider_unknown", e.to_string()))?;
    let built = pc
        .build()
        .map_err(|e| ApiError::new("provider_unavailable", format!("the provider {name:?} cannot be used: {e}")))?;
    Ok((built, pc))
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
    store_edit(registry, scope, name, &files)
}

/// Stores `files` as the skill's next revision, made by an edit in Skilldeck.
fn store_edit(
    registry: &SkillRegistry,
    scope: Scope,
    name: &SkillName,
    files: &skilldeck_skill::SkillFiles,
) -> ApiResult<u64> {
    let out = registry.storage().write_with_event(scope, name, files, skilldeck_store::storage::RevisionEvent::Edit);
    registry.invalidate(scope, Some(name.as_str()));
    Ok(out?.revision.0)
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
        let (revision, queries) = saved_queries(registry.storage(), scope, name)?;
        let home = registry.storage().home().clone();
        let config = crate::agent::config(&home)?;
        let (built, pc) = provider_named(&config, provider)?;
        let opts = SessionOptions::from_config(&config, &pc);
        let stop = self.begin(scope, name)?;
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
        self.end(scope, name);
        let report = report.map_err(|e| ApiError::new("eval_failed", e.to_string()))?;
        if !report.stopped {
            let record = EvalRecord::of_triggers(&report, revision);
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

/// Stores `rows` as the skill's `evals/evals.json` in the guide's format (an empty list removes
/// it), checked as a run reads it and against the skill's files, as one new revision; returns it.
pub fn save_cases(registry: &SkillRegistry, scope: Scope, name: &SkillName, rows: &[CaseRow]) -> ApiResult<u64> {
    let mut files = registry.storage().snapshot(scope, name)?.files;
    let rel = RelPath::parse(CASES_FILE).map_err(|e| ApiError::new("internal", e.to_string()))?;
    if rows.is_empty() {
        files = files.iter().filter(|(p, _)| **p != rel).map(|(p, b)| (p.clone(), b.to_vec())).collect();
        return store_edit(registry, scope, name, &files);
    }
    // A new case takes the next number after the highest numbered one.
    let mut next = rows.iter().filter_map(|r| r.id.parse::<u64>().ok()).max().unwrap_or(0);
    let cases: Vec<eval::EvalCase> = rows
        .iter()
        .map(|r| {
            let id = match r.id.trim() {
                "" => {
                    next += 1;
                    eval::CaseId::Number(next)
                }
                text => text.parse::<u64>().map_or_else(|_| eval::CaseId::Text(text.to_owned()), eval::CaseId::Number),
            };
            eval::EvalCase {
                id,
                name: r.name.clone().filter(|n| !n.trim().is_empty()),
                prompt: r.prompt.trim().to_owned(),
                expected_output: r.expected_output.trim().to_owned(),
                files: r.files.iter().map(|f| f.trim().to_owned()).filter(|f| !f.is_empty()).collect(),
                expectations: r.expectations.iter().map(|e| e.trim().to_owned()).filter(|e| !e.is_empty()).collect(),
                check: r.check.clone().filter(|c| !c.trim().is_empty()),
            }
        })
        .collect();
    let doc = eval::EvalCases { skill_name: Some(name.to_string()), evals: cases };
    let mut json = serde_json::to_vec_pretty(&doc).map_err(|e| ApiError::new("internal", e.to_string()))?;
    json.push(b'\n');
    let shown = format!("{name}/{CASES_FILE}");
    let checked = eval::read_cases(&shown, &json).map_err(|e| ApiError::new("eval_cases_invalid", e.to_string()))?;
    for case in &checked.evals {
        if let Some(file) = case.files.iter().chain(&case.check).find(|f| files.get(f).is_none()) {
            return Err(ApiError::new(
                "eval_case_file_missing",
                format!("case {} names {file}, which {name} does not hold: add the file to the skill first", case.id),
            ));
        }
    }
    files.insert(rel, json);
    store_edit(registry, scope, name, &files)
}

/// One expectation of a run, graded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct GradedRow {
    /// The expectation.
    pub text: String,
    /// Whether it was met.
    pub passed: bool,
    /// What shows it.
    pub evidence: String,
}

/// One run of an output case.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct OutputRunRow {
    /// The case's folder.
    pub eval: String,
    /// `with_skill`, `without_skill` or `old_skill`.
    pub configuration: String,
    /// 1-based.
    pub run: u32,
    /// Each expectation.
    pub expectations: Vec<GradedRow>,
    /// Who graded.
    pub grader: String,
    /// Whether the model loaded the skill.
    pub skill_loaded: bool,
    /// Why the run failed, when it did.
    pub failed: Option<String>,
    /// Whether it was stopped at its wall time.
    pub timed_out: bool,
    /// Commands refused.
    pub refused_commands: u32,
    /// Its wall time, in milliseconds.
    pub duration_ms: u64,
    /// Its tokens.
    pub total_tokens: u64,
    /// Its session.
    pub session: String,
}

/// An output eval's result.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct OutputRunView {
    /// Who ran the cases.
    pub provider: String,
    /// Who graded them.
    pub grader: String,
    /// The baseline, for people (`without_skill`, `old_skill v:2`).
    pub baseline: String,
    /// Mean pass rate with the skill.
    pub with_skill: Option<f64>,
    /// The baseline's.
    pub baseline_rate: Option<f64>,
    /// Seconds and tokens a run the skill adds (negative: saves).
    pub delta_seconds: Option<f64>,
    /// Tokens a run the skill adds.
    pub delta_tokens: Option<f64>,
    /// Every run.
    pub runs: Vec<OutputRunRow>,
    /// The iteration folder written.
    pub iteration: String,
    /// Whether the user stopped it.
    pub stopped: bool,
    /// Seconds it took.
    pub seconds: f64,
}

impl OutputRunView {
    fn of(r: &eval::OutputReport) -> Self {
        let with = r.summary(eval::ArmKind::WithSkill);
        let base = r.summary(r.baseline);
        Self {
            provider: r.provider.label.clone(),
            grader: r.grader.label.clone(),
            baseline: match r.baseline_revision {
                Some(v) => format!("{} v:{v}", r.baseline.label()),
                None => r.baseline.label().to_owned(),
            },
            with_skill: with.map(|s| s.pass_rate.mean),
            baseline_rate: base.map(|s| s.pass_rate.mean),
            delta_seconds: with.zip(base).map(|(w, b)| w.time_seconds.mean - b.time_seconds.mean),
            delta_tokens: with.zip(base).map(|(w, b)| w.tokens.mean - b.tokens.mean),
            runs: r
                .runs
                .iter()
                .map(|x| OutputRunRow {
                    eval: x.eval.clone(),
                    configuration: x.configuration.label().to_owned(),
                    run: u32::try_from(x.run).unwrap_or(u32::MAX),
                    expectations: x
                        .grading
                        .expectations
                        .iter()
                        .map(|g| GradedRow { text: g.text.clone(), passed: g.passed, evidence: g.evidence.clone() })
                        .collect(),
                    grader: x.grading.grader.clone(),
                    skill_loaded: x.skill_loaded,
                    failed: match &x.end {
                        skilldeck_agent::TurnEnd::Failed { message } => Some(message.clone()),
                        _ => None,
                    },
                    timed_out: x.timed_out,
                    refused_commands: u32::try_from(x.refused_commands).unwrap_or(u32::MAX),
                    duration_ms: x.timing.duration_ms,
                    total_tokens: x.timing.total_tokens,
                    session: x.session.clone(),
                })
                .collect(),
            iteration: r.iteration.display().to_string(),
            stopped: r.stopped,
            seconds: r.seconds,
        }
    }
}

/// What an output eval runs with, as the view asks.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct OutputRequest {
    /// The provider that runs the cases (a name from config.toml).
    pub provider: String,
    /// The one that grades them; the same when empty.
    pub grader: Option<String>,
    /// The revision to compare with; none: no skill.
    pub baseline: Option<u64>,
    /// Runs of each case in each configuration.
    pub runs: u16,
    /// Whether the runs' shell commands and risky writes, and the cases' check scripts, run (in
    /// the sandbox) without a question: the CLI's `--yes`. Refused and counted otherwise.
    pub allow_commands: bool,
}

impl EvalsPanel {
    /// Runs the skill's output cases with the skill and the baseline, writing the iteration in
    /// `evals/<scope>/<name>-workspace/` under the home; keeps the result for History.
    pub async fn run_outputs(
        &self,
        registry: &Arc<SkillRegistry>,
        scope: Scope,
        name: &SkillName,
        request: &OutputRequest,
        progress: impl Fn(EvalProgress) + Send + Sync,
    ) -> ApiResult<OutputRunView> {
        let home = registry.storage().home().clone();
        let unprepared = |e: eval::PrepareError| {
            let code =
                if matches!(e, eval::PrepareError::OfflineGrader) { "eval_grader_offline" } else { "eval_unprepared" };
            ApiError::new(code, e.to_string())
        };
        let prepared = eval::prepare_outputs(registry.storage(), registry.hold(), scope, name, request.baseline)
            .map_err(unprepared)?;
        let config = crate::agent::config(&home)?;
        let (provider, pc) = provider_named(&config, &request.provider)?;
        let grader = match request.grader.as_deref().filter(|g| !g.is_empty()) {
            Some(g) => provider_named(&config, g)?.0,
            None => Arc::clone(&provider),
        };
        prepared.check_grader(&grader.info()).map_err(unprepared)?;
        let opts = SessionOptions::from_config(&config, &pc);
        let root = eval::log_path(&home, scope, name.as_str()).with_file_name(format!("{name}-workspace"));
        let iteration = eval::next_iteration(&root).map_err(|e| ApiError::new("eval_failed", e.to_string()))?;
        let stop = self.begin(scope, name)?;
        let tell = |done: usize, total: usize, _: &str| {
            let n = |v: usize| u32::try_from(v).unwrap_or(u32::MAX);
            progress(EvalProgress { done: n(done), total: n(total) });
        };
        let run = eval::OutputEval {
            home: &home,
            provider,
            grader,
            opts,
            skill: name.as_str(),
            files: &prepared.files,
            cases: &prepared.cases,
            arms: prepared.arms.clone(),
            iteration,
            options: eval::OutputOptions {
                runs: usize::from(request.runs.clamp(1, 20)),
                allow_shell: request.allow_commands,
                ..eval::OutputOptions::default()
            },
            stop,
        };
        let report = eval::run_outputs(run, &tell).await;
        self.end(scope, name);
        let report = report.map_err(|e| ApiError::new("eval_failed", e.to_string()))?;
        if !report.stopped
            && let Err(e) = eval::append_record(&home, scope, name.as_str(), &EvalRecord::of_outputs(&report))
        {
            tracing::warn!(error = %e, "an eval result could not be kept for History");
        }
        Ok(OutputRunView::of(&report))
    }

    /// Marks the skill's evals as running; refused while they already are.
    fn begin(&self, scope: Scope, name: &SkillName) -> ApiResult<CancellationToken> {
        let mut running = self.running.lock().map_err(|_| ApiError::new("internal", "the run table is poisoned"))?;
        if running.contains_key(&key(scope, name.as_str())) {
            return Err(ApiError::new("eval_running", format!("{name}'s evals are running already; stop them first")));
        }
        let stop = CancellationToken::new();
        running.insert(key(scope, name.as_str()), stop.clone());
        Ok(stop)
    }

    /// Marks the skill's evals as done.
    fn end(&self, scope: Scope, name: &SkillName) {
        if let Ok(mut running) = self.running.lock() {
            running.remove(&key(scope, name.as_str()));
        }
    }
}

/// One description tried by the optimizer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct CandidateRow {
    /// 0 for the description as it is.
    pub iteration: u32,
    /// The description.
    pub description: String,
    /// Train queries passed, of `train_total`.
    pub train_passed: u32,
    /// Train queries.
    pub train_total: u32,
    /// Validation queries passed, of `validation_total`.
    pub validation_passed: u32,
    /// Validation queries.
    pub validation_total: u32,
}

/// What the optimizer found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct ImproveView {
    /// Every candidate, the description as it is first.
    pub candidates: Vec<CandidateRow>,
    /// Which won (an index into `candidates`).
    pub best: u32,
    /// Whether the winner was written into a draft of the skill (to open in the editor).
    pub draft: bool,
    /// Whether the skill had a draft already, left alone.
    pub draft_kept: bool,
    /// Rewrites refused, and why.
    pub refused: Vec<String>,
    /// Whether the user stopped it (no draft is offered then).
    pub stopped: bool,
}

/// What the optimizer does now.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct ImproveProgress {
    /// The candidate (0: the description as it is).
    pub candidate: u32,
    /// `scoring` or `rewriting`.
    pub step: String,
}

impl EvalsPanel {
    /// Runs the description optimizer over the skill's trigger queries with `provider`, among
    /// the user's skills; the winner is offered as a draft of the skill.
    pub async fn improve(
        &self,
        registry: &Arc<SkillRegistry>,
        scope: Scope,
        name: &SkillName,
        provider: &str,
        runs: u16,
        progress: impl Fn(ImproveProgress) + Send + Sync,
    ) -> ApiResult<ImproveView> {
        let (_, queries) = saved_queries(registry.storage(), scope, name)?;
        let config = crate::agent::config(registry.storage().home())?;
        let (built, pc) = provider_named(&config, provider)?;
        let improve = eval::Improve {
            registry,
            scope,
            name,
            neighbours: eval::Neighbours::Store,
            provider: built,
            opts: SessionOptions::from_config(&config, &pc),
            queries: &queries,
            options: TriggerOptions { runs: usize::from(runs.clamp(1, 20)), ..TriggerOptions::default() },
            iterations: eval::DEFAULT_ITERATIONS,
            stop: self.begin(scope, name)?,
        };
        let tell = |candidate: usize, step: &str| {
            progress(ImproveProgress {
                candidate: u32::try_from(candidate).unwrap_or(u32::MAX),
                step: step.to_owned(),
            });
        };
        let improved = eval::improve_description(improve, &tell).await;
        self.end(scope, name);
        let improved = improved.map_err(|e| {
            let code =
                if matches!(e, eval::ImproveError::OfflineProposer) { "eval_optimizer_offline" } else { "eval_failed" };
            ApiError::new(code, e.to_string())
        })?;
        let n = |v: usize| u32::try_from(v).unwrap_or(u32::MAX);
        let r = &improved.report;
        Ok(ImproveView {
            candidates: r
                .candidates
                .iter()
                .map(|c| CandidateRow {
                    iteration: n(c.iteration),
                    description: c.description.clone(),
                    train_passed: n(c.train.passed),
                    train_total: n(c.train.total),
                    validation_passed: n(c.validation.passed),
                    validation_total: n(c.validation.total),
                })
                .collect(),
            best: n(r.best),
            draft: improved.draft.is_some(),
            draft_kept: !r.stopped && r.best != 0 && improved.draft.is_none(),
            refused: r.refused.clone(),
            stopped: r.stopped,
        })
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use skilldeck_skill::SkillFiles;
    use skilldeck_store::SkilldeckHome;

    fn store_with_skill() -> (tempfile::TempDir, SkillRegistry, SkillName) {
        let dir = tempfile::tempdir().unwrap();
        let storage = FsStorage::open(SkilldeckHome::new(dir.path().join("home"))).unwrap();
        let registry = SkillRegistry::new(storage);
        let name = SkillName::parse("sales").unwrap();
        let mut files = SkillFiles::new();
        files
            .insert(RelPath::parse("SKILL.md").unwrap(), b"---\nname: sales\ndescription: Sales.\n---\n# S\n".to_vec());
        files.insert(RelPath::parse("evals/files/q.csv").unwrap(), b"a,b\n".to_vec());
        registry.write_skill(Scope::User, &name, &files).unwrap();
        (dir, registry, name)
    }

    fn case(files: &[&str], expectations: &[&str]) -> CaseRow {
        CaseRow {
            id: String::new(),
            folder: String::new(),
            name: None,
            prompt: "Sum q.csv".into(),
            expected_output: String::new(),
            files: files.iter().map(|f| (*f).to_owned()).collect(),
            expectations: expectations.iter().map(|e| (*e).to_owned()).collect(),
            check: None,
        }
    }

    #[test]
    fn broken_cases_and_queries_are_refused_saying_why_and_the_store_keeps_its_revision() {
        let (_dir, registry, name) = store_with_skill();
        let rev = |r: &SkillRegistry| r.storage().revision_sync(Scope::User, &name).unwrap();
        let before = rev(&registry);
        let outside = save_cases(&registry, Scope::User, &name, &[case(&["../../trust.json"], &["x"])]).unwrap_err();
        assert_eq!(outside.code, "eval_cases_invalid", "{outside:?}");
        let missing =
            save_cases(&registry, Scope::User, &name, &[case(&["evals/files/nope.csv"], &["x"])]).unwrap_err();
        assert_eq!(missing.code, "eval_case_file_missing");
        assert!(missing.message.contains("evals/files/nope.csv"), "{}", missing.message);
        let nothing = save_cases(&registry, Scope::User, &name, &[case(&[], &[""])]).unwrap_err();
        assert_eq!(nothing.code, "eval_cases_invalid", "an expectation left blank is no expectation");
        let blank = QueryRow { query: "  ".into(), should_trigger: true };
        assert_eq!(save_queries(&registry, Scope::User, &name, &[blank]).unwrap_err().code, "eval_query_empty");
        assert_eq!(rev(&registry), before, "nothing was stored");
        // A good case is stored, numbered, and the view reads it back; the queries are missing.
        let stored = save_cases(&registry, Scope::User, &name, &[case(&["evals/files/q.csv"], &["says 3"])]).unwrap();
        let v = view(&registry, Scope::User, &name).unwrap();
        assert_eq!((v.revision, v.cases[0].id.as_str(), v.cases[0].folder.as_str()), (Some(stored), "1", "eval-1"));
        let err = saved_queries(registry.storage(), Scope::User, &name).unwrap_err();
        assert_eq!(err.code, "eval_queries_missing");
    }
}
