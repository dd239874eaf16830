//! The shapes the UI gets from commands, in camelCase JSON.
//! Holds data and the conversions from core types; no I/O.

use serde::Serialize;
use skilldeck_audit::{Finding, RiskLevel};
use skilldeck_core::registry::ListedEntry;
use skilldeck_skill::digest::Digest;
use skilldeck_skill::grants::RequestedTool;
use skilldeck_skill::visible::{visible, visible_line};
use skilldeck_skill::{Diagnostic, Scope, Severity};
use skilldeck_store::trust::{GrantState, GrantsView, Trust};
use std::collections::BTreeSet;

/// `text`, which a skill, a source or a model wrote, as the app shows it: control, bidi and
/// invisible characters as visible escapes (`\e`, `\u{202E}`), line feeds and tabs kept; the
/// CLI's human output and a model's listing show it alike (`skilldeck_skill::visible`). A webview
/// draws ESC or BEL as nothing and lets a bidi override reorder what follows.
pub fn shown(text: &str) -> String {
    visible(text).into_owned()
}

/// A skill in the sidebar.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct SkillRow {
    /// Its name.
    pub name: String,
    /// Its scope.
    pub scope: Scope,
    /// The badge: the revision, else the frontmatter version, else none.
    pub version: Option<String>,
    /// The stored revision.
    pub revision: Option<u64>,
    /// Whether it has no error.
    pub valid: bool,
    /// Whether a `user` skill of the same name hides it.
    pub shadowed: bool,
    /// False when the user switched it off for agents.
    pub enabled: bool,
    /// How many errors.
    pub errors: usize,
    /// How many warnings.
    pub warnings: usize,
    /// The English description, as shown ([`shown`]).
    pub description: Option<String>,
    /// The Chinese description, as shown ([`shown`]).
    pub description_zh: Option<String>,
    /// Whether its `allowed-tools` asks for shell commands the user has not approved.
    pub tools_unapproved: bool,
    /// Whether config.toml pins it (`[listing] pinned`): always in full in a ranked listing.
    pub pinned: bool,
    /// Whether the audit holds it back until the user approves its findings: not listed to
    /// models, offered over MCP or synced (`SkillRegistry::is_held`).
    pub held: bool,
    /// The most serious audit finding's level, if the audit found anything.
    pub risk: Option<RiskLevel>,
    /// Whether its author set `disable-model-invocation: true`: kept and shown, never listed
    /// to models, found or offered over MCP (the UI marks it "user-invoked only"). Left out of
    /// the JSON when false.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub user_invoked_only: bool,
    /// Whether the user approved findings that would otherwise hold it (`skilldeck trust`; the
    /// Risks panel's Withdraw takes the approval back). Left out of the JSON when false.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub risk_approved: bool,
}

impl SkillRow {
    /// This row with the audit's verdict from `registry`: held back, or let through because the
    /// user approved findings at the hold level or above.
    pub fn judged(self, registry: &skilldeck_core::SkillRegistry, entry: &skilldeck_skill::SkillEntry) -> Self {
        let held = registry.is_held(entry);
        let at_hold = match (registry.hold(), entry.risk.as_ref().and_then(|r| r.worst())) {
            (Some(hold), Some(worst)) => worst >= hold,
            _ => false,
        };
        Self { held, risk_approved: at_hold && !held, ..self }
    }

    /// The row of `l`; `disabled` holds the skills switched off for agents, `trust` the user's
    /// approvals of requested tools.
    /// `content` is what a team skill's approval is bound to (`SkillRegistry::trust_content`).
    pub fn new(l: &ListedEntry, disabled: &BTreeSet<String>, trust: &Trust, content: Option<&Digest>) -> Self {
        let e = &l.entry;
        let errors = e.diagnostics.iter().filter(|d| d.is_error()).count();
        Self {
            name: e.name.clone(),
            scope: e.scope,
            version: e.version.clone(),
            revision: e.revision.map(|r| r.0),
            valid: e.valid,
            shadowed: l.shadowed,
            enabled: !disabled.contains(&e.name),
            errors,
            warnings: e.diagnostics.len() - errors,
            description: e.meta.description.as_deref().map(shown),
            description_zh: e.meta.description_zh.as_deref().map(shown),
            tools_unapproved: matches!(
                trust.state(e.scope, &e.name, &e.meta, content),
                GrantState::Untrusted | GrantState::Changed
            ),
            pinned: false,
            held: false,
            risk: e.risk.as_ref().and_then(|r| r.worst()),
            user_invoked_only: !e.meta.model_invocable(),
            risk_approved: false,
        }
    }
}

