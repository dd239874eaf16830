//! The audit: every file of a skill read once against one table of rules — hidden text,
//! instructions aimed at the model against the user, dangerous commands, secrets, persistence,
//! network and content — giving findings with a rule, a severity, a file and line, evidence
//! shown safely and why it matters. Bytes in, findings out: no file system, no store, no
//! decision whether a skill is held (the registry decides with the user's approvals).

pub mod anchors;
pub mod chars;
pub mod checks;
pub mod finding;
pub mod flow;
pub mod norm;
pub mod rules;
pub mod sarif;
pub mod scan;
pub mod text;

pub use finding::{Finding, Report};
pub use scan::{Auditor, DEFAULT_CAP, audit};
pub use skilldeck_skill::risk::{RiskLevel, RiskMark, RiskSummary};
