//! Output evals: each case of `evals/evals.json` run through this agent loop with the skill and
//! with a baseline (no skill, or an older revision), each run a fresh session in a fresh
//! scratch workspace holding the case's input files, then graded expectation by expectation.
//! Everything is written in the guide's workspace layout, so other tools can read it:
//!
//! ```text
//! ITERATION/eval-ID/with_skill|without_skill|old_skill/[run-K/]
//!     outputs/        the files the run wrote or changed
//!     response.md     the agent's last answer
//!     timing.json     total_tokens, duration_ms (and what Skilldeck adds)
//!     grading.json    each expectation with passed and evidence, and the summary
//! ITERATION/benchmark.json   the guide's run_summary, and each run's figures
//! ```
//!
//! (`run-K/` only when a case runs more than once.) A run is bounded by a wall time and a
//! token cap; it past either is stopped and graded on what it left.

use super::cases::EvalCase;
use super::grade::{self, Grading, RunOutput};
use super::host::RunHost;
use super::triggers::EvalError;
use crate::message::Message;
use crate::provider::{Provider, ProviderInfo};
use crate::session::{Session, SessionOptions};
use crate::transcript::TurnEnd;
use serde::Serialize;
use skilldeck_core::SkillRegistry;
use skilldeck_skill::SkillFiles;
use skilldeck_store::SkilldeckHome;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;

/// Runs a case by default in each configuration.
pub const DEFAULT_OUTPUT_RUNS: u16 = 1;

/// The most model calls one run may make.
const MAX_STEPS: usize = 24;

/// The most bytes of output files kept from one run.
const MAX_OUTPUT_BYTES: u64 = 64 * 1024 * 1024;

/// What a configuration runs with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ArmKind {
    /// The skill as it is now.
    WithSkill,
    /// No skill at all.
    WithoutSkill,
    /// An older revision of the skill.
    OldSkill,
}

impl ArmKind {
    /// Its folder and its key in `benchmark.json`, as the guide names them.
    pub fn label(self) -> &'static str {
        match self {
            Self::WithSkill => "with_skill",
            Self::WithoutSkill => "without_skill",
            Self::OldSkill => "old_skill",
        }
    }
}

/// One configuration: the store its sessions see.
#[derive(Clone)]
pub struct Arm {
    /// Which.
    pub kind: ArmKind,
    /// The store around the runs: the skill alone (at the revision evaluated or the older
    /// one), or nothing.
    pub registry: Arc<SkillRegistry>,
    /// The revision of the skill it holds, if any.
    pub revision: Option<u64>,
}

/// How output evals run.
#[derive(Debug, Clone, Copy)]
pub struct OutputOptions {
    /// Runs of each case in each configuration.
    pub runs: usize,
    /// The longest one run may take; it is stopped there and graded on what it left.
    pub run_timeout: Duration,
    /// The most tokens one run may spend.
    pub max_run_tokens: Option<u64>,
    /// Whether shell commands, risky writes and check scripts run (`--yes`).
    pub allow_shell: bool,
}

impl Default for OutputOptions {
    fn default() -> Self {
        Self {
            runs: usize::from(DEFAULT_OUTPUT_RUNS),
            run_timeout: Duration::from_secs(600),
            max_run_tokens: Some(200_000),
            allow_shell: false,
        }
    }
}

/// What the evals run on.
pub struct OutputEval<'a> {
    /// The Skilldeck home (sessions and their transcripts are kept there).
    pub home: &'a SkilldeckHome,
    /// The model the runs use.
    pub provider: Arc<dyn Provider>,
    /// The model that grades.
    pub grader: Arc<dyn Provider>,
    /// The session options of every run.
    pub opts: SessionOptions,
    /// The skill evaluated.
    pub skill: &'a str,
    /// Its files at the revision evaluated: where input files and check scripts come from.
    pub files: &'a SkillFiles,
    /// The cases.
    pub cases: &'a [EvalCase],
    /// The skill's configuration first, then the baseline.
    pub arms: Vec<Arm>,
    /// The iteration folder to write (made by [`next_iteration`]).
    pub iteration: PathBuf,
    /// Bounds and permissions.
    pub options: OutputOptions,
    /// Ends the iteration early: the run under way is stopped and graded, no other starts.
    pub stop: CancellationToken,
}

