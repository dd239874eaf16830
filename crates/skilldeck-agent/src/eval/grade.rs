//! Grading one run of an output eval: each expectation PASS or FAIL with evidence, in the
//! guide's `grading.json` shape. By a grader model (one request with no tools: the task, the
//! agent's answer, the files it produced, the expectations) or by a check script of the skill,
//! run in the session's sandbox in the run's workspace, only when the user allowed commands.

use super::cases::EvalCase;
use crate::message::{Message, ModelRequest};
use crate::provider::{self, Provider};
use crate::tools::sandbox::ShellSandbox;
use crate::tools::shell::{self, ShellLimits};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::path::Path;
use tokio_util::sync::CancellationToken;

/// The most bytes of one output file the grader model is shown.
const FILE_BYTES: usize = 16 * 1024;

/// The most bytes of output files the grader model is shown in all.
const ALL_FILES_BYTES: usize = 64 * 1024;

/// The most characters of the grader's answer read: verdicts for any case fit well within it,
/// and a model that never stops is cut off there.
const ANSWER_CHARS: usize = 256 * 1024;

/// Where a check script and what it reads are put in the run's workspace.
pub const CHECK_DIR: &str = ".skilldeck-eval";

/// One expectation, graded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Graded {
    /// The expectation.
    pub text: String,
    /// Whether the output meets it.
    pub passed: bool,
    /// What in the output shows it, quoted or named.
    pub evidence: String,
}

/// The guide's `summary`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct GradingSummary {
    /// Expectations met.
    pub passed: usize,
    /// Expectations not met.
    pub failed: usize,
    /// Expectations in all.
    pub total: usize,
    /// `passed / total` (0 with none).
    pub pass_rate: f64,
}

/// The guide's `grading.json`, with who graded.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Grading {
    /// Each expectation.
    pub expectations: Vec<Graded>,
    /// The counts.
    pub summary: GradingSummary,
    /// Who graded: the grader model's label, or `check: PATH`.
    pub grader: String,
}

impl Grading {
    fn of(expectations: Vec<Graded>, grader: String) -> Self {
        let passed = expectations.iter().filter(|g| g.passed).count();
        let total = expectations.len();
        let pass_rate = if total == 0 { 0.0 } else { passed as f64 / total as f64 };
        Self { summary: GradingSummary { passed, failed: total - passed, total, pass_rate }, expectations, grader }
    }

    /// Every expectation failed for one reason (the run or the grader could not do its part).
    pub fn all_failed(expectations: &[String], why: &str, grader: String) -> Self {
        let graded =
            expectations.iter().map(|t| Graded { text: t.clone(), passed: false, evidence: why.to_owned() }).collect();
        Self::of(graded, grader)
    }
}

/// What one run produced, for grading.
#[derive(Debug, Clone, Copy)]
pub struct RunOutput<'a> {
    /// The agent's last answer.
    pub response: &'a str,
    /// The files it wrote or changed, by their path in the workspace.
    pub files: &'a [(String, Vec<u8>)],
}

const GRADER_SYSTEM: &str = "You grade the work of an AI agent against a list of expectations. For each \
expectation decide whether the agent's answer and files meet it. Require concrete evidence for a pass: quote or \
name what in the output shows it; a heading with no substance under it is a fail, and so is anything you cannot \
see in the output. Answer with JSON only, no other text, in this shape: {\"expectations\": [{\"text\": \"the \
expectation\", \"passed\": true, \"evidence\": \"what shows it\"}]}, one entry per expectation, in the order given.";

