//! The last answer of the update check for each sourced skill, kept in `sources-check.json` in
//! the Skilldeck home: what the source said (up to date, outdated to which commit, gone), when,
//! and whether the latest try could not ask it. Offline, a check keeps the last answer and says
//! it could not check. Holds no checking (that is `check`) and no fetched folders: an answer read
//! back says what an update would bring, not the files (those are fetched again).

use crate::check::{Checked, Status};
use crate::installed::{Installed, InstalledSkills};
use serde::{Deserialize, Serialize};
use skilldeck_skill::digest::Digest;
use skilldeck_skill::provenance::Provenance;
use skilldeck_store::SkilldeckHome;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The file's name in the Skilldeck home.
pub const CHECK_FILE: &str = "sources-check.json";

/// What a source last said about a skill.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum Answer {
    /// It holds the content installed.
    UpToDate,
    /// It holds other content.
    Outdated {
        /// Where the new content comes from.
        new: Provenance,
        /// The new content's digest.
        digest: Digest,
    },
    /// It no longer holds the skill.
    Gone {
        /// Why it is said to be gone.
        reason: String,
    },
}

/// The install an answer is about: an answer holds only while `sources.json` still says this.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Against {
    /// The commit or digest installed from.
    pub resolved: String,
    /// The content installed.
    pub digest: Digest,
}

impl Against {
    fn of(rec: &Installed) -> Self {
        Self { resolved: rec.source.resolved.clone(), digest: rec.digest }
    }
}

/// A try that could not ask the source.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Failed {
    /// What went wrong.
    pub reason: String,
    /// When, RFC 3339 in UTC.
    pub at: String,
}

/// One skill's record in the file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Known {
    /// The install the answer is about.
    pub against: Against,
    /// The last answer the source gave; `None` when it never answered.
    pub answer: Option<Answer>,
    /// When it gave it, RFC 3339 in UTC.
    pub answered_at: Option<String>,
    /// Whether the skill had been changed here since it was installed, as of that answer.
    #[serde(default)]
    pub changed_here: bool,
    /// Set when the latest try could not ask the source (the answer above is older).
    pub failed: Option<Failed>,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct CheckFile {
    #[serde(default)]
    format: u32,
    /// When the last check ran, RFC 3339 in UTC.
    #[serde(default)]
    checked_at: Option<String>,
    #[serde(default)]
    skills: BTreeMap<String, Known>,
}

/// Where one sourced skill stands as far as is known: its record and the answer that still
/// holds for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Standing {
    /// The skill's name.
    pub name: String,
    /// What `sources.json` says was installed.
    pub installed: Installed,
    /// The last answer that still holds for that install; `None` when it was never checked (or
    /// installed again since).
    pub answer: Option<Answer>,
    /// When that answer was given.
    pub answered_at: Option<String>,
    /// Whether it was changed here, as of that answer.
    pub changed_here: bool,
    /// Why the latest try could not ask its source, if it could not.
    pub failed: Option<Failed>,
}

/// The last answers of one home, read from `sources-check.json` and written back whole.
#[derive(Debug)]
pub struct LastCheck {
    path: PathBuf,
    file: CheckFile,
}

impl LastCheck {
    /// Reads the answers under `home`. A missing or damaged file is no answer yet: it is a
    /// cache, and the next check writes it again.
    pub fn load(home: &SkilldeckHome) -> Self {
        let path = home.root().join(CHECK_FILE);
        let file = std::fs::read(&path).ok().and_then(|b| serde_json::from_slice(&b).ok()).unwrap_or_default();
        Self { path, file }
    }

    /// When the last check ran.
    pub fn checked_at(&self) -> Option<&str> {
        self.file.checked_at.as_deref()
    }

    /// Takes in what `checked` found (after `apply::follow_moved`, so a skill whose source moved
    /// on without changing it is up to date against its new top). A skill that could not be
    /// checked keeps its last answer, marked as failed.
    pub fn merge(&mut self, checked: &Checked) {
        let now = crate::installed::now();
        for c in &checked.checks {
            let mut against = Against::of(&c.installed);
            if let Some((_, moved)) = checked.moved.iter().find(|(n, _)| n == &c.name) {
                against.resolved = moved.resolved.clone();
            }
            let answer = match &c.status {
                Status::UpToDate => Answer::UpToDate,
                Status::Outdated { new, digest, .. } => Answer::Outdated { new: new.clone(), digest: *digest },
                Status::Gone { reason } => Answer::Gone { reason: reason.clone() },
                Status::CouldNotCheck { reason } => {
                    let failed = Some(Failed { reason: reason.clone(), at: now.clone() });
                    let kept = self.file.skills.remove(&c.name).filter(|k| k.against == against);
                    let known = match kept {
                        Some(k) => Known { failed, ..k },
                        None => {
                            Known { against, answer: None, answered_at: None, changed_here: c.changed_here, failed }
                        }
                    };
                    self.file.skills.insert(c.name.clone(), known);
                    continue;
                }
            };
            let known = Known {
                against,
                answer: Some(answer),
                answered_at: Some(now.clone()),
                changed_here: c.changed_here,
                failed: None,
            };
            self.file.skills.insert(c.name.clone(), known);
        }
        self.file.checked_at = Some(now);
    }