/// A problem with its plain-language fix.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct DiagView {
    /// The stable code.
    pub code: &'static str,
    /// Error or warning.
    pub severity: Severity,
    /// What is wrong, as shown ([`shown`]).
    pub message: String,
    /// The line in SKILL.md.
    pub line: Option<u32>,
    /// How to fix it.
    pub fix: &'static str,
    /// The message's facts, for a template in the UI's language (`{"field": "name"}`).
    #[serde(skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub args: std::collections::BTreeMap<String, String>,
}

impl From<&Diagnostic> for DiagView {
    fn from(d: &Diagnostic) -> Self {
        Self {
            code: d.code.as_str(),
            severity: d.severity,
            message: shown(&d.message),
            line: d.line,
            fix: d.code.fix(),
            args: d.args_map().into_iter().map(|(k, v)| (k, visible_line(&v).into_owned())).collect(),
        }
    }
}

/// One frontmatter field for the viewer's table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct FieldRow {
    /// The field.
    pub key: String,
    /// Its value as text; empty for a nested mapping or list, whose entries follow one
    /// level deeper.
    pub value: String,
    /// How deep it is nested: 0 for a top-level field.
    pub depth: u8,
}

/// One file of a skill.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct FileRow {
    /// Its path in the skill.
    pub path: String,
    /// Its size in bytes.
    pub size: u64,
}

/// Everything the main pane shows about one skill.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct SkillDetail {
    /// The sidebar row.
    #[serde(flatten)]
    pub row: SkillRow,
    /// Every problem.
    pub diagnostics: Vec<DiagView>,
    /// The files, never `.version`.
    pub files: Vec<FileRow>,
    /// `sha256:` and 12 hex digits.
    pub digest: String,
    /// What its `allowed-tools` asks for, and whether the user approved it.
    pub grants: GrantsRow,
    /// What the audit found in its files now, and which findings hold it back.
    pub audit: AuditView,
    /// Where it came from, when it was installed from a source (`sources.json`).
    pub origin: Option<crate::sources::OriginView>,
}

/// What the audit found in one skill, as the Risks panel and the import previews show it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct AuditView {
    /// Every finding, most serious first.
    pub findings: Vec<FindingView>,
    /// Whether an unapproved finding at the hold level holds the skill back (for a preview:
    /// would hold it once imported).
    pub held: bool,
    /// The level from which a finding holds a skill (config.toml's `[audit] hold`); none when
    /// holding is off.
    pub hold: Option<RiskLevel>,
    /// For a stored skill whose findings the user approved in another revision: the files that
    /// changed since, shown before approving again (paths escaped).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub changed_since: Option<skilldeck_store::trust::ChangedSince>,
}

/// One finding with what the user's approvals make of it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct FindingView {
    /// The finding: rule, severity, title, file, line, evidence (made safe), hidden, why.
    #[serde(flatten)]
    pub finding: Finding,
    /// Whether the user approved it (an approval of this skill names its fingerprint).
    pub approved: bool,
    /// Whether it holds the skill back: unapproved and at the hold level or above.
    pub holds: bool,
}

/// What decides whether findings hold a skill back: the user's approvals and the hold level.
#[derive(Debug, Clone, Copy)]
pub struct Assessor<'a> {
    /// The approvals on record.
    pub trust: &'a Trust,
    /// `[audit] hold`, none when holding is off.
    pub hold: Option<RiskLevel>,
}

impl Assessor<'_> {
    /// The view of `findings` of skill `name` in `scope`.
    pub fn view(&self, scope: Scope, name: &str, findings: Vec<Finding>) -> AuditView {
        let approval = self.trust.findings_approval(scope, name);
        let findings: Vec<FindingView> = findings
            .into_iter()
            .map(|finding| {
                let approved = approval.is_some_and(|a| a.fingerprints.contains(&finding.fingerprint));
                let holds = !approved && self.hold.is_some_and(|h| finding.severity >= h);
                FindingView { finding, approved, holds }
            })
            .collect();
        AuditView { held: findings.iter().any(|f| f.holds), findings, hold: self.hold, changed_since: None }
    }
}

/// A skill's requested tools as the skill view and the import preview show them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct GrantsRow {
    /// Each requested tool: `{pattern, plain, broad}`.
    pub requested: Vec<RequestedTool>,
    /// Whether any lets the skill run any command without asking.
    pub broad: bool,
    /// `none`, `bundled`, `trusted`, `untrusted` or `changed`.
    pub state: GrantState,
    /// Whether the loop uses them.
    pub in_force: bool,
}

impl From<GrantsView> for GrantsRow {
    fn from(g: GrantsView) -> Self {
        Self { requested: g.requested, broad: g.broad, state: g.state, in_force: g.in_force }
    }
}