/// The guide's `timing.json`, with what Skilldeck adds.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Timing {
    /// Request and reply tokens of every model call of the run (the grader's not counted).
    pub total_tokens: u64,
    /// The run's wall time.
    pub duration_ms: u64,
    /// Request tokens.
    pub input_tokens: u64,
    /// Reply tokens.
    pub output_tokens: u64,
    /// Whether some of the counts are estimates (a provider that reports none).
    pub tokens_estimated: bool,
}

/// One run, as reported.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunRecord {
    /// The case's folder (`eval-ID`).
    pub eval: String,
    /// The configuration.
    pub configuration: ArmKind,
    /// 1-based.
    pub run: usize,
    /// Its folder, relative to the iteration.
    pub dir: String,
    /// Time and tokens.
    pub timing: Timing,
    /// Its grading.
    pub grading: Grading,
    /// Whether the model loaded the skill in the run.
    pub skill_loaded: bool,
    /// How the turn ended (`answered`, `step_limit`, `failed` with why, `cancelled`).
    pub end: TurnEnd,
    /// Whether the run was stopped at its wall time.
    pub timed_out: bool,
    /// Shell commands and writes refused because no one was there to approve them.
    pub refused_commands: usize,
    /// The run's session (`skilldeck sessions`), the evidence of what it did.
    pub session: String,
}

/// A mean and its spread.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Stat {
    /// The mean.
    pub mean: f64,
    /// The sample standard deviation (0 for one value).
    pub stddev: f64,
}

impl Stat {
    fn of(values: &[f64]) -> Self {
        let n = values.len() as f64;
        if values.is_empty() {
            return Self { mean: 0.0, stddev: 0.0 };
        }
        let mean = values.iter().sum::<f64>() / n;
        let var =
            if values.len() > 1 { values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0) } else { 0.0 };
        Self { mean, stddev: var.sqrt() }
    }
}

/// One configuration's figures in `run_summary`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ArmSummary {
    /// Each run's share of expectations met.
    pub pass_rate: Stat,
    /// Each run's wall time.
    pub time_seconds: Stat,
    /// Each run's tokens.
    pub tokens: Stat,
}

/// What the skill changes: its configuration's means less the baseline's.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Delta {
    /// Pass rate gained.
    pub pass_rate: f64,
    /// Seconds it costs.
    pub time_seconds: f64,
    /// Tokens it costs.
    pub tokens: f64,
}

/// The whole iteration: `benchmark.json`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OutputReport {
    /// The guide's aggregate: each configuration's figures and the `delta`.
    pub run_summary: BTreeMap<String, serde_json::Value>,
    /// The skill.
    pub skill: String,
    /// The revision evaluated.
    pub revision: Option<u64>,
    /// The baseline: `without_skill` or `old_skill`, and its revision.
    pub baseline: ArmKind,
    /// The baseline's revision, for `old_skill`.
    pub baseline_revision: Option<u64>,
    /// Who ran the cases.
    pub provider: ProviderInfo,
    /// Who graded them (check scripts say so in their grading).
    pub grader: ProviderInfo,
    /// Runs of each case in each configuration.
    pub runs_per_eval: usize,
    /// Every run.
    pub runs: Vec<RunRecord>,
    /// The iteration's folder.
    pub iteration: PathBuf,
    /// Seconds the whole iteration took.
    pub seconds: f64,
    /// Whether the user stopped it before every run was made.
    pub stopped: bool,
}

impl OutputReport {
    /// A configuration's summary, worked out from its runs.
    pub fn summary(&self, kind: ArmKind) -> Option<ArmSummary> {
        summarise(&self.runs, kind)
    }
}

