//! Importing many skills at once: every skill of every path, through one store batch.
//! Holds `import_batch`, its report and the rules shared with the preview; not reading sources.
//!
//! One lock and one flush for the whole import (`FsStorage::batch`), so each skill costs the
//! same in an empty store and in one of 20,000 skills. A broken skill is refused alone; the
//! others are imported. A skill whose files equal its current revision's is left alone
//! (`unchanged`): the store's `write_skill` bumps on every upload, so import compares first.

use super::discover::Source;
use super::error::ImportError;
use super::item::{ErrorInfo, Incoming, PathError};
use super::single::current_revision;
use crate::storage::{FsStorage, Revision, RevisionEvent, Scope, StorageError};
use serde::Serialize;
use skilldeck_skill::files::UploadLimits;
use skilldeck_skill::name::SkillName;
use skilldeck_skill::provenance::Provenance;
use std::collections::HashMap;
use std::path::PathBuf;

/// What to import: a path, and which of the skills in it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportRequest {
    /// A skill (folder, `SKILL.md`, archive) or a collection (a folder or archive of them).
    pub path: PathBuf,
    /// The locations to import (as `PreviewItem::location` gives them); all when `None`.
    pub only: Option<Vec<String>>,
    /// Where `path` came from, when it is a source's fetched tree (`skilldeck add`): each skill
    /// stored from it records this with its own location below (`Provenance::below`).
    pub origin: Option<Provenance>,
}

impl ImportRequest {
    /// Every skill in `path`.
    pub fn all(path: impl Into<PathBuf>) -> Self {
        Self { path: path.into(), only: None, origin: None }
    }
}

/// How far an import or a preview has come, in skills.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BatchProgress {
    /// `done` of `total` skills read (and staged, for an import).
    Reading {
        /// Skills read so far.
        done: usize,
        /// Skills in all.
        total: usize,
    },
    /// `done` of `total` staged skills swapped into the store.
    Writing {
        /// Skills swapped in so far.
        done: usize,
        /// Skills staged in all.
        total: usize,
    },
}

/// What importing one skill did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum ImportState {
    /// Stored as `revision`, replacing `replaced` (now in history).
    Imported {
        /// The new revision.
        revision: Revision,
        /// The revision it replaced, if the skill was stored before.
        replaced: Option<Revision>,
        /// Bookkeeping that failed after the revision went live; it stands.
        #[serde(skip_serializing_if = "Vec::is_empty")]
        warnings: Vec<String>,
    },
    /// Its files equal those of the current revision `revision`: nothing was written.
    Unchanged {
        /// The current revision, which stays.
        revision: Revision,
    },
    /// Refused: nothing of it was written.
    Refused {
        /// Why.
        error: ErrorInfo,
    },
}

/// One skill of an import, shaped like a `PreviewItem` with what was done.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ImportedItem {
    /// The import path it was found in, as given.
    pub source: String,
    /// Where it is inside that path: `.` for the path itself, else its folder.
    pub location: String,
    /// What was read of it; `None` when it could not be read.
    pub skill: Option<Incoming>,
    /// What was done.
    #[serde(flatten)]
    pub state: ImportState,
}

/// What an import of many paths did.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct BatchReport {
    /// One item per skill found, in the order of the paths, then of their locations.
    pub items: Vec<ImportedItem>,
    /// The paths that held nothing importable, each with why.
    pub errors: Vec<PathError>,
}

impl BatchReport {
    /// How many skills were stored as a new revision.
    pub fn imported(&self) -> usize {
        self.count(|i| matches!(i.state, ImportState::Imported { .. }))
    }

    /// How many of those are invalid (stored, shown with their diagnostics, never listed to
    /// a model).
    pub fn imported_invalid(&self) -> usize {
        self.count(|i| matches!(i.state, ImportState::Imported { .. }) && i.skill.as_ref().is_some_and(|s| !s.valid))
    }

    /// How many were already stored with the same files.
    pub fn unchanged(&self) -> usize {
        self.count(|i| matches!(i.state, ImportState::Unchanged { .. }))
    }

    /// How many skills were refused (not counting the paths in `errors`).
    pub fn refused(&self) -> usize {
        self.count(|i| matches!(i.state, ImportState::Refused { .. }))
    }

    fn count(&self, f: impl Fn(&ImportedItem) -> bool) -> usize {
        self.items.iter().filter(|i| f(i)).count()
    }
}

/// The names claimed so far in one import: the first skill of a name wins.
#[derive(Debug, Default)]
pub(crate) struct Names(HashMap<SkillName, String>);

impl Names {
    /// Claims `name` for the skill at `location` in `source`, or says where it was claimed.
    pub(crate) fn claim(&mut self, name: &SkillName, source: &str, location: &str) -> Result<(), ImportError> {
        match self.0.get(name) {
            Some(first) => Err(ImportError::Duplicate { name: name.to_string(), first: first.clone() }),
            None => {
                self.0.insert(name.clone(), format!("{source}: {location}"));
                Ok(())
            }
        }
    }
}

