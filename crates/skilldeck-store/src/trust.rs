//! The user's approvals, kept in `$SKILLDECK_HOME/trust.json`: of skills' `allowed-tools`
//! (whether a skill's grants are in force) and of the audit's findings (which of a skill's
//! findings the user has seen and accepted). Holds no matching of commands (the agent's
//! `allowed`) and no rule (`skilldeck-audit`).

use crate::home::SkilldeckHome;
use crate::storage::Scope;
use serde::{Deserialize, Serialize};
use skilldeck_skill::digest::Digest;
use skilldeck_skill::grants::{GrantRequest, RequestedTool};
use skilldeck_skill::meta::SkillMeta;
use skilldeck_skill::risk::{RiskLevel, RiskMark, RiskSummary};
use std::collections::BTreeMap;
use std::fs;
use std::path::PathBuf;

/// The trust file's name under `$SKILLDECK_HOME`.
pub const TRUST_FILE: &str = "trust.json";

/// Whether a skill's `allowed-tools` is in force.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum GrantState {
    /// It asks for no shell command: nothing to approve.
    None,
    /// A bundled skill whose request is the one this build ships: trusted as shipped.
    Bundled,
    /// The user approved this request.
    Trusted,
    /// Never approved: the loop ignores it and asks for every command.
    Untrusted,
    /// The user approved an earlier request; this one differs and must be approved again.
    Changed,
}

impl GrantState {
    /// Whether the loop may use the grants.
    pub fn in_force(self) -> bool {
        match self {
            Self::Bundled | Self::Trusted => true,
            Self::None | Self::Untrusted | Self::Changed => false,
        }
    }

    /// `none`, `bundled`, `trusted`, `untrusted` or `changed`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::None => "none",
            Self::Bundled => "bundled",
            Self::Trusted => "trusted",
            Self::Untrusted => "untrusted",
            Self::Changed => "changed",
        }
    }
}

/// A skill's `allowed-tools` as people and tools see it: what it asks for, in plain words, and
/// whether it is in force.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GrantsView {
    /// Each requested tool, in plain words, broad ones marked.
    pub requested: Vec<RequestedTool>,
    /// Whether any requested tool lets the skill run any code without asking.
    pub broad: bool,
    /// Whether the grants are in force (`bundled`, `trusted`) or not, and why.
    pub state: GrantState,
    /// Whether the loop uses them.
    pub in_force: bool,
}

/// One approval: the request's digest and patterns, and when.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Approval {
    /// `GrantRequest::digest` of what was approved.
    pub digest: String,
    /// The patterns approved, as written (shown; the digest decides).
    pub allowed_tools: Vec<String>,
    /// When, RFC 3339.
    pub approved: String,
}

/// The user's approval of a skill's audit findings: the findings seen (by fingerprint, which
/// binds rule, file and evidence), on which content, and when.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FindingsApproval {
    /// The content digest of the files the user approved, shown.
    pub digest: String,
    /// The fingerprints of the findings approved: a later revision whose findings are all
    /// among them needs no new approval; one with a new finding does.
    pub fingerprints: Vec<String>,
    /// When, RFC 3339.
    pub approved: String,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct TrustFile {
    format: u32,
    /// `scope/name` → approval.
    skills: BTreeMap<String, Approval>,
    /// `scope/name` → the audit findings approved.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    findings: BTreeMap<String, FindingsApproval>,
}

/// The trust file could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum TrustError {
    /// Reading or writing failed.
    #[error("could not {action} {}: {source}", path.display())]
    Io {
        /// What was being done.
        action: &'static str,
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A skill was to be approved without the digest of its files.
    #[error(
        "the skill {name} can only be approved together with its files' digest (a Skilldeck bug: please report it)"
    )]
    NoContent {
        /// The skill.
        name: String,
    },
    /// The file holds something else than approvals.
    #[error(
        "{} is not a trust file Skilldeck can read ({reason}); move it aside and approve skills again with `skilldeck trust NAME`",
        path.display()
    )]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// The parser's message.
        reason: String,
    },
}