/// The request the grader model gets for `case` and `out`.
pub fn grader_request(case: &EvalCase, expectations: &[String], out: RunOutput<'_>) -> ModelRequest {
    let mut user = format!("## The task the agent was given\n\n{}\n\n", case.prompt.trim());
    if !case.expected_output.trim().is_empty() {
        user.push_str(&format!("## What success looks like\n\n{}\n\n", case.expected_output.trim()));
    }
    user.push_str(&format!(
        "## The agent's answer\n\n{}\n\n",
        if out.response.trim().is_empty() { "(none)" } else { out.response.trim() }
    ));
    user.push_str("## The files the agent wrote or changed\n\n");
    if out.files.is_empty() {
        user.push_str("(none)\n\n");
    }
    let mut shown = 0usize;
    for (path, bytes) in out.files {
        match std::str::from_utf8(bytes) {
            Ok(text) if shown < ALL_FILES_BYTES => {
                let mut end = text.len().min(FILE_BYTES).min(ALL_FILES_BYTES - shown);
                while !text.is_char_boundary(end) {
                    end -= 1;
                }
                shown += end;
                let cut = if end < text.len() {
                    format!("\n… ({} more bytes not shown)", text.len() - end)
                } else {
                    String::new()
                };
                user.push_str(&format!("### {path} ({} bytes)\n\n```\n{}{cut}\n```\n\n", bytes.len(), &text[..end]));
            }
            Ok(_) => user.push_str(&format!(
                "### {path} ({} bytes; not shown: the files shown reached the limit)\n\n",
                bytes.len()
            )),
            Err(_) => user.push_str(&format!("### {path} ({} bytes of binary data)\n\n", bytes.len())),
        }
    }
    user.push_str("## The expectations\n\n");
    for (i, e) in expectations.iter().enumerate() {
        user.push_str(&format!("{}. {e}\n", i + 1));
    }
    ModelRequest { system: GRADER_SYSTEM.to_owned(), messages: vec![Message::user(&user)], tools: Vec::new() }
}

/// Grades `expectations` with the grader model. A grader that cannot be reached or answers
/// out of shape fails every expectation, saying so in the evidence.
pub async fn by_model(
    grader: &dyn Provider,
    case: &EvalCase,
    expectations: &[String],
    out: RunOutput<'_>,
    cancel: &CancellationToken,
) -> Grading {
    let label = grader.info().label;
    let request = grader_request(case, expectations, out);
    match provider::complete(grader, &request, cancel, Some(ANSWER_CHARS)).await {
        Ok(answer) => read_verdicts(&answer.text, expectations, label),
        Err(e) => Grading::all_failed(expectations, &format!("not graded: the grader model failed: {e}"), label),
    }
}

/// The verdicts in a grader's `answer`: the first JSON object in it, its `expectations` matched
/// to `expectations` by order (or by text). Accepts `"passed": true` or `"verdict": "PASS"`.
pub fn read_verdicts(answer: &str, expectations: &[String], grader: String) -> Grading {
    let unread = |why: String| Grading::all_failed(expectations, &why, grader.clone());
    let (Some(start), Some(end)) = (answer.find('{'), answer.rfind('}')) else {
        return unread(format!("not graded: the grader's answer holds no JSON: {}", clip(answer)));
    };
    let parsed: Value = match serde_json::from_str(&answer[start..=end]) {
        Ok(v) => v,
        Err(e) => return unread(format!("not graded: the grader's JSON could not be read ({e}): {}", clip(answer))),
    };
    let verdicts: Vec<&Value> =
        parsed.get("expectations").and_then(Value::as_array).map(|a| a.iter().collect()).unwrap_or_default();
    let by_text = |text: &str| verdicts.iter().copied().find(|v| v.get("text").and_then(Value::as_str) == Some(text));
    let graded = expectations
        .iter()
        .enumerate()
        .map(|(i, text)| {
            let v = by_text(text).or_else(|| (verdicts.len() == expectations.len()).then(|| verdicts[i]));
            let Some(v) = v else {
                return Graded {
                    text: text.clone(),
                    passed: false,
                    evidence: "not graded: the grader said nothing of it".into(),
                };
            };
            let passed = v.get("passed").and_then(Value::as_bool).unwrap_or_else(|| {
                v.get("verdict").and_then(Value::as_str).is_some_and(|s| s.eq_ignore_ascii_case("pass"))
            });
            let evidence = v.get("evidence").and_then(Value::as_str).unwrap_or("").trim().to_owned();
            Graded { text: text.clone(), passed, evidence }
        })
        .collect();
    Grading::of(graded, grader)
}

