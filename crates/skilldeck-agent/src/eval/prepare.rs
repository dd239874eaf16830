//! What an eval runs on, made from the store: scratch stores (the skill alone at a revision, or
//! nothing, or the skill among a folder of neighbours), and for output evals the skill's cases
//! checked against its files and both configurations' stores. The CLI and the app prepare
//! their runs here, so both run the same thing.

use super::cases::{CASES_FILE, CasesError, EvalCase, read_cases};
use super::outputs::{Arm, ArmKind};
use skilldeck_core::SkillRegistry;
use skilldeck_skill::risk::RiskLevel;
use skilldeck_skill::{Revision, Scope, SkillFiles, SkillName};
use skilldeck_store::import::{self, ImportRequest};
use skilldeck_store::{FsStorage, SkilldeckHome, StorageError};
use std::path::Path;
use std::sync::Arc;

/// Why an eval could not be prepared.
#[derive(Debug, thiserror::Error)]
pub enum PrepareError {
    /// The skill has no `evals/evals.json`.
    #[error(
        "{name} has no output evals to run: write {CASES_FILE} in the skill ({{\"skill_name\": \"{name}\", \"evals\": \
         [{{\"id\": 1, \"prompt\": \"…\", \"expected_output\": \"…\", \"files\": [], \"expectations\": [\"…\"]}}]}}), or \
         run its trigger queries (`skilldeck eval NAME --triggers`)"
    )]
    NoCases {
        /// The skill.
        name: String,
    },
    /// The cases could not be read.
    #[error(transparent)]
    Cases(#[from] CasesError),
    /// A case names a file the skill does not hold.
    #[error("{name}/{CASES_FILE}: case {case} names {file}, which {name} does not hold; add it to the skill")]
    MissingFile {
        /// The skill.
        name: String,
        /// The case.
        case: String,
        /// The file.
        file: String,
    },
    /// The baseline is the revision evaluated.
    #[error("the baseline v:{revision} is the revision being evaluated; name an older one (History lists them)")]
    SameRevision {
        /// The revision.
        revision: u64,
    },
    /// The offline router would grade expectations, which it cannot.
    #[error(
        "the offline provider is a ranker, not a model: it cannot grade expectations; choose a model's provider to \
         grade them (in a terminal: --grader NAME, a provider in config.toml, or --provider/--api for a model that \
         runs and grades the cases)"
    )]
    OfflineGrader,
    /// A folder of neighbours that is not there.
    #[error("{0}: no such folder; give `empty` or a folder of skills")]
    NoFolder(String),
    /// The store could not be read or the scratch store written.
    #[error(transparent)]
    Storage(#[from] StorageError),
    /// A scratch folder could not be made.
    #[error("could not make a scratch store: {0}")]
    Io(#[from] std::io::Error),
}

/// A store in a scratch folder, kept while it lives.
pub struct ScratchStore {
    /// The registry over it.
    pub registry: Arc<SkillRegistry>,
    folder: tempfile::TempDir,
}

impl ScratchStore {
    /// A store holding `skill` (its name and files) when given, after the skills of the folder
    /// `neighbours` when given, each imported as any folder is (checked and audited), and held
    /// at `hold` as the user's store is.
    pub fn new(
        skill: Option<(&SkillName, &SkillFiles)>,
        neighbours: Option<&Path>,
        hold: Option<RiskLevel>,
    ) -> Result<Self, PrepareError> {
        let folder = tempfile::Builder::new().prefix("skilldeck-eval-store-").tempdir()?;
        let storage = FsStorage::open(SkilldeckHome::new(folder.path().join("home")))?;
        let mut requests = Vec::new();
        if let Some(dir) = neighbours {
            if !dir.is_dir() {
                return Err(PrepareError::NoFolder(dir.display().to_string()));
            }
            requests.push(ImportRequest { path: dir.to_owned(), only: None, origin: None });
        }
        if let Some((name, files)) = skill {
            // The skill last, so a namesake among the neighbours does not stand in for it.
            requests.push(ImportRequest {
                path: write_skill(folder.path(), "skill", name, files)?,
                only: None,
                origin: None,
            });
        }
        if !requests.is_empty() {
            let limits = storage.limits();
            import::import_batch(&storage, Scope::User, &requests, limits, &mut |_| {})?;
        }
        Ok(Self { registry: Arc::new(SkillRegistry::new(storage).with_hold(hold)), folder })
    }

    /// Stores `files` as the next revision of `name` in this store, as an import would.
    pub fn put(&self, name: &SkillName, files: &SkillFiles, tag: &str) -> Result<(), PrepareError> {
        let dir = write_skill(self.folder.path(), tag, name, files)?;
        let storage = self.registry.storage();
        let request = ImportRequest { path: dir, only: None, origin: None };
        import::import_batch(storage, Scope::User, &[request], storage.limits(), &mut |_| {})?;
        // The registry keeps what it listed in memory: the new revision must be read.
        self.registry.invalidate(Scope::User, Some(name.as_str()));
        Ok(())
    }
}

/// Writes `files` as folder `name` under `root/tag`.
fn write_skill(root: &Path, tag: &str, name: &SkillName, files: &SkillFiles) -> std::io::Result<std::path::PathBuf> {
    let dir = root.join(tag).join(name.as_str());
    for (rel, bytes) in files.iter() {
        let path = rel.under(&dir);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(&path, bytes)?;
    }
    Ok(dir)
}

/// An output eval made ready: the cases, the skill's files at the revision evaluated, and the
/// configurations' stores (alive while this is).
pub struct PreparedOutputs {
    /// The cases.
    pub cases: Vec<EvalCase>,
    /// The skill's files.
    pub files: SkillFiles,
    /// The revision evaluated.
    pub revision: Option<u64>,
    /// With the skill, then the baseline.
    pub arms: Vec<Arm>,
    _stores: Vec<ScratchStore>,
}

impl PreparedOutputs {
    /// Refuses `grader` when it is the offline router and a case is graded by a model (a case
    /// with a check script needs none).
    pub fn check_grader(&self, grader: &crate::provider::ProviderInfo) -> Result<(), PrepareError> {
        if grader.kind == "offline" && self.cases.iter().any(|c| c.check.is_none()) {
            return Err(PrepareError::OfflineGrader);
        }
        Ok(())
    }
}

/// Prepares output evals of `name` against `baseline` (an older revision, or none: no skill).
pub fn prepare_outputs(
    storage: &FsStorage,
    hold: Option<RiskLevel>,
    scope: Scope,
    name: &SkillName,
    baseline: Option<u64>,
) -> Result<PreparedOutputs, PrepareError> {
    let snapshot = storage.snapshot(scope, name)?;
    let revision = snapshot.revision.map(|r| r.0);
    let Some(bytes) = snapshot.files.get(CASES_FILE) else {
        return Err(PrepareError::NoCases { name: name.to_string() });
    };
    let cases = read_cases(&format!("{name}/{CASES_FILE}"), bytes)?.evals;
    for case in &cases {
        if let Some(file) = case.files.iter().chain(&case.check).find(|f| snapshot.files.get(f).is_none()) {
            return Err(PrepareError::MissingFile {
                name: name.to_string(),
                case: case.id.to_string(),
                file: file.clone(),
            });
        }
    }
    let old = match baseline {
        Some(rev) if Some(rev) == revision => return Err(PrepareError::SameRevision { revision: rev }),
        Some(rev) => Some(storage.revision_files(scope, name, Revision(rev))?),
        None => None,
    };
    let with = ScratchStore::new(Some((name, &snapshot.files)), None, hold)?;
    let base = ScratchStore::new(old.as_ref().map(|f| (name, f)), None, hold)?;
    let arms = vec![
        Arm { kind: ArmKind::WithSkill, registry: Arc::clone(&with.registry), revision },
        Arm {
            kind: if baseline.is_some() { ArmKind::OldSkill } else { ArmKind::WithoutSkill },
            registry: Arc::clone(&base.registry),
            revision: baseline,
        },
    ];
    Ok(PreparedOutputs { cases, files: snapshot.files, revision, arms, _stores: vec![with, base] })
}