/// The user's approvals, as read from `trust.json` (absent means none).
#[derive(Debug, Default)]
pub struct Trust {
    path: PathBuf,
    file: TrustFile,
    /// The bundled skills' requests; none in a `Trust` that read no file (nothing is trusted).
    bundled: Option<&'static BTreeMap<String, GrantRequest>>,
}

/// What each bundled skill of this build asks for: read from the binary once per process.
fn bundled_requests() -> &'static BTreeMap<String, GrantRequest> {
    static REQUESTS: std::sync::OnceLock<BTreeMap<String, GrantRequest>> = std::sync::OnceLock::new();
    REQUESTS.get_or_init(|| {
        crate::bundled::skills()
            .into_iter()
            .map(|(name, files)| {
                let meta = files
                    .skill_md()
                    .map(|md| {
                        skilldeck_skill::validate::validate_bytes(
                            Some(md),
                            skilldeck_skill::validate::ValidateOptions::default(),
                        )
                        .meta
                    })
                    .unwrap_or_default();
                (name.to_string(), GrantRequest::of(&meta))
            })
            .collect()
    })
}

fn key(scope: Scope, name: &str) -> String {
    format!("{scope}/{name}")
}

/// The content an approval in `scope` is bound to: the skill's files, so an approval covers
/// exactly the content it was given for (a source's update, a teammate's revision or an
/// outside edit asks again); nothing for a bundled skill, trusted as this build ships it.
pub fn bound_content(scope: Scope, content: Option<&Digest>) -> Option<&Digest> {
    if scope == Scope::System { None } else { content }
}

fn now() -> String {
    time::OffsetDateTime::now_utc().format(&time::format_description::well_known::Rfc3339).unwrap_or_default()
}

impl Trust {
    /// Reads the approvals under `home`. A missing file means nothing is approved yet.
    pub fn load(home: &SkilldeckHome) -> Result<Self, TrustError> {
        let path = home.root().join(TRUST_FILE);
        let file = match fs::read(&path) {
            Ok(bytes) => serde_json::from_slice(&bytes)
                .map_err(|e| TrustError::Corrupt { path: path.clone(), reason: e.to_string() })?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => TrustFile::default(),
            Err(source) => return Err(TrustError::Io { action: "read", path, source }),
        };
        Ok(Self { path, file, bundled: Some(bundled_requests()) })
    }

    /// Whether the `allowed-tools` of skill `name` in `scope` (with frontmatter `meta`) is in force.
    /// `content` is the skill's files' digest: a skill is trusted only with the files it was
    /// approved with, so without it no skill but a bundled one is in force (see
    /// [`bound_content`]).
    pub fn state(&self, scope: Scope, name: &str, meta: &SkillMeta, content: Option<&Digest>) -> GrantState {
        let request = GrantRequest::of(meta);
        if !request.asks_for_shell() {
            return GrantState::None;
        }
        if scope == Scope::System && self.bundled.and_then(|b| b.get(name)) == Some(&request) {
            return GrantState::Bundled;
        }
        let bound = bound_content(scope, content);
        match self.file.skills.get(&key(scope, name)) {
            Some(_) if scope != Scope::System && bound.is_none() => GrantState::Changed,
            Some(a) if a.digest == request.digest(scope, name, bound) => GrantState::Trusted,
            Some(_) => GrantState::Changed,
            None => GrantState::Untrusted,
        }
    }

    /// What skill `name` in `scope` asks for and whether it is in force (`content` as in
    /// [`Trust::state`]).
    pub fn view(&self, scope: Scope, name: &str, meta: &SkillMeta, content: Option<&Digest>) -> GrantsView {
        let request = GrantRequest::of(meta);
        let state = self.state(scope, name, meta, content);
        GrantsView { requested: request.describe(), broad: request.is_broad(), state, in_force: state.in_force() }
    }