    /// Records that `name` was just brought up to date as `rec` says.
    pub fn updated(&mut self, name: &str, rec: &Installed) {
        let known = Known {
            against: Against::of(rec),
            answer: Some(Answer::UpToDate),
            answered_at: Some(crate::installed::now()),
            changed_here: false,
            failed: None,
        };
        self.file.skills.insert(name.to_owned(), known);
    }

    /// Each sourced skill of `installed` with the answer that still holds for it: one given
    /// against the install recorded now, or an outdated one whose new content is what is
    /// installed now (it was updated since: up to date).
    pub fn standings(&self, installed: &InstalledSkills) -> Vec<Standing> {
        installed
            .iter()
            .map(|(name, rec)| {
                let known = self.file.skills.get(name);
                let now = Against::of(rec);
                let answer = known.and_then(|k| match &k.answer {
                    Some(a) if k.against == now => Some(a.clone()),
                    Some(Answer::Outdated { new, digest }) if new.resolved == now.resolved && *digest == now.digest => {
                        Some(Answer::UpToDate)
                    }
                    _ => None,
                });
                let holds = answer.is_some();
                Standing {
                    name: name.to_owned(),
                    installed: rec.clone(),
                    answered_at: known.filter(|_| holds).and_then(|k| k.answered_at.clone()),
                    changed_here: known.is_some_and(|k| holds && k.changed_here),
                    failed: known.and_then(|k| k.failed.clone()),
                    answer,
                }
            })
            .collect()
    }

    /// Moves the last answer about skill `from` to `new`, renamed here (not yet saved), its
    /// install's digest changed as `InstalledSkills::rename` changes it; whether there was one.
    pub fn rename(&mut self, from: &str, new: &str, from_digest: Digest, new_digest: Digest) -> bool {
        let Some(mut known) = self.file.skills.remove(from) else { return false };
        if known.against.digest == from_digest {
            known.against.digest = new_digest;
        }
        self.file.skills.insert(new.to_owned(), known);
        true
    }

    /// Writes the file beside itself and renames it in.
    pub fn save(&mut self) -> std::io::Result<()> {
        self.file.format = 1;
        let json = serde_json::to_vec_pretty(&self.file).map_err(std::io::Error::other)?;
        write_beside(&self.path, &json)
    }
}

fn write_beside(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let tmp = path.with_extension(format!("json.tmp-{}", std::process::id()));
    std::fs::write(&tmp, bytes)?;
    std::fs::rename(&tmp, path).inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::check::Check;
    use skilldeck_skill::provenance::SourceKind;

    fn source(resolved: &str) -> Provenance {
        Provenance {
            kind: SourceKind::Git,
            given: "o/r".into(),
            url: "https://example.com/o/r.git".into(),
            reference: None,
            pinned: false,
            resolved: resolved.into(),
            path: "skills/pdf".into(),
        }
    }

    fn checked(installed: &InstalledSkills, status: Status) -> Checked {
        let mut c = Checked::default();
        let rec = installed.get("pdf").unwrap().clone();
        c.checks.push(Check { name: "pdf".into(), installed: rec, changed_here: false, status });
        c
    }

    fn answers(last: &LastCheck, installed: &InstalledSkills) -> Vec<(Option<Answer>, bool)> {
        last.standings(installed).into_iter().map(|s| (s.answer, s.failed.is_some())).collect()
    }

    #[test]
    fn an_answer_survives_offline_and_a_restart_and_holds_only_for_its_install() {
        let tmp = tempfile::tempdir().unwrap();
        let home = SkilldeckHome::new(tmp.path());
        let mut installed = InstalledSkills::load(&home).unwrap();
        let (old, new) = (Digest::from_bytes([1; 32]), Digest::from_bytes([2; 32]));
        installed.record("pdf", source("a"), old);
        let mut last = LastCheck::load(&home);
        assert_eq!(answers(&last, &installed), [(None, false)], "never checked");

        let outdated = Answer::Outdated { new: source("b"), digest: new };
        let dir = tmp.path().join("fetched");
        last.merge(&checked(&installed, Status::Outdated { new: source("b"), digest: new, dir }));
        assert_eq!(answers(&last, &installed), [(Some(outdated.clone()), false)]);

        // Offline: the last answer stays, marked; and so after a restart.
        last.merge(&checked(&installed, Status::CouldNotCheck { reason: "offline".into() }));
        last.save().unwrap();
        let last = LastCheck::load(&home);
        assert_eq!(answers(&last, &installed), [(Some(outdated), true)]);
        assert!(last.checked_at().is_some());

        // Updated (by the CLI, say): the outdated answer now means up to date; installed from
        // elsewhere: no answer holds.
        installed.record("pdf", source("b"), new);
        assert_eq!(answers(&last, &installed), [(Some(Answer::UpToDate), true)]);
        installed.record("pdf", source("c"), Digest::from_bytes([3; 32]));
        assert_eq!(answers(&last, &installed), [(None, true)]);

        std::fs::write(tmp.path().join(CHECK_FILE), "{ damaged").unwrap();
        assert_eq!(answers(&LastCheck::load(&home), &installed), [(None, false)], "a damaged cache is no answer");
    }
}
