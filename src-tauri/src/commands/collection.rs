//! Importing a folder or archive that holds many skills: what it holds, a preview of each
//! skill (new, will become v:N, identical to v:N, refused), and the import of the chosen ones
//! as one store batch, with progress sent to the window as `import://progress`.

use super::transfer::{typed_path, user_scope};
use crate::error::{ApiError, ApiResult};
use crate::state::AppState;
use crate::views::{Assessor, AuditView, DiagView};
use serde::Serialize;
use skilldeck_skill::Scope;
use skilldeck_skill::grants::GrantRequest;
use skilldeck_store::import::{
    self, BatchProgress, ErrorInfo, ImportRequest, ImportState, ImportedItem, Incoming, ItemState, Layout, PathError,
    PreviewItem, Source,
};
use skilldeck_store::trust::Trust;
use std::time::{Duration, Instant};
use tauri::{AppHandle, Emitter as _, Runtime, State};

/// The event carrying an import's progress.
pub const PROGRESS_EVENT: &str = "import://progress";

/// How often progress is sent at most.
const PROGRESS_EVERY: Duration = Duration::from_millis(80);

/// Whether `path` is one skill or a collection of them (a quick look at its top).
#[tauri::command]
pub async fn import_layout(path: String) -> ApiResult<Layout> {
    let path = typed_path(&path)?;
    tauri::async_runtime::spawn_blocking(move || Source::layout_of(&path)).await.map_err(task_failed)
}

/// One skill of a collection, as the import dialog lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct CollectionItemView {
    /// Its folder inside the collection (`skills/pdf`), the key to choose it by.
    pub location: String,
    /// Its name, when it could be read.
    pub name: Option<String>,
    /// `new`, `update`, `identical` or `refused`.
    pub state: &'static str,
    /// The revision it would get (`new`, `update`), or has and keeps (`identical`).
    pub revision: Option<u64>,
    /// The revision stored now, for `update`.
    pub current: Option<u64>,
    /// Whether validation found no error.
    pub valid: bool,
    /// Its problems, errors first.
    pub diagnostics: Vec<DiagView>,
    /// How many files.
    pub file_count: usize,
    /// Their total size in bytes.
    pub total_bytes: u64,
    /// Whether its `allowed-tools` asks for shell commands (approved later, one by one).
    pub asks_for_tools: bool,
    /// What the audit found in its files, and whether the stored skill would be (or is) held.
    pub audit: AuditView,
    /// Why it would be refused.
    pub error: Option<ErrorInfo>,
}

/// A collection's preview, or its import's report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct CollectionView {
    /// One entry per skill found, in folder order.
    pub items: Vec<CollectionItemView>,
    /// Skills imported as a new revision (for a report; 0 in a preview).
    pub imported: usize,
    /// Skills left as they were because their files are the current revision's.
    pub unchanged: usize,
    /// Skills refused.
    pub refused: usize,
}

impl CollectionItemView {
    fn new(location: String, skill: Option<&Incoming>, assess: Assessor<'_>, scope: Scope) -> Self {
        let mut diagnostics: Vec<DiagView> =
            skill.map(|s| s.diagnostics.iter().map(DiagView::from).collect()).unwrap_or_default();
        diagnostics.sort_by_key(|d| !matches!(d.severity, skilldeck_skill::Severity::Error));
        Self {
            location,
            name: skill.map(|s| s.name.to_string()),
            state: "refused",
            revision: None,
            current: None,
            valid: skill.is_some_and(|s| s.valid),
            diagnostics,
            file_count: skill.map_or(0, |s| s.file_count),
            total_bytes: skill.map_or(0, |s| s.total_bytes),
            asks_for_tools: skill.is_some_and(|s| GrantRequest::of(&s.meta).asks_for_shell()),
            audit: match skill {
                Some(s) => assess.view(scope, s.name.as_str(), s.findings.clone()),
                None => assess.view(scope, "", Vec::new()),
            },
            error: None,
        }
    }
}

/// Sends progress to the window, at most every `PROGRESS_EVERY` and always the last step.
pub(crate) fn progress_sender<R: Runtime>(app: AppHandle<R>) -> impl FnMut(BatchProgress) {
    let mut last: Option<Instant> = None;
    move |p| {
        let (phase, done, total) = match p {
            BatchProgress::Reading { done, total } => ("reading", done, total),
            BatchProgress::Writing { done, total } => ("writing", done, total),
        };
        if done < total && last.is_some_and(|t| t.elapsed() < PROGRESS_EVERY) {
            return;
        }
        last = Some(Instant::now());
        let _ = app.emit(PROGRESS_EVENT, serde_json::json!({ "phase": phase, "done": done, "total": total }));
    }
}