    /// The approval on record for a skill, if any.
    pub fn approval(&self, scope: Scope, name: &str) -> Option<&Approval> {
        self.file.skills.get(&key(scope, name))
    }

    /// Approves `meta`'s request for skill `name` in `scope` (with files `content`, which a team
    /// skill needs) and saves the file.
    pub fn approve(
        &mut self,
        scope: Scope,
        name: &str,
        meta: &SkillMeta,
        content: Option<&Digest>,
    ) -> Result<(), TrustError> {
        self.approve_all(scope, [(name, meta, content)])
    }

    /// Approves several skills of `scope` at once (name, frontmatter, files' digest), writing
    /// the file once (a bulk import). Nothing is approved when a skill (but a bundled one)
    /// comes without its digest.
    pub fn approve_all<'a>(
        &mut self,
        scope: Scope,
        skills: impl IntoIterator<Item = (&'a str, &'a SkillMeta, Option<&'a Digest>)>,
    ) -> Result<(), TrustError> {
        let approved = now();
        let mut approvals = Vec::new();
        let mut names = Vec::new();
        for (name, meta, content) in skills {
            if scope != Scope::System && content.is_none() {
                return Err(TrustError::NoContent { name: name.to_owned() });
            }
            let request = GrantRequest::of(meta);
            let approval = Approval {
                digest: request.digest(scope, name, bound_content(scope, content)),
                allowed_tools: request.patterns().to_vec(),
                approved: approved.clone(),
            };
            approvals.push((key(scope, name), approval));
            names.push((name, request.patterns().len()));
        }
        self.file.skills.extend(approvals);
        self.save()?;
        // The count of commands granted, not the patterns (they are the skill's own text).
        for (name, commands) in names {
            tracing::info!(skill = name, scope = scope.as_str(), commands, "allowed-tools approved");
        }
        Ok(())
    }