/// Makes and returns the next `iteration-N` folder under `root` (made too when missing).
pub fn next_iteration(root: &Path) -> std::io::Result<PathBuf> {
    std::fs::create_dir_all(root)?;
    let highest = std::fs::read_dir(root)?
        .filter_map(|e| e.ok()?.file_name().to_str()?.strip_prefix("iteration-")?.parse::<u32>().ok())
        .max()
        .unwrap_or(0);
    let mut n = highest + 1;
    loop {
        let dir = root.join(format!("iteration-{n}"));
        match std::fs::create_dir(&dir) {
            Ok(()) => return Ok(dir),
            // Another run took it first.
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => n += 1,
            Err(e) => return Err(e),
        }
    }
}

/// Runs every case in every configuration, grades each run and writes the iteration.
/// `progress` hears `(runs done, runs in all, what runs next)`.
pub async fn run_outputs(
    eval: OutputEval<'_>,
    progress: &(dyn Fn(usize, usize, &str) + Sync),
) -> Result<OutputReport, EvalError> {
    let started = Instant::now();
    let mut opts = eval.opts.clone();
    opts.max_steps = opts.max_steps.clamp(1, MAX_STEPS);
    opts.max_turn_tokens = eval.options.max_run_tokens;
    let runs = eval.options.runs.max(1);
    let total = eval.cases.len() * eval.arms.len() * runs;
    let mut records = Vec::with_capacity(total);
    for case in eval.cases {
        for arm in &eval.arms {
            for run in 1..=runs {
                if eval.stop.is_cancelled() {
                    break;
                }
                let mut dir = PathBuf::from(case.folder()).join(arm.kind.label());
                if runs > 1 {
                    dir.push(format!("run-{run}"));
                }
                progress(records.len(), total, &format!("{} {} run {run}", case.folder(), arm.kind.label()));
                let record = run_once(&eval, &opts, case, arm, run, &dir).await?;
                write_json(&eval.iteration.join(&dir).join("timing.json"), &record.timing)?;
                write_json(&eval.iteration.join(&dir).join("grading.json"), &record.grading)?;
                records.push(record);
            }
        }
    }
    progress(total, total, "");
    let baseline = eval.arms.get(1).map_or(ArmKind::WithoutSkill, |a| a.kind);
    let mut run_summary = BTreeMap::new();
    for arm in &eval.arms {
        if let Some(s) = summarise(&records, arm.kind) {
            run_summary.insert(arm.kind.label().to_owned(), serde_json::to_value(s).map_err(json_error)?);
        }
    }
    if let (Some(with), Some(base)) = (summarise(&records, ArmKind::WithSkill), summarise(&records, baseline)) {
        let delta = Delta {
            pass_rate: with.pass_rate.mean - base.pass_rate.mean,
            time_seconds: with.time_seconds.mean - base.time_seconds.mean,
            tokens: with.tokens.mean - base.tokens.mean,
        };
        run_summary.insert("delta".to_owned(), serde_json::to_value(delta).map_err(json_error)?);
    }
    let report = OutputReport {
        run_summary,
        skill: eval.skill.to_owned(),
        revision: eval.arms.first().and_then(|a| a.revision),
        baseline,
        baseline_revision: eval.arms.get(1).and_then(|a| a.revision),
        provider: eval.provider.info(),
        grader: eval.grader.info(),
        runs_per_eval: runs,
        runs: records,
        iteration: eval.iteration.clone(),
        seconds: started.elapsed().as_secs_f64(),
        stopped: eval.stop.is_cancelled(),
    };
    write_json(&eval.iteration.join("benchmark.json"), &report)?;
    Ok(report)
}

