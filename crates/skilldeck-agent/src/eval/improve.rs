//! Improving a stored skill's description: the guide's loop (`optimize`) run over a scratch
//! copy of the store (the user's skills, a folder of them, or none around the skill), each
//! candidate stored there as a new revision of the skill, and the winner offered as a draft of
//! the real skill. The store itself is never written; the draft waits for the user.

use super::optimize::{Optimize, OptimizeReport, optimize_description};
use super::prepare::{PrepareError, ScratchStore};
use super::queries::TriggerQuery;
use super::triggers::{EvalError, TriggerOptions};
use crate::provider::Provider;
use crate::session::SessionOptions;
use skilldeck_core::SkillRegistry;
use skilldeck_skill::name_field::with_description;
use skilldeck_skill::{RelPath, Scope, SkillFiles, SkillName, frontmatter};
use skilldeck_store::drafts::{Draft, DraftError};
use std::path::PathBuf;
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

/// The skills around the skill while candidates are scored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Neighbours {
    /// Every skill of the user's store in the skill's scope, as a real session lists them.
    Store,
    /// None: the skill alone.
    Empty,
    /// The skills of a folder (a saved selection).
    Folder(PathBuf),
}

/// What improving a description needs.
pub struct Improve<'a> {
    /// The user's registry (the skill, its scope's folder, the hold).
    pub registry: &'a SkillRegistry,
    /// The skill's scope.
    pub scope: Scope,
    /// The skill.
    pub name: &'a SkillName,
    /// What surrounds it.
    pub neighbours: Neighbours,
    /// The model that runs the queries and proposes rewrites.
    pub provider: Arc<dyn Provider>,
    /// Session options of every run.
    pub opts: SessionOptions,
    /// The trigger queries.
    pub queries: &'a [TriggerQuery],
    /// How each query runs.
    pub options: TriggerOptions,
    /// Rewrites to try at most.
    pub iterations: usize,
    /// Ends the loop early; no draft is offered then.
    pub stop: CancellationToken,
}

/// The loop's report, and the draft's `SKILL.md` when the winner was offered as one.
#[derive(Debug, Clone, PartialEq)]
pub struct Improved {
    /// Every candidate with its scores.
    pub report: OptimizeReport,
    /// Where the draft's `SKILL.md` is: `None` when the description as it is won, or when the
    /// skill had a draft already (left alone; the winner is in the report).
    pub draft: Option<PathBuf>,
}

/// Why improving could not run.
#[derive(Debug, thiserror::Error)]
pub enum ImproveError {
    /// The offline router cannot propose a description.
    #[error(
        "the offline provider is a ranker, not a model: it cannot propose descriptions; choose the model your agents \
         use (in a terminal: --provider NAME, or --api, --base-url and --model)"
    )]
    OfflineProposer,
    /// The skill's `SKILL.md` cannot be read.
    #[error("{0}'s SKILL.md has no frontmatter to read a description from; fix it first")]
    NoFrontmatter(String),
    /// The scratch store could not be made.
    #[error(transparent)]
    Prepare(#[from] PrepareError),
    /// The runs could not be made.
    #[error(transparent)]
    Eval(#[from] EvalError),
    /// The draft could not be written.
    #[error(transparent)]
    Draft(#[from] DraftError),
    /// The store could not be read.
    #[error(transparent)]
    Storage(#[from] skilldeck_store::StorageError),
}

/// Runs the loop and offers the winner. `progress` hears `(candidate, what it does now)`.
pub async fn improve_description(
    i: Improve<'_>,
    progress: &(dyn Fn(usize, &str) + Sync),
) -> Result<Improved, ImproveError> {
    if i.provider.info().kind == "offline" {
        return Err(ImproveError::OfflineProposer);
    }
    let storage = i.registry.storage();
    let snapshot = storage.snapshot(i.scope, i.name)?;
    let skill_md = snapshot.files.skill_md().map(|b| String::from_utf8_lossy(b).into_owned()).unwrap_or_default();
    let split = frontmatter::split(&skill_md).map_err(|_| ImproveError::NoFrontmatter(i.name.to_string()))?;
    let description = i
        .registry
        .get(i.scope, i.name.as_str())
        .ok()
        .flatten()
        .and_then(|e| e.meta.description.clone())
        .unwrap_or_default();
    let instructions: String = split.body.chars().take(1500).collect();
    let folder = match &i.neighbours {
        Neighbours::Store => Some(storage.home().scope_dir(i.scope)),
        Neighbours::Empty => None,
        Neighbours::Folder(dir) => Some(dir.clone()),
    };
    let store = ScratchStore::new(Some((i.name, &snapshot.files)), folder.as_deref(), i.registry.hold())?;
    let mut made = 0usize;
    let mut store_with = |d: &str| {
        made += 1;
        let files = with_new_description(&snapshot.files, d)?;
        store
            .put(i.name, &files, &format!("candidate-{made}"))
            .map_err(|e| EvalError::Store(format!("the candidate could not be stored in the scratch store: {e}")))?;
        Ok(Arc::clone(&store.registry))
    };
    let o = Optimize {
        home: storage.home(),
        provider: i.provider,
        opts: i.opts,
        skill: i.name.as_str(),
        description,
        instructions,
        queries: i.queries,
        options: i.options,
        iterations: i.iterations,
        stop: i.stop,
    };
    let report = optimize_description(o, &mut store_with, progress).await?;
    if report.stopped || report.best == 0 || Draft::find(storage.home(), i.scope, i.name).is_some() {
        return Ok(Improved { report, draft: None });
    }
    let draft = Draft::open(storage, i.scope, i.name)?;
    let rel = skill_md_path()?;
    draft.write(&rel, with_description(&skill_md, &report.winner().description).as_bytes())?;
    Ok(Improved { draft: Some(rel.under(&draft.files_dir())), report })
}

fn skill_md_path() -> Result<RelPath, EvalError> {
    RelPath::parse("SKILL.md").map_err(|e| EvalError::Store(e.to_string()))
}

/// `files` with `SKILL.md`'s description set to `description`.
fn with_new_description(files: &SkillFiles, description: &str) -> Result<SkillFiles, EvalError> {
    let mut files = files.clone();
    let skill_md = String::from_utf8_lossy(files.skill_md().unwrap_or_default()).into_owned();
    files.insert(skill_md_path()?, with_description(&skill_md, description).into_bytes());
    Ok(files)
}