    /// The findings of `risk` at `threshold` or above that the user has not approved for
    /// skill `name` in `scope`: what holds the skill back (none: it is not held).
    pub fn unapproved<'a>(
        &self,
        scope: Scope,
        name: &str,
        risk: &'a RiskSummary,
        threshold: RiskLevel,
    ) -> Vec<&'a RiskMark> {
        let approved = self.file.findings.get(&key(scope, name));
        risk.at_least(threshold)
            .filter(|m| !approved.is_some_and(|a| a.fingerprints.contains(&m.fingerprint)))
            .collect()
    }

    /// The approval of skill `name`'s findings on record, if any.
    pub fn findings_approval(&self, scope: Scope, name: &str) -> Option<&FindingsApproval> {
        self.file.findings.get(&key(scope, name))
    }

    /// Approves every finding in `risk` of skill `name` in `scope` (files with `digest`) and
    /// saves the file.
    pub fn approve_findings(
        &mut self,
        scope: Scope,
        name: &str,
        digest: &Digest,
        risk: &RiskSummary,
    ) -> Result<(), TrustError> {
        let approval = FindingsApproval {
            digest: digest.long(),
            fingerprints: risk.marks.iter().map(|m| m.fingerprint.clone()).collect(),
            approved: now(),
        };
        self.file.findings.insert(key(scope, name), approval);
        self.save()?;
        tracing::info!(skill = name, scope = scope.as_str(), findings = risk.marks.len(), "audit findings approved");
        Ok(())
    }

    /// Withdraws the approvals of skill `name` in `scope` (its tools and its findings);
    /// `false` when there was none.
    pub fn revoke(&mut self, scope: Scope, name: &str) -> Result<bool, TrustError> {
        let findings = self.file.findings.remove(&key(scope, name)).is_some();
        let had = self.file.skills.remove(&key(scope, name)).is_some() || findings;
        if had {
            self.save()?;
            tracing::info!(skill = name, scope = scope.as_str(), "approvals withdrawn");
        }
        Ok(had)
    }

    /// Carries skill `from`'s approvals in `scope` over to its new name `new` (`skilldeck
    /// rename`) and saves the file; whether there was any. The grant of its `allowed-tools`
    /// (`meta`'s request) is bound again to the renamed files `new_content` only when it was in
    /// force for `from_content`, the files before the rename (a stale one stays stale). The
    /// approved findings keep their fingerprints and gain `findings`, the renamed files' own
    /// fingerprints of the same findings (the caller matches them; `SKILL.md`'s change with its
    /// `name`).
    #[allow(clippy::too_many_arguments)]
    pub fn rename(
        &mut self,
        scope: Scope,
        from: &str,
        new: &str,
        meta: &SkillMeta,
        from_content: Option<&Digest>,
        new_content: Option<&Digest>,
        findings: &[String],
    ) -> Result<bool, TrustError> {
        let tools = self.file.skills.remove(&key(scope, from)).map(|old| {
            let request = GrantRequest::of(meta);
            if old.digest == request.digest(scope, from, bound_content(scope, from_content)) {
                Approval { digest: request.digest(scope, new, bound_content(scope, new_content)), ..old }
            } else {
                old
            }
        });
        let seen = self.file.findings.remove(&key(scope, from)).map(|mut old| {
            for f in findings {
                if !old.fingerprints.contains(f) {
                    old.fingerprints.push(f.clone());
                }
            }
            if let Some(d) = new_content {
                old.digest = d.long();
            }
            old
        });
        let had = tools.is_some() || seen.is_some();
        if let Some(a) = tools {
            self.file.skills.insert(key(scope, new), a);
        }
        if let Some(f) = seen {
            self.file.findings.insert(key(scope, new), f);
        }
        if had {
            self.save()?;
            tracing::info!(skill = new, from, scope = scope.as_str(), "approvals followed a rename");
        }
        Ok(had)
    }

    /// Writes the file beside itself and renames it in, so a reader never sees half of it.
    fn save(&mut self) -> Result<(), TrustError> {
        self.file.format = 1;
        let json = serde_json::to_vec_pretty(&self.file)
            .map_err(|e| TrustError::Corrupt { path: self.path.clone(), reason: e.to_string() })?;
        let tmp = self.path.with_extension(format!("json.tmp-{}", std::process::id()));
        if let Some(dir) = self.path.parent() {
            fs::create_dir_all(dir).map_err(|source| TrustError::Io { action: "create", path: dir.into(), source })?;
        }
        fs::write(&tmp, json).map_err(|source| TrustError::Io { action: "write", path: tmp.clone(), source })?;
        fs::rename(&tmp, &self.path).map_err(|source| TrustError::Io {
            action: "write",
            path: self.path.clone(),
            source,
        })
    }
}

/// How one file differs from the revision whose findings the user approved.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum FileChange {
    /// It was not there.
    New,
    /// Its bytes differ.
    Changed,
    /// It is gone.
    Removed,
}

/// What changed in a skill since the user approved its findings: shown before they approve
/// again, since an approval covers exactly the content it was given for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct ChangedSince {
    /// The revision approved, while history keeps it (`None`: no longer kept).
    pub revision: Option<crate::storage::Revision>,
    /// The approved content's digest, as recorded.
    pub approved: String,
    /// Each file that differs, by path (shown escaped by callers), in path order.
    pub files: Vec<(String, FileChange)>,
}

