//! What the audit reports: findings (rule, severity, file and line, evidence shown safely, why
//! it matters) and a report per skill. Holds the values and their summary; no matching.

use crate::rules::Rule;
use serde::Serialize;
use sha2::{Digest as _, Sha256};
use skilldeck_skill::risk::{RiskLevel, RiskMark, RiskSummary};

/// One finding.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct Finding {
    /// The rule's id.
    pub rule: &'static str,
    /// How serious it is.
    pub severity: RiskLevel,
    /// The rule's title.
    pub title: &'static str,
    /// The file, relative to the skill's folder.
    pub file: String,
    /// The line, from 1, when the finding has one.
    pub line: Option<u32>,
    /// What was found, safe to show: invisible characters written as `<U+XXXX>`, long text cut.
    pub evidence: String,
    /// Text a reader cannot see, decoded (tag characters, an HTML comment's text).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hidden: Option<String>,
    /// Why it matters and what to check.
    pub why: &'static str,
    /// What an approval binds: the rule, the file and the evidence, hashed.
    pub fingerprint: String,
}

impl Finding {
    /// A finding of `rule` in `file`, at the rule's severity, or one level lower in a test or
    /// fixture file ([`is_test_file`]).
    pub fn new(rule: &'static Rule, file: &str, line: Option<u32>, evidence: String, hidden: Option<String>) -> Self {
        Self::at(rule, rule.severity, file, line, evidence, hidden)
    }

    /// The same at `level` rather than the rule's own (a rule the table rates higher in a
    /// script, a check that knows more than its rule's default), one level lower in a test or
    /// fixture file.
    pub fn at(
        rule: &'static Rule,
        level: RiskLevel,
        file: &str,
        line: Option<u32>,
        evidence: String,
        hidden: Option<String>,
    ) -> Self {
        let mut h = Sha256::new();
        for part in [rule.id, file, &evidence] {
            h.update(part.as_bytes());
            h.update([0]);
        }
        let fingerprint = h.finalize().iter().take(8).map(|b| format!("{b:02x}")).collect();
        Self {
            rule: rule.id,
            severity: if is_test_file(file) { level.one_lower() } else { level },
            title: rule.title,
            file: file.to_owned(),
            line,
            evidence,
            hidden,
            why: rule.why,
            fingerprint,
        }
    }
}

/// Whether `file` (relative, `/`-separated) is a test or a fixture: under `test/`, `tests/`,
/// `__tests__/`, `spec/`, `fixtures/` or `testdata/`, or named `*.test.*`, `*.spec.*`,
/// `*_test.*` or `test_*`. What is found there counts one level lower: it is what the author's
/// own test suite runs (security tools keep their attack samples there), not what the skill tells
/// an agent to run. Measured on 20,000 public skills, most high findings in such files were a
/// scanner's own samples.
pub fn is_test_file(file: &str) -> bool {
    const FOLDERS: [&str; 7] = ["test", "tests", "__tests__", "spec", "fixtures", "fixture", "testdata"];
    let mut parts = file.split('/');
    let name = parts.next_back().unwrap_or_default();
    if parts.any(|p| FOLDERS.contains(&p)) {
        return true;
    }
    let stem = name.split('.').next().unwrap_or_default();
    name.starts_with("test_")
        || stem.ends_with("_test")
        || name.split('.').skip(1).any(|part| part == "test" || part == "spec")
}

/// What the audit found in one skill.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Report {
    /// Every finding, most serious first, then by file and line.
    pub findings: Vec<Finding>,
    /// How many files were read.
    pub files: usize,
    /// How many bytes they held.
    pub bytes: u64,
}

impl Report {
    /// The most serious level found, if any.
    pub fn worst(&self) -> Option<RiskLevel> {
        self.findings.iter().map(|f| f.severity).max()
    }

    /// Counts by level and the marks of findings at medium or above, as the catalogue keeps them.
    pub fn summary(&self) -> RiskSummary {
        let mut counts = [0u32; 5];
        for f in &self.findings {
            counts[f.severity as usize] += 1;
        }
        let marks = self
            .findings
            .iter()
            .filter(|f| f.severity >= RiskLevel::Medium)
            .map(|f| RiskMark {
                rule: f.rule.to_owned(),
                severity: f.severity,
                file: f.file.clone(),
                line: f.line,
                fingerprint: f.fingerprint.clone(),
            })
            .collect();
        RiskSummary { counts, marks }
    }

    /// Sorts the findings, most serious first, then by file and line.
    pub(crate) fn sort(&mut self) {
        self.findings.sort_by(|a, b| (b.severity, &a.file, a.line, a.rule).cmp(&(a.severity, &b.file, b.line, b.rule)));
    }
}