/// Grades with the case's check script: `script` (its bytes) is put in `workspace` under
/// [`CHECK_DIR`] beside `expectations.json` and `response.md`, and run there in `sandbox`; it
/// prints the guide's grading JSON (`{"expectations": [{"text", "passed", "evidence"}]}`).
/// Runs only when `allowed` (the user passed `--yes`); otherwise every expectation fails,
/// saying the script was not run and why.
#[allow(clippy::too_many_arguments)]
pub async fn by_script(
    sandbox: &ShellSandbox,
    workspace: &Path,
    path: &str,
    script: &[u8],
    expectations: &[String],
    response: &str,
    allowed: bool,
    cancel: &CancellationToken,
) -> Grading {
    let label = format!("check: {path}");
    if !allowed {
        let why = format!(
            "not graded: the check script {path} is code of the skill and runs only with --yes (in the sandbox: {})",
            sandbox.describe()
        );
        return Grading::all_failed(expectations, &why, label);
    }
    let dir = workspace.join(CHECK_DIR);
    if let Err(e) = stage(&dir, script, expectations, response) {
        return Grading::all_failed(
            expectations,
            &format!("not graded: the check script could not be staged: {e}"),
            label,
        );
    }
    let command = format!("./{CHECK_DIR}/check");
    let result = shell::run(sandbox, workspace, &command, ShellLimits::default(), cancel).await;
    let _ = std::fs::remove_dir_all(&dir);
    match result {
        Ok(out) => {
            let stdout = out.get("stdout").and_then(Value::as_str).unwrap_or_default();
            let code = out.get("exitCode").and_then(Value::as_i64);
            if code != Some(0) {
                let stderr = out.get("stderr").and_then(Value::as_str).unwrap_or_default();
                let why = format!("not graded: the check script {path} exited with {code:?}: {}", clip(stderr));
                return Grading::all_failed(expectations, &why, label);
            }
            read_verdicts(stdout, expectations, label)
        }
        Err(e) => Grading::all_failed(expectations, &format!("not graded: the check script could not run: {e}"), label),
    }
}

/// Writes the check script and what it reads into `dir`, a folder of the run's workspace. What
/// the run left at that name (a file, a folder, a link to anywhere) is removed first, never
/// followed, and the folder and its files are made anew (`create_dir`, `create_new`), so a link
/// planted by the run cannot send these writes outside the workspace.
fn stage(dir: &Path, script: &[u8], expectations: &[String], response: &str) -> std::io::Result<()> {
    use std::io::Write as _;
    use std::os::unix::fs::OpenOptionsExt as _;
    match std::fs::symlink_metadata(dir) {
        Ok(m) if m.is_dir() => std::fs::remove_dir_all(dir)?,
        Ok(_) => std::fs::remove_file(dir)?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(e),
    }
    std::fs::create_dir(dir)?;
    let write = |name: &str, bytes: &[u8], mode: u32| {
        std::fs::OpenOptions::new().write(true).create_new(true).mode(mode).open(dir.join(name))?.write_all(bytes)
    };
    write("check", script, 0o755)?;
    write("expectations.json", &serde_json::to_vec(expectations)?, 0o644)?;
    write("response.md", response.as_bytes(), 0o644)
}

fn clip(s: &str) -> String {
    let s = s.trim();
    let mut out: String = s.chars().take(200).collect();
    if out.len() < s.len() {
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn a_link_the_run_left_where_the_check_script_goes_is_removed_not_followed() {
        let ws = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let dir = ws.path().join(CHECK_DIR);
        std::os::unix::fs::symlink(outside.path(), &dir).unwrap();
        stage(&dir, b"#!/bin/sh\n", &["x".into()], "answer").unwrap();
        assert_eq!(std::fs::read_dir(outside.path()).unwrap().count(), 0, "nothing was written outside");
        assert!(std::fs::symlink_metadata(&dir).unwrap().is_dir());
        assert_eq!(std::fs::read(dir.join("check")).unwrap(), b"#!/bin/sh\n");
        // A folder of the run's own at that name is replaced too.
        std::fs::write(dir.join("check"), "planted").unwrap();
        stage(&dir, b"#!/bin/sh\n", &[], "").unwrap();
        assert_eq!(std::fs::read(dir.join("check")).unwrap(), b"#!/bin/sh\n");
    }

    #[test]
    fn verdicts_are_read_by_order_or_text_and_an_unreadable_answer_fails_every_one() {
        let exp = vec!["has a chart".to_owned(), "names March".to_owned()];
        let g = read_verdicts(
            "Here you go:\n{\"expectations\": [{\"text\": \"names March\", \"passed\": true, \"evidence\": \"'March' in line 2\"},\
             {\"text\": \"has a chart\", \"verdict\": \"FAIL\", \"evidence\": \"no image\"}]}",
            &exp,
            "m".into(),
        );
        assert_eq!(g.summary.passed, 1);
        assert!(!g.expectations[0].passed);
        assert_eq!(g.expectations[1].evidence, "'March' in line 2");
        let bad = read_verdicts("PASS, both", &exp, "m".into());
        assert_eq!(bad.summary.failed, 2);
        assert!(bad.expectations[0].evidence.contains("holds no JSON"));
    }
}