/// Reads every skill in the collection at `path` and says what importing each into `scope`
/// would do. Writes nothing.
#[tauri::command]
pub async fn import_collection_preview<R: Runtime>(
    app: AppHandle<R>,
    state: State<'_, AppState>,
    path: String,
    scope: Scope,
) -> ApiResult<CollectionView> {
    let scope = user_scope(scope)?;
    let request = ImportRequest::all(typed_path(&path)?);
    let storage = state.storage().clone();
    let preview = tauri::async_runtime::spawn_blocking(move || {
        let mut progress = progress_sender(app);
        import::preview_all(&storage, scope, &[request], storage.limits(), &mut progress)
    })
    .await
    .map_err(task_failed)?;
    first_path_error(preview.errors)?;
    let trust = Trust::load(state.storage().home()).unwrap_or_default();
    let assess = Assessor { trust: &trust, hold: state.registry.hold() };
    Ok(CollectionView::of(preview.items.into_iter().map(|i| CollectionItemView::previewed(i, assess, scope)).collect()))
}

/// Imports the skills at `locations` of the collection at `path` into `scope`, one revision
/// each, as one store batch; skills whose files equal their current revision stay as they are.
#[tauri::command]
pub async fn import_collection<R: Runtime>(
    app: AppHandle<R>,
    state: State<'_, AppState>,
    path: String,
    scope: Scope,
    locations: Vec<String>,
) -> ApiResult<CollectionView> {
    let scope = user_scope(scope)?;
    if locations.is_empty() {
        return Err(ApiError::new("nothing_chosen", "choose at least one skill to import"));
    }
    let request = ImportRequest { path: typed_path(&path)?, only: Some(locations), origin: None };
    let storage = state.storage().clone();
    let report = tauri::async_runtime::spawn_blocking(move || {
        let mut progress = progress_sender(app);
        import::import_batch(&storage, scope, &[request], storage.limits(), &mut progress)
    })
    .await
    .map_err(task_failed)??;
    state.registry.invalidate(scope, None);
    first_path_error(report.errors)?;
    let trust = Trust::load(state.storage().home()).unwrap_or_default();
    let assess = Assessor { trust: &trust, hold: state.registry.hold() };
    Ok(CollectionView::of(report.items.into_iter().map(|i| CollectionItemView::imported(i, assess, scope)).collect()))
}

/// A path that held nothing importable fails the whole command with its reason.
fn first_path_error(errors: Vec<PathError>) -> ApiResult<()> {
    match errors.into_iter().next() {
        Some(e) => Err(ApiError::new(&e.error.code, e.error.message).arg("path", e.source)),
        None => Ok(()),
    }
}

impl CollectionView {
    /// The view of `items`, counted by state.
    pub(crate) fn of(items: Vec<CollectionItemView>) -> Self {
        let count = |s: &str| items.iter().filter(|i| i.state == s).count();
        Self { imported: count("imported"), unchanged: count("identical"), refused: count("refused"), items }
    }
}

impl CollectionItemView {
    /// The row of a previewed skill; `assess` says whether its findings would hold it.
    pub(crate) fn previewed(item: PreviewItem, assess: Assessor<'_>, scope: Scope) -> Self {
        let mut view = Self::new(item.location, item.skill.as_ref(), assess, scope);
        match item.state {
            ItemState::New { revision } => (view.state, view.revision) = ("new", Some(revision.0)),
            ItemState::Update { revision, current } => {
                (view.state, view.revision, view.current) = ("update", Some(revision.0), Some(current.0));
            }
            ItemState::Identical { revision } => (view.state, view.revision) = ("identical", Some(revision.0)),
            ItemState::Refused { error } => view.error = Some(error),
        }
        view
    }

    /// The row of an imported skill; `assess` says whether its findings hold it.
    pub(crate) fn imported(item: ImportedItem, assess: Assessor<'_>, scope: Scope) -> Self {
        let mut view = Self::new(item.location, item.skill.as_ref(), assess, scope);
        match item.state {
            ImportState::Imported { revision, replaced, .. } => {
                (view.state, view.revision, view.current) = ("imported", Some(revision.0), replaced.map(|r| r.0));
            }
            ImportState::Unchanged { revision } => (view.state, view.revision) = ("identical", Some(revision.0)),
            ImportState::Refused { error } => view.error = Some(error),
        }
        view
    }
}

pub(crate) fn task_failed(e: impl std::fmt::Display) -> ApiError {
    ApiError::new("task_failed", format!("the import stopped unexpectedly: {e}"))
}
