//! Trigger evals: each query run `runs` times through this agent loop, each run a fresh session
//! in a fresh scratch workspace with the user's store, listing, budget and `find_skills` around
//! the skill, exactly as a real session gets them. A run triggers when the model loads the skill
//! with `view_skill`; the run stops there. The guide's rule decides each query (a trigger rate at
//! or over the threshold passes a query that should trigger, under it one that should not), and
//! precision and recall follow from those decisions. Another skill loaded instead is counted: it
//! is the neighbour that crowds the skill out.

use super::host::RunHost;
use super::queries::TriggerQuery;
use crate::provider::{Provider, ProviderInfo};
use crate::session::{AgentError, Session, SessionOptions};
use crate::transcript::TurnEnd;
use serde::Serialize;
use skilldeck_core::SkillRegistry;
use skilldeck_store::SkilldeckHome;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;

/// Runs a query by default, as the guide does.
pub const DEFAULT_RUNS: u16 = 3;

/// The guide's threshold: a query triggers when at least half its runs do.
pub const DEFAULT_THRESHOLD: f64 = 0.5;

/// The most model calls one run may make: the decision comes with the first tool calls.
const MAX_STEPS: usize = 6;

/// Why an eval could not run at all (a run that fails is recorded, not this).
#[derive(Debug, thiserror::Error)]
pub enum EvalError {
    /// A scratch workspace could not be made.
    #[error("could not make or write a run's workspace or results: {0}")]
    Scratch(std::io::Error),
    /// A session could not start.
    #[error(transparent)]
    Session(#[from] AgentError),
    /// A case cannot run as written (an input file the skill does not hold).
    #[error("{0}")]
    Case(String),
    /// The store a run needs could not be made.
    #[error("could not prepare the store for a run: {0}")]
    Store(String),
}

/// How trigger evals run.
#[derive(Debug, Clone, Copy)]
pub struct TriggerOptions {
    /// Runs of each query.
    pub runs: usize,
    /// The trigger rate at which a query counts as triggering.
    pub threshold: f64,
    /// The longest one run may take.
    pub run_timeout: Duration,
    /// Whether shell commands run (`--yes`); unattended runs refuse them otherwise, and count them.
    pub allow_shell: bool,
}

impl Default for TriggerOptions {
    fn default() -> Self {
        Self {
            runs: usize::from(DEFAULT_RUNS),
            threshold: DEFAULT_THRESHOLD,
            run_timeout: Duration::from_secs(300),
            allow_shell: false,
        }
    }
}

/// One query's result, in the guide's shape with what Skilldeck adds.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct QueryResult {
    /// The query.
    pub query: String,
    /// Whether it should trigger.
    pub should_trigger: bool,
    /// Runs that loaded the skill.
    pub triggers: usize,
    /// Runs made.
    pub runs: usize,
    /// `triggers / runs`.
    pub trigger_rate: f64,
    /// Whether the query passed by the guide's rule.
    pub passed: bool,
    /// Other skills loaded in runs that did not load this one, with how many runs.
    pub loaded_instead: BTreeMap<String, usize>,
    /// Runs that failed (the model could not be reached, a run over its time), with why.
    pub errors: Vec<String>,
    /// Shell commands refused because no one was there to approve them.
    pub refused_commands: usize,
    /// The sessions of its runs (`skilldeck sessions`), the evidence of each.
    pub sessions: Vec<String>,
}

/// The whole run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TriggerReport {
    /// The skill.
    pub skill: String,
    /// Who answered: `offline` is a ranker, not a model.
    pub provider: ProviderInfo,
    /// Runs of each query.
    pub runs: usize,
    /// The threshold used.
    pub threshold: f64,
    /// Each query.
    pub results: Vec<QueryResult>,
    /// Queries that passed.
    pub passed: usize,
    /// Queries in all.
    pub total: usize,
    /// Of the queries that triggered, the share that should have; `None` when none triggered.
    pub precision: Option<f64>,
    /// Of the queries that should trigger, the share that did; `None` when none should.
    pub recall: Option<f64>,
    /// The lowest and highest trigger rate of the queries that should trigger, and of those that
    /// should not: how steady the model is.
    pub spread: Spread,
    /// Seconds the whole run took.
    pub seconds: f64,
    /// Whether the user stopped it: `results` then holds the queries whose runs all finished.
    pub stopped: bool,
}

/// The range of trigger rates, by what the queries should do.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Spread {
    /// `[lowest, highest]` among queries that should trigger.
    pub should: Option<[f64; 2]>,
    /// `[lowest, highest]` among queries that should not.
    pub should_not: Option<[f64; 2]>,
}

/// What one run found.
struct Run {
    triggered: bool,
    instead: Vec<String>,
    refused: usize,
    session: Option<String>,
    error: Option<String>,
}

