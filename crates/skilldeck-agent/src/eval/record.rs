//! What each eval run of a skill found, kept per revision: one JSON line a run in
//! `evals/<scope>/<name>.jsonl` under the Skilldeck home, appended by the CLI and the app, read by
//! History ("v:3 triggers 9/10; 83% with, 33% without") and the Evals view. A line that cannot be
//! read is skipped; the log is a record, never an input to a run.

use super::outputs::{ArmKind, OutputReport};
use super::triggers::TriggerReport;
use crate::provider::ProviderInfo;
use serde::{Deserialize, Serialize};
use skilldeck_skill::Scope;
use skilldeck_store::SkilldeckHome;
use std::io::Write as _;
use std::path::PathBuf;

/// Which kind of eval.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EvalKind {
    /// Trigger queries.
    Triggers,
    /// Output cases.
    Outputs,
}

/// One eval run's result, in brief.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EvalRecord {
    /// Which kind.
    pub kind: EvalKind,
    /// The revision evaluated.
    pub revision: Option<u64>,
    /// When it finished (RFC 3339).
    pub at: String,
    /// Who answered.
    pub provider: ProviderInfo,
    /// Runs of each query or case.
    pub runs: usize,
    /// Queries passed (triggers) or with-skill expectations met (outputs).
    pub passed: usize,
    /// Queries, or with-skill expectations, in all.
    pub total: usize,
    /// Triggers: precision.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub precision: Option<f64>,
    /// Triggers: recall.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recall: Option<f64>,
    /// Outputs: the mean pass rate with the skill.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub with_skill: Option<f64>,
    /// Outputs: the baseline's mean pass rate.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline: Option<f64>,
    /// Outputs: what the baseline was (`without_skill`, or `old_skill` with its revision).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline_kind: Option<String>,
    /// Outputs: where the iteration was written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub iteration: Option<PathBuf>,
}

impl EvalRecord {
    /// The record of trigger evals of `revision`.
    pub fn of_triggers(r: &TriggerReport, revision: Option<u64>) -> Self {
        Self {
            kind: EvalKind::Triggers,
            revision,
            at: crate::transcript::now(),
            provider: r.provider.clone(),
            runs: r.runs,
            passed: r.passed,
            total: r.total,
            precision: r.precision,
            recall: r.recall,
            with_skill: None,
            baseline: None,
            baseline_kind: None,
            iteration: None,
        }
    }

    /// The record of output evals.
    pub fn of_outputs(r: &OutputReport) -> Self {
        let with: Vec<_> = r.runs.iter().filter(|x| x.configuration == ArmKind::WithSkill).collect();
        let baseline_kind = match r.baseline_revision {
            Some(rev) => format!("{} v:{rev}", r.baseline.label()),
            None => r.baseline.label().to_owned(),
        };
        Self {
            kind: EvalKind::Outputs,
            revision: r.revision,
            at: crate::transcript::now(),
            provider: r.provider.clone(),
            runs: r.runs_per_eval,
            passed: with.iter().map(|x| x.grading.summary.passed).sum(),
            total: with.iter().map(|x| x.grading.summary.total).sum(),
            precision: None,
            recall: None,
            with_skill: r.summary(ArmKind::WithSkill).map(|s| s.pass_rate.mean),
            baseline: r.summary(r.baseline).map(|s| s.pass_rate.mean),
            baseline_kind: Some(baseline_kind),
            iteration: Some(r.iteration.clone()),
        }
    }
}

/// The log of skill `name` in `scope`.
pub fn log_path(home: &SkilldeckHome, scope: Scope, name: &str) -> PathBuf {
    home.root().join("evals").join(scope.as_str()).join(format!("{name}.jsonl"))
}

/// Appends `record` to the skill's log.
pub fn append(home: &SkilldeckHome, scope: Scope, name: &str, record: &EvalRecord) -> std::io::Result<()> {
    let path = log_path(home, scope, name);
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let mut line = serde_json::to_vec(record).map_err(std::io::Error::other)?;
    line.push(b'\n');
    let mut file = std::fs::OpenOptions::new().create(true).append(true).open(&path)?;
    file.write_all(&line)
}

/// Moves the log and the app's eval workspace of skill `from` to `to`, after the skill was
/// renamed (its revisions go on, so the records still name the right ones). Returns whether
/// anything moved; a log or workspace the new name already has is left as it is, and the old
/// one with it (the caller says so).
pub fn follow_rename(home: &SkilldeckHome, scope: Scope, from: &str, to: &str) -> std::io::Result<bool> {
    let log = (log_path(home, scope, from), log_path(home, scope, to));
    let workspace =
        (log.0.with_file_name(format!("{from}-workspace")), log.0.with_file_name(format!("{to}-workspace")));
    let mut moved = false;
    for (old, new) in [log, workspace] {
        if !old.exists() {
            continue;
        }
        if new.exists() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::AlreadyExists,
                format!("{} is there already, so {} stays", new.display(), old.display()),
            ));
        }
        std::fs::rename(&old, &new)?;
        moved = true;
    }
    Ok(moved)
}

/// Every record of the skill, oldest first (none when it has no log).
pub fn read(home: &SkilldeckHome, scope: Scope, name: &str) -> Vec<EvalRecord> {
    std::fs::read_to_string(log_path(home, scope, name))
        .map(|text| text.lines().filter_map(|l| serde_json::from_str(l).ok()).collect())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn records_are_appended_and_read_back_skipping_a_broken_line() {
        let dir = tempfile::tempdir().unwrap();
        let home = SkilldeckHome::new(dir.path().to_owned());
        let info = ProviderInfo { kind: "openai".into(), model: "m".into(), label: "m".into() };
        let r = EvalRecord {
            kind: EvalKind::Triggers,
            revision: Some(3),
            at: "2026-12-07T10:00:00Z".into(),
            provider: info,
            runs: 3,
            passed: 9,
            total: 10,
            precision: Some(1.0),
            recall: Some(0.8),
            with_skill: None,
            baseline: None,
            baseline_kind: None,
            iteration: None,
        };
        append(&home, Scope::User, "s", &r).unwrap();
        let path = log_path(&home, Scope::User, "s");
        std::fs::write(&path, format!("{}not json\n", std::fs::read_to_string(&path).unwrap())).unwrap();
        append(&home, Scope::User, "s", &r).unwrap();
        assert_eq!(read(&home, Scope::User, "s"), [r.clone(), r.clone()]);
        assert!(read(&home, Scope::User, "other").is_empty());
        // A renamed skill takes its log and workspace along.
        std::fs::create_dir_all(dir.path().join("evals/user/s-workspace/iteration-1")).unwrap();
        assert!(follow_rename(&home, Scope::User, "s", "t").unwrap());
        assert_eq!(read(&home, Scope::User, "t").len(), 2);
        assert!(read(&home, Scope::User, "s").is_empty());
        assert!(dir.path().join("evals/user/t-workspace/iteration-1").is_dir());
        assert!(!follow_rename(&home, Scope::User, "s", "t").unwrap(), "nothing left to move");
        append(&home, Scope::User, "s", &r).unwrap();
        assert!(follow_rename(&home, Scope::User, "s", "t").is_err(), "t has a log already");
    }
}
