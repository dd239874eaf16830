//! The output eval cases of a skill as the agentskills.io guide writes them: `evals/evals.json`
//! inside the skill, `{"skill_name": …, "evals": [{"id", "prompt", "expected_output", "files",
//! "expectations"}]}`. Skilldeck reads two fields more: `name`, which names the case's folder
//! in the workspace, and `check`, a script of the skill that grades the case instead of the
//! grader model. Read strictly, so a typo in a field is said rather than ignored.

use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

/// Where a skill keeps its output eval cases, relative to its folder.
pub const CASES_FILE: &str = "evals/evals.json";

/// Where the guide keeps a case's input files; a file under it is placed in the run's
/// workspace without this prefix (`evals/files/data/sales.csv` → `data/sales.csv`).
pub const FILES_DIR: &str = "evals/files/";

/// A case's id: the guide's examples number them; a string is taken too.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum CaseId {
    /// `"id": 1`.
    Number(u64),
    /// `"id": "top-months"`.
    Text(String),
}

impl std::fmt::Display for CaseId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Number(n) => write!(f, "{n}"),
            Self::Text(t) => f.write_str(t),
        }
    }
}

/// One test case.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EvalCase {
    /// The case's id.
    pub id: CaseId,
    /// A short name for its folder (`eval-NAME`); the id is used without one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// What the user asks.
    pub prompt: String,
    /// What success looks like, for people and the grader.
    #[serde(default)]
    pub expected_output: String,
    /// Files of the skill the run starts with, placed in its workspace.
    #[serde(default)]
    pub files: Vec<String>,
    /// Verifiable statements about the output, each graded PASS or FAIL with evidence.
    #[serde(default)]
    pub expectations: Vec<String>,
    /// A script of the skill that grades this case (run in the sandbox), instead of the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub check: Option<String>,
}

impl EvalCase {
    /// The folder of this case in an iteration: `eval-` and its name or id, in lower-case
    /// letters, digits and hyphens.
    pub fn folder(&self) -> String {
        let raw = self.name.clone().unwrap_or_else(|| self.id.to_string());
        let mut slug = String::with_capacity(raw.len());
        for c in raw.chars() {
            if c.is_ascii_alphanumeric() {
                slug.push(c.to_ascii_lowercase());
            } else if !slug.ends_with('-') {
                slug.push('-');
            }
        }
        format!("eval-{}", slug.trim_matches('-'))
    }

    /// What is graded: the expectations, or, while none are written, the expected output as
    /// the one expectation.
    pub fn graded(&self) -> Vec<String> {
        if self.expectations.is_empty() && !self.expected_output.trim().is_empty() {
            vec![format!("The output matches what was expected: {}", self.expected_output.trim())]
        } else {
            self.expectations.clone()
        }
    }

    /// Where input file `file` goes in the run's workspace.
    pub fn placed(file: &str) -> &str {
        file.strip_prefix(FILES_DIR).unwrap_or(file)
    }
}

/// The file as a whole.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EvalCases {
    /// The skill it was written for.
    #[serde(default)]
    pub skill_name: Option<String>,
    /// The cases.
    pub evals: Vec<EvalCase>,
}

/// Why the cases could not be read.
#[derive(Debug, thiserror::Error)]
pub enum CasesError {
    /// Not the guide's format.
    #[error(
        "{file} is not a list of eval cases ({reason}): write {{\"skill_name\": \"…\", \"evals\": [{{\"id\": 1, \"prompt\": \"…\", \"expected_output\": \"…\", \"files\": [], \"expectations\": [\"…\"]}}]}}"
    )]
    Format {
        /// The file, as shown.
        file: String,
        /// What the parser said.
        reason: String,
    },
    /// A case that cannot run as written.
    #[error("{file}: case {id} {reason}")]
    Case {
        /// The file, as shown.
        file: String,
        /// The case.
        id: String,
        /// What is wrong and what to do.
        reason: String,
    },
}

/// Reads the cases in `bytes` (from `file`, named in errors).
pub fn read_cases(file: &str, bytes: &[u8]) -> Result<EvalCases, CasesError> {
    let cases: EvalCases = serde_json::from_slice(bytes)
        .map_err(|e| CasesError::Format { file: file.to_owned(), reason: e.to_string() })?;
    if cases.evals.is_empty() {
        return Err(CasesError::Format { file: file.to_owned(), reason: "it holds no case".into() });
    }
    let bad =
        |case: &EvalCase, reason: String| CasesError::Case { file: file.to_owned(), id: case.id.to_string(), reason };
    let mut folders = BTreeSet::new();
    for case in &cases.evals {
        if case.prompt.trim().is_empty() {
            return Err(bad(case, "has an empty prompt: write what a user would ask".into()));
        }
        if case.graded().is_empty() && case.check.is_none() {
            return Err(bad(
                case,
                "has nothing to grade: write its expected_output or expectations, or name a check script".into(),
            ));
        }
        if case.folder() == "eval-" {
            return Err(bad(case, "has no usable id or name for its folder: use letters or digits".into()));
        }
        if !folders.insert(case.folder()) {
            return Err(bad(
                case,
                format!("shares the folder {} with another case: give each its own id or name", case.folder()),
            ));
        }
        for path in case.files.iter().chain(&case.check) {
            if skilldeck_skill::RelPath::parse(path).is_err() {
                return Err(bad(
                    case,
                    format!("names {path:?}, which is not a path inside the skill (like evals/files/data.csv)"),
                ));
            }
        }
    }
    Ok(cases)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn the_guides_format_is_read_and_mistakes_are_said() {
        let c = read_cases(
            "e.json",
            br#"{"skill_name": "csv", "evals": [{"id": 1, "prompt": "chart it", "expected_output": "a chart",
                "files": ["evals/files/data/sales.csv"], "expectations": ["has a chart"]},
                {"id": "Edge Case!", "prompt": "x", "expected_output": "y"}]}"#,
        )
        .unwrap();
        assert_eq!(c.evals[0].folder(), "eval-1");
        assert_eq!(c.evals[1].folder(), "eval-edge-case");
        assert_eq!(c.evals[1].graded(), ["The output matches what was expected: y"]);
        assert_eq!(EvalCase::placed(&c.evals[0].files[0]), "data/sales.csv");
        let typo = br#"{"evals": [{"id": 1, "prompt": "x", "expected_output": "y", "expectation": ["z"]}]}"#;
        assert!(matches!(read_cases("e.json", typo), Err(CasesError::Format { .. })));
        let outside = br#"{"evals": [{"id": 1, "prompt": "x", "expected_output": "y", "files": ["../secret"]}]}"#;
        assert!(read_cases("e.json", outside).unwrap_err().to_string().contains("not a path inside the skill"));
        let twice = br#"{"evals": [{"id": 1, "prompt": "x", "expected_output": "y"}, {"id": "1", "prompt": "x", "expected_output": "y"}]}"#;
        assert!(matches!(read_cases("e.json", twice), Err(CasesError::Case { .. })));
        assert!(matches!(read_cases("e.json", br#"{"evals": []}"#), Err(CasesError::Format { .. })));
    }
}