fn summarise(records: &[RunRecord], kind: ArmKind) -> Option<ArmSummary> {
    let mine: Vec<&RunRecord> = records.iter().filter(|r| r.configuration == kind).collect();
    if mine.is_empty() {
        return None;
    }
    let of = |f: fn(&RunRecord) -> f64| Stat::of(&mine.iter().map(|r| f(r)).collect::<Vec<_>>());
    Some(ArmSummary {
        pass_rate: of(|r| r.grading.summary.pass_rate),
        time_seconds: of(|r| r.timing.duration_ms as f64 / 1000.0),
        tokens: of(|r| r.timing.total_tokens as f64),
    })
}

async fn run_once(
    eval: &OutputEval<'_>,
    opts: &SessionOptions,
    case: &EvalCase,
    arm: &Arm,
    run: usize,
    dir: &Path,
) -> Result<RunRecord, EvalError> {
    let out_dir = eval.iteration.join(dir);
    std::fs::create_dir_all(out_dir.join("outputs")).map_err(EvalError::Scratch)?;
    let workspace = tempfile::Builder::new().prefix("skilldeck-eval-").tempdir().map_err(EvalError::Scratch)?;
    let mut inputs = BTreeMap::new();
    for file in &case.files {
        let Some(bytes) = eval.files.get(file) else {
            return Err(EvalError::Case(format!(
                "{}: the input file {file} is not in {} (put it in the skill, under evals/files/)",
                case.folder(),
                eval.skill
            )));
        };
        let placed = EvalCase::placed(file);
        let path = workspace.path().join(placed);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(EvalError::Scratch)?;
        }
        std::fs::write(&path, bytes).map_err(EvalError::Scratch)?;
        inputs.insert(placed.to_owned(), bytes.to_vec());
    }
    let mut session = Session::create(
        eval.home,
        Arc::clone(&arm.registry),
        workspace.path(),
        Arc::clone(&eval.provider),
        opts.clone(),
    )?;
    let host = RunHost::new(eval.skill, eval.options.allow_shell, None);
    // Cancelled at the run's wall time, or when the user stops the iteration.
    let stop = eval.stop.child_token();
    let timer = tokio::spawn({
        let stop = stop.clone();
        let limit = eval.options.run_timeout;
        async move {
            tokio::time::sleep(limit).await;
            stop.cancel();
        }
    });
    let began = Instant::now();
    let end = session.run_turn(&case.prompt, &host, &stop).await;
    let took = began.elapsed();
    timer.abort();
    let timed_out = stop.is_cancelled() && !eval.stop.is_cancelled();
    let end = match end {
        Ok(end) => end,
        Err(e) => TurnEnd::Failed { message: e.to_string() },
    };
    let usage = session.usage();
    let response = last_answer(session.history());
    let files = produced(workspace.path(), &inputs);
    std::fs::write(out_dir.join("response.md"), &response).map_err(EvalError::Scratch)?;
    for (path, bytes) in &files {
        let dest = out_dir.join("outputs").join(path);
        if let Some(parent) = dest.parent() {
            std::fs::create_dir_all(parent).map_err(EvalError::Scratch)?;
        }
        std::fs::write(dest, bytes).map_err(EvalError::Scratch)?;
    }
    let expectations = case.graded();
    let output = RunOutput { response: &response, files: &files };
    let never = CancellationToken::new();
    let grading = match &case.check {
        Some(path) => {
            let script = eval.files.get(path).unwrap_or_default();
            grade::by_script(
                session.shell_sandbox(),
                workspace.path(),
                path,
                script,
                &expectations,
                &response,
                eval.options.allow_shell,
                &never,
            )
            .await
        }
        None => grade::by_model(eval.grader.as_ref(), case, &expectations, output, &never).await,
    };
    Ok(RunRecord {
        eval: case.folder(),
        configuration: arm.kind,
        run,
        dir: dir.to_string_lossy().into_owned(),
        timing: Timing {
            total_tokens: usage.total(),
            duration_ms: u64::try_from(took.as_millis()).unwrap_or(u64::MAX),
            input_tokens: usage.input_tokens,
            output_tokens: usage.output_tokens,
            tokens_estimated: usage.estimated_calls > 0,
        },
        grading,
        skill_loaded: host.loaded().iter().any(|l| l == eval.skill),
        end,
        timed_out,
        refused_commands: host.refused(),
        session: session.id().to_owned(),
    })
}