/// An opened request: its source, the indices of its requested skills, and its origin.
pub(crate) type Opened<'a> = (Source, Vec<usize>, Option<&'a Provenance>);

/// Opens each requested path; returns the sources with the indices of their requested skills
/// and their origin, and the paths that could not be used.
pub(crate) fn open_all(requests: &[ImportRequest]) -> (Vec<Opened<'_>>, Vec<PathError>) {
    let mut opened = Vec::new();
    let mut errors = Vec::new();
    for r in requests {
        let shown = r.path.display().to_string();
        match Source::open(&r.path) {
            Err(e) => errors.push(PathError { source: shown, error: ErrorInfo::from(&e) }),
            Ok(source) => {
                let indices: Vec<usize> = match &r.only {
                    None => (0..source.len()).collect(),
                    Some(only) => {
                        let at: HashMap<&str, usize> = (0..source.len()).map(|i| (source.location(i), i)).collect();
                        for missing in only.iter().filter(|l| !at.contains_key(l.as_str())) {
                            errors.push(PathError {
                                source: shown.clone(),
                                error: ErrorInfo {
                                    code: "skill_not_found".to_owned(),
                                    message: format!(
                                        "{shown} holds no skill at {missing:?} (any more?); preview it again"
                                    ),
                                },
                            });
                        }
                        only.iter().filter_map(|l| at.get(l.as_str()).copied()).collect()
                    }
                };
                opened.push((source, indices, r.origin.as_ref()));
            }
        }
    }
    (opened, errors)
}

/// Imports every skill the requests name into `scope`, as one batch of the store: one lock,
/// one flush. Skills whose files equal their current revision's are left `unchanged`; a skill
/// that cannot be read, or a second one of a name, is `refused` alone. The error is the
/// store's, when the batch could not even start (its lock).
pub fn import_batch(
    storage: &FsStorage,
    scope: Scope,
    requests: &[ImportRequest],
    limits: UploadLimits,
    progress: &mut dyn FnMut(BatchProgress),
) -> Result<BatchReport, StorageError> {
    let (mut opened, errors) = open_all(requests);
    let total = opened.iter().map(|(_, idx, _)| idx.len()).sum();
    let mut batch = storage.batch(scope, RevisionEvent::Upload)?;
    let mut names = Names::default();
    // Each item, its state still `None` while its skill waits in the batch.
    let mut items: Vec<(ImportedItem, Option<ImportState>)> = Vec::with_capacity(total);
    let mut staged = Vec::new();
    for (source, indices, origin) in &mut opened {
        let shown = source.path().display().to_string();
        for &i in indices.iter() {
            let location = source.location(i).to_owned();
            let (skill, state) = match source.load(i, limits, &mut |_, _| {}) {
                Err(e) => (None, Some(refused(&e))),
                Ok(loaded) => {
                    let incoming = Incoming::of(&loaded);
                    let state = if let Err(e) = names.claim(&loaded.name, &shown, &location) {
                        Some(refused(&e))
                    } else if let Some((revision, digest)) = current_revision(storage, scope, &loaded.name)
                        && digest == incoming.digest
                    {
                        Some(ImportState::Unchanged { revision })
                    } else {
                        let staged_as = match origin {
                            Some(o) => batch.stage_as_event(
                                &loaded.name,
                                &loaded.files,
                                RevisionEvent::Sourced { source: o.below(&location) },
                            ),
                            None => batch.stage(&loaded.name, &loaded.files),
                        };
                        match staged_as {
                            Ok(()) => {
                                staged.push(items.len());
                                None
                            }
                            Err(e) => Some(refused(&ImportError::from(e))),
                        }
                    };
                    (Some(incoming), state)
                }
            };
            let placeholder = ImportState::Unchanged { revision: Revision(0) };
            items.push((ImportedItem { source: shown.clone(), location, skill, state: placeholder }, state));
            progress(BatchProgress::Reading { done: items.len(), total });
        }
    }
    let writing = staged.len();
    let results = batch.commit(&mut |done| progress(BatchProgress::Writing { done, total: writing }));
    for (k, (_, result)) in staged.into_iter().zip(results) {
        if let Some((_, state)) = items.get_mut(k) {
            *state = Some(match result {
                Ok(w) => ImportState::Imported { revision: w.revision, replaced: w.replaced, warnings: w.warnings },
                Err(e) => refused(&ImportError::from(e)),
            });
        }
    }
    let items = items
        .into_iter()
        .map(|(mut item, state)| {
            item.state = state.unwrap_or_else(|| {
                refused(&ImportError::from(StorageError::Task("the batch ended before this skill was written".into())))
            });
            item
        })
        .collect();
    let report = BatchReport { items, errors };
    tracing::info!(
        scope = scope.as_str(),
        imported = report.imported(),
        invalid = report.imported_invalid(),
        unchanged = report.unchanged(),
        refused = report.refused(),
        unreadable_paths = report.errors.len(),
        "import finished"
    );
    Ok(report)
}

fn refused(e: &ImportError) -> ImportState {
    ImportState::Refused { error: ErrorInfo::from(e) }
}