/// A file as the viewer shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase", rename_all_fields = "camelCase", tag = "kind")]
pub enum FileView {
    /// Markdown rendered to sanitized HTML; for `SKILL.md`, its frontmatter as a table.
    Markdown {
        /// Safe HTML.
        html: String,
        /// Frontmatter fields (empty for other Markdown files).
        frontmatter: Vec<FieldRow>,
        /// Bytes.
        size: u64,
    },
    /// Other text, shown in monospace.
    Text {
        /// The text.
        text: String,
        /// Bytes.
        size: u64,
    },
    /// An image (PNG, JPEG, GIF, WebP, SVG), inlined for an `<img>`.
    Image {
        /// Its type.
        mime: String,
        /// `data:` URL of its bytes.
        data_url: String,
        /// Bytes.
        size: u64,
    },
    /// Not text: only its type and size.
    Binary {
        /// Its type, told from its bytes or else its extension.
        kind_name: String,
        /// Bytes.
        size: u64,
    },
}

/// The L1 listing as a model gets it, with its budget meter.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct ListingView {
    /// The exact text.
    pub text: String,
    /// Estimated tokens.
    pub estimated_tokens: usize,
    /// The budget.
    pub budget_tokens: usize,
    /// Skills whose descriptions were shortened.
    pub shortened: Vec<String>,
    /// How many skills are listed.
    pub listed: usize,
    /// The skills listed, in the order shown, each with its rank and how it is shown (full,
    /// shortened, name only): what `skilldeck prompt --request --json` prints.
    pub skills: Vec<skilldeck_select::listing::ListedSkill>,
    /// Whether the listing was ranked (not every skill fitted in full).
    pub ranked: bool,
    /// Skills not shown at all: from here on `find_skills` takes over.
    pub more: usize,
    /// The workspace profile applied, if the preview was asked for a workspace that has one.
    pub profile: Option<ProfileView>,
    /// Where ranking by meaning stands (with a request: whether this ranking used it).
    pub meaning: Option<crate::meaning::MeaningView>,
}

/// A workspace's `.skilldeck.toml` profile, as the preview applied it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct ProfileView {
    /// The profile's file.
    pub path: String,
    /// Skills offered by name.
    pub skills: Vec<String>,
    /// Skills offered by tag.
    pub tags: Vec<String>,
}

/// What an import will do, before anything is written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct ImportPreviewView {
    /// The skill's name.
    pub name: String,
    /// The target scope.
    pub scope: Scope,
    /// Files.
    pub file_count: usize,
    /// Bytes.
    pub total_bytes: u64,
    /// Whether it has no error.
    pub valid: bool,
    /// Every problem.
    pub diagnostics: Vec<DiagView>,
    /// The revision it will become.
    pub next_revision: u64,
    /// Whether it is new.
    pub is_new: bool,
    /// Whether its files equal the current revision's, so importing would write nothing.
    pub identical: bool,
    /// The revision stored now, if any.
    pub current_revision: Option<u64>,
    /// Entries left out (`.git`, `.DS_Store`, …).
    pub skipped: Vec<String>,
    /// What its `allowed-tools` asks for, and whether an approval on record covers it.
    pub grants: GrantsRow,
    /// What the audit found in its files, and whether the stored skill would be held.
    pub audit: AuditView,
}

/// What an import did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct ImportedView {
    /// The skill.
    pub name: String,
    /// Its scope.
    pub scope: Scope,
    /// Its new revision.
    pub revision: u64,
    /// Its digest, short form.
    pub digest: String,
    /// Whether nothing was written: the files were the current revision's.
    pub unchanged: bool,
    /// Its requested tools after the import (approved when the user ticked the box).
    pub grants: GrantsRow,
}

/// A revision in the history view.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct HistoryRow {
    /// The revision.
    pub revision: u64,
    /// Its digest, short form.
    pub digest: Option<String>,
    /// When, RFC 3339.
    pub at: String,
    /// What made it (`upload`, `restore`, `external`, …).
    pub event: String,
    /// Whether it is current.
    pub current: bool,
    /// Whether its files are kept.
    pub restorable: bool,
}

/// `SKILL.md` as stored, for the line-numbered source view.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct SourceView {
    /// The whole text, frontmatter included.
    pub text: String,
    /// Whether bytes that are not UTF-8 were replaced with `�`.
    pub lossy: bool,
}

impl SourceView {
    /// The view of the file's bytes.
    pub fn new(bytes: &[u8]) -> Self {
        let text = String::from_utf8_lossy(bytes);
        let lossy = matches!(text, std::borrow::Cow::Owned(_));
        Self { text: text.into_owned(), lossy }
    }
}

/// A skill the sidebar's search found by meaning (or by words the literal filter missed).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct MeaningHit {
    /// Its scope.
    pub scope: Scope,
    /// Its name.
    pub name: String,
    /// Why it matched, as `find_skills` says it (`by meaning`, or the words and where).
    pub why: String,
}