/// What changed in skill `name` of `scope` (its live files `live`, with digest `now`) since the
/// user approved its findings; `None` when they approved nothing or approved these very files.
pub fn changed_since_approval(
    storage: &crate::storage::FsStorage,
    trust: &Trust,
    scope: Scope,
    name: &skilldeck_skill::name::SkillName,
    live: &skilldeck_skill::files::SkillFiles,
    now: &Digest,
) -> Result<Option<ChangedSince>, crate::storage::StorageError> {
    let Some(approval) = trust.findings_approval(scope, name.as_str()) else { return Ok(None) };
    let same = |d: &Digest| d.short() == approval.digest || d.long() == approval.digest;
    if same(now) {
        return Ok(None);
    }
    let approved = approval.digest.clone();
    let history = storage.history_sync(scope, name)?;
    let Some(then) = history.iter().rev().find(|h| h.digest.as_ref().is_some_and(same)) else {
        return Ok(Some(ChangedSince { revision: None, approved, files: Vec::new() }));
    };
    let old = storage.revision_files(scope, name, then.revision)?;
    let mut files = Vec::new();
    for (path, bytes) in live.iter() {
        match old.get(path.as_str()) {
            None => files.push((path.as_str().to_owned(), FileChange::New)),
            Some(before) if before != bytes => files.push((path.as_str().to_owned(), FileChange::Changed)),
            Some(_) => {}
        }
    }
    for (path, _) in old.iter().filter(|(p, _)| live.get(p.as_str()).is_none()) {
        files.push((path.as_str().to_owned(), FileChange::Removed));
    }
    files.sort();
    Ok(Some(ChangedSince { revision: Some(then.revision), approved, files }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meta(tools: &[&str]) -> SkillMeta {
        SkillMeta { allowed_tools: tools.iter().map(|s| (*s).to_owned()).collect(), ..SkillMeta::default() }
    }

    #[test]
    fn approvals_follow_the_request_and_survive_a_reload() {
        let dir = tempfile::tempdir().unwrap();
        let home = SkilldeckHome::new(dir.path());
        let mut trust = Trust::load(&home).unwrap();
        let asks = meta(&["Bash"]);
        let v1 = Digest::from_bytes([1; 32]);
        let c = Some(&v1);
        assert_eq!(trust.state(Scope::User, "x", &meta(&["Read"]), c), GrantState::None);
        assert_eq!(trust.state(Scope::User, "x", &asks, c), GrantState::Untrusted);
        trust.approve(Scope::User, "x", &asks, c).unwrap();
        let trust = Trust::load(&home).unwrap();
        assert_eq!(trust.state(Scope::User, "x", &asks, c), GrantState::Trusted);
        assert_eq!(trust.state(Scope::User, "y", &asks, c), GrantState::Untrusted);
        assert_eq!(trust.state(Scope::User, "x", &meta(&["Bash", "Bash(rm:*)"]), c), GrantState::Changed);
        let mut trust = trust;
        assert!(trust.revoke(Scope::User, "x").unwrap());
        assert!(!trust.revoke(Scope::User, "x").unwrap());
        assert_eq!(Trust::load(&home).unwrap().state(Scope::User, "x", &asks, c), GrantState::Untrusted);
    }

    #[test]
    fn a_team_skill_is_trusted_only_with_the_files_it_was_approved_with() {
        let dir = tempfile::tempdir().unwrap();
        let home = SkilldeckHome::new(dir.path());
        let mut trust = Trust::load(&home).unwrap();
        let asks = meta(&["Bash(python3 scripts/run.py:*)"]);
        let (v1, v2) = (Digest::from_bytes([1; 32]), Digest::from_bytes([2; 32]));
        let e = trust.approve(Scope::Team, "x", &asks, None).unwrap_err();
        assert!(matches!(e, TrustError::NoContent { .. }), "{e}");
        assert!(trust.approval(Scope::Team, "x").is_none(), "nothing approved without the files");
        trust.approve(Scope::Team, "x", &asks, Some(&v1)).unwrap();
        let trust = Trust::load(&home).unwrap();
        assert_eq!(trust.state(Scope::Team, "x", &asks, Some(&v1)), GrantState::Trusted);
        // A teammate's next revision with the same request but new scripts asks again.
        assert_eq!(trust.state(Scope::Team, "x", &asks, Some(&v2)), GrantState::Changed);
        assert_eq!(trust.state(Scope::Team, "x", &asks, None), GrantState::Changed);
        // The user's own skills too: an approval covers the files it was given for, so an
        // update from a source (or any outside edit) with the same request asks again.
        let mut trust = trust;
        assert!(matches!(trust.approve(Scope::User, "x", &asks, None), Err(TrustError::NoContent { .. })));
        trust.approve(Scope::User, "x", &asks, Some(&v1)).unwrap();
        assert_eq!(trust.state(Scope::User, "x", &asks, Some(&v1)), GrantState::Trusted);
        assert_eq!(trust.state(Scope::User, "x", &asks, Some(&v2)), GrantState::Changed);
        assert_eq!(trust.state(Scope::User, "x", &asks, None), GrantState::Changed);
    }

    #[test]
    fn bundled_skills_are_trusted_only_as_shipped() {
        let dir = tempfile::tempdir().unwrap();
        let trust = Trust::load(&SkilldeckHome::new(dir.path())).unwrap();
        let shipped = meta(&["Bash(git log:*)", "Bash(git diff:*)"]);
        assert_eq!(trust.state(Scope::System, "commit-messages", &shipped, None), GrantState::Bundled);
        assert_eq!(trust.state(Scope::System, "commit-messages", &meta(&["Bash"]), None), GrantState::Untrusted);
        assert_eq!(trust.state(Scope::User, "commit-messages", &shipped, None), GrantState::Untrusted);
    }

    #[test]
    fn approved_findings_release_a_skill_until_a_new_one_appears() {
        let dir = tempfile::tempdir().unwrap();
        let home = SkilldeckHome::new(dir.path());
        let mark = |fp: &str, severity| RiskMark {
            rule: "exec.decode-exec".into(),
            severity,
            file: "scripts/x.sh".into(),
            line: Some(3),
            fingerprint: fp.into(),
        };
        let risk = |marks: Vec<RiskMark>| RiskSummary { counts: [0; 5], marks };
        let v1 = risk(vec![mark("aa", RiskLevel::Critical), mark("bb", RiskLevel::Medium)]);
        let mut trust = Trust::load(&home).unwrap();
        assert_eq!(trust.unapproved(Scope::User, "x", &v1, RiskLevel::High).len(), 1);
        assert!(trust.unapproved(Scope::User, "x", &v1, RiskLevel::Critical).len() == 1);
        trust.approve_findings(Scope::User, "x", &Digest::from_bytes([1; 32]), &v1).unwrap();
        let trust = Trust::load(&home).unwrap();
        assert!(trust.unapproved(Scope::User, "x", &v1, RiskLevel::High).is_empty());
        // The same findings in a later revision, or fewer: still released.
        assert!(
            trust
                .unapproved(Scope::User, "x", &risk(vec![mark("aa", RiskLevel::Critical)]), RiskLevel::High)
                .is_empty()
        );
        // A new one holds it again, and only the new one is named.
        let v3 = risk(vec![mark("aa", RiskLevel::Critical), mark("cc", RiskLevel::High)]);
        let held = trust.unapproved(Scope::User, "x", &v3, RiskLevel::High);
        assert_eq!(held.iter().map(|m| m.fingerprint.as_str()).collect::<Vec<_>>(), ["cc"]);
        // Another skill, or another scope, has its own approval.
        assert_eq!(trust.unapproved(Scope::Team, "x", &v1, RiskLevel::High).len(), 1);
        let mut trust = trust;
        assert!(trust.revoke(Scope::User, "x").unwrap());
        assert_eq!(Trust::load(&home).unwrap().unapproved(Scope::User, "x", &v1, RiskLevel::High).len(), 1);
    }

    #[test]
    fn a_corrupt_file_is_an_error_that_says_what_to_do() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(TRUST_FILE), "{not json").unwrap();
        let e = Trust::load(&SkilldeckHome::new(dir.path())).unwrap_err();
        assert!(e.to_string().contains("skilldeck trust NAME"), "{e}");
    }
}