/// The model's last answer in `history`.
fn last_answer(history: &[Message]) -> String {
    history
        .iter()
        .rev()
        .find_map(|m| match m {
            Message::Assistant { content, .. } if !content.trim().is_empty() => Some(content.clone()),
            _ => None,
        })
        .unwrap_or_default()
}

/// The files of `workspace` the run wrote or changed: not the mounted skills, not an input
/// file left as it was, no link; at most [`MAX_OUTPUT_BYTES`] in all.
fn produced(workspace: &Path, inputs: &BTreeMap<String, Vec<u8>>) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut kept = 0u64;
    let mut stack = vec![PathBuf::new()];
    while let Some(rel) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(workspace.join(&rel)) else { continue };
        let mut entries: Vec<_> = entries.filter_map(Result::ok).collect();
        entries.sort_by_key(|e| e.file_name());
        for entry in entries {
            let Ok(kind) = entry.file_type() else { continue };
            let path = rel.join(entry.file_name());
            let Some(name) = path.to_str().map(str::to_owned) else { continue };
            if rel.as_os_str().is_empty() && (name == skilldeck_mount::mount::MOUNT_DIR || name == grade::CHECK_DIR) {
                continue;
            }
            if kind.is_dir() {
                stack.push(path);
            } else if kind.is_file() {
                let Ok(meta) = entry.metadata() else { continue };
                if kept + meta.len() > MAX_OUTPUT_BYTES {
                    continue;
                }
                let Ok(bytes) = std::fs::read(entry.path()) else { continue };
                if inputs.get(&name).is_some_and(|b| *b == bytes) {
                    continue;
                }
                kept += meta.len();
                out.push((name, bytes));
            }
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

fn write_json(path: &Path, value: &impl Serialize) -> Result<(), EvalError> {
    let mut bytes = serde_json::to_vec_pretty(value).map_err(json_error)?;
    bytes.push(b'\n');
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(EvalError::Scratch)?;
    }
    std::fs::write(path, bytes).map_err(EvalError::Scratch)
}

fn json_error(e: serde_json::Error) -> EvalError {
    EvalError::Scratch(std::io::Error::other(e))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn iterations_count_up_and_the_spread_is_the_samples() {
        let root = tempfile::tempdir().unwrap();
        assert!(next_iteration(root.path()).unwrap().ends_with("iteration-1"));
        std::fs::create_dir(root.path().join("iteration-7")).unwrap();
        assert!(next_iteration(root.path()).unwrap().ends_with("iteration-8"));
        let s = Stat::of(&[1.0, 0.0]);
        assert_eq!(s.mean, 0.5);
        assert!((s.stddev - std::f64::consts::FRAC_1_SQRT_2).abs() < 1e-9);
        assert_eq!(Stat::of(&[0.5]).stddev, 0.0);
    }

    #[test]
    fn outputs_leave_out_the_mount_and_unchanged_inputs() {
        let ws = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(ws.path().join(".skills/s")).unwrap();
        std::fs::write(ws.path().join(".skills/s/SKILL.md"), "x").unwrap();
        std::fs::create_dir_all(ws.path().join("data")).unwrap();
        std::fs::write(ws.path().join("data/in.csv"), "a,b").unwrap();
        std::fs::write(ws.path().join("data/changed.csv"), "new").unwrap();
        std::fs::write(ws.path().join("chart.svg"), "<svg/>").unwrap();
        let inputs = BTreeMap::from([
            ("data/in.csv".to_owned(), b"a,b".to_vec()),
            ("data/changed.csv".to_owned(), b"old".to_vec()),
        ]);
        let names: Vec<String> = produced(ws.path(), &inputs).into_iter().map(|(n, _)| n).collect();
        assert_eq!(names, ["chart.svg", "data/changed.csv"]);
    }
}