/// Runs every query of `queries` for `skill`. `progress` hears `(runs done, runs in all)`;
/// `stop` ends the runs early (the run under way is cancelled, the query it belongs to left out).
#[allow(clippy::too_many_arguments)]
pub async fn run_triggers(
    home: &SkilldeckHome,
    registry: Arc<SkillRegistry>,
    provider: Arc<dyn Provider>,
    mut opts: SessionOptions,
    skill: &str,
    queries: &[TriggerQuery],
    options: TriggerOptions,
    progress: &(dyn Fn(usize, usize) + Sync),
    stop: &CancellationToken,
) -> Result<TriggerReport, EvalError> {
    let started = Instant::now();
    opts.max_steps = opts.max_steps.min(MAX_STEPS);
    let runs = options.runs.max(1);
    let total = queries.len() * runs;
    let mut results = Vec::with_capacity(queries.len());
    for (i, q) in queries.iter().enumerate() {
        let mut result = QueryResult {
            query: q.query.clone(),
            should_trigger: q.should_trigger,
            triggers: 0,
            runs,
            trigger_rate: 0.0,
            passed: false,
            loaded_instead: BTreeMap::new(),
            errors: Vec::new(),
            refused_commands: 0,
            sessions: Vec::new(),
        };
        for r in 0..runs {
            if stop.is_cancelled() {
                break;
            }
            let run = run_once(home, &registry, &provider, &opts, skill, &q.query, options, stop).await?;
            result.triggers += usize::from(run.triggered);
            for other in run.instead {
                *result.loaded_instead.entry(other).or_default() += 1;
            }
            result.refused_commands += run.refused;
            result.sessions.extend(run.session);
            result.errors.extend(run.error);
            progress(i * runs + r + 1, total);
        }
        if stop.is_cancelled() {
            break;
        }
        result.trigger_rate = result.triggers as f64 / runs as f64;
        let triggered = result.trigger_rate >= options.threshold;
        result.passed = triggered == q.should_trigger;
        results.push(result);
    }
    let mut report = summarise(skill, provider.info(), runs, options.threshold, results, started.elapsed());
    report.stopped = stop.is_cancelled();
    Ok(report)
}

#[allow(clippy::too_many_arguments)]
async fn run_once(
    home: &SkilldeckHome,
    registry: &Arc<SkillRegistry>,
    provider: &Arc<dyn Provider>,
    opts: &SessionOptions,
    skill: &str,
    query: &str,
    options: TriggerOptions,
    user_stop: &CancellationToken,
) -> Result<Run, EvalError> {
    let workspace = tempfile::Builder::new().prefix("skilldeck-eval-").tempdir().map_err(EvalError::Scratch)?;
    let mut session =
        Session::create(home, Arc::clone(registry), workspace.path(), Arc::clone(provider), opts.clone())?;
    // Cancelled when the skill loads, or when the user stops the whole eval.
    let stop = user_stop.child_token();
    let host = RunHost::new(skill, options.allow_shell, Some(stop.clone()));
    let ended = tokio::time::timeout(options.run_timeout, session.run_turn(query, &host, &stop)).await;
    let error = match ended {
        Err(_) => Some(format!("the run took longer than {} s", options.run_timeout.as_secs())),
        Ok(Err(e)) => Some(e.to_string()),
        Ok(Ok(TurnEnd::Failed { message })) => Some(message),
        Ok(Ok(_)) => None,
    };
    let loaded = host.loaded();
    let triggered = loaded.iter().any(|l| l == skill);
    // Each other skill counts once a run, however often it was loaded in it.
    let mut instead: Vec<String> = if triggered { Vec::new() } else { loaded };
    instead.sort_unstable();
    instead.dedup();
    Ok(Run { triggered, instead, refused: host.refused(), session: Some(session.id().to_owned()), error })
}

fn summarise(
    skill: &str,
    provider: ProviderInfo,
    runs: usize,
    threshold: f64,
    results: Vec<QueryResult>,
    took: Duration,
) -> TriggerReport {
    let triggered = |r: &&QueryResult| r.trigger_rate >= threshold;
    let fired = results.iter().filter(triggered).count();
    let true_positives = results.iter().filter(triggered).filter(|r| r.should_trigger).count();
    let should = results.iter().filter(|r| r.should_trigger).count();
    let share = |part: usize, whole: usize| (whole > 0).then(|| part as f64 / whole as f64);
    let range = |want: bool| {
        let rates: Vec<f64> = results.iter().filter(|r| r.should_trigger == want).map(|r| r.trigger_rate).collect();
        let low = rates.iter().copied().reduce(f64::min)?;
        let high = rates.iter().copied().reduce(f64::max)?;
        Some([low, high])
    };
    TriggerReport {
        skill: skill.to_owned(),
        provider,
        runs,
        threshold,
        passed: results.iter().filter(|r| r.passed).count(),
        total: results.len(),
        precision: share(true_positives, fired),
        recall: share(true_positives, should),
        spread: Spread { should: range(true), should_not: range(false) },
        results,
        seconds: took.as_secs_f64(),
        stopped: false,
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn result(should: bool, rate: f64) -> QueryResult {
        QueryResult {
            query: "q".into(),
            should_trigger: should,
            triggers: 0,
            runs: 2,
            trigger_rate: rate,
            passed: (rate >= 0.5) == should,
            loaded_instead: BTreeMap::new(),
            errors: Vec::new(),
            refused_commands: 0,
            sessions: Vec::new(),
        }
    }

    #[test]
    fn precision_recall_and_spread_follow_the_guides_rule() {
        let info = ProviderInfo { kind: "openai".into(), model: "m".into(), label: "m".into() };
        let results = vec![result(true, 1.0), result(true, 0.0), result(false, 0.5), result(false, 0.0)];
        let r = summarise("s", info, 2, 0.5, results, Duration::from_secs(1));
        assert_eq!((r.passed, r.total), (2, 4));
        assert_eq!(r.precision, Some(0.5));
        assert_eq!(r.recall, Some(0.5));
        assert_eq!(r.spread.should, Some([0.0, 1.0]));
        assert_eq!(r.spread.should_not, Some([0.0, 0.5]));
    }
}
